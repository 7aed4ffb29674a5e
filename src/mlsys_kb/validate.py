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
from .loader import Collection, RawEntry, RawList, RawMap, Reported
from .model import Catalog, Entry, Mark, Problem
from .schema import (
    COMPARE_KIND_HELP,
    COMPARE_KINDS,
    COMPARE_TEXT_MAX,
    ENTRY_KINDS,
    KINDS,
    PROPERTY_PATTERN,
    YEAR_MIN,
    Field,
    Kind,
    Type,
)

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
PROPERTY = re.compile(PROPERTY_PATTERN)


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
    if "topics" not in broken:
        _check_comparisons(catalog, problems)
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
    if kind in (Type.COMPARE, Type.COMPARISON):
        return lambda raw, entry: _SLOW  # rare, and nested: always the full check
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
    if spec.type is Type.COMPARE:
        return _compared_values(spec, raw, mark, entry, report)
    if spec.type is Type.COMPARISON:
        return _comparison(spec, raw, mark, entry, report)
    if isinstance(raw, RawMap):
        report(mark, f"`{spec.name}` must be {_expected(spec)}, not a mapping")
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


# --- comparison tables (the declarations are explained in schema.py) -----------------------


def _what(raw: Any) -> str:
    if isinstance(raw, RawMap):
        return "a mapping"
    if isinstance(raw, RawList):
        return "a list"
    if isinstance(raw, Collection):
        return str(raw)
    return "a single value"


def _one_line(raw: Any) -> str | None:
    """The text of a scalar on one line, or None (null, empty, a list, a mapping...)."""
    if type(raw) is not tuple:
        return None
    text, plain = raw
    if (plain and text in NULLS) or not text.strip() or "\n" in text:
        return None
    return text


def _compared_values(spec: Field, raw: Any, mark: Mark, entry: Entry, report) -> Any:
    """A paper's `compare`: property name -> text, true/false or a list of texts. Whether
    the properties and values are declared is checked later, against the topics."""
    if not isinstance(raw, RawMap):
        report(
            mark,
            f"`{spec.name}` must be a mapping of property: value, such as "
            f"`{spec.name}: {spec.example}`, not {_what(raw)}",
        )
        return None
    values: dict[str, Any] = {}
    for key, (value, value_mark, key_mark) in raw.fields.items():
        if not PROPERTY.fullmatch(key):
            report(key_mark, f"a property name is lowercase a-z, 0-9 and _, not {_shown(key)}")
            continue
        entry.sub_marks[(spec.name, key)] = (key_mark, value_mark)
        empty = f"`{key}` is empty; leave out a property that is not verified: it shows as unknown"
        if isinstance(value, Reported):
            continue
        if isinstance(value, RawList):
            for what, nested_mark in value.nested:
                report(nested_mark, f"each item of `{key}` must be a single value, not {what}")
            items: list[str] = []
            for text, item_mark in zip(value.texts, value.marks, strict=True):
                if not text.strip():
                    report(item_mark, f"empty item in `{key}`; remove it")
                    continue
                entry.sub_marks[(spec.name, key, len(items))] = (item_mark, item_mark)
                items.append(text)
            if not value.texts and not value.nested:
                report(value_mark, empty)
            elif not value.nested and len(items) == len(value.texts):
                values[key] = items
        elif isinstance(value, (RawMap, Collection)):
            report(value_mark, f"`{key}` must be a value or a list of values, not {_what(value)}")
        else:
            text, plain = value
            if plain and text in ("true", "false"):
                values[key] = text == "true"
            elif (plain and text in NULLS) or not text.strip():
                report(value_mark, empty)
            elif "\n" in text:
                report(value_mark, f"`{key}` must be on one line")
            else:
                values[key] = text
    return values


_COMPARISON_KEYS = ("topics", "properties")
_PROPERTY_KEYS = ("label", "kind", "description", "values")
_PROPERTY_EXAMPLE = "`parallelism: {label: Parallelism, kind: set, values: {data: Data}}`"


def _unknown_key(key: str, known: tuple[str, ...], where: str) -> str:
    close = _close_matches(key, known, n=1)
    hint = f"; did you mean `{close[0]}`?" if close else ""
    return f"unknown key `{_cut(key)}` in {where}{hint} (keys: {', '.join(known)})"


def _comparison(spec: Field, raw: Any, mark: Mark, entry: Entry, report) -> Any:
    """A topic's `compare`: {"topics": [ids] (optional), "properties": {name: declaration}}."""
    if not isinstance(raw, RawMap):
        report(
            mark,
            f"`{spec.name}` must be a mapping with `properties` (and optionally `topics`), "
            f"such as `{spec.name}: {spec.example}`, not {_what(raw)}",
        )
        return None
    fields = raw.fields
    for key, (_value, _value_mark, key_mark) in fields.items():
        if key not in _COMPARISON_KEYS:
            report(key_mark, _unknown_key(key, _COMPARISON_KEYS, f"`{spec.name}`"))
    result: dict[str, Any] = {}
    if "topics" in fields:
        value, value_mark, _key_mark = fields["topics"]
        texts = value.texts if isinstance(value, RawList) and not value.nested else []
        if texts and all(map(ID_PATTERN.fullmatch, texts)) and len(set(texts)) == len(texts):
            result["topics"] = list(texts)
            for position, item_mark in enumerate(value.marks):
                entry.sub_marks[(spec.name, "topics", position)] = (item_mark, item_mark)
        else:
            report(
                value_mark,
                "`topics` of `compare` must be a list of distinct topic ids, such as "
                "`topics: [gpu-analyse, gpu-test]`",
            )
    # A broken declaration stays in as None: the topics it covers are still checked, and
    # its papers' values are not reported as undeclared.
    properties: dict[str, Any] = {}
    result["properties"] = properties
    if "properties" not in fields:
        report(raw.mark, f"`{spec.name}` needs `properties`, such as {_PROPERTY_EXAMPLE}")
        return result
    value, value_mark, _key_mark = fields["properties"]
    if not isinstance(value, RawMap) or not value.fields:
        report(
            value_mark,
            "`properties` must be a mapping of each property's name to its declaration, "
            f"such as {_PROPERTY_EXAMPLE}",
        )
        return result
    for name, (declaration, declaration_mark, name_mark) in value.fields.items():
        if not PROPERTY.fullmatch(name):
            report(name_mark, f"a property name is lowercase a-z, 0-9 and _, not {_shown(name)}")
            continue
        properties[name] = _property_declaration(name, declaration, declaration_mark, report)
        entry.sub_marks[(spec.name, name)] = (name_mark, declaration_mark)
    return result


def _property_declaration(name: str, raw: Any, mark: Mark, report) -> dict[str, Any] | None:
    if not isinstance(raw, RawMap):
        report(
            mark,
            f"property `{name}` must be a mapping of label, kind and values, "
            f"such as {_PROPERTY_EXAMPLE}, not {_what(raw)}",
        )
        return None
    fields = raw.fields
    good = True
    for key, (_value, _value_mark, key_mark) in fields.items():
        if key not in _PROPERTY_KEYS:
            report(key_mark, _unknown_key(key, _PROPERTY_KEYS, f"property `{name}`"))
            good = False
    result: dict[str, Any] = {}
    for key, required in (("label", True), ("kind", True), ("description", False)):
        if key not in fields:
            if required:
                report(raw.mark, f"property `{name}` needs `{key}`, such as {_PROPERTY_EXAMPLE}")
                good = False
            continue
        text = _one_line(fields[key][0])
        if text is None:
            report(fields[key][1], f"`{key}` of property `{name}` must be one line of text")
            good = False
        else:
            result[key] = text
    kind = result.get("kind")
    if kind is not None and kind not in COMPARE_KINDS:
        close = _close_matches(kind, COMPARE_KINDS, n=1)
        hint = f"; did you mean `{close[0]}`?" if close else ""
        kinds = "; ".join(f"{k}: {help}" for k, help in COMPARE_KIND_HELP.items())
        report(
            fields["kind"][1],
            f"`kind` of property `{name}` must be one of {', '.join(COMPARE_KINDS)}, "
            f"not {_shown(kind)}{hint} ({kinds})",
        )
        return None
    if kind in ("bool", "text"):
        if "values" in fields:
            report(fields["values"][2], f"a `{kind}` property has no `values`; remove them")
            good = False
    elif kind is not None:
        if "values" not in fields:
            report(
                raw.mark,
                f"a `{kind}` property needs `values`: each value's id and its label, "
                "such as `values: {data: Data, tensor: Tensor}`",
            )
            return None
        vocabulary = _vocabulary(name, *fields["values"][:2], report)
        if vocabulary is None:
            return None
        result["values"] = vocabulary
    return result if good else None


def _vocabulary(name: str, raw: Any, mark: Mark, report) -> dict[str, str] | None:
    if not isinstance(raw, RawMap) or not raw.fields:
        report(
            mark,
            f"`values` of property `{name}` must be a mapping of each value's id to its "
            "label, such as `values: {data: Data, tensor: Tensor}`",
        )
        return None
    vocabulary: dict[str, str] = {}
    good = True
    for value_id, (label, label_mark, id_mark) in raw.fields.items():
        if not ID_PATTERN.fullmatch(value_id):
            suggestion = re.sub(r"[^a-z0-9]+", "-", value_id.lower()).strip("-")
            hint = f"; for example `{_cut(suggestion)}`" if suggestion else ""
            report(
                id_mark,
                f"a value id must be lowercase a-z, 0-9 and single dashes, "
                f"not {_shown(value_id)}{hint}",
            )
            good = False
            continue
        text = _one_line(label)
        if text is None:
            report(label_mark, f"the label of value `{value_id}` must be one line of text")
            good = False
            continue
        vocabulary[value_id] = text
    return vocabulary if good else None


def _check_comparisons(catalog: Catalog, problems: list[Problem]) -> None:
    """Which topics each table covers, and every paper's values against the tables that
    cover its topics."""
    topics = catalog.by_id("topics")
    parents = {topic.id: topic.get("parent") for topic in catalog["topics"]}
    covered_by = comparison_coverage(catalog)
    for topic in catalog["topics"]:
        declaration = topic.get("compare")
        if declaration is None:
            continue
        for position, listed in enumerate(declaration.get("topics", [])):
            mark = topic.sub_marks[("compare", "topics", position)][0]
            if listed not in topics:
                message = _unknown_ref(KINDS["topics"], listed, set(topics))
                problems.append(_at(topic, "compare", message, mark))
            elif topic.id not in _lineage(listed, parents):
                message = (
                    f"`{listed}` is not `{topic.id}` or one of its subtopics; "
                    "a table compares the papers of its own topic and subtopics"
                )
                problems.append(_at(topic, "compare", message, mark))
            elif covered_by.get(listed, topic) is not topic:
                first = covered_by[listed]
                message = (
                    f"topic `{listed}` is already compared in the table of {_where(first)}; "
                    "a topic's papers have one comparison table"
                )
                problems.append(_at(topic, "compare", message, mark))
        if "topics" not in declaration and covered_by.get(topic.id) is not topic:
            message = (
                f"topic `{topic.id}` is already compared in the table of "
                f"{_where(covered_by[topic.id])}; a topic's papers have one comparison table"
            )
            problems.append(_at(topic, "compare", message))
    for paper in catalog["papers"]:
        values = paper.get("compare")
        if values is None:
            continue
        tables = _tables_of(paper, covered_by)
        if not tables:
            message = (
                "no comparison table covers this paper's topics; declare one under "
                "`compare` in data/topics.yaml, or remove `compare`"
            )
            problems.append(_at(paper, "compare", message))
            continue
        declared: dict[str, dict[str, Any] | None] = {}
        for table in tables:
            for name, declaration in table["compare"]["properties"].items():
                declared.setdefault(name, declaration)
        where = ", ".join(f"`{table.id}`" for table in tables)
        for name, value in values.items():
            name_mark, value_mark = paper.sub_marks[("compare", name)]
            if name not in declared:
                close = _close_matches(name, declared, n=1)
                hint = f"; did you mean `{close[0]}`?" if close else ""
                message = (
                    f"unknown comparison property `{_cut(name)}`{hint} (the table of {where} "
                    f"declares {', '.join(declared) or 'none'})"
                )
                problems.append(_at(paper, "compare", message, name_mark))
                continue
            declaration = declared[name]
            if declaration is None:
                continue  # its declaration is broken, and reported
            for message, mark in _cell_problems(paper, name, value, declaration, value_mark):
                problems.append(_at(paper, "compare", message, mark))


def _lineage(topic: str, parents: dict[str, Any]) -> list[str]:
    """The topic and its ancestors, nearest first (a cycle, reported elsewhere, stops it)."""
    line: list[str] = []
    current: Any = topic
    while current is not None and current not in line:
        line.append(current)
        current = parents.get(current)
    return line


def comparison_coverage(catalog: Catalog) -> dict[str, Entry]:
    """Topic id -> the topic whose comparison table covers its papers. A table covers the
    topics it lists (by default its own) and their subtopics; the first table wins."""
    children: dict[Any, list[str]] = {}
    for topic in catalog["topics"]:
        children.setdefault(topic.get("parent"), []).append(topic.id)
    covered: dict[str, Entry] = {}
    for topic in catalog["topics"]:
        declaration = topic.get("compare")
        if declaration is None:
            continue
        stack = [
            listed
            for listed in declaration.get("topics", [topic.id])
            if listed == topic.id or _is_below(listed, topic.id, catalog)
        ]
        seen: set[str] = set()
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            covered.setdefault(current, topic)
            stack.extend(children.get(current, []))
    return covered


def _is_below(topic: str, ancestor: str, catalog: Catalog) -> bool:
    parents = {entry.id: entry.get("parent") for entry in catalog["topics"]}
    return topic in parents and ancestor in _lineage(topic, parents)[1:]


def _tables_of(paper: Entry, covered_by: dict[str, Entry]) -> list[Entry]:
    tables: list[Entry] = []
    for topic in paper.get("topics", []):
        table = covered_by.get(topic)
        if table is not None and table not in tables:
            tables.append(table)
    return tables


def _cell_problems(
    paper: Entry, name: str, value: Any, declaration: dict[str, Any], mark: Mark
) -> list[tuple[str, Mark]]:
    kind = declaration["kind"]
    vocabulary: dict[str, str] = declaration.get("values", {})
    shown = "a list" if isinstance(value, list) else _shown(str(value).lower())
    if value == "unknown" or value == ["unknown"]:
        return [(f"leave `{name}` out when it is not verified: it shows as unknown", mark)]
    if kind == "bool":
        if isinstance(value, bool):
            return []
        return [(f"`{name}` is yes or no: write true or false, not {shown}", mark)]
    if kind == "text":
        if not isinstance(value, str):
            return [(f"`{name}` is a short text, not {shown}", mark)]
        if len(value) > COMPARE_TEXT_MAX:
            return [
                (f"`{name}` is {len(value)} characters long; a cell holds {COMPARE_TEXT_MAX}", mark)
            ]
        return []
    known = ", ".join(vocabulary)
    if kind == "one":
        if isinstance(value, list):
            hint = f"; write `{name}: {value[0]}`" if len(value) == 1 else ""
            return [(f"`{name}` takes one value of {known}, not a list{hint}", mark)]
        items = [(value, mark)]
    else:
        if not isinstance(value, list):
            return [(f"`{name}` is a set: write a list, such as `{name}: [{value}]`", mark)]
        items = [
            (item, paper.sub_marks[("compare", name, position)][0])
            for position, item in enumerate(value)
        ]
    found: list[tuple[str, Mark]] = []
    seen: set[str] = set()
    for item, item_mark in items:
        if isinstance(item, bool) or item not in vocabulary:
            text = str(item).lower() if isinstance(item, bool) else item
            close = _close_matches(text, vocabulary, n=1)
            hint = f"; did you mean `{close[0]}`?" if close else ""
            found.append(
                (
                    f"`{_cut(text)}` is not a value of `{name}`{hint} (values: {known}; "
                    "a new one is declared in data/topics.yaml first)",
                    item_mark,
                )
            )
        elif item in seen:
            found.append((f"`{item}` is listed twice in `{name}`", item_mark))
        seen.add(item)
    return found


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
        Type.COMPARE: "a mapping of property: value",
        Type.COMPARISON: "a mapping with `properties`",
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
