"""The link benchmark's own parts: the problems it plants are real, and found as planted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import bench_links

from mlsys_kb.linkcheck import internal


@pytest.mark.parametrize(
    ("page", "target", "href"),
    [
        ("topics/gnn/", "papers/by-year/", "../../papers/by-year/"),
        ("topics/gnn/", "", "../../"),
        ("", "topics/gnn/", "topics/gnn/"),
        ("", "", "./"),
        ("404.html", "topics/", "topics/"),
        ("a/b/", "a/b/", "./"),
    ],
)
def test_links_are_written_as_mkdocs_writes_them(page: str, target: str, href: str) -> None:
    assert bench_links._href(page, target) == href


def test_planted_problems_are_found_as_planted(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "docs" / "deep" / "er").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(
        "site_name: Bench\nuse_directory_urls: true\ntheme:\n  name: material\n  font: false\n"
    )
    (project / "docs" / "index.md").write_text("# Home\n\n[A](a/)\n")
    (project / "docs" / "a.md").write_text("# A\n\n[Home](../)\n")
    (project / "docs" / "deep" / "er" / "page.md").write_text("# Deep\n\n[Home](../../../)\n")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet"],
        cwd=project,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=True,
    )
    site = project / "site"
    planted = bench_links.plant(site, 6)
    assert len(planted.broken) == len(planted.anchors) == 6
    result = internal.check_site(site)
    targets = {failure.target for failure in result.failures}
    assert targets == planted.broken | planted.anchors
    assert {f.kind for f in result.failures if f.target in planted.anchors} == {"anchor"}


def test_the_section_goes_between_its_markers_and_nowhere_else(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# B\n\n<!-- bench:site -->\nsite\n<!-- /bench:site -->\n")
    bench_links.write_section(doc, "first")
    bench_links.write_section(doc, "second")
    text = doc.read_text()
    assert text.count("<!-- bench:links -->") == 1
    assert "second" in text and "first" not in text
    assert "<!-- bench:site -->\nsite\n<!-- /bench:site -->" in text
