"""One entry as Markdown: a heading with its permalink anchor, a byline, a summary, typed
link buttons, cross-links, and for papers a collapsible BibTeX block.

Output is plain Markdown plus two documented Material/Python-Markdown features:
attribute lists (``{ #id }``, ``{ .entry-links }``) and collapsible blocks (``???``).
"""

from __future__ import annotations

from ..bibtex import paper_bibtex
from ..model import Entry
from .site import Site, entry_title, home_page, relative, topic_page
from .text import code, href, md, md_code

AUTHORS_SHOWN = 8


def links(entry: Entry) -> list[tuple[str, str]]:
    """Typed links of an entry, label and URL, in reading order; derived ones included."""
    kind = entry.kind
    found: list[tuple[str, str]] = []
    if kind == "papers":
        if entry.get("url"):
            found.append(("Paper", entry["url"]))
        if entry.get("arxiv"):
            found.append(("arXiv", f"https://arxiv.org/abs/{entry['arxiv']}"))
        if entry.get("doi"):
            found.append(("DOI", f"https://doi.org/{entry['doi']}"))
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


def button_row(entry: Entry, page: str) -> str:
    buttons = []
    for label, url in links(entry):
        if href(url) is None:  # the validator refuses these; never link one regardless
            continue
        target = href(url) if "://" in url else href(relative(page, url))
        if target:
            buttons.append(f"[{md(label)}]({target})")
    if entry.kind == "decks" and entry.get("file"):
        buttons.append(f"[Slides]({href(relative(page, entry['file']))})")
    return " ".join(buttons)


def byline(entry: Entry, site: Site) -> str:
    kind = entry.kind
    parts: list[str] = []
    if kind == "papers":
        authors = entry.get("authors", [])
        shown = ", ".join(md(name) for name in authors[:AUTHORS_SHOWN])
        if len(authors) > AUTHORS_SHOWN:
            shown += f", … ({len(authors)} authors)"
        venue = site.venues.get(entry.get("venue", ""))
        where = f"{md(venue['name'])} {entry.get('year', '')}" if venue else str(entry.get("year"))
        parts = [shown, f"**{where.strip()}**"]
    elif kind == "decks":
        parts.append(f"**Seminar deck** · {entry.get('date') or 'undated'}")
        if entry.get("presenters"):
            parts.append("presented by " + ", ".join(md(p) for p in entry["presenters"]))
    elif kind == "issues":
        state = entry["state"]
        parts = [
            f"**{md(entry['repo'])}#{entry['number']}**",
            f"state: **{state}**",
        ]
        if entry.get("versions"):
            parts.append("versions " + ", ".join(md(v) for v in entry["versions"]))
    elif kind == "resources":
        parts.append(f"**{md(entry.get('kind', '').capitalize())}**")
        if entry.get("authors"):
            parts.append(", ".join(md(a) for a in entry["authors"]))
        if entry.get("date"):
            parts.append(entry["date"])
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
    parts = []
    # The page's own topic goes without saying; the others are linked.
    topics = [
        f"[{md(site.topics[t]['title'])}]({relative(page, topic_page(t))})"
        for t in entry.get("topics", [])
        if t in site.topics and topic_page(t) != page
    ]
    if topics:
        parts.append("Also in: " + ", ".join(topics))
    tags = [
        f"[{md(site.tags[t]['title'])}]({relative(page, 'tags.md', 'tag-' + t)})"
        for t in entry.get("tags", [])
        if t in site.tags
    ]
    if tags:
        parts.append("Tags: " + ", ".join(tags))
    if entry.kind == "papers" and site.reviewed_in.get(entry.id):
        decks = [
            f"[{md(deck['title'])}]({relative(page, home_page(deck), deck.id)})"
            for deck in site.reviewed_in[entry.id]
        ]
        parts.append("Reviewed in: " + ", ".join(decks))
    if entry.kind == "decks" and entry.get("papers"):
        papers = [
            f"[{md(entry_title(site.papers[p]))}]({relative(page, home_page(site.papers[p]), p)})"
            for p in entry["papers"]
            if p in site.papers
        ]
        parts.append("Reviews: " + ", ".join(papers))
    edit = site.edit_url(entry)
    if edit and href(edit):
        parts.append(f"[Edit this entry]({href(edit)})")
    return " · ".join(parts)


def entry_block(entry: Entry, site: Site, page: str) -> str:
    """The full block of an entry, on its home page."""
    lines = [f"### {md_code(entry_title(entry))} {{ #{entry.id} }}", ""]
    by = byline(entry, site)
    if by:
        lines += [by, ""]
    for paragraph in body(entry):
        lines.append(paragraph)
        if entry.kind == "papers":
            # Searches find papers by title, author and venue; summaries stay out of the
            # index, which keeps it small enough to load fast at 10,000 entries.
            lines.append("{ data-search-exclude }")
        lines.append("")
    if entry.kind == "decks" and not entry.get("file") and not entry.get("url"):
        lines += ["*Slides not yet in the archive.*", ""]
    buttons = button_row(entry, page)
    if buttons:
        lines += [buttons, "{ .entry-links data-search-exclude }", ""]
    cross = cross_links(entry, site, page)
    if cross:
        # Navigation, not content: kept out of the search index so hits land on entries.
        lines += [cross, "{ .entry-meta data-search-exclude }", ""]
    if entry.kind == "papers":
        bib = paper_bibtex(entry, site.venues)
        lines += ['??? quote "BibTeX"', "", "    ```bibtex"]
        lines += [f"    {line}" if line else "" for line in code(bib).rstrip().split("\n")]
        lines += ["    ```", ""]
    return "\n".join(lines)


def entry_line(entry: Entry, site: Site, page: str, *, detail: bool = True) -> str:
    """A one-line list item linking to the entry's permalink."""
    link = f"[{md_code(entry_title(entry))}]({relative(page, home_page(entry), entry.id)})"
    if not detail:
        return f"- {link}"
    extra = ""
    if entry.kind == "papers":
        venue = site.venues.get(entry.get("venue", ""))
        authors = entry.get("authors", [])
        lead = md(authors[0]) + (" et al." if len(authors) > 1 else "") if authors else ""
        where = f"{md(venue['name'])} {entry.get('year', '')}" if venue else ""
        extra = " — " + ", ".join(part for part in (lead, where) if part)
    elif kind_label := {"decks": "seminar deck", "issues": "issue", "resources": "resource"}.get(
        entry.kind
    ):
        extra = f" — {kind_label}"
        if entry.kind == "issues":
            extra += f", {entry['state']}"
    return f"- {link}{extra}"
