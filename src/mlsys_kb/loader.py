"""Read a catalog file into raw entries that remember where each value stands.

PyYAML's C parser composes the node graph (keeping line marks) several times faster
than its pure-Python one; values are taken from the nodes by hand so that every field
keeps its position and no YAML alias is ever expanded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .model import Mark, Problem

try:
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - libyaml missing: slower, same results
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_DEPTH = 64


class Collection(str):
    """A nested list or mapping where the catalogs expect none, kept only to be reported."""


# A scalar is (text, plain): plain means unquoted, which is how 2020 differs from "2020".
Scalar = tuple[str, bool]
# A list item is (text, plain, mark), or a Collection where a nested list or mapping stood.
Item = tuple[str, bool, Mark] | Collection
Raw = Scalar | list[Item] | Collection


@dataclass(slots=True)
class RawField:
    value: Raw
    mark: Mark
    key_mark: Mark


@dataclass(slots=True)
class RawEntry:
    path: str
    mark: Mark
    index: int
    fields: dict[str, RawField] = field(default_factory=dict)


def _problem(path: str, mark: Mark, message: str) -> Problem:
    return Problem(path, mark[0], mark[1], "-", message)


def _position(text: str, offset: int) -> Mark:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def read_text(file: Path, path: str) -> tuple[str | None, list[Problem]]:
    """The file's text, or the problems that keep it from being read."""
    try:
        size = file.stat().st_size
        if size > MAX_FILE_BYTES:
            return None, [
                _problem(
                    path,
                    (1, 1),
                    f"file is {size / 1048576:.0f} MiB, larger than the limit of "
                    f"{MAX_FILE_BYTES // 1048576} MiB; split it or remove what does not belong",
                )
            ]
        data = file.read_bytes()
    except OSError as error:
        return None, [_problem(path, (1, 1), f"cannot read file: {error.strerror}")]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8", errors="replace")
        return None, [
            _problem(
                path,
                _position(prefix, len(prefix)),
                f"not UTF-8 text (byte 0x{data[error.start]:02x}); save the file as UTF-8",
            )
        ]


def parse(text: str, path: str) -> tuple[list[RawEntry], list[Problem]]:
    """Raw entries of one catalog file, or the problems that keep it from being parsed.

    A syntax error yields no entries at all: half a file would only produce
    misleading "unknown reference" problems elsewhere.
    """
    deep = _check_depth(text, path)
    if deep:
        return [], [deep]
    builder = _Builder(path)
    try:
        builder.build(iter(yaml.parse(text, Loader=_Loader)))
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        reason = error.problem or "invalid YAML"
        if error.context:
            reason = f"{error.context}, {reason}"
        return [], [_problem(path, where, f"YAML syntax error: {reason}")]
    except yaml.YAMLError as error:
        return [], [_problem(path, (1, 1), f"YAML error: {error}")]
    except (RecursionError, MemoryError):
        return [], [_problem(path, (1, 1), "YAML is nested too deeply or too large to read")]
    return builder.entries, builder.problems


_FLOW = re.compile(r"[\[\]{}]")
_DEEP_BLOCK = re.compile(rf"^[ \t?:-]{{{2 * MAX_DEPTH},}}", re.MULTILINE)


def _check_depth(text: str, path: str) -> Problem | None:
    """Refuse deep nesting before the parser sees it: its time grows with the square of depth."""
    block = _DEEP_BLOCK.search(text)
    if block:
        return _problem(
            path,
            _position(text, block.start()),
            f"nesting deeper than {MAX_DEPTH} levels; catalog entries are flat mappings of fields",
        )
    depth = 0
    for match in _FLOW.finditer(text):
        if match.group() in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return _problem(
                    path,
                    _position(text, match.start()),
                    f"nesting deeper than {MAX_DEPTH} levels; catalog entries are flat "
                    "mappings of fields",
                )
        elif depth:
            depth -= 1
    return None


def _mark(event: yaml.Event) -> Mark:
    return (event.start_mark.line + 1, event.start_mark.column + 1)


_STARTS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_ENDS = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


class _Builder:
    """Builds raw entries straight from parser events.

    Working on events rather than composed nodes is about three times faster with
    libyaml, never recurses, and sees every alias as what it is.
    """

    def __init__(self, path: str):
        self.path = path
        self.entries: list[RawEntry] = []
        self.problems: list[Problem] = []

    def report(self, event: yaml.Event, message: str) -> None:
        self.problems.append(_problem(self.path, _mark(event), message))

    def build(self, events: Iterator[yaml.Event]) -> None:
        next(events)  # StreamStart
        event = next(events)
        if isinstance(event, yaml.StreamEndEvent):
            self.problems.append(
                _problem(self.path, (1, 1), "file is empty; it should be a list of entries")
            )
            return
        root = next(events)  # first event after DocumentStart
        if not isinstance(root, yaml.SequenceStartEvent):
            self.report(root, "the file must be a list of entries, each starting with `- id: ...`")
            self.skip(root, events)
        else:
            for index, event in enumerate(events):
                if isinstance(event, yaml.SequenceEndEvent):
                    break
                self.entry(event, events, index)
        next(events)  # DocumentEnd
        event = next(events)
        if isinstance(event, yaml.DocumentStartEvent):
            self.report(event, "only one YAML document per catalog file; remove the `---`")

    def skip(self, event: yaml.Event, events: Iterator[yaml.Event]) -> None:
        """Pass over the rest of a node whose first event was ``event``."""
        if isinstance(event, yaml.AliasEvent):
            self.alias(event)
        if not isinstance(event, _STARTS):
            return
        depth = 1
        for inner in events:
            if isinstance(inner, _STARTS):
                depth += 1
            elif isinstance(inner, _ENDS):
                depth -= 1
                if not depth:
                    return
            elif isinstance(inner, yaml.AliasEvent):
                self.alias(inner)

    def alias(self, event: yaml.Event) -> None:
        # Refusing aliases keeps "billion laughs" out for good; no catalog needs one.
        self.report(
            event,
            "YAML aliases (*name) are not allowed in catalogs; write the value out",
        )

    def entry(self, start: yaml.Event, events: Iterator[yaml.Event], index: int) -> None:
        # The hot loop of validation: type() tests and tuples instead of isinstance and
        # objects keep 10,000 entries well under a second.
        if type(start) is not yaml.MappingStartEvent:
            self.report(
                start,
                f"entry {index + 1} must be a mapping of fields (`id: ...`), "
                f"not {_describe(start)}",
            )
            self.skip(start, events)
            return
        entry = RawEntry(self.path, _mark(start), index)
        fields = entry.fields
        for key in events:
            kind = type(key)
            if kind is yaml.MappingEndEvent:
                break
            value = next(events)
            if kind is not yaml.ScalarEvent:
                self.report(key, "a field name must be plain text")
                self.skip(key, events)
                self.skip(value, events)
                continue
            name = key.value
            if name in fields:
                self.report(key, f"field `{name}` appears twice in this entry; keep one")
                self.skip(value, events)
                continue
            vmark = value.start_mark
            kmark = key.start_mark
            fields[name] = RawField(
                self.value(value, events),
                (vmark.line + 1, vmark.column + 1),
                (kmark.line + 1, kmark.column + 1),
            )
        self.entries.append(entry)

    def value(self, event: yaml.Event, events: Iterator[yaml.Event]) -> Raw:
        kind = type(event)
        if kind is yaml.ScalarEvent:
            return (event.value, not event.style)
        if kind is yaml.SequenceStartEvent:
            items: list[Item] = []
            for item in events:
                kind = type(item)
                if kind is yaml.ScalarEvent:
                    mark = item.start_mark
                    items.append((item.value, not item.style, (mark.line + 1, mark.column + 1)))
                elif kind is yaml.SequenceEndEvent:
                    break
                else:
                    items.append(Collection(_describe(item)))
                    self.skip(item, events)
            return items
        self.skip(event, events)
        return Collection(_describe(event))


def _describe(event: yaml.Event) -> str:
    if isinstance(event, yaml.SequenceStartEvent):
        return "a list"
    if isinstance(event, yaml.MappingStartEvent):
        return "a mapping"
    if isinstance(event, yaml.AliasEvent):
        return "an alias"
    return "a single value"
