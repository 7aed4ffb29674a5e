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
    pages = [record_html(record).encode("utf-8") for record in records]
    scratch_root = _scratch_root(sum(map(len, pages)), len(pages))
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-search-", dir=scratch_root) as scratch:
        for number, page in enumerate(pages, start=1):
            (Path(scratch) / f"{number:06d}.html").write_bytes(page)
        if output.exists():
            shutil.rmtree(output)
        if pages:
            _run_pagefind(Path(scratch), output)
    indexed = _indexed(output) if pages else 0
    if indexed != len(pages):
        raise RuntimeError(f"Pagefind indexed {indexed} of {len(pages)} search records")
    for pattern in _UNUSED:
        for path in output.glob(pattern):
            path.unlink()
    return len(pages)


# Where the records' files go for Pagefind to read: a folder in memory where the system has
# one with room to spare, else the system's temporary folder. Pagefind reads pages from
# files only, one per record, and a small file costs far more to make on a disk: 11,740
# records (10,000 papers) took 3.3 to 5.7 s in /tmp on ext4 (this project's CI machines) and
# 0.5 to 0.9 s in /dev/shm, measured 2026-11-22. Pagefind's output goes to the site as before.
# A TMPDIR the user set wins.
_IN_MEMORY = Path("/dev/shm")


def _scratch_root(size: int, files: int) -> str | None:
    if os.environ.get("TMPDIR"):
        return None
    try:
        room = os.statvfs(_IN_MEMORY)
        usable = os.access(_IN_MEMORY, os.W_OK | os.X_OK)
    except (OSError, AttributeError):  # no such folder, or no statvfs (Windows)
        return None
    # Room for the records twice over, each file rounded up to a page of memory.
    needed = 2 * (size + 4096 * files)
    return str(_IN_MEMORY) if usable and room.f_bavail * room.f_frsize > needed else None


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
