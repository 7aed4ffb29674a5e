"""Check the catalogs' external URLs, with a cache, and tell rot from a bad day.

The URLs come from the data, not from crawling the site: every URL field of every entry,
plus the links the site derives (DOI, arXiv, GitHub issue). One run checks the URLs that
are due: those that failed last time, and good ones whose time to live has passed. A
failure becomes a finding only when it persists:

* 404 and 410 (and other 4xx): ``broken`` once two runs in a row agree;
* timeouts, refused or dropped connections, 429 and 5xx: ``failing`` only after
  ``TRANSIENT_RUNS`` runs in a row or ``TRANSIENT_DAYS`` days of failing;
* 403 (or another listed status) from a host in ``data/link-allowlist.yaml``: ``allowed``.

When nothing answered at all and the canary URLs do not answer either, the network is
down: the run says so, leaves the cache as it was and exits with its own status.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import socket
import ssl
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import yaml

from .. import __version__, validate
from ..model import Catalog
from ..retry_after import retry_after
from ..schema import ENTRY_KINDS, KINDS, Type

USER_AGENT = (
    f"mlsys-kb-linkcheck/{__version__} (+https://github.com/mlsys-kb/mlsys-kb; "
    "checks the links of a curated reading list)"
)
ALLOWLIST = "data/link-allowlist.yaml"
DEFAULT_CACHE = ".cache/mlsys-kb/external-links.json"
CANARIES = ("https://github.com/", "https://doi.org/", "https://arxiv.org/")
TTL_DAYS = 14.0  # a good URL is checked again after this long
TRANSIENT_RUNS = 3  # consecutive transient failures before a URL is reported failing
TRANSIENT_DAYS = 7.0  # ... or this many days of failing, whichever comes first
CONFIRM_RUNS = 2  # consecutive 4xx answers before a URL is reported broken
TIMEOUT = 20.0  # seconds for one request
RETRY_AFTER_MAX = 10.0  # honour a 429's Retry-After once, if it asks for no longer
CONCURRENCY = 8  # requests at once
PER_HOST = 2  # requests at once to one host
CACHE_VERSION = 1

# What one request came to.
OK, GONE, CLIENT, FORBIDDEN, TRANSIENT, UNREACHED = (
    "ok",
    "gone",  # 404, 410
    "client",  # other 4xx, TLS certificate errors
    "forbidden",  # 403 (or a listed status) that the allowlist may excuse
    "transient",  # 429, 5xx, timeout, dropped connection
    "unreached",  # no answer at all: DNS, refused, unreachable
)
# What a URL is, after this run and the ones before.
VERDICTS = ("ok", "allowed", "pending", "broken", "failing")


class CheckError(Exception):
    """The check cannot run, or not over everything it claims; the message says why."""


class CacheError(CheckError):
    """The cache or the allowlist cannot be used; the message says where and why."""


class CatalogError(CheckError):
    """The catalogs have problems: some of their URLs could not be read to be checked."""


@dataclass(frozen=True, order=True)
class Source:
    """Where a URL comes from: ``path:line:column: entry field``."""

    path: str
    line: int
    column: int
    entry: str
    field: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.entry}: {self.field}"


@dataclass(frozen=True)
class Outcome:
    kind: str
    code: int | None
    detail: str
    final_url: str | None = None


@dataclass
class Record:
    """One URL in the cache: what it answered, when, and how long it has been failing."""

    url: str
    verdict: str = "ok"
    kind: str = OK  # the last outcome's kind
    code: int | None = None
    detail: str = ""
    checked: str | None = None  # ISO 8601, UTC
    failures: int = 0  # consecutive failing runs
    first_failed: str | None = None  # start of the current run of failures
    final_url: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Record:
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**known)


@dataclass
class Config:
    ttl_days: float = TTL_DAYS
    timeout: float = TIMEOUT
    concurrency: int = CONCURRENCY
    per_host: int = PER_HOST
    retry_after_max: float = RETRY_AFTER_MAX
    canaries: Sequence[str] = CANARIES
    user_agent: str = USER_AGENT
    # Where derived links point; tests point them at a local server.
    doi_base: str = "https://doi.org/"
    arxiv_base: str = "https://arxiv.org/abs/"
    github_base: str = "https://github.com/"


@dataclass
class Finding:
    url: str
    record: Record
    sources: list[Source]
    checked_now: bool


@dataclass
class ExternalReport:
    started: dt.datetime
    seconds: float = 0.0
    network: str = "up"  # "up" or "unreachable"
    findings: list[Finding] = field(default_factory=list)

    def by_verdict(self, verdict: str) -> list[Finding]:
        return [f for f in self.findings if f.record.verdict == verdict]

    @property
    def checked(self) -> int:
        return sum(1 for f in self.findings if f.checked_now)

    @property
    def ok(self) -> bool:
        return not (self.by_verdict("broken") or self.by_verdict("failing"))


# --- the URLs of the catalogs -----------------------------------------------------------------


def _url_fields() -> dict[str, list[str]]:
    return {
        kind: [f.name for f in KINDS[kind].fields if f.type is Type.URL] for kind in ENTRY_KINDS
    }


def catalog_urls(catalog: Catalog, config: Config | None = None) -> dict[str, list[Source]]:
    """Every external URL of the catalog and where it is written; derived links included."""
    config = config or Config()
    urls: dict[str, list[Source]] = {}

    def add(url: str, entry: Any, name: str) -> None:
        line, column = entry.mark_of(name)
        urls.setdefault(url, []).append(Source(entry.path, line, column, entry.id, name))

    for kind, names in _url_fields().items():
        for entry in catalog[kind]:
            for name in names:
                value = entry.get(name)
                if isinstance(value, str) and urlsplit(value).scheme.lower() in ("http", "https"):
                    add(value, entry, name)
            doi = entry.get("doi")
            if isinstance(doi, str) and doi:
                add(config.doi_base + quote(doi, safe="/:;()._-"), entry, "doi")
            arxiv = entry.get("arxiv")
            if isinstance(arxiv, str) and arxiv:
                add(config.arxiv_base + arxiv, entry, "arxiv")
            repo, number = entry.get("repo"), entry.get("number")
            if kind == "issues" and isinstance(repo, str) and isinstance(number, int):
                add(f"{config.github_base}{repo}/issues/{number}", entry, "repo, number")
    return urls


# --- the allowlist ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Allowlist:
    hosts: dict[str, frozenset[int]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path, label: str = ALLOWLIST) -> Allowlist:
        if not path.exists():
            return cls()
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark
            where = f"{label}:{mark.line + 1}:{mark.column + 1}" if mark else label
            raise CacheError(f"{where}: -: {error.problem}") from error
        except (OSError, yaml.YAMLError) as error:
            raise CacheError(f"{label}:1:1: -: cannot read the allowlist: {error}") from error
        hosts: dict[str, frozenset[int]] = {}
        for index, item in enumerate(data if isinstance(data, list) else [None]):
            host = item.get("host") if isinstance(item, dict) else None
            statuses = item.get("statuses", [403]) if isinstance(item, dict) else None
            if (
                not isinstance(host, str)
                or not isinstance(statuses, list)
                or not all(isinstance(s, int) and 400 <= s < 600 for s in statuses)
            ):
                raise CacheError(
                    f"{label}:1:1: #{index + 1}: each item needs a host and a list of "
                    "4xx/5xx statuses, e.g. {host: dl.acm.org, statuses: [403]}"
                )
            hosts[host.lower()] = frozenset(statuses)
        return cls(hosts)

    def excuses(self, code: int | None, *urls: str | None) -> bool:
        if code is None:
            return False
        for url in urls:
            host = (urlsplit(url).hostname or "") if url else ""
            for listed, statuses in self.hosts.items():
                if code in statuses and (host == listed or host.endswith("." + listed)):
                    return True
        return False

    def statuses(self) -> frozenset[int]:
        return frozenset().union(*self.hosts.values()) if self.hosts else frozenset()


# --- one request ------------------------------------------------------------------------------


class _Redirects(urllib.request.HTTPRedirectHandler):
    max_redirections = 10


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_Redirects())


def _classify_status(
    code: int, reason: str, final_url: str | None, forbidden: frozenset[int]
) -> Outcome:
    detail = f"{code} {reason}".strip()
    if code < 200 or 300 <= code < 400:
        # A redirect that was not followed to its end: a loop, or too many.
        return Outcome(CLIENT, code, f"{detail}: redirects do not end", final_url)
    if code in (404, 410):
        return Outcome(GONE, code, detail, final_url)
    if code in forbidden or code == 403:
        return Outcome(FORBIDDEN, code, detail, final_url)
    if code == 429 or code >= 500:
        return Outcome(TRANSIENT, code, detail, final_url)
    if code >= 400:
        return Outcome(CLIENT, code, detail, final_url)
    return Outcome(OK, code, detail, final_url)


def _classify_error(error: BaseException) -> Outcome:
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    if isinstance(reason, ssl.SSLCertVerificationError):
        return Outcome(CLIENT, None, f"TLS certificate not accepted: {reason.verify_message}")
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return Outcome(TRANSIENT, None, "timed out")
    if isinstance(reason, http.client.RemoteDisconnected):
        return Outcome(TRANSIENT, None, "connection dropped without an answer")
    if isinstance(reason, (ConnectionResetError, BrokenPipeError, http.client.IncompleteRead)):
        return Outcome(TRANSIENT, None, "connection dropped")
    if isinstance(reason, socket.gaierror):
        return Outcome(UNREACHED, None, f"host not found ({reason.strerror or reason})")
    if isinstance(reason, ConnectionRefusedError):
        return Outcome(UNREACHED, None, "connection refused")
    if isinstance(reason, OSError):
        return Outcome(UNREACHED, None, reason.strerror or str(reason) or type(reason).__name__)
    if isinstance(reason, http.client.HTTPException):
        return Outcome(TRANSIENT, None, f"bad answer: {type(reason).__name__}")
    return Outcome(TRANSIENT, None, str(reason) or type(reason).__name__)


def fetch(url: str, config: Config, forbidden: frozenset[int] = frozenset()) -> Outcome:
    """GET ``url`` (headers only; redirects followed) and say what it came to."""
    opener = _opener()
    for attempt in range(2):
        request = urllib.request.Request(
            url,
            headers={
                "User-Agent": config.user_agent,
                "Accept": "text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.8",
            },
        )
        try:
            with opener.open(request, timeout=config.timeout) as response:
                return _classify_status(response.status, response.reason, response.url, forbidden)
        except urllib.error.HTTPError as error:
            final_url = getattr(error, "filename", None) or url
            try:
                wait = retry_after(error.headers.get("Retry-After")) if error.headers else None
                outcome = _classify_status(error.code, str(error.reason), final_url, forbidden)
            finally:
                error.close()
            if error.code == 429 and wait is not None:
                outcome = Outcome(
                    TRANSIENT, 429, f"429 Too Many Requests (Retry-After: {wait:g} s)", final_url
                )
                if attempt == 0 and wait <= config.retry_after_max:
                    time.sleep(wait)
                    continue
            return outcome
        except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as error:
            if isinstance(error, ValueError):
                return Outcome(CLIENT, None, f"not a URL we can fetch: {error}")
            return _classify_error(error)
    raise AssertionError("unreachable")


# --- the cache --------------------------------------------------------------------------------


def load_cache(path: Path) -> dict[str, Record]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CacheError(f"{path}: cannot read the link cache: {error}") from error
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        raise CacheError(f"{path}: not a link cache of version {CACHE_VERSION}; delete it")
    return {url: Record.from_dict({**item, "url": url}) for url, item in data["urls"].items()}


def save_cache(path: Path, records: Iterable[Record]) -> None:
    """Write the cache atomically: a reader sees the old file or the new one."""
    urls = {}
    for record in sorted(records, key=lambda r: r.url):
        item = asdict(record)
        del item["url"]
        urls[record.url] = item
    text = json.dumps({"version": CACHE_VERSION, "urls": urls}, indent=1, sort_keys=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".links-", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# --- deciding ---------------------------------------------------------------------------------


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _parse(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def is_due(record: Record | None, now: dt.datetime, ttl_days: float) -> bool:
    """Failures are checked on every run; good URLs once their time to live has passed."""
    if record is None or record.verdict not in ("ok", "allowed"):
        return True
    checked = _parse(record.checked)
    return checked is None or now - checked >= dt.timedelta(days=ttl_days)


def decide(
    previous: Record | None, outcome: Outcome, url: str, now: dt.datetime, allowlist: Allowlist
) -> Record:
    """The URL's record after this run's ``outcome``."""
    record = Record(
        url=url,
        kind=outcome.kind,
        code=outcome.code,
        detail=outcome.detail,
        checked=_iso(now),
        final_url=outcome.final_url if outcome.final_url != url else None,
    )
    if outcome.kind == OK:
        return record
    if outcome.kind == FORBIDDEN and allowlist.excuses(outcome.code, url, outcome.final_url):
        record.verdict = "allowed"
        return record
    # A failure: count it, in a row with the previous failures of the same sort.
    permanent = outcome.kind in (GONE, CLIENT, FORBIDDEN)
    same_sort = (
        previous is not None
        and previous.failures > 0
        and (previous.kind in (GONE, CLIENT, FORBIDDEN)) == permanent
    )
    record.failures = previous.failures + 1 if same_sort and previous else 1
    record.first_failed = (previous.first_failed if same_sort and previous else None) or _iso(now)
    if permanent:
        record.verdict = "broken" if record.failures >= CONFIRM_RUNS else "pending"
    else:
        since = _parse(record.first_failed) or now
        long_enough = now - since >= dt.timedelta(days=TRANSIENT_DAYS)
        record.verdict = (
            "failing" if record.failures >= TRANSIENT_RUNS or long_enough else "pending"
        )
    return record


# --- the run ----------------------------------------------------------------------------------


class _HostLimits:
    """At most ``per_host`` requests at once to one host."""

    def __init__(self, per_host: int) -> None:
        self.per_host = per_host
        self.lock = threading.Lock()
        self.semaphores: dict[str, threading.Semaphore] = {}

    def __call__(self, url: str) -> threading.Semaphore:
        host = (urlsplit(url).hostname or "").lower()
        with self.lock:
            return self.semaphores.setdefault(host, threading.Semaphore(self.per_host))


def fetch_all(
    urls: Sequence[str],
    config: Config,
    forbidden: frozenset[int] = frozenset(),
    progress: Callable[[str, Outcome], None] | None = None,
) -> dict[str, Outcome]:
    limits = _HostLimits(config.per_host)

    def one(url: str) -> tuple[str, Outcome]:
        with limits(url):
            outcome = fetch(url, config, forbidden)
        if progress:
            progress(url, outcome)
        return url, outcome

    if not urls:
        return {}
    with ThreadPoolExecutor(max_workers=max(1, config.concurrency)) as pool:
        return dict(pool.map(one, urls))


def _answered(outcome: Outcome) -> bool:
    """Some server answered: an HTTP status, or a TLS handshake that got as far as a certificate."""
    return outcome.code is not None or outcome.kind == CLIENT


def network_is_down(outcomes: dict[str, Outcome], config: Config) -> bool:
    """True when nothing answered, not even the canaries: the network, not the links."""
    if not outcomes or any(_answered(outcome) for outcome in outcomes.values()):
        return False
    canaries = fetch_all(list(config.canaries), config)
    return not any(_answered(outcome) for outcome in canaries.values())


def check_external(
    root: Path,
    cache_path: Path,
    *,
    config: Config | None = None,
    now: dt.datetime | None = None,
    progress: Callable[[str, Outcome], None] | None = None,
) -> ExternalReport:
    """Check the due external URLs of the catalogs under ``root``; update the cache."""
    config = config or Config()
    now = now or dt.datetime.now(dt.UTC)
    started = time.monotonic()
    catalog, problems = validate.load(root)
    if problems:
        # A catalog that does not load gives fewer URLs, and a run over fewer URLs would
        # pass having looked at less than the catalogs hold.
        listing = "\n".join(str(problem) for problem in problems)
        raise CatalogError(
            f"{listing}\nthe catalogs have {len(problems)} problem(s), so not all of their "
            "URLs can be read; fix them (`mlsys-kb validate` lists them) and run the check again"
        )
    urls = catalog_urls(catalog, config)
    allowlist = Allowlist.load(root / ALLOWLIST)
    cache = load_cache(cache_path)
    due = [url for url in sorted(urls) if is_due(cache.get(url), now, config.ttl_days)]
    outcomes = fetch_all(due, config, allowlist.statuses(), progress)
    report = ExternalReport(started=now)
    if network_is_down(outcomes, config):
        report.network = "unreachable"
        report.findings = [
            Finding(
                url,
                cache.get(url) or Record(url, verdict="pending", detail="not checked"),
                urls[url],
                False,
            )
            for url in sorted(urls)
        ]
        report.seconds = time.monotonic() - started
        return report  # the cache stays as it was: a dead network says nothing of the links
    records = []
    for url in sorted(urls):
        if url in outcomes:
            record = decide(cache.get(url), outcomes[url], url, now, allowlist)
        else:
            record = cache[url]
        records.append(record)
        report.findings.append(Finding(url, record, urls[url], url in outcomes))
    save_cache(cache_path, records)  # URLs no longer in the catalogs drop out
    report.seconds = time.monotonic() - started
    return report
