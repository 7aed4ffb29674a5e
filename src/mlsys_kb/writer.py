"""Canonical YAML layout of catalog entries: fields in schema order, one blank line between
entries, lists in flow style, strings plain where YAML reads them back unchanged.

Used to write new entries (``add``) and generated catalogs (the benchmark); ``fmt``
applies the same layout to existing files without losing their comments. A paper::

    - id: zheng2020distdgl
      title: "DistDGL: Distributed Graph Neural Network Training for Billion-Scale Graphs"
      authors: [Da Zheng, Chao Ma]
      arxiv: "2010.05337"
      summary: |-
        Text of several lines
        is written as a literal block.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .schema import KINDS, Type

INDENT = 2  # fields of an entry stand two columns in, under the text after "- "

# Plain scalars that YAML 1.1 (PyYAML) or 1.2 would read as something other than the same
# string: an indicator or space first, ": " or " #" inside, a trailing colon or space, a
# word YAML 1.1 resolves (booleans, null, merge and value keys), anything number-like.
_SPECIAL = re.compile(
    r"""^(?:[-?:,\[\]{}#&*!|>'"%@`=<\s]|$)"""
    r"""|\s$|:$|: |\s#|^(?:~|null|true|false|yes|no|on|off|y|n)$"""
    r"""|^[-+]?\.?\d|^(?:[-+]|[-+]?\.)_|^[-+]?\.(?:inf|nan)""",
    re.IGNORECASE,
)
# In a flow list these end or split a plain scalar.
_FLOW_SPECIAL = re.compile(r"[,\[\]{}?:#]")
# Characters a plain scalar may not hold: unprintable ones, YAML 1.1 line breaks (U+0085,
# U+2028, U+2029), the byte-order mark, tabs (which other tools read differently).
_PLAIN_BAD = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
# Escapes for a double-quoted scalar: every character YAML does not print as itself.
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}
_NEEDS_ESCAPE = re.compile('[\\\\"\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]')


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:  # a lone surrogate cannot be written as UTF-8
        return "\\ufffd"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def quoted(text: str) -> str:
    """``text`` as a YAML double-quoted scalar that reads back exactly."""
    return '"' + _NEEDS_ESCAPE.sub(lambda match: _escape(match.group()), text) + '"'


def is_plain_safe(text: str, *, in_flow: bool = False) -> bool:
    """Whether ``text`` may be written unquoted and still read back as the same string."""
    if _SPECIAL.search(text) or _PLAIN_BAD.search(text):
        return False
    return not (in_flow and _FLOW_SPECIAL.search(text))


def scalar(value: Any, *, in_flow: bool = False, plain_number: bool = False) -> str:
    """One value as YAML text; strings are double-quoted only where they must be."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"catalog values are text, numbers or lists, not {value!r}")
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if plain_number and re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return text  # dates stay plain, as people write them
    return text if is_plain_safe(text, in_flow=in_flow) else quoted(text)


def _literal(text: str, indent: int) -> str | None:
    """``text`` (several lines) as a literal block scalar, or None where one cannot hold it."""
    body = text[:-1] if text.endswith("\n") else text
    lines = body.split("\n")
    if (
        body.endswith("\n")  # trailing empty lines would need the keep (+) indicator
        or not lines[0].strip()
        or lines[0][0] in " \t"  # a first line indented would need an indentation indicator
        or any(line and not line.strip() for line in lines)  # lines of only spaces
        or any(_PLAIN_BAD.search(line.replace("\t", " ")) for line in lines)
    ):
        return None
    chomp = "" if text.endswith("\n") else "-"
    pad = " " * indent
    return f"|{chomp}\n" + "\n".join(pad + line if line else "" for line in lines)


def field_line(name: str, value: Any, indent: int = INDENT) -> str:
    """``name: value`` in canonical layout; text of several lines continues on more lines.

    ``indent`` is the column of the field name; a literal block goes two columns deeper.
    """
    if isinstance(value, list):
        items = ", ".join(scalar(item, in_flow=True) for item in value)
        return f"{name}: [{items}]"
    if isinstance(value, str) and "\n" in value.rstrip("\n"):
        block = _literal(value, indent + INDENT)
        if block is not None:
            return f"{name}: {block}"
    return f"{name}: {scalar(value, plain_number=name in {'added', 'date'})}"


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
    import yaml

    loaded = yaml.safe_load(catalog_text(kind, entries))
    for original, read in zip(entries, loaded, strict=True):
        for name, value in original.items():
            spec = KINDS[kind].field(name)
            got = read[name]
            if spec is not None and spec.type is Type.DATE:
                got = str(got)
            if got != value:
                raise AssertionError(f"{name}: wrote {value!r}, read back {got!r}")
