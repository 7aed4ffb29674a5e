"""The HTTP client and the three metadata sources, against a real HTTP server on 127.0.0.1
serving recorded real responses (tests/fixtures/recorded/) and the errors services send.

``RecordedServer`` and the ``server`` fixture are shared with the add and refresh tests.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from mlsys_kb.add import naming, sources
from mlsys_kb.add.fetch import Client, FetchError, OfflineError
from mlsys_kb.model import Entry

RECORDED = Path(__file__).parent / "fixtures" / "recorded"
ARXIV_ALLTOALL = RECORDED / "arxiv-2309.13541.atom.xml"
ARXIV_NONASCII = RECORDED / "arxiv-2401.11741.atom.xml"
CROSSREF_PLOS = RECORDED / "crossref-work-10.1371-journal.pone.0033693.json"
GITHUB_ISSUE = RECORDED / "github-issue-PyGithub-PyGithub-28.json"


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Seen:
    path: str
    headers: dict[str, str]


class RecordedServer:
    """An HTTP server on 127.0.0.1 answering each path with a script of replies.

    ``route(path, reply, ...)`` plays the replies in order for ``path`` (with or without
    its query), then repeats the last; anything else gets 404.
    """

    def __init__(self) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                with server.lock:
                    server.seen.append(Seen(self.path, dict(self.headers.items())))
                    script = server.routes.get(self.path) or server.routes.get(
                        self.path.split("?", 1)[0]
                    )
                    reply = (script.pop(0) if len(script) > 1 else script[0]) if script else None
                reply = reply or Reply(404, b'{"message": "Not Found"}')
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except OSError:
                    pass  # the client gave up waiting (timeout tests)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def route(self, path: str, *replies: Reply) -> None:
        self.routes[path] = list(replies)

    def hits(self, path: str) -> int:
        return sum(1 for seen in self.seen if seen.path.split("?", 1)[0] == path)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[RecordedServer]:
    recorded = RecordedServer()
    yield recorded
    recorded.close()


def recorded(path: Path, status: int = 200, **headers: str) -> Reply:
    kind = "application/atom+xml" if path.suffix == ".xml" else "application/json"
    return Reply(status, path.read_bytes(), {"Content-Type": kind, **headers})


def refused_url() -> str:
    """A URL on 127.0.0.1 where nothing listens: connecting is refused, as when offline."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def fast_client(**options: float) -> Client:
    values = {"timeout": 5.0, "retries": 2, "backoff": 0.01, **options}
    return Client(
        timeout=values["timeout"], retries=int(values["retries"]), backoff=values["backoff"]
    )


# --- the client -------------------------------------------------------------------------


def test_arxiv_record_is_read_and_the_request_names_the_project(server: RecordedServer):
    server.route("/api/query", recorded(ARXIV_ALLTOALL))
    paper = sources.fetch_arxiv(fast_client(), f"{server.url}/api/query", "2309.13541")
    assert paper.title == (
        "Efficient All-to-All Collective Communication Schedules for Direct-Connect Topologies"
    )
    assert paper.authors == [
        "Prithwish Basu",
        "Liangyu Zhao",
        "Jason Fantl",
        "Siddharth Pal",
        "Arvind Krishnamurthy",
        "Joud Khoury",
    ]
    assert (paper.year, paper.arxiv, paper.doi) == (2023, "2309.13541", None)
    request = server.seen[0]
    assert request.path == "/api/query?id_list=2309.13541&max_results=1"
    assert request.headers["User-Agent"].startswith("mlsys-kb/")
    assert "knowledge base" in request.headers["User-Agent"]


def test_not_found_is_a_clear_error_not_a_retry(server: RecordedServer):
    server.route("/works/10.1145/0000000.0000000", Reply(404, b"Resource not found."))
    with pytest.raises(FetchError, match=r"Crossref has no record of DOI 10\.1145/0000000"):
        sources.fetch_crossref(fast_client(), server.url, "10.1145/0000000.0000000")
    assert server.hits("/works/10.1145/0000000.0000000") == 1


def test_429_waits_as_long_as_retry_after_says(server: RecordedServer):
    path = "/works/10.1371/journal.pone.0033693"
    server.route(path, Reply(429, b"slow down", {"Retry-After": "1"}), recorded(CROSSREF_PLOS))
    client = fast_client()
    started = time.monotonic()
    paper = sources.fetch_crossref(client, server.url, "10.1371/journal.pone.0033693")
    assert time.monotonic() - started >= 1.0
    assert client.waits == [1.0]
    assert paper.year == 2012
    assert server.hits(path) == 2


def test_a_retry_after_too_long_to_wait_is_reported(server: RecordedServer):
    server.route("/api/query", Reply(429, b"", {"Retry-After": "3600"}))
    with pytest.raises(FetchError, match="asks to wait 3600 s"):
        sources.fetch_arxiv(fast_client(), f"{server.url}/api/query", "2309.13541")


def test_server_errors_are_retried_with_backoff_then_reported(server: RecordedServer):
    server.route("/api/query", Reply(503, b"busy"))
    client = fast_client(retries=2, backoff=0.01)
    with pytest.raises(FetchError, match="HTTP 503 Service Unavailable 3 times"):
        sources.fetch_arxiv(client, f"{server.url}/api/query", "2309.13541")
    assert server.hits("/api/query") == 3
    assert client.waits == [0.01, 0.02]


def test_a_server_error_then_success_is_success(server: RecordedServer):
    server.route("/api/query", Reply(502, b"bad gateway"), recorded(ARXIV_ALLTOALL))
    paper = sources.fetch_arxiv(fast_client(), f"{server.url}/api/query", "2309.13541")
    assert paper.authors[0] == "Prithwish Basu"


def test_a_timeout_is_retried_then_reported(server: RecordedServer):
    server.route("/api/query", Reply(200, ARXIV_ALLTOALL.read_bytes(), delay=1.0))
    client = fast_client(timeout=0.2, retries=1)
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"did not answer within 0\.2 s \(2 attempts\)"):
        sources.fetch_arxiv(client, f"{server.url}/api/query", "2309.13541")
    assert time.monotonic() - started < 3
    assert server.hits("/api/query") == 2


def test_malformed_xml_is_reported(server: RecordedServer):
    body = ARXIV_ALLTOALL.read_bytes()[:700]  # the real feed, cut off mid-element
    server.route("/api/query", Reply(200, body))
    with pytest.raises(FetchError, match="the arXiv API sent malformed XML"):
        sources.fetch_arxiv(fast_client(), f"{server.url}/api/query", "2309.13541")


def test_malformed_json_is_reported(server: RecordedServer):
    body = CROSSREF_PLOS.read_bytes()[:500]
    server.route("/works/10.1371/journal.pone.0033693", Reply(200, body))
    with pytest.raises(FetchError, match="Crossref sent malformed JSON"):
        sources.fetch_crossref(fast_client(), server.url, "10.1371/journal.pone.0033693")


def test_an_unreachable_host_fails_at_once_as_offline():
    client = fast_client(retries=3, backoff=5)
    started = time.monotonic()
    with pytest.raises(OfflineError, match=r"cannot reach 127\.0\.0\.1:\d+ \(connection refused\)"):
        sources.fetch_arxiv(client, f"{refused_url()}/api/query", "2309.13541")
    assert time.monotonic() - started < 2  # no backoff for a refused connection
    assert client.waits == []


def test_xml_with_a_doctype_is_refused(server: RecordedServer):
    bomb = b'<?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "aaaa">]><feed>&a;</feed>'
    server.route("/api/query", Reply(200, bomb))
    with pytest.raises(FetchError, match="DOCTYPE"):
        sources.fetch_arxiv(fast_client(), f"{server.url}/api/query", "2309.13541")


# --- the sources' records ---------------------------------------------------------------


def test_arxiv_error_entry_and_missing_paper_are_reported():
    error = (
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry>'
        b"<id>http://arxiv.org/api/errors#incorrect_id_format_for_1</id>"
        b"<title>Error</title><summary>incorrect id format for 1</summary></entry></feed>"
    )
    with pytest.raises(FetchError, match="arXiv refused the identifier 1: incorrect id format"):
        sources.parse_arxiv(error, "1")
    feed = ARXIV_ALLTOALL.read_bytes()
    with pytest.raises(FetchError, match=r"arXiv has no paper 2010\.05337"):
        sources.parse_arxiv(feed, "2010.05337")


def test_arxiv_names_with_accents_stay_as_they_are():
    paper = sources.parse_arxiv(ARXIV_NONASCII.read_bytes(), "2401.11741")
    assert paper.authors == ["Ilinka Dimitrova", "Vítor H. Fernandes", "Jörg Koppitz"]
    assert paper.title == "On partial endomorphisms of a star graph"


def test_crossref_record_gives_title_authors_year_and_venue_hints():
    paper = sources.parse_crossref(CROSSREF_PLOS.read_bytes(), "10.1371/journal.pone.0033693")
    assert paper.title == (
        "Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation of Microglia "
        "in the Basal Ganglia of Mice"
    )
    assert paper.authors[:2] == ["Shankar Sadasivan", "Brooks B. Pond"]
    assert paper.family_names[0] == "Sadasivan"
    assert len(paper.authors) == 6
    assert paper.year == 2012
    assert paper.doi == "10.1371/journal.pone.0033693"
    assert "PLoS ONE" in paper.venue_hints
    assert paper.kind == "journal"


def test_github_issue_record_and_token(server: RecordedServer, monkeypatch):
    server.route("/repos/PyGithub/PyGithub/issues/28", recorded(GITHUB_ISSUE))
    monkeypatch.setenv("GITHUB_TOKEN", "test-token-123")
    issue = sources.fetch_issue(fast_client(), server.url, "PyGithub", "PyGithub", 28)
    assert (issue.repo, issue.number, issue.state) == ("PyGithub/PyGithub", 28, "closed")
    assert issue.title == "Issue created by PyGithub"
    headers = server.seen[0].headers
    assert headers["Authorization"] == "Bearer test-token-123"
    assert headers["Accept"] == "application/vnd.github+json"


def test_github_without_token_sends_no_authorization(server: RecordedServer, monkeypatch):
    server.route("/repos/PyGithub/PyGithub/issues/28", recorded(GITHUB_ISSUE))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    sources.fetch_issue(fast_client(), server.url, "PyGithub", "PyGithub", 28)
    assert "Authorization" not in server.seen[0].headers


def test_github_missing_issue_and_rate_limit(server: RecordedServer):
    with pytest.raises(FetchError, match="GitHub has no issue PyGithub/PyGithub#99999"):
        sources.fetch_issue(fast_client(), server.url, "PyGithub", "PyGithub", 99999)
    limited = Reply(403, b'{"message": "API rate limit exceeded"}', {"X-RateLimit-Remaining": "0"})
    server.route("/repos/pytorch/pytorch/issues/1", limited)
    with pytest.raises(FetchError, match=r"rate limit or permissions; set GITHUB_TOKEN"):
        sources.fetch_issue(fast_client(), server.url, "pytorch", "pytorch", 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2010.05337", "2010.05337"),
        ("arXiv:2010.05337v3", "2010.05337"),
        ("https://arxiv.org/abs/2309.13541v2", "2309.13541"),
        ("https://arxiv.org/pdf/2309.13541.pdf", "2309.13541"),
        ("cs/0112017", "cs/0112017"),
    ],
)
def test_arxiv_identifiers_are_normalised(text: str, expected: str):
    assert sources.arxiv_id(text) == expected


def test_bad_identifiers_are_refused():
    with pytest.raises(FetchError, match="not an arXiv identifier"):
        sources.arxiv_id("10.1145/1234")
    with pytest.raises(FetchError, match="not a DOI"):
        sources.doi_of("2010.05337")
    with pytest.raises(FetchError, match="not a GitHub issue URL"):
        sources.issue_url("https://gitlab.com/a/b/issues/1")
    assert sources.doi_of("https://doi.org/10.14778/3415478.3415530") == (
        "10.14778/3415478.3415530"
    )
    assert sources.issue_url("https://github.com/pytorch/pytorch/issues/90613") == (
        "pytorch",
        "pytorch",
        90613,
    )


# --- names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "year", "title", "key"),
    [
        ("Zheng", 2020, "DistDGL: Distributed Graph Neural Network Training", "zheng2020distdgl"),
        ("Li", 2023, "Graphix-T5: Mixing Pre-trained Transformers", "li2023graphixt5"),
        ("Jia", 2019, "Beyond Data and Model Parallelism", "jia2019beyond"),
        ("Gujarati", 2020, "Serving DNNs like Clockwork", "gujarati2020serving"),
        ("Lidbury", 2015, "Many-Core Compiler Fuzzing", "lidbury2015manycore"),
        ("Basu", 2023, "Efficient All-to-All Collective Communication", "basu2023efficient"),
        ("Kupče", 2021, "Parallel nuclear magnetic resonance spectroscopy", "kupce2021parallel"),
        ("van der Berg", 2020, "On the Design of a System", "vanderberg2020design"),
        ("Müller", 2019, "A Study", "muller2019study"),
    ],
)
def test_citation_keys(family: str, year: int, title: str, key: str):
    assert naming.citation_key(family, year, title) == key


def test_a_taken_key_gets_a_letter():
    assert naming.unused("zheng2020distdgl", {"zheng2020distdgl"}) == "zheng2020distdglb"
    assert naming.unused("a2020x", {"a2020x", "a2020xb"}) == "a2020xc"


def _venue(venue_id: str, name: str, title: str) -> Entry:
    return Entry(
        "venues", "data/venues.yaml", (1, 1), {"id": venue_id, "name": name, "title": title}
    )


PPOPP = "ACM SIGPLAN Symposium on Principles and Practice of Parallel Programming"
OSDI = "USENIX Symposium on Operating Systems Design and Implementation"
SC = "International Conference for High Performance Computing, Networking, Storage and Analysis"
VENUES = [
    _venue("ppopp", "PPoPP", PPOPP),
    _venue("vldb", "PVLDB", "Proceedings of the VLDB Endowment"),
    _venue("osdi", "OSDI", OSDI),
    _venue("sc", "SC", SC),
]


@pytest.mark.parametrize(
    ("hints", "expected"),
    [
        (
            [
                "Proceedings of the 26th ACM SIGPLAN Symposium on Principles and Practice "
                "of Parallel Programming"
            ],
            ["ppopp"],
        ),
        (["Proceedings of the VLDB Endowment", "Proc. VLDB Endow."], ["vldb"]),
        (["PPoPP '21: 26th ACM SIGPLAN Symposium"], ["ppopp"]),
        (["PLoS ONE"], []),
        (["Scientific Computing"], []),
    ],
)
def test_venues_are_matched_by_title_or_short_name(hints: list[str], expected: list[str]):
    assert naming.match_venues(VENUES, hints) == expected


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # in the past: now
        ("Wed, 21 Oct 2015 07:28:00 -0000", 0.0),  # parsed without a zone: taken as UTC
        ("Thu, 22 Oct 2015 07:28:00 -0000", 86400.0),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_reads_seconds_and_http_dates(value: str | None, seconds: float | None):
    from datetime import UTC, datetime

    from mlsys_kb.retry_after import retry_after

    assert retry_after(value, now=datetime(2015, 10, 21, 7, 28, tzinfo=UTC)) == seconds
