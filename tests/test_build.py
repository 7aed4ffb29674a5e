"""`mlsys-kb build` and `mkdocs serve` with the real MkDocs: strict, safe with hostile
catalog text, atomic on failure, and live-reloading catalog edits."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from mkdocs.config import load_config

from mlsys_kb import validate
from mlsys_kb.model import Catalog, Entry
from mlsys_kb.render import render_site

from .sitebuild import ROOT, build_site, copy_project

PAYLOADS = [
    "<script>alert('x')</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    '" onmouseover="alert(1)',
    "' onfocus='alert(1)' autofocus='",
    "{: onclick=alert(1) }",
    "`<script>alert(2)</script>`",
]
TEXT_FIELDS = {
    "papers": ["title", "summary"],
    "decks": ["title", "summary"],
    "issues": ["title", "symptom", "cause", "workaround"],
    "resources": ["name", "description"],
    "topics": ["title", "description"],
    "tags": ["title", "description"],
    "venues": ["name", "title"],
}
LIST_FIELDS = {"papers": ["authors"], "decks": ["presenters"], "issues": ["versions"]}


class _Scan(HTMLParser):
    """Collects what would run: script elements, event handlers, javascript: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value == "javascript:void(0)" and ("data-md-component", "search-share") in attrs:
                continue  # Material's own share button
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")
            if value and re.match(r"\s*(javascript|data|vbscript):", value, re.I):
                self.found.append(f"<{tag} {name}={value}>")
        if tag == "script" and not any(name == "src" for name, _ in attrs):
            return  # Material's own inline config; checked below by content
        if tag == "script":
            source = dict(attrs).get("src") or ""
            if not source.startswith(("assets/", "../", "./")) and "assets/" not in source:
                self.found.append(f"<script src={source}>")
        if tag == "img" and dict(attrs).get("src") == "x":
            self.found.append("<img src=x>")


def _hostile(project: Path) -> None:
    import yaml

    for kind, names in TEXT_FIELDS.items():
        path = project / "data" / f"{kind}.yaml"
        entries = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
        for index, entry in enumerate(entries):
            # Topic titles may not hold < or > (see the test below); descriptions may.
            for name in ["description"] if kind == "topics" else names:
                if name in entry or name in ("cause", "workaround"):
                    entry[name] = PAYLOADS[index % len(PAYLOADS)] + " " + entry.get(name, "")
            for name in LIST_FIELDS.get(kind, []):
                if name in entry:
                    entry[name] = [*entry[name], PAYLOADS[(index + 1) % len(PAYLOADS)]]
            if "url" in entry:
                # Quotes and brackets that try to leave the href attribute or the link.
                entry["url"] = entry["url"] + "?q=\"onmouseover='alert(1)'>)]("
        for index, entry in enumerate(entries):
            for name in ("year", "number"):
                if name in entry:
                    entry[name] = int(entry[name])
            for name, value in entry.get("compare", {}).items():
                if value in ("true", "false"):  # yes/no properties, read as text above
                    entry["compare"][name] = value == "true"
            for declaration in entry.get("compare", {}).get("properties", {}).values():
                payload = PAYLOADS[index % len(PAYLOADS)]
                declaration["label"] = f"{payload} {declaration['label']}"
                for value in declaration.get("values", {}):
                    declaration["values"][value] = f"{payload} {declaration['values'][value]}"
        path.write_text(yaml.safe_dump(entries, allow_unicode=True, sort_keys=False))


def test_hostile_catalog_text_stays_text_in_the_built_site(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    _hostile(project)
    _catalog, problems = validate.load(project)
    assert problems == []
    result = build_site(project, project / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    pages = list((project / "site").rglob("*.html"))
    assert len(pages) > 20
    for page in pages:
        html = page.read_text(encoding="utf-8")
        scan = _Scan()
        scan.feed(html)
        assert scan.found == [], f"{page}: {scan.found}"
        assert "alert(2)</script>" not in html
        assert "<img src=x" not in html
    # The payloads are shown, as text.
    gnn = (project / "site" / "topics" / "gnn" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(" in gnn or "&lt;img src=x onerror=alert(1)&gt;" in gnn


def test_topic_titles_with_angle_brackets_are_refused(tmp_path: Path) -> None:
    # The theme prints nav titles as HTML and un-escapes them inside <title>.
    project = copy_project(tmp_path / "project")
    topics = project / "data" / "topics.yaml"
    text = topics.read_text(encoding="utf-8")
    topics.write_text(text.replace("title: Profile", "title: </title><script>x</script>"))
    _catalog, problems = validate.load(project)
    assert [p.entry for p in problems] == ["gpu-profile"]
    assert "without < or >" in problems[0].message


def test_renderer_refuses_unsafe_urls_even_without_the_validator() -> None:
    import markdown

    def entry(kind: str, values: dict) -> Entry:
        return Entry(kind, f"data/{kind}.yaml", (1, 1), values)

    catalog = Catalog(
        {
            "topics": [entry("topics", {"id": "t", "title": "T", "description": "d"})],
            "venues": [],
            "tags": [],
            "papers": [
                entry(
                    "papers",
                    {
                        "id": "p",
                        "title": "P",
                        "authors": ["A"],
                        "year": 2020,
                        "venue": "v",
                        "url": "javascript:alert(1)",
                        "pdf": "JaVaScRiPt:alert(1)",
                        "code": "data:text/html,<script>alert(1)</script>",
                        "video": "java\tscript:alert(1)",
                        "topics": ["t"],
                    },
                )
            ],
            "decks": [],
            "issues": [],
            "resources": [],
        }
    )
    text = render_site(catalog)["topics/t/index.md"]
    html = markdown.markdown(
        text, extensions=["attr_list", "pymdownx.details", "pymdownx.superfences"]
    )
    scan = _Scan()
    scan.feed(html)
    assert scan.found == []
    assert 'href="javascript' not in html.lower()
    assert "data:text" not in html.split("<details")[0]


def test_every_value_stays_text_even_without_the_validator() -> None:
    """The renderer escapes every text value it prints, not only the free-text fields: with
    the validator bypassed, a state or a date could hold markup too. (Types stay as the
    validator guarantees them: a year is still a number.)"""
    import markdown

    catalog, problems = validate.load(ROOT)
    assert problems == []
    references = {"id", "topics", "tags", "venue", "papers", "parent"}
    for kind in catalog.entries:
        for index, entry in enumerate(catalog[kind]):
            payload = PAYLOADS[index % len(PAYLOADS)]
            for name, value in list(entry.values.items()):
                if name in references or name.endswith(("url", "pdf", "code", "slides", "video")):
                    continue
                if isinstance(value, list):
                    entry.values[name] = [*value, payload]
                elif isinstance(value, str):
                    entry.values[name] = f"{value} {payload}"
    files = render_site(catalog)
    pages = [text for path, text in files.items() if path.endswith(".md")]
    assert len(pages) > 20
    for text in pages:
        html = markdown.markdown(
            text, extensions=["attr_list", "toc", "pymdownx.details", "pymdownx.superfences"]
        )
        scan = _Scan()
        scan.feed(html)
        assert scan.found == [], scan.found
        assert "<script>" not in html and "<img src=x" not in html
    for path, text in files.items():  # charts (SVG, opened directly they run scripts) and feed
        if path.endswith((".svg", ".xml")):
            assert "<script" not in text and "<img" not in text and "<a " not in text, path


def test_build_with_a_bad_catalog_prints_problems_and_keeps_the_old_site(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    site = project / "site"
    site.mkdir()
    (site / "marker.html").write_text("previous build")
    papers = project / "data" / "papers.yaml"
    papers.write_text(papers.read_text(encoding="utf-8").replace("venue: osdi", "venue: osdj", 1))
    result = build_site(project, site)
    assert result.returncode == 1
    assert re.search(r"data/papers\.yaml:\d+:\d+: \w+: unknown venue `osdj`", result.stdout)
    assert "Traceback" not in result.stdout + result.stderr
    assert (site / "marker.html").read_text() == "previous build"
    assert sorted(p.name for p in site.iterdir()) == ["marker.html"]


def test_unknown_citation_key_fails_the_strict_build(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    guide = project / "docs" / "guides" / "cite.md"
    guide.parent.mkdir(parents=True, exist_ok=True)
    guide.write_text(
        "# Cite\n\nKnown [@li2020pytorch], unknown [@nobody2099none].\n\n\\bibliography\n"
    )
    result = build_site(project, project / "site")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "nobody2099none" in result.stdout + result.stderr


def test_known_citations_become_references(tmp_path: Path) -> None:
    project = copy_project(tmp_path / "project")
    guide = project / "docs" / "guides" / "cite.md"
    guide.parent.mkdir(parents=True, exist_ok=True)
    guide.write_text(
        "# Cite\n\nSee [@li2020pytorch].\n\n"
        "```python\n# @decorator stays code\n```\n\n\\bibliography\n"
    )
    result = build_site(project, project / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    html = (project / "site" / "guides" / "cite" / "index.html").read_text(encoding="utf-8")
    assert "[@li2020pytorch]" not in html
    assert "pytorch distributed" in html.lower()
    assert "@decorator stays code" in html


def test_site_and_repository_addresses_come_from_the_environment(tmp_path: Path) -> None:
    """A fork's deploy sets SITE_URL, REPO_URL and REPO_NAME (mkdocs.yml reads them with
    !ENV): edit links, the header's repository link and the feed must all use them."""
    project = copy_project(tmp_path / "project")
    fork = {
        "SITE_URL": "https://forker.github.io/kb-fork/",
        "REPO_URL": "https://github.com/forker/kb-fork",
        "REPO_NAME": "forker/kb-fork",
    }
    site = project / "site"
    result = build_site(project, site, env=fork)
    assert result.returncode == 0, result.stdout + result.stderr
    topic = (site / "topics" / "gnn" / "index.html").read_text(encoding="utf-8")
    # An entry's "edit this entry" link points at its line in the fork's catalog.
    edit = r'href="https://github\.com/forker/kb-fork/blob/main/data/\w+\.yaml#L\d+"'
    assert re.search(edit, topic)
    assert 'href="https://github.com/forker/kb-fork"' in topic  # the header's repository link
    assert "forker/kb-fork" in topic  # repo_name, shown beside it
    guide = next((site / "guides").glob("*/index.html")).read_text(encoding="utf-8")
    assert "https://github.com/forker/kb-fork/edit/main/docs/guides/" in guide
    feed = ET.parse(site / "feed.xml").getroot()
    atom = "{http://www.w3.org/2005/Atom}"
    # The feed's own links and each entry's id and permalink (rel="related" is the paper's).
    own = [link.get("href") for link in feed.iter(f"{atom}link") if link.get("rel") != "related"]
    own += [element.text for element in feed.iter(f"{atom}id")]
    assert len(own) > 4, own
    assert all(url.startswith("https://forker.github.io/kb-fork/") for url in own), own
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://forker.github.io/kb-fork/topics/gnn/</loc>" in sitemap
    # Nothing of the default address is left anywhere in the site.
    for page in site.rglob("*"):
        if page.suffix in (".html", ".xml", ".json"):
            text = page.read_text(encoding="utf-8")
            assert "mlsys-kb.github.io" not in text, page
            assert "github.com/mlsys-kb/mlsys-kb" not in text, page


def test_generated_pages_are_not_committed() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "docs"], cwd=ROOT, capture_output=True, text=True, check=False
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    generated = {"docs/index.md", "docs/tags.md", "docs/stats.md", "docs/issues.md"}
    assert not generated & set(tracked)
    assert not [path for path in tracked if path.startswith(("docs/topics/", "docs/papers/"))]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.read().decode("utf-8")


def test_serve_rebuilds_when_a_catalog_changes(tmp_path: Path) -> None:
    # As a fresh clone has it: with no slides/ folder, which once crashed the file watcher.
    project = copy_project(tmp_path / "project")
    shutil.rmtree(project / "slides", ignore_errors=True)
    port = _free_port()
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mlsys_kb.cli",
            "serve",
            "--dev-addr",
            f"127.0.0.1:{port}",
        ],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # `mlsys-kb serve` runs MkDocs as a child: stop both
    )
    # `mkdocs serve` serves under the path of site_url, as the hosted site does.
    site_url = load_config(str(project / "mkdocs.yml")).site_url
    prefix = urllib.parse.urlsplit(site_url).path if site_url else "/"
    url = f"http://127.0.0.1:{port}{prefix.rstrip('/')}/topics/gnn/"
    try:
        deadline = time.monotonic() + 90
        page = ""
        while time.monotonic() < deadline:
            try:
                page = _get(url)
                break
            except OSError:
                time.sleep(0.5)
        assert "DistDGL" in page
        # The entries' chrome is back in place of the plugin's markers under serve too.
        assert 'class="entry-chrome"' in page and "<!--mlsys-kb:" not in page
        index_url = f"http://127.0.0.1:{port}{prefix.rstrip('/')}/pagefind/pagefind-entry.json"
        index_before = json.loads(_get(index_url))["languages"]["en"]["hash"]
        topics = project / "data" / "topics.yaml"
        text = topics.read_text(encoding="utf-8")
        topics.write_text(
            text.replace("title: Graph neural networks", "title: Graph networks, renamed")
        )
        while time.monotonic() < deadline:
            time.sleep(0.5)
            try:
                if "Graph networks, renamed" in _get(url):
                    break
            except OSError:
                continue
        else:
            pytest.fail("the page did not change after editing data/topics.yaml")
        # The search index was made again: entries hold their topics' titles.
        assert json.loads(_get(index_url))["languages"]["en"]["hash"] != index_before
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
    shutil.rmtree(project / "site", ignore_errors=True)
