"""Write the search records into Pagefind indexes, through Pagefind's Python API and the
binary that comes with its wheel: nothing is downloaded.

Two indexes: the catalog's entries and topics (``site/pagefind/``), known as soon as the
catalogs are read, are indexed in a thread while MkDocs builds the pages (at 10,000 papers
Pagefind takes 10 to 20 s, mostly writing its 12,000 small files); the sections of the
hand-written pages, known only once MkDocs has converted them, go into a small second index
(``site/pagefind-pages/``) that the search box merges (Pagefind's ``mergeIndex``).

Each record is written as a small HTML file into a scratch folder that Pagefind indexes in
one call (``add_directory``). Pagefind 1.5.2's Python service reads one reply per 0.1 s,
so adding 10,000 records one by one (``add_custom_record``) took over 15 minutes; one
directory is one reply. A file's path says nothing: the record's permalink travels in its
``permalink`` meta, which the search scripts use as the result's address.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

from pagefind.index import IndexConfig, PagefindIndex

from .render.search import Record, record_html

OUTPUT = "pagefind"  # the catalog's index, under the site directory
PAGES_OUTPUT = "pagefind-pages"  # the hand-written pages' index
# Pagefind writes its own search interfaces too; the site uses its own scripts.
_UNUSED = ("pagefind-*ui.*", "pagefind-highlight.js")


def write_index(records: Iterable[Record], output: Path) -> int:
    """Index ``records`` into the folder ``output``; returns how many were indexed."""
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-search-") as scratch:
        count = 0
        for count, record in enumerate(records, start=1):
            (Path(scratch) / f"{count:06d}.html").write_text(record_html(record), "utf-8")
        indexed = asyncio.run(_index(scratch, output)) if count else 0
    if indexed != count:
        raise RuntimeError(f"Pagefind indexed {indexed} of {count} search records")
    for pattern in _UNUSED:
        for path in output.glob(pattern):
            path.unlink()
    return count


async def _index(scratch: str, output: Path) -> int:
    if output.exists():
        shutil.rmtree(output)
    # One index for every language: Pagefind otherwise searches only the records in the
    # language of the page it runs on, and a Chinese post would not be found from the site.
    config = IndexConfig(force_language="en", output_path=str(output))
    async with PagefindIndex(config) as index:
        result = await index.add_directory(scratch)
    return int(result["page_count"])


class BackgroundIndex:
    """``write_index`` in a thread, into a scratch folder beside the site; ``move_into``
    waits for it and moves the result into the site."""

    def __init__(self, records: list[Record], beside: Path) -> None:
        beside.mkdir(parents=True, exist_ok=True)
        # Beside the site directory, on the same file system: the move is a rename.
        self._scratch = Path(tempfile.mkdtemp(prefix=".mlsys-kb-search-", dir=beside))
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(records,), daemon=True)
        self._thread.start()

    def _run(self, records: list[Record]) -> None:
        try:
            write_index(records, self._scratch / OUTPUT)
        except BaseException as error:  # handed to the build in move_into
            self._error = error

    def move_into(self, site_dir: Path) -> None:
        self._thread.join()
        try:
            if self._error is not None:
                raise RuntimeError(f"the search index could not be built: {self._error}")
            target = site_dir / OUTPUT
            if target.exists():
                shutil.rmtree(target)
            os.replace(self._scratch / OUTPUT, target)
        finally:
            self.discard()

    def discard(self) -> None:
        self._thread.join()
        shutil.rmtree(self._scratch, ignore_errors=True)
