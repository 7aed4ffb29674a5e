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
from .render import Options, render_site, search_records
from .render.nav import navigation
from .render.search import Record, page_records
from .search_index import PAGES_OUTPUT, BackgroundIndex, write_index

log = get_plugin_logger(__name__)

TEMPLATES = Path(__file__).parent / "templates"
ASSETS = Path(__file__).parent / "assets"  # the search worker and the Explore page's script
SCRIPTS = "assets/javascripts/mlsys-kb"  # where they are served from


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
    # pagefind: the catalog's own search index behind Material's search box, and the
    # Explore page; material: Material's built-in lunr search, kept for comparison.
    search = config_options.Choice(("pagefind", "material"), default="pagefind")


class CatalogPlugin(BasePlugin[CatalogConfig]):
    def __init__(self) -> None:
        self.catalog: Catalog | None = None
        self.generated: dict[str, str] = {}
        self.root = Path(".")
        self.lifted = Lifted()
        self.page_records: list[Record] = []  # sections of the hand-written pages
        self.index: BackgroundIndex | None = None
        self.hand_written = False

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
            explore=self.config.search == "pagefind",
            material_search=self.config.search == "material",
        )
        self.page_records = []
        if self.index is not None:  # a build that failed before on_post_build (serve)
            self.index.discard()
            self.index = None
        if self.config.search == "pagefind":
            # Indexed while the pages are rendered and built (started first: at 10,000
            # papers Pagefind takes longer than the rest of the build); moved into the site
            # in on_post_build.
            beside = Path(config.site_dir).resolve().parent
            self.index = BackgroundIndex(search_records(catalog, options), beside)
        self.generated = render_site(catalog, options)
        # Our templates (templates/main.html) link the topic feeds from <head> and, with
        # `search: pagefind`, point Material's search box at our worker; after a custom_dir,
        # so that a site's own overrides still win.
        dirs = config.theme.dirs
        if str(TEMPLATES) not in dirs:
            dirs.insert(1 if config.theme.custom_dir else 0, str(TEMPLATES))
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
            config.nav = navigation(catalog, pages, explore="explore.md" in self.generated)
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
        if self.config.search == "pagefind":
            # Hand-written pages get an index of their own (search_index.py), which the
            # search box merges when there is one; each page gives at least one record.
            self.hand_written = any(
                file.is_documentation_page() and file.src_uri not in self.generated
                for file in files
            )
            for script in sorted(ASSETS.glob("*.js")):
                path = f"{SCRIPTS}/{script.name}"
                files.append(File.generated(config, path, abs_src_path=str(script)))
        return files

    def on_env(self, env: Any, config: Any, files: Files) -> Any:
        env.globals["mlsys_kb_pagefind"] = self.config.search == "pagefind"
        env.globals["mlsys_kb_pages_index"] = self.hand_written
        return env

    def on_page_markdown(self, markdown: str, page: Any, config: Any, files: Files) -> str:
        if self.config.search == "pagefind":
            # Material's search plugin stays (its header renders the search box only
            # when the plugin is configured) but indexes nothing: Pagefind does.
            page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
        if self.config.lift_html and page.file.src_uri in self.generated:
            return self.lifted.lift(page.file.src_uri, markdown)
        return markdown

    def on_page_content(self, html: str, page: Any, config: Any, files: Files) -> str:
        if self.config.search == "pagefind" and page.file.src_uri not in self.generated:
            label = "Guide"
            if page.file.src_uri.startswith(self.config.overviews_dir + "/"):
                label = "Overview"
            elif not page.file.src_uri.startswith(self.config.guides_dir + "/"):
                label = "Page"
            self.page_records += page_records(html, page.url, page.title or "", label)
        return html

    def on_post_build(self, config: Any) -> None:
        if self.index is None:
            return
        site = Path(config.site_dir)
        try:
            self.index.move_into(site)
        except RuntimeError as error:
            raise PluginError(f"mlsys-kb: {error}") from None
        finally:
            self.index = None
        write_index(self.page_records, site / PAGES_OUTPUT)

    def on_build_error(self, error: Exception) -> None:
        if self.index is not None:
            self.index.discard()
            self.index = None

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
