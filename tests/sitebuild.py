"""Helpers for tests that need a built site: build with the real MkDocs, serve on 127.0.0.1."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_site(
    project: Path, site_dir: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real `mlsys-kb build` on a project directory (``env``: extra variables)."""
    command = [sys.executable, "-m", "mlsys_kb.cli", "--root", str(project), "build"]
    return subprocess.run(
        [*command, "--site-dir", str(site_dir)],
        capture_output=True,
        text=True,
        check=False,
        cwd=project,
        env={**os.environ, **(env or {})},
    )


class _Quiet(http.server.SimpleHTTPRequestHandler):
    base = "/"  # the path the site is served under, like the hosted site's

    def log_message(self, format: str, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.base):
            return str(Path(self.directory) / "not-under-the-base-path")
        return super().translate_path("/" + path[len(self.base) :])


def deploy_path(mkdocs_yml: Path = ROOT / "mkdocs.yml") -> str:
    """The path of site_url (``/mlsys-kb/``): where the hosted site lives. Read as MkDocs
    reads it: the value is an ``!ENV`` tag with a default."""
    from mkdocs.utils.yaml import yaml_load

    with mkdocs_yml.open("rb") as stream:
        site_url = (yaml_load(stream) or {}).get("site_url") or "/"
    path = urllib.parse.urlsplit(site_url).path
    return path.rstrip("/") + "/"


@contextmanager
def serve(directory: Path, base: str = "/") -> Iterator[str]:
    """Serve a directory on 127.0.0.1 on a free port, under the path ``base``; yields the
    site's URL. Anything outside ``base`` is not found, as on the hosted site."""
    handler_class = type("Handler", (_Quiet,), {"base": base})
    handler = functools.partial(handler_class, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{base}"
    finally:
        server.shutdown()
        server.server_close()


def copy_project(target: Path) -> Path:
    """A copy of the project's site sources (mkdocs.yml, docs, data, slides) to build in, as
    a fresh clone has them: a folder git does not hold (an empty slides/) is not made."""
    copy_tracked(("data", "docs", "slides", "schemas"), target)
    shutil.copy(ROOT / "mkdocs.yml", target / "mkdocs.yml")
    return target


def copy_tracked(names: tuple[str, ...], target: Path) -> None:
    """Copy the folders of the repository that a fresh clone has, and only those."""
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        if _tracked(name):
            shutil.copytree(ROOT / name, target / name)


@functools.cache
def _tracked(name: str) -> bool:
    """Whether git holds any file under `name` (what a fresh clone would have)."""
    listed = subprocess.run(
        ["git", "ls-files", "--", name], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:  # not a git checkout (a source archive): what is on disk
        return (ROOT / name).exists()
    return bool(listed.stdout.strip())
