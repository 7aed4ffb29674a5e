"""``mlsys-kb check-links``: internal links of the built site, or external links of the data.

Without ``--external`` it checks every internal link and ``#anchor`` of the already built
site (``site/``, or ``--site``) with LinkChecker and fails on any broken one. With
``--external`` it checks the catalogs' external URLs with a cache and reports rot.

Exit status: 0 all good; 1 broken links found; 2 the check did not run, or did not run
whole (no site, a LinkChecker crash or time-out, a plugin it did not load, a self-check
canary it did not catch, an unreadable cache); 3 the network is unreachable.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_BROKEN = 1
EXIT_ERROR = 2
EXIT_OFFLINE = 3


def _label(path: Path) -> str:
    """The path as the user would write it: relative below the current directory."""
    path = path.resolve()
    cwd = Path.cwd().resolve()
    return os.path.relpath(path, cwd) if path.is_relative_to(cwd) else str(path)


def _internal(args: argparse.Namespace) -> int:
    from . import internal, report

    site = args.site if args.site is not None else args.root / "site"
    github = args.format == "github"
    try:
        result = internal.check_site(site, jobs=args.jobs, timeout=args.timeout)
    except internal.CheckError as error:
        did_not_run(f"{_label(site)}: {error}", github)
        return EXIT_ERROR
    label = _label(result.site)
    for line in report.internal_lines(result, label, github=github):
        print(line)
    for warning in result.warnings:
        # Not failures (a redirect, say), but worth a look.
        print(
            f"{label}/{warning.page}:{warning.line}:{warning.column}: warning: "
            f"{warning.link}: {warning.reason}",
            file=sys.stderr,
        )
    if args.report_md:
        report.write(args.report_md, report.internal_markdown(result, label))
    if args.report_json:
        report.write_json(args.report_json, report.internal_json(result))
    print(report.internal_summary(result), file=sys.stderr)
    return EXIT_OK if result.ok else EXIT_BROKEN


def did_not_run(message: str, github: bool) -> None:
    """Say that the check did not run (exit status 2), as an annotation on GitHub too."""
    print(message, file=sys.stderr)
    print("check-links did not run: no result (exit status 2)", file=sys.stderr)
    if github:
        text = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
        print(f"::error title=check-links did not run::{text}")


def _external(args: argparse.Namespace) -> int:
    from . import external, report

    cache = args.cache if args.cache is not None else args.root / external.DEFAULT_CACHE
    config = external.Config(ttl_days=args.ttl_days)
    if args.canary:
        config.canaries = tuple(args.canary)
    try:
        result = external.check_external(args.root, cache, config=config)
    except external.CheckError as error:
        did_not_run(str(error), args.format == "github")
        return EXIT_ERROR
    for line in report.external_lines(result):
        print(line)
    if args.report_md:
        report.write(args.report_md, report.external_markdown(result))
    if args.report_json:
        report.write_json(args.report_json, report.external_json(result))
    print(report.external_summary(result), file=sys.stderr)
    if result.network == "unreachable":
        return EXIT_OFFLINE
    return EXIT_OK if result.ok else EXIT_BROKEN


def run(args: argparse.Namespace) -> int:
    return _external(args) if args.external else _internal(args)


def register(commands: Any) -> None:
    command = commands.add_parser(
        "check-links",
        help="check the built site's internal links and anchors, or (--external) the "
        "catalogs' URLs",
        description=(__doc__ or "").replace("``", ""),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument(
        "--site",
        type=Path,
        default=None,
        metavar="DIR",
        help="built site to check (default: site/)",
    )
    command.add_argument(
        "--external", action="store_true", help="check the catalogs' external URLs instead"
    )
    command.add_argument(
        "--cache",
        type=Path,
        default=None,
        metavar="FILE",
        help="cache of external results (default: .cache/mlsys-kb/external-links.json)",
    )
    command.add_argument(
        "--ttl-days",
        type=float,
        default=14.0,
        metavar="DAYS",
        help="check a good external URL again after this many days (default: 14)",
    )
    command.add_argument(
        "--canary",
        action="append",
        metavar="URL",
        help="with --external: a URL whose answer shows the network is up, when no catalog "
        "URL answered (repeatable; default: github.com, doi.org, arxiv.org)",
    )
    command.add_argument(
        "--report-md",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the results as Markdown",
    )
    command.add_argument(
        "--report-json",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the results as JSON",
    )
    command.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="text (default) or GitHub Actions annotations for internal failures",
    )
    command.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        metavar="SECONDS",
        help="give up on the internal check after this long, as failed (default: 900)",
    )
    command.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="LinkChecker processes for the internal check (default: 1; more only helps "
        "sites with many pages and few #anchor links)",
    )
    command.set_defaults(run=run)
