"""The generated pages, each a pure function from the catalog to Markdown."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator

from ..model import Entry
from ..schema import ENTRY_KINDS
from .compare import comparison
from .entries import entry_block, entry_line, entry_list, page_link
from .feed import SITE_TITLE, topic_feed_path
from .site import KIND_TITLES, Site, entry_title, home_page, newest_first, relative, topic_page
from .text import html, html_code, md, md_code, path_href

_NO_SEARCH = "---\nsearch:\n  exclude: true\n---\n\n"


def no_search(site: Site) -> str:
    """Front matter that keeps an index page out of Material's search index, when the site
    uses Material's search: a search should land on the entries, not on lists of them."""
    return _NO_SEARCH if site.options.material_search else ""


def _topic_tree(site: Site, page: str, parent: str | None = None, depth: int = 0) -> list[str]:
    lines = []
    for topic in site.children[parent]:
        count = site.total_count(topic.id)
        link = f"[{md(topic['title'])}]({relative(page, topic_page(topic.id))})"
        lines.append(f"{'    ' * depth}- {link} ({count})")
        lines += _topic_tree(site, page, topic.id, depth + 1)
    return lines


def recent_entries(site: Site) -> list[Entry]:
    entries = [e for e in site.entries() if e.get("added")]
    return sorted(entries, key=lambda e: (e["added"], e.kind, e.id), reverse=True)


def _count(number: int, one: str, many: str | None = None) -> str:
    return f"{number} {one if number == 1 else many or one + 's'}"


def home(site: Site) -> str:
    page = "index.md"
    counts = {kind: len(site.catalog[kind]) for kind in ENTRY_KINDS}
    resources = _count(
        counts["resources"], "tool, framework, post or guide", "tools, frameworks, posts and guides"
    )
    lines = [
        feed_front_matter("feed.xml", f"{SITE_TITLE}: recently added") + "# MLSys knowledge base",
        "",
        "A curated, searchable collection of machine-learning-systems study material: "
        f"{_count(counts['papers'], 'paper')}, {_count(counts['decks'], 'seminar deck')}, "
        f"{_count(counts['issues'], 'notable GitHub issue')} and "
        f"{resources}, "
        "organised by topic. Press `/` or use the search "
        "box to find a paper, an author, a venue or the text of an error message.",
        "",
        "## Topics",
        "",
        *_topic_tree(site, page),
        "",
        "## Recently added",
        "",
    ]
    recent = recent_entries(site)[: site.options.recent]
    lines += entry_list(
        [entry_line(e, site, page) for e in recent], exclude=site.options.material_search
    )
    lines += [
        "## Browse",
        "",
        "- Papers [by year](papers/by-year.md), [by venue](papers/by-venue.md) "
        "and [by topic](papers/by-topic.md)",
        "- [Seminar decks](decks.md) by date",
        "- [GitHub issues](issues.md) with their state",
        "- [Tags](tags.md) and [statistics](stats.md)",
        "",
        "## Downloads",
        "",
        "- [papers.bib](downloads/papers.bib): the whole bibliography as BibTeX",
        "- [catalog.json](downloads/catalog.json): every catalog as JSON",
        "- [feed.xml](feed.xml): an Atom feed of newly added entries; each topic's page "
        "links a feed of its own",
        "",
    ]
    return "\n".join(lines)


_INERT = str.maketrans({c: f"\\u{ord(c):04x}" for c in "<>&[]"})


def _yaml_string(text: str) -> str:
    """A double-quoted YAML (and JSON) string with no HTML or link syntax in its source, so
    that it stays inert even where front matter is not stripped; YAML reads the escapes
    back."""
    return json.dumps(text).translate(_INERT)


def feed_front_matter(path: str, title: str) -> str:
    """Front matter naming the page's Atom feed, which the plugin's theme template
    (templates/main.html) links from the page's head."""
    return f"---\nfeed: {_yaml_string(path)}\nfeed_title: {_yaml_string(title)}\n---\n\n"


def topic(site: Site, topic_id: str, overview: str | None = None) -> str:
    page = topic_page(topic_id)
    entry = site.topics[topic_id]
    feed = topic_feed_path(topic_id)
    lines = [
        feed_front_matter(feed, f"{SITE_TITLE}: {entry['title']}") + f"# {md(entry['title'])}",
        "",
        md(entry["description"]),
        "",
    ]
    parent = entry.get("parent")
    if parent:
        up = site.topics[parent]
        lines += [f"Part of [{md(up['title'])}]({relative(page, topic_page(parent))}).", ""]
    if overview:
        lines += [f"Start with the [overview]({relative(page, overview)}).", ""]
    which = "this topic (with its subtopics)" if site.children[topic_id] else "this topic"
    link = f"[Atom feed]({relative(page, feed)}){{ .topic-feed }}"
    lines += [f"Follow {which} in a feed reader: {link}.", ""]
    children = site.children[topic_id]
    if children:
        lines += ["## Subtopics", "", *_topic_tree(site, page, topic_id), ""]
    lines += comparison(site, topic_id)
    groups = site.by_topic[topic_id]
    for kind in ENTRY_KINDS:
        entries = groups.get(kind, [])
        if not entries:
            continue
        if kind == "papers":
            entries = newest_first(entries)
        elif kind == "decks":
            entries = sorted(entries, key=lambda d: d.get("date") or "", reverse=True)
        else:
            entries = sorted(entries, key=lambda e: entry_title(e).lower())
        here = [e for e in entries if home_page(e) == page]
        elsewhere = [e for e in entries if home_page(e) != page]
        lines += [f"## {KIND_TITLES[kind]} {{ #kind-{kind} }}", ""]
        for item in here:
            lines.append(entry_block(item, site, page))
        if elsewhere:
            items = [entry_line(item, site, page) for item in elsewhere]
            lines += entry_list(items, "Also in this topic:", exclude=site.options.material_search)
    if not any(groups.values()) and not children:
        lines += ["No entries yet.", ""]
    return "\n".join(lines)


def _paper_index(site: Site, page: str, title: str, groups: dict[str, list[Entry]]) -> str:
    lines = [no_search(site) + f"# Papers by {title}", ""]
    lines.append(
        " · ".join(
            f"[{label}]({relative(page, f'papers/by-{name}.md')})"
            for name, label in (("year", "by year"), ("venue", "by venue"), ("topic", "by topic"))
        )
    )
    lines.append("")
    for heading, papers in groups.items():
        lines += [f"## {heading}", ""]
        lines += entry_list([entry_line(p, site, page) for p in newest_first(papers)])
    return "\n".join(lines)


def papers_by_year(site: Site) -> str:
    groups: dict[str, list[Entry]] = defaultdict(list)
    for paper in site.catalog["papers"]:
        groups[str(paper.get("year", "Unknown"))].append(paper)
    ordered = dict(sorted(groups.items(), reverse=True))
    return _paper_index(site, "papers/by-year.md", "year", ordered)


def papers_by_venue(site: Site) -> str:
    groups: dict[str, list[Entry]] = defaultdict(list)
    for paper in site.catalog["papers"]:
        venue = site.venues.get(paper.get("venue", ""))
        groups[md(f"{venue['name']}: {venue['title']}") if venue else "Unknown"].append(paper)
    ordered = dict(sorted(groups.items(), key=lambda item: item[0].lower()))
    return _paper_index(site, "papers/by-venue.md", "venue", ordered)


def papers_by_topic(site: Site) -> str:
    """Each topic with its paper count, linking to the papers on its page: listing every
    paper again here would double the largest pages of the site for nothing."""
    page = "papers/by-topic.md"
    lines = [no_search(site) + "# Papers by topic", ""]
    lines.append(
        " · ".join(
            f"[{label}]({relative(page, f'papers/by-{name}.md')})"
            for name, label in (("year", "by year"), ("venue", "by venue"), ("topic", "by topic"))
        )
    )
    lines.append("")

    def tree(parent: str | None, depth: int) -> None:
        for topic_entry in site.children[parent]:
            count = len(site.by_topic[topic_entry.id].get("papers", []))
            target = relative(page, topic_page(topic_entry.id), "kind-papers" if count else None)
            title = f"[{md(topic_entry['title'])}]({target})"
            lines.append(f"{'    ' * depth}- {title}: {_count(count, 'paper')}")
            tree(topic_entry.id, depth + 1)

    tree(None, 0)
    lines.append("")
    return "\n".join(lines)


def decks(site: Site) -> str:
    page = "decks.md"
    items = sorted(
        site.catalog["decks"], key=lambda d: (d.get("date") or "", entry_title(d)), reverse=True
    )
    lines = [no_search(site) + "# Seminar decks", "", "Seminar slide decks, newest first.", ""]
    rows = []
    for deck in items:
        when = html(deck.get("date") or "undated")
        reviews = [site.papers[p] for p in deck.get("papers", []) if p in site.papers]
        extra = ""
        if reviews:
            extra = " — reviews " + ", ".join(
                page_link(site, page, html_code(entry_title(p)), home_page(p), p.id)
                for p in reviews
            )
        rows.append(
            entry_line(deck, site, page, detail=False).replace("</li>", f" ({when}){extra}</li>")
        )
    lines += entry_list(rows)
    return "\n".join(lines)


def issues(site: Site) -> str:
    page = "issues.md"
    lines = [no_search(site) + "# GitHub issues", ""]
    by_state = Counter(issue["state"] for issue in site.catalog["issues"])
    lines += [f"{by_state['open']} open, {by_state['closed']} closed.", ""]
    for state in ("open", "closed"):
        group = [i for i in site.catalog["issues"] if i["state"] == state]
        if not group:
            continue
        lines += [f"## {state.capitalize()}", ""]
        for issue in sorted(group, key=lambda i: (i["repo"], -i["number"])):
            link = relative(page, home_page(issue), issue.id)
            lines.append(
                f"- [{md_code(issue['title'])}]({link}) — {md(issue['repo'])}#{issue['number']}"
            )
            lines.append(f"    - Symptom: {md_code(issue['symptom'])}")
            if issue.get("cause"):
                lines.append(f"    - Suspected cause: {md_code(issue['cause'])}")
            if issue.get("workaround"):
                lines.append(f"    - Workaround: {md_code(issue['workaround'])}")
        lines.append("")
    return "\n".join(lines)


def tags(site: Site) -> str:
    page = "tags.md"
    lines = [no_search(site) + "# Tags", ""]
    for tag in site.catalog["tags"]:
        entries = site.by_tag.get(tag.id, [])
        if not entries:
            continue
        lines += [f"## {md(tag['title'])} {{ #tag-{tag.id} }}", ""]
        if tag.get("description"):
            lines += [md(tag["description"]), ""]
        lines += entry_list(
            [entry_line(e, site, page, detail=False) for e in sorted(entries, key=entry_title)]
        )
    unused = [tag for tag in site.catalog["tags"] if not site.by_tag.get(tag.id)]
    if unused:
        lines += ["## Not yet used", ""]
        lines += [f"- {md(t['title'])}" for t in unused]
        lines.append("")
    return "\n".join(lines)


def explore(site: Site) -> str:
    """The Explore page: facets and results are drawn by its script from the search index;
    the page carries the names of the facet values (ids in the index and the address)."""
    page = "explore.md"
    labels = {
        "kind": {kind: KIND_TITLES[kind] for kind in ENTRY_KINDS},
        # Topics in the order of the navigation, each with its depth, for an indented list.
        "topic": {t.id: t["title"] for t, _ in _topics_in_order(site)},
        "depth": {t.id: depth for t, depth in _topics_in_order(site)},
        "venue": {v.id: v["name"] for v in site.catalog["venues"]},
        "tag": {t.id: t["title"] for t in site.catalog["tags"]},
    }
    # JSON inside <script>: "<" escaped so that no catalog text can close the element.
    # Key order is kept: the script lists values in it.
    data = json.dumps(labels, ensure_ascii=False).replace("<", "\\u003c")
    script = path_href(site.url(page, "assets/javascripts/mlsys-kb/explore.js"))
    index = path_href(site.url(page, "pagefind/pagefind.js"))
    facets = "\n".join(
        f'<details class="kb-facet" data-facet="{name}" open><summary>{title}</summary>'
        f'<div class="kb-facet__values" role="group" aria-label="{title}"></div></details>'
        for name, title in (
            ("kind", "Kind"),
            ("topic", "Topic"),
            ("venue", "Venue"),
            ("year", "Year"),
            ("tag", "Tag"),
        )
    )
    lines = [
        # The facets and the results need the width the navigation and contents would take.
        "---\nhide:\n  - navigation\n  - toc\n---\n",
        "# Explore",
        "",
        "Narrow the catalog by kind, topic, venue, year and tag, and by words. Within one "
        "facet any chosen value matches; across facets all must. The address keeps the view, "
        "to share or bookmark.",
        "",
        f'<div class="kb-explore" data-index="{index}">',
        '<form class="kb-explore__query" role="search">',
        '<label for="kb-explore-q">Words</label>',
        '<input id="kb-explore-q" name="q" type="search" autocomplete="off" '
        'placeholder="title, author, error message…">',
        '<button type="reset" class="kb-explore__reset">Clear all</button>',
        "</form>",
        '<div class="kb-explore__layout">',
        f'<div class="kb-explore__facets">\n{facets}\n</div>',
        '<div class="kb-explore__results">',
        '<p class="kb-explore__count" data-result-count="" aria-live="polite">Loading…</p>',
        '<ol class="kb-explore__list"></ol>',
        '<button type="button" class="kb-explore__more md-button" hidden>Show more</button>',
        "</div>",
        "</div>",
        "<noscript><p>The Explore page needs JavaScript. Every entry is also on its topic "
        "page, and papers are listed by year, venue and topic.</p></noscript>",
        f'<script type="application/json" class="kb-explore__labels">{data}</script>',
        f'<script type="module" src="{script}"></script>',
        "</div>",
        "",
    ]
    return "\n".join(lines)


def _topics_in_order(
    site: Site, parent: str | None = None, depth: int = 0
) -> Iterator[tuple[Entry, int]]:
    for topic in site.children[parent]:
        yield topic, depth
        yield from _topics_in_order(site, topic.id, depth + 1)
