"""Load the catalogs and check them: every problem, with its place, in one run.

``load(root)`` returns the catalog and the problems found. Checks run in three passes:
each field against its declaration (schema.py), uniqueness within and across
catalogs, then references between catalogs. A catalog that could not be parsed is left
out of the reference checks, so that one syntax error does not turn into a hundred
"unknown topic" messages.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from . import loader
from .loader import Collection, RawEntry
from .model import Catalog, Entry, Mark, Problem
from .schema import ENTRY_KINDS, KINDS, YEAR_MIN, Field, Kind, Type

DATA_DIR = "data"
SLIDES_DIR = "slides"

ID_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
INT_PATTERN = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)")
DATE_PATTERN = re.compile(r"\d{4}-\d{2}-\d{2}")
NULLS = frozenset({"", "~", "null", "Null", "NULL"})
SAFE_SCHEMES = frozenset({"http", "https"})
# Anything below 0x20 or DEL in a URL is how scheme filters get fooled ("java\tscript:").
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_PATTERNS: dict[str, re.Pattern[str]] = {}


def catalog_path(kind: str) -> str:
    return f"{DATA_DIR}/{kind}.yaml"


def load(root: Path) -> tuple[Catalog, list[Problem]]:
    """Read and check every catalog under ``root/data``."""
    catalog = Catalog()
    problems: list[Problem] = []
    broken: set[str] = set()
    for kind in KINDS.values():
        path = catalog_path(kind.name)
        file = root / path
        if not file.exists():
            problems.append(
                Problem(path, 1, 1, "-", f"missing catalog; create {path} as a list of entries")
            )
            broken.add(kind.name)
            continue
        text, read_problems = loader.read_text(file, path)
        raw: list[RawEntry] = []
        if text is not None:
            raw, read_problems = loader.parse(text, path)
        problems.extend(read_problems)
        if text is None or (read_problems and not raw):
            broken.add(kind.name)
        catalog.entries[kind.name] = [_check_fields(kind, entry, problems) for entry in raw]
    _check_unique(catalog, problems)
    _check_references(catalog, problems, broken, root)
    problems.sort()
    return catalog, problems


# --- fields -------------------------------------------------------------------------------


def _check_fields(kind: Kind, raw: RawEntry, problems: list[Problem]) -> Entry:
    entry = Entry(kind.name, raw.path, raw.mark, {}, index=raw.index)
    raw_id = raw.fields.get("id")
    if raw_id is not None and isinstance(raw_id.value, tuple):
        entry.values["id"] = raw_id.value[0]

    def report(mark: Mark, message: str) -> None:
        problems.append(Problem(raw.path, mark[0], mark[1], entry.id, message))

    for name, raw_field in raw.fields.items():
        spec = kind.field(name)
        if spec is None:
            report(raw_field.key_mark, _unknown_field(kind, name))
            continue
        entry.marks[name] = raw_field.mark
        entry.key_marks[name] = raw_field.key_mark
        value = _convert(spec, raw_field.value, raw_field.mark, entry, report)
        if value is not None:
            entry.values[name] = value
    for spec in kind.fields:
        if spec.required and spec.name not in raw.fields:
            report(raw.mark, f"missing required field `{spec.name}` ({spec.description})")
    if kind.one_of and not any(name in entry.values for name in kind.one_of):
        names = ", ".join(f"`{name}`" for name in kind.one_of)
        report(raw.mark, f"needs at least one of {names} so that readers can find it")
    return entry


def _unknown_field(kind: Kind, name: str) -> str:
    close = difflib.get_close_matches(name, kind.field_names, n=1, cutoff=0.6)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    known = ", ".join(kind.field_names)
    return f"unknown field `{name}` for a {kind.singular}{hint} (fields: {known})"


def _convert(spec: Field, raw: Any, mark: Mark, entry: Entry, report) -> Any:
    """The field's value as its declared type, or None after reporting why it is not."""
    if isinstance(raw, Collection):
        report(mark, f"`{spec.name}` must be {_expected(spec)}, not {raw}")
        return None
    if spec.type in (Type.STRS, Type.IDS):
        if isinstance(raw, tuple):
            if raw[1] and raw[0] in NULLS:
                report(mark, f"`{spec.name}` is empty; give a value or remove the field")
                return None
            report(
                mark,
                f"`{spec.name}` must be {_expected(spec)}, not a single value; "
                f"write `{spec.name}: [{raw[0]}]`",
            )
            return None
        values: list[str] = []
        item_marks: list[Mark] = []
        for item in raw:
            if isinstance(item, Collection):
                report(mark, f"each item of `{spec.name}` must be a single value, not {item}")
                continue
            text, plain, item_mark = item
            if not text.strip():
                report(item_mark, f"empty item in `{spec.name}`; remove it")
                continue
            if spec.type is Type.IDS and not ID_PATTERN.fullmatch(text):
                report(item_mark, _bad_id(spec, text))
                continue
            values.append(text)
            item_marks.append(item_mark)
        seen: set[str] = set()
        for text, item_mark in zip(values, item_marks, strict=True):
            if text in seen:
                report(item_mark, f"`{text}` is listed twice in `{spec.name}`")
            seen.add(text)
        entry.item_marks[spec.name] = item_marks
        return values
    if isinstance(raw, list):
        report(mark, f"`{spec.name}` must be {_expected(spec)}, not a list")
        return None
    text, plain = raw
    if plain and text in NULLS:
        report(mark, f"`{spec.name}` is empty; give a value or remove the field")
        return None
    return _scalar(spec, text, plain, mark, report)


def _scalar(spec: Field, text: str, plain: bool, mark: Mark, report) -> Any:
    kind = spec.type
    if kind is Type.INT:
        if not plain or not INT_PATTERN.fullmatch(text):
            report(
                mark, f"`{spec.name}` must be a whole number such as {spec.example}, not {text!r}"
            )
            return None
        value = int(text.replace("_", ""))
        if spec.name == "year":
            last = dt.date.today().year + 1
            if not YEAR_MIN <= value <= last:
                report(mark, f"year {value} is out of range ({YEAR_MIN} to {last})")
                return None
        elif value < 1:
            report(mark, f"`{spec.name}` must be a positive number, not {value}")
            return None
        return value
    if kind is Type.DATE:
        try:
            if not DATE_PATTERN.fullmatch(text):
                raise ValueError
            dt.date.fromisoformat(text)
        except ValueError:
            report(mark, f"`{spec.name}` must be an ISO 8601 date YYYY-MM-DD, not {text!r}")
            return None
        return text
    if "\n" in text and kind is not Type.TEXT:
        report(mark, f"`{spec.name}` must be on one line")
        return None
    if not text.strip():
        report(mark, f"`{spec.name}` is empty; give a value or remove the field")
        return None
    if kind is Type.ID and not ID_PATTERN.fullmatch(text):
        report(mark, _bad_id(spec, text))
        return None
    if kind is Type.URL:
        problem = url_problem(text)
        if problem:
            report(mark, f"`{spec.name}`: {problem}")
            return None
    if spec.choices and text not in spec.choices:
        close = difflib.get_close_matches(text, spec.choices, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        report(mark, f"`{spec.name}` must be one of {', '.join(spec.choices)}, not {text!r}{hint}")
        return None
    if spec.pattern:
        pattern = _PATTERNS.get(spec.pattern) or _PATTERNS.setdefault(
            spec.pattern, re.compile(spec.pattern)
        )
        if not pattern.fullmatch(text):
            example = f" such as {spec.example}" if spec.example else ""
            report(
                mark,
                f"`{spec.name}` {text!r} is not valid: expected "
                f"{spec.description.lower().rstrip('.')}{example}",
            )
            return None
    return text


def _bad_id(spec: Field, text: str) -> str:
    suggestion = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    hint = f"; for example `{suggestion}`" if suggestion else ""
    where = "an id" if spec.type is Type.ID else f"each item of `{spec.name}`"
    return f"{where} must be lowercase a-z, 0-9 and single dashes, not {text!r}{hint}"


def _expected(spec: Field) -> str:
    return {
        Type.STRS: "a list of text values",
        Type.IDS: "a list of ids",
        Type.INT: "a whole number",
    }.get(spec.type, "a single value")


def url_problem(url: str) -> str | None:
    """Why ``url`` may not be linked from the site, or None: http(s) or a relative path only."""
    if _CONTROL.search(url):
        return "a URL may not contain spaces or control characters; encode them as %20"
    if url.startswith("//"):
        return f"{url!r} is protocol-relative; write it with https://"
    try:
        parts = urlsplit(url)
    except ValueError as error:
        return f"{url!r} is not a valid URL ({error})"
    if parts.scheme:
        if parts.scheme.lower() not in SAFE_SCHEMES:
            return (
                f"{url!r} uses the {parts.scheme}: scheme; "
                "only http(s) URLs and relative paths are allowed"
            )
        if not parts.netloc:
            return f"{url!r} has no host"
    elif ":" in url.split("/", 1)[0]:
        return f"{url!r} is not a URL; write http(s)://... or a relative path"
    return None


# --- uniqueness ---------------------------------------------------------------------------


def _normal_url(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.netloc.lower()}{parts.path.rstrip('/')}?{parts.query}"


_NORMALISE = {
    "doi": str.lower,
    "arxiv": lambda value: re.sub(r"v\d+$", "", value),
    "url": _normal_url,
}


def _check_unique(catalog: Catalog, problems: list[Problem]) -> None:
    # Entry kinds share one id namespace (each has a permalink); vocabularies have their own.
    shared: dict[str, Entry] = {}
    values: dict[tuple[str, str], Entry] = {}
    for kind in KINDS.values():
        own: dict[str, Entry] = {}
        for entry in catalog[kind.name]:
            entry_id = entry.get("id")
            if entry_id is None:
                continue
            first = own.get(entry_id) or (shared.get(entry_id) if not kind.vocabulary else None)
            if first is not None:
                problems.append(_at(entry, "id", f"duplicate id; also used by {_where(first)}"))
            else:
                own[entry_id] = entry
                if not kind.vocabulary:
                    shared[entry_id] = entry
            for spec in kind.fields:
                if not spec.unique or spec.name not in entry.values:
                    continue
                normal = _NORMALISE.get(spec.name, str)(entry.values[spec.name])
                key = ("url" if spec.type is Type.URL else spec.name, normal)
                first = values.setdefault(key, entry)
                if first is not entry:
                    label = (
                        "URL" if key[0] == "url" else {"doi": "DOI", "arxiv": "arXiv id"}[key[0]]
                    )
                    problems.append(
                        _at(
                            entry,
                            spec.name,
                            f"same {label} as {_where(first)}; each work is catalogued once",
                        )
                    )
        if kind.name == "issues":
            seen: dict[tuple[Any, Any], Entry] = {}
            for entry in catalog[kind.name]:
                key = (entry.get("repo", "").lower(), entry.get("number"))
                if None in key:
                    continue
                first = seen.setdefault(key, entry)
                if first is not entry:
                    problems.append(_at(entry, "number", f"same GitHub issue as {_where(first)}"))


def _where(entry: Entry) -> str:
    return f"`{entry.id}` ({entry.path}:{entry.mark[0]})"


def _at(entry: Entry, name: str, message: str, mark: Mark | None = None) -> Problem:
    line, column = mark or entry.mark_of(name)
    return Problem(entry.path, line, column, entry.id, message)


# --- references ---------------------------------------------------------------------------


def _check_references(
    catalog: Catalog, problems: list[Problem], broken: set[str], root: Path
) -> None:
    known = {name: {e.get("id") for e in catalog[name]} for name in KINDS}
    for kind in KINDS.values():
        for spec in kind.fields:
            if spec.ref is None or spec.ref in broken:
                continue
            ids = known[spec.ref]
            target = KINDS[spec.ref]
            for entry in catalog[kind.name]:
                value = entry.values.get(spec.name)
                if value is None:
                    continue
                pairs = (
                    zip(value, entry.item_marks[spec.name], strict=True)
                    if isinstance(value, list)
                    else [(value, entry.mark_of(spec.name))]
                )
                for ref, mark in pairs:
                    if ref not in ids:
                        problems.append(_at(entry, spec.name, _unknown_ref(target, ref, ids), mark))
    if "topics" not in broken:
        _check_topic_cycles(catalog, problems)
    for entry in catalog["decks"]:
        file = entry.get("file")
        if file is not None:
            message = _slide_problem(root, file)
            if message:
                problems.append(_at(entry, "file", message))


def _unknown_ref(target: Kind, ref: str, ids: set[Any]) -> str:
    close = difflib.get_close_matches(ref, [i for i in ids if isinstance(i, str)], n=1)
    hint = (
        f"; did you mean `{close[0]}`?"
        if close
        else f"; add it to {catalog_path(target.name)} first"
    )
    return f"unknown {target.singular} `{ref}`{hint}"


def _check_topic_cycles(catalog: Catalog, problems: list[Problem]) -> None:
    parents = {t.get("id"): t.get("parent") for t in catalog["topics"]}
    for topic in catalog["topics"]:
        seen = {topic.get("id")}
        parent = topic.get("parent")
        while parent is not None:
            if parent in seen:
                problems.append(
                    _at(topic, "parent", f"topic parents form a cycle through `{parent}`")
                )
                break
            seen.add(parent)
            parent = parents.get(parent)


def _slide_problem(root: Path, file: str) -> str | None:
    slides = (root / SLIDES_DIR).resolve()
    target = (root / file).resolve()
    if not target.is_relative_to(slides) or target == slides:
        return (
            f"slide file {file!r} is not under {SLIDES_DIR}/; "
            f"move it there and name it `{SLIDES_DIR}/NAME`"
        )
    if not target.is_file():
        return f"slide file {file!r} does not exist; add it under {SLIDES_DIR}/ or remove `file`"
    return None


def entry_kinds() -> tuple[str, ...]:
    return ENTRY_KINDS
