"""Where a build's time goes: `mkdocs build` in this process, with a timer around each stage.

    python scripts/profile_build.py --papers 10000
    python scripts/profile_build.py --project path/to/project

Stages timed: the mlsys-kb plugin's ``on_config`` (validate and render), Python-Markdown's
conversion and, inside it, its raw-HTML block pass, MkDocs' scan of raw HTML for anchors,
block parsing, inline patterns and MkDocs' link rewriting; Material's search indexing; page
templates. The timers wrap the real functions and change nothing else. Stages overlap (the
inner ones are part of the conversion), so they do not add up to the total.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import ROOT, generate_project, machine

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")

totals: collections.Counter[str] = collections.Counter()


def timed(owner: Any, name: str, label: str) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            totals[label] += time.perf_counter() - start

    setattr(owner, name, wrapper)


def profile(project: Path) -> list[tuple[str, float]]:
    import markdown
    import markdown.blockparser
    import markdown.preprocessors
    import markdown.treeprocessors
    import mkdocs.structure.pages as pages
    from material.plugins.search.plugin import SearchPlugin
    from mkdocs.commands import build
    from mkdocs.config import load_config

    from mlsys_kb.plugin import CatalogPlugin

    stages = [
        (CatalogPlugin, "on_config", "mlsys-kb plugin: validate and render"),
        (CatalogPlugin, "on_page_markdown", "mlsys-kb plugin: lift HTML blocks"),
        (CatalogPlugin, "on_post_page", "mlsys-kb plugin: put HTML blocks back"),
        (markdown.Markdown, "convert", "Python-Markdown conversion, in all"),
        (markdown.preprocessors.HtmlBlockPreprocessor, "run", "  raw HTML blocks"),
        (pages._RawHTMLPreprocessor, "run", "  MkDocs' anchor scan of raw HTML"),
        (markdown.blockparser.BlockParser, "parseDocument", "  block parsing"),
        (markdown.treeprocessors.InlineProcessor, "run", "  inline patterns"),
        (pages._RelativePathTreeprocessor, "run", "  MkDocs' link rewriting"),
        (SearchPlugin, "on_page_context", "Material search: indexing pages"),
        (build, "_build_page", "page templates, search indexing included"),
    ]
    for owner, name, label in stages:
        timed(owner, name, label)
    config = load_config(config_file=str(project / "mkdocs.yml"))
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-profile-") as site:
        config["site_dir"] = site
        start = time.perf_counter()
        build.build(config)
        total = time.perf_counter() - start
    return [(label, totals[label]) for _, _, label in stages] + [("mkdocs build", total)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=10000)
    parser.add_argument("--project", type=Path, help="an existing project instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-profile-project-") as scratch:
        project = args.project
        if project is None:
            import shutil

            project = generate_project(Path(scratch) / "project", args.papers)
            shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
            shutil.copytree(ROOT / "docs" / "assets", project / "docs" / "assets")
        os.chdir(project)
        rows = profile(project.resolve())
    print(f"{machine()}\n\n| stage | seconds |\n|---|---|")
    for label, seconds in rows:
        print(f"| {label} | {seconds:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
