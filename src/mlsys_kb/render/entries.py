"""One entry as Markdown: a heading with its permalink anchor, a byline, a summary, typed
link buttons, cross-links, and for papers a collapsible BibTeX block.

The content (title, byline, summary, an issue's symptom, cause and workaround) is plain
Markdown, with an attribute list for the heading's permalink id (``{ #id }``). The chrome
around it (link buttons, cross-links, the BibTeX block) is a few lines of escaped HTML
with final URLs (``Site.url``): plain Markdown cost most of the build at 10,000 entries.
"""

from __future__ import annotations

from html import escape

from ..model import Entry
from .site import Site, entry_title, home_page, topic_page
from .text import html, html_code, html_href, md, md_code, path_href


def links(entry: Entry) -> list[tuple[str, str]]:
    """Typed links of an entry, label and URL, in reading order; derived ones included."""
    kind = entry.kind
    found: list[tuple[str, str]] = []
    if kind == "papers":
        arxiv = f"https://arxiv.org/abs/{entry['arxiv']}" if entry.get("arxiv") else None
        doi = f"https://doi.org/{entry['doi']}" if entry.get("doi") else None
        # A "Paper" button that goes where the arXiv or DOI button goes is left out.
        if entry.get("url") and entry["url"] not in (arxiv, doi):
            found.append(("Paper", entry["url"]))
        if arxiv:
            found.append(("arXiv", arxiv))
        if doi:
            found.append(("DOI", doi))
        for name, label in (("pdf", "PDF"), ("code", "Code"), ("slides", "Slides")):
            if entry.get(name):
                found.append((label, entry[name]))
    elif kind == "decks":
        if entry.get("url"):
            found.append(("Slides", entry["url"]))
    elif kind == "issues":
        found.append(
            ("GitHub issue", f"https://github.com/{entry['repo']}/issues/{entry['number']}")
        )
    elif kind == "resources":
        found.append((_resource_label(entry), entry["url"]))
        if entry.get("code"):
            found.append(("Code", entry["code"]))
    if entry.get("video"):
        found.append(("Video", entry["video"]))
    return found


def _resource_label(entry: Entry) -> str:
    return {
        "post": "Read the post",
        "course": "Course",
        "docs": "Documentation",
        "tutorial": "Tutorial",
        "site": "Website",
        "dataset": "Project",
    }.get(entry.get("kind", ""), "Website")


def _anchor(text: str, url: str | None) -> str | None:
    return f'<a href="{url}">{html(text)}</a>' if url else None


def page_link(site: Site, page: str, text_html: str, to: str, anchor: str | None = None) -> str:
    """A link, as HTML, from ``page`` to a generated page (or an anchor on it); the text
    is HTML already escaped."""
    return f'<a href="{path_href(site.url(page, to, anchor))}">{text_html}</a>'


def button_row(entry: Entry, site: Site, page: str) -> str:
    """The typed link buttons (Paper, arXiv, DOI, PDF, Code, Slides, Video) as HTML."""
    buttons = []
    for label, url in links(entry):
        target = html_href(url)  # None for what the validator refuses: never linked regardless
        if target and "://" not in url:
            target = html_href(site.url(page, url))
        buttons.append(_anchor(label, target))
    if entry.kind == "decks" and entry.get("file"):
        buttons.append(_anchor("Slides", html_href(site.url(page, entry["file"]))))
    return " ".join(button for button in buttons if button)


def byline(entry: Entry, site: Site) -> str:
    kind = entry.kind
    parts: list[str] = []
    if kind == "papers":
        authors = entry.get("authors", [])
        # Every author: readers search for the last, senior ones as often as the first.
        shown = ", ".join(md(name) for name in authors)
        venue = site.venues.get(entry.get("venue", ""))
        where = f"{md(venue['name'])} {entry.get('year', '')}" if venue else str(entry.get("year"))
        parts = [shown, f"**{where.strip()}**"]
    elif kind == "decks":
        parts.append(f"**Seminar deck** · {md(entry.get('date') or 'undated')}")
        if entry.get("presenters"):
            parts.append("presented by " + ", ".join(md(p) for p in entry["presenters"]))
    elif kind == "issues":
        state = entry["state"]
        parts = [
            f"**{md(entry['repo'])}#{entry['number']}**",
            f"state: **{md(state)}**",
        ]
        if entry.get("versions"):
            parts.append("versions " + ", ".join(md(v) for v in entry["versions"]))
    elif kind == "resources":
        parts.append(f"**{md(entry.get('kind', '').capitalize())}**")
        if entry.get("authors"):
            parts.append(", ".join(md(a) for a in entry["authors"]))
        if entry.get("date"):
            parts.append(md(entry["date"]))
        if entry.get("language"):
            parts.append(f"language: {md(entry['language'])}")
    return " · ".join(part for part in parts if part)


def body(entry: Entry) -> list[str]:
    kind = entry.kind
    if kind == "issues":
        lines = [f"**Symptom:** {md_code(entry['symptom'])}"]
        if entry.get("cause"):
            lines.append(f"**Suspected cause:** {md_code(entry['cause'])}")
        if entry.get("workaround"):
            lines.append(f"**Workaround:** {md_code(entry['workaround'])}")
        return lines
    text = entry.get("summary") or entry.get("description")
    return [md_code(text)] if text else []


def cross_links(entry: Entry, site: Site, page: str) -> str:
    """Topics, tags, decks and the edit link of an entry, as HTML."""

    def link(text: str, to: str, anchor: str | None = None) -> str:
        return page_link(site, page, html(text), to, anchor)

    parts = []
    # The page's own topic goes without saying; the others are linked.
    topics = [
        link(site.topics[t]["title"], topic_page(t))
        for t in entry.get("topics", [])
        if t in site.topics and topic_page(t) != page
    ]
    if topics:
        parts.append("Also in: " + ", ".join(topics))
    tags = [
        link(site.tags[t]["title"], "tags.md", "tag-" + t)
        for t in entry.get("tags", [])
        if t in site.tags
    ]
    if tags:
        parts.append("Tags: " + ", ".join(tags))
    if entry.kind == "papers" and site.reviewed_in.get(entry.id):
        decks = [
            link(deck["title"], home_page(deck), deck.id) for deck in site.reviewed_in[entry.id]
        ]
        parts.append("Reviewed in: " + ", ".join(decks))
    if entry.kind == "decks" and entry.get("papers"):
        papers = [
            link(entry_title(site.papers[p]), home_page(site.papers[p]), p)
            for p in entry["papers"]
            if p in site.papers
        ]
        parts.append("Reviews: " + ", ".join(papers))
    edit = site.edit_url(entry)
    if edit and (anchor := _anchor("Edit this entry", html_href(edit))):
        parts.append(anchor)
    return " · ".join(parts)


def bibtex_block(entry: Entry, site: Site) -> str:
    """The collapsible BibTeX of a paper: the markup pymdownx.details and a code fence
    would give, written directly."""
    source = escape(site.bibtex[entry.id].rstrip(), quote=False)
    return (
        '<details class="quote">\n<summary>BibTeX</summary>\n'
        f'<pre class="bibtex"><code>{source}</code></pre>\n</details>'
    )


def entry_block(entry: Entry, site: Site, page: str) -> str:
    """The full block of an entry, on its home page."""
    lines = [f"### {md_code(entry_title(entry))} {{ #{entry.id} }}", ""]
    by = byline(entry, site)
    if by:
        lines += [by, ""]
    for paragraph in body(entry):
        lines += [paragraph, ""]
    if entry.kind == "decks" and not entry.get("file") and not entry.get("url"):
        lines += ["*Slides not yet in the archive.*", ""]
    # The chrome below is navigation, not content: HTML in one block (kept out of Material's
    # search index when the site uses it, so that hits land on entries). HTML because
    # Python-Markdown's inline links cost about 0.1 ms each, and 10,000 entries carry over
    # 100,000 of them (docs/benchmarks.md); one block because each raw HTML block has a
    # cost of its own.
    chrome = [site.coins(entry)] if entry.kind == "papers" else []
    buttons = button_row(entry, site, page)
    if buttons:
        chrome.append(f'<p class="entry-links">{buttons}</p>')
    cross = cross_links(entry, site, page)
    if cross:
        chrome.append(f'<p class="entry-meta">{cross}</p>')
    if entry.kind == "papers":
        chrome.append(bibtex_block(entry, site))
    if chrome:
        exclude = " data-search-exclude" if site.options.material_search else ""
        lines += [f'<div class="entry-chrome"{exclude}>', *chrome, "</div>", ""]
    return "\n".join(lines)


def entry_line(entry: Entry, site: Site, page: str, *, detail: bool = True) -> str:
    """One list item, HTML, linking to the entry's permalink: index pages list thousands."""
    link = page_link(site, page, html_code(entry_title(entry)), home_page(entry), entry.id)
    if entry.kind == "papers":
        link += site.coins(entry)  # every page that shows a paper carries its citation
    if not detail:
        return f"<li>{link}</li>"
    extra = ""
    if entry.kind == "papers":
        venue = site.venues.get(entry.get("venue", ""))
        authors = entry.get("authors", [])
        lead = html(authors[0]) + (" et al." if len(authors) > 1 else "") if authors else ""
        where = html(f"{venue['name']} {entry.get('year', '')}") if venue else ""
        extra = " — " + ", ".join(part for part in (lead, where) if part)
    elif kind_label := {"decks": "seminar deck", "issues": "issue", "resources": "resource"}.get(
        entry.kind
    ):
        extra = f" — {kind_label}"
        if entry.kind == "issues":
            extra += f", {html(entry['state'])}"
    return f"<li>{link}{extra}</li>"


def entry_list(items: list[str], lead: str | None = None, *, exclude: bool = False) -> list[str]:
    """Lines of an HTML list of ``entry_line`` items, after an optional lead sentence, as a
    block of its own. With Material's search, lists that repeat entries shown elsewhere are
    excluded from its index (``exclude``): it indexes a list with the section above it, so
    a search for a title would land on whichever entry precedes the list. The site's own
    search index is made from the catalog and never sees these lists."""
    if not items:
        return []
    block = [f"<p>{html(lead)}</p>"] if lead else []
    block += ['<ul class="entry-list">', *items, "</ul>"]
    if exclude:
        block = ['<div class="entry-index" data-search-exclude>', *block, "</div>"]
    return [*block, ""]
