"""Comparison tables on topic pages: one row per paper, one column per declared property.

The declarations and what a table covers are explained in schema.py. A table is HTML
(escaped, final URLs), sortable by a small local script (docs/assets/compare.js) that
turns each column heading into a button; without the script it is a plain table. A cell
a paper does not fill in says "unknown": the catalog holds only verified values.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..model import Entry
from .entries import page_link
from .site import Site, entry_title, home_page, newest_first, topic_page
from .text import html, html_code, html_href

UNKNOWN = "unknown"
SOURCES = "data/COMPARISONS.md"  # where each value's source is listed, in the repository


def table_topic(site: Site, topic_id: str) -> Entry | None:
    """The topic whose declaration gives ``topic_id``'s table, if any: its own (which may
    cover only some of its subtopics), else the table that covers it."""
    topic = site.topics[topic_id]
    return topic if topic.get("compare") else site.compared_in.get(topic_id)


def rows(site: Site, declaring: Entry, topic_id: str) -> list[Entry]:
    """Papers of ``topic_id`` and its subtopics that the table of ``declaring`` covers."""
    shown = {t for t in site.subtree(topic_id) if site.compared_in.get(t) is declaring}
    return newest_first([p for p in site.catalog["papers"] if shown & set(p.get("topics", []))])


def short_title(title: str) -> str:
    """What a row shows: the system's name where the title leads with one ("Alpa: ...")
    and the whole title otherwise. The full title is the link's tooltip, and the entry."""
    name, colon, rest = title.partition(": ")
    return name if colon and rest and len(name) <= 30 else title


def code_label(url: str) -> str:
    """A repository URL as a reader scans it: ``owner/name`` on GitHub, else host/path."""
    parts = urlsplit(url)
    path = parts.path.strip("/").removesuffix(".git")
    if parts.netloc.lower() in ("github.com", "www.github.com") and path.count("/") == 1:
        return path
    return f"{parts.netloc}/{path}" if path else parts.netloc


def _cell(value: Any, declaration: dict[str, Any]) -> tuple[str, str]:
    """The cell's HTML and its sort key; both empty for unknown."""
    kind = declaration["kind"]
    if value is None:
        return "", ""
    if kind == "bool":
        text = "yes" if value else "no"
        return html(text), text
    if kind == "text":
        return html(value), value.lower()
    labels = declaration.get("values", {})
    items = value if isinstance(value, list) else [value]
    order = list(labels)
    items = sorted(items, key=lambda item: order.index(item) if item in order else len(order))
    shown = [labels.get(item, item) for item in items]
    return html(", ".join(shown)), ", ".join(shown).lower()


def _td(content: str, sort_key: str, label: str = "", *, head: bool = False) -> str:
    """A cell; ``label`` is its column's heading, which a phone shows beside the value
    (the table is stacked there, one block per paper)."""
    tag = "th" if head else "td"
    scope = ' scope="row"' if head else ""
    named = f' data-label="{html(label)}"' if label else ""
    if not content:
        return f'<td class="compare-unknown"{named} data-sort="">{UNKNOWN}</td>'
    return f'<{tag}{scope}{named} data-sort="{html(sort_key)}">{content}</{tag}>'


def comparison(site: Site, topic_id: str) -> list[str]:
    """Markdown lines of the topic page's comparison section, or none."""
    declaring = table_topic(site, topic_id)
    if declaring is None:
        return []
    papers = rows(site, declaring, topic_id)
    if not papers:
        return []
    page = topic_page(topic_id)
    properties: dict[str, dict[str, Any]] = declaring["compare"]["properties"]
    title = declaring["title"]
    if declaring.id == topic_id:
        counted = f"{len(papers)} paper" + ("" if len(papers) == 1 else "s")
        lead = html(
            f"{counted} compared. Values are taken from each paper or its "
            "official code; a value not verified is shown as unknown."
        )
    else:
        full = page_link(site, page, html(title), topic_page(declaring.id), "compare")
        lead = (
            f"The papers of this topic, from the comparison on {full}. A value not verified "
            "is shown as unknown."
        )
    lead_html = f"<p>{lead}"
    if site.options.repo_url:
        sources = f"{site.options.repo_url.rstrip('/')}/blob/{site.options.branch}/{SOURCES}"
        target = html_href(sources)
        if target:
            lead_html += f' <a href="{target}">Sources of every value</a>.'
    lead_html += "</p>"
    caption = html(f"Comparison: {title}")
    heads = ['<th scope="col" data-sort-type="text">Paper</th>']
    heads.append('<th scope="col" data-sort-type="number">Year</th>')
    heads += [f'<th scope="col">{html(d["label"])}</th>' for d in properties.values()]
    heads.append('<th scope="col">Official code</th>')
    # A paper shown only in this table (on a parent topic's page) carries its citation
    # here; elsewhere its entry on the page does.
    listed = {id(p) for p in site.by_topic[topic_id].get("papers", [])}
    body = []
    for paper in papers:
        values = paper.get("compare", {})
        title = entry_title(paper)
        link = page_link(site, page, html_code(short_title(title)), home_page(paper), paper.id)
        link = link.replace("<a ", f'<a title="{html(title)}" ', 1)
        if id(paper) not in listed:
            link += site.coins(paper)
        cells = [_td(link, short_title(title).lower(), head=True)]
        year = paper.get("year")
        cells.append(_td(html(year), str(year), "Year") if year else _td("", "", "Year"))
        for name, declaration in properties.items():
            cells.append(_td(*_cell(values.get(name), declaration), declaration["label"]))
        code = html_href(paper["code"]) if paper.get("code") else None
        if code:
            label = code_label(paper["code"])
            # A long repository path may break after a slash, never inside a name.
            shown = html(label).replace("/", "/<wbr>")
            cells.append(_td(f'<a href="{code}">{shown}</a>', label.lower(), "Official code"))
        else:
            cells.append(_td("", "", "Official code"))
        body.append("<tr>" + "".join(cells) + "</tr>")
    legend = [
        f"<dt>{html(d['label'])}</dt><dd>{html(d['description'])}</dd>"
        for d in properties.values()
        if d.get("description")
    ]
    block = [
        '<div class="entry-compare" data-search-exclude>',
        lead_html,
        # A region that scrolls sideways if it must, not the whole page; focusable so that a
        # keyboard can scroll it too. A figure, not a div: Material's search indexer ends
        # data-search-exclude at the first closing tag of the same name.
        f'<figure class="compare-scroll" role="region" tabindex="0" aria-label="{caption}">',
        '<table class="compare-table">',
        f"<caption>{caption}</caption>",
        "<thead><tr>" + "".join(heads) + "</tr></thead>",
        "<tbody>",
        *body,
        "</tbody>",
        "</table></figure>",
    ]
    if legend:
        block.append('<dl class="compare-legend">' + "".join(legend) + "</dl>")
    block.append("</div>")
    return ["## Comparison { #compare }", "", *block, ""]
