"""What ``mlsys-kb add`` does for each kind of entry; the options are declared in __init__."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path
from typing import Any

from .. import validate, writer
from ..model import Catalog, Entry
from ..schema import ENTRY_KINDS, KINDS
from . import edit, naming, sources
from .fetch import ARXIV_API, CROSSREF_API, GITHUB_API, Client, FetchError, OfflineError, base_url


class AddError(Exception):
    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


# --- shared checks ---------------------------------------------------------------------


def _load(root: Path) -> Catalog:
    if not (root / validate.DATA_DIR).is_dir():
        raise AddError(
            f"no {validate.DATA_DIR}/ directory under {root.resolve()}",
            "run this in the knowledge base's directory, or pass --root",
        )
    catalog, _problems = validate.load(root)
    return catalog


def _known(catalog: Catalog, kind: str) -> list[str]:
    return [entry.id for entry in catalog[kind]]


def _check_refs(catalog: Catalog, kind: str, wanted: list[str], option: str) -> None:
    known = _known(catalog, kind)
    unknown = [value for value in wanted if value not in known]
    if unknown:
        raise AddError(
            f"unknown {KINDS[kind].singular} {', '.join(unknown)} in {option}",
            f"use ids from data/{kind}.yaml: {', '.join(known)}",
        )


def _check_topics(catalog: Catalog, args: argparse.Namespace) -> None:
    if not args.topic:
        raise AddError(
            "give at least one --topic: the first is the entry's home page",
            f"topics: {', '.join(_known(catalog, 'topics'))}",
        )
    _check_refs(catalog, "topics", args.topic, "--topic")
    _check_refs(catalog, "tags", args.tag or [], "--tag")


def _taken_ids(catalog: Catalog) -> set[str]:
    return {entry.id for kind in ENTRY_KINDS for entry in catalog[kind]}


def _new_id(catalog: Catalog, wanted: str | None, proposed: str, what: str) -> str:
    if wanted:
        if wanted in _taken_ids(catalog):
            raise AddError(f"the id {wanted} is taken", "pass another --id")
        return wanted
    if not proposed:
        raise AddError(f"cannot make an id from the {what}", "pass --id")
    return naming.unused(proposed, _taken_ids(catalog))


def _where(entry: Entry) -> str:
    return f"`{entry.id}` ({entry.path}:{entry.mark[0]})"


def _today() -> str:
    return dt.date.today().isoformat()


def _client(args: argparse.Namespace) -> Client:
    return Client.from_env(args.timeout)


def _finish(root: Path, kind: str, values: dict[str, Any], dry_run: bool) -> int:
    clean = {name: value for name, value in values.items() if value not in (None, [], "")}
    text = writer.entry_text(kind, clean)
    if dry_run:
        print(text, end="")
        print(f"(dry run: data/{kind}.yaml was not changed)", file=sys.stderr)
        return 0
    edited = edit.add_entry(root, kind, clean)
    print(text, end="")
    print(
        f"added {clean['id']} to {edited.path}:{edited.line}; "
        "check it with `make validate` and preview it with `make serve`",
        file=sys.stderr,
    )
    return 0


# --- papers ----------------------------------------------------------------------------


def _duplicate_paper(catalog: Catalog, doi: str | None, arxiv: str | None, title: str | None):
    for entry in catalog["papers"]:
        if doi and str(entry.get("doi", "")).lower() == doi.lower():
            return entry, f"DOI {doi}"
        if arxiv and str(entry.get("arxiv", "")).split("v")[0] == arxiv:
            return entry, f"arXiv id {arxiv}"
        if title and naming.normal_title(str(entry.get("title", ""))) == naming.normal_title(title):
            return entry, "title"
    return None


def _refuse_duplicate(catalog: Catalog, doi=None, arxiv=None, title=None) -> None:
    found = _duplicate_paper(catalog, doi, arxiv, title)
    if found:
        entry, what = found
        raise AddError(f"the same {what} is catalogued already as {_where(entry)}")


def _venue(catalog: Catalog, args: argparse.Namespace, meta: sources.Metadata | None) -> str:
    venues = catalog["venues"]
    if args.venue:
        _check_refs(catalog, "venues", [args.venue], "--venue")
        return args.venue
    ids = ", ".join(_known(catalog, "venues"))
    preprints = [v.id for v in venues if v.get("kind") == "preprint"]
    # An arXiv paper is a preprint until someone says where it was published.
    from_arxiv = meta.kind == "preprint" and meta.arxiv if meta else args.arxiv and not args.doi
    if from_arxiv and len(preprints) == 1:
        said = f" (arXiv's comment: {meta.comment})" if meta and meta.comment else ""
        print(
            f"note: venue {preprints[0]}, a preprint{said}; pass --venue if it was published",
            file=sys.stderr,
        )
        return preprints[0]
    if meta is None:
        raise AddError(
            "give --venue: the id of the paper's conference or journal", f"venues: {ids}"
        )
    found = naming.match_venues(venues, meta.venue_hints)
    if len(found) == 1:
        return found[0]
    said = "; ".join(f"'{hint}'" for hint in meta.venue_hints) or "nothing about the venue"
    what = f"several venues match ({', '.join(found)})" if found else "no venue matches"
    raise AddError(
        f"cannot tell which venue this is: the metadata says {said}, and {what}",
        f"pass --venue with one of: {ids}; or add the venue to data/venues.yaml "
        "(id, name, title, kind) and run the command again",
    )


def _add_paper(args: argparse.Namespace) -> int:
    catalog = _load(args.root)
    _check_topics(catalog, args)
    doi = sources.doi_of(args.doi) if args.doi else None
    arxiv = sources.arxiv_id(args.arxiv) if args.arxiv else None
    _refuse_duplicate(catalog, doi=doi, arxiv=arxiv, title=args.title)
    meta: sources.Metadata | None = None
    if args.no_fetch:
        missing = [name for name in ("title", "author", "year") if not getattr(args, name, None)]
        if missing or not (doi or arxiv or args.url):
            needed = ", ".join(f"--{name}" for name in missing) or "--doi, --arxiv or --url"
            raise AddError(
                f"--no-fetch takes the metadata from the command line: give {needed}",
                "and at least one of --doi, --arxiv or --url",
            )
    elif doi:
        meta = sources.fetch_crossref(_client(args), base_url(CROSSREF_API, args.crossref_api), doi)
    elif arxiv:
        meta = sources.fetch_arxiv(_client(args), base_url(ARXIV_API, args.arxiv_api), arxiv)
    else:
        raise AddError(
            "give --arxiv ID or --doi DOI to fetch the metadata",
            "or --no-fetch with --title, --author, --year, --venue and --url",
        )
    title = args.title or (meta.title if meta else "")
    authors = args.author or (meta.authors if meta else [])
    year = args.year or (meta.year if meta else None)
    families = meta.family_names if meta and not args.author else []
    families = families or [sources.family_of(name) for name in authors]
    doi = doi or (meta.doi if meta else None)
    arxiv = arxiv or (meta.arxiv if meta else None)
    _refuse_duplicate(catalog, doi=doi, arxiv=arxiv, title=title)
    venue = _venue(catalog, args, meta)
    key = naming.citation_key(families[0] if families else "", int(year or 0), title)
    paper_id = _new_id(catalog, args.id, key, "first author's name and the title")
    if meta and meta.kind == "preprint" and meta.doi:
        print(
            f"note: arXiv links this preprint to DOI {meta.doi}; if that is the published "
            "version, consider `--doi` and its venue instead",
            file=sys.stderr,
        )
    values = {
        "id": paper_id,
        "title": title,
        "authors": authors,
        "year": year,
        "venue": venue,
        "doi": doi,
        "arxiv": arxiv,
        "url": args.url,
        "pdf": args.pdf,
        "code": args.code,
        "topics": args.topic,
        "tags": args.tag,
        "summary": args.summary,
        "added": _today(),
    }
    return _finish(args.root, "papers", values, args.dry_run)


# --- issues, decks, resources ------------------------------------------------------------


def _add_issue(args: argparse.Namespace) -> int:
    catalog = _load(args.root)
    _check_topics(catalog, args)
    owner, repo, number = sources.issue_url(args.url)
    for entry in catalog["issues"]:
        if (
            str(entry.get("repo", "")).lower() == f"{owner}/{repo}".lower()
            and entry.get("number") == number
        ):
            raise AddError(f"{owner}/{repo}#{number} is catalogued already as {_where(entry)}")
    if args.no_fetch:
        if not args.title or not args.state:
            raise AddError(
                "--no-fetch takes the issue from the command line: give --title and --state"
            )
        issue = sources.Issue(f"{owner}/{repo}", number, args.title, args.state)
    else:
        issue = sources.fetch_issue(
            _client(args), base_url(GITHUB_API, args.github_api), owner, repo, number
        )
        if issue.pull_request:
            print(f"note: {owner}/{repo}#{number} is a pull request", file=sys.stderr)
    proposed = f"{naming.slug(issue.repo.split('/')[-1])}-{number}"
    values = {
        "id": _new_id(catalog, args.id, proposed, "repository name"),
        "repo": issue.repo,
        "number": number,
        "title": args.title or issue.title,
        "state": args.state or issue.state,
        "symptom": args.symptom,
        "cause": args.cause,
        "workaround": args.workaround,
        "versions": args.version,
        "topics": args.topic,
        "tags": args.tag,
        "added": _today(),
    }
    return _finish(args.root, "issues", values, args.dry_run)


def _add_deck(args: argparse.Namespace) -> int:
    catalog = _load(args.root)
    _check_topics(catalog, args)
    _check_refs(catalog, "papers", args.paper or [], "--paper")
    values = {
        "id": _new_id(catalog, args.id, naming.slug(args.title), "title"),
        "title": args.title,
        "date": args.date,
        "presenters": args.presenter,
        "topics": args.topic,
        "tags": args.tag,
        "summary": args.summary,
        "papers": args.paper,
        "file": args.file,
        "url": args.link,
        "video": args.video,
        "added": _today(),
    }
    return _finish(args.root, "decks", values, args.dry_run)


def _add_resource(args: argparse.Namespace) -> int:
    catalog = _load(args.root)
    _check_topics(catalog, args)
    wanted = naming.normal_url(args.url)
    for entry in catalog["resources"]:
        if naming.normal_url(str(entry.get("url", ""))) == wanted:
            raise AddError(f"{args.url} is catalogued already as {_where(entry)}")
    values = {
        "id": _new_id(catalog, args.id, naming.slug(args.name), "name"),
        "name": args.name,
        "kind": args.kind,
        "url": args.url,
        "description": args.description,
        "authors": args.author,
        "date": args.date,
        "language": args.language,
        "code": args.code,
        "topics": args.topic,
        "tags": args.tag,
        "added": _today(),
    }
    return _finish(args.root, "resources", values, args.dry_run)


# --- command line ------------------------------------------------------------------------


def _run(handler):
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except OfflineError as error:
            return _fail(f"{error}", _offline_hint(args))
        except FetchError as error:
            return _fail(str(error), _offline_hint(args))
        except AddError as error:
            return _fail(str(error), error.hint)
        except edit.EditError as error:
            for problem in error.problems:
                print(problem, file=sys.stderr)
            return _fail(str(error), error.hint or _problem_hint(error.problems))
        except ValueError as error:
            return _fail(str(error), "")

    return run


def _offline_hint(args: argparse.Namespace) -> str:
    if args.add_kind == "paper":
        return (
            "to add it without the network: --no-fetch --title ... --author ... "
            "--year ... --venue ... (and --doi, --arxiv or --url)"
        )
    if args.add_kind == "issue":
        return "to add it without the network: --no-fetch --title ... --state open|closed"
    return ""


def _problem_hint(problems: list) -> str:
    text = " ".join(problem.message for problem in problems)
    if "unknown venue" in text:
        return "add the venue to data/venues.yaml (id, name, title, kind), or pass another --venue"
    if "unknown topic" in text or "unknown tag" in text:
        return "use ids from data/topics.yaml and data/tags.yaml, or add the new one there first"
    return "fix the values on the command line and run it again"


def _fail(message: str, hint: str) -> int:
    print(f"mlsys-kb add: error: {message}", file=sys.stderr)
    if hint:
        print(f"  hint: {hint}", file=sys.stderr)
    return 1


HANDLERS = {
    "paper": _add_paper,
    "issue": _add_issue,
    "deck": _add_deck,
    "resource": _add_resource,
}


def run(args: argparse.Namespace) -> int:
    return _run(HANDLERS[args.add_kind])(args)
