"""The renderer: golden files (catalog fixture in, expected Markdown out) and the
properties readers rely on (permalinks, newest first, derived links)."""

from __future__ import annotations

import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pybtex.database
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlsys_kb import validate
from mlsys_kb.render import Options, render_site

GOLDEN = Path(__file__).parent / "golden"
OPTIONS = Options(repo_url="https://github.com/example/kb", site_url="https://example.org/kb/")


def _render() -> dict[str, str]:
    catalog, problems = validate.load(GOLDEN / "project")
    assert problems == []
    return render_site(catalog, OPTIONS)


def test_rendered_files_match_the_golden_files() -> None:
    files = _render()
    expected_dir = GOLDEN / "expected"
    if os.environ.get("UPDATE_GOLDEN"):
        for path, text in files.items():
            (expected_dir / path).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / path).write_text(text, encoding="utf-8")
    expected = {
        str(path.relative_to(expected_dir)): path.read_text(encoding="utf-8")
        for path in expected_dir.rglob("*")
        if path.is_file()
    }
    assert sorted(files) == sorted(expected)
    for path, text in files.items():
        assert text == expected[path], f"{path} differs; rerun with UPDATE_GOLDEN=1 and review"


def test_rendering_is_deterministic() -> None:
    assert _render() == _render()


def test_an_entry_has_one_full_block_at_its_permalink() -> None:
    files = _render()
    # alpha's first topic is `training`: its full block lives there, gnn links to it.
    assert "### Alpha" in files["topics/training/index.md"]
    assert "{ #alpha2022first }" in files["topics/training/index.md"]
    assert "{ #alpha2022first }" not in files["topics/gnn/index.md"]
    assert 'href="../training/#alpha2022first"' in files["topics/gnn/index.md"]


def test_papers_are_newest_first() -> None:
    files = _render()
    gnn = files["topics/gnn/index.md"]
    assert gnn.index("### Beta") < gnn.index("Also in this topic")
    by_topic = files["papers/by-topic.md"]
    assert "[Graph neural networks](../topics/gnn/index.md#kind-papers): 2 papers" in by_topic
    by_year = files["papers/by-year.md"]
    assert by_year.index("## 2022") < by_year.index("## 2020")


def test_code_spans_in_text_stay_code_and_stay_safe() -> None:
    page = _render()["topics/training/index.md"]
    assert "**Symptom:** `RuntimeError: lazy wrapper` on start" in page


def test_downloads_parse_and_keep_counts() -> None:
    files = _render()
    bib = pybtex.database.parse_string(files["downloads/papers.bib"], "bibtex")
    assert sorted(bib.entries) == ["alpha2022first", "beta2020second", "gamma2021third"]
    assert bib.entries["beta2020second"].type == "article"
    data = json.loads(files["downloads/catalog.json"])
    assert [len(data[k]) for k in ("papers", "decks", "issues", "resources")] == [3, 1, 1, 1]
    assert data["papers"][0]["permalink"] == "topics/training/#alpha2022first"
    feed = ET.fromstring(files["feed.xml"])
    ns = {"a": "http://www.w3.org/2005/Atom"}
    titles = [e.findtext("a:title", namespaces=ns) for e in feed.findall("a:entry", ns)]
    assert titles[0] == "Beta"  # newest added first
    assert len(titles) == 6


def test_derived_links_are_typed() -> None:
    page = _render()["topics/training/index.md"]
    assert (
        '<a href="https://arxiv.org/abs/2201.00001">arXiv</a> '
        '<a href="https://github.com/example/alpha">Code</a>'
    ) in page
    assert not re.search(r'href="https://github.com/example/kb[^"]*">Code<', page)
    issue = page[page.index("{ #example-42 }") :]
    assert '<a href="https://github.com/example/project/issues/42">GitHub issue</a>' in issue
    assert "blob/main/data/issues.yaml#L1" in issue


@pytest.mark.parametrize("path", ["topics/systems/index.md", "index.md"])
def test_counts_include_subtopics(path: str) -> None:
    page = _render()[path]
    assert "[Distributed training](" in page
    assert "(3)" in page or path == "index.md"


# --- the entry chrome's HTML ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("directory_urls", "from_page", "to_path", "anchor", "expected"),
    [
        (True, "topics/a/index.md", "tags.md", "tag-x", "../../tags/#tag-x"),
        (True, "topics/a/index.md", "topics/b/index.md", "e", "../b/#e"),
        (True, "topics/a/index.md", "topics/a/index.md", "e", "#e"),
        (True, "index.md", "topics/b/index.md", None, "topics/b/"),
        (True, "topics/a/index.md", "index.md", None, "../../"),
        (True, "topics/a/index.md", "slides/x.pdf", None, "../../slides/x.pdf"),
        (True, "papers/by-year.md", "papers/by-venue.md", None, "../by-venue/"),
        (False, "topics/a/index.md", "tags.md", "tag-x", "../../tags.html#tag-x"),
        (False, "papers/by-year.md", "papers/by-venue.md", None, "by-venue.html"),
        (False, "topics/a/index.md", "index.md", None, "../../index.html"),
    ],
)
def test_chrome_links_are_the_urls_mkdocs_would_write(
    directory_urls: bool, from_page: str, to_path: str, anchor: str | None, expected: str
) -> None:
    from mlsys_kb.model import Catalog
    from mlsys_kb.render import Site

    empty = Catalog({kind: [] for kind in ("topics", "venues", "tags", "papers", "decks")})
    site = Site(empty, Options(directory_urls=directory_urls))
    assert site.url(from_page, to_path, anchor) == expected


def test_the_built_site_has_the_chrome_links_the_renderer_meant(tmp_path: Path) -> None:
    """Every internal href the chrome writes resolves to a built page: MkDocs does not
    rewrite or check raw HTML, so this is checked on a real build."""
    from mlsys_kb.build import build

    project = tmp_path / "project"
    shutil.copytree(GOLDEN / "project", project)
    (project / "mkdocs.yml").write_text(
        "site_name: t\nuse_directory_urls: false\nplugins:\n  - mlsys-kb\n"
        "markdown_extensions:\n  - attr_list\n  - toc:\n      permalink: true\n",
        encoding="utf-8",
    )
    (project / "docs").mkdir(exist_ok=True)
    assert build(project, project / "site") == 0
    page = project / "site" / "topics" / "training" / "index.html"
    hrefs = re.findall(r'href="([^"#]+\.html)(?:#[^"]*)?"', page.read_text(encoding="utf-8"))
    assert "../gnn/index.html" in hrefs and "../../tags.html" in hrefs
    for href in hrefs:
        assert (page.parent / href).resolve().is_file(), href
    # The statistics charts, wide and narrow, are HTML too.
    stats = project / "site" / "stats.html"
    charts = re.findall(r'(?:src|srcset)="([^"]+)"', stats.read_text(encoding="utf-8"))
    charts = [chart for chart in charts if chart.endswith(".svg")]
    assert len(charts) == 6, charts
    for chart in charts:
        assert (stats.parent / chart).resolve().is_file(), chart


def test_a_paper_button_that_repeats_the_doi_is_left_out() -> None:
    from mlsys_kb.model import Entry
    from mlsys_kb.render.entries import links

    def paper(**values: object) -> Entry:
        return Entry("papers", "data/papers.yaml", (1, 1), {"id": "p", **values})

    same = links(paper(url="https://doi.org/10.1/x", doi="10.1/x", arxiv="2101.00001"))
    assert [label for label, _ in same] == ["arXiv", "DOI"]
    other = links(paper(url="https://example.org/p", doi="10.1/x"))
    assert [label for label, _ in other] == ["Paper", "DOI"]


@settings(max_examples=500, deadline=None)
@given(st.text() | st.from_regex(r"https?://[a-z.]+[/?#][ -~]*", fullmatch=True))
def test_the_fast_path_for_plain_urls_agrees_with_the_full_check(url: str) -> None:
    from urllib.parse import quote

    from mlsys_kb.render.text import _PLAIN_HTTP, href
    from mlsys_kb.validate import url_problem

    if _PLAIN_HTTP.fullmatch(url):
        assert url_problem(url) is None
        assert href(url) == quote(url, safe="/:?#@!$&+,;=%-._~") == url


def test_material_search_finds_each_entry_at_its_own_block_only(tmp_path: Path) -> None:
    """With `search: material` (kept to compare the two in scripts/bench_site.py), lists of
    entries shown elsewhere stay out of Material's index: it would index them as text of the
    entry above, and a search for a title would land on the wrong entry."""
    from mlsys_kb.build import build

    project = tmp_path / "project"
    shutil.copytree(GOLDEN / "project", project)
    (project / "mkdocs.yml").write_text(
        "site_name: t\ntheme:\n  name: material\n  font: false\n"
        "plugins:\n  - search\n  - mlsys-kb:\n      search: material\n"
        "markdown_extensions:\n  - attr_list\n  - toc:\n      permalink: true\n",
        encoding="utf-8",
    )
    (project / "docs").mkdir(exist_ok=True)
    assert build(project, project / "site") == 0
    index = json.loads((project / "site" / "search" / "search_index.json").read_text())
    docs = {doc["location"]: doc for doc in index["docs"]}
    # beta2020second is on the gnn page, followed by the list that links alpha2022first
    assert "topics/gnn/#beta2020second" in docs
    assert "Alpha" not in docs["topics/gnn/#beta2020second"]["text"]
    holding = [loc for loc, doc in docs.items() if "First Paper" in doc["title"] + doc["text"]]
    assert holding == ["topics/training/#alpha2022first"]
