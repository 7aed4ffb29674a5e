"""Names the catalogs derive: citation keys, ids, normalised titles, venue ids.

A citation key is the first author's family name, the year and the first significant
word of the title, lowercase a-z and 0-9 only: "DistDGL: Distributed Graph ..." by Da Zheng
(2020) is ``zheng2020distdgl``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from urllib.parse import urlsplit

from ..model import Entry

# Words that do not name a paper: a title's first significant word skips them.
STOPWORDS = frozenset(
    {"a", "an", "the", "on", "of", "in", "for", "to", "and", "or", "with", "via", "by", "at",
     "from", "into", "towards", "toward", "is", "are", "do", "does", "how", "what", "when", "why"}
)  # fmt: skip
# Letters that Unicode does not decompose into a base letter and an accent.
_FOLD = str.maketrans(
    {"ß": "ss", "æ": "ae", "Æ": "ae", "ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "đ": "d",
     "Đ": "d", "þ": "th", "Þ": "th", "œ": "oe", "Œ": "oe", "\u0131": "i", "ð": "d"}
)  # fmt: skip


def ascii_fold(text: str) -> str:
    """Latin letters without their accents: "Jörg Kupče" -> "Jorg Kupce"."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _word(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", ascii_fold(text).lower())


def first_significant_word(title: str) -> str:
    for word in title.split():
        cleaned = _word(word)
        if cleaned and cleaned not in STOPWORDS:
            return cleaned
    return ""


def citation_key(family: str, year: int, title: str) -> str:
    """``family`` + ``year`` + first significant title word, or "" if a part is missing."""
    name = _word(family)
    word = first_significant_word(title)
    return f"{name}{year}{word}" if name and word else ""


def slug(text: str, limit: int = 60) -> str:
    """An id from a name or title: lowercase words joined by dashes."""
    words = re.sub(r"[^a-z0-9]+", "-", ascii_fold(text).lower()).strip("-")
    if len(words) > limit:
        words = words[:limit].rsplit("-", 1)[0]
    return words


def unused(key: str, taken: Iterable[str]) -> str:
    """``key``, or ``key`` with the first free suffix b, c, ... (as BibTeX users do)."""
    used = set(taken)
    if key not in used:
        return key
    for letter in "bcdefghijklmnopqrstuvwxyz":
        if key + letter not in used:
            return key + letter
    raise ValueError(f"every variant of {key} is taken; pass --id")


def normal_title(title: str) -> str:
    """A title reduced to its letters and digits, to spot the same paper twice."""
    return re.sub(r"[^a-z0-9]", "", ascii_fold(title).lower())


def _venue_words(text: str) -> str:
    text = ascii_fold(text).lower().replace("&", " and ")
    text = re.sub(r"\bproceedings of (the )?", " ", text)
    text = re.sub(r"\b\d+(st|nd|rd|th)?\b|'\d\d\b", " ", text)
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def match_venues(venues: Iterable[Entry], hints: Iterable[str]) -> list[str]:
    """Ids of the venues whose full title or short name appears in a hint.

    Hints are Crossref's container title, short container title and event name, or
    arXiv's journal reference. A short name must appear as a word with its own case
    ("PPoPP '21: ..."), a full title anywhere, in any case.
    """
    hints = [hint for hint in hints if hint]
    found: list[str] = []
    for venue in venues:
        title = _venue_words(str(venue.get("title", "")))
        name = str(venue.get("name", ""))
        for hint in hints:
            words = f" {_venue_words(hint)} "
            by_title = bool(title) and f" {title} " in words
            by_name = bool(name) and re.search(
                rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", hint
            )
            if by_title or by_name:
                found.append(venue.id)
                break
    return found


def normal_url(url: str) -> str:
    """A URL without scheme, case of host, trailing slash or fragment, to spot it twice."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url
    return f"{parts.netloc.lower()}{parts.path.rstrip('/')}?{parts.query}"
