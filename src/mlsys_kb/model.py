"""The plain data model: entries as loaded from the catalogs, and the problems found in them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Mark = tuple[int, int]  # 1-based (line, column)


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with the catalogs, printed as ``path:line:column: entry: message``."""

    path: str
    line: int
    column: int
    entry: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.entry}: {self.message}"

    def as_github(self) -> str:
        # GitHub Actions annotation; newlines and % must be escaped in the message.
        text = f"{self.entry}: {self.message}"
        text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        return f"::error file={self.path},line={self.line},col={self.column}::{text}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "entry": self.entry,
            "message": self.message,
        }


@dataclass
class Entry:
    """One catalog entry: its values, and where each value stands in its YAML file.

    ``values`` holds plain Python values (str, int, list[str]); dates are ISO strings.
    ``marks`` maps a field name to the position of its value; ``item_marks`` maps a
    list field to the positions of its items, so that a bad reference is reported
    at the item itself.
    """

    kind: str
    path: str
    mark: Mark
    values: dict[str, Any]
    marks: dict[str, Mark] = field(default_factory=dict)
    key_marks: dict[str, Mark] = field(default_factory=dict)
    item_marks: dict[str, list[Mark]] = field(default_factory=dict)
    index: int = 0  # position in its file
    # Marks inside a nested field (`compare`): (field, key) or (field, key, item index)
    # -> (mark of the key or item, mark of its value).
    sub_marks: dict[tuple[str | int, ...], tuple[Mark, Mark]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        value = self.values.get("id")
        return value if isinstance(value, str) else f"#{self.index + 1}"

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def mark_of(self, name: str) -> Mark:
        return self.marks.get(name, self.mark)


@dataclass
class Catalog:
    """All catalogs of a project, by kind (``papers``, ``topics``, ...), in file order."""

    entries: dict[str, list[Entry]] = field(default_factory=dict)

    def __getitem__(self, kind: str) -> list[Entry]:
        return self.entries.get(kind, [])

    def by_id(self, kind: str) -> dict[str, Entry]:
        return {entry.id: entry for entry in self[kind]}
