"""Escaping: catalog text comes from strangers' pull requests and must stay text.

Every value goes through ``md`` (inline text) or ``href`` (link targets) before it
reaches the generated Markdown, so no field can open a tag, a link or an attribute.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from ..validate import url_problem

# Inline markup can only start at these characters: emphasis, code, links and images
# (through "["), attribute lists, headings' closing hashes. Escaping only these keeps the
# Markdown readable and fast to convert (every escape is an inline-pattern match).
_INLINE = re.compile(r"([\\`*_{}\[\]#])")
# Block markup starts a line: lists, headings, quotes (escaped as &gt; anyway).
_LEADING = re.compile(r"^(?:([-+])|(\d+)\.)")


def md(text: object) -> str:
    """Inline Markdown that shows ``text`` literally: one line, no markup, no HTML."""
    return _escape(" ".join(str(text).split()))


def _escape(flat: str) -> str:
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    flat = _INLINE.sub(r"\\\1", flat)
    return _LEADING.sub(lambda m: f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\.", flat)


def md_code(text: object) -> str:
    """Like ``md``, but `backticked` parts become code spans: error messages read as code.

    A code span's content is literal in Markdown (HTML in it is escaped), so only an
    unpaired backtick needs care: it is escaped like any other character.
    """
    flat = " ".join(str(text).split())
    parts = flat.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code spans at all
        return _escape(flat)
    out = []
    for index, part in enumerate(parts):
        if index % 2 == 0:
            out.append(_escape(part))
        elif part.strip():
            out.append(f"`{part}`")
        else:
            out.append(_escape(f"`{part}`"))
    return "".join(out)


def href(url: str) -> str | None:
    """A link target safe inside ``[text](...)``, or None for a URL that may not be linked."""
    if url_problem(url) is not None:
        return None
    # Characters that could end the link, start a title or an attribute are percent-encoded.
    return quote(url, safe="/:?#@!$&+,;=%-._~")


def code(text: str) -> str:
    """Text for a fenced code block: a fence inside the text must not close ours."""
    return text.replace("```", "` ` `")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"
