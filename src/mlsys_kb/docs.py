"""The hand-written pages under docs/: which there are, and which papers they cite."""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path

from .render.nav import HandWritten

# mkdocs-bibtex's citation syntax: [@key] or [@key1; @key2] (see render/citations.py).
CITATION_BLOCK = re.compile(r"\[[^\[\]]*@[^\[\]]*\]")
CITATION_KEY = re.compile(r"@([\w:.-]+)")


def hand_written(
    docs: Path, guides_dir: str, overviews_dir: str, generated: Collection[str]
) -> HandWritten:
    """The guides, overviews and other top-level pages of ``docs``, by file name; a
    top-level page that the renderer makes itself (``generated``) is not one of them."""
    return HandWritten(
        guides=[f"{guides_dir}/{p.name}" for p in sorted((docs / guides_dir).glob("*.md"))],
        overviews=[
            f"{overviews_dir}/{p.name}" for p in sorted((docs / overviews_dir).glob("*.md"))
        ],
        others=[p.name for p in sorted(docs.glob("*.md")) if p.name not in generated],
    )


def cited_keys(docs: Path) -> set[str]:
    """Every citation key of every page under ``docs``."""
    keys: set[str] = set()
    for page in docs.rglob("*.md"):
        for block in CITATION_BLOCK.findall(page.read_text(encoding="utf-8")):
            keys.update(CITATION_KEY.findall(block))
    return keys
