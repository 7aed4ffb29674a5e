"""The ``mlsys-kb`` command line: thin adapters over the package's functions.

Every subcommand works on the project in the current directory (or ``--root``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from . import add, build, export, fmt, jsonschemas, refresh, standalone, validate
from . import linkcheck as check_links


def _validate(args: argparse.Namespace) -> int:
    _catalog, problems = validate.load(args.root)
    if args.format == "json":
        print(json.dumps([problem.as_dict() for problem in problems], indent=2, ensure_ascii=False))
    else:
        for problem in problems:
            print(problem.as_github() if args.format == "github" else problem)
    if problems:
        if args.format == "text":
            print(f"{len(problems)} problem(s) found", file=sys.stderr)
        return 1
    if args.format == "text":
        print("catalogs are valid", file=sys.stderr)
    return 0


def _schemas(args: argparse.Namespace) -> int:
    changed = jsonschemas.write(args.root)
    for path in changed:
        print(f"wrote {path}")
    if not changed:
        print("schemas are up to date", file=sys.stderr)
    return 0


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(
        prog="mlsys-kb", description="Validate, build and maintain the MLSys knowledge base."
    )
    main.add_argument(
        "--root", type=Path, default=Path("."), help="project directory (default: current)"
    )
    commands = main.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = commands.add_parser(
        "validate", help="check every catalog and list every problem as path:line:column"
    )
    check.add_argument(
        "--format",
        choices=("text", "github", "json"),
        default="text",
        help="text (default), GitHub Actions annotations, or JSON for tools",
    )
    check.set_defaults(run=_validate)

    schemas = commands.add_parser(
        "schemas", help="regenerate the JSON Schemas under schemas/ from the declarations"
    )
    schemas.set_defaults(run=_schemas)

    build_site = commands.add_parser(
        "build", help="validate, render and run `mkdocs build --strict` into site/"
    )
    build_site.add_argument("--site-dir", type=Path, default=None, help="default: site/")
    build_site.set_defaults(run=lambda args: build.build(args.root, args.site_dir))

    serve = commands.add_parser("serve", help="build and serve the site, reloading on edits")
    serve.add_argument("--dev-addr", default="127.0.0.1:8000", help="default: 127.0.0.1:8000")
    serve.set_defaults(run=lambda args: build.serve(args.root, args.dev_addr))
    standalone.register(commands)
    fmt.register(commands)
    add.register(commands)
    export.register(commands)
    refresh.register(commands)
    check_links.register(commands)
    return main


def main(argv: Sequence[str] | None = None) -> int:
    # Messages quote catalog text: never fail on a terminal that cannot show a character.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
