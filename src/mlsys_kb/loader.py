"""Read a catalog file into raw entries that remember where each value stands.

A catalog is a list of flat entries, one starting at each ``- `` in the first column. The
file is cut there, and each entry is read by the first of:

1. a line reader for the canonical layout (``writer.py``): one ``key: value`` per line with
   plain or simply quoted scalars and one-line flow lists. It accepts only lines whose
   meaning in YAML is beyond doubt, and is two to three times faster than libyaml's
   events, which cost more to make in Python than the parsing does;
2. libyaml's event parser (PyYAML's C parser) on that entry alone, line numbers offset.

When any entry fails to parse on its own, or the file is not a plain list of entries, the
whole file goes through libyaml in one piece, so that an error is exactly the one the
parser reports for the file. Both ways give the same entries and problems (tested).

Events rather than composed nodes: no YAML alias is ever expanded, nothing recurses, and
nesting is refused as soon as it gets deeper than any catalog needs, before libyaml's
time (which grows with the square of flow depth) can run away.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .model import Mark, Problem

if TYPE_CHECKING:  # yaml is imported only when an entry needs the full parser
    import yaml

MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_DEPTH = 64
# Mappings inside a field are read up to this depth (a topic's comparison declaration:
# compare -> properties -> property -> values); deeper ones are kept only to be reported.
MAX_MAP_DEPTH = 4


class Collection(str):
    """A nested list or mapping where the catalogs expect none, kept only to be reported."""


class Reported(Collection):
    """A value the loader has already reported (a YAML alias): present, but not to be
    reported again."""


ALIAS = Reported("an alias")


# A scalar is (text, plain): plain means unquoted, which is how 2020 differs from "2020".
Scalar = tuple[str, bool]


class RawList(NamedTuple):
    """A list of values, as parallel lists: fast to check item by item or all at once."""

    texts: list[str]
    plain: list[bool]
    marks: Sequence[Mark]
    nested: list[tuple[str, Mark]]  # nested lists or mappings among the items: what, where


class ItemMarks(Sequence[Mark]):
    """Positions of the items of a list written `[a, b, c]` on one line, worked out only
    when one is needed: most lists are never reported, and 30,000 of them add up."""

    __slots__ = ("_column", "_line", "_marks", "_texts")

    def __init__(self, texts: list[str], line: int, column: int):
        self._texts = texts
        self._line = line
        self._column = column
        self._marks: list[Mark] | None = None

    def _all(self) -> list[Mark]:
        if self._marks is None:
            marks, column = [], self._column
            for text in self._texts:
                marks.append((self._line, column))
                column += len(text) + 2  # the item and ", "
            self._marks = marks
        return self._marks

    def __getitem__(self, index):  # type: ignore[override]
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._texts)

    def __iter__(self):
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)


class RawMap(NamedTuple):
    """A mapping nested in a field (a paper's comparison values, a topic's comparison
    declaration): its fields as an entry's, each (value, value mark, key mark)."""

    fields: dict[str, RawField]
    mark: Mark


Raw = Scalar | RawList | RawMap | Collection


# A field as read: (value, mark of the value, mark of the key). A plain tuple, not a class:
# there are a dozen per entry, and tuples are the cheapest thing Python makes.
RawField = tuple[Any, Mark, Mark]


@dataclass(slots=True)
class RawEntry:
    path: str
    mark: Mark
    index: int
    fields: dict[str, RawField] = field(default_factory=dict)


def _problem(path: str, mark: Mark, message: str, entry: str = "-") -> Problem:
    return Problem(path, mark[0], mark[1], entry, message)


def _label(fields: dict[str, RawField], index: int) -> str:
    """The entry as problems name it: its id when read so far, else its number."""
    raw_id = fields.get("id")
    if raw_id is not None and type(raw_id[0]) is tuple:
        text = raw_id[0][0]
        return text if len(text) <= 60 else text[:57] + "..."
    return f"#{index + 1}"


def _position(text: str, offset: int) -> Mark:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def read_text(file: Path, path: str) -> tuple[str | None, list[Problem]]:
    """The file's text, or the problems that keep it from being read."""

    def refuse(message: str) -> tuple[None, list[Problem]]:
        return None, [_problem(path, (1, 1), message)]

    def too_large(size: float) -> tuple[None, list[Problem]]:
        return refuse(
            f"file is {size / 1048576:.1f} MiB, larger than the limit of "
            f"{MAX_FILE_BYTES // 1048576} MiB; split it or remove what does not belong"
        )

    try:
        info = file.stat()
        # A pipe or a device (a link to /dev/zero, say) would never end, or never start.
        if not stat.S_ISREG(info.st_mode):
            return refuse("not a regular file; a catalog must be a plain text file")
        if info.st_size > MAX_FILE_BYTES:
            return too_large(info.st_size)
        with file.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)  # the file may grow while it is read
        if len(data) > MAX_FILE_BYTES:
            return too_large(len(data))
    except OSError as error:
        return refuse(f"cannot read file: {error.strerror or error}")
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


def parse(text: str, path: str, *, fast: bool = True) -> tuple[list[RawEntry], list[Problem]]:
    """Raw entries of one catalog file, or the problems that keep it from being parsed.

    A syntax error yields no entries at all: half a file would only produce
    misleading "unknown reference" problems elsewhere. ``fast=False`` reads the whole
    file with libyaml, the reference the fast way is tested against.
    """
    if fast:
        part = split(text)
        if part is not None:
            result = parse_part(text, path, part)
            if isinstance(result, Problem):
                return [], [result]
            if result is not None:
                return result
    try:
        builder = _run_yaml(text, path, 1, 0)
    except _Unreadable as error:
        return [], [error.problem]
    return builder.entries, builder.problems


# --- the whole file, or one entry, through libyaml ---------------------------------------


class _Unreadable(Exception):
    """The parser stopped: a syntax error, or nesting too deep to follow."""

    def __init__(self, problem: Problem, syntax: bool = True):
        self.problem = problem
        self.syntax = syntax


class _TooDeep(Exception):
    def __init__(self, mark: Mark):
        self.mark = mark


def _run_yaml(text: str, path: str, line_base: int, first_index: int) -> _Builder:
    """The builder after reading ``text`` with libyaml's events, or ``_Unreadable``.

    Lines are counted from ``line_base`` and entries from ``first_index``, so that one
    entry cut from a file reads as it does in the file.
    """
    import yaml

    try:
        from yaml import CSafeLoader as loader_class
    except ImportError:  # pragma: no cover - libyaml missing: slower, same results
        from yaml import SafeLoader as loader_class  # type: ignore[assignment]

    def stop(mark: Mark, message: str, syntax: bool = True) -> _Unreadable:
        return _Unreadable(_problem(path, mark, message), syntax)

    def at(mark: Any) -> Mark:
        return (mark.line + line_base, mark.column + 1)

    builder = _Builder(path, line_base, first_index)
    try:
        builder.build(iter(yaml.parse(text, Loader=loader_class)))
    except yaml.MarkedYAMLError as error:
        # The problem's place is where the parser stopped; the context, when there is one,
        # is where the construct it could not finish began (an unclosed quote, say).
        mark = error.problem_mark or error.context_mark
        reason = error.problem or "invalid YAML"
        if error.context:
            start = error.context_mark
            place = ""
            if start and (not mark or at(start) != at(mark)):
                place = f" at line {at(start)[0]}, column {at(start)[1]}"
            reason = f"{reason} ({error.context}{place})"
        raise stop(at(mark) if mark else (line_base, 1), f"YAML syntax error: {reason}") from None
    except yaml.reader.ReaderError as error:
        offset = error.position
        if loader_class.__name__ == "CSafeLoader":  # libyaml counts bytes of UTF-8
            offset = len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))
        line, column = _position(text, offset)
        message = f"YAML syntax error: character U+{error.character:04X} is not allowed here"
        raise stop((line + line_base - 1, column), f"{message} ({error.reason})") from None
    except yaml.YAMLError as error:
        reason = str(error).replace("\n", " ")
        raise stop((line_base, 1), f"YAML syntax error: {reason}") from None
    except _TooDeep as error:
        message = (
            f"nesting deeper than {MAX_DEPTH} levels; catalog entries are flat mappings of fields"
        )
        raise stop(error.mark, message, syntax=False) from None
    except (RecursionError, MemoryError):
        raise stop((line_base, 1), "YAML is too large or complex to read") from None
    return builder


_STARTS = ("SequenceStartEvent", "MappingStartEvent")
_ENDS = ("SequenceEndEvent", "MappingEndEvent")


def _kind(event: Any) -> str:
    return type(event).__name__


class _Builder:
    """Builds raw entries straight from parser events, never recursing.

    Event kinds are compared by class name so that yaml need not be imported at module
    level (it is only needed when an entry takes the full parser).
    """

    def __init__(self, path: str, line_base: int = 1, first_index: int = 0):
        self.path = path
        self.base = line_base
        self.first_index = first_index
        self.items = 0  # list items seen, entries or not
        self.label = "-"  # the entry being read, as problems name it
        self.entries: list[RawEntry] = []
        self.problems: list[Problem] = []

    def mark(self, event: yaml.Event) -> Mark:
        return (event.start_mark.line + self.base, event.start_mark.column + 1)

    def report(self, event: yaml.Event, message: str) -> None:
        self.problems.append(_problem(self.path, self.mark(event), message, self.label))

    def build(self, events: Iterator[yaml.Event]) -> None:
        next(events)  # StreamStart
        event = next(events)
        if _kind(event) == "StreamEndEvent":
            self.problems.append(
                _problem(self.path, (1, 1), "file is empty; it should be a list of entries")
            )
            return
        root = next(events)  # first event after DocumentStart
        if _kind(root) != "SequenceStartEvent":
            self.report(
                root,
                f"the file must be a list of entries, each starting with `- id: ...`, "
                f"not {_describe(root)}",
            )
            self.skip(root, events, 1, report_aliases=False)
        else:
            for event in events:
                if _kind(event) == "SequenceEndEvent":
                    break
                self.entry(event, events, self.first_index + self.items)
                self.items += 1
        next(events)  # DocumentEnd
        event = next(events)
        if _kind(event) == "DocumentStartEvent":
            self.report(event, "only one YAML document per catalog file; remove the `---`")

    def skip(
        self, event: yaml.Event, events: Iterator[yaml.Event], depth: int, report_aliases=True
    ) -> None:
        """Pass over the rest of a node whose first event was ``event``, at ``depth``."""
        kind = _kind(event)
        if kind == "AliasEvent" and report_aliases:
            self.alias(event)
        if kind not in _STARTS:
            return
        level = depth
        if level > MAX_DEPTH:
            raise _TooDeep(self.mark(event))
        for inner in events:
            kind = _kind(inner)
            if kind in _STARTS:
                level += 1
                if level > MAX_DEPTH:
                    raise _TooDeep(self.mark(inner))
            elif kind in _ENDS:
                level -= 1
                if level < depth:
                    return
            elif kind == "AliasEvent" and report_aliases:
                self.alias(inner)

    def alias(self, event: yaml.Event) -> None:
        # Refusing aliases keeps "billion laughs" out for good; no catalog needs one.
        self.report(event, "YAML aliases (*name) are not allowed in catalogs; write the value out")

    def entry(self, start: yaml.Event, events: Iterator[yaml.Event], index: int) -> None:
        self.label = f"#{index + 1}"
        try:
            self.read_entry(start, events, index)
        finally:
            self.label = "-"

    def read_entry(self, start: yaml.Event, events: Iterator[yaml.Event], index: int) -> None:
        kind = _kind(start)
        if kind == "AliasEvent":
            self.report(
                start,
                "this entry is a YAML alias (*name); aliases are not allowed in catalogs, "
                "write the entry out",
            )
            return
        if kind != "MappingStartEvent":
            self.report(
                start,
                f"an entry must be a mapping of fields (`- id: ...`), not {_describe(start)}",
            )
            self.skip(start, events, 2)
            return
        entry = RawEntry(self.path, self.mark(start), index)
        fields = entry.fields
        for key in events:
            kind = _kind(key)
            if kind == "MappingEndEvent":
                break
            if kind == "AliasEvent":
                self.alias(key)
                self.skip(next(events), events, 3)
                continue
            if kind != "ScalarEvent":
                self.report(key, "a field name must be plain text, not " + _describe(key))
                self.skip(key, events, 3)
                self.skip(next(events), events, 3)
                continue
            value = next(events)
            name = key.value
            if name in fields:
                self.report(key, f"field `{name}` appears twice in this entry; keep one")
                self.skip(value, events, 3)
                continue
            fields[name] = (self.value(value, events), self.mark(value), self.mark(key))
            if name == "id":
                self.label = _label(fields, index)
        self.entries.append(entry)

    def value(self, event: yaml.Event, events: Iterator[yaml.Event], depth: int = 1) -> Raw:
        kind = _kind(event)
        if kind == "ScalarEvent":
            return (event.value, not event.style)
        if kind == "MappingStartEvent" and depth <= MAX_MAP_DEPTH:
            return self.mapping(event, events, depth)
        if kind == "SequenceStartEvent":
            items = RawList([], [], [], [])
            for item in events:
                kind = _kind(item)
                if kind == "ScalarEvent":
                    items.texts.append(item.value)
                    items.plain.append(not item.style)
                    items.marks.append(self.mark(item))
                elif kind == "SequenceEndEvent":
                    break
                elif kind == "AliasEvent":
                    self.alias(item)
                else:
                    items.nested.append((_describe(item), self.mark(item)))
                    self.skip(item, events, 4)
            return items
        if kind == "AliasEvent":
            self.alias(event)
            return ALIAS
        self.skip(event, events, 2 + depth)
        return Collection(_describe(event))

    def mapping(self, start: yaml.Event, events: Iterator[yaml.Event], depth: int) -> RawMap:
        """A mapping inside a field, read as an entry's fields are, ``depth`` levels in."""
        fields: dict[str, RawField] = {}
        for key in events:
            kind = _kind(key)
            if kind == "MappingEndEvent":
                break
            if kind == "AliasEvent":
                self.alias(key)
                self.skip(next(events), events, 3 + depth)
                continue
            if kind != "ScalarEvent":
                self.report(key, "a key must be plain text, not " + _describe(key))
                self.skip(key, events, 3 + depth)
                self.skip(next(events), events, 3 + depth)
                continue
            value = next(events)
            if key.value in fields:
                self.report(key, f"key `{key.value}` appears twice in this mapping; keep one")
                self.skip(value, events, 3 + depth)
                continue
            fields[key.value] = (
                self.value(value, events, depth + 1),
                self.mark(value),
                self.mark(key),
            )
        return RawMap(fields, self.mark(start))


def _describe(event: yaml.Event) -> str:
    return {
        "SequenceStartEvent": "a list",
        "MappingStartEvent": "a mapping",
        "AliasEvent": "an alias",
    }.get(_kind(event), "a single value")


# --- the fast way: entry by entry -----------------------------------------------------------

# Where entries start: a `-` in the first column followed by a blank, as YAML sees it.
# Searched as "\n-" (plus the very start), which the regex engine finds as fast as
# str.find; a pattern anchored with ^ would be tried at every character.
_ENTRY_START = re.compile(r"\n-(?=[ \t\n]|$)")
# What the line reader never accepts: tabs, carriage returns and other line breaks YAML
# counts (they would shift line numbers), characters libyaml refuses, a byte order mark.
_ODD_CHARS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
# Lines that only a full parser can place: document markers and directives.
_DOCUMENT_LINE = re.compile(r"\n(?:---|\.\.\.|%)")
_BLANK_OR_COMMENT = re.compile(r"(?: *(?:#[^\n]*)?\n)*(?: *(?:#[^\n]*)?)?")
# One line of an entry in the canonical layout: `- key: value` first, `  key: value` after,
# blank and comment lines between. A value is a plain scalar (checked further in
# _read_entry), a quoted scalar on one line with no escapes but \" and \\, or a one-line
# flow list. Anchored at line starts, the pattern matches once per line exactly when every
# line is one of these; any other line leaves the entry to libyaml.
_LINE = re.compile(
    r"^(?:(?:- |  )([A-Za-z_][A-Za-z0-9_]{0,63}): (?:"
    r"([^-?:,\[\]{}#&*!|>'\"%@` \n][^\n]*)"
    r'|("[^"\\\n]*(?:\\["\\][^"\\\n]*)*")'
    r"|('[^'\n]*(?:''[^'\n]*)*')"
    r"|(\[[^\[\]\n]*\])"
    r")| *(?:#[^\n]*)?)$",
    re.MULTILINE,
)
# First characters that make a value something other than a plain scalar.
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@` ")
# What keeps a flow list from being read by splitting at ", ": quotes, flow indicators,
# `:`, `#` or `?` anywhere; an indicator or blank first in an item (with the checks in
# _read_list: a comma without one blank after it or with one before it, a blank at the end).
_FLOW_ODD = re.compile(r"""[{}:#?"']""")
_FLOW_ODD_START = re.compile(r", [-!&*|>%@` ,]")
_ODD_START = frozenset("-!&*|>%@` ,")
# Items of a flow list that is not simple: plain ones with no indicator first and no `:`,
# `#` or `?` inside, or quoted ones as above.
_FLOW_ITEM = re.compile(
    r"( *)(?:([^-?:,\[\]{}#&*!|>'\"%@` ][^,\[\]{}:#?]*?)"
    r'|"((?:[^"\\]|\\["\\])*)"'
    r"|'((?:[^']|'')*)') *(?:,|$)"
)
_UNESCAPE = re.compile(r'\\(["\\])')


@dataclass(frozen=True)
class Part:
    """A run of whole entries of a file: where each starts (and where the run ends), and
    the line and list index of its first entry."""

    starts: list[int]
    line: int
    index: int


def split(text: str) -> Part | None:
    """The file's entries, to be read one by one by parse_part; None when the file must be
    read in one piece (odd line breaks, several documents, something before the list)."""
    if "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        return None  # line breaks that YAML counts and str.split("\n") does not
    starts = [match.start() + 1 for match in _ENTRY_START.finditer(text)]
    if text[:1] == "-" and text[1:2] in ("", " ", "\t", "\n"):
        starts.insert(0, 0)
    if not starts or _DOCUMENT_LINE.search(text) or text.startswith(("---", "...", "%")):
        return None
    header = text[: starts[0]]
    if _BLANK_OR_COMMENT.fullmatch(header) is None or _ODD_CHARS.search(header):
        return None
    starts.append(len(text))
    return Part(starts, header.count("\n") + 1, 0)


def parse_part(
    text: str, path: str, part: Part
) -> tuple[list[RawEntry], list[Problem]] | Problem | None:
    """The entries of one part and their problems. A Problem alone when nesting too deep
    stops the parser there; None when an entry does not parse on its own, so that the file
    must be read in one piece to report the error as the parser sees the whole file."""
    # isprintable() is False for every odd character (and for a few harmless ones, such as
    # a no-break space, which only send their entry to the full parser); it is several times
    # faster than the regular expression, which decides entry by entry where it is False.
    odd = not text[part.starts[0] : part.starts[-1]].replace("\n", "").isprintable()
    entries: list[RawEntry] = []
    problems: list[Problem] = []
    line = part.line
    index = part.index
    for begin, end in pairwise(part.starts):
        chunk = text[begin:end]
        entry = None if odd and _ODD_CHARS.search(chunk) else _read_entry(chunk, path, line, index)
        if entry is not None:
            entries.append(entry[0])
            problems.extend(entry[1])
            index += 1
        else:
            try:
                builder = _run_yaml(chunk, path, line, index)
            except _Unreadable as error:
                return None if error.syntax else error.problem
            entries.extend(builder.entries)
            problems.extend(builder.problems)
            index += builder.items
        line += chunk.count("\n")
    return entries, problems


def _read_entry(
    chunk: str, path: str, line: int, index: int
) -> tuple[RawEntry, list[Problem]] | None:
    """One entry in the canonical layout and its problems, or None for the full parser."""
    rows = _LINE.findall(chunk)
    if len(rows) != chunk.count("\n") + 1:
        return None  # a line the reader does not know
    fields: dict[str, RawField] = {}
    problems: list[Problem] = []
    number = line - 1
    for name, plain, double, single, flow in rows:
        number += 1
        if not name:
            continue  # blank or comment line
        column = len(name) + 5
        if plain:
            # `: ` and ` #` end a plain scalar; trailing blanks and `:` are not its text.
            if ": " in plain or " #" in plain or plain[-1] in " :":
                return None
            value: Raw = (plain, True)
        elif double:
            text = double[1:-1]
            value = (_UNESCAPE.sub(r"\1", text) if "\\" in text else text, False)
        elif single:
            value = (single[1:-1].replace("''", "'"), False)
        else:
            items = _read_list(flow[1:-1], number, column + 1)
            if items is None:
                return None
            value = items
        if name in fields:
            message = f"field `{name}` appears twice in this entry; keep one"
            problems.append(_problem(path, (number, 3), message, _label(fields, index)))
            continue
        fields[name] = (value, (number, column), (number, 3))
    if not fields:
        return None
    return RawEntry(path, (line, 3), index, fields), problems


def _read_list(inner: str, line: int, column: int) -> RawList | None:
    """Items of a one-line flow list whose text inside the brackets is ``inner``."""
    if not inner:
        return RawList([], [], [], [])
    if (
        inner[0] not in _ODD_START
        and inner[-1] != " "
        and inner.count(",") == inner.count(", ")
        and " ," not in inner
        and _FLOW_ODD.search(inner) is None
        and _FLOW_ODD_START.search(inner) is None
    ):
        texts = inner.split(", ")
        return RawList._make((texts, [True] * len(texts), ItemMarks(texts, line, column), []))
    items = RawList([], [], [], [])
    if not inner.strip(" "):
        return items
    position, end = 0, len(inner)
    while position < end:
        match = _FLOW_ITEM.match(inner, position)
        if match is None:
            return None
        spaces, plain, double, single = match.groups()
        if plain is not None:
            items.texts.append(plain)
        elif double is not None:
            items.texts.append(_UNESCAPE.sub(r"\1", double))
        else:
            items.texts.append(single.replace("''", "'"))
        items.plain.append(plain is not None)
        items.marks.append((line, column + position + len(spaces)))
        position = match.end()
        if inner[position - 1] == "," and position >= end:
            return None  # a trailing comma: leave it to the parser
    return items
