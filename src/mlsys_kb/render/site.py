"""What the renderer needs to know about the catalog beyond the entries themselves:
where each entry lives (its permalink), which decks review which paper, counts."""

from __future__ import annotations

import functools
import posixpath
from collections import defaultdict
from dataclasses import dataclass, field

from ..bibtex import paper_bibtex
from ..model import Catalog, Entry
from ..schema import ENTRY_KINDS
from ..validate import comparison_coverage

KIND_TITLES = {
    "papers": "Papers",
    "decks": "Seminar decks",
    "issues": "GitHub issues",
    "resources": "Tools, frameworks and posts",
}


@dataclass(frozen=True)
class Options:
    repo_url: str | None = None  # https://github.com/OWNER/REPO, for "edit this entry"
    branch: str = "main"
    recent: int = 10  # entries on the home page
    feed_size: int = 50
    site_url: str | None = None
    # MkDocs' use_directory_urls: the entry chrome links final URLs (see ``Site.url``).
    directory_urls: bool = True
    overviews: dict[str, str] = field(default_factory=dict)  # topic id -> overview page path
    explore: bool = True  # the Explore page, which needs the Pagefind index
    # Material's own search (the plugin's `search: material`, kept for comparison): mark
    # what its index must leave out, so that a search lands on the entries.
    material_search: bool = False


@dataclass
class Site:
    """The catalog with its derived indexes, built once and shared by every page."""

    catalog: Catalog
    options: Options = field(default_factory=Options)

    def __post_init__(self) -> None:
        self.topics = self.catalog.by_id("topics")
        self.venues = self.catalog.by_id("venues")
        self.tags = self.catalog.by_id("tags")
        self.papers = self.catalog.by_id("papers")
        self.children: dict[str | None, list[Entry]] = defaultdict(list)
        for topic in self.catalog["topics"]:
            self.children[topic.get("parent")].append(topic)
        self.by_topic: dict[str, dict[str, list[Entry]]] = defaultdict(lambda: defaultdict(list))
        self.by_tag: dict[str, list[Entry]] = defaultdict(list)
        for kind in ENTRY_KINDS:
            for entry in self.catalog[kind]:
                for topic in entry.get("topics", []):
                    self.by_topic[topic][kind].append(entry)
                for tag in entry.get("tags", []):
                    self.by_tag[tag].append(entry)
        self.reviewed_in: dict[str, list[Entry]] = defaultdict(list)
        for deck in self.catalog["decks"]:
            for paper in deck.get("papers", []):
                self.reviewed_in[paper].append(deck)
        # Topic id -> the topic whose comparison table covers its papers (schema.py).
        self.compared_in: dict[str, Entry] = comparison_coverage(self.catalog)
        self._coins: dict[str, str] = {}

    def coins(self, paper: Entry) -> str:
        """The paper's COinS span, made once: a paper is shown on several pages."""
        span = self._coins.get(paper.id)
        if span is None:
            from .coins import coins_span

            span = self._coins[paper.id] = coins_span(paper, self.venues)
        return span

    def subtree(self, topic: str) -> list[str]:
        """The topic and all its subtopics, the topic first."""
        found: list[str] = []
        stack = [topic]
        while stack:
            current = stack.pop()
            if current in found:
                continue
            found.append(current)
            stack.extend(child.id for child in reversed(self.children[current]))
        return found

    @functools.cached_property
    def bibtex(self) -> dict[str, str]:
        """Each paper's BibTeX by id, made once for its block and for papers.bib."""
        return {paper.id: paper_bibtex(paper, self.venues) for paper in self.catalog["papers"]}

    def url(self, from_page: str, to_path: str, anchor: str | None = None) -> str:
        """The href, relative to ``from_page``'s URL, of a generated page or a file.

        For the entry chrome, which is HTML: MkDocs rewrites the links of Markdown, not the
        hrefs of HTML, so these are the final URLs MkDocs would have written.
        """
        if to_path == from_page and anchor:
            return f"#{anchor}"
        target = _relative_url(
            _url_path(to_path, self.options.directory_urls),
            _url_path(from_page, self.options.directory_urls),
        )
        return f"{target}#{anchor}" if anchor else target

    def entries(self) -> list[Entry]:
        return [entry for kind in ENTRY_KINDS for entry in self.catalog[kind]]

    def own_count(self, topic: str) -> int:
        return sum(len(entries) for entries in self.by_topic[topic].values())

    def total_count(self, topic: str) -> int:
        """Entries of a topic and its subtopics, each counted once."""
        seen: set[int] = set()
        stack = [topic]
        while stack:
            current = stack.pop()
            for entries in self.by_topic[current].values():
                seen.update(id(entry) for entry in entries)
            stack.extend(child["id"] for child in self.children[current])
        return len(seen)

    def edit_url(self, entry: Entry) -> str | None:
        if not self.options.repo_url:
            return None
        base = self.options.repo_url.rstrip("/")
        return f"{base}/blob/{self.options.branch}/{entry.path}#L{entry.mark[0]}"


def home_page(entry: Entry) -> str:
    """The page that holds an entry's full block: its first topic. Its permalink is
    ``topics/<first-topic>/#<id>``, which does not change as the catalog grows."""
    return topic_page(entry["topics"][0])


def topic_page(topic_id: str) -> str:
    # index.md in a folder of its own: Material shows it as the page of its nav section.
    return f"topics/{topic_id}/index.md"


def relative(from_page: str, to_page: str, anchor: str | None = None) -> str:
    """A Markdown link from one generated page to another, resolved by MkDocs."""
    path = "" if to_page == from_page and anchor else _relpath(to_page, from_page)
    return f"{path}#{anchor}" if anchor else path


@functools.lru_cache(maxsize=4096)
def _relpath(to_page: str, from_page: str) -> str:
    return posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")


@functools.lru_cache(maxsize=4096)
def _url_path(path: str, directory_urls: bool) -> str:
    """A docs file's URL path the way MkDocs forms it: ``a/b.md`` is ``a/b/`` or ``a/b.html``."""
    if not path.endswith(".md"):
        return path
    stem = path[: -len(".md")]
    if not directory_urls:
        return stem + ".html"
    if stem == "index" or stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/"


@functools.lru_cache(maxsize=4096)
def _relative_url(to_url: str, from_url: str) -> str:
    """``to_url`` relative to the folder of ``from_url`` (both relative to the site root)."""
    target = posixpath.relpath(to_url or ".", posixpath.dirname(from_url) or ".")
    if to_url.endswith("/") or not to_url:  # a folder stays a folder
        target = "./" if target == "." else target + "/"
    return target


def entry_title(entry: Entry) -> str:
    return entry.get("title") or entry.get("name") or entry.id


def newest_first(papers: list[Entry]) -> list[Entry]:
    return sorted(papers, key=lambda p: (-p.get("year", 0), entry_title(p).lower()))
