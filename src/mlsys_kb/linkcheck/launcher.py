"""Run LinkChecker's own command line, with the work it repeats done once.

``python -m mlsys_kb.linkcheck.launcher ARGS`` is ``linkchecker ARGS``: the same crawler,
checks, configuration, messages and loggers. With its AnchorCheck plugin on, LinkChecker
treats ``page#a`` and ``page#b`` as two URLs: it downloads and parses the whole page for
each. On a topic page whose 500 entries are linked from the indexes, that is 500 downloads
and 500 parses of the same megabyte. Measured with LinkChecker 10.6 on MkDocs sites, this
and two smaller repeats took nearly all of its time. Here, within one process:

* a page's anchors are collected once, by the plugin's own parser, and looked up after;
* parsing a page for links collects its anchors in the same walk;
* a ``page#anchor`` link to a page already downloaded takes that page's answer (status
  and headers) instead of downloading it again, as LinkChecker itself does for every
  ``#anchor`` link when AnchorCheck is off; the anchor is then checked as above;
* a link already queued from another page is not made into a new URL object only to be
  dropped by the queue as already seen;
* ``find_links`` computes an element's text only for ``<a>`` elements, the only ones whose
  text it uses (as the link's name), instead of for every element of the page;
* without ``--debug``, its debug messages are dropped without first looking up their
  logger (a million lookups, each taking the logging lock, on a 2,000-entry site).

Results, messages and the order of checks are LinkChecker's. The patches apply only to the
version they were written against; any other version runs unpatched.
"""

from __future__ import annotations

import sys
import threading
import urllib.parse
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

PATCHED_VERSION = "10.6.0"


@dataclass(frozen=True)
class _Page:
    anchors: frozenset[str]
    headers: Any  # the answer's headers, for a later #anchor link to the same page
    result: str
    encoding: str | None


def _patch(argv: list[str]) -> None:
    from linkcheck import log, parser
    from linkcheck.checker import httpurl
    from linkcheck.htmlutil import linkparse
    from linkcheck.plugins import anchorcheck

    pages: dict[str, _Page] = {}
    locks: defaultdict[str, threading.Lock] = defaultdict(threading.Lock)
    table_lock = threading.Lock()

    def page_of(url: str) -> str:
        return urllib.parse.urldefrag(url)[0]

    def lock_for(page: str) -> threading.Lock:
        with table_lock:
            return locks[page]

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

    def walk(soup: Any, finders: list[Any]) -> None:
        for element in soup.find_all(True):
            # The text is only read as the name of an <a href> link (LinkFinder.get_link_name).
            text = element.text.strip() if element.name == "a" else ""
            position = None if element.sourcepos is None else element.sourcepos + 1
            for finder in finders:
                finder.html_element(element.name, element.attrs, text, element.sourceline, position)

    def find_links(soup: Any, callback: Any, tags: Any) -> None:
        walk(soup, [linkparse.LinkFinder(callback, tags)])

    queued: set[str] = set()

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
                url_data.get_soup(),
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
                find_links(url_data.get_soup(), found.add_anchor, linkparse.AnchorTags)
                page = remember(url_data, found)
        decoded = urllib.parse.unquote(url_data.anchor, encoding=url_data.encoding)
        if decoded in page.anchors:
            return
        # Missing: the plugin's own check words the warning.
        lookup = anchorcheck.UrlAnchorCheck()
        lookup.anchors = [(name, 0, 0, "", "") for name in sorted(page.anchors)]
        lookup.check_anchor(url_data)

    if not any(arg.startswith(("-D", "--debug")) for arg in argv):
        log.debug = lambda *args, **kwargs: None
    linkparse.find_links = find_links
    parser.parse_html = parse_html
    httpurl.HttpUrl.check_connection = check_known_page
    anchorcheck.AnchorCheck.check = check_anchor


def main() -> None:
    from linkcheck import _release
    from linkcheck.command.linkchecker import linkchecker

    if _release.__version__ == PATCHED_VERSION:
        _patch(sys.argv[1:])
    sys.argv[0] = "linkchecker"
    linkchecker()


if __name__ == "__main__":
    main()
