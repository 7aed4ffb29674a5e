"""The plugin lifts the renderer's HTML blocks past Python-Markdown and puts them back: the
site must come out exactly as without it, and nothing else may be lifted."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from mlsys_kb.rawhtml import Lifted

from .sitebuild import build_site, copy_project
from .test_build import _hostile

PAGE = """# Topic

### Alpha { #alpha }

Ada Lovelace · **OSDI 2022**

<div class="entry-chrome" data-search-exclude>
<p class="entry-links"><a href="https://example.org/a">Paper</a></p>
</div>

A paragraph that mentions <div class="entry-chrome"> inline stays.
<div class="entry-chrome">
is not after a blank line, so it stays too.
</div>

<div class="entry-index" data-search-exclude>
<p>Also in this topic:</p>
<ul class="entry-list">
<li><a href="../b/#beta">Beta</a></li>
</ul>
</div>

<ul class="entry-list">
<li><a href="../c/#gamma">Gamma</a></li>
</ul>"""


def test_blocks_are_lifted_and_put_back_in_place() -> None:
    lifted = Lifted()
    markdown = lifted.lift("topics/a/index.md", PAGE)
    assert markdown.count("<!--mlsys-kb:") == 3
    assert 'class="entry-links"' not in markdown and "Also in this topic" not in markdown
    assert 'mentions <div class="entry-chrome"> inline' in markdown
    assert '<div class="entry-chrome">\nis not after a blank line' in markdown
    assert lifted.restore("topics/a/index.md", markdown) == PAGE


def test_a_lost_or_repeated_marker_is_an_error() -> None:
    lifted = Lifted()
    markdown = lifted.lift("p.md", PAGE)
    first = markdown.index("<!--mlsys-kb:")
    lost = markdown[:first] + markdown[markdown.index("-->", first) + 3 :]
    with pytest.raises(ValueError, match="3 HTML blocks were lifted from the page but 2"):
        lifted.restore("p.md", lost)
    lifted.lift("p.md", PAGE)
    marker = markdown[first : markdown.index("-->", first) + 3]
    with pytest.raises(ValueError, match="but 4 came back"):
        lifted.restore("p.md", markdown + marker)


def test_a_marker_from_another_build_is_left_as_it_is() -> None:
    earlier, later = Lifted(), Lifted()
    forged = earlier.lift("p.md", PAGE)
    later.lift("p.md", PAGE)
    with pytest.raises(ValueError, match="but 0 came back"):
        later.restore("p.md", forged)
    assert later.restore("other.md", forged) == forged


def _pages(site: Path) -> dict[str, bytes]:
    """Every file of the site but the search index: Pagefind numbers the records in the
    order its threads read them, so two builds of the same catalog differ there anyway
    (the records themselves come from the catalog, not from the pages)."""
    pages = {}
    for path in sorted(site.rglob("*")):
        if path.is_file() and not path.relative_to(site).parts[0].startswith("pagefind"):
            data = path.read_bytes()
            pages[str(path.relative_to(site))] = (
                gzip.decompress(data) if path.suffix == ".gz" else data
            )
    return pages


def test_the_site_is_the_same_byte_for_byte_with_and_without_lifting(tmp_path: Path) -> None:
    # The hostile catalog puts markup, quotes and brackets in every text and URL field.
    project = copy_project(tmp_path / "project")
    _hostile(project)
    lifted = build_site(project, tmp_path / "lifted")
    assert lifted.returncode == 0, lifted.stdout + lifted.stderr
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    plain = text.replace("\n  - mlsys-kb  #", "\n  - mlsys-kb:\n      lift_html: false\n  #", 1)
    assert plain != text
    config.write_text(plain, encoding="utf-8")
    unlifted = build_site(project, tmp_path / "plain")
    assert unlifted.returncode == 0, unlifted.stdout + unlifted.stderr
    with_lifting, without = _pages(tmp_path / "lifted"), _pages(tmp_path / "plain")
    assert len(with_lifting) > 40
    assert with_lifting.keys() == without.keys()
    different = [name for name in with_lifting if with_lifting[name] != without[name]]
    assert different == []
    topic = with_lifting["topics/gnn/index.html"].decode()
    assert topic.count('class="entry-chrome"') >= 2 and "<!--mlsys-kb:" not in topic
