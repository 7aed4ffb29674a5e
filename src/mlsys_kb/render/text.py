"""Escaping: catalog text comes from strangers' pull requests and must stay text.

Every value goes through ``md`` (inline text) or ``href`` (link targets) before it
reaches the generated Markdown, or through ``html`` and ``html_href`` before it reaches
the entry chrome written as HTML, so no field can open a tag, a link or an attribute.
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Callable
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
    return _with_code(text, _escape, lambda part: f"`{part}`")


def _with_code(text: object, escape: Callable[[str], str], code: Callable[[str], str]) -> str:
    """``text`` on one line, `backticked` parts through ``code`` and the rest through
    ``escape``; an unpaired or empty pair of backticks is escaped as text."""
    flat = " ".join(str(text).split())
    parts = flat.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick: no code at all
        return escape(flat)
    out = []
    for index, part in enumerate(parts):
        if index % 2 == 0:
            out.append(escape(part))
        elif part.strip():
            out.append(code(part))
        else:
            out.append(escape(f"`{part}`"))
    return "".join(out)


_SAFE = "/:?#@!$&+,;=%-._~"
# The common case, settled without parsing: http(s), a plain host, only characters that
# need no encoding. Anything else takes the full check (url_problem) and quote().
_PLAIN_HTTP = re.compile(
    r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:[/?#][A-Za-z0-9/:?#@!$&+,;=%._~-]*)?"
)


def href(url: str) -> str | None:
    """A link target safe inside ``[text](...)``, or None for a URL that may not be linked."""
    if _PLAIN_HTTP.fullmatch(url):
        return url
    if url_problem(url) is not None:
        return None
    # Characters that could end the link, start a title or an attribute are percent-encoded.
    return quote(url, safe=_SAFE)


def path_href(path: str) -> str:
    """An href for a link the renderer built itself from validated ids: a relative path
    (``../topics/t/#id``) that cannot carry a scheme, so only encoding is needed."""
    return _html.escape(quote(path, safe=_SAFE), quote=True)


def html(text: object) -> str:
    """HTML text (or attribute value) that shows ``text`` literally, on one line."""
    return _html.escape(" ".join(str(text).split()), quote=True)


def html_code(text: object) -> str:
    """Like ``html``, but `backticked` parts become code elements, as ``md_code`` does."""
    return _with_code(text, _html_escape, lambda part: f"<code>{_html_escape(part)}</code>")


def _html_escape(text: str) -> str:
    return _html.escape(text, quote=True)


def html_href(url: str) -> str | None:
    """An href attribute value for ``url``, or None for a URL that may not be linked."""
    target = href(url)
    return None if target is None else _html.escape(target, quote=True)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"
