"""Citations for builders without mkdocs-bibtex: ``[@key]`` in a hand-written page becomes a
Markdown footnote made from the catalog, as mkdocs-bibtex makes one from papers.bib.

Pure functions on text; ``mlsys-kb render --out`` applies them to every hand-written page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Entry
from .entries import links
from .site import Site, entry_title, home_page, relative
from .text import href, md

# What mkdocs-bibtex reads as a citation: [@key] or [@key1; @key2]. Code spans are matched
# first so that a citation-like text inside one stays as it is.
_CODE_OR_CITATION = re.compile(
    r"(?P<code>(?P<ticks>`+).+?(?P=ticks))"
    r"|\[(?P<keys>\s*@[\w:.-]+(?:\s*;\s*@[\w:.-]+)*\s*)\]"
)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_BIBLIOGRAPHY = re.compile(r"^\\bibliography\s*$")


@dataclass(frozen=True)
class Resolved:
    markdown: str
    unknown: list[tuple[int, str]]  # (line number, key) of citations the catalog lacks


def reference(paper: Entry, site: Site, page: str) -> str:
    """A paper as one line of Markdown: authors, title, venue and year, its links and its
    place in the catalog. Catalog text is escaped: it stays text."""
    authors = ", ".join(md(name) for name in paper.get("authors", []))
    venue = site.venues.get(paper.get("venue", ""))
    where = ", ".join(
        part for part in (md(venue["name"]) if venue else "", str(paper.get("year", ""))) if part
    )
    targets = [(label, href(url)) for label, url in links(paper) if label in ("arXiv", "DOI")]
    linked = [f"[{label}]({target})" for label, target in targets if target]
    linked.append(f"[In the catalog]({relative(page, home_page(paper), paper.id)})")
    return f"{authors}. *{md(entry_title(paper))}*. {where}. " + " · ".join(linked)


def resolve(markdown: str, page: str, site: Site) -> Resolved:
    """``markdown`` (the page ``page``, relative to docs) with each citation replaced by
    footnote references and the footnotes appended, in order of first citation."""
    cited: list[str] = []
    unknown: list[tuple[int, str]] = []
    out: list[str] = []
    fence: str | None = None
    for number, line in enumerate(markdown.split("\n"), start=1):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1).startswith(fence):
                fence = None
            out.append(line)
            continue
        if opening:
            fence = opening.group(1)
            out.append(line)
            continue
        if _BIBLIOGRAPHY.match(line):
            continue  # the footnotes below are the bibliography

        def cite(match: re.Match[str], number: int = number) -> str:
            if match.group("code"):
                return match.group(0)
            refs = []
            for key in re.findall(r"@([\w:.-]+)", match.group("keys")):
                if key not in site.papers:
                    unknown.append((number, key))
                    continue
                if key not in cited:
                    cited.append(key)
                refs.append(f"[^{key}]")
            return "".join(refs)

        out.append(_CODE_OR_CITATION.sub(cite, line))
    text = "\n".join(out)
    if cited:
        notes = [f"[^{key}]: {reference(site.papers[key], site, page)}" for key in cited]
        text = text.rstrip("\n") + "\n\n" + "\n".join(notes) + "\n"
    return Resolved(text, unknown)
