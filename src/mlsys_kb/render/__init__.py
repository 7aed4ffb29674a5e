"""Render the catalog into Markdown pages and downloadable files: pure functions.

``render_site(catalog, options)`` returns ``{path: content}`` for every generated file,
paths relative to the site's docs directory. Nothing is written here; the MkDocs plugin
hands the result to MkDocs as virtual files, and tests compare it with golden files.
"""

from __future__ import annotations

import json
import re
from collections import Counter

from ..model import Catalog
from ..schema import ENTRY_KINDS, KINDS
from . import pages
from .charts import bar_chart, stacked_bar_chart
from .entries import links
from .feed import atom, topic_atom, topic_feed_path
from .search import Record, catalog_records
from .site import Options, Site, home_page, topic_page
from .text import html, path_href

__all__ = ["Options", "Record", "Site", "render_site", "search_records"]


def search_records(catalog: Catalog, options: Options | None = None) -> list[Record]:
    """The search records of every entry and topic (see ``search.py``)."""
    return catalog_records(Site(catalog, options or Options()))


def catalog_json(site: Site) -> str:
    """Every catalog as JSON, each entry with its derived permalink and links."""
    data: dict[str, object] = {}
    for kind in KINDS:
        rows = []
        for entry in site.catalog[kind]:
            row = dict(entry.values)
            if kind in ENTRY_KINDS:
                row["permalink"] = home_page(entry).removesuffix("index.md") + f"#{entry.id}"
                row["links"] = [{"label": label, "url": url} for label, url in links(entry)]
            rows.append(row)
        data[kind] = rows
    # Compact: indent= forces json's pure-Python encoder, several times slower at scale.
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def stats(site: Site) -> tuple[str, dict[str, str]]:
    by_topic = [(t["title"], site.total_count(t.id)) for t in site.catalog["topics"]]
    years = Counter(p.get("year") for p in site.catalog["papers"] if p.get("year"))
    by_year = [(str(year), count) for year, count in sorted(years.items())]
    kinds = [(pages.KIND_TITLES[k], len(site.catalog[k])) for k in ENTRY_KINDS]
    page = "stats.md"
    lines = [pages.no_search(site) + "# Statistics", ""]
    total = sum(count for _, count in kinds)
    lines += [f"{total} entries in all.", ""]
    charts: dict[str, str] = {}
    for name, heading, title, rows in (
        ("by-kind", "Entries by kind", "Entries by kind", kinds),
        ("by-topic", "Entries by topic", "Entries by topic (with subtopics)", by_topic),
        ("by-year", "Papers by year", "Papers by year", by_year),
    ):
        wide, narrow = f"stats/{name}.svg", f"stats/{name}-narrow.svg"
        charts[wide] = bar_chart(title, rows)
        charts[narrow] = stacked_bar_chart(title, rows)
        # A phone gets the stacked layout: the wide one, scaled to its screen, had 6 px text.
        lines += [
            f"## {heading}",
            "",
            "<picture>",
            f'<source media="(max-width: 36em)" srcset="{path_href(site.url(page, narrow))}">',
            f'<img src="{path_href(site.url(page, wide))}" alt="{html(title)}">',
            "</picture>",
            "",
        ]
    return "\n".join(lines), charts


def render_site(catalog: Catalog, options: Options | None = None) -> dict[str, str]:
    site = Site(catalog, options or Options())
    files: dict[str, str] = {
        "index.md": pages.home(site),
        "papers/by-year.md": pages.papers_by_year(site),
        "papers/by-venue.md": pages.papers_by_venue(site),
        "papers/by-topic.md": pages.papers_by_topic(site),
        "decks.md": pages.decks(site),
        "issues.md": pages.issues(site),
        "tags.md": pages.tags(site),
        "downloads/papers.bib": "\n".join(site.bibtex.values()),
        "downloads/catalog.json": catalog_json(site),
        "feed.xml": atom(site, pages.recent_entries(site)),
    }
    if site.options.explore:
        files["explore.md"] = pages.explore(site)
    overviews = options.overviews if options else {}
    for topic in catalog["topics"]:
        files[topic_page(topic.id)] = pages.topic(site, topic.id, overviews.get(topic.id))
        files[topic_feed_path(topic.id)] = topic_atom(site, topic.id)
    files["stats.md"], charts = stats(site)
    files.update(charts)
    # The one page that lists a paper more than once (under each of its tags); the COinS
    # test checks that every page carries each paper's citation exactly once.
    files["tags.md"] = once_per_page(files["tags.md"])
    return files


_COINS = re.compile(r'<span class="Z3988" title="[^"]*"></span>')


def once_per_page(page: str) -> str:
    """Each paper's COinS once on a page (the tags page lists a paper under each of its
    tags): a reference manager would offer it as many times."""
    seen: set[str] = set()

    def first(match: re.Match[str]) -> str:
        span = match.group()
        if span in seen:
            return ""
        seen.add(span)
        return span

    return _COINS.sub(first, page)
