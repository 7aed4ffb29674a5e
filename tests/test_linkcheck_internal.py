"""The internal link check: real LinkChecker against a small site built by the real MkDocs.

The fixture project (tests/fixtures/linkcheck/project) is shaped like the real site
(Material, directory URLs, a site_url with a path) and has link problems planted on
purpose; PLANTED lists every one of them, and the check must report exactly those.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.error import HTTPError
from urllib.request import HTTPRedirectHandler, Request, build_opener

import pytest

from mlsys_kb import cli
from mlsys_kb.linkcheck import internal, server

FIXTURE = Path(__file__).parent / "fixtures" / "linkcheck" / "project"

# (page, link as written, kind): every problem planted in the fixture project.
PLANTED = {
    ("index.html", "missing/", "broken"),
    ("index.html", "guide/#nowhere", "anchor"),
    ("guide/index.html", "../missing/", "broken"),  # the same target, from a second page
    ("guide/index.html", "../topics/a/#entry-zzz", "anchor"),
    ("topics/a/index.html", "/guide/", "broken"),  # root-absolute, misses the site's path
    ("orphan/index.html", "../nowhere.pdf", "broken"),  # a page in no nav, linked from nowhere
    ("orphan/index.html", "../plain-dir/", "broken"),  # a directory with no index.html
    ("private/page/index.html", "../../two-up-missing/", "broken"),
    ("big/index.html", "../late-missing/", "broken"),  # past LinkChecker's 1 MB parse limit
}


class _Counter(BaseHTTPRequestHandler):
    """Stands for the rest of the internet: counts every request it gets."""

    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_HEAD = do_GET

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def outside() -> Iterator[tuple[str, list[str]]]:
    hits: ClassVar[list[str]] = []
    handler = type("Counter", (_Counter,), {"hits": hits})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()
    httpd.server_close()


def _build(project: Path) -> Path:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "--site-dir", "site"],
        cwd=project,
        env=env,
        check=True,
    )
    return project / "site"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, outside: tuple[str, list[str]]) -> Path:
    project = tmp_path_factory.mktemp("linkcheck") / "project"
    shutil.copytree(FIXTURE, project)
    for page in (project / "docs").rglob("*.md"):
        page.write_text(page.read_text().replace("EXTERNAL", outside[0]))
    # A page over LinkChecker's default parse limit (1 MB): its links must still be checked.
    filler = "".join(f"Paragraph {i}. " + "filler text " * 20 + "\n\n" for i in range(4000))
    (project / "docs" / "big.md").write_text(
        "# Big\n\n" + filler + "Planted: [a missing page at the end](../late-missing/).\n"
    )
    return _build(project)


@pytest.fixture(scope="module")
def result(site: Path) -> internal.InternalReport:
    return internal.check_site(site)


def test_every_planted_problem_is_found_and_nothing_else(
    result: internal.InternalReport,
) -> None:
    found = {(f.page, f.link, f.kind) for f in result.failures}
    assert found == PLANTED
    assert not result.ok


def test_failures_say_where_and_why(result: internal.InternalReport, site: Path) -> None:
    by_link = {(f.page, f.link): f for f in result.failures}
    missing = by_link[("index.html", "missing/")]
    assert missing.reason.startswith("404")
    assert missing.target == "missing/"
    # The line is where the link stands in the built page.
    html = (site / "index.html").read_text().splitlines()
    assert 'href="missing/"' in html[missing.line - 1]
    anchor = by_link[("guide/index.html", "../topics/a/#entry-zzz")]
    assert anchor.reason == "no anchor #entry-zzz in topics/a/index.html"
    outside_root = by_link[("topics/a/index.html", "/guide/")]
    assert "outside the site's root" in outside_root.reason


def test_external_links_are_never_fetched(
    result: internal.InternalReport, outside: tuple[str, list[str]]
) -> None:
    assert result.pages >= 7
    assert outside[1] == []


def test_the_site_is_served_under_its_sites_path(result: internal.InternalReport) -> None:
    assert result.base == "/kb/"


def _small_site(project: Path, pages: dict[str, str]) -> Path:
    """A site served at / (no site_url), built by MkDocs from ``pages``."""
    (project / "docs").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(
        "site_name: Small\nuse_directory_urls: true\ntheme:\n  name: material\n  font: false\n"
        "markdown_extensions: [attr_list, toc]\n"
    )
    for name, text in pages.items():
        (project / "docs" / name).write_text(text)
    return _build(project)


def test_a_clean_site_passes(tmp_path: Path) -> None:
    site = _small_site(
        tmp_path,
        {
            "index.md": "# Home\n\n[B](b/) and [its part](b/#part).\n",
            "b.md": "# B\n\n## Part {#part}\n\n[Home](../)\n",
        },
    )
    assert cli.main(["check-links", "--site", str(site)]) == 0


def test_robots_rules_do_not_hide_broken_links(tmp_path: Path) -> None:
    # LinkChecker reports URLs that robots.txt disallows as valid, unchecked, and does not
    # check the links of a page that asks robots not to follow them.
    site = _small_site(
        tmp_path,
        {
            "robots.txt": "User-agent: *\nDisallow: /\n",
            "index.md": "# Home\n\n[B](b/) [C](c/)\n",
            "b.md": "# B\n\n[Gone](../gone/) and [no such part](../#part).\n",
            "c.md": '# C\n\n<meta name="robots" content="nofollow">\n\n[Gone](../gone-too/)\n',
        },
    )
    assert server.base_path(site) == "/"
    found = {(f.page, f.link, f.kind) for f in internal.check_site(site).failures}
    assert found == {
        ("b/index.html", "../gone/", "broken"),
        ("b/index.html", "../#part", "anchor"),
        ("c/index.html", "../gone-too/", "broken"),
    }


def test_command_line_reports_and_exit_status(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    md, js = tmp_path / "links.md", tmp_path / "links.json"
    status = cli.main(
        ["check-links", "--site", str(site), "--report-md", str(md), "--report-json", str(js)]
    )
    assert status == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == len(PLANTED)
    assert any(
        line.startswith(f"{site}/index.html:") and line.endswith(": missing/: 404 File not found")
        for line in lines
    )
    assert "7 broken link(s), 2 missing anchor(s)" in err
    data = json.loads(js.read_text())
    assert {(f["page"], f["link"], f["kind"]) for f in data["failures"]} == PLANTED
    assert "| Page | Line | Link | Problem |" in md.read_text()


def test_github_annotations(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["check-links", "--site", str(site), "--format", "github"]) == 1
    out = capsys.readouterr().out
    assert f"::error file={site}/index.html,line=" in out


def test_site_defaults_to_site_dir_under_root(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--root", str(tmp_path), "check-links"]) == 2
    err = capsys.readouterr().err
    assert "no built site here" in err and str(tmp_path / "site") in err


def test_a_run_past_its_time_limit_fails(site: Path) -> None:
    with pytest.raises(internal.CheckError, match="did not finish within"):
        internal.check_site(site, timeout=0.2)


def test_more_processes_find_the_same(site: Path, result: internal.InternalReport) -> None:
    split = internal.check_site(site, jobs=3)
    assert {(f.page, f.link, f.kind) for f in split.failures} == PLANTED


# --- the server ---------------------------------------------------------------------------


class _NoRedirect(HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _get(url: str) -> tuple[int, dict[str, str]]:
    try:
        with build_opener(_NoRedirect()).open(Request(url), timeout=5) as response:
            return response.status, dict(response.headers)
    except HTTPError as error:
        return error.code, dict(error.headers)


def test_server_behaves_like_the_host(site: Path) -> None:
    with server.serve(site, "/kb/") as root:
        status, headers = _get(root)
        assert status == 200 and "LinkChecker" in headers
        assert _get(root + "guide/")[0] == 200
        status, headers = _get(root + "guide")
        assert status == 301 and headers["Location"].endswith("/kb/guide/")
        assert _get(root + "plain-dir/")[0] == 404  # no listing
        assert _get(root.replace("/kb/", "/guide/"))[0] == 404  # outside the site's path


def test_base_path_comes_from_the_sitemap(tmp_path: Path, site: Path) -> None:
    assert server.base_path(site) == "/kb/"
    assert server.base_path(tmp_path) == "/"


# --- the launcher changes speed, not results ------------------------------------------------


def _results(xml: Path) -> set[tuple[str, ...]]:
    rows = set()
    for item in ET.parse(xml).getroot().iter("urldata"):
        parent = item.find("parent")
        valid = item.find("valid")
        rows.add(
            (
                item.findtext("url") or "",
                item.findtext("name") or "",  # the link's text
                parent.text or "" if parent is not None else "",
                parent.get("line", "") if parent is not None else "",
                parent.get("column", "") if parent is not None else "",
                valid.get("result", "") if valid is not None else "",
                valid.text or "" if valid is not None else "",
                " ".join(sorted(w.text or "" for w in item.iter("warning"))),
            )
        )
    return rows


# Plain LinkChecker, but kept as the user it was started as: as root it would switch to
# `nobody`, who may not be able to read the checkout (the launcher keeps the user too).
_PLAIN = (
    "import sys; from linkcheck.command import linkchecker as c; "
    "c.drop_privileges = lambda: None; sys.argv[0] = 'linkchecker'; c.linkchecker()"
)


def test_launcher_reports_what_plain_linkchecker_reports(site: Path, tmp_path: Path) -> None:
    pages = internal.html_pages(site)
    outputs = {}
    for module in ("linkcheck", "mlsys_kb.linkcheck.launcher"):
        program = ["-c", _PLAIN] if module == "linkcheck" else ["-m", module]
        work = internal._workdir()
        try:
            with server.serve(site, "/kb/") as root:
                config = work / "linkcheckerrc"
                output = work / "out.xml"
                config.write_text(
                    internal.config_text(root, 0, output).replace("verbose=0", "verbose=1")
                )
                urls = work / "urls.txt"
                urls.write_text("\n".join(root + page for page in pages) + "\n")
                with open(urls) as stdin:
                    subprocess.run(
                        [sys.executable, *program, "-f", str(config), "--stdin"],
                        stdin=stdin,
                        capture_output=True,
                        env=internal._environment(work),
                        cwd=work,
                        timeout=300,
                        check=False,
                    )
                outputs[module] = {
                    tuple(field.replace(root, "ROOT/") for field in row) for row in _results(output)
                }
        finally:
            shutil.rmtree(work, ignore_errors=True)
    plain, patched = outputs["linkcheck"], outputs["mlsys_kb.linkcheck.launcher"]
    assert plain, "plain LinkChecker reported nothing"
    assert patched == plain
