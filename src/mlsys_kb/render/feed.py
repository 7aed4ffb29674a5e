"""An Atom feed of entries by their ``added`` date, built with the standard library's XML
writer so that every value is escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..model import Entry
from .entries import links
from .site import Site, entry_title, home_page

ATOM = "http://www.w3.org/2005/Atom"


def _permalink(base: str, entry: Entry) -> str:
    page = home_page(entry).removesuffix("index.md")
    return f"{base}{page}#{entry.id}"


def atom(site: Site, entries: list[Entry]) -> str:
    base = (site.options.site_url or "/").rstrip("/") + "/"
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    ET.SubElement(feed, f"{{{ATOM}}}title").text = "MLSys knowledge base: recently added"
    ET.SubElement(feed, f"{{{ATOM}}}id").text = base
    ET.SubElement(feed, f"{{{ATOM}}}link", href=base)
    ET.SubElement(feed, f"{{{ATOM}}}link", rel="self", href=f"{base}feed.xml")
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
