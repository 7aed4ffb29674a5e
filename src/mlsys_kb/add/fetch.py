"""A small HTTP client for the metadata services: timeouts, retries, a User-Agent.

Retries follow what the services ask for: HTTP 429 and 5xx are retried after the
``Retry-After`` the server sends (seconds or an HTTP date), else with exponential backoff;
a timeout or a dropped connection is retried the same way. A host that cannot be resolved
or refuses the connection is not retried: that is being offline, and the user should
hear it at once.

Base URLs and timings come from options or the environment, so that tests can point the
client at a local server:

    MLSYS_KB_ARXIV_API      default https://export.arxiv.org/api/query
    MLSYS_KB_CROSSREF_API   default https://api.crossref.org
    MLSYS_KB_GITHUB_API     default https://api.github.com
    MLSYS_KB_HTTP_TIMEOUT   seconds per attempt, default 15
    MLSYS_KB_HTTP_RETRIES   retries after the first attempt, default 3
    MLSYS_KB_HTTP_BACKOFF   first wait in seconds, doubled each retry, default 1
    MLSYS_KB_MAILTO         an e-mail address for Crossref's polite pool (optional)
"""

from __future__ import annotations

import http.client
import os
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .. import __version__
from ..retry_after import retry_after

ARXIV_API = ("MLSYS_KB_ARXIV_API", "https://export.arxiv.org/api/query")
CROSSREF_API = ("MLSYS_KB_CROSSREF_API", "https://api.crossref.org")
GITHUB_API = ("MLSYS_KB_GITHUB_API", "https://api.github.com")

MAX_BODY = 10 * 1024 * 1024  # no metadata record is near this; a bigger answer is wrong
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class FetchError(Exception):
    """A service could not give an answer; the message says what to do about it."""


class OfflineError(FetchError):
    """The host could not be reached at all (no network, no DNS, connection refused)."""


def base_url(setting: tuple[str, str], override: str | None = None) -> str:
    """The base URL from an option, else the environment, else the public service."""
    name, default = setting
    return (override or os.environ.get(name) or default).rstrip("/")


def user_agent() -> str:
    # Crossref and arXiv ask clients to say who they are and how to reach them.
    agent = f"mlsys-kb/{__version__} (MLSys knowledge base catalog tool; Python urllib)"
    mailto = os.environ.get("MLSYS_KB_MAILTO")
    return f"{agent[:-1]}; mailto:{mailto})" if mailto else agent


def _env_number(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass
class Response:
    status: int
    body: bytes
    headers: Mapping[str, str]
    url: str


@dataclass
class Client:
    timeout: float = 15.0
    retries: int = 3
    backoff: float = 1.0
    max_wait: float = 120.0  # a longer Retry-After is reported instead of waited out
    sleep: Callable[[float], None] = time.sleep
    waits: list[float] = field(default_factory=list)  # what was waited, for reports and tests

    @classmethod
    def from_env(cls, timeout: float | None = None) -> Client:
        return cls(
            timeout=timeout or _env_number("MLSYS_KB_HTTP_TIMEOUT", 15.0),
            retries=int(_env_number("MLSYS_KB_HTTP_RETRIES", 3)),
            backoff=_env_number("MLSYS_KB_HTTP_BACKOFF", 1.0),
        )

    def get(self, url: str, *, service: str, headers: Mapping[str, str] | None = None) -> Response:
        """GET ``url``; the answer, or FetchError once retries are spent.

        2xx and 4xx answers are returned for the caller to read (a 404 means something
        different to each service); 429 and 5xx are retried.
        """
        host = urlsplit(url).netloc or url
        request_headers = {"User-Agent": user_agent(), **(headers or {})}
        attempts = self.retries + 1
        for attempt in range(attempts):
            last = attempt == attempts - 1
            try:
                request = urllib.request.Request(url, headers=request_headers)
                with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                    return Response(answer.status, _read(answer, service), answer.headers, url)
            except urllib.error.HTTPError as error:
                if error.code not in RETRY_STATUSES:
                    body = _read(error, service) if error.fp is not None else b""
                    return Response(error.code, body, error.headers, url)
                if last:
                    raise FetchError(
                        f"{service} answered HTTP {error.code} {error.reason} "
                        f"{attempts} times; try again later"
                    ) from None
                self._wait(
                    retry_after((error.headers or {}).get("Retry-After")),
                    attempt,
                    service,
                    error.code,
                )
            except urllib.error.URLError as error:
                reason = error.reason
                if isinstance(reason, TimeoutError):
                    if last:
                        raise self._timed_out(service, attempts) from None
                    self._wait(None, attempt, service, None)
                    continue
                if isinstance(reason, ConnectionResetError) and not last:
                    self._wait(None, attempt, service, None)
                    continue
                raise OfflineError(f"cannot reach {host} ({_reason(reason)})") from None
            except TimeoutError:
                if last:
                    raise self._timed_out(service, attempts) from None
                self._wait(None, attempt, service, None)
            except (ConnectionError, http.client.HTTPException) as error:
                if last:
                    raise FetchError(
                        f"{service} dropped the connection {attempts} times ({_reason(error)}); "
                        "try again later"
                    ) from None
                self._wait(None, attempt, service, None)
        raise AssertionError("unreachable")  # pragma: no cover

    def _timed_out(self, service: str, attempts: int) -> FetchError:
        return FetchError(
            f"{service} did not answer within {self.timeout:g} s ({attempts} attempts); "
            "try again later, or set MLSYS_KB_HTTP_TIMEOUT"
        )

    def _wait(self, asked: float | None, attempt: int, service: str, status: int | None) -> None:
        wait = asked if asked is not None else self.backoff * 2**attempt
        if wait > self.max_wait:
            raise FetchError(
                f"{service} asks to wait {wait:.0f} s before trying again (HTTP {status}); "
                "try again later"
            )
        self.waits.append(wait)
        self.sleep(wait)


def _read(answer: object, service: str) -> bytes:
    body = answer.read(MAX_BODY + 1)  # type: ignore[attr-defined]
    if len(body) > MAX_BODY:
        raise FetchError(f"{service} sent more than {MAX_BODY // 1048576} MiB; refusing it")
    return body


def _reason(reason: object) -> str:
    if isinstance(reason, socket.gaierror):
        return "the name does not resolve; are you offline?"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    text = getattr(reason, "strerror", None) or str(reason)
    return text or type(reason).__name__
