"""Carry the renderer's HTML blocks past Python-Markdown, which has nothing to do with them.

The generated Markdown holds each entry's chrome (link buttons, cross-links, BibTeX) and the
long index lists as blocks of HTML, already escaped, with final URLs:

    <div class="entry-chrome" data-search-exclude>
    <p class="entry-links"><a href="https://doi.org/...">DOI</a></p>
    ...
    </div>

Python-Markdown passes such a block through unchanged, but only after Python's `html.parser`
has read it three times: Python-Markdown's raw-HTML pass, MkDocs' scan for anchors and
Material's search indexer (which then drops it: `data-search-exclude`). At 10,000 entries that
was a third of the build. So the plugin lifts each block out before the conversion, leaving an
HTML comment in its place, and puts it back into the finished page. The Markdown stays what the
renderer wrote, and the pages come out the same byte for byte (tested against a build with
`lift_html: false`).
"""

from __future__ import annotations

import re
import secrets

# A block the renderer writes: an opening line `<div class="entry-...">` or
# `<ul class="entry-...">` after a blank line, through the first line that closes it. The
# renderer never nests these tags inside one, and every catalog text in it is escaped, so no
# `</div>` or `</ul>` line can come from an entry.
_BLOCK = re.compile(
    r'(?:(?<=\n\n)|\A)(<(div|ul) class="entry-[a-z-]+"[^<>\n]*>\n.*?\n</\2>)(?=\n|\Z)', re.S
)


class Lifted:
    """The blocks lifted from one build's pages, by page, until each page is finished."""

    def __init__(self) -> None:
        # A fresh token a build, so that no text written in a page can pose as a marker.
        self.token = secrets.token_hex(8)
        self.marker = re.compile(rf"<!--mlsys-kb:{self.token}:(\d+)-->")
        self.pages: dict[str, list[str]] = {}

    def lift(self, page: str, markdown: str) -> str:
        """Replace each block of `markdown` with a marker; keep the blocks for `restore`."""
        blocks: list[str] = []

        def marker(match: re.Match[str]) -> str:
            blocks.append(match[1])
            return f"<!--mlsys-kb:{self.token}:{len(blocks) - 1}-->"

        lifted = _BLOCK.sub(marker, markdown)
        self.pages[page] = blocks
        return lifted

    def restore(self, page: str, html: str) -> str:
        """Put the blocks of `page` back in place of their markers.

        Raises ValueError when a marker is missing or repeated: something between the two
        steps changed the page, and it must not go out without its entries' links.
        """
        blocks = self.pages.pop(page, [])
        if not blocks:
            return html
        seen: list[int] = []

        def block(match: re.Match[str]) -> str:
            seen.append(int(match[1]))
            return blocks[int(match[1])]

        restored = self.marker.sub(block, html)
        if sorted(seen) != list(range(len(blocks))):
            raise ValueError(
                f"{len(blocks)} HTML blocks were lifted from the page but {len(seen)} came back"
            )
        return restored
