"""BibTeX derived from paper entries: never typed by hand, always from data/papers.yaml.

A paper becomes ``@inproceedings`` (conference, workshop), ``@article`` (journal) or
``@misc`` (preprint), keyed by its id::

    @inproceedings{zheng2022alpa,
      title     = {{Alpa}: Automating Inter- and Intra-Operator Parallelism ...},
      ...

Text is written for LaTeX and for BibTeX's own parser, which counts braces and knows no
escapes: LaTeX's special characters are escaped (``\\&``, ``\\%``) so that every field's
braces balance; non-ASCII letters stay UTF-8 (biber, pybtex and
``inputenc`` read them). Author lists are joined with ``and``; a name that BibTeX would
split wrongly (it holds a comma, or the word "and") is braced whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .model import Entry

_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
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
# their case in styles that lower-case titles. LaTeX commands (\textbackslash) are skipped.
_KEEP_CASE = re.compile(r"(?<![\\\w])(\w*[A-Z]\w*[A-Z0-9]\w*|[A-Z])\b")
# In URLs and DOIs only what would break the .bib file or LaTeX's reading of it.
_URL_SPECIAL = {"%": r"\%", "#": r"\#", "{": "%7B", "}": "%7D", "\\": "%5C"}


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        if char in "{}":
            depth += 1 if char == "{" else -1
            if depth < 0:
                return False
    return depth == 0


def escape(text: str) -> str:
    """Text with LaTeX's special characters escaped; non-ASCII stays UTF-8.

    Braces become ``\\{`` and ``\\}`` where they pair up, which BibTeX's brace counting
    accepts; a brace without its pair becomes ``\\textbraceleft{}`` or ``\\textbraceright{}``.
    """
    text = " ".join(text.split())
    paired = _balanced(text)

    def replace(match: re.Match[str]) -> str:
        char = match.group()
        if paired and char in "{}":
            return "\\" + char
        return _SPECIAL[char]

    return _SPECIAL_RE.sub(replace, text)


def _title(text: str) -> str:
    return _KEEP_CASE.sub(lambda match: "{" + match.group() + "}", escape(text))


def _name(name: str) -> str:
    """One author for BibTeX: escaped, and braced whole where BibTeX would split it."""
    text = escape(name)
    if "," in name or re.search(r"(?i)(^|\s)and(\s|$)", name):
        return "{" + text + "}"
    return text


def _url(url: str) -> str:
    return "".join(_URL_SPECIAL.get(char, char) for char in url)


def entry_type(venue_kind: str | None) -> str:
    return {"journal": "article", "preprint": "misc"}.get(venue_kind or "", "inproceedings")


def paper_bibtex(paper: Entry, venues: dict[str, Entry]) -> str:
    venue = venues.get(paper.get("venue", ""))
    kind = entry_type(venue.get("kind") if venue else None)
    fields: list[tuple[str, str]] = [
        ("title", _title(paper["title"])),
        ("author", " and ".join(_name(name) for name in paper.get("authors", []))),
        ("year", str(paper.get("year", ""))),
    ]
    if venue is not None and kind != "misc":
        container = "journal" if kind == "article" else "booktitle"
        fields.append((container, escape(venue["title"])))
    if paper.get("doi"):
        fields.append(("doi", _url(paper["doi"])))
    if paper.get("arxiv"):
        fields += [("eprint", _url(paper["arxiv"])), ("archiveprefix", "arXiv")]
    url = paper.get("url") or (
        f"https://arxiv.org/abs/{paper['arxiv']}" if paper.get("arxiv") else None
    )
    if url:
        fields.append(("url", _url(url)))
    width = max(len(name) for name, _ in fields)
    body = ",\n".join(f"  {name.ljust(width)} = {{{value}}}" for name, value in fields if value)
    return f"@{kind}{{{paper.id},\n{body}\n}}\n"


def bibliography(papers: Iterable[Entry], venues: dict[str, Entry]) -> str:
    return "\n".join(paper_bibtex(paper, venues) for paper in papers)
