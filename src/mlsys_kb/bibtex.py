"""BibTeX derived from paper entries: never typed by hand, always from data/papers.yaml.

A paper becomes ``@inproceedings`` (conference, workshop), ``@article`` (journal) or
``@misc`` (preprint), keyed by its id::

    @inproceedings{zheng2022alpa,
      title     = {{Alpa}: Automating Inter- and Intra-Operator Parallelism ...},
      ...
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .model import Entry

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(char) for char in _SPECIAL))
# Words with a capital after the first letter (GPUVerify, DistDGL) or all capitals keep
# their case in styles that lower-case titles.
_KEEP_CASE = re.compile(r"\b(\w*[A-Z]\w*[A-Z0-9]\w*|[A-Z])\b")


def escape(text: str) -> str:
    """Text with LaTeX's special characters escaped; non-ASCII stays UTF-8."""
    return _SPECIAL_RE.sub(lambda match: _SPECIAL[match.group()], " ".join(text.split()))


def _title(text: str) -> str:
    return _KEEP_CASE.sub(lambda match: "{" + match.group() + "}", escape(text))


def entry_type(venue_kind: str | None) -> str:
    return {"journal": "article", "preprint": "misc"}.get(venue_kind or "", "inproceedings")


def paper_bibtex(paper: Entry, venues: dict[str, Entry]) -> str:
    venue = venues.get(paper.get("venue", ""))
    kind = entry_type(venue.get("kind") if venue else None)
    fields: list[tuple[str, str]] = [
        ("title", _title(paper["title"])),
        ("author", " and ".join(escape(name) for name in paper.get("authors", []))),
        ("year", str(paper.get("year", ""))),
    ]
    if venue is not None and kind != "misc":
        container = "journal" if kind == "article" else "booktitle"
        fields.append((container, escape(venue["title"])))
    if paper.get("doi"):
        fields.append(("doi", escape(paper["doi"])))
    if paper.get("arxiv"):
        fields += [("eprint", paper["arxiv"]), ("archiveprefix", "arXiv")]
    url = paper.get("url") or (
        f"https://arxiv.org/abs/{paper['arxiv']}" if paper.get("arxiv") else None
    )
    if url:
        fields.append(("url", url.replace("%", r"\%").replace("#", r"\#")))
    width = max(len(name) for name, _ in fields)
    body = ",\n".join(f"  {name.ljust(width)} = {{{value}}}" for name, value in fields if value)
    return f"@{kind}{{{paper.id},\n{body}\n}}\n"


def bibliography(papers: Iterable[Entry], venues: dict[str, Entry]) -> str:
    return "\n".join(paper_bibtex(paper, venues) for paper in papers)
