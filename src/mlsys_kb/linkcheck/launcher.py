"""Run LinkChecker's own command line, with the work it repeats or wastes done once.

``python -m mlsys_kb.linkcheck.launcher ARGS`` is ``linkchecker ARGS``: the same crawler,
URL handling, HTTP checks, AnchorCheck messages, configuration and loggers. Measured with
LinkChecker 10.6 on MkDocs sites, nearly all of its time went into work that does not
change a result (on the real site of 45 pages, with the same 623 results: 37-42 s of CPU
plain, 1.5 s here):

* it builds a BeautifulSoup tree of every page (61% of the time on the 10,000-paper site)
  only to walk its elements in document order. Here the same parser (``html.parser``)
  feeds the same elements (tag, attributes with bs4's rules, line, column, the text of
  ``<a>``) straight into LinkChecker's own ``LinkFinder``, with no tree;
* with AnchorCheck on, ``page#a`` and ``page#b`` are two URLs: it downloads and parses the
  whole page for each (a topic page whose 500 entries the indexes link to: 500 times).
  Here a page's anchors are collected once, by the plugin's own finder in the same walk,
  and an ``#anchor`` link to a page already downloaded takes that page's answer instead of
  downloading it again, as LinkChecker does for every ``#anchor`` link without AnchorCheck;
* a link already queued from another page is not built into a URL object only to be
  dropped by the queue as already seen;
* without ``--debug``, debug messages are dropped without looking up their logger first;
* the first request to a host does not wait 0.1-0.6 s for the ``LinkChecker`` header to be
  seen: our local server always sends it, and this check contacts no other host.

One behaviour changes on purpose: ``<meta name="robots" content="nofollow">`` no longer
stops the links of a page from being checked, as ``robotstxt=0`` does for robots.txt: this
is our own site, and every page's links must hold. tests/test_linkcheck_internal.py checks
that the launcher reports what plain ``linkchecker`` reports. The patches apply only to the
version they were written against; any other version runs unpatched.

Two changes apply to every version, because without them a run can pass having checked
less than it claims:

* started as root, LinkChecker switches its effective user to ``nobody`` after reading its
  configuration. Its plugins are found later, by listing its package folder: in a checkout
  that ``nobody`` cannot read (a clone in a ``mktemp -d`` folder, mode 0700, with its
  ``.venv`` inside) the listing came back empty, AnchorCheck was never loaded and missing
  anchors passed. Here it keeps the user it was started as, the one that built the site and
  owns the checkout; it reads only pages served from 127.0.0.1 by this check;
* the plugins it loaded are printed to standard error (``PLUGINS_LINE``), so that the
  caller can refuse a run without the ones it needs.
"""

from __future__ import annotations

import html.parser
import sys
import threading
import urllib.parse
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

PATCHED_VERSION = "10.6.0"
PLUGINS_LINE = "mlsys-kb launcher: plugins loaded:"


@dataclass(frozen=True)
class _Page:
    anchors: frozenset[str]
    headers: Any  # the answer's headers, for a later #anchor link to the same page
    result: str
    encoding: str | None


class _Elements(html.parser.HTMLParser):
    """html.parser events as the elements BeautifulSoup would give, handed to finders.

    Attributes follow bs4's html.parser builder: a value-less attribute is "", a repeated
    one keeps its last value. ``<a>`` elements are handed over at their end tag, with their
    text, which LinkFinder uses as the link's name.
    """

    def __init__(self, finders: list[Any]) -> None:
        super().__init__(convert_charrefs=True)
        self.finders = finders
        self.links: list[tuple[dict[str, str], int, int, list[str]]] = []

    def _element(self, tag: str, attrs: dict[str, str], text: str, line: int, col: int) -> None:
        for finder in self.finders:
            finder.html_element(tag, attrs, text, line, col)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: "" if value is None else value for name, value in attrs}
        line, offset = self.getpos()
        if tag == "a":
            self.links.append((values, line, offset + 1, []))
        else:
            self._element(tag, values, "", line, offset + 1)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "a":
            self.handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        for link in self.links:
            link[3].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self.links:
            values, line, column, text = self.links.pop()
            self._element("a", values, "".join(text).strip(), line, column)

    def close(self) -> None:
        super().close()
        while self.links:  # unclosed <a>: its text runs to the end, as in bs4
            self.handle_endtag("a")


def _patch(argv: list[str]) -> None:
    from bs4 import UnicodeDammit
    from linkcheck import log, parser
    from linkcheck.checker import httpurl
    from linkcheck.director import aggregator
    from linkcheck.htmlutil import linkparse
    from linkcheck.plugins import anchorcheck

    pages: dict[str, _Page] = {}
    locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)
    table_lock = threading.Lock()
    queued: set[str] = set()

    def page_of(url: str) -> str:
        return urllib.parse.urldefrag(url)[0]

    def lock_for(page: str) -> threading.Lock:
        with table_lock:
            return locks[page]

    def text_of(url_data: Any) -> str:
        """The page as text, decoded as LinkChecker's BeautifulSoup would decode it."""
        if url_data.text is None:
            known = [url_data.content_encoding] if url_data.content_encoding else []
            dammit = UnicodeDammit(
                url_data.get_raw_content(), known_definite_encodings=known, is_html=True
            )
            url_data.content_encoding = dammit.original_encoding or "ISO-8859-1"
            url_data.text = dammit.unicode_markup or url_data.data.decode("ISO-8859-1")
        return url_data.text

    def walk(url_data: Any, finders: list[Any]) -> None:
        elements = _Elements(finders)
        elements.feed(text_of(url_data))
        elements.close()

    def remember(url_data: Any, found: anchorcheck.UrlAnchorCheck) -> _Page:
        page = _Page(
            anchors=frozenset(anchor[0] for anchor in found.anchors),
            headers=url_data.headers,
            result=url_data.result,
            encoding=url_data.content_encoding,
        )
        if url_data.valid and url_data.headers is not None:
            pages[page_of(url_data.url)] = page
        return page

    def parse_html(url_data: Any) -> None:
        def add_url(
            url: Any, line: Any = 0, column: Any = 0, name: Any = "", base: Any = ""
        ) -> None:
            # The queue drops a URL it has seen (by its normalised form); the same joined
            # text normalises the same, so it would be dropped: skip building it.
            if isinstance(url, str) and not base:
                joined = urllib.parse.urljoin(url_data.url, url)
                if joined in queued:
                    return
                queued.add(joined)
            url_data.add_url(url, line=line, column=column, name=name, base=base)

        found = anchorcheck.UrlAnchorCheck()
        with lock_for(page_of(url_data.url)):
            walk(
                url_data,
                [
                    linkparse.LinkFinder(add_url, linkparse.LinkTags),
                    linkparse.LinkFinder(found.add_anchor, linkparse.AnchorTags),
                ],
            )
            remember(url_data, found)

    check_connection = httpurl.HttpUrl.check_connection

    def check_known_page(self: Any) -> None:
        page = pages.get(page_of(self.url)) if self.anchor else None
        if page is None:
            check_connection(self)
            return
        self.headers = page.headers
        self.content_encoding = page.encoding
        self.set_result(page.result)

    def check_anchor(self: Any, url_data: Any) -> None:
        with lock_for(page_of(url_data.url)):
            page = pages.get(page_of(url_data.url))
            if page is None:
                found = anchorcheck.UrlAnchorCheck()
                walk(url_data, [linkparse.LinkFinder(found.add_anchor, linkparse.AnchorTags)])
                page = remember(url_data, found)
        decoded = urllib.parse.unquote(url_data.anchor, encoding=url_data.encoding)
        if decoded in page.anchors:
            return
        # Missing: the plugin's own check words the warning.
        lookup = anchorcheck.UrlAnchorCheck()
        lookup.anchors = [(name, 0, 0, "", "") for name in sorted(page.anchors)]
        lookup.check_anchor(url_data)

    # The local server answers every request with the LinkChecker header, which lifts the
    # wait between requests to it; only the first request had to wait (0.1 to 0.6 s) for
    # the header to be seen. External hosts are never contacted by this check.
    aggregator.Aggregate.wait_time_min_default = 0.0
    aggregator.Aggregate.wait_time_max_default = 0.0
    if not any(arg.startswith(("-D", "--debug")) for arg in argv):
        log.debug = lambda *args, **kwargs: None
    parser.parse_html = parse_html
    httpurl.HttpUrl.check_connection = check_known_page
    httpurl.HttpUrl.content_allows_robots = lambda self: True
    anchorcheck.AnchorCheck.check = check_anchor


def _keep_user() -> None:
    """No switch to ``nobody`` when started as root (see the module's docstring)."""
    from linkcheck.command import linkchecker as command

    command.drop_privileges = lambda: None


def _report_plugins() -> None:
    """Print the names of the plugins LinkChecker enabled, once they are loaded."""
    from linkcheck import plugins

    load_modules = plugins.PluginManager.load_modules

    def load_and_report(self: Any, modules: Any, config: Any) -> None:
        load_modules(self, modules, config)
        loaded = self.connection_plugins + self.content_plugins + self.parser_plugins
        names = ",".join(sorted(type(plugin).__name__ for plugin in loaded))
        print(f"{PLUGINS_LINE} {names}", file=sys.stderr, flush=True)

    plugins.PluginManager.load_modules = load_and_report


def main() -> None:
    from linkcheck import _release
    from linkcheck.command.linkchecker import linkchecker

    _keep_user()
    _report_plugins()
    if _release.__version__ == PATCHED_VERSION:
        _patch(sys.argv[1:])
    sys.argv[0] = "linkchecker"
    linkchecker()


if __name__ == "__main__":
    main()
