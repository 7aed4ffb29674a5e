"""``mlsys-kb refresh issues``: bring the state (open or closed) of catalogued GitHub issues
up to date through the GitHub REST API, for a scheduled workflow.

Only the ``state`` values change, in place: every other byte of data/issues.yaml, comments
included, stays as it was. An issue that cannot be fetched is reported and the others are
still updated; the exit status is then 1 so that the workflow shows it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the HTTP client is loaded when the command runs, not at start-up
    from .add.fetch import Client

KIND = "issues"


def _text(entry: Any, name: str) -> str | None:
    fld = entry.field(name)
    if fld is None or fld.value.kind != "scalar":
        return None
    return fld.value.value


def refresh_issues(
    root: Path, client: Client, api: str, *, dry_run: bool = False
) -> tuple[list[str], list[str]]:
    """Update issue states; (changes made, problems met), each as a line for the user."""
    from . import writer
    from .add import edit, sources
    from .add.fetch import FetchError, OfflineError

    file, raw, doc = edit.read_catalog(root, KIND)
    changes: list[tuple[int, int, str]] = []
    made: list[str] = []
    failed: list[str] = []
    for entry in doc.entries:
        state = entry.field("state")
        repo, number = _text(entry, "repo"), _text(entry, "number")
        line, column = doc.line_of(entry.dash), doc.column_of(entry.dash) + 1
        place = f"{doc.path}:{line}:{column}: {entry.id or '-'}"
        if state is None or repo is None or number is None or "/" not in repo:
            failed.append(f"{place}: no repo, number or state to refresh")
            continue
        owner, name = repo.split("/", 1)
        try:
            issue = sources.fetch_issue(client, api, owner, name, int(number))
        except OfflineError:
            raise
        except (FetchError, ValueError) as error:
            failed.append(f"{place}: {error}")
            continue
        old = state.value.value
        if issue.state != old:
            value = state.value
            changes.append((value.start, value.end, writer.scalar(issue.state)))
            made.append(f"{place}: {repo}#{number} {old} -> {issue.state}")
    if changes and not dry_run:
        problems = edit.replace_spans(root, file, raw, doc, changes)
        if problems:
            raise edit.EditError(
                f"the refreshed states are not valid, so {doc.path} was left as it was", problems
            )
    return made, failed


def run(args: argparse.Namespace) -> int:
    from .add import edit
    from .add.fetch import GITHUB_API, Client, OfflineError, base_url

    client = Client.from_env(args.timeout)
    api = base_url(GITHUB_API, args.github_api)
    try:
        made, failed = refresh_issues(args.root, client, api, dry_run=args.dry_run)
    except OfflineError as error:
        print(f"mlsys-kb refresh: error: {error}; nothing was changed", file=sys.stderr)
        return 1
    except edit.EditError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        print(f"mlsys-kb refresh: error: {error}", file=sys.stderr)
        return 1
    for line in made:
        print(line)
    for line in failed:
        print(line, file=sys.stderr)
    verb = "would change" if args.dry_run else "changed"
    print(
        f"{len(made)} issue state(s) {verb}, {len(failed)} could not be refreshed",
        file=sys.stderr,
    )
    return 1 if failed else 0


def register(commands: Any) -> None:
    command = commands.add_parser(
        "refresh",
        help="update catalogued GitHub issues' state (open/closed) from the GitHub API",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    what = command.add_subparsers(dest="refresh_kind", required=True, metavar="WHAT")
    issues = what.add_parser("issues", help="the state of every issue in data/issues.yaml")
    issues.add_argument("--dry-run", action="store_true", help="report, change no file")
    issues.add_argument(
        "--github-api",
        metavar="URL",
        help="default: $MLSYS_KB_GITHUB_API or https://api.github.com",
    )
    issues.add_argument("--timeout", type=float, help="seconds per HTTP attempt (default 15)")
    issues.set_defaults(run=run)
