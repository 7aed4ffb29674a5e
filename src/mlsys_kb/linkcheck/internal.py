"""Check every internal link and ``#anchor`` of a built site with LinkChecker.

The site is served on 127.0.0.1 (over ``file://`` LinkChecker cannot check anchors on
MkDocs' directory URLs) and LinkChecker runs against it with a configuration written for
this check. What LinkChecker 10.6 does that this module works around:

* it waits between requests to one host unless the server sends a ``LinkChecker`` header
  and ``maxrequestspersecond`` is raised: the server sends it, the config raises it;
* a missing anchor is only a warning: here it is a failure;
* a run cut short by ``maxrunseconds`` exits 0 with incomplete results: the run is bounded
  from outside, and a run without LinkChecker's closing summary counts as incomplete;
* run as root it switches to ``nobody`` and then cannot load its plugins from a checkout
  that ``nobody`` cannot read, so missing anchors passed: ``launcher`` keeps the user;
* URLs blocked by robots.txt come back valid: robots.txt is not read;
* pages over 1 MB are not parsed and their links silently not checked: the limits are
  raised (a topic page of the 10,000-paper site is 1-4 MB);
* it only crawls what it can reach, and only checks links from inside its start
  directories: every HTML page is a start URL, and the whole server is internal;
* it reports a broken target once, from the first page it met it on: every page that
  links to it is then found by reading the pages (``referrers``);
* it is slow on pages with many ``#anchor`` links: it runs through ``launcher``, which
  does its repeated work once (see there).

External links are never fetched: anything not on the local server is ignored.

Every run proves itself before its result is trusted. Beside the site, each LinkChecker
process is given a canary page (served from memory, never written into the site) with a
missing page, a missing anchor on another page and one on its own page, and two good
anchors. The run counts only if LinkChecker said it loaded AnchorCheck and reported exactly
the canary's three problems; otherwise it raises ``CheckError`` ("the check did not run",
exit status 2), naming what failed. A LinkChecker that stops reading pages, loading its
plugins or reporting in the form parsed here can never pass a site.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from .launcher import PLUGINS_LINE
from .server import base_path, serve

DEFAULT_TIMEOUT = 900.0  # seconds for the whole check
REQUEST_TIMEOUT = 30  # seconds for one request to the local server
_SUMMARY = re.compile(r"That's it\. (\d+) links? in (\d+) URLs? checked\.")
_ANCHOR = re.compile(r"^Anchor `(?P<name>.*?)' \(decoded: `(?P<decoded>.*?)'\) not found\.")
_INCOMPLETE = "results are not complete"


class CheckError(Exception):
    """The check could not be run or did not finish; its results cannot be trusted."""


@dataclass(frozen=True, order=True)
class Failure:
    """One bad link: on ``page``, ``link`` as written, pointing to ``target``."""

    page: str  # the page's file in the site, such as topics/gnn/index.html
    line: int
    column: int
    link: str
    target: str  # the URL path it points to, relative to the site, with its #anchor
    reason: str
    kind: str = "broken"  # "broken" (the target does not load) or "anchor" (no such anchor)

    def __str__(self) -> str:
        return f"{self.page}:{self.line}:{self.column}: {self.link}: {self.reason}"

    def as_dict(self) -> dict[str, object]:
        return {
            "page": self.page,
            "line": self.line,
            "column": self.column,
            "link": self.link,
            "target": self.target,
            "reason": self.reason,
            "kind": self.kind,
        }


@dataclass
class InternalReport:
    site: Path
    base: str  # the path the site was served under
    pages: int  # HTML pages in the site
    urls: int  # URLs LinkChecker checked, over all its processes
    seconds: float
    failures: list[Failure] = field(default_factory=list)
    warnings: list[Failure] = field(default_factory=list)  # reported, not failing
    proven: int = 0  # LinkChecker processes whose canary came back as planted

    @property
    def ok(self) -> bool:
        return not self.failures


# --- the pages ----------------------------------------------------------------------------


def html_pages(site: Path) -> list[str]:
    """Site paths of every HTML page, as the site links them (``a/`` for ``a/index.html``)."""
    pages = []
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if rel == "index.html":
            rel = ""
        elif rel.endswith("/index.html"):
            rel = rel[: -len("index.html")]
        pages.append(rel)
    return pages


def _site_path(url: str, root: str) -> str:
    """``http://127.0.0.1:P/base/a/b/#x`` -> ``a/b/#x``; a path outside the site stays
    absolute (``/elsewhere/``), another host's URL whole."""
    if url.startswith(root):
        return url[len(root) :]
    parts = urlsplit(url)
    if parts.netloc == urlsplit(root).netloc:
        return url[len(f"{parts.scheme}://{parts.netloc}") :]
    return url


def _page_file(url: str, root: str) -> str:
    """The file of a page URL, relative to the site: ``a/b/`` -> ``a/b/index.html``."""
    path = urldefrag(_site_path(url, root))[0]
    return path + "index.html" if path == "" or path.endswith("/") else path


# --- LinkChecker's configuration and its run ----------------------------------------------


def config_text(root: str, threads: int, output: Path) -> str:
    """A linkcheckerrc for checking the site served at ``root`` and nothing else.

    Links to the server outside the site's path are checked (and fail): on the host they
    would lead out of the site.
    """
    parts = urlsplit(root)
    inside = re.escape(f"{parts.scheme}://{parts.netloc}/")
    return f"""\
[checking]
threads={threads}
timeout={REQUEST_TIMEOUT}
# The server sends a LinkChecker header, so this rate applies to it.
maxrequestspersecond=100000
# robots.txt would make the URLs it blocks come back valid.
robotstxt=0
# Every page is a start URL: check its links, do not parse the pages they lead to.
recursionlevel=1
# Large pages are parsed and downloaded whole; the defaults (1 MB, 5 MB) skip them silently.
maxfilesizeparse=1000000000
maxfilesizedownload=1000000000
resultcachesize=100000000

[filtering]
# Only the served site: other hosts, mailto:, javascript: are ignored, never fetched.
ignore=
  ^(?!{inside})
# A link with an #anchor is checked (by AnchorCheck), but its page is parsed once, as a
# start URL, not again for every anchor.
nofollow=
  [#]
# The whole server is internal, not only the start pages' directories.
internlinks=^{inside}
checkextern=0

[output]
status=0
verbose=0
warnings=1
fileoutput=xml

[text]
parts=outro

[xml]
filename={output}
encoding=utf-8

[AnchorCheck]
"""


def _workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="mlsys-kb-links-"))


def _environment(work: Path) -> dict[str, str]:
    # A small environment: no user linkcheckerrc or plugins, no proxy for 127.0.0.1, and
    # requests reads every environment variable on every request to look for proxies.
    src = str(Path(__file__).resolve().parents[2])
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "XDG_CONFIG_HOME": str(work),
        "XDG_DATA_HOME": str(work),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONPATH": src,
    }


def _kill(process: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def run_linkchecker(
    root: str, start_urls: Sequence[Sequence[str]], threads: int, timeout: float
) -> list[tuple[ET.Element, int]]:
    """Run one LinkChecker process per group of start URLs, in parallel.

    Returns each process's parsed XML output and the number of URLs it checked.
    Raises CheckError when a process fails, times out, or ends without its summary.
    """
    work = _workdir()
    processes: list[tuple[subprocess.Popen[str], Path]] = []
    try:
        for index, urls in enumerate(start_urls):
            output = work / f"out-{index}.xml"
            config = work / f"linkcheckerrc-{index}"
            config.write_text(config_text(root, threads, output), encoding="utf-8")
            command = [sys.executable, "-m", "mlsys_kb.linkcheck.launcher"]
            command += ["-f", str(config), "-o", "text", "--stdin"]
            listing = work / f"urls-{index}.txt"
            listing.write_text("\n".join(urls) + "\n", encoding="utf-8")
            with open(listing, encoding="utf-8") as stdin:
                process = subprocess.Popen(
                    command,
                    stdin=stdin,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                    encoding="utf-8",
                    errors="replace",
                    cwd=work,
                    env=_environment(work),
                    start_new_session=True,  # its own process group, to end it whole
                )
            processes.append((process, output))
        deadline = time.monotonic() + timeout
        results = []
        for process, output in processes:
            try:
                stdout, stderr = process.communicate(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                for other, _ in processes:
                    _kill(other)
                raise CheckError(
                    f"the link check did not finish within {timeout:g} seconds; "
                    "its results are incomplete (raise --timeout)"
                ) from None
            summary = _SUMMARY.search(stdout)
            if process.returncode not in (0, 1) or not summary or _INCOMPLETE in stdout:
                detail = (stderr.strip().splitlines() or ["no output"])[-1]
                raise CheckError(
                    f"LinkChecker stopped with status {process.returncode} "
                    f"before finishing: {detail}"
                )
            _require_plugins(stderr)
            try:
                tree = ET.parse(output).getroot()
            except (OSError, ET.ParseError) as error:
                raise CheckError(f"LinkChecker's report could not be read: {error}") from error
            results.append((tree, int(summary.group(2))))
        return results
    finally:
        for process, _ in processes:
            if process.poll() is None:
                _kill(process)
        shutil.rmtree(work, ignore_errors=True)


def _require_plugins(stderr: str) -> None:
    """Fail unless LinkChecker said it loaded every plugin this check needs."""
    lines = [line for line in stderr.splitlines() if line.startswith(PLUGINS_LINE)]
    if not lines:
        raise CheckError(
            "LinkChecker did not say which plugins it loaded, so missing anchors may have "
            "gone unchecked; run it through mlsys_kb.linkcheck.launcher (reinstall with "
            "`make install`)"
        )
    loaded = set(filter(None, lines[-1][len(PLUGINS_LINE) :].strip().split(",")))
    missing = sorted(set(REQUIRED_PLUGINS) - loaded)
    if missing:
        import linkcheck.plugins

        folder = Path(linkcheck.plugins.__file__).parent
        raise CheckError(
            f"LinkChecker did not load its {', '.join(missing)} plugin (loaded: "
            f"{', '.join(sorted(loaded)) or 'none'}), so missing anchors would go unchecked; "
            f"the user running the check must be able to read {folder} (reinstall with "
            "`make install`)"
        )


# --- the canary: problems planted beside the site that every run must find ----------------

REQUIRED_PLUGINS = ("AnchorCheck",)
_CANARY_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link check self-check</title></head>
<body>
<h1 id="here">Link check self-check</h1>
<p>Served beside the site while its links are checked; its planted problems must be found.</p>
<p><a href="target/#there">a good anchor on another page</a>
<a href="#here">a good anchor on this page</a>
<a href="target/#no-such-anchor">a missing anchor on another page</a>
<a href="#no-such-anchor-here">a missing anchor on this page</a>
<a href="no-such-page/">a missing page</a></p>
</body></html>
"""
_CANARY_TARGET = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Link check self-check target</title></head>
<body><h1 id="there">Target</h1><p><a href="../">back</a></p></body></html>
"""
# (link as written, kind, what it stands for): every problem planted on a canary page.
CANARY_PROBLEMS = (
    ("no-such-page/", "broken", "a link to a missing page"),
    ("target/#no-such-anchor", "anchor", "a missing anchor on another page"),
    ("#no-such-anchor-here", "anchor", "a missing anchor on the same page"),
)


@dataclass(frozen=True)
class Canary:
    """The canary pages of one check: one folder per LinkChecker process."""

    folders: tuple[str, ...]

    @classmethod
    def beside(cls, site: Path, processes: int) -> Canary:
        token = secrets.token_hex(4)  # a folder name no site has
        folders = tuple(f"mlsys-kb-self-check-{token}-{n}/" for n in range(processes))
        if any((site / folder).exists() for folder in folders):
            raise CheckError(f"{folders[0]} exists in the site; run the check again")
        return cls(folders)

    def pages(self) -> dict[str, bytes]:
        pages = {}
        for folder in self.folders:
            pages[f"{folder}index.html"] = _CANARY_PAGE.encode()
            pages[f"{folder}target/index.html"] = _CANARY_TARGET.encode()
        return pages

    def holds(self, failure: Failure) -> bool:
        return failure.page.startswith(self.folders) or failure.target.startswith(self.folders)

    def verify(self, found: Iterable[Failure]) -> None:
        """Raise CheckError unless each canary page's problems, and only those, were found."""
        seen = {(f.page, f.link, f.kind) for f in found if self.holds(f)}
        problems = []
        for folder in self.folders:
            page = f"{folder}index.html"
            for link, kind, meaning in CANARY_PROBLEMS:
                if (page, link, kind) not in seen:
                    problems.append(f"it did not report {meaning} ({link})")
        planted = {
            (f"{folder}index.html", link, kind)
            for folder in self.folders
            for link, kind, _ in CANARY_PROBLEMS
        }
        for page, link, kind in sorted(seen - planted):
            problems.append(f"it reported a good link as {kind}: {page}: {link}")
        if problems:
            from linkcheck import _release

            raise CheckError(
                "the self-check failed: on the canary page served beside the site, "
                + "; ".join(problems)
                + f". LinkChecker {_release.__version__} did not check what this check "
                "relies on, so its results for the site cannot be trusted; reinstall with "
                "`make install` (pyproject.toml pins the LinkChecker it was tested with)"
            )


# --- reading LinkChecker's report -----------------------------------------------------------


def _failures(tree: ET.Element, root: str) -> tuple[list[Failure], list[Failure]]:
    failures: list[Failure] = []
    warnings: list[Failure] = []
    for item in tree.iter("urldata"):
        link = item.findtext("url") or ""
        parent = item.find("parent")
        page_url = parent.text or "" if parent is not None else ""
        line = int(parent.get("line") or 0) if parent is not None else 0
        column_text = parent.get("column") if parent is not None else None
        column = int(column_text) if column_text and column_text.isdigit() else 0
        target_url = urljoin(page_url or root, link)
        page = _page_file(page_url, root) if page_url else "(start)"
        target = _site_path(target_url, root)
        valid = item.find("valid")
        if valid is not None and valid.text == "0":
            reason = valid.get("result") or "invalid"
            if _site_path(target_url, root).startswith("/"):
                reason += " (outside the site's root)"
            failures.append(Failure(page, line, column, link, target, reason))
            continue
        for warning in item.iter("warning"):
            text = warning.text or ""
            anchor = _ANCHOR.match(text)
            if anchor:
                name = anchor.group("decoded")
                reason = f"no anchor #{name} in {_page_file(target_url, root)}"
                failures.append(Failure(page, line, column, link, target, reason, "anchor"))
            else:
                text = text.replace(root, "")  # the local server's address means nothing later
                warnings.append(Failure(page, line, column, link, target, text, "warning"))
    return failures, warnings


class _Links(HTMLParser):
    """The URLs in href and src attributes of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, int, int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                line, column = self.getpos()
                self.links.append((value.strip(), line, column + 1))


def _token(target: str) -> bytes:
    """A piece of text every link to ``target`` contains, to skip pages quickly."""
    path, fragment = urldefrag(target)
    if fragment:
        return fragment.encode()
    parts = [p for p in urlsplit(path).path.split("/") if p]
    return parts[-1].encode() if parts else b""


def referrers(site: Path, root: str, failures: Iterable[Failure]) -> list[Failure]:
    """Every link, on every page, to a target LinkChecker found broken (it reports one)."""
    found = list(failures)
    by_target: dict[str, Failure] = {}
    for failure in found:
        by_target.setdefault(failure.target, failure)
    if not by_target:
        return found
    tokens = {_token(target) for target in by_target}
    seen = {(f.page, f.link, f.line) for f in found}
    for page in html_pages(site):
        file = _page_file(root + page, root)
        data = (site / file).read_bytes()
        if not any(token in data for token in tokens):
            continue
        parser = _Links()
        parser.feed(data.decode("utf-8", "replace"))
        page_url = root + page
        for link, line, column in parser.links:
            target = _site_path(urljoin(page_url, link), root)
            first = by_target.get(target) or by_target.get(unquote(target))
            if first is None or (file, link, line) in seen:
                continue
            seen.add((file, link, line))
            found.append(Failure(file, line, column, link, first.target, first.reason, first.kind))
    return found


# --- the check ------------------------------------------------------------------------------


def check_site(
    site: Path, *, jobs: int = 1, threads: int = 0, timeout: float = DEFAULT_TIMEOUT
) -> InternalReport:
    """Check every internal link and anchor of the built site in ``site``.

    ``threads=0`` runs each LinkChecker without threads: its work is parsing, bound to one
    core by the GIL, and threads only added contention (measured 2x slower with 4).
    ``jobs`` LinkChecker processes split the pages; each must parse every page its pages'
    ``#anchor`` links lead to, so more than one only helps sites with few such links.
    """
    site = site.resolve()
    if not (site / "index.html").is_file():
        raise CheckError(f"{site}: no built site here (no index.html); build it first")
    pages = html_pages(site)
    jobs = max(1, min(jobs, len(pages)))
    prefix = base_path(site)
    canary = Canary.beside(site, jobs)
    started = time.monotonic()
    with serve(site, prefix, extra=canary.pages()) as root:
        groups = [
            [root + folder, *(root + page for page in pages[index::jobs])]
            for index, folder in enumerate(canary.folders)
        ]
        results = run_linkchecker(root, groups, threads, timeout)
        failures: list[Failure] = []
        warnings: list[Failure] = []
        for tree, _ in results:
            bad, warned = _failures(tree, root)
            failures += bad
            warnings += warned
        canary.verify(failures)
        failures = [f for f in failures if not canary.holds(f)]
        warnings = [w for w in warnings if not canary.holds(w)]
        failures = referrers(site, root, set(failures))
    return InternalReport(
        site=site,
        base=prefix,
        pages=len(pages),
        urls=sum(count for _, count in results),
        seconds=time.monotonic() - started,
        failures=sorted(set(failures)),
        warnings=sorted(set(warnings)),
        proven=len(canary.folders),
    )
