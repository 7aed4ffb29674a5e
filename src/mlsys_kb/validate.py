"""Load the catalogs and check them: every problem, with its place, in one run.

``load(root)`` returns the catalog and the problems found. Checks run in three passes:
each field against its declaration (schema.py), uniqueness within and across
catalogs, then references between catalogs. A catalog that could not be parsed is left
out of the reference checks, so that one syntax error does not turn into a hundred
"unknown topic" messages.
"""

from __future__ import annotations

import datetime as dt
import gc
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from . import loader
from .loader import Collection, RawEntry, RawList, Reported
from .model import Catalog, Entry, Mark, Problem
from .schema import ENTRY_KINDS, KINDS, YEAR_MIN, Field, Kind, Type

DATA_DIR = "data"
SLIDES_DIR = "slides"
# YAML files under data/ that are not catalogs but are read by other commands.
OTHER_DATA_FILES = frozenset({"link-allowlist.yaml"})

ID_PATTERN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
INT_PATTERN = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)")
DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
NULLS = frozenset({"", "~", "null", "Null", "NULL"})
SAFE_SCHEMES = frozenset({"http", "https"})
# Anything below 0x20 or DEL in a URL is how scheme filters get fooled ("java\tscript:").
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_PATTERNS: dict[str, re.Pattern[str]] = {}


def _close_matches(word: str, candidates, n: int = 1, cutoff: float = 0.6) -> list[str]:
    import difflib  # only when there is something to suggest; it is slow to import

    return difflib.get_close_matches(word, candidates, n=n, cutoff=cutoff)


def _urlsplit(url: str):
    from urllib.parse import urlsplit

    return urlsplit(url)


def catalog_path(kind: str) -> str:
    return f"{DATA_DIR}/{kind}.yaml"


def load(root: Path) -> tuple[Catalog, list[Problem]]:
    """Read and check every catalog under ``root/data``."""
    # Loading makes a million small objects and no reference cycles; the cyclic garbage
    # collector would only walk them over and over (a tenth of the time at 10,000 papers).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load(root)
    finally:
        if collecting:
            gc.enable()


def _load(root: Path) -> tuple[Catalog, list[Problem]]:
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
        problems.extend(read_problems)
        if text is None:
            broken.add(kind.name)
            continue
        entries, file_problems, parsed = _read_catalog(kind, text, path)
        problems.extend(file_problems)
        if not parsed:
            broken.add(kind.name)
        catalog.entries[kind.name] = entries
    _check_unique(catalog, problems)
    _check_references(catalog, problems, broken, root)
    _check_stray_files(root, problems)
    problems.sort()
    return catalog, problems


def _check_stray_files(root: Path, problems: list[Problem]) -> None:
    """A YAML file under data/ that no command reads: entries put there (``paper.yaml``,
    ``papers.yml``) would never be checked, built or counted, and validate would pass."""
    known = {f"{kind}.yaml" for kind in KINDS} | OTHER_DATA_FILES
    try:
        names = sorted(path.name for path in (root / DATA_DIR).iterdir())
    except OSError:
        return  # no data/ at all: every catalog is already reported missing
    for name in names:
        if not name.endswith((".yaml", ".yml")) or name in known:
            continue
        close = _close_matches(name, sorted(known))
        hint = f"did you mean {close[0]}? " if close else ""
        problems.append(
            Problem(
                f"{DATA_DIR}/{name}",
                1,
                1,
                "-",
                f"not a catalog this project reads, so nothing in it is checked or built; "
                f"{hint}move its entries into one of {', '.join(sorted(known - OTHER_DATA_FILES))}",
            )
        )


# --- reading a catalog ---------------------------------------------------------------------


def _read_catalog(kind: Kind, text: str, path: str) -> tuple[list[Entry], list[Problem], bool]:
    """Entries of one catalog file checked field by field, their problems, and whether the
    file could be parsed (when not, it is left out of the reference checks)."""
    raw, problems = loader.parse(text, path)
    parsed = bool(raw) or not problems
    return [_check_fields(kind, entry, problems) for entry in raw], problems, parsed


# --- fields -------------------------------------------------------------------------------


def _check_fields(kind: Kind, raw: RawEntry, problems: list[Problem]) -> Entry:
    quick_checks = _QUICK.get(kind.name) or _prepare(kind)
    fields = raw.fields
    values: dict[str, Any] = {}
    marks: dict[str, Mark] = {}
    key_marks: dict[str, Mark] = {}
    entry = Entry(kind.name, raw.path, raw.mark, values, marks, key_marks, {}, raw.index)
    raw_id = fields.get("id")
    if raw_id is not None and type(raw_id[0]) is tuple:
        values["id"] = raw_id[0][0]  # names the entry in messages, even when malformed
    for name, field in fields.items():
        quick = quick_checks.get(name)
        if quick is None:
            _reporter(problems, entry)(field[2], _unknown_field(kind, name))
            continue
        value, marks[name], key_marks[name] = field
        result = quick(value, entry)
        if result is _SLOW:
            spec = cast(Field, kind.field(name))  # there is a quick check, so a declaration
            result = _convert(spec, value, field[1], entry, _reporter(problems, entry))
            if result is None:
                continue
        values[name] = result
    if not _REQUIRED[kind.name] <= fields.keys():
        for spec in kind.fields:
            if spec.required and spec.name not in fields:
                message = f"missing required field `{spec.name}` ({spec.description})"
                _reporter(problems, entry)(raw.mark, message)
    if kind.one_of and fields.keys().isdisjoint(kind.one_of):
        names = ", ".join(f"`{name}`" for name in kind.one_of)
        message = f"needs at least one of {names} so that readers can find it"
        _reporter(problems, entry)(raw.mark, message)
    return entry


def _reporter(problems: list[Problem], entry: Entry) -> Callable[[Mark, str], None]:
    def report(mark: Mark, message: str) -> None:
        problems.append(Problem(entry.path, mark[0], mark[1], _cut(entry.id), message))

    return report


# --- quick checks: the common valid value passes in a few operations --------------------------
# Each returns the value, or _SLOW for _convert to decide and explain. A quick check never
# accepts what _convert would refuse or change (tested); it only saves time at 10,000 entries.

_SLOW: Any = object()
_QUICK: dict[str, dict[str, Callable[[Any, Entry], Any]]] = {}
_REQUIRED: dict[str, frozenset[str]] = {}
# An http(s) URL with a plain ASCII host and no blanks or control characters: url_problem()
# has nothing to say about it.
_SAFE_URL = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:[/?#][!-~]*)?")


def _prepare(kind: Kind) -> dict[str, Callable[[Any, Entry], Any]]:
    _REQUIRED[kind.name] = frozenset(spec.name for spec in kind.fields if spec.required)
    checks = {spec.name: _quick(spec) for spec in kind.fields}
    _QUICK[kind.name] = checks
    return checks


def _quick(spec: Field) -> Callable[[Any, Entry], Any]:
    kind = spec.type
    name = spec.name
    if kind in (Type.STRS, Type.IDS):
        item_ok = ID_PATTERN.fullmatch if kind is Type.IDS else None
        required = spec.required

        def quick_list(raw: Any, entry: Entry) -> Any:
            if type(raw) is not RawList or raw.nested:
                return _SLOW
            texts = raw.texts
            # map() and all() keep the loop over items in C.
            if not all(map(item_ok, texts) if item_ok else map(str.strip, texts)):
                return _SLOW
            if len(set(texts)) != len(texts) or (required and not texts):
                return _SLOW
            entry.item_marks[name] = raw.marks
            return texts

        return quick_list
    if kind is Type.INT:
        low, high = (YEAR_MIN, dt.date.today().year + 1) if name == "year" else (1, None)

        def quick_int(raw: Any, entry: Entry) -> Any:
            if type(raw) is not tuple or not raw[1]:
                return _SLOW
            text = raw[0]
            if not (text.isascii() and text.isdigit()) or text[0] == "0":
                return _SLOW
            value = int(text)
            return value if low <= value and (high is None or value <= high) else _SLOW

        return quick_int
    if kind is Type.DATE:

        def quick_date(raw: Any, entry: Entry) -> Any:
            if type(raw) is not tuple or DATE_PATTERN.fullmatch(raw[0]) is None:
                return _SLOW
            try:
                dt.date.fromisoformat(raw[0])
            except ValueError:
                return _SLOW
            return raw[0]

        return quick_date
    tests = []
    if kind is Type.ID:
        tests.append(ID_PATTERN.fullmatch)
    if kind is Type.URL:
        tests.append(_SAFE_URL.fullmatch)
    if spec.pattern:
        tests.append(re.compile(spec.pattern).fullmatch)
    choices = frozenset(spec.choices)
    one_line = kind is not Type.TEXT

    def quick_text(raw: Any, entry: Entry) -> Any:
        if type(raw) is not tuple:
            return _SLOW
        text = raw[0]
        if text in NULLS or text.isspace() or (one_line and "\n" in text):
            return _SLOW
        if choices and text not in choices:
            return _SLOW
        for test in tests:
            if test(text) is None:
                return _SLOW
        return text

    return quick_text


def _unknown_field(kind: Kind, name: str) -> str:
    close = _close_matches(name, kind.field_names, n=1, cutoff=0.6)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    known = ", ".join(kind.field_names)
    return f"unknown field `{name}` for a {kind.singular}{hint} (fields: {known})"


def _convert(spec: Field, raw: Any, mark: Mark, entry: Entry, report) -> Any:
    """The field's value as its declared type, or None after reporting why it is not."""
    if isinstance(raw, Reported):
        return None
    if isinstance(raw, Collection):
        report(mark, f"`{spec.name}` must be {_expected(spec)}, not {raw}")
        return None
    if spec.type in (Type.STRS, Type.IDS):
        if not isinstance(raw, RawList):
            if raw[1] and raw[0] in NULLS:
                report(mark, f"`{spec.name}` is empty; give a value or remove the field")
                return None
            report(
                mark,
                f"`{spec.name}` must be {_expected(spec)}, not a single value; "
                f"write `{spec.name}: [{_cut(raw[0])}]`",
            )
            return None
        for nested, nested_mark in raw.nested:
            report(nested_mark, f"each item of `{spec.name}` must be a single value, not {nested}")
        values: list[str] = []
        item_marks: list[Mark] = []
        for text, item_mark in zip(raw.texts, raw.marks, strict=True):
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
                report(item_mark, f"`{_cut(text)}` is listed twice in `{spec.name}`")
            seen.add(text)
        entry.item_marks[spec.name] = item_marks
        if spec.required and not raw.texts and not raw.nested:
            report(mark, f"`{spec.name}` is empty; list at least one")
            return None
        return values
    if isinstance(raw, RawList):
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
            example = f"a whole number such as {spec.example}"
            report(mark, f"`{spec.name}` must be {example}, not {_shown(text)}")
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
            report(mark, f"`{spec.name}` must be an ISO 8601 date YYYY-MM-DD, not {_shown(text)}")
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
        close = _close_matches(text, spec.choices, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        choices = ", ".join(spec.choices)
        report(mark, f"`{spec.name}` must be one of {choices}, not {_shown(text)}{hint}")
        return None
    if spec.pattern:
        pattern = _PATTERNS.get(spec.pattern) or _PATTERNS.setdefault(
            spec.pattern, re.compile(spec.pattern)
        )
        if not pattern.fullmatch(text):
            example = f" such as {spec.example}" if spec.example else ""
            report(
                mark,
                f"`{spec.name}` {_shown(text)} is not valid: expected "
                f"{spec.description.lower().rstrip('.')}{example}",
            )
            return None
    return text


def _cut(text: str, limit: int = 60) -> str:
    """A value as a message shows it: cut short, so that a 10 MB value does not make a
    10 MB message."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shown(text: str, limit: int = 60) -> str:
    """A value quoted in a message, in Python's quotes so that blanks and control
    characters show, and cut short."""
    return repr(text) if len(text) <= limit else repr(text[: limit - 3]) + "..."


def _bad_id(spec: Field, text: str) -> str:
    suggestion = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    hint = f"; for example `{_cut(suggestion)}`" if suggestion else ""
    where = "an id" if spec.type is Type.ID else f"each item of `{spec.name}`"
    return f"{where} must be lowercase a-z, 0-9 and single dashes, not {_shown(text)}{hint}"


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
        return f"{_shown(url)} is protocol-relative; write it with https://"
    try:
        parts = _urlsplit(url)
    except ValueError as error:
        return f"{_shown(url)} is not a valid URL ({error})"
    if parts.scheme:
        if parts.scheme.lower() not in SAFE_SCHEMES:
            return (
                f"{_shown(url)} uses the {parts.scheme}: scheme; "
                "only http(s) URLs and relative paths are allowed"
            )
        if not parts.netloc:
            return f"{_shown(url)} has no host"
    elif ":" in url.split("/", 1)[0]:
        return f"{_shown(url)} is not a URL; write http(s)://... or a relative path"
    return None


# --- uniqueness ---------------------------------------------------------------------------


# scheme://netloc/path?query#fragment, split as urlsplit() would for a URL _SAFE_URL admits.
_URL_PARTS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)([^?#]*)(?:\?([^#]*))?")


def _normal_url(url: str) -> str:
    parts = _URL_PARTS.match(url)
    if parts is not None and _SAFE_URL.fullmatch(url):
        netloc, path, query = parts.groups()
        return f"{netloc.lower()}{path.rstrip('/')}?{query or ''}"
    parts = _urlsplit(url)
    return f"{parts.netloc.lower()}{parts.path.rstrip('/')}?{parts.query}"


_ARXIV_VERSION = re.compile(r"v[0-9]+$")
_NORMALISE = {
    "doi": str.lower,
    "arxiv": lambda value: _ARXIV_VERSION.sub("", value),
    "url": _normal_url,
}


def _check_unique(catalog: Catalog, problems: list[Problem]) -> None:
    # Entry kinds share one id namespace (each has a permalink); vocabularies have their own.
    shared: dict[str, Entry] = {}
    values: dict[tuple[str, str], Entry] = {}
    for kind in KINDS.values():
        own: dict[str, Entry] = {}
        unique = [spec for spec in kind.fields if spec.unique]
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
            for spec in unique:
                if spec.name not in entry.values:
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
    return f"`{_cut(entry.id)}` ({entry.path}:{entry.mark[0]})"


def _at(entry: Entry, name: str, message: str, mark: Mark | None = None) -> Problem:
    line, column = mark or entry.mark_of(name)
    return Problem(entry.path, line, column, _cut(entry.id), message)


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
                if not isinstance(value, list):
                    if value not in ids:
                        problems.append(_at(entry, spec.name, _unknown_ref(target, value, ids)))
                    continue
                if ids.issuperset(value):
                    continue  # the common case, without a loop in Python
                for position, ref in enumerate(value):
                    if ref not in ids:
                        mark = entry.item_marks[spec.name][position]
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
    close = _close_matches(ref, [i for i in ids if isinstance(i, str)], n=1)
    hint = (
        f"; did you mean `{close[0]}`?"
        if close
        else f"; add it to {catalog_path(target.name)} first"
    )
    return f"unknown {target.singular} `{_cut(ref)}`{hint}"


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
    try:
        slides = (root / SLIDES_DIR).resolve()
        target = (root / file).resolve()
        inside = target.is_relative_to(slides) and target != slides
        exists = inside and target.is_file()
    except (OSError, ValueError, RuntimeError) as error:  # NUL, name too long, link loop
        reason = getattr(error, "strerror", None) or str(error)
        if isinstance(error, RuntimeError):
            reason = "symbolic links in a loop"
        return f"slide file {_shown(file)} is not a usable path ({reason})"
    if not inside:
        return (
            f"slide file {_shown(file)} is not under {SLIDES_DIR}/; "
            f"move it there and name it `{SLIDES_DIR}/NAME`"
        )
    if not exists:
        return (
            f"slide file {_shown(file)} does not exist; add it under {SLIDES_DIR}/ or remove `file`"
        )
    return None


def entry_kinds() -> tuple[str, ...]:
    return ENTRY_KINDS
