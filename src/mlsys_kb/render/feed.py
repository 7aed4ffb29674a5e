"""An Atom feed of entries by their ``added`` date, built with the standard library's XML
writer so that every value is escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..model import Entry
from .entries import links
from .site import Site, entry_title, home_page, topic_page

ATOM = "http://www.w3.org/2005/Atom"


def _permalink(base: str, entry: Entry) -> str:
    page = home_page(entry).removesuffix("index.md")
    return f"{base}{page}#{entry.id}"


SITE_TITLE = "MLSys knowledge base"


def topic_feed_path(topic_id: str) -> str:
    """Where a topic's feed is: ``feed-<id>.xml`` at the site's root, beside ``feed.xml``.

    Not beside the topic's page: Material's script reads every ``<link rel="alternate">``
    of a page as a translation of the site and fetches ``sitemap.xml`` from the folder of
    its URL. From the root that is the site's own sitemap; from ``topics/<id>/`` it would
    be a 404 on every visit.
    """
    return f"feed-{topic_id}.xml"


def topic_entries(site: Site, topic_id: str) -> list[Entry]:
    """Entries of the topic and its subtopics with an ``added`` date, newest first, each
    once."""
    seen: set[int] = set()
    found: list[Entry] = []
    for topic in site.subtree(topic_id):
        for entries in site.by_topic[topic].values():
            for entry in entries:
                if entry.get("added") and id(entry) not in seen:
                    seen.add(id(entry))
                    found.append(entry)
    return sorted(found, key=lambda e: (e["added"], e.kind, e.id), reverse=True)


def topic_atom(site: Site, topic_id: str) -> str:
    topic = site.topics[topic_id]
    page = topic_page(topic_id).removesuffix("index.md")
    return atom(
        site,
        topic_entries(site, topic_id),
        title=f"{SITE_TITLE}: {topic['title']}",
        page=page,
        path=topic_feed_path(topic_id),
    )


def atom(
    site: Site,
    entries: list[Entry],
    *,
    title: str = f"{SITE_TITLE}: recently added",
    page: str = "",
    path: str = "feed.xml",
) -> str:
    """An Atom feed of the first ``feed_size`` of ``entries``; ``page`` is the page it
    follows and ``path`` where it is, both relative to the site's root."""
    base = (site.options.site_url or "/").rstrip("/") + "/"
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    ET.SubElement(feed, f"{{{ATOM}}}title").text = title
    ET.SubElement(feed, f"{{{ATOM}}}id").text = f"{base}{page}"
    ET.SubElement(feed, f"{{{ATOM}}}link", href=f"{base}{page}")
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href=f"{base}{path}")
    newest = max((e["added"] for e in entries if e.get("added")), default="1970-01-01")
    ET.SubElement(feed, f"{{{ATOM}}}updated").text = f"{newest}T00:00:00Z"
    author = ET.SubElement(feed, f"{{{ATOM}}}author")
    ET.SubElement(author, f"{{{ATOM}}}name").text = "MLSys knowledge base contributors"
    for entry in entries[: site.options.feed_size]:
        item = ET.SubElement(feed, f"{{{ATOM}}}entry")
        ET.SubElement(item, f"{{{ATOM}}}title").text = entry_title(entry)
        url = _permalink(base, entry)
        ET.SubElement(item, f"{{{ATOM}}}id").text = url
        ET.SubElement(item, f"{{{ATOM}}}link", href=url)
        ET.SubElement(item, f"{{{ATOM}}}updated").text = f"{entry.get('added')}T00:00:00Z"
        for name in entry.get("authors", []):
            ET.SubElement(ET.SubElement(item, f"{{{ATOM}}}author"), f"{{{ATOM}}}name").text = name
        summary = (
            entry.get("summary")
            or entry.get("description")
            or entry.get("symptom")
            or entry_title(entry)
        )
        ET.SubElement(item, f"{{{ATOM}}}summary").text = summary
        ET.SubElement(item, f"{{{ATOM}}}category", term=entry.kind)
        for label, target in links(entry)[:1]:
            ET.SubElement(item, f"{{{ATOM}}}link", rel="related", href=target, title=label)
    ET.indent(feed)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(feed, encoding="unicode") + "\n"
