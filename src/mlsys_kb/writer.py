"""Canonical YAML layout of catalog entries: fields in schema order, one blank line between
entries, lists in flow style, strings plain where YAML reads them back unchanged.

Used to write new entries (``add``) and generated catalogs (the benchmark); ``fmt``
applies the same layout to existing files without losing their comments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from .schema import KINDS, Type

# Plain scalars that YAML 1.1 would read as something other than the same string.
_SPECIAL = re.compile(
    r"""^(?:[-?:,\[\]{}#&*!|>'"%@`\s]|$)"""  # indicator or space first, or empty
    r"""|[\s]$|: |\s#|^(?:~|null|true|false|yes|no|on|off|y|n)$"""
    r"""|^[-+]?(?:\.?\d|\.inf|\.nan)|^\d{4}-\d\d?-\d\d?|^0[xo]|[\x00-\x1f\x7f\u2028\u2029\ufeff]""",
    re.IGNORECASE,
)
_FLOW_SPECIAL = re.compile(r"[,\[\]{}]")


def scalar(value: Any, *, in_flow: bool = False, plain_number: bool = False) -> str:
    """One value as YAML text; strings are double-quoted only where they must be."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"catalog values are text, numbers or lists, not {value!r}")
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if plain_number and re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return text  # dates stay plain, as people write them
    if _SPECIAL.search(text) or (in_flow and _FLOW_SPECIAL.search(text)):
        return json.dumps(text, ensure_ascii=False)
    return text


def field_line(name: str, value: Any) -> str:
    kind = None
    if isinstance(value, list):
        items = ", ".join(scalar(item, in_flow=True) for item in value)
        return f"{name}: [{items}]"
    kind = name in {"added", "date"}
    return f"{name}: {scalar(value, plain_number=kind)}"


def ordered_fields(kind: str, entry: Mapping[str, Any]) -> list[tuple[str, Any]]:
    names = KINDS[kind].field_names
    known = [(name, entry[name]) for name in names if name in entry]
    extra = [(name, value) for name, value in entry.items() if name not in names]
    return known + extra


def entry_text(kind: str, entry: Mapping[str, Any]) -> str:
    lines = []
    for position, (name, value) in enumerate(ordered_fields(kind, entry)):
        prefix = "- " if position == 0 else "  "
        lines.append(prefix + field_line(name, value))
    return "\n".join(lines) + "\n"


def schema_comment(kind: str) -> str:
    return f"# yaml-language-server: $schema=../schemas/{kind}.schema.json\n"


def catalog_text(kind: str, entries: Iterable[Mapping[str, Any]], header: str = "") -> str:
    """A whole catalog file in canonical layout."""
    body = "\n".join(entry_text(kind, entry) for entry in entries)
    return schema_comment(kind) + header + ("\n" if header else "") + body


def check_round_trip(kind: str, entries: list[Mapping[str, Any]]) -> None:
    """Assert that the canonical text reads back as the same values (used in tests)."""
    loaded = yaml.safe_load(catalog_text(kind, entries))
    for original, read in zip(entries, loaded, strict=True):
        for name, value in original.items():
            spec = KINDS[kind].field(name)
            got = read[name]
            if spec is not None and spec.type is Type.DATE:
                got = str(got)
            if got != value:
                raise AssertionError(f"{name}: wrote {value!r}, read back {got!r}")
