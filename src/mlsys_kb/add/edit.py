"""Change one catalog file in place: insert an entry at its canonical place, or replace a
value, then validate the whole project and put the file back if the change broke it.

Edits are made in the text, not by re-dumping YAML: every other byte of the file,
comments included, stays as it was.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import fmt, validate, writer
from ..model import Problem

SORTED = fmt.SORTED_KINDS


class EditError(Exception):
    """The edit was not made (or was undone); ``problems`` say why, ``hint`` what to do."""

    def __init__(self, message: str, problems: list[Problem] | None = None, hint: str = ""):
        super().__init__(message)
        self.problems = problems or []
        self.hint = hint


@dataclass
class Edited:
    path: str
    line: int  # where the new or changed entry starts


def read_catalog(root: Path, kind: str) -> tuple[Path, str, fmt.Document]:
    """The catalog file, its text as it is on disk, and its layout (offsets into doc.text)."""
    relative = validate.catalog_path(kind)
    file = root / relative
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EditError(f"{relative} does not exist; run this in the project's directory") from None
    try:
        doc = fmt.parse(text, relative, kind)
    except fmt.FormatError as error:
        raise EditError(
            f"{relative} cannot be read, so nothing was changed",
            error.problems,
            "fix the file first (`mlsys-kb validate` lists every problem)",
        ) from None
    return file, text, doc


def insertion(doc: fmt.Document, entry_id: str, entry: str) -> tuple[str, int]:
    """The file's text with ``entry`` (canonical text) at its place, and the entry's offset.

    Sorted catalogs take it before the first entry whose id sorts after it, above that
    entry's comments; other catalogs, and ids that sort last, at the end.
    """
    text = doc.text
    entries = doc.entries
    if doc.kind in SORTED:
        for existing in entries:
            if existing.id is not None and existing.id > entry_id:
                at = existing.block_start
                return text[:at] + entry + "\n" + text[at:], at
    if entries:
        at = entries[-1].block_end
        return text[:at] + "\n\n" + entry.rstrip("\n") + text[at:], at + 2
    if doc.root is not None and doc.root.flow:  # "[]"
        start, end = doc.root.start, doc.root.end
        return text[:start] + entry.rstrip("\n") + text[end:], start
    head = text.rstrip("\n")
    if not head and doc.kind:
        head = writer.schema_comment(doc.kind).rstrip("\n")
    separator = "\n" if head.endswith(("schema.json",)) else "\n\n"
    return head + separator + entry, len(head) + len(separator)


def _key(problem: Problem) -> tuple[str, str, str]:
    return (problem.path, problem.entry, problem.message)


def commit(root: Path, file: Path, old: str, new: str) -> list[Problem]:
    """Write ``new`` over ``file``, validate, and restore ``old`` if new problems appear.

    Returns the new problems (empty when the edit stands). Problems the catalogs had
    before are not the edit's fault and do not undo it.
    """
    _catalog, before = validate.load(root)
    fmt.write_atomic(file, new)
    try:
        _catalog, after = validate.load(root)
    except BaseException:
        fmt.write_atomic(file, old)
        raise
    fresh = Counter(map(_key, after)) - Counter(map(_key, before))
    if not fresh:
        return []
    fmt.write_atomic(file, old)
    return [problem for problem in after if _key(problem) in fresh]


def add_entry(root: Path, kind: str, values: dict[str, Any]) -> Edited:
    """Insert one entry at its canonical place in ``data/<kind>.yaml`` and validate."""
    file, raw, doc = read_catalog(root, kind)
    entry = writer.entry_text(kind, values)
    new, at = insertion(doc, str(values["id"]), entry)
    problems = commit(root, file, raw, new)
    if problems:
        raise EditError(f"the new entry is not valid, so {doc.path} was left as it was", problems)
    return Edited(doc.path, new.count("\n", 0, at) + 1)


def replace_spans(
    root: Path, file: Path, raw: str, doc: fmt.Document, changes: list[tuple[int, int, str]]
) -> list[Problem]:
    """Replace spans (start, end, new text) of ``doc.text`` in ``file``; validate.

    ``raw`` is the file as read, put back if the change brings new problems.
    """
    new = doc.text
    for start, end, replacement in sorted(changes, reverse=True):
        new = new[:start] + replacement + new[end:]
    if new == raw:
        return []
    return commit(root, file, raw, new)
