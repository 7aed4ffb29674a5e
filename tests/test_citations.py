"""What reference managers and feed readers read from the built site, read with parsers of
those formats rather than with the renderer's own code.

COinS: the "real parser" is the one a browser extension has: the page's HTML tokenized by
the standard library's ``html.parser`` (which unescapes attribute values as a browser does),
and the span's title read with ``urllib.parse.parse_qs``, the standard parser of the
``application/x-www-form-urlencoded`` key/value pairs that OpenURL 1.0's KEV format is. The
title is also split the way Zotero's parser splits it (at ``&``, then at the first ``=``),
so no value may hold either raw. No maintained COinS parser is published on PyPI that we
know of. Feeds are read with feedparser.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, unquote, urljoin

import feedparser
import pytest

from mlsys_kb import validate
from mlsys_kb.model import Entry
from mlsys_kb.render import Options, render_site

from .sitebuild import ROOT, build_site, copy_project

CATALOG, _ = validate.load(ROOT)
PAPERS = CATALOG.by_id("papers")
VENUES = CATALOG.by_id("venues")
TOPICS = CATALOG.by_id("topics")
SITE_URL = "https://mlsys-kb.github.io/mlsys-kb/"  # mkdocs.yml's site_url


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("citations"))
    result = build_site(project, project / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    return project / "site"


class _Page(HTMLParser):
    """The papers a page shows (an entry's heading, an item of an entry list, a row of a
    comparison table), the COinS titles on it, and its feed links."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: set[str] = set()
        self.coins: list[str] = []
        self.feeds: list[str] = []
        self.visible_feeds: list[str] = []
        self._lists = 0  # depth inside ul.entry-list
        self._item_link = False  # inside an <li>, before its first link
        self._row_head = False  # inside a comparison table's row heading

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = {name: value or "" for name, value in attrs}
        classes = attr.get("class", "").split()
        if tag == "h3" and attr.get("id") in PAPERS:
            self.shown.add(attr["id"])
        elif tag == "ul" and "entry-list" in classes:
            self._lists += 1
        elif tag == "li" and self._lists:
            self._item_link = True
        elif tag == "th" and attr.get("scope") == "row":
            self._row_head = True
        elif tag == "a" and (self._item_link or self._row_head):
            fragment = attr.get("href", "").partition("#")[2]
            if fragment in PAPERS:
                self.shown.add(fragment)
            self._item_link = self._row_head = False
        elif tag == "a" and "topic-feed" in classes:
            self.visible_feeds.append(attr["href"])
        elif tag == "span" and "Z3988" in classes:
            self.coins.append(attr["title"])
        elif tag == "link" and attr.get("type") == "application/atom+xml":
            assert attr.get("rel") == "alternate"
            self.feeds.append(attr["href"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "ul" and self._lists:
            self._lists -= 1


def _read(page: Path) -> _Page:
    parsed = _Page()
    parsed.feed(page.read_text(encoding="utf-8"))
    return parsed


def _expected(paper: Entry) -> dict[str, list[str]]:
    """The ContextObject a paper should carry, from the catalog."""
    venue = VENUES[paper["venue"]]
    proceedings = venue["kind"] in ("conference", "workshop")
    expected = {
        "ctx_ver": ["Z39.88-2004"],
        "rft_val_fmt": ["info:ofi/fmt:kev:mtx:" + ("book" if proceedings else "journal")],
        "rft.genre": [
            "proceeding"
            if proceedings
            else "preprint"
            if venue["kind"] == "preprint"
            else "article"
        ],
        "rft.atitle": [paper["title"]],
        "rft.btitle" if proceedings else "rft.jtitle": [venue["title"]],
        "rft.au": list(paper["authors"]),
        "rft.date": [str(paper["year"])],
    }
    ids = []
    if paper.get("doi"):
        ids.append(f"info:doi/{paper['doi']}")
    if paper.get("arxiv"):
        ids.append(f"info:arxiv/{paper['arxiv']}")
    url = paper.get("url") or (
        f"https://doi.org/{paper['doi']}"
        if paper.get("doi")
        else f"https://arxiv.org/abs/{paper['arxiv']}"
    )
    expected["rft_id"] = [*ids, url]
    return expected


def _paper_of(context: dict[str, list[str]]) -> str:
    """Which catalogued paper a ContextObject names: DOI, arXiv id and URL are unique."""
    for paper in PAPERS.values():
        if _expected(paper)["rft_id"] == context.get("rft_id"):
            return paper.id
    raise AssertionError(f"no paper has the identifiers {context.get('rft_id')}")


def test_every_paper_on_every_page_carries_its_coins(site: Path) -> None:
    pages_with_papers = 0
    seen_papers: set[str] = set()
    for page in sorted(site.rglob("*.html")):
        parsed = _read(page)
        found: Counter[str] = Counter()
        for title in parsed.coins:
            # Zotero splits at "&" and then at "=": no value may hold either unencoded.
            for part in title.split("&"):
                assert part.count("=") == 1, (page, part)
            context = parse_qs(title, keep_blank_values=True, strict_parsing=True)
            paper = _paper_of(context)
            assert context == _expected(PAPERS[paper]), (page, paper)
            found[paper] += 1
        where = page.relative_to(site)
        assert found == Counter(parsed.shown), f"{where}: COinS for {found}, shown {parsed.shown}"
        if parsed.shown:
            pages_with_papers += 1
            seen_papers |= parsed.shown
    assert seen_papers == set(PAPERS)  # every paper is shown somewhere, with its COinS
    # Home, papers by year and by venue, tags, and the topic pages that hold papers.
    assert pages_with_papers >= 4 + len({p["topics"][0] for p in PAPERS.values()})


def test_coins_values_survive_characters_that_mean_something_in_kev_and_html() -> None:
    project_catalog, problems = validate.load(ROOT / "tests" / "golden" / "project")
    assert problems == []
    page = render_site(project_catalog)["topics/systems/index.md"]
    parsed = _Page()
    parsed.feed(page)
    titles = {parse_qs(t)["rft.atitle"][0]: parse_qs(t) for t in parsed.coins}
    assert titles["Gamma: Third <Paper>"]["rft_id"] == ["https://example.org/gamma?a=1&b=2"]
    assert "Alpha: A First Paper with 100% of the {Special} & Characters_" in titles


def _expected_feed(topic: str | None) -> list[Entry]:
    """Entries of the topic and its subtopics (or of the whole catalog), newest added first,
    at most 50: worked out here from the catalog, not by the renderer's code."""
    below = {topic} if topic else set(TOPICS)
    grew = True
    while grew:
        more = {t for t, entry in TOPICS.items() if entry.get("parent") in below} - below
        below |= more
        grew = bool(more)
    entries = [
        entry
        for kind in ("papers", "decks", "issues", "resources")
        for entry in CATALOG[kind]
        if entry.get("added") and below & set(entry["topics"])
    ]
    entries.sort(key=lambda e: (e["added"], e.kind, e.id), reverse=True)
    return entries[:50]


@pytest.mark.parametrize("topic", [None, *TOPICS])
def test_every_feed_parses_and_lists_the_topics_newest_entries(site: Path, topic) -> None:
    path = site / ("feed.xml" if topic is None else f"feed-{topic}.xml")
    feed = feedparser.parse(path.read_bytes())
    assert feed.bozo == 0, feed.get("bozo_exception")
    assert feed.version == "atom10"
    title = "recently added" if topic is None else TOPICS[topic]["title"]
    assert feed.feed.title == f"MLSys knowledge base: {title}"
    page = SITE_URL if topic is None else f"{SITE_URL}topics/{topic}/"
    assert feed.feed.link == page
    self_links = [link.href for link in feed.feed.links if link.rel == "self"]
    assert self_links == [SITE_URL + str(path.relative_to(site))]
    expected = _expected_feed(topic)
    assert [entry.id for entry in feed.entries] == [
        f"{SITE_URL}topics/{e['topics'][0]}/#{e.id}" for e in expected
    ]
    for got, entry in zip(feed.entries, expected, strict=True):
        assert got.title == (entry.get("title") or entry.get("name"))
        assert got.link == f"{SITE_URL}topics/{entry['topics'][0]}/#{entry.id}"
        assert got.updated_parsed[:3] == dt.date.fromisoformat(entry["added"]).timetuple()[:3]
        assert [a.name for a in got.get("authors", [])] == list(entry.get("authors", []))


@pytest.mark.parametrize("topic", list(TOPICS))
def test_each_topic_page_links_its_feed_in_the_head_and_on_the_page(site: Path, topic) -> None:
    page = site / "topics" / topic / "index.html"
    parsed = _read(page)
    url = f"http://site/topics/{topic}/"
    feed = f"http://site/feed-{topic}.xml"
    assert [urljoin(url, unquote(href)) for href in parsed.feeds] == [feed]
    assert [urljoin(url, unquote(href)) for href in parsed.visible_feeds] == [feed]


def test_a_topic_feed_holds_the_latest_50_of_more(project: Path) -> None:
    text = "".join(
        f"\n- id: zz{n:03d}\n  title: Paper {n}\n  authors: [Ada Lovelace]\n  year: 2024\n"
        f"  venue: osdi\n  url: https://example.org/{n}\n  topics: [gpu-test]\n"
        f"  added: {dt.date(2030, 1, 1) + dt.timedelta(days=n)}\n"  # after every real entry
        for n in range(60)
    )
    with (project / "data" / "papers.yaml").open("a", encoding="utf-8") as stream:
        stream.write(text)
    catalog, problems = validate.load(project)
    assert problems == []
    files = render_site(catalog, Options(site_url=SITE_URL))
    for path in ("feed-gpu-test.xml", "feed-gpu-programs.xml"):
        feed = feedparser.parse(files[path])
        assert feed.bozo == 0
        titles = [entry.title for entry in feed.entries]
        assert titles == [f"Paper {n}" for n in range(59, 9, -1)], path
