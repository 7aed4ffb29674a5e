"""Write the search records into Pagefind indexes, with the binary that comes with the
``pagefind[extended]`` wheel: nothing is downloaded.

Two indexes: the catalog's entries and topics (``site/pagefind/``), known as soon as the
catalogs are read, are indexed in a thread while MkDocs builds the pages (at 10,000 papers
Pagefind takes 10 to 20 s, mostly writing its 12,000 small files); the sections of the
hand-written pages, known only once MkDocs has converted them, go into a small second index
(``site/pagefind-pages/``) that the search box merges (Pagefind's ``mergeIndex``).

Each record is written as a small HTML file into a scratch folder, which Pagefind's command
line (``python -m pagefind --site …``) indexes in one run. A file's path says nothing: the
record's permalink travels in its ``permalink`` meta, which the search scripts use as the
result's address.

Why the command line and not Pagefind's Python API: in 1.5.2, the newest release, the API's
service answers "files written" while its last writes may still be in flight, and closing
the service then kills them (Pagefind issue #1271, fixed by #1272 after 1.5.2). On this
project's 10,000-paper benchmark a busy build shipped an empty ``pagefind-entry.json`` and a
truncated WebAssembly file, and the search box never answered. The command line's exit waits
for every write. The entry file is read back and its record count checked all the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path

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
        if output.exists():
            shutil.rmtree(output)
        if count:
            _run_pagefind(Path(scratch), output)
    indexed = _indexed(output) if count else 0
    if indexed != count:
        raise RuntimeError(f"Pagefind indexed {indexed} of {count} search records")
    for pattern in _UNUSED:
        for path in output.glob(pattern):
            path.unlink()
    return count


def _run_pagefind(site: Path, output: Path) -> None:
    # One index for every language (--force-language): Pagefind otherwise searches only the
    # records in the language of the page it runs on, and a Chinese post would not be found
    # from the site.
    argv = [sys.executable, "-m", "pagefind", "--site", str(site), "--output-path", str(output)]
    argv += ["--force-language", "en", "--silent"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip() or f"exit status {done.returncode}"
        raise RuntimeError(f"Pagefind failed: {said}")


def _indexed(output: Path) -> int:
    """The record count Pagefind wrote into the index's entry file, or 0 if it is missing
    or incomplete."""
    try:
        entry = json.loads((output / "pagefind-entry.json").read_text("utf-8"))
        return sum(int(language["page_count"]) for language in entry["languages"].values())
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return 0


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
