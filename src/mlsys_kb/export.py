"""``mlsys-kb export``: the papers as BibTeX or CSL-JSON, or every catalog as JSON.

Exports are made only from valid catalogs: a problem is reported, never exported.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from . import validate
from .model import Catalog, Entry
from .schema import KINDS

FORMATS = ("bibtex", "json", "csl-json")
# Lower-case words that belong to the family name: "Ludwig van Beethoven".
PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "le", "la", "ter", "ten"}
)
CSL_TYPES = {"journal": "article-journal", "preprint": "article"}


def catalog_json(catalog: Catalog) -> str:
    """Every catalog, by name, each a list of its entries' fields."""
    data = {kind: [entry.values for entry in catalog[kind]] for kind in KINDS}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def csl_name(name: str) -> dict[str, str]:
    """A "Given Family" name as CSL: family and given, or literal when it is one word."""
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        return {"family": family, "given": given} if given else {"literal": family}
    words = name.split()
    if len(words) < 2:
        return {"literal": name.strip()}
    cut = len(words) - 1
    while cut > 1 and words[cut - 1] in PARTICLES:
        cut -= 1
    return {"family": " ".join(words[cut:]), "given": " ".join(words[:cut])}


def csl_item(paper: Entry, venues: dict[str, Entry]) -> dict[str, Any]:
    venue = venues.get(paper.get("venue", ""))
    kind = venue.get("kind") if venue else None
    item: dict[str, Any] = {
        "id": paper.id,
        "type": CSL_TYPES.get(kind or "", "paper-conference"),
        "title": paper["title"],
        "author": [csl_name(name) for name in paper.get("authors", [])],
        "issued": {"date-parts": [[paper["year"]]]},
    }
    if venue is not None and kind != "preprint":
        item["container-title"] = venue["title"]
    if paper.get("doi"):
        item["DOI"] = paper["doi"]
    if paper.get("arxiv"):
        item["publisher"] = "arXiv"
        item["number"] = paper["arxiv"]
    url = paper.get("url") or (
        f"https://arxiv.org/abs/{paper['arxiv']}" if paper.get("arxiv") else None
    )
    if url:
        item["URL"] = url
    if paper.get("summary"):
        item["note"] = paper["summary"]
    return item


def csl_json(catalog: Catalog) -> str:
    venues = catalog.by_id("venues")
    items = [csl_item(paper, venues) for paper in catalog["papers"]]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


def export(catalog: Catalog, form: str) -> str:
    if form == "bibtex":
        from . import bibtex

        return bibtex.bibliography(catalog["papers"], catalog.by_id("venues"))
    if form == "csl-json":
        return csl_json(catalog)
    return catalog_json(catalog)


def run(args: argparse.Namespace) -> int:
    catalog, problems = validate.load(args.root)
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(
            f"mlsys-kb export: error: {len(problems)} problem(s) in the catalogs; "
            "nothing exported (fix them, `mlsys-kb validate` lists them)",
            file=sys.stderr,
        )
        return 1
    text = export(catalog, args.format)
    what = (
        f"{len(catalog['papers'])} papers"
        if args.format != "json"
        else ", ".join(f"{len(catalog[kind])} {kind}" for kind in KINDS)
    )
    if args.output is None or str(args.output) == "-":
        sys.stdout.write(text)
    else:
        from .fmt import write_atomic

        output = Path(args.output)
        try:
            write_atomic(output, text)
        except OSError as error:
            reason = error.strerror or str(error)
            print(f"mlsys-kb export: error: cannot write {output}: {reason}", file=sys.stderr)
            return 1
        print(f"wrote {what} to {output}", file=sys.stderr)
    return 0


def register(commands: Any) -> None:
    command = commands.add_parser(
        "export",
        help="export the papers as BibTeX or CSL-JSON, or every catalog as JSON",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    command.add_argument(
        "--format", choices=FORMATS, default="bibtex", help="bibtex (default), json, csl-json"
    )
    command.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE instead of standard output"
    )
    command.set_defaults(run=run)
