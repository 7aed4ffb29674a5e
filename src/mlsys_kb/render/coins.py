"""COinS: a paper's citation as an OpenURL ContextObject (ANSI/NISO Z39.88-2004, KEV
format) in the title of an empty ``<span class="Z3988">``. Zotero's connector, and the
reference managers that import through it, find these spans on any page and offer to save
every paper on it at once.

What Zotero's parser (``parseContextObject`` in zotero/utilities, ``openurl.js``) reads,
and so what is written:

- ``rft_val_fmt`` journal for journal papers and preprints; book with
  ``rft.genre=proceeding`` (a conference paper) for conference and workshop papers;
- ``rft.atitle`` the paper's title; ``rft.jtitle`` or ``rft.btitle`` the venue's full name;
- one ``rft.au`` per author, in order; ``rft.date`` the year;
- ``rft_id`` ``info:doi/...`` (Zotero's DOI), ``info:arxiv/...`` (the registered info URI
  for arXiv identifiers, which Zotero passes over) and the landing page as the one http(s)
  ``rft_id``, which Zotero keeps as the item's URL.

Values are form-encoded (Zotero splits the title at ``&`` and ``=`` before decoding, and
reads ``+`` as a space), then the whole title is HTML-escaped.
"""

from __future__ import annotations

from html import escape
from urllib.parse import quote_plus

from ..model import Entry

CTX_VER = "Z39.88-2004"
JOURNAL = "info:ofi/fmt:kev:mtx:journal"
BOOK = "info:ofi/fmt:kev:mtx:book"


def landing_url(paper: Entry) -> str | None:
    """The paper's own page: its url, else its DOI's or arXiv's."""
    if paper.get("url"):
        return paper["url"]
    if paper.get("doi"):
        return f"https://doi.org/{paper['doi']}"
    if paper.get("arxiv"):
        return f"https://arxiv.org/abs/{paper['arxiv']}"
    return None


def context_object(paper: Entry, venues: dict[str, Entry]) -> list[tuple[str, str]]:
    """The ContextObject's keys and values, in order."""
    venue = venues.get(paper.get("venue", ""))
    kind = venue.get("kind") if venue else None
    pairs = [("ctx_ver", CTX_VER)]
    if kind in ("conference", "workshop"):
        pairs += [("rft_val_fmt", BOOK), ("rft.genre", "proceeding")]
        pairs.append(("rft.atitle", paper["title"]))
        if venue:
            pairs.append(("rft.btitle", venue["title"]))
    else:
        genre = "preprint" if kind == "preprint" else "article"
        pairs += [("rft_val_fmt", JOURNAL), ("rft.genre", genre)]
        pairs.append(("rft.atitle", paper["title"]))
        if venue:
            pairs.append(("rft.jtitle", venue["title"]))
    pairs += [("rft.au", author) for author in paper.get("authors", [])]
    if paper.get("year"):
        pairs.append(("rft.date", str(paper["year"])))
    if paper.get("doi"):
        pairs.append(("rft_id", f"info:doi/{paper['doi']}"))
    if paper.get("arxiv"):
        pairs.append(("rft_id", f"info:arxiv/{paper['arxiv']}"))
    url = landing_url(paper)
    if url:
        pairs.append(("rft_id", url))
    return pairs


def coins_span(paper: Entry, venues: dict[str, Entry]) -> str:
    # Spaces as "+", which Zotero and form decoders read as spaces: a paper's citation is on
    # several pages, and 10,000 papers carry 45,000 of them.
    pairs = context_object(paper, venues)
    kev = "&".join(f"{key}={quote_plus(value, safe=':/')}" for key, value in pairs)
    return f'<span class="Z3988" title="{escape(kev, quote=True)}"></span>'
