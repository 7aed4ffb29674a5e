"""Write the search records into a Pagefind index (``site/pagefind/``), through Pagefind's
Python API and the binary that comes with its wheel: nothing is downloaded.

Each record is written as a small HTML file into a scratch folder that Pagefind indexes in
one call (``add_directory``). Pagefind 1.5.2's Python service reads one reply per 0.1 s,
so adding 10,000 records one by one (``add_custom_record``) took over 15 minutes; one
directory is one reply. A file's path says nothing: the record's permalink travels in its
``permalink`` meta, which the search scripts use as the result's address.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from pagefind.index import IndexConfig, PagefindIndex

from .render.search import Record, record_html

OUTPUT = "pagefind"  # under the site directory
# Pagefind writes its own search interfaces too; the site uses its own scripts.
_UNUSED = ("pagefind-*ui.*", "pagefind-highlight.js")


def write_index(records: Iterable[Record], site_dir: Path) -> int:
    """Index ``records`` into ``site_dir/pagefind``; returns how many were indexed."""
    output = site_dir / OUTPUT
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-search-") as scratch:
        count = 0
        for count, record in enumerate(records, start=1):
            (Path(scratch) / f"{count:06d}.html").write_text(record_html(record), "utf-8")
        indexed = asyncio.run(_index(scratch, output))
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
