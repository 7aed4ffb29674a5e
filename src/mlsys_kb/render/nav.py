"""The site's navigation from data/topics.yaml and the hand-written pages: a pure function
that the MkDocs plugin and ``mlsys-kb render --out`` (the config for other builders) share."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from ..model import Catalog
from .site import topic_page


@dataclass(frozen=True)
class HandWritten:
    """Hand-written pages, as paths relative to the docs directory, sorted by file name."""

    guides: list[str] = field(default_factory=list)  # guides/*.md
    overviews: list[str] = field(default_factory=list)  # overviews/<topic-id>.md
    others: list[str] = field(default_factory=list)  # top-level pages the renderer does not make


def navigation(catalog: Catalog, pages: HandWritten, *, explore: bool = False) -> list[Any]:
    """MkDocs' ``nav``: home, the Explore page (when the site has its search index), the
    topic tree, the index pages, guides and overviews, the tags and statistics pages, and
    the other hand-written pages last under "About"."""
    children: dict[str | None, list[Any]] = {}
    for topic in catalog["topics"]:
        children.setdefault(topic.get("parent"), []).append(topic)

    def tree(parent: str | None) -> list[Any]:
        items: list[Any] = []
        for topic in children.get(parent, []):
            page = topic_page(topic.id)
            # Theme templates print nav titles as HTML: catalog text must be escaped.
            title = html.escape(topic["title"])
            if topic.id in children:
                items.append({title: [page, *tree(topic.id)]})
            else:
                items.append({title: page})
        return items

    titles = catalog.by_id("topics")
    nav: list[Any] = [
        {"Home": "index.md"},
        {"Topics": tree(None)},
        {
            "Papers": [
                {"By year": "papers/by-year.md"},
                {"By venue": "papers/by-venue.md"},
                {"By topic": "papers/by-topic.md"},
            ]
        },
        {"Seminars": "decks.md"},
        {"Issues": "issues.md"},
    ]
    if pages.guides or pages.overviews:
        section: list[Any] = list(pages.guides)
        for page in pages.overviews:
            stem = page.rsplit("/", 1)[-1].removesuffix(".md")
            title = html.escape(titles[stem]["title"] if stem in titles else stem)
            section.append({f"Overview: {title}": page})
        nav.append({"Guides": section})
    nav += [{"Tags": "tags.md"}, {"Statistics": "stats.md"}]
    if explore:
        nav.insert(1, {"Explore": "explore.md"})
    if pages.others:
        nav.append({"About": list(pages.others)})
    return nav
