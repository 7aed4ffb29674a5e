"""`mlsys-kb validate`: every kind of problem, at its exact place, with its exact message.

Each test breaks a scratch copy of the real catalogs (the ``project`` fixture) and compares
the whole list of problems, so that a check that fires too often fails as surely as one
that does not fire.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from mlsys_kb import validate
from mlsys_kb.cli import main
from mlsys_kb.schema import KINDS

from .conftest import ROOT

CLI = Path(sys.executable).parent / "mlsys-kb"
NEXT_YEAR = dt.date.today().year + 1


def problems(root: Path) -> list[str]:
    return [str(problem) for problem in validate.load(root)[1]]


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed command, run in the project as a contributor runs it."""
    return subprocess.run(
        [str(CLI), "validate", *args], cwd=root, capture_output=True, text=True, timeout=120
    )


@dataclass
class Project:
    """A scratch copy of the catalogs, with ids that exist in it to refer to."""

    root: Path
    topic: str
    venue: str
    tag: str
    paper: str
    paper_line: int

    def append(self, kind: str, text: str) -> int:
        """Add ``text`` at the end of a catalog; the line number its first line gets."""
        file = self.root / "data" / f"{kind}.yaml"
        old = file.read_text(encoding="utf-8")
        if not old.endswith("\n"):
            old += "\n"
        file.write_text(old + "\n" + text, encoding="utf-8")
        return old.count("\n") + 2

    def write(self, kind: str, content: str | bytes) -> Path:
        file = self.root / "data" / f"{kind}.yaml"
        if isinstance(content, bytes):
            file.write_bytes(content)
        else:
            file.write_text(content, encoding="utf-8")
        return file

    def paper_text(self, paper_id: str, **changes: str | None) -> str:
        """A valid paper, one field per line in this order, with ``changes`` applied
        (None removes a field)."""
        fields = {
            "id": paper_id,
            "title": "A valid paper",
            "authors": "[Ada Lovelace, Alan Turing]",
            "year": "2020",
            "venue": self.venue,
            "url": f"https://example.org/{paper_id}",
            "topics": f"[{self.topic}]",
        }
        fields.update(changes)
        lines = [f"{name}: {value}" for name, value in fields.items() if value is not None]
        return "- " + "\n  ".join(lines) + "\n"


@pytest.fixture
def kb(project: Path) -> Project:
    catalog, found = validate.load(project)
    assert [str(p) for p in found] == [], "the shipped catalogs must be valid to start from"
    paper = catalog["papers"][0]
    return Project(
        project,
        catalog["topics"][0].id,
        catalog["venues"][0].id,
        catalog["tags"][0].id,
        paper.id,
        paper.mark[0],
    )


# --- YAML and the shape of a file ------------------------------------------------------------


def test_yaml_syntax_error_is_reported_at_the_parsers_line(kb: Project) -> None:
    line = kb.append("papers", "- id: broken\n  title: Fine\n   year: 2020\n")
    text = (kb.root / "data" / "papers.yaml").read_text()
    with pytest.raises(yaml.MarkedYAMLError) as parser:
        yaml.load(text, Loader=yaml.CSafeLoader)
    assert parser.value.problem_mark.line + 1 == line + 2  # where PyYAML itself stops

    done = run_cli(kb.root)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"data/papers.yaml:{line + 2}:8: -: YAML syntax error: "
        "mapping values are not allowed in this context"
    ]
    assert done.stderr == "1 problem(s) found\n"


def test_unclosed_quote_names_where_the_scalar_began(kb: Project) -> None:
    line = kb.append("papers", '- id: broken\n  title: "no closing quote\n  year: 2020\n')
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 3}:1: -: YAML syntax error: found unexpected end of stream "
        f"(while scanning a quoted scalar at line {line + 1}, column 10)"
    ]


def test_a_broken_catalog_does_not_flood_the_others_with_unknown_references(
    kb: Project,
) -> None:
    # Every paper names a topic; with topics.yaml unreadable none of them is "unknown".
    line = kb.append("topics", "- id: [unclosed\n")
    assert problems(kb.root) == [
        f"data/topics.yaml:{line + 1}:1: -: YAML syntax error: did not find expected ',' or ']' "
        f"(while parsing a flow sequence at line {line}, column 7)"
    ]


def test_a_file_that_is_not_a_list(kb: Project) -> None:
    kb.write("venues", "# venues\nname: OSDI\ntitle: Operating Systems Design\n")
    assert problems(kb.root) == [
        "data/venues.yaml:2:1: -: the file must be a list of entries, each starting with "
        "`- id: ...`, not a mapping"
    ]


def test_a_list_of_things_that_are_not_entries(kb: Project) -> None:
    kb.write("tags", "- just-a-word\n- [a, list]\n")
    assert problems(kb.root) == [
        "data/tags.yaml:1:3: #1: an entry must be a mapping of fields (`- id: ...`), "
        "not a single value",
        "data/tags.yaml:2:3: #2: an entry must be a mapping of fields (`- id: ...`), not a list",
    ]


@pytest.mark.parametrize("content", ["", "\n\n", "# only a comment\n", "---\n"])
def test_an_empty_file(kb: Project, content: str) -> None:
    kb.write("tags", content)
    expected = "file is empty; it should be a list of entries"
    if content == "---\n":  # one document holding nothing
        expected = "the file must be a list of entries, each starting with `- id: ...`, "
        expected += "not a single value"
    line = 2 if content == "---\n" else 1
    assert problems(kb.root) == [f"data/tags.yaml:{line}:1: -: {expected}"]


def test_a_missing_catalog(kb: Project) -> None:
    (kb.root / "data" / "tags.yaml").unlink()
    assert problems(kb.root) == [
        "data/tags.yaml:1:1: -: missing catalog; create data/tags.yaml as a list of entries"
    ]


@pytest.mark.parametrize(
    ("name", "hint"), [("paper.yaml", "papers.yaml"), ("topics.yml", "topics.yaml")]
)
def test_a_yaml_file_no_command_reads_is_an_error(kb: Project, name: str, hint: str) -> None:
    # Entries put in a misnamed file would never be checked or built, and validate passed.
    (kb.root / "data" / name).write_text("- id: lost\n")
    (kb.root / "data" / "notes.txt").write_text("not YAML, not a catalog\n")
    [problem] = problems(kb.root)
    assert problem.startswith(f"data/{name}:1:1: -: not a catalog this project reads")
    assert f"did you mean {hint}?" in problem


# --- fields --------------------------------------------------------------------------------


def test_a_missing_required_field(kb: Project) -> None:
    line = kb.append("papers", kb.paper_text("no-title", title=None, topics=None))
    assert problems(kb.root) == [
        f"data/papers.yaml:{line}:3: no-title: missing required field `title` "
        "(Title as published.)",
        f"data/papers.yaml:{line}:3: no-title: missing required field `topics` "
        "(Topic ids, the first is the entry's home.)",
    ]


def test_a_paper_needs_a_doi_an_arxiv_id_or_a_url(kb: Project) -> None:
    line = kb.append("papers", kb.paper_text("unfindable", url=None))
    assert problems(kb.root) == [
        f"data/papers.yaml:{line}:3: unfindable: needs at least one of `doi`, `arxiv`, `url` "
        "so that readers can find it"
    ]


def test_wrong_types(kb: Project) -> None:
    line = kb.append(
        "papers",
        kb.paper_text(
            "wrong-types",
            title="[Two, Titles]",
            authors="Ada Lovelace",
            year='"2020"',
            topics="{main: x}",
        ),
    )
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 1}:10: wrong-types: `title` must be a single value, not a list",
        f"data/papers.yaml:{line + 2}:12: wrong-types: `authors` must be a list of text "
        "values, not a single value; write `authors: [Ada Lovelace]`",
        f"data/papers.yaml:{line + 3}:9: wrong-types: `year` must be a whole number such as "
        "2020, not '2020'",
        f"data/papers.yaml:{line + 6}:11: wrong-types: `topics` must be a list of ids, "
        "not a mapping",
    ]


def test_nested_items_and_empty_values(kb: Project) -> None:
    line = kb.append(
        "papers",
        kb.paper_text("nested", authors="[Ada Lovelace, [Alan Turing], '']", venue="~"),
    )
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 2}:27: nested: each item of `authors` must be a single "
        "value, not a list",
        f"data/papers.yaml:{line + 2}:42: nested: empty item in `authors`; remove it",
        f"data/papers.yaml:{line + 4}:10: nested: `venue` is empty; give a value or remove "
        "the field",
    ]


def test_an_unknown_field_suggests_the_near_miss(kb: Project) -> None:
    text = kb.paper_text("typo").replace("  title:", "  titel:")
    line = kb.append("papers", text)
    fields = ", ".join(KINDS["papers"].field_names)
    assert problems(kb.root) == [
        f"data/papers.yaml:{line}:3: typo: missing required field `title` (Title as published.)",
        f"data/papers.yaml:{line + 1}:3: typo: unknown field `titel` for a paper; did you mean "
        f"`title`? (fields: {fields})",
    ]


def test_a_field_given_twice(kb: Project) -> None:
    text = kb.paper_text("twice") + "  title: Another title\n"
    line = kb.append("papers", text)
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 7}:3: twice: field `title` appears twice in this entry; keep one"
    ]


@pytest.mark.parametrize(
    ("bad", "suggestion"),
    [("Zheng2020DistDGL", "zheng2020distdgl"), ("two--dashes", "two-dashes"), ("a_b c", "a-b-c")],
)
def test_a_malformed_id(kb: Project, bad: str, suggestion: str) -> None:
    line = kb.append("papers", kb.paper_text(f'"{bad}"', url="https://example.org/malformed"))
    assert problems(kb.root) == [
        f"data/papers.yaml:{line}:7: {bad}: an id must be lowercase a-z, 0-9 and single "
        f"dashes, not {bad!r}; for example `{suggestion}`"
    ]


# --- uniqueness ----------------------------------------------------------------------------


def test_a_duplicate_id_within_a_catalog(kb: Project) -> None:
    first = kb.append("papers", kb.paper_text("twin"))
    second = kb.append("papers", kb.paper_text("twin", url="https://example.org/other"))
    assert problems(kb.root) == [
        f"data/papers.yaml:{second}:7: twin: duplicate id; also used by `twin` "
        f"(data/papers.yaml:{first})"
    ]


def test_a_duplicate_id_across_catalogs(kb: Project) -> None:
    line = kb.append(
        "resources",
        f"- id: {kb.paper}\n  name: Clash\n  kind: tool\n  url: https://example.org/clash\n"
        f"  description: Shares its id with a paper.\n  topics: [{kb.topic}]\n",
    )
    assert problems(kb.root) == [
        f"data/resources.yaml:{line}:7: {kb.paper}: duplicate id; also used by `{kb.paper}` "
        f"(data/papers.yaml:{kb.paper_line})"
    ]


def test_vocabularies_have_their_own_ids(kb: Project) -> None:
    # A tag may share its id with a topic: they are different namespaces.
    kb.append("tags", f"- id: {kb.topic}\n  title: Same id as a topic\n")
    assert problems(kb.root) == []


def test_the_same_doi_arxiv_id_and_url_on_two_entries(kb: Project) -> None:
    first = kb.append(
        "papers",
        kb.paper_text(
            "original",
            url="https://Example.org/work/",
            doi='"10.1145/ABC.123"',
            arxiv='"2101.00001"',
        ),
    )
    second = kb.append(
        "papers",
        kb.paper_text(
            "copy", url="http://example.org/work", doi='"10.1145/abc.123"', arxiv='"2101.00001"'
        ),
    )
    where = f"`original` (data/papers.yaml:{first}); each work is catalogued once"
    assert problems(kb.root) == [
        f"data/papers.yaml:{second + 5}:8: copy: same URL as {where}",
        f"data/papers.yaml:{second + 7}:8: copy: same DOI as {where}",
        f"data/papers.yaml:{second + 8}:10: copy: same arXiv id as {where}",
    ]


def test_the_same_url_on_a_paper_and_a_resource(kb: Project) -> None:
    first = kb.append("papers", kb.paper_text("tool-paper", url="https://example.org/tool"))
    line = kb.append(
        "resources",
        "- id: the-tool\n  name: Tool\n  kind: tool\n  url: https://example.org/tool\n"
        f"  description: The tool of a paper.\n  topics: [{kb.topic}]\n",
    )
    assert problems(kb.root) == [
        f"data/resources.yaml:{line + 3}:8: the-tool: same URL as `tool-paper` "
        f"(data/papers.yaml:{first}); each work is catalogued once"
    ]


# --- references ----------------------------------------------------------------------------


def test_unknown_topic_venue_and_tag(kb: Project) -> None:
    line = kb.append(
        "papers",
        kb.paper_text(
            "dangling",
            venue="qqq-nowhere",
            topics=f"[{kb.topic}, qqq-no-topic]",
            tags="[qqq-no-tag]",
        ),
    )
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 4}:10: dangling: unknown venue `qqq-nowhere`; "
        "add it to data/venues.yaml first",
        f"data/papers.yaml:{line + 6}:{14 + len(kb.topic)}: dangling: unknown topic "
        "`qqq-no-topic`; add it to data/topics.yaml first",
        f"data/papers.yaml:{line + 7}:10: dangling: unknown tag `qqq-no-tag`; "
        "add it to data/tags.yaml first",
    ]


def test_an_unknown_reference_suggests_the_near_miss(kb: Project) -> None:
    kb.append("topics", "- id: profiling-tools\n  title: Profiling tools\n  description: x\n")
    line = kb.append("papers", kb.paper_text("near-miss", topics="[profiling-tool]"))
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 6}:12: near-miss: unknown topic `profiling-tool`; "
        "did you mean `profiling-tools`?"
    ]


def test_a_deck_reviewing_an_unknown_paper(kb: Project) -> None:
    line = kb.append(
        "decks",
        f"- id: review\n  title: Review\n  topics: [{kb.topic}]\n  summary: Reviews papers.\n"
        f"  papers: [{kb.paper}, qqq-no-paper]\n",
    )
    assert problems(kb.root) == [
        f"data/decks.yaml:{line + 4}:{14 + len(kb.paper)}: review: unknown paper "
        "`qqq-no-paper`; add it to data/papers.yaml first"
    ]


def test_topic_parents_must_not_form_a_cycle(kb: Project) -> None:
    line = kb.append(
        "topics",
        "- id: chicken\n  title: C\n  parent: egg\n  description: x\n\n"
        "- id: egg\n  title: E\n  parent: chicken\n  description: x\n",
    )
    assert problems(kb.root) == [
        f"data/topics.yaml:{line + 2}:11: chicken: topic parents form a cycle through `chicken`",
        f"data/topics.yaml:{line + 7}:11: egg: topic parents form a cycle through `egg`",
    ]


def deck(kb: Project, deck_id: str, file: str) -> str:
    return (
        f"- id: {deck_id}\n  title: A talk\n  topics: [{kb.topic}]\n  summary: Slides.\n"
        f"  file: {file}\n"
    )


def test_deck_slide_files(kb: Project) -> None:
    (kb.root / "slides").mkdir(exist_ok=True)
    (kb.root / "slides" / "real.pdf").write_bytes(b"%PDF-1.4\n")
    (kb.root / "secret.txt").write_text("not slides\n")
    (kb.root / "slides" / "escape.pdf").symlink_to(kb.root / "secret.txt")
    real = kb.append("decks", deck(kb, "real", "slides/real.pdf"))
    outside = kb.append("decks", deck(kb, "outside", "../secret.txt"))
    dotdot = kb.append("decks", deck(kb, "dotdot", "slides/../secret.txt"))
    link = kb.append("decks", deck(kb, "link", "slides/escape.pdf"))
    missing = kb.append("decks", deck(kb, "missing", "slides/2023-missing.pdf"))
    assert real  # names a file that is there: no problem
    assert problems(kb.root) == [
        f"data/decks.yaml:{outside + 4}:9: outside: `file` '../secret.txt' is not valid: "
        "expected the slide file, a path under slides/ such as "
        "slides/2023-03-29-distdgl.pdf",
        f"data/decks.yaml:{dotdot + 4}:9: dotdot: slide file 'slides/../secret.txt' is not "
        "under slides/; move it there and name it `slides/NAME`",
        f"data/decks.yaml:{link + 4}:9: link: slide file 'slides/escape.pdf' is not under "
        "slides/; move it there and name it `slides/NAME`",
        f"data/decks.yaml:{missing + 4}:9: missing: slide file 'slides/2023-missing.pdf' does "
        "not exist; add it under slides/ or remove `file`",
    ]


def test_deck_slide_files_that_are_not_usable_paths(kb: Project) -> None:
    (kb.root / "slides").mkdir(exist_ok=True)
    (kb.root / "slides" / "loop-a").symlink_to("loop-b")
    (kb.root / "slides" / "loop-b").symlink_to("loop-a")
    nul = kb.append("decks", deck(kb, "nul", '"slides/a\\0b"'))
    long = kb.append("decks", deck(kb, "long", "slides/" + "a" * 300))
    loop = kb.append("decks", deck(kb, "loop", "slides/loop-a"))
    cut = "'slides/" + "a" * 50 + "'..."
    assert problems(kb.root) == [
        f"data/decks.yaml:{nul + 4}:9: nul: slide file 'slides/a\\x00b' is not a usable path "
        "(embedded null byte)",
        f"data/decks.yaml:{long + 4}:9: long: slide file {cut} is not a usable path "
        "(File name too long)",
        f"data/decks.yaml:{loop + 4}:9: loop: slide file 'slides/loop-a' is not a usable path "
        "(symbolic links in a loop)",
    ]


def test_required_lists_may_not_be_empty(kb: Project) -> None:
    line = kb.append("papers", kb.paper_text("empty-lists", authors="[]", topics="[ ]"))
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 2}:12: empty-lists: `authors` is empty; list at least one",
        f"data/papers.yaml:{line + 6}:11: empty-lists: `topics` is empty; list at least one",
    ]


# --- URLs, dates, years --------------------------------------------------------------------


def test_unsafe_urls(kb: Project) -> None:
    line = kb.append(
        "papers",
        kb.paper_text(
            "unsafe",
            url="javascript:alert(1)",
            pdf='"data:text/html,<script>alert(1)</script>"',
            code="JaVaScRiPt:alert(document.cookie)",
            slides='"java\\tscript:alert(1)"',
            video="//evil.example/video",
        )
        + "  doi: 10.1/x\n",  # a paper needs something that links
    )
    message = "only http(s) URLs and relative paths are allowed"
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 5}:8: unsafe: `url`: 'javascript:alert(1)' uses the "
        f"javascript: scheme; {message}",
        f"data/papers.yaml:{line + 7}:8: unsafe: `pdf`: 'data:text/html,<script>alert(1)"
        f"</script>' uses the data: scheme; {message}",
        f"data/papers.yaml:{line + 8}:9: unsafe: `code`: 'JaVaScRiPt:alert(document.cookie)' "
        f"uses the javascript: scheme; {message}",
        f"data/papers.yaml:{line + 9}:11: unsafe: `slides`: a URL may not contain spaces or "
        "control characters; encode them as %20",
        f"data/papers.yaml:{line + 10}:10: unsafe: `video`: '//evil.example/video' is "
        "protocol-relative; write it with https://",
        f"data/papers.yaml:{line + 11}:8: unsafe: `doi` '10.1/x' is not valid: expected bare "
        "doi, without https://doi.org/ such as 10.14778/3415478.3415530",
    ]


def test_urls_that_are_allowed(kb: Project) -> None:
    kb.append(
        "papers",
        kb.paper_text(
            "allowed",
            url="HTTPS://example.org/a?b=c#d",
            pdf="http://example.org:8080/paper.pdf",
            code="../relative/path",
            slides="slides/talk.pdf",
        ),
    )
    assert problems(kb.root) == []


def test_urls_without_a_host_or_with_another_scheme(kb: Project) -> None:
    line = kb.append(
        "papers",
        kb.paper_text("hostless", url="https:example.org", pdf="ftp://example.org/x.pdf"),
    )
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 5}:8: hostless: `url`: 'https:example.org' has no host",
        f"data/papers.yaml:{line + 7}:8: hostless: `pdf`: 'ftp://example.org/x.pdf' uses the "
        "ftp: scheme; only http(s) URLs and relative paths are allowed",
    ]


@pytest.mark.parametrize("date", ["21/11/2026", "2026-13-01", "2026-2-1", "2026-02-30", "today"])
def test_a_date_that_is_not_iso_8601(kb: Project, date: str) -> None:
    line = kb.append("papers", kb.paper_text("dated", added=date))
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 7}:10: dated: `added` must be an ISO 8601 date YYYY-MM-DD, "
        f"not {date!r}"
    ]


@pytest.mark.parametrize("year", [1800, 1949, NEXT_YEAR + 1, 99999])
def test_a_year_out_of_range(kb: Project, year: int) -> None:
    line = kb.append("papers", kb.paper_text("dated", year=str(year)))
    assert problems(kb.root) == [
        f"data/papers.yaml:{line + 3}:9: dated: year {year} is out of range (1950 to {NEXT_YEAR})"
    ]


def test_years_at_the_edges_of_the_range_are_fine(kb: Project) -> None:
    kb.append("papers", kb.paper_text("oldest", year="1950"))
    kb.append("papers", kb.paper_text("newest", year=str(NEXT_YEAR)))
    assert problems(kb.root) == []


# --- one run, every problem; output formats ---------------------------------------------------


def break_three_files(kb: Project) -> list[str]:
    """Problems in three catalogs at once; the sorted lines validate must print."""
    paper = kb.append("papers", kb.paper_text("bad-year", year="20x0"))
    resource = kb.append(
        "resources",
        "- id: bad-kind\n  name: R\n  kind: gadget\n  url: https://example.org/r\n"
        f"  description: A resource.\n  topics: [{kb.topic}]\n",
    )
    topic = kb.append("topics", "- id: orphan\n  title: Orphan\n  parent: qqq-nobody\n")
    return [
        f"data/papers.yaml:{paper + 3}:9: bad-year: `year` must be a whole number such as 2020, "
        "not '20x0'",
        f"data/resources.yaml:{resource + 2}:9: bad-kind: `kind` must be one of framework, "
        "library, tool, post, course, site, tutorial, docs, dataset, not 'gadget'",
        f"data/topics.yaml:{topic}:3: orphan: missing required field `description` "
        "(What the topic covers.)",
        f"data/topics.yaml:{topic + 2}:11: orphan: unknown topic `qqq-nobody`; add it to "
        "data/topics.yaml first",
    ]


def test_every_problem_of_several_files_in_one_sorted_run(kb: Project) -> None:
    expected = break_three_files(kb)
    done = run_cli(kb.root)
    assert done.returncode == 1
    assert done.stdout.splitlines() == expected
    assert done.stderr == f"{len(expected)} problem(s) found\n"
    assert "Traceback" not in done.stdout + done.stderr


def test_the_shipped_catalogs_pass() -> None:
    done = run_cli(ROOT)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "catalogs are valid\n")


def test_root_option_and_main_function(kb: Project, capsys: pytest.CaptureFixture[str]) -> None:
    expected = break_three_files(kb)
    assert main(["--root", str(kb.root), "validate"]) == 1
    assert capsys.readouterr().out.splitlines() == expected
    assert main(["--root", str(ROOT), "validate"]) == 0


def test_github_annotations(kb: Project) -> None:
    expected = break_three_files(kb)
    line = kb.append("papers", kb.paper_text("percent", url="javascript:%0Aalert(1)"))
    done = run_cli(kb.root, "--format", "github")
    assert done.returncode == 1
    annotations = done.stdout.splitlines()
    # "%" and line breaks are escaped, as GitHub reads them.
    assert annotations.pop(1) == (
        f"::error file=data/papers.yaml,line={line + 5},col=8::percent: `url`: "
        "'javascript:%250Aalert(1)' uses the javascript: scheme; only http(s) URLs and "
        "relative paths are allowed"
    )
    for text, annotation in zip(expected, annotations, strict=True):
        path, row, column, rest = text.split(":", 3)
        assert annotation == f"::error file={path},line={row},col={column}::{rest.lstrip()}"


def test_json_for_tools(kb: Project) -> None:
    expected = break_three_files(kb)
    done = run_cli(kb.root, "--format", "json")
    assert done.returncode == 1
    found = json.loads(done.stdout)
    assert [
        f"{p['path']}:{p['line']}:{p['column']}: {p['entry']}: {p['message']}" for p in found
    ] == expected
    assert all(set(p) == {"path", "line", "column", "entry", "message"} for p in found)
    assert json.loads(run_cli(ROOT, "--format", "json").stdout) == []


def test_validate_works_on_the_current_directory(kb: Project) -> None:
    kb.append("papers", kb.paper_text("here", year="1900"))
    done = subprocess.run(
        [sys.executable, "-m", "mlsys_kb.cli", "validate"],
        cwd=kb.root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout.count("\n") == 1 and "year 1900 is out of range" in done.stdout
