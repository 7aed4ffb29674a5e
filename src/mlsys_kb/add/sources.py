"""Metadata from the arXiv API (Atom XML), Crossref (JSON) and the GitHub REST API (JSON).

Each ``fetch_*`` takes a :class:`~.fetch.Client` and a base URL and returns plain data,
or raises FetchError with a message a contributor can act on.
"""

from __future__ import annotations

import html
import json
import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from .fetch import Client, FetchError

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
ARXIV_ID = re.compile(r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?", re.IGNORECASE)
DOI = re.compile(r"10\.\d{4,9}/\S+")
GITHUB_ISSUE = re.compile(
    r"https?://(?:www\.)?github\.com/(?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+)"
    r"/(?:issues|pull)/(?P<number>\d+)/?(?:[#?].*)?"
)


@dataclass
class Metadata:
    """A paper as a metadata service describes it."""

    title: str
    authors: list[str]
    family_names: list[str]  # for the citation key
    year: int
    doi: str | None = None
    arxiv: str | None = None
    venue_hints: list[str] = field(default_factory=list)  # container titles, event names
    kind: str | None = None  # journal, conference, preprint, when the service says
    comment: str = ""  # arXiv's comment, which often names the venue ("HPDC '24")

    def __post_init__(self) -> None:
        self.venue_hints = list(dict.fromkeys(hint for hint in self.venue_hints if hint))


@dataclass
class Issue:
    repo: str
    number: int
    title: str
    state: str
    pull_request: bool = False


def clean(text: str) -> str:
    """One line of text: markup (JATS, HTML) removed, entities decoded, spaces collapsed."""
    text = html.unescape(re.sub(r"<[^>]+>", "", text))
    text = "".join(ch if ch >= " " or ch == "\t" else " " for ch in text)
    # a lone surrogate cannot be written to a UTF-8 file
    text = text.encode("utf-8", "replace").decode("utf-8")
    return " ".join(text.split())


def family_of(name: str) -> str:
    """The family name of a "Given Family" name: its last word."""
    words = name.replace(",", " ").split()
    return words[-1] if words else ""


# --- arXiv ---------------------------------------------------------------------------------


def arxiv_id(text: str) -> str:
    """The bare identifier in ``arXiv:2010.05337v2`` or an arxiv.org URL, without version."""
    candidate = text.strip()
    candidate = re.sub(r"^(?:https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)", "", candidate)
    candidate = re.sub(r"^arxiv:", "", candidate, flags=re.IGNORECASE).removesuffix(".pdf")
    match = ARXIV_ID.fullmatch(candidate)
    if not match:
        raise FetchError(
            f"{text!r} is not an arXiv identifier; write it like 2010.05337 or cs/0112017"
        )
    return match.group(1)


def fetch_arxiv(client: Client, base: str, identifier: str) -> Metadata:
    url = f"{base}?id_list={quote(identifier, safe='/')}&max_results=1"
    answer = client.get(url, service="the arXiv API", headers={"Accept": "application/atom+xml"})
    if answer.status != 200:
        raise FetchError(
            f"the arXiv API answered HTTP {answer.status} for {identifier}; try again later"
        )
    return parse_arxiv(answer.body, identifier)


def parse_arxiv(body: bytes, identifier: str) -> Metadata:
    head = body[:4096].upper()
    if b"<!DOCTYPE" in head or b"<!ENTITY" in body.upper():
        raise FetchError("the arXiv API sent XML with a DOCTYPE; refusing to read it")
    try:
        root = ET.fromstring(body)
    except ET.ParseError as error:
        raise FetchError(f"the arXiv API sent malformed XML ({error}); try again later") from None
    if root.tag != f"{ATOM}feed":
        raise FetchError("the arXiv API did not send an Atom feed; try again later")
    for entry in root.findall(f"{ATOM}entry"):
        entry_id = entry.findtext(f"{ATOM}id", "").strip()
        if "/api/errors" in entry_id:
            reason = clean(entry.findtext(f"{ATOM}summary", "") or "invalid request")
            raise FetchError(f"arXiv refused the identifier {identifier}: {reason}")
        found = ARXIV_ID.search(entry_id.rsplit("/abs/", 1)[-1])
        if found is None or found.group(1).lower() != identifier.lower():
            continue
        title = clean(entry.findtext(f"{ATOM}title", ""))
        authors = [
            clean(author.findtext(f"{ATOM}name", "")) for author in entry.findall(f"{ATOM}author")
        ]
        authors = [name for name in authors if name]
        published = entry.findtext(f"{ATOM}published", "")
        if not title or not authors or not re.match(r"\d{4}", published):
            raise FetchError(f"arXiv's record of {identifier} lacks a title, authors or date")
        doi = clean(entry.findtext(f"{ARXIV}doi", "")) or None
        hints = [clean(entry.findtext(f"{ARXIV}journal_ref", ""))]
        return Metadata(
            title=title,
            authors=authors,
            family_names=[family_of(name) for name in authors],
            year=int(published[:4]),
            doi=doi,
            arxiv=identifier,
            venue_hints=[hint for hint in hints if hint],
            kind="preprint",
            comment=clean(entry.findtext(f"{ARXIV}comment", "")),
        )
    raise FetchError(f"arXiv has no paper {identifier}; check the identifier")


# --- Crossref -------------------------------------------------------------------------------


def doi_of(text: str) -> str:
    """The bare DOI in ``doi:10.…``, ``https://doi.org/10.…`` or ``10.…``."""
    candidate = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", "", text.strip(), flags=re.I)
    if not DOI.fullmatch(candidate):
        raise FetchError(f"{text!r} is not a DOI; write it like 10.14778/3415478.3415530")
    return candidate


def fetch_crossref(client: Client, base: str, doi: str) -> Metadata:
    url = f"{base}/works/{quote(doi, safe='/')}"
    if os.environ.get("MLSYS_KB_MAILTO"):
        url += f"?mailto={quote(os.environ['MLSYS_KB_MAILTO'])}"
    answer = client.get(url, service="Crossref", headers={"Accept": "application/json"})
    if answer.status == 404:
        raise FetchError(f"Crossref has no record of DOI {doi}; check it")
    if answer.status != 200:
        raise FetchError(f"Crossref answered HTTP {answer.status} for {doi}; try again later")
    return parse_crossref(answer.body, doi)


def _json(body: bytes, service: str) -> Any:
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise FetchError(f"{service} sent malformed JSON ({error}); try again later") from None


def _first(value: Any) -> str:
    if isinstance(value, list):
        value = value[0] if value else ""
    return clean(value) if isinstance(value, str) else ""


def _year(message: dict[str, Any]) -> int | None:
    for name in ("issued", "published", "published-print", "published-online", "created"):
        parts = (message.get(name) or {}).get("date-parts") or [[None]]
        if parts and parts[0] and isinstance(parts[0][0], int):
            return parts[0][0]
    return None


CROSSREF_KINDS = {
    "journal-article": "journal",
    "proceedings-article": "conference",
    "posted-content": "preprint",
}


def parse_crossref(body: bytes, doi: str) -> Metadata:
    data = _json(body, "Crossref")
    if not isinstance(data, dict) or data.get("message-type") != "work":
        raise FetchError(f"Crossref did not send a work record for {doi}; try again later")
    message = data.get("message")
    if not isinstance(message, dict):
        raise FetchError(f"Crossref's record of {doi} is empty")
    title = _first(message.get("title"))
    subtitle = _first(message.get("subtitle"))
    if subtitle and subtitle.lower() not in title.lower():
        title = f"{title}: {subtitle}"
    authors: list[str] = []
    families: list[str] = []
    for person in message.get("author") or []:
        if not isinstance(person, dict):
            continue
        given = clean(str(person.get("given", "")))
        family = clean(str(person.get("family", "")))
        name = " ".join(part for part in (given, family) if part) or clean(
            str(person.get("name", ""))
        )
        if name:
            authors.append(name)
            families.append(family or family_of(name))
    year = _year(message)
    if not title or not authors or year is None:
        raise FetchError(f"Crossref's record of {doi} lacks a title, authors or year")
    event = message.get("event") if isinstance(message.get("event"), dict) else {}
    hints = [
        _first(message.get("container-title")),
        _first(message.get("short-container-title")),
        clean(str(event.get("name", ""))),
        clean(str(event.get("acronym", ""))),
    ]
    return Metadata(
        title=title,
        authors=authors,
        family_names=families,
        year=year,
        doi=str(message.get("DOI") or doi),
        venue_hints=[hint for hint in hints if hint],
        kind=CROSSREF_KINDS.get(str(message.get("type", ""))),
    )


# --- GitHub ---------------------------------------------------------------------------------


def issue_url(url: str) -> tuple[str, str, int]:
    match = GITHUB_ISSUE.fullmatch(url.strip())
    if not match:
        raise FetchError(
            f"{url!r} is not a GitHub issue URL; write it like "
            "https://github.com/pytorch/pytorch/issues/90613"
        )
    return match.group("owner"), match.group("repo"), int(match.group("number"))


def github_headers() -> dict[str, str]:
    headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
    token = os.environ.get("GITHUB_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def fetch_issue(client: Client, base: str, owner: str, repo: str, number: int) -> Issue:
    url = f"{base}/repos/{quote(owner)}/{quote(repo)}/issues/{number}"
    answer = client.get(url, service="the GitHub API", headers=github_headers())
    where = f"{owner}/{repo}#{number}"
    if answer.status == 404:
        raise FetchError(
            f"GitHub has no issue {where} (or it is private; set GITHUB_TOKEN to see it)"
        )
    if answer.status in (401, 403):
        remaining = answer.headers.get("X-RateLimit-Remaining") if answer.headers else None
        if remaining == "0" or answer.status == 403:
            raise FetchError(
                f"the GitHub API refused {where} (HTTP {answer.status}): rate limit or "
                "permissions; set GITHUB_TOKEN to a token and try again"
            )
        raise FetchError(
            f"the GitHub API refused {where} (HTTP {answer.status}); check GITHUB_TOKEN"
        )
    if answer.status != 200:
        raise FetchError(f"the GitHub API answered HTTP {answer.status} for {where}")
    data = _json(answer.body, "the GitHub API")
    if not isinstance(data, dict) or data.get("number") != number:
        raise FetchError(f"the GitHub API sent something other than issue {where}")
    state = data.get("state")
    title = clean(str(data.get("title", "")))
    if state not in ("open", "closed") or not title:
        raise FetchError(f"the GitHub API's record of {where} lacks a title or state")
    full = re.search(r"/repos/([^/]+/[^/]+)$", str(data.get("repository_url", "")))
    return Issue(
        repo=full.group(1) if full else f"{owner}/{repo}",
        number=number,
        title=title,
        state=state,
        pull_request="pull_request" in data,
    )
