"""Build and serve the site with the real MkDocs, strictly.

``build`` validates (while MkDocs starts) and prints only the validator's messages on a
bad catalog; the site is built into a fresh directory and only then swapped in, so a
failed build leaves the previous ``site/`` as it was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO

from . import validate

QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def swap_into_place(staging: Path, target: Path) -> None:
    """Put the finished folder ``staging`` where ``target`` is, replacing it; the previous
    one is moved aside first and removed only once the new one is in place."""
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def _mkdocs(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "mkdocs", *args, "--config-file", str(root / "mkdocs.yml")]


class _Relay(threading.Thread):
    """Copies a child's output to stderr, holding it back until ``release``."""

    def __init__(self, stream: IO[bytes] | None) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.lock = threading.Lock()
        self.released = False
        self.held: list[bytes] = []
        self.start()

    def run(self) -> None:
        assert self.stream is not None
        for line in self.stream:
            with self.lock:
                if self.released:
                    self._write([line])
                else:
                    self.held.append(line)

    def release(self) -> None:
        with self.lock:
            self.released = True
            self._write(self.held)
            self.held = []

    @staticmethod
    def _write(lines: list[bytes]) -> None:
        binary = getattr(sys.stderr, "buffer", None)  # not there when a test captures stderr
        if binary is not None:
            binary.write(b"".join(lines))
        else:
            sys.stderr.write(b"".join(lines).decode("utf-8", "replace"))
        sys.stderr.flush()


def build(root: Path, site_dir: Path | None = None) -> int:
    target = (site_dir or root / "site").resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".site-", dir=target.parent))
    env = {**os.environ, **QUIET}
    # MkDocs starts at once, on the other core, while this process validates: at 10,000
    # entries that saves the 1.5 s the validation takes. Its output is held back until the
    # catalogs are known to be valid, so that a bad catalog shows the validator's messages
    # alone.
    mkdocs = subprocess.Popen(
        # No --quiet: it hides the warnings that --strict counts, and the build would pass.
        [*_mkdocs(root, "build", "--strict"), "--site-dir", str(staging)],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    held = _Relay(mkdocs.stdout)
    _catalog, problems = validate.load(root)
    if problems:
        mkdocs.kill()
        mkdocs.wait()
        shutil.rmtree(staging, ignore_errors=True)
        for problem in problems:
            print(problem)
        print(f"{len(problems)} problem(s) found; site not built", file=sys.stderr)
        return 1
    held.release()
    returncode = mkdocs.wait()
    held.join()
    if returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        print("mkdocs build --strict failed; the previous site is unchanged", file=sys.stderr)
        return 1
    swap_into_place(staging, target)
    print(
        f"built {target.relative_to(Path.cwd()) if target.is_relative_to(Path.cwd()) else target}"
    )
    return 0


def serve(root: Path, dev_addr: str) -> int:
    _catalog, problems = validate.load(root)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    env = {**os.environ, **QUIET}
    command = [*_mkdocs(root, "serve", "--strict", "--dev-addr", dev_addr)]
    try:
        return subprocess.run(command, cwd=root, env=env, check=False).returncode
    except KeyboardInterrupt:
        return 0
