"""``mlsys-kb fmt``: catalogs in canonical order and layout, with every comment and value kept.

Canonical means what ``writer.py`` writes: entries of papers, decks, issues and resources
sorted by id (topics, venues and tags keep the order their authors chose), fields in
schema order with unknown fields after them, lists in flow style, strings plain unless
YAML needs quotes, one blank line between entries.

Comments travel with what they describe:

- comment lines right above an entry (or above its first field) belong to the entry;
- comment lines above a field, and a comment at the end of a field's line, belong to it;
- comment lines after an entry's last field, indented, belong to that entry;
- comments above the first entry and separated from it by a blank line head the file,
  comments after the last entry end it.

A field whose value holds comments, tags, anchors or nested mappings is copied as it
stands, only re-indented. Before anything is written, the result is parsed again and
compared with the original: the same entries with the same values, the same comments.
If not, or if the file does not parse, the file is left alone and the reason reported.

Why not ruamel.yaml's round trip: it keeps comments only while the entries stay where
they are. It stores a comment on the token before it (a comment above an entry belongs to
the previous entry's last value, the file's header to the list), so sorting its list moves
comments onto the wrong entries or drops them: tried with ruamel.yaml 0.19.1 on
tests/fixtures/fmt/papers.yaml, sorting by id left the file's last comment above a middle
entry, the header's entry comment above another entry, and lost an indented comment. The
canonical layout (field order, flow lists, quoting) would be our code on top of it anyway,
and its round trip of data/papers.yaml takes 0.10 s against 0.03 s here. tests/test_fmt.py
checks this formatter against ruamel.yaml: its scanner must find the same comments, and its
parser the same values, in the output as in the input.
"""

from __future__ import annotations

import argparse
import bisect
import functools
import itertools
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import loader, writer
from .model import Problem
from .schema import KINDS

SORTED_KINDS = frozenset({"papers", "decks", "issues", "resources"})
_STR = "tag:yaml.org,2002:str"
# Characters YAML 1.1 reads as line breaks besides \n: refused, they would move comments.
_ODD_BREAKS = re.compile("[\r\x85\u2028\u2029]")
_MAX_DEPTH = 100


@functools.cache
def _yaml() -> tuple[Any, Any, Any]:
    """PyYAML, its fastest safe loader and a resolver, imported when first needed."""
    import yaml

    try:
        from yaml import CSafeLoader as loader_class
    except ImportError:  # pragma: no cover - libyaml missing: slower, same results
        from yaml import SafeLoader as loader_class  # type: ignore[assignment]
    return yaml, loader_class, yaml.resolver.Resolver()


@functools.lru_cache(maxsize=4096)
def _resolve_plain(value: str) -> str:
    """The tag YAML 1.1 gives a plain scalar (int, bool, null, timestamp, str, ...)."""
    yaml, _loader, resolver = _yaml()
    return resolver.resolve(yaml.ScalarNode, value, (True, False))


class FormatError(Exception):
    """Why a file is left as it is: one or more problems with their places."""

    def __init__(self, problems: list[Problem]):
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems


# --- the file as nodes and comments ------------------------------------------------------


@dataclass(eq=False, slots=True)
class Node:
    """A YAML node with the character offsets of its text."""

    kind: str  # "scalar", "seq" or "map"
    start: int
    end: int  # after its last character; for a block collection, of its last child
    value: str = ""
    style: str = ""  # scalars: "" plain, "'", '"', "|" or ">"
    implicit: tuple[bool, bool] = (True, False)
    tag: str | None = None  # explicit tag, if any
    anchor: str | None = None
    flow: bool = False
    items: list[Node] = field(default_factory=list)
    pairs: list[tuple[Node, Node]] = field(default_factory=list)

    @property
    def plain(self) -> bool:
        return self.kind == "scalar" and not self.style

    def resolved_tag(self) -> str:
        if self.tag not in (None, "!"):
            return str(self.tag)
        if self.style:  # quoted or block: always a string
            return _STR
        return _resolve_plain(self.value)

    def is_text(self) -> bool:
        """A scalar that reads as a string, with nothing attached to it."""
        return (
            self.kind == "scalar"
            and self.tag is None
            and self.anchor is None
            and self.resolved_tag() == _STR
        )

    def data(self) -> Any:
        """What the node means, as comparable tuples: tag and value of every scalar."""
        if self.kind == "scalar":
            return ("s", self.resolved_tag(), self.value)
        if self.kind == "seq":
            return ("q", self.tag, tuple(item.data() for item in self.items))
        return ("m", self.tag, tuple((k.data(), v.data()) for k, v in self.pairs))


@dataclass(eq=False)
class Comment:
    start: int  # offset of "#"
    end: int  # end of its line (offset of "\n" or of the end of text)
    text: str


@dataclass(eq=False)
class FieldLayout:
    key: Node
    value: Node
    end: int  # end of the value's last character
    leading: list[str] = field(default_factory=list)
    trailing: str | None = None
    inner: bool = False  # comments inside the value

    @property
    def name(self) -> str:
        return self.key.value


@dataclass(eq=False)
class EntryLayout:
    node: Node
    index: int
    dash: int  # offset of its "- "
    end: int  # end of its last character
    line_end: int  # end of the line it ends on
    block_start: int = 0  # start of the first line of its leading comments (or its dash line)
    block_end: int = 0  # end of its last line, tail comments included
    leading: list[str] = field(default_factory=list)  # lines: comments, "" for a blank
    fields: list[FieldLayout] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    verbatim: bool = False

    @property
    def id(self) -> str | None:
        for fld in self.fields:
            if fld.name == "id" and fld.value.is_text():
                return fld.value.value
        if self.node.kind == "map":
            for key, value in self.node.pairs:
                if key.value == "id" and value.kind == "scalar":
                    return value.value
        return None

    def field(self, name: str) -> FieldLayout | None:
        return next((fld for fld in self.fields if fld.name == name), None)


@dataclass(eq=False)
class Document:
    """A catalog file understood well enough to rewrite it: entries, comments, offsets."""

    path: str
    kind: str | None
    text: str
    root: Node | None
    comments: list[Comment]
    entries: list[EntryLayout]
    header: list[str]
    footer: list[str]
    newlines: list[int]  # offsets of "\n"
    comment_starts: list[int] = field(default_factory=list)

    def line_of(self, offset: int) -> int:
        """1-based line of a character offset."""
        return bisect.bisect_left(self.newlines, offset) + 1

    def column_of(self, offset: int) -> int:
        """0-based column of a character offset."""
        line = self.line_of(offset)
        start = self.newlines[line - 2] + 1 if line > 1 else 0
        return offset - start

    def line_start(self, offset: int) -> int:
        return self.text.rfind("\n", 0, offset) + 1

    def line_end(self, offset: int) -> int:
        end = self.text.find("\n", offset)
        return len(self.text) if end < 0 else end

    def problem(self, offset: int, message: str, entry: str = "-") -> Problem:
        return Problem(self.path, self.line_of(offset), self.column_of(offset) + 1, entry, message)


def _problem_at(path: str, text: str, offset: int, message: str) -> Problem:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return Problem(path, line, column, "-", message)


def _clean(text: str, path: str) -> str:
    """The text with CRLF line ends made LF; refuse other line breaks YAML would honour."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    odd = _ODD_BREAKS.search(text)
    if odd:
        raise FormatError(
            [
                _problem_at(
                    path,
                    text,
                    odd.start(),
                    f"character U+{ord(odd.group()):04X} reads as a line break in YAML; "
                    "replace it with a space or a newline",
                )
            ]
        )
    return text


def parse(text: str, path: str, kind: str | None = None, *, check: bool = True) -> Document:
    """Read a catalog file for rewriting, or raise FormatError with the places it fails.

    ``check`` first runs the validator's reader, whose messages (and refusal of deep
    nesting, which libyaml reads in quadratic time) are the ones users know.
    """
    text = _clean(text, path)
    if check:
        entries, problems = loader.parse(text, path)
        if problems and not entries and text.strip():
            fatal = [p for p in problems if "empty" not in p.message]
            if fatal:
                raise FormatError(fatal)
    yaml, loader_class, _resolver = _yaml()
    try:
        events = list(yaml.parse(text, Loader=loader_class))
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        offset = mark.index if mark else 0
        reason = error.problem or "invalid YAML"
        problem = _problem_at(path, text, offset, f"YAML syntax error: {reason}")
        raise FormatError([problem]) from None
    except yaml.YAMLError as error:  # pragma: no cover - libyaml raises marked errors
        raise FormatError([_problem_at(path, text, 0, f"YAML error: {error}")]) from None
    comments = _comments(text, path, events)
    root = _tree(text, path, events)
    newlines = [match.start() for match in re.finditer("\n", text)]
    doc = Document(path, kind, text, root, comments, [], [], [], newlines)
    doc.comment_starts = [comment.start for comment in comments]
    _lay_out(doc)
    return doc


def _comments(text: str, path: str, events: list[Any]) -> list[Comment]:
    """Every comment: a "#" outside every scalar (libyaml allows none in tags or anchors)."""
    spans: list[tuple[int, int]] = []
    for event in events:
        name = type(event).__name__
        if name == "AliasEvent":
            message = "YAML aliases (*name) are not allowed in catalogs; write the value out"
            raise FormatError([_problem_at(path, text, event.start_mark.index, message)])
        if name == "ScalarEvent" or getattr(event, "tag", None) or getattr(event, "anchor", None):
            spans.append((event.start_mark.index, event.end_mark.index))
        elif name == "DocumentStartEvent" and (event.version or event.tags):
            message = "YAML directives (%...) are not used in catalogs; remove the line"
            raise FormatError([_problem_at(path, text, 0, message)])
    spans.sort()
    starts = [start for start, _ in spans]
    comments: list[Comment] = []
    done = 0
    for match in re.finditer("#", text):
        at = match.start()
        if at < done:
            continue
        k = bisect.bisect_right(starts, at) - 1
        if k >= 0 and spans[k][1] > at:
            continue
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        comments.append(Comment(at, end, text[at:end].rstrip()))
        done = end
    return comments


def _dash(doc: Document, start: int) -> int:
    """Offset of the "- " that introduces a block-sequence item starting at ``start``.

    Only blanks and comments can stand between the dash and its item.
    """
    text = doc.text
    at = start - 1
    while at >= 0:
        char = text[at]
        if char in " \t\n":
            at -= 1
            continue
        k = bisect.bisect_right(doc.comment_starts, at) - 1
        if k >= 0 and doc.comments[k].start <= at < doc.comments[k].end:
            at = doc.comments[k].start - 1
            continue
        return at if char == "-" else start
    return start


def _tree(text: str, path: str, events: list[Any]) -> Node | None:
    """The document's root node, built from parser events (aliases were refused before)."""
    stream = iter(events)
    next(stream)  # StreamStart
    event = next(stream)
    if type(event).__name__ == "StreamEndEvent":
        return None
    root = _node(next(stream), stream, 0, text, path)
    next(stream)  # DocumentEnd
    event = next(stream)
    if type(event).__name__ == "DocumentStartEvent":
        raise FormatError(
            [
                _problem_at(
                    path,
                    text,
                    event.start_mark.index,
                    "only one YAML document per catalog file; remove the `---`",
                )
            ]
        )
    return root


def _node(event: Any, stream: Any, depth: int, text: str, path: str) -> Node:
    if depth > _MAX_DEPTH:
        raise FormatError(
            [_problem_at(path, text, event.start_mark.index, "nesting too deep to format")]
        )
    name = type(event).__name__
    start = event.start_mark.index
    if name == "ScalarEvent":
        return Node(
            "scalar",
            start,
            event.end_mark.index,
            value=event.value,
            style=event.style or "",
            implicit=event.implicit,
            tag=event.tag,
            anchor=event.anchor,
        )
    node = Node(
        "seq" if name == "SequenceStartEvent" else "map",
        start,
        start,
        tag=event.tag,
        anchor=event.anchor,
        flow=bool(event.flow_style),
    )
    children: list[Node] = []
    for inner in stream:
        inner_name = type(inner).__name__
        if inner_name in ("SequenceEndEvent", "MappingEndEvent"):
            last = children[-1].end if children else start
            node.end = inner.end_mark.index if node.flow else max(last, start)
            break
        children.append(_node(inner, stream, depth + 1, text, path))
    if node.kind == "seq":
        node.items = children
    else:
        node.pairs = list(zip(children[::2], children[1::2], strict=True))
    return node


def _content_end(text: str, node: Node) -> int:
    """End of the node's last character; a block scalar's trailing blank lines excluded."""
    if node.kind == "scalar" and node.style in ("|", ">"):
        end = node.end
        while end > node.start and text[end - 1] in " \t\n":
            end -= 1
        return end
    if node.kind == "scalar" or node.flow:
        return node.end
    if node.kind == "seq":
        return _content_end(text, node.items[-1]) if node.items else node.end
    return _content_end(text, node.pairs[-1][1]) if node.pairs else node.end


def _comment_lines(doc: Document, start: int, end: int) -> list[str]:
    """The lines between two offsets, as comment texts and "" for blank lines."""
    lines: list[str] = []
    at = start
    while at < end:
        stop = doc.line_end(at)
        line = doc.text[at:stop]
        stripped = line.strip()
        if not stripped:
            lines.append("")
        elif stripped.startswith("#"):
            lines.append(stripped.rstrip())
        elif stripped in ("---", "..."):
            pass  # document markers say nothing a single-document catalog needs
        else:
            raise FormatError([doc.problem(at, f"unexpected text between entries: {stripped!r}")])
        at = stop + 1
    return lines


def _paragraphs(lines: list[str]) -> list[str]:
    """Comment lines with runs of blank lines made one, and none at either end."""
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


def _lay_out(doc: Document) -> None:
    root = doc.root
    text = doc.text
    if root is None:
        doc.header = _paragraphs(_comment_lines(doc, 0, len(text)))
        return
    if root.kind != "seq" or (root.flow and root.items):
        raise FormatError(
            [doc.problem(root.start, "the file must be a list of entries, each `- id: ...`")]
        )
    for index, node in enumerate(root.items):
        dash = _dash(doc, node.start)
        end = _content_end(text, node)
        entry = EntryLayout(node, index, dash, end, doc.line_end(end))
        _lay_out_entry(doc, entry)
        doc.entries.append(entry)
    if root.flow:  # "[]": an empty catalog, nothing to place
        doc.header = _paragraphs(_comment_lines(doc, 0, doc.line_start(root.start)))
        doc.footer = _paragraphs(_comment_lines(doc, doc.line_end(root.end) + 1, len(text)))
        return
    _attach_gaps(doc)


def _attach_gaps(doc: Document) -> None:
    """Give the comment lines between entries to the entry above or below, or the file."""
    text = doc.text
    entries = doc.entries
    if not entries:
        doc.header = _paragraphs(_comment_lines(doc, 0, len(text)))
        return
    first = entries[0]
    first_line = doc.line_start(first.dash)
    before = _comment_lines(doc, 0, first_line)
    # The comment lines right above the first entry are its own, unless they are the
    # schema line that heads every catalog.
    own: list[str] = []
    while before and before[-1] and not before[-1].startswith("# yaml-language-server:"):
        own.insert(0, before.pop())
    doc.header = _paragraphs(before)
    first.leading = own + first.leading
    first.block_start = _lines_before(doc, first_line, len(own))
    for above, below in itertools.pairwise(entries):
        start = min(above.line_end + 1, len(text))
        stop = doc.line_start(below.dash)
        tail, rest = _split_tail(doc, above, _comment_lines(doc, start, stop))
        above.tail += tail
        below.leading = _paragraphs(rest) + below.leading
        above.block_end = _after_lines(doc, start, len(tail))
        below.block_start = _lines_before(doc, stop, len(_trim_blank_top(rest)))
    last = entries[-1]
    start = min(last.line_end + 1, len(text))
    tail, rest = _split_tail(doc, last, _comment_lines(doc, start, len(text)))
    last.tail += tail
    last.block_end = _after_lines(doc, start, len(tail))
    doc.footer = _paragraphs(rest)


def _trim_blank_top(lines: list[str]) -> list[str]:
    out = list(lines)
    while out and not out[0]:
        out.pop(0)
    return out


def _after_lines(doc: Document, start: int, count: int) -> int:
    """Offset just after ``count`` lines from ``start`` (the end of an entry's last line)."""
    at = start - 1
    for _ in range(count):
        at = doc.line_end(at + 1)
    return max(at, start - 1)


def _lines_before(doc: Document, stop: int, count: int) -> int:
    """Start offset of the line ``count`` lines above the line starting at ``stop``."""
    at = stop
    for _ in range(count):
        at = doc.line_start(max(at - 1, 0))
    return at


def _split_tail(doc: Document, entry: EntryLayout, lines: list[str]) -> tuple[list[str], list[str]]:
    """Indented comment lines right after an entry are its tail; the rest come after it."""
    dash_column = doc.column_of(entry.dash)
    tail: list[str] = []
    at = entry.line_end + 1
    for line in lines:
        if not line:
            break
        raw = doc.text[at : doc.line_end(at)]
        if len(raw) - len(raw.lstrip()) <= dash_column:
            break
        tail.append(line)
        at = doc.line_end(at) + 1
    return tail, lines[len(tail) :]


def _lay_out_entry(doc: Document, entry: EntryLayout) -> None:
    node = entry.node
    text = doc.text
    low = bisect.bisect_left(doc.comment_starts, entry.dash)
    high = bisect.bisect_left(doc.comment_starts, entry.line_end)
    comments = doc.comments[low:high]
    entry.block_start = doc.line_start(entry.dash)
    entry.block_end = entry.line_end
    if node.kind != "map" or node.tag is not None or node.anchor is not None or not node.pairs:
        entry.verbatim = True
        return
    if node.flow and comments:
        entry.verbatim = True
        return
    first_key = node.pairs[0][0].start
    for key, value in node.pairs:
        entry.fields.append(FieldLayout(key, value, _content_end(text, value)))
    for comment in comments:
        if comment.start < first_key:
            entry.leading.append(comment.text)
            continue
        owner = None
        for position, fld in enumerate(entry.fields):
            if fld.key.start <= comment.start < fld.end:
                fld.inner = True
                owner = fld
                break
            following = entry.fields[position + 1] if position + 1 < len(entry.fields) else None
            if fld.end <= comment.start and (
                following is None or comment.start < following.key.start
            ):
                if "\n" not in text[fld.end : comment.start]:
                    fld.trailing = comment.text
                elif following is not None:
                    following.leading.append(comment.text)
                else:
                    entry.tail.append(comment.text)
                owner = fld
                break
        if owner is None:  # pragma: no cover - every offset falls in one of the ranges
            entry.verbatim = True
    odd_key = any(not _simple_key(fld.key) for fld in entry.fields)
    if odd_key or (node.flow and any(_render_value(doc, fld) is None for fld in entry.fields)):
        entry.verbatim = True


def _simple_key(key: Node) -> bool:
    return key.is_text() and "\n" not in key.value


def _plain_text(doc: Document, node: Node) -> str:
    """A plain non-string scalar (number, date, null) exactly as written."""
    return doc.text[node.start : node.end]


def _render_item(doc: Document, node: Node) -> str | None:
    if node.kind != "scalar" or node.tag is not None or node.anchor is not None:
        return None
    if node.is_text():
        return writer.scalar(node.value, in_flow=True)
    if not node.plain:
        return None
    written = _plain_text(doc, node)
    return written if written else "null"


def _render_value(doc: Document, fld: FieldLayout) -> list[str] | None:
    """The field's lines in canonical layout (first line "name: ..."), or None to copy it."""
    value = fld.value
    name = writer.scalar(fld.name)
    if fld.inner or value.tag is not None or value.anchor is not None:
        return None
    if value.kind == "scalar":
        if value.is_text():
            if "\n" in value.value.rstrip("\n"):
                return writer.field_line(name, value.value).split("\n")
            # not field_line: it writes dates plain, and a quoted date must stay text
            return [f"{name}: {writer.scalar(value.value)}"]
        if not value.plain:
            return None
        written = _plain_text(doc, value)
        return [f"{name}: {written}" if written else f"{name}:"]
    if value.kind == "seq":
        items = [_render_item(doc, item) for item in value.items]
        if any(item is None for item in items):
            return None
        return [f"{name}: [{', '.join(items)}]"]  # type: ignore[arg-type]
    return None


def _verbatim_field(doc: Document, fld: FieldLayout) -> list[str]:
    """The field's own text, re-indented so that its key stands in the field column."""
    text = doc.text[fld.key.start : fld.end]
    shift = writer.INDENT - doc.column_of(fld.key.start)
    return _shift(text.split("\n"), shift, first=False)


def _shift(lines: list[str], shift: int, first: bool = True) -> list[str]:
    out = []
    for position, line in enumerate(lines):
        if (position == 0 and not first) or not line.strip():
            out.append(line if line.strip() else "")
        elif shift >= 0:
            out.append(" " * shift + line)
        else:
            cut = min(-shift, len(line) - len(line.lstrip(" ")))
            out.append(line[cut:])
    return out


def _field_order(kind: str | None) -> dict[str, int]:
    if kind is None or kind not in KINDS:
        return {}
    return {name: position for position, name in enumerate(KINDS[kind].field_names)}


def _entry_lines(doc: Document, entry: EntryLayout) -> list[str]:
    if entry.verbatim:
        text = doc.text[doc.line_start(entry.dash) : entry.line_end]
        lines = _shift(text.split("\n"), -doc.column_of(entry.dash))
        return _paragraphs(entry.leading) + lines + ["  " + line for line in entry.tail]
    order = _field_order(doc.kind)
    fields = sorted(
        entry.fields,
        key=lambda fld: order.get(fld.name, len(order)),
    )
    lines = list(_paragraphs(entry.leading))
    for position, fld in enumerate(fields):
        if position == 0:
            lines += [line for line in fld.leading]
        else:
            lines += ["  " + line for line in fld.leading]
        body = _render_value(doc, fld)
        if body is None:
            body = _verbatim_field(doc, fld)
        body[0] = ("- " if position == 0 else "  ") + body[0]
        if fld.trailing:
            body[-1] += "  " + fld.trailing
        lines += body
    lines += ["  " + line for line in entry.tail]
    return lines


def _sort_key(entry: EntryLayout) -> tuple[int, str, int]:
    entry_id = entry.id
    return (0, entry_id, entry.index) if entry_id is not None else (1, "", entry.index)


def render(doc: Document) -> str:
    """The document in canonical layout."""
    header = list(doc.header)
    if doc.kind in KINDS:
        schema = writer.schema_comment(doc.kind).rstrip("\n")
        if not any(line.startswith("# yaml-language-server:") for line in header):
            header.insert(0, schema)
    entries = list(doc.entries)
    if doc.kind in SORTED_KINDS:
        entries.sort(key=_sort_key)
    out: list[str] = []
    if header:
        out += header
        # the schema line alone sits right on the first entry, as writer.catalog_text has it
        if len(header) > 1 or not header[0].startswith("# yaml-language-server:"):
            out.append("")
    if doc.root is not None and doc.root.flow:
        out.append("[]")
    for position, entry in enumerate(entries):
        if position:
            out.append("")
        out += _entry_lines(doc, entry)
    if doc.footer:
        out += ["", *doc.footer]
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


# --- checking that nothing was lost -----------------------------------------------------


def summary(doc: Document) -> tuple[Counter[str], Counter[Any]]:
    """What must survive formatting: the comments, and the entries with their values."""
    comments = Counter(comment.text for comment in doc.comments)
    entries: Counter[Any] = Counter()
    if doc.root is not None:
        for node in doc.root.items:
            if node.kind == "map":
                pairs = Counter((k.data(), v.data()) for k, v in node.pairs)  # order aside
                entries[("m", node.tag, frozenset(pairs.items()))] += 1
            else:
                entries[node.data()] += 1
    return comments, entries


def entry_order(doc: Document) -> list[Any]:
    return [entry.id for entry in doc.entries]


def format_text(text: str, path: str, kind: str | None) -> str:
    """The canonical text of a catalog file; FormatError if it cannot be formatted safely."""
    before = parse(text, path, kind)
    result = render(before)
    if result == text:
        return text  # already canonical: nothing to write, nothing to check
    try:
        after = parse(result, path, kind, check=False)
    except FormatError as error:
        raise FormatError(
            [Problem(path, 1, 1, "-", f"formatting would break the file ({error}); left as it is")]
        ) from None
    old_comments, old_entries = summary(before)
    new_comments, new_entries = summary(after)
    if before.kind in KINDS and writer.schema_comment(before.kind).rstrip("\n") not in old_comments:
        new_comments -= Counter([writer.schema_comment(before.kind).rstrip("\n")])
    if old_comments != new_comments:
        lost = list((old_comments - new_comments).elements())[:3]
        raise FormatError(
            [Problem(path, 1, 1, "-", f"formatting would lose comments {lost}; left as it is")]
        )
    if old_entries != new_entries:
        raise FormatError(
            [Problem(path, 1, 1, "-", "formatting would change a value; left as it is")]
        )
    if before.kind not in SORTED_KINDS and entry_order(before) != entry_order(after):
        raise FormatError(
            [Problem(path, 1, 1, "-", "formatting would reorder entries; left as it is")]
        )
    return result


# --- files -----------------------------------------------------------------------------


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step: a temporary file, then a rename."""
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def catalog_files(root: Path) -> list[tuple[Path, str, str]]:
    """(file, path for messages, kind) of every catalog present under ``root``."""
    files = []
    for kind in KINDS:
        relative = f"data/{kind}.yaml"
        if (root / relative).exists():
            files.append((root / relative, relative, kind))
    return files


def _named_files(root: Path, names: Iterable[str]) -> list[tuple[Path, str, str | None]]:
    files: list[tuple[Path, str, str | None]] = []
    for name in names:
        file = Path(name)
        if not file.is_absolute():
            file = root / file
        try:
            shown = str(file.resolve().relative_to(root.resolve()))
        except ValueError:
            shown = str(file)
        kind = file.stem if file.stem in KINDS else None
        files.append((file, shown, kind))
    return files


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    files = _named_files(root, args.files) if args.files else catalog_files(root)
    if not files:
        print(f"no catalogs found under {root / 'data'}", file=sys.stderr)
        return 1
    failed = changed = 0
    for file, shown, kind in files:
        text, problems = loader.read_text(file, shown)
        if text is None:
            for problem in problems:
                print(problem)
            failed += 1
            continue
        try:
            result = format_text(text, shown, kind)
        except FormatError as error:
            for problem in error.problems:
                print(problem)
            print(f"{shown}: not formatted (nothing was written)", file=sys.stderr)
            failed += 1
            continue
        if result == text:
            continue
        changed += 1
        if args.check:
            print(f"would reformat {shown}")
        else:
            write_atomic(file, result)
            print(f"reformatted {shown}")
    if args.check:
        verdict = [f"{changed} file(s) would be reformatted"] if changed else []
        verdict += [f"{failed} file(s) could not be formatted"] if failed else []
        verdict = verdict or ["all files formatted"]
        print(f"{', '.join(verdict)}, {len(files) - changed - failed} unchanged", file=sys.stderr)
    elif not failed:
        print(f"{changed} file(s) reformatted, {len(files) - changed} unchanged", file=sys.stderr)
    if failed:
        return 1
    return 1 if args.check and changed else 0


def register(commands: Any) -> None:
    command = commands.add_parser(
        "fmt",
        help="put catalogs in canonical order and layout, keeping every comment",
        description=(
            "Sort entries (papers, decks, issues, resources by id) and fields, and lay "
            "them out as `mlsys-kb add` writes them. Comments stay with what they describe."
        ),
    )
    command.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list the files that would change and exit 1 if any",
    )
    command.add_argument(
        "files", nargs="*", help="catalog files (default: every data/<catalog>.yaml)"
    )
    command.set_defaults(run=run)
