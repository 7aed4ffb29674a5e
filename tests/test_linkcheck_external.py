"""The external link check against a local HTTP server on 127.0.0.1 that answers like the
web does on a bad day: 200, 301 then 200, 404, 410, 429 with Retry-After, 500, 403, a slow
answer, a dropped connection and a redirect loop. Nothing here leaves 127.0.0.1."""

from __future__ import annotations

import datetime as dt
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
import yaml

from mlsys_kb import cli
from mlsys_kb.linkcheck import external, report

T0 = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)
DAY = dt.timedelta(days=1)


class Web(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Each server gets its own copies (WebServer); these say what they hold.
    requests: ClassVar[list[tuple[str, str]]] = []  # (path, User-Agent)
    lock = threading.Lock()
    active: ClassVar[dict[str, int]] = {"now": 0, "most": 0}
    once: ClassVar[set[str]] = set()

    def _answer(self, code: int, headers: dict[str, str] | None = None) -> None:
        body = b"<html><body>hello</body></html>"
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        with self.lock:
            self.requests.append((self.path, self.headers.get("User-Agent", "")))
        self._route(self.path.split("?")[0])

    def _busy(self, seconds: float) -> None:
        # Counted only while the answer is pending: once its body is sent the client may
        # start the next request before this thread would have counted itself out.
        with self.lock:
            self.active["now"] += 1
            self.active["most"] = max(self.active["most"], self.active["now"])
        try:
            time.sleep(seconds)
        finally:
            with self.lock:
                self.active["now"] -= 1

    def _route(self, path: str) -> None:
        if path.startswith("/ok") or path.startswith("/doi/") or path.startswith("/abs/"):
            self._busy(0.05)  # long enough for requests to overlap
            self._answer(200)
        elif path == "/moved":
            self._answer(301, {"Location": "/ok-target"})
        elif path == "/gone404":
            self._answer(404)
        elif path == "/gone410":
            self._answer(410)
        elif path == "/busy":
            self._answer(429, {"Retry-After": "3600"})
        elif path == "/busy-once":
            with self.lock:
                first = path not in self.once
                self.once.add(path)
            self._answer(429, {"Retry-After": "0"}) if first else self._answer(200)
        elif path == "/busy-dated":
            # An HTTP date in the past with the "-0000" zone, which parses to a naive time.
            with self.lock:
                first = path not in self.once
                self.once.add(path)
            dated = {"Retry-After": "Wed, 21 Oct 2015 07:28:00 -0000"}
            self._answer(429, dated) if first else self._answer(200)
        elif path == "/error":
            self._answer(500)
        elif path == "/forbidden":
            self._answer(403)
        elif path == "/to-walled":
            # A DOI-like redirect to a host that walls off bots.
            port = self.server.server_address[1]
            self._answer(302, {"Location": f"http://localhost:{port}/forbidden"})
        elif path == "/slow":
            time.sleep(2)
            self._answer(200)
        elif path == "/drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif path == "/loop":
            self._answer(302, {"Location": "/loop"})
        elif path == "/flaky":
            self._answer(500 if self.server.flaky_down else 200)  # type: ignore[attr-defined]
        else:
            self._answer(404)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that timed out has gone: writing to it fails, as it should


class WebServer:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        handler = type(
            "Handler",
            (Web,),
            {"requests": self.requests, "active": {"now": 0, "most": 0}, "once": set()},
        )
        self.httpd = _Quiet(("127.0.0.1", 0), handler)
        self.httpd.flaky_down = True  # type: ignore[attr-defined]
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.handler = handler
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def hits(self, path: str) -> int:
        return sum(1 for p, _ in self.requests if p == path)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def web() -> Iterator[WebServer]:
    server = WebServer()
    yield server
    server.close()


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_project(root: Path, urls: dict[str, str], extra: dict[str, object] | None = None) -> Path:
    """Catalogs whose resources point at ``urls`` (id -> URL), and one paper and one issue
    with derived links."""
    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    catalogs: dict[str, list[dict[str, object]]] = {
        "topics": [{"id": "t", "title": "T", "description": "A topic."}],
        "venues": [{"id": "v", "name": "V", "title": "Venue", "kind": "conference"}],
        "tags": [],
        "decks": [],
        "papers": [],
        "issues": [],
        "resources": [
            {
                "id": ident,
                "name": ident,
                "kind": "site",
                "url": url,
                "description": "A test URL.",
                "topics": ["t"],
            }
            for ident, url in urls.items()
        ],
    }
    for kind, entries in (extra or {}).items():
        catalogs[kind] = entries  # type: ignore[assignment]
    for kind, entries in catalogs.items():
        (data / f"{kind}.yaml").write_text(yaml.safe_dump(entries, sort_keys=False))
    return root


PATHS = {
    "ok": "/ok",
    "moved": "/moved",
    "gone404": "/gone404",
    "gone410": "/gone410",
    "busy": "/busy",
    "busy-once": "/busy-once",
    "busy-dated": "/busy-dated",
    "error": "/error",
    "forbidden": "/forbidden",
    "walled": "/to-walled",
    "slow": "/slow",
    "drop": "/drop",
    "loop": "/loop",
}


@pytest.fixture
def config(web: WebServer) -> external.Config:
    return external.Config(
        timeout=0.5,
        canaries=(web.url + "/ok-canary",),
        doi_base=web.url + "/doi/",
        arxiv_base=web.url + "/abs/",
        github_base=web.url + "/gh/",
    )


@pytest.fixture
def project(tmp_path: Path, web: WebServer) -> Path:
    root = write_project(tmp_path, {ident: web.url + path for ident, path in PATHS.items()})
    (root / "data" / "link-allowlist.yaml").write_text(
        "- host: localhost\n  statuses: [403]\n  why: tests\n"
    )
    return root


def verdicts(result: external.ExternalReport, web: WebServer) -> dict[str, tuple[str, str]]:
    path_to_id = {web.url + path: ident for ident, path in PATHS.items()}
    return {
        path_to_id[f.url]: (f.record.verdict, f.record.kind)
        for f in result.findings
        if f.url in path_to_id
    }


def test_first_run_classifies_every_answer(
    project: Path, web: WebServer, config: external.Config, tmp_path: Path
) -> None:
    result = external.check_external(project, tmp_path / "cache.json", config=config, now=T0)
    assert result.network == "up"
    assert verdicts(result, web) == {
        "ok": ("ok", "ok"),
        "moved": ("ok", "ok"),
        "gone404": ("pending", "gone"),
        "gone410": ("pending", "gone"),
        "busy": ("pending", "transient"),
        "busy-once": ("ok", "ok"),  # Retry-After: 0 honoured once
        "busy-dated": ("ok", "ok"),  # a date already past: retried at once
        "error": ("pending", "transient"),
        "forbidden": ("pending", "forbidden"),  # 127.0.0.1 is not on the allowlist
        "walled": ("allowed", "forbidden"),  # redirected to a listed host
        "slow": ("pending", "transient"),
        "drop": ("pending", "transient"),
        "loop": ("pending", "client"),
    }
    assert result.ok  # one failure proves nothing yet
    by_url = {f.url: f.record for f in result.findings}
    assert by_url[web.url + "/moved"].final_url == web.url + "/ok-target"
    assert "Retry-After: 3600" in by_url[web.url + "/busy"].detail
    assert by_url[web.url + "/slow"].detail == "timed out"
    assert "dropped" in by_url[web.url + "/drop"].detail


def test_404_is_broken_when_two_runs_agree_and_transient_after_three(
    project: Path, web: WebServer, config: external.Config, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.json"
    external.check_external(project, cache, config=config, now=T0)
    second = external.check_external(project, cache, config=config, now=T0 + DAY)
    v = verdicts(second, web)
    assert v["gone404"] == ("broken", "gone") and v["gone410"] == ("broken", "gone")
    assert v["forbidden"][0] == "broken"
    assert v["error"][0] == v["busy"][0] == v["slow"][0] == v["drop"][0] == "pending"
    assert not second.ok
    third = external.check_external(project, cache, config=config, now=T0 + 2 * DAY)
    v = verdicts(third, web)
    assert v["error"][0] == v["busy"][0] == v["slow"][0] == v["drop"][0] == "failing"
    record = {f.url: f.record for f in third.findings}[web.url + "/error"]
    assert record.failures == 3
    assert record.first_failed == "2026-11-01T12:00:00Z"


def test_transient_failures_spanning_days_fail_sooner(
    project: Path, web: WebServer, config: external.Config, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.json"
    external.check_external(project, cache, config=config, now=T0)
    later = external.check_external(project, cache, config=config, now=T0 + 8 * DAY)
    assert verdicts(later, web)["error"] == ("failing", "transient")


def test_good_urls_wait_for_their_time_to_live(
    project: Path, web: WebServer, config: external.Config, tmp_path: Path
) -> None:
    cache = tmp_path / "cache.json"
    external.check_external(project, cache, config=config, now=T0)
    assert web.hits("/ok") == 1 and web.hits("/gone404") == 1
    soon = external.check_external(project, cache, config=config, now=T0 + DAY)
    assert web.hits("/ok") == 1  # fresh in the cache
    assert web.hits("/gone404") == 2  # failures are checked every run
    assert {f.url: f.checked_now for f in soon.findings}[web.url + "/ok"] is False
    external.check_external(project, cache, config=config, now=T0 + 15 * DAY)
    assert web.hits("/ok") == 2


def test_a_url_that_recovers_starts_afresh(
    tmp_path: Path, web: WebServer, config: external.Config
) -> None:
    root = write_project(tmp_path, {"flaky": web.url + "/flaky"})
    cache = tmp_path / "cache.json"
    for day in range(2):
        external.check_external(root, cache, config=config, now=T0 + day * DAY)
    web.httpd.flaky_down = False  # type: ignore[attr-defined]
    result = external.check_external(root, cache, config=config, now=T0 + 2 * DAY)
    record = result.findings[0].record
    assert (record.verdict, record.failures, record.first_failed) == ("ok", 0, None)


def test_an_unreachable_network_is_not_rot(tmp_path: Path, web: WebServer) -> None:
    dead = f"http://127.0.0.1:{closed_port()}"
    root = write_project(tmp_path, {"a": dead + "/a", "b": dead + "/b"})
    cache = tmp_path / "cache.json"
    config = external.Config(timeout=0.5, canaries=(dead + "/canary",))
    result = external.check_external(root, cache, config=config, now=T0)
    assert result.network == "unreachable"
    assert not cache.exists()  # nothing learned, nothing written
    assert report.external_lines(result) == []
    assert "network is unreachable" in report.external_markdown(result)
    # The same dead URLs while a canary answers: the links are at fault, not the network.
    config.canaries = (web.url + "/ok-canary",)
    result = external.check_external(root, cache, config=config, now=T0)
    assert result.network == "up"
    assert {f.record.detail for f in result.findings} == {"connection refused"}
    assert {f.record.verdict for f in result.findings} == {"pending"}


def test_the_command_exits_3_when_offline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = f"http://127.0.0.1:{closed_port()}"
    root = write_project(tmp_path, {"a": dead + "/a"})
    status = cli.main(["--root", str(root), "check-links", "--external", "--canary", dead + "/c"])
    assert status == 3
    assert "network is unreachable" in capsys.readouterr().err


def test_the_command_writes_reports_and_fails_on_broken_links(
    project: Path, web: WebServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache, md, js = tmp_path / "c.json", tmp_path / "r.md", tmp_path / "r.json"
    args = ["--root", str(project), "check-links", "--external", "--cache", str(cache)]
    args += ["--canary", web.url + "/ok", "--report-md", str(md), "--report-json", str(js)]
    assert cli.main(args) == 0  # first failures are only pending
    capsys.readouterr()
    # The slow and dropped answers are transient; the command's own timeout is longer
    # than the slow answer, so it answers 200 here.
    assert cli.main(args) == 1
    out = capsys.readouterr().out
    assert "data/resources.yaml:" in out and f"gone404: url: broken: {web.url}/gone404" in out
    text = md.read_text()
    assert "## Broken (4)" in text and f"{web.url}/gone410" in text
    assert "`data/resources.yaml:" in text
    data = json.loads(js.read_text())
    assert data["network"] == "up"
    gone = next(link for link in data["links"] if link["url"] == web.url + "/gone404")
    assert gone["verdict"] == "broken" and gone["sources"][0]["field"] == "url"
    assert json.loads(cache.read_text())["version"] == external.CACHE_VERSION


def test_requests_name_the_project_and_spare_each_host(
    tmp_path: Path, web: WebServer, config: external.Config
) -> None:
    root = write_project(tmp_path, {f"page-{n}": f"{web.url}/ok-{n}" for n in range(12)})
    config.per_host = 2
    config.concurrency = 8
    result = external.check_external(root, tmp_path / "cache.json", config=config, now=T0)
    assert {f.record.verdict for f in result.findings} == {"ok"}
    assert {agent for _, agent in web.requests} == {external.USER_AGENT}
    assert "mlsys-kb" in external.USER_AGENT
    assert web.handler.active["most"] == 2


def test_derived_links_and_their_sources(
    tmp_path: Path, web: WebServer, config: external.Config
) -> None:
    paper = {
        "id": "doe2020paper",
        "title": "A paper",
        "authors": ["Jane Doe"],
        "year": 2020,
        "venue": "v",
        "doi": "10.1145/3341301.3359646",
        "arxiv": "2006.02464",
        "topics": ["t"],
    }
    issue = {
        "id": "repo-12",
        "repo": "owner/repo",
        "number": 12,
        "title": "A bug",
        "state": "open",
        "symptom": "It breaks.",
        "topics": ["t"],
    }
    root = write_project(tmp_path, {}, {"papers": [paper], "issues": [issue]})
    urls = external.catalog_urls(external.validate.load(root)[0], config)
    assert set(urls) == {
        web.url + "/doi/10.1145/3341301.3359646",
        web.url + "/abs/2006.02464",
        web.url + "/gh/owner/repo/issues/12",
    }
    source = urls[web.url + "/doi/10.1145/3341301.3359646"][0]
    assert (source.path, source.entry, source.field) == ("data/papers.yaml", "doe2020paper", "doi")
    text = (root / "data" / "papers.yaml").read_text().splitlines()
    assert "10.1145/3341301.3359646" in text[source.line - 1]


def test_cache_is_kept_across_runs_and_pruned(
    tmp_path: Path, web: WebServer, config: external.Config
) -> None:
    cache = tmp_path / "cache.json"
    root = write_project(tmp_path, {"a": web.url + "/ok", "b": web.url + "/gone404"})
    external.check_external(root, cache, config=config, now=T0)
    stored = json.loads(cache.read_text())["urls"]
    assert stored[web.url + "/gone404"]["failures"] == 1
    assert stored[web.url + "/ok"]["checked"] == "2026-11-01T12:00:00Z"
    write_project(tmp_path, {"a": web.url + "/ok"})
    external.check_external(root, cache, config=config, now=T0 + DAY)
    assert list(json.loads(cache.read_text())["urls"]) == [web.url + "/ok"]


def test_a_damaged_cache_or_allowlist_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_project(tmp_path, {})
    cache = tmp_path / "cache.json"
    cache.write_text("{not json")
    assert cli.main(["--root", str(root), "check-links", "--external", "--cache", str(cache)]) == 2
    assert "cannot read the link cache" in capsys.readouterr().err
    cache.unlink()
    (root / "data" / "link-allowlist.yaml").write_text("- host: a\n  why: x: y\n")
    assert cli.main(["--root", str(root), "check-links", "--external", "--cache", str(cache)]) == 2
    assert capsys.readouterr().err.startswith("data/link-allowlist.yaml:2:")


def test_the_shipped_allowlist_loads() -> None:
    root = Path(__file__).resolve().parent.parent
    allowlist = external.Allowlist.load(root / external.ALLOWLIST)
    assert "dl.acm.org" in allowlist.hosts
    assert allowlist.excuses(403, "https://doi.org/10.1145/1", "https://dl.acm.org/doi/10.1145/1")
    assert not allowlist.excuses(404, "https://dl.acm.org/x")
    assert not allowlist.excuses(403, "https://example.org/")


def test_catalogs_that_do_not_load_are_not_checked_in_part(
    tmp_path: Path, web: WebServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # A syntax error leaves a catalog's URLs unread: a run over the rest would pass
    # having looked at less than the catalogs hold.
    root = write_project(tmp_path, {"a": web.url + "/ok"})
    (root / "data" / "papers.yaml").write_text("- id: x\n  title: [unclosed\n")
    cache = tmp_path / "cache.json"
    command = ["--root", str(root), "check-links", "--external", "--cache", str(cache)]
    assert cli.main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith("data/papers.yaml:")
    assert "check-links did not run" in err
    assert not cache.exists()
