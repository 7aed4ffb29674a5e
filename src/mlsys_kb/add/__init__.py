"""``mlsys-kb add``: add a paper, deck, issue or resource with one command.

A paper's metadata comes from the arXiv API or Crossref, an issue's title and state from
the GitHub REST API; ``--no-fetch`` takes them from the command line instead. The entry is
inserted at its canonical place (catalogs are sorted by id) without touching the rest of
the file, and the project is validated; if the new entry is not valid the file is put back
and every problem is listed.

This module only declares the command line; the work is in ``commands`` (imported when the
command runs, so that other commands start without loading HTTP and XML libraries).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..schema import KINDS

PAPER_EXAMPLES = """\
examples:
  mlsys-kb add paper --arxiv 2010.05337 --topic gnn --venue ia3
  mlsys-kb add paper --doi 10.14778/3415478.3415530 --topic distributed-training
  mlsys-kb add paper --no-fetch --title "..." --author "Da Zheng" --author "Chao Ma" \\
      --year 2020 --venue ia3 --arxiv 2010.05337 --topic gnn
"""
EXAMPLES = """\
examples:
  mlsys-kb add paper --arxiv 2010.05337 --topic gnn
  mlsys-kb add issue --url https://github.com/pytorch/pytorch/issues/90613 \\
      --symptom "RuntimeError: lazy wrapper should be called at most once" --topic pytorch-issues
  mlsys-kb add deck --title "DistDGL review" --summary "Review of DistDGL." --topic gnn
  mlsys-kb add resource --name vLLM --kind framework --url https://github.com/vllm-project/vllm \\
      --description "A serving engine for LLMs." --topic serving

Every command takes --dry-run to print the entry without writing it.
See CONTRIBUTING.md for each field.
"""


def _run(args: argparse.Namespace) -> int:
    from . import commands

    return commands.run(args)


def _common(parser: argparse.ArgumentParser, *, fetches: bool) -> None:
    parser.add_argument(
        "--topic", action="append", metavar="ID", help="topic id (repeat; the first is home)"
    )
    parser.add_argument("--tag", action="append", metavar="ID", help="tag id (repeat)")
    parser.add_argument("--id", help="the entry's id (default: derived, see above)")
    parser.add_argument("--dry-run", action="store_true", help="print the entry, change no file")
    if fetches:
        parser.add_argument(
            "--no-fetch",
            action="store_true",
            help="use no network: take every field from the command line",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            help="seconds per HTTP attempt (default 15, or MLSYS_KB_HTTP_TIMEOUT)",
        )


def register(commands: Any) -> None:
    add = commands.add_parser(
        "add",
        help="add a paper (from an arXiv id or DOI), issue, deck or resource",
        description=(
            "Add one entry at its place in data/<catalog>.yaml, then validate; an entry "
            "that is not valid is taken out again and its problems listed."
        ),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    kinds = add.add_subparsers(dest="add_kind", required=True, metavar="KIND")

    paper = kinds.add_parser(
        "paper",
        help="a paper, with metadata from arXiv or Crossref",
        description=(
            "Fetch a paper's title, authors and year from the arXiv API (--arxiv) or "
            "Crossref (--doi), propose its citation key (first author's family name, year, "
            "first significant title word), and insert it into data/papers.yaml."
        ),
        epilog=PAPER_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    paper.add_argument("--arxiv", metavar="ID", help="arXiv identifier, e.g. 2010.05337")
    paper.add_argument("--doi", help="DOI, e.g. 10.14778/3415478.3415530")
    paper.add_argument("--title", help="title (overrides the fetched one)")
    paper.add_argument("--author", action="append", help="author, 'Given Family' (repeat)")
    paper.add_argument("--year", type=int, help="year of publication")
    paper.add_argument("--venue", metavar="ID", help="venue id from data/venues.yaml")
    paper.add_argument("--url", help="landing page")
    paper.add_argument("--pdf", help="direct link to an open PDF")
    paper.add_argument("--code", help="official code repository")
    paper.add_argument("--summary", help="one sentence on what the paper does")
    paper.add_argument(
        "--arxiv-api",
        metavar="URL",
        help="default: $MLSYS_KB_ARXIV_API or https://export.arxiv.org/api/query",
    )
    paper.add_argument(
        "--crossref-api",
        metavar="URL",
        help="default: $MLSYS_KB_CROSSREF_API or https://api.crossref.org",
    )
    _common(paper, fetches=True)
    paper.set_defaults(run=_run)

    issue = kinds.add_parser(
        "issue",
        help="a GitHub issue, with title and state from the GitHub API",
        description="Take the title and state from the GitHub REST API (GITHUB_TOKEN if set).",
    )
    issue.add_argument("--url", required=True, help="https://github.com/OWNER/REPO/issues/N")
    issue.add_argument("--symptom", required=True, help="what the user sees, error text included")
    issue.add_argument("--cause", help="suspected cause")
    issue.add_argument("--workaround", help="how to get around it")
    issue.add_argument("--version", action="append", help="affected version (repeat)")
    issue.add_argument("--title", help="title (with --no-fetch, or to override)")
    issue.add_argument("--state", choices=("open", "closed"), help="state (with --no-fetch)")
    issue.add_argument(
        "--github-api",
        metavar="URL",
        help="default: $MLSYS_KB_GITHUB_API or https://api.github.com",
    )
    _common(issue, fetches=True)
    issue.set_defaults(run=_run)

    deck = kinds.add_parser("deck", help="a seminar slide deck")
    deck.add_argument("--title", required=True)
    deck.add_argument("--summary", required=True, help="what the talk covers")
    deck.add_argument("--date", help="date of the seminar, YYYY-MM-DD")
    deck.add_argument("--presenter", action="append", help="presenter (repeat)")
    deck.add_argument("--paper", action="append", metavar="ID", help="paper id reviewed (repeat)")
    deck.add_argument("--file", help="slide file under slides/")
    deck.add_argument("--link", metavar="URL", help="where the slides are published")
    deck.add_argument("--video", help="recording of the talk")
    _common(deck, fetches=False)
    deck.set_defaults(run=_run)

    resource = kinds.add_parser("resource", help="a tool, framework, post, course or site")
    resource.add_argument("--name", required=True)
    resource.add_argument(
        "--kind",
        required=True,
        choices=KINDS["resources"].field("kind").choices,  # type: ignore[union-attr]
    )
    resource.add_argument("--url", required=True)
    resource.add_argument("--description", required=True, help="one sentence on what it is")
    resource.add_argument("--author", action="append", help="author of a post (repeat)")
    resource.add_argument("--date", help="publication date of a post, YYYY-MM-DD")
    resource.add_argument("--language", help="language code when not English, e.g. zh")
    resource.add_argument("--code", help="source repository, when url is not it")
    _common(resource, fetches=False)
    resource.set_defaults(run=_run)
