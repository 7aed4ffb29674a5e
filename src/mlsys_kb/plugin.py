"""The MkDocs plugin: validate the catalogs, render them, hand MkDocs the pages as virtual
files. Event hooks only; the work is done in validate.py and render/.

    plugins:
      - mlsys-kb:
          data_dir: data
      - bibtex:
          bib_file: .cache/mlsys-kb/papers.bib
          enable_inline_citations: false
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, get_plugin_logger
from mkdocs.structure.files import File, Files

from . import validate
from .bibtex import bibliography
from .docs import cited_keys, hand_written
from .model import Catalog
from .rawhtml import Lifted
from .render import Options, render_site
from .render.nav import navigation

log = get_plugin_logger(__name__)


class CatalogConfig(Config):
    root = config_options.Type(str, default=".")  # project root, relative to mkdocs.yml
    bib_file = config_options.Type(str, default=".cache/mlsys-kb/papers.bib")
    branch = config_options.Type(str, default="main")
    recent = config_options.Type(int, default=10)
    overviews_dir = config_options.Type(str, default="overviews")  # under docs_dir
    guides_dir = config_options.Type(str, default="guides")
    # Carry the generated HTML blocks past Python-Markdown (see rawhtml.py); the pages come
    # out the same either way, so false only makes the build slower.
    lift_html = config_options.Type(bool, default=True)


class CatalogPlugin(BasePlugin[CatalogConfig]):
    def __init__(self) -> None:
        self.catalog: Catalog | None = None
        self.generated: dict[str, str] = {}
        self.root = Path(".")
        self.lifted = Lifted()

    def on_config(self, config: Any) -> Any:
        base = Path(config.config_file_path or "mkdocs.yml").resolve().parent
        self.root = (base / self.config.root).resolve()
        catalog, problems = validate.load(self.root)
        if problems:
            listing = "\n".join(str(problem) for problem in problems)
            raise PluginError(f"mlsys-kb: the catalogs have {len(problems)} problem(s):\n{listing}")
        self.catalog = catalog
        self.lifted = Lifted()
        docs = Path(config.docs_dir)
        overviews = {
            path.stem: f"{self.config.overviews_dir}/{path.name}"
            for path in sorted((docs / self.config.overviews_dir).glob("*.md"))
        }
        options = Options(
            repo_url=config.repo_url,
            branch=self.config.branch,
            recent=self.config.recent,
            site_url=config.site_url,
            overviews=overviews,
            directory_urls=config.use_directory_urls,
        )
        self.generated = render_site(catalog, options)
        # mkdocs-bibtex reads its .bib in its own on_config, which runs after ours. It gets
        # only the papers the hand-written pages cite: parsing all 10,000 took seconds.
        # A cited key missing from the catalog stays missing, and the strict build fails.
        cited = cited_keys(docs)
        papers = [paper for paper in catalog["papers"] if paper.id in cited]
        _write_if_changed(
            base / self.config.bib_file, bibliography(papers, catalog.by_id("venues"))
        )
        if not config.nav:
            pages = hand_written(
                docs, self.config.guides_dir, self.config.overviews_dir, self.generated
            )
            config.nav = navigation(catalog, pages)
        return config

    def on_files(self, files: Files, config: Any) -> Files:
        for path, content in self.generated.items():
            existing = files.get_file_from_path(path)
            if existing is not None:
                raise PluginError(
                    f"mlsys-kb: docs/{path} would hide the generated page; rename or remove it"
                )
            files.append(File.generated(config, path, content=content))
        assert self.catalog is not None
        for deck in self.catalog["decks"]:
            if deck.get("file"):
                source = self.root / deck["file"]
                files.append(File.generated(config, deck["file"], abs_src_path=str(source)))
        return files

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Files) -> str:
        if self.config.lift_html and page.file.src_uri in self.generated:
            return self.lifted.lift(page.file.src_uri, markdown)
        return markdown

    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        try:
            return self.lifted.restore(page.file.src_uri, output)
        except ValueError as error:
            raise PluginError(
                f"mlsys-kb: {page.file.src_uri}: {error}; a plugin listed before mlsys-kb "
                "changed the page's HTML comments (a minifier?): list it after mlsys-kb in "
                "mkdocs.yml, or set `lift_html: false` under mlsys-kb"
            ) from None

    def on_serve(self, server: Any, config: Any, builder: Any) -> Any:
        # Editing a catalog under `mkdocs serve` rebuilds and reloads the page. A fresh clone
        # has no slides/ until the first deck file is added (git keeps no empty folders),
        # and watching a missing folder makes MkDocs' file watcher crash.
        for folder in (validate.DATA_DIR, validate.SLIDES_DIR):
            if (self.root / folder).is_dir():
                server.watch(str(self.root / folder))
        return server


def _write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".papers-", suffix=".bib")
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(temporary, path)
