"""`mlsys-kb render --out DIR`: a project without our plugin that MkDocs, ProperDocs and
Zensical each build into the same pages, with the same entry anchors, as the normal build.

The builders are the pinned ones of the test extra, run as their own commands.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from mlsys_kb import validate
from mlsys_kb.cli import main
from mlsys_kb.render import Options, render_site

from .sitebuild import build_site, copy_project

ENV = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def _builder_command(name: str, config: Path, site: Path) -> list[str]:
    if name == "zensical":  # no --site-dir option: it builds into site_dir of the config
        return [sys.executable, "-m", "zensical", "build", "--strict", "-f", str(config)]
    return [sys.executable, "-m", name, "build", "--strict", "-f", str(config), "-d", str(site)]


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag == "a" and values.get("href"):
            self._href, self._text = values["href"], []

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append((self._href, " ".join("".join(self._text).split())))
            self._href = None


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _pages(site: Path) -> set[str]:
    return {path.relative_to(site).as_posix() for path in site.rglob("*.html")}


# The Explore page needs the Pagefind index, which only the plugin writes: the rendered
# project leaves it out, and its builder's own search keeps the chrome out of its index.
PLUGIN_ONLY = {"explore/index.html"}


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The normal build, and the rendered project built by each builder."""
    base = tmp_path_factory.mktemp("standalone")
    project = copy_project(base / "project")
    normal = base / "normal"
    result = build_site(project, normal)
    assert result.returncode == 0, result.stdout + result.stderr
    # The same catalog with the plugin set to Material's own search, as the rendered
    # project's builders search: the pages to compare the rendered ones with, byte for byte.
    material = base / "material-project"
    shutil.copytree(project, material)
    config = material / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "\n  - mlsys-kb  #" in text
    config.write_text(
        text.replace("\n  - mlsys-kb  #", "\n  - mlsys-kb:\n      search: material\n  #"),
        encoding="utf-8",
    )
    result = build_site(material, base / "plugin-material")
    assert result.returncode == 0, result.stdout + result.stderr
    out = base / "out"
    assert main(["--root", str(project), "render", "--out", str(out)]) == 0
    sites = {"plugin": normal, "plugin-material": base / "plugin-material", "out": out}
    for name in ("mkdocs", "properdocs", "zensical"):
        site = out / "site" if name == "zensical" else base / name
        done = subprocess.run(
            _builder_command(name, out / "mkdocs.yml", site),
            cwd=out,
            capture_output=True,
            text=True,
            env={**os.environ, **ENV},
        )
        assert done.returncode == 0, f"{name}:\n{done.stdout}\n{done.stderr}"
        sites[name] = site
    sites["project"] = project
    return sites


def test_the_rendered_project_has_no_plugin_of_ours_and_the_topic_nav(builds):
    config = yaml.safe_load((builds["out"] / "mkdocs.yml").read_text(encoding="utf-8"))
    names = [next(iter(p)) if isinstance(p, dict) else p for p in config["plugins"]]
    assert "mlsys-kb" not in names and "bibtex" not in names
    catalog, _ = validate.load(builds["project"])
    nav = yaml.safe_dump(config["nav"])
    for topic in catalog["topics"]:
        assert f"topics/{topic.id}/index.md" in nav
    assert (builds["out"] / "docs" / "topics" / "gnn" / "index.md").is_file()
    assert (builds["out"] / "docs" / "assets" / "kb.css").is_file()
    guide = (builds["out"] / "docs" / "guides" / "multi-node-torchrun.md").read_text()
    assert "[@" not in guide and "\\bibliography" not in guide
    assert "[^li2020pytorch]:" in guide


@pytest.mark.parametrize("builder", ["mkdocs", "properdocs", "zensical"])
def test_each_builder_makes_every_page_and_entry_anchor(builds, builder: str):
    normal, site = builds["plugin"], builds[builder]
    assert _pages(site) == _pages(normal) - PLUGIN_ONLY
    catalog, _ = validate.load(builds["project"])
    entry_ids = {
        entry.id for kind in ("papers", "decks", "issues", "resources") for entry in catalog[kind]
    }
    assert len(entry_ids) > 50
    for page in sorted(_pages(normal) - PLUGIN_ONLY):
        expected = _parse(normal / page).ids & entry_ids
        assert _parse(site / page).ids & entry_ids == expected, page
    found = set().union(*(_parse(site / page).ids for page in _pages(site)))
    assert entry_ids <= found
    # No page-level edit button: the generated pages have no source file to edit.
    for page in _pages(site):
        assert 'rel="edit"' not in (site / page).read_text(encoding="utf-8"), page
    # The entry chrome (link buttons, cross-links, BibTeX) came through the Markdown intact.
    for topic in catalog["topics"]:
        page = f"topics/{topic.id}/index.html"
        ours = (normal / page).read_text(encoding="utf-8")
        theirs = (site / page).read_text(encoding="utf-8")
        for marker in ('class="entry-chrome"', 'class="entry-links"', "<summary>BibTeX</summary>"):
            assert theirs.count(marker) == ours.count(marker), (page, marker)


_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)


@pytest.mark.parametrize("builder", ["mkdocs", "properdocs"])
def test_generated_pages_come_out_the_same_through_python_markdown(builds, builder: str):
    """Without the plugin, Python-Markdown converts the entry chrome the plugin lifts past
    it: the content of every generated page must be the same HTML as the plugin's build
    with Material's search (the search the rendered project's builders keep)."""
    catalog, _ = validate.load(builds["project"])
    generated = [
        path.removesuffix("index.md").removesuffix(".md").rstrip("/")
        for path in render_site(catalog, Options())
        if path.endswith(".md") and path != "explore.md"
    ]
    assert len(generated) > 20
    for stem in generated:
        page = f"{stem}/index.html" if stem else "index.html"
        ours = _ARTICLE.search((builds["plugin-material"] / page).read_text(encoding="utf-8"))
        theirs = _ARTICLE.search((builds[builder] / page).read_text(encoding="utf-8"))
        assert ours and theirs, page
        assert theirs.group(1) == ours.group(1), page


def _topic_links(page: _Page, titles: dict[str, str]) -> list[str]:
    """Topic ids in the order of the page's first link to each that shows its title (the
    nav's, not a tab's)."""
    seen: list[str] = []
    for href, text in page.links:
        match = re.search(r"topics/([a-z0-9-]+)/(?:index\.html)?$", href)
        if match and titles.get(match.group(1)) == text and match.group(1) not in seen:
            seen.append(match.group(1))
    return seen


@pytest.mark.parametrize("builder", ["mkdocs", "properdocs", "zensical"])
def test_each_builder_has_the_topic_nav_and_resolved_citations(builds, builder: str):
    """The nav of topics.yaml (titles, order), not one made from file names."""
    catalog, _ = validate.load(builds["project"])
    titles = {topic.id: topic["title"] for topic in catalog["topics"]}
    expected = _topic_links(_parse(builds["plugin"] / "index.html"), titles)
    assert sorted(expected) == sorted(titles)  # every topic, by its title
    assert _topic_links(_parse(builds[builder] / "index.html"), titles) == expected
    guide = (builds[builder] / "guides" / "multi-node-torchrun" / "index.html").read_text(
        encoding="utf-8"
    )
    assert "[@" not in guide
    assert re.search(r'id="fn:li2020pytorch"', guide)
    assert "PyTorch Distributed: Experiences on Accelerating Data Parallel Training" in guide


def test_an_unknown_citation_is_an_error_and_nothing_is_written(tmp_path: Path, capsys):
    project = copy_project(tmp_path / "project")
    guide = project / "docs" / "guides" / "cite.md"
    guide.write_text("# Cite\n\nSee [@nobody2099none].\n\n```\n[@not-a-citation]\n```\n")
    out = tmp_path / "out"
    assert main(["--root", str(project), "render", "--out", str(out)]) == 1
    error = capsys.readouterr().err
    assert "docs/guides/cite.md:3: unknown citation key @nobody2099none" in error
    assert "not-a-citation" not in error
    assert not out.exists()


def test_a_folder_it_did_not_write_is_refused(tmp_path: Path, capsys):
    project = copy_project(tmp_path / "project")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert main(["--root", str(project), "render", "--out", str(out)]) == 1
    assert "was not written by `mlsys-kb render`" in capsys.readouterr().err
    assert (out / "keep.txt").read_text() == "mine"
    # A folder it wrote itself is replaced as a whole.
    again = tmp_path / "again"
    assert main(["--root", str(project), "render", "--out", str(again)]) == 0
    assert main(["--root", str(project), "render", "--out", str(again)]) == 0
    assert (again / "mkdocs.yml").is_file()


def test_citation_footnotes_keep_catalog_text_as_text(tmp_path: Path):
    project = copy_project(tmp_path / "project")
    papers = project / "data" / "papers.yaml"
    text = papers.read_text(encoding="utf-8")
    title = 'title: "PyTorch Distributed: Experiences on Accelerating Data Parallel Training"'
    assert title in text
    hostile = 'title: "<script>alert(1)</script> [x](javascript:alert(1)) *PyTorch*"'
    papers.write_text(text.replace(title, hostile), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["--root", str(project), "render", "--out", str(out)]) == 0
    guide = (out / "docs" / "guides" / "multi-node-torchrun.md").read_text(encoding="utf-8")
    note = next(line for line in guide.splitlines() if line.startswith("[^li2020pytorch]:"))
    assert "<script>" not in note
    assert not re.search(r"(?<!\\)\]\(javascript:", note)  # an escaped bracket is no link
    assert "&lt;script&gt;" in note and "\\[x\\]" in note and "\\*PyTorch\\*" in note
