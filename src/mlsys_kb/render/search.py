"""Search records, made from the catalog: one per entry, one per section of a hand-written
page. Pure functions; the plugin hands the records to Pagefind (``search_index.py``).

A record's URL is the entry's permalink relative to the site root (``topics/gnn/#id``): the
index does not depend on where the site is deployed, and the search scripts resolve it
against the site's own address. Its text is what a reader may search for: title, every
author, venue, year, summary, an issue's symptom, cause and workaround, tags and topics.
Lists of other entries (index pages, "also in this topic") are nobody's text and are left
out, as are link buttons and BibTeX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser

from ..model import Entry
from ..schema import ENTRY_KINDS
from .site import Site, _url_path, entry_title, home_page

# The facets of the Explore page, in its order; each is a Pagefind filter and a query
# string parameter named after the catalog field.
FACETS = ("kind", "topic", "venue", "year", "tag")

KIND_SINGULAR = {
    "papers": "Paper",
    "decks": "Seminar deck",
    "issues": "GitHub issue",
    "resources": "Resource",
}


@dataclass(frozen=True)
class Record:
    """One search result: where it leads, what it shows, what finds it."""

    url: str  # relative to the site root, with the anchor: topics/gnn/#zheng2020distdgl
    title: str
    text: str  # searched along with the title; plain text
    meta: dict[str, str] = field(default_factory=dict)  # shown in result lists
    filters: dict[str, list[str]] = field(default_factory=dict)
    sort: dict[str, str] = field(default_factory=dict)
    # Words that name the entry (its id): weighted like the title, not shown.
    names: tuple[str, ...] = ()


def entry_url(entry: Entry, directory_urls: bool = True) -> str:
    """The permalink of an entry, relative to the site root."""
    return f"{_url_path(home_page(entry), directory_urls)}#{entry.id}"


def _topic_with_ancestors(site: Site, topic: str) -> list[str]:
    chain = []
    while topic and topic in site.topics and topic not in chain:
        chain.append(topic)
        topic = site.topics[topic].get("parent")
    return chain


def _year(entry: Entry) -> str:
    """The year a reader would sort the entry by: publication, talk or post date, else the
    date it was added."""
    if entry.get("year"):
        return str(entry["year"])
    for name in ("date", "added"):
        if entry.get(name):
            return str(entry[name])[:4]
    return ""


def byline(entry: Entry, site: Site) -> str:
    """Who and where, in one plain line: the byline of result lists."""
    kind = entry.kind
    if kind == "papers":
        return ", ".join(entry.get("authors", []))
    if kind == "decks":
        who = ", ".join(entry.get("presenters", []))
        when = entry.get("date") or "undated"
        return f"{when}" + (f", presented by {who}" if who else "")
    if kind == "issues":
        return f"{entry['repo']}#{entry['number']}, {entry['state']}"
    parts = [str(entry.get("kind", "")).capitalize(), ", ".join(entry.get("authors", []))]
    return ", ".join(part for part in parts if part)


def entry_record(entry: Entry, site: Site) -> Record:
    kind = entry.kind
    venue = site.venues.get(entry.get("venue", ""))
    topics = [t for t in entry.get("topics", []) if t in site.topics]
    tags = [t for t in entry.get("tags", []) if t in site.tags]
    year = _year(entry)
    by = byline(entry, site)
    # What the entry says first: a result shows the text after the title, under a line that
    # already gives the byline, venue and year (search-worker.js).
    text: list[str] = []
    if kind == "issues":
        text += [entry.get(name, "") for name in ("symptom", "cause", "workaround")]
    else:
        text.append(entry.get("summary") or entry.get("description") or "")
    text.append(by)
    if venue:
        text.append(f"{venue['name']} {venue['title']}")
    if entry.get("year"):
        text.append(str(entry["year"]))
    if kind == "issues":
        text.append(f"{entry['repo']} {entry['number']}")
        text += entry.get("versions", [])
    text += [site.tags[t]["title"] for t in tags]
    text += [site.topics[t]["title"] for t in topics]
    all_topics: list[str] = []
    for topic in topics:
        all_topics += [t for t in _topic_with_ancestors(site, topic) if t not in all_topics]
    filters = {"kind": [kind], "topic": all_topics, "tag": tags}
    if venue:
        filters["venue"] = [entry["venue"]]
    if entry.get("year"):
        filters["year"] = [str(entry["year"])]
    meta = {
        "title": _flat(entry_title(entry)),
        "id": entry.id,
        "kind": KIND_SINGULAR[kind],
        "byline": _flat(by),
    }
    if venue:
        meta["venue"] = _flat(venue["name"])
    if entry.get("year"):
        meta["year"] = str(entry["year"])
    return Record(
        url=entry_url(entry, site.options.directory_urls),
        title=meta["title"],
        text=_flat(" ".join(part for part in text if part)),
        meta=meta,
        filters={name: values for name, values in filters.items() if values},
        # Every entry has a year to sort by, 0 when none is known: Pagefind leaves a record
        # without the sort key out of sorted results, and Explore sorts by it.
        sort={"year": year or "0"},
        names=(entry.id,),
    )


def topic_record(topic: Entry, site: Site) -> Record:
    """A topic page: found by its title and description, not by its entries' text."""
    url = _url_path(f"topics/{topic.id}/index.md", site.options.directory_urls)
    return Record(
        url=url,
        title=_flat(topic["title"]),
        text=_flat(topic["description"]),
        meta={"title": _flat(topic["title"]), "kind": "Topic", "byline": "Topic"},
        names=(topic.id,),
    )


def catalog_records(site: Site) -> list[Record]:
    """Every entry's record and every topic's, in catalog order."""
    records = [entry_record(entry, site) for kind in ENTRY_KINDS for entry in site.catalog[kind]]
    records += [topic_record(topic, site) for topic in site.catalog["topics"]]
    return records


def page_records(content_html: str, url: str, page_title: str, label: str) -> list[Record]:
    """A hand-written page, section by section: each heading with an id starts a record
    that leads to its anchor; the text before the first such heading leads to the page.
    Sections are titled "page: heading", the page by its own first heading."""
    parser = _Sections()
    parser.feed(content_html)
    parser.close()
    sections = [
        (anchor, _flat(heading), _LONE_STOP.sub(r"\1", _flat("".join(words))))
        for anchor, heading, words in parser.sections
    ]
    title = next((heading for anchor, heading, _ in sections if anchor and heading), "")
    title = title if parser.first_level == 1 else page_title
    records = []
    for index, (anchor, heading, text) in enumerate(sections):
        if not text and not anchor:
            continue
        own = title if (index <= 1 and parser.first_level == 1) or not heading else heading
        shown = own if own == title else f"{title}: {own}"
        records.append(
            Record(
                url=f"{url}#{anchor}" if anchor else url,
                title=shown,
                text=text,
                meta={"title": shown, "kind": label, "byline": label},
            )
        )
    if not records:  # a page with no text still has a title to be found by
        records.append(Record(url=url, title=page_title, text="", meta={"title": page_title}))
    return records


_HEADING = re.compile(r"h[1-6]")
# "better [@key]." leaves "better ." once the citation's number is dropped.
_LONE_STOP = re.compile(r" ([.,;:])(?= |$)")
_SKIP = {"script", "style", "template"}
# Elements that end a run of words: their text is not glued to the next element's.
_BLOCK = {
    "address", "blockquote", "br", "dd", "details", "div", "dl", "dt", "figcaption",
    "figure", "hr", "li", "ol", "p", "pre", "section", "summary", "table", "td", "th",
    "tr", "ul",
}  # fmt: skip
# Links whose text is a sign, not words: a heading's permalink, a citation's footnote number
# (mkdocs-bibtex) and the footnote's way back.
_SIGNS = frozenset({"headerlink", "footnote-ref", "footnote-backref"})


class _Sections(HTMLParser):
    """Splits converted Markdown at its headings; drops the signs of links (permalinks,
    footnote numbers) and keeps inline markup's words whole ("<em>Graph</em>SAINT")."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[tuple[str, str, list[str]]] = [("", "", [])]
        self._heading: list[str] | None = None
        self._skip = 0
        self._in_sign = False
        self.first_level = 0  # level of the first heading with an id: 1 if the page has an h1

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in _SKIP:
            self._skip += 1
        elif _HEADING.fullmatch(tag) and values.get("id"):
            self.first_level = self.first_level or int(tag[1])
            self._heading = []
            self.sections.append((values["id"] or "", "", []))
        elif tag == "a" and _SIGNS.intersection((values.get("class") or "").split()):
            self._in_sign = True
        elif tag in _BLOCK:
            self.handle_data(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag == "a":
            self._in_sign = False
        elif _HEADING.fullmatch(tag) and self._heading is not None:
            anchor, _, words = self.sections[-1]
            self.sections[-1] = (anchor, "".join(self._heading), words)
            self._heading = None
        elif tag in _BLOCK:
            self.handle_data(" ")

    def handle_data(self, data: str) -> None:
        if self._skip or self._in_sign:
            return
        if self._heading is not None:
            self._heading.append(data)
        else:
            self.sections[-1][2].append(data)


def _flat(text: object) -> str:
    return " ".join(str(text).split())


def record_html(record: Record) -> str:
    """A record as the small HTML document Pagefind indexes: the title and the entry's
    names weighted above its text, meta, filters and sort as attributes (so they are not
    searched as text). Pagefind stores meta and excerpts unescaped: the scripts that show
    them escape them."""
    names = " ".join(record.names)
    lines = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"></head><body>',
        f'<h1 data-pagefind-weight="10">{_html(han_apart(record.title))}</h1>',
    ]
    lines.append(f"<p>{_html(han_apart(record.text))}</p>")
    if names:  # last: an excerpt shows the text after the title, not the id
        lines.append(f'<p data-pagefind-weight="10">{_html(names)}</p>')
    for name, value in {**record.meta, "permalink": record.url}.items():
        lines.append(_attribute_element("meta", name, value))
    for name, values in record.filters.items():
        lines += [_attribute_element("filter", name, value) for value in values]
    for name, value in record.sort.items():
        lines.append(_attribute_element("sort", name, value))
    lines.append("</body></html>")
    return "\n".join(lines)


_HAN = re.compile(r"([\u3400-\u9fff\uf900-\ufaff])(?=[\u3400-\u9fff\uf900-\ufaff])")


def han_apart(text: str) -> str:
    """Chinese characters one word each (the search scripts split a query the same way).
    One index serves every language, and in it Pagefind splits words at spaces only: a
    Chinese title was one word, found by its first characters and no others."""
    return _HAN.sub("\\1 ", text)


def _attribute_element(role: str, name: str, value: str) -> str:
    # Pagefind reads the value from the attribute in brackets; the element has no text.
    return f'<i data-pagefind-{role}="{name}[data-value]" data-value="{_html(value)}"></i>'


def _html(text: str) -> str:
    return escape(text, quote=True)
