"""``mlsys-kb export``: BibTeX that pybtex parses, JSON and CSL-JSON that json parses, the
same number of entries as the catalogs, and LaTeX specials and non-ASCII names right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pybtex.database import parse_string

from mlsys_kb import bibtex, validate
from mlsys_kb.cli import main
from mlsys_kb.model import Entry
from mlsys_kb.schema import KINDS

SPECIAL_TITLE = "50% of {GPU} time & $x$: #1 fix_a ~b ^c \\d"
SPECIAL_AUTHORS = ["Jörg Koppitz", "Ludwig van Beethoven", "Acme, Inc.", "Vítor H. Fernandes"]


def export(root: Path, form: str, capsys) -> str:
    capsys.readouterr()
    assert main(["--root", str(root), "export", "--format", form]) == 0
    return capsys.readouterr().out


@pytest.fixture
def special(project: Path) -> Path:
    """The project with one paper whose title and authors need every kind of care."""
    papers = project / "data" / "papers.yaml"
    title = json.dumps(SPECIAL_TITLE)  # a JSON string is a valid YAML double-quoted scalar
    authors = ", ".join(json.dumps(name, ensure_ascii=False) for name in SPECIAL_AUTHORS)
    papers.write_text(
        papers.read_text(encoding="utf-8")
        + f"\n- id: zz2024special\n  title: {title}\n  authors: [{authors}]\n  year: 2024\n"
        "  venue: osdi\n  url: https://example.org/a%20b#c\n  topics: [gnn]\n",
        encoding="utf-8",
    )
    assert validate.load(project)[1] == []
    return project


def test_bibtex_of_the_shipped_catalogs_parses_with_every_paper(project: Path, capsys):
    catalog, _ = validate.load(project)
    database = parse_string(export(project, "bibtex", capsys), "bibtex")
    assert list(database.entries) == [paper.id for paper in catalog["papers"]]
    for paper in catalog["papers"]:
        entry = database.entries[paper.id]
        assert len(entry.persons["author"]) == len(paper["authors"])
        assert entry.fields["year"] == str(paper["year"])


def test_latex_specials_and_non_ascii_names(special: Path, capsys):
    entry = parse_string(export(special, "bibtex", capsys), "bibtex").entries["zz2024special"]
    assert entry.type == "inproceedings"
    assert entry.fields["title"] == (
        r"50\% of \{{GPU}\} time \& \$x\$: \#1 fix\_a "
        r"\textasciitilde{}b \textasciicircum{}c \textbackslash{}d"
    )
    people = entry.persons["author"]
    assert [person.last_names for person in people] == [
        ["Koppitz"],
        ["Beethoven"],
        ["{Acme, Inc.}"],
        ["Fernandes"],
    ]
    assert people[0].first_names == ["Jörg"]
    assert people[1].prelast_names == ["van"]
    assert people[3].first_names == ["Vítor"] and people[3].middle_names == ["H."]
    assert entry.fields["url"] == r"https://example.org/a\%20b\#c"


def test_json_keeps_every_catalog_and_count(project: Path, capsys):
    catalog, _ = validate.load(project)
    data = json.loads(export(project, "json", capsys))
    assert set(data) == set(KINDS)
    for kind in KINDS:
        assert len(data[kind]) == len(catalog[kind]), kind
    assert data["papers"][0]["id"] == catalog["papers"][0].id


def test_csl_json_has_one_item_per_paper_with_names_split(special: Path, capsys):
    catalog, _ = validate.load(special)
    items = json.loads(export(special, "csl-json", capsys))
    assert [item["id"] for item in items] == [paper.id for paper in catalog["papers"]]
    item = next(item for item in items if item["id"] == "zz2024special")
    assert item["title"] == SPECIAL_TITLE
    assert item["author"] == [
        {"family": "Koppitz", "given": "Jörg"},
        {"family": "van Beethoven", "given": "Ludwig"},
        {"family": "Acme", "given": "Inc."},
        {"family": "Fernandes", "given": "Vítor H."},
    ]
    assert item["type"] == "paper-conference"
    assert item["issued"] == {"date-parts": [[2024]]}
    pytorch = next(item for item in items if item["id"] == "li2020pytorch")
    assert pytorch["type"] == "article-journal"
    assert pytorch["DOI"] == "10.14778/3415478.3415530"


def test_output_file_is_written_and_an_invalid_catalog_exports_nothing(
    project: Path, tmp_path: Path, capsys
):
    target = tmp_path / "out" / "papers.bib"
    target.parent.mkdir()
    assert main(["--root", str(project), "export", "-o", str(target)]) == 0
    papers_count = len(validate.load(project)[0]["papers"])
    assert f"wrote {papers_count} papers to {target}" in capsys.readouterr().err
    assert len(parse_string(target.read_text(encoding="utf-8"), "bibtex").entries) == papers_count
    papers = project / "data" / "papers.yaml"
    papers.write_text(papers.read_text(encoding="utf-8").replace("venue: osdi", "venue: osdj", 1))
    assert main(["--root", str(project), "export", "--format", "json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "unknown venue `osdj`" in captured.err
    assert "nothing exported" in captured.err


@pytest.mark.parametrize(
    ("title", "written"),
    [
        ("a {pair} of braces", r"a \{pair\} of braces"),
        ("an { unpaired brace", r"an \textbraceleft{} unpaired brace"),
        ("} closed before { opened", r"\textbraceright{} closed before \textbraceleft{} opened"),
    ],
)
def test_braces_always_leave_the_field_balanced(title: str, written: str):
    paper = Entry(
        "papers", "p", (1, 1), {"id": "k", "title": title, "authors": ["A B"], "year": 2020}
    )
    text = bibtex.paper_bibtex(paper, {})
    assert f"{{{written}}}" in text
    assert parse_string(text, "bibtex").entries["k"].fields["title"] == written
