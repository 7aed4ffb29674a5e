"""A static file server on 127.0.0.1 that behaves like the host the site is deployed to.

It serves a built site the way GitHub Pages does for a MkDocs site: under the path of the
site's URL (``/mlsys-kb/`` for a project site), a directory URL answers with its
``index.html``, a directory without one is 404 (never a listing), and a directory without
its trailing slash is redirected. Every answer carries a ``LinkChecker`` header: LinkChecker
waits between requests to one host unless the server sends it.

Beside the site it can serve extra pages held in memory (``extra``: the link check's
canary pages), under the same path, so that they are checked exactly as the site is.
"""

from __future__ import annotations

import io
import os
import posixpath
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HOST = "127.0.0.1"
_LOC = re.compile(rb"<loc>\s*([^<\s]+)\s*</loc>")


def base_path(site: Path) -> str:
    """The path the site is published under, from its sitemap (``/`` when it has none).

    MkDocs writes ``site_url`` into ``sitemap.xml`` and into the absolute links of
    ``404.html``; serving the site under the same path checks those links as they will work
    on the host, and catches a root-absolute link that only works on a developer's machine.
    """
    try:
        text = (site / "sitemap.xml").read_bytes()
    except OSError:
        return "/"
    paths = [urlsplit(loc.decode("utf-8", "replace")).path for loc in _LOC.findall(text)]
    if not paths:
        return "/"
    # Every page is under the home page: their common directory is the site's root.
    common = posixpath.commonpath(paths) if all(p.startswith("/") for p in paths) else "/"
    return common.rstrip("/") + "/"


class SiteHandler(SimpleHTTPRequestHandler):
    # Keep-alive: LinkChecker's requests session reuses one connection per thread. Without
    # TCP_NODELAY, Nagle's algorithm and delayed ACKs add 40 ms to every kept-alive answer.
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    prefix = "/"
    extra: dict[str, bytes] = {}  # noqa: RUF012 (set per server, in serve())

    def send_head(self) -> Any:
        if not self.path.startswith(self.prefix):
            self.send_error(404, "File not found")
            return None
        path = urlsplit(self.path).path[len(self.prefix) :]
        if path in self.extra:
            body = self.extra[path]
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()

    def translate_path(self, path: str) -> str:
        # Called by send_head only for paths under the prefix.
        return super().translate_path("/" + path[len(self.prefix) :])

    def end_headers(self) -> None:
        self.send_header("LinkChecker", "allowed")
        super().end_headers()

    def list_directory(self, path: str | os.PathLike[str]) -> None:  # type: ignore[override]
        # A listing would make a link to an unpublished directory look valid.
        self.send_error(404, "File not found")
        return None

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A checker that only needed the headers hangs up without reading the body.
        pass


@contextmanager
def serve(site: Path, prefix: str = "/", extra: dict[str, bytes] | None = None) -> Iterator[str]:
    """Serve ``site`` under ``prefix`` on a free port of 127.0.0.1; yields the site's URL.

    ``extra`` maps paths below the prefix (``canary/index.html``; a directory URL answers
    with its ``index.html``) to pages served from memory beside the site's files.
    """
    pages = dict(extra or {})
    for path in list(pages):
        if path.endswith("/index.html"):
            pages[path[: -len("index.html")]] = pages[path]
    attributes = {"prefix": prefix, "extra": pages}
    handler = partial(type("Handler", (SiteHandler,), attributes), directory=str(site))
    server = _Server((HOST, 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
