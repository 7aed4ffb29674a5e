"""``mlsys-kb render --out DIR``: the site as a plain, builder-neutral project.

DIR gets ``docs/`` (the hand-written pages and assets, the generated pages, the deck
files) and ``mkdocs.yml`` (this project's config with the navigation from
data/topics.yaml written out, and without the mlsys-kb and bibtex plugins). Citations in
the hand-written pages become footnotes made from the catalog (render/citations.py), so
MkDocs, ProperDocs and Zensical each build DIR as it is, with no plugin of ours.

The project is written into a fresh folder next to DIR and only then moved into place: a
failure leaves DIR as it was. An existing DIR is replaced only if it holds a project this
command wrote (its marker file), never another folder.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from . import validate
from .build import swap_into_place
from .docs import hand_written
from .render import Options, render_site
from .render.citations import resolve
from .render.nav import navigation
from .render.site import Site

TEMPLATES = Path(__file__).parent / "templates"  # the plugin's theme overrides

MARKER = ".mlsys-kb-render"
OUR_PLUGINS = frozenset({"mlsys-kb", "bibtex"})  # ours, and mkdocs-bibtex: citations resolved


class RenderError(Exception):
    pass


def load_config(root: Path) -> dict[str, Any]:
    """mkdocs.yml as MkDocs reads it, ``!ENV`` values resolved from the environment."""
    from mkdocs.utils.yaml import yaml_load  # MkDocs' own loader: !ENV, INHERIT

    path = root / "mkdocs.yml"
    with path.open("rb") as stream:
        return yaml_load(stream) or {}


def _plugin_name(item: Any) -> str:
    return next(iter(item)) if isinstance(item, dict) else str(item)


def _plugin_options(config: dict[str, Any], name: str) -> dict[str, Any]:
    for item in config.get("plugins") or []:
        if isinstance(item, dict) and _plugin_name(item) == name:
            return dict(item[name] or {})
    return {}


def project_files(root: Path) -> tuple[dict[str, Any], dict[str, str | Path]]:
    """The config and the files of the builder-neutral project: ``{path: text or source}``,
    paths relative to DIR. Raises RenderError with every problem found."""
    config = load_config(root)
    catalog, problems = validate.load(root)
    if problems:
        raise RenderError("\n".join(str(problem) for problem in problems))
    options = _plugin_options(config, "mlsys-kb")
    docs = root / config.get("docs_dir", "docs")
    guides_dir = options.get("guides_dir", "guides")
    overviews_dir = options.get("overviews_dir", "overviews")
    render_options = Options(
        repo_url=config.get("repo_url"),
        branch=options.get("branch", "main"),
        recent=options.get("recent", 10),
        site_url=config.get("site_url"),
        overviews={
            path.stem: f"{overviews_dir}/{path.name}"
            for path in sorted((docs / overviews_dir).glob("*.md"))
        },
        directory_urls=config.get("use_directory_urls", True),
        # The Explore page and the search box's Pagefind index are the plugin's: another
        # builder keeps its own search (Material's or Zensical's), which must leave the
        # entry chrome and the index lists out so that a hit lands on an entry.
        explore=False,
        material_search=True,
    )
    generated = render_site(catalog, render_options)
    site = Site(catalog, render_options)
    files: dict[str, str | Path] = {}
    errors: list[str] = []
    for source in sorted(p for p in docs.rglob("*") if p.is_file()):
        path = source.relative_to(docs).as_posix()
        if path in generated:
            errors.append(f"docs/{path} would hide the generated page; rename or remove it")
        elif source.suffix == ".md":
            result = resolve(source.read_text(encoding="utf-8"), path, site)
            errors += [
                f"docs/{path}:{line}: unknown citation key @{key}; add the paper to "
                "data/papers.yaml or correct the key"
                for line, key in result.unknown
            ]
            files[f"docs/{path}"] = result.markdown
        else:
            files[f"docs/{path}"] = source
    if errors:
        raise RenderError("\n".join(errors))
    files.update({f"docs/{path}": content for path, content in generated.items()})
    for deck in catalog["decks"]:
        if deck.get("file"):
            files[f"docs/{deck['file']}"] = root / deck["file"]
    # Theme overrides: the site's own (custom_dir), then the plugin's templates where the
    # site has no file of that name (the topic feeds' <link> in <head>; their search part
    # is off without the plugin, and Material's own search stays).
    custom_dir = (config.get("theme") or {}).get("custom_dir") or "overrides"
    for folder in (root / custom_dir, TEMPLATES):
        for source in sorted(p for p in folder.rglob("*") if p.is_file()):
            files.setdefault(f"{custom_dir}/{source.relative_to(folder).as_posix()}", source)
    pages = hand_written(docs, guides_dir, overviews_dir, generated)
    neutral = {key: value for key, value in config.items() if key != "INHERIT"}
    neutral["docs_dir"] = "docs"
    neutral["nav"] = navigation(catalog, pages)
    neutral["plugins"] = [
        item for item in config.get("plugins") or [] if _plugin_name(item) not in OUR_PLUGINS
    ]
    # The generated pages have no source in the repository to edit: no page-level edit
    # button (each entry keeps its own "Edit this entry" link to its catalog line). Zensical
    # ignores an empty edit_uri and links .../REPO//topics/x/index.md: the theme feature
    # goes too.
    neutral["edit_uri"] = ""
    theme = dict(neutral.get("theme") or {})
    if isinstance(theme.get("features"), list):
        theme["features"] = [
            feature
            for feature in theme["features"]
            if feature not in ("content.action.edit", "content.action.view")
        ]
    theme["custom_dir"] = custom_dir
    neutral["theme"] = theme
    header = (
        "# Written by `mlsys-kb render --out`: the site without the mlsys-kb plugin, for any\n"
        "# builder that reads mkdocs.yml. Regenerate it; do not edit it.\n"
    )
    files["mkdocs.yml"] = header + yaml.safe_dump(neutral, sort_keys=False, allow_unicode=True)
    return neutral, files


def write(root: Path, out: Path) -> None:
    out = out.resolve()
    if out.exists() and any(out.iterdir()) and not (out / MARKER).exists():
        raise RenderError(
            f"{out} exists and was not written by `mlsys-kb render`; give an empty or new folder"
        )
    if out == root.resolve() or root.resolve().is_relative_to(out):
        raise RenderError(f"{out} holds the project itself; give another folder")
    _config, files = project_files(root)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        for path, content in files.items():
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                shutil.copyfile(content, target)
            else:
                target.write_text(content, encoding="utf-8")
        (staging / MARKER).write_text("written by mlsys-kb render --out\n", encoding="utf-8")
        swap_into_place(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def run(args: argparse.Namespace) -> int:
    try:
        write(args.root, args.out)
    except RenderError as error:
        print(error, file=sys.stderr)
        print("nothing written", file=sys.stderr)
        return 1
    print(f"wrote {args.out}; build it with `mkdocs build -f {args.out}/mkdocs.yml`")
    return 0


def register(commands: Any) -> None:
    render = commands.add_parser(
        "render",
        help="write the site as a plain project (pages, docs, mkdocs.yml with nav) for any builder",
    )
    render.add_argument("--out", type=Path, required=True, help="folder to write the project to")
    render.set_defaults(run=run)
