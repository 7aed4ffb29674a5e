"""``mlsys-kb fmt``: canonical order and layout, with every comment and every value kept.

Round trips run on copies of the shipped catalogs and on fixtures full of comments
(tests/fixtures/fmt/); a property test throws comments at random places of random
catalogs. Nothing may be lost, and a second run must change nothing.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections import Counter
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from mlsys_kb import fmt, validate, writer
from mlsys_kb.cli import main
from mlsys_kb.schema import KINDS

from .conftest import ROOT

FIXTURES = Path(__file__).parent / "fixtures" / "fmt"


def comments(text: str) -> Counter[str]:
    """Every comment of a YAML text, found by the YAML scanner's own positions."""
    doc = fmt.parse(text, "t.yaml")
    return Counter(comment.text for comment in doc.comments)


def by_id(text: str) -> list:
    """The entries' values, ordered by id so that sorting does not count as a change."""
    data = yaml.safe_load(text) or []
    return sorted(data, key=lambda entry: str(entry.get("id")) if isinstance(entry, dict) else "")


def run(root: Path, *args: str) -> int:
    return main(["--root", str(root), "fmt", *args])


def test_shipped_catalogs_round_trip(project: Path, capsys):
    originals = {kind: (project / "data" / f"{kind}.yaml").read_text() for kind in KINDS}
    assert run(project) == 0
    kept = 0
    for kind, before in originals.items():
        after = (project / "data" / f"{kind}.yaml").read_text()
        assert comments(after) == comments(before), kind
        assert by_id(after) == by_id(before), kind
        if kind not in fmt.SORTED_KINDS:
            assert [e["id"] for e in yaml.safe_load(after)] == [
                e["id"] for e in yaml.safe_load(before)
            ], kind
        else:
            ids = [e["id"] for e in yaml.safe_load(after)]
            assert ids == sorted(ids), kind
        kept += sum(comments(before).values())
    assert kept >= len(KINDS)  # at least the schema line of each file
    assert validate.load(project)[1] == []
    capsys.readouterr()
    assert run(project, "--check") == 0
    assert "all files formatted, 7 unchanged" in capsys.readouterr().err


def test_shipped_catalogs_are_formatted():
    """The repository's own catalogs come out of `fmt` unchanged."""
    for file, shown, kind in fmt.catalog_files(ROOT):
        text = file.read_text(encoding="utf-8")
        assert fmt.format_text(text, shown, kind) == text, f"run `mlsys-kb fmt`: {shown}"


@pytest.mark.parametrize("name", ["papers", "topics"])
def test_fixture_full_of_comments_round_trips(name: str):
    text = (FIXTURES / f"{name}.yaml").read_text(encoding="utf-8")
    result = fmt.format_text(text, f"data/{name}.yaml", name)
    expected = comments(text) + Counter([writer.schema_comment(name).rstrip("\n")])
    if name == "topics":
        expected = comments(text)  # it has its schema line already
    assert comments(result) == expected
    assert by_id(result) == by_id(text)
    assert fmt.format_text(result, f"data/{name}.yaml", name) == result


def ruamel_comments(text: str) -> Counter[str]:
    """Every comment line of a YAML text as ruamel.yaml's own scanner finds them."""
    found: Counter[str] = Counter()
    for token in YAML().scan(text):
        for slot in token.comment or []:
            for comment in slot if isinstance(slot, list) else [slot]:
                if comment is None:
                    continue
                lines = (line.strip() for line in comment.value.splitlines())
                found.update(line for line in lines if line.startswith("#"))
    return found


def ruamel_by_id(text: str) -> list:
    data = YAML(typ="safe", pure=True).load(text) or []
    return sorted(data, key=lambda entry: str(entry.get("id")))


@pytest.mark.parametrize(
    "path",
    [FIXTURES / "papers.yaml", FIXTURES / "topics.yaml"]
    + [file for file, _, _ in fmt.catalog_files(ROOT)],
    ids=lambda path: f"{path.parent.name}/{path.name}",
)
def test_ruamel_yaml_finds_the_same_comments_and_values(path: Path):
    """fmt stands in for ruamel.yaml's round trip (see fmt's docstring): the library's own
    scanner and parser, not fmt's, must find every comment and value again after it."""
    kind = path.stem
    text = path.read_text(encoding="utf-8")
    result = fmt.format_text(text, f"data/{path.name}", kind)
    expected = ruamel_comments(text)
    if not text.startswith("# yaml-language-server:"):
        expected[writer.schema_comment(kind).strip()] += 1
    assert ruamel_comments(result) == expected
    assert sum(expected.values()) >= 1
    assert ruamel_by_id(result) == ruamel_by_id(text)


def test_comments_travel_with_their_entries_and_fields():
    text = (FIXTURES / "papers.yaml").read_text(encoding="utf-8")
    result = fmt.format_text(text, "data/papers.yaml", "papers")
    blocks = result.split("\n\n")
    zheng = next(block for block in blocks if "- id: zheng2020distdgl" in block)
    assert zheng.startswith("# About zheng: the DistDGL paper.\n# (two lines of leading comment)\n")
    assert "- id: zheng2020distdgl  # the key follows the citation-key rule\n" in zheng
    assert "  # authors as printed on the paper\n  authors:\n" in zheng
    assert zheng.endswith(
        "  # a commented-out field, at field indentation:\n  # doi: 10.0000/unknown"
    )
    assert result.startswith(
        "# yaml-language-server: $schema=../schemas/papers.schema.json\n"
        "# Papers, hand-edited: every comment in here must survive `mlsys-kb fmt`.\n"
        "# A second header line.\n\n- id: alpha2020first\n"
    )
    assert result.endswith("\n\n# trailing comment of the file, after the last entry\n")
    jia = next(block for block in blocks if "- id: jia2019beyond" in block)
    assert jia.startswith("# Section comment indented oddly, belongs to the next entry.\n")
    assert "-Abstract.html  # landing page\n" in jia


def test_canonical_layout_of_values():
    text = (FIXTURES / "papers.yaml").read_text(encoding="utf-8")
    result = fmt.format_text(text, "data/papers.yaml", "papers")
    # a flow-style entry becomes a block of fields in schema order
    assert (
        '- id: alpha2020first\n  title: "First: a flow-style entry"\n  authors: [A. Alpha]\n'
        '  year: 2020\n  venue: arxiv\n  arxiv: "2001.00001"\n  topics: [gnn]\n'
    ) in result
    assert "  venue: ia3\n" in result  # needless quotes dropped
    assert '  arxiv: "2010.05337"\n' in result  # needed quotes kept (it looks like a number)
    assert '  added: "2026-11-21"\n' in result  # a quoted date stays text
    # a folded block becomes one plain line with the same value
    folded = "A static verifier that proves kernels free of data races, written as a folded block."
    assert f"  summary: {folded}\n" in result
    # the unknown field with a nested mapping is copied as written, after the known ones
    assert "  added: 2026-11-21\n  reviewer_notes:   # unknown field" in result
    assert "      checked: yes\n      by: [someone]\n" in result


def test_topics_keep_their_order():
    text = (FIXTURES / "topics.yaml").read_text(encoding="utf-8")
    result = fmt.format_text(text, "data/topics.yaml", "topics")
    assert [t["id"] for t in yaml.safe_load(result)] == ["gnn", "distributed-training"]
    assert "- id: distributed-training\n  title: Distributed training\n  parent: gnn\n" in result


def test_check_lists_files_and_writes_nothing(project: Path, capsys):
    assert run(project) == 0  # whatever the shipped files' state, start from formatted ones
    papers = project / "data" / "papers.yaml"
    shutil.copy(FIXTURES / "papers.yaml", papers)
    before = papers.read_bytes()
    capsys.readouterr()
    assert run(project, "--check") == 1
    captured = capsys.readouterr()
    assert captured.out == "would reformat data/papers.yaml\n"
    assert "1 file(s) would be reformatted, 6 unchanged" in captured.err
    assert papers.read_bytes() == before
    assert run(project) == 0
    assert run(project, "--check") == 0


def test_a_file_that_does_not_parse_is_left_alone(project: Path, capsys):
    papers = project / "data" / "papers.yaml"
    broken = "- id: a\n  title: [unclosed\n- id: b\n"
    papers.write_text(broken, encoding="utf-8")
    assert run(project) == 1
    out = capsys.readouterr().out
    assert re.search(r"^data/papers\.yaml:\d+:\d+: -: YAML syntax error", out, re.M), out
    assert papers.read_text(encoding="utf-8") == broken
    # --check does not call the files formatted when it could not read one of them.
    assert run(project, "--check") == 1
    err = capsys.readouterr().err
    assert "all files formatted" not in err
    assert "1 file(s) could not be formatted, " in err


def test_aliases_and_non_lists_are_refused_with_their_place(tmp_path: Path):
    with pytest.raises(fmt.FormatError) as error:
        fmt.format_text("- id: a\n  tags: &t [x]\n- id: b\n  tags: *t\n", "data/p.yaml", "papers")
    assert str(error.value).startswith("data/p.yaml:4:9: -: YAML aliases")
    with pytest.raises(fmt.FormatError) as error:
        fmt.format_text("id: a\n", "data/p.yaml", "papers")
    assert "must be a list of entries" in str(error.value)


def test_writes_atomically_and_keeps_the_file_mode(project: Path):
    papers = project / "data" / "papers.yaml"
    shutil.copy(FIXTURES / "papers.yaml", papers)
    os.chmod(papers, 0o640)
    inode = papers.stat().st_ino
    assert run(project) == 0
    assert stat.S_IMODE(papers.stat().st_mode) == 0o640
    assert papers.stat().st_ino != inode  # replaced by rename, not rewritten in place
    assert sorted(p.name for p in (project / "data").iterdir() if p.name.startswith(".")) == []


def test_crlf_and_a_missing_schema_line_are_made_canonical():
    text = "- id: b\r\n  title: B # about b\r\n- id: a\r\n  title: A\r\n"
    result = fmt.format_text(text, "data/tags.yaml", "tags")
    assert result == (
        "# yaml-language-server: $schema=../schemas/tags.schema.json\n"
        "- id: b\n  title: B  # about b\n\n- id: a\n  title: A\n"
    )


def test_multiline_text_becomes_a_literal_block():
    text = '- id: x\n  description: "line one\\nline two"\n  title: X\n'
    result = fmt.format_text(text, "data/tags.yaml", "tags")
    assert "- id: x\n  title: X\n  description: |-\n    line one\n    line two\n" in result
    assert yaml.safe_load(result)[0]["description"] == "line one\nline two"


# --- property: random catalogs, random comments ------------------------------------------

_TEXT = st.text(
    alphabet=st.characters(
        codec="utf-8", categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x85"
    ),
    min_size=1,
    max_size=20,
)
_FIELDS = ["id", "title", "description", "parent", "note", "zz-extra"]


@st.composite
def catalogs(draw) -> tuple[str, int]:
    """A tags-like catalog in random layout with comments in random places."""
    count = draw(st.integers(1, 5))
    lines: list[str] = []
    comment_count = 0

    def comment(indent: int) -> str:
        nonlocal comment_count
        comment_count += 1
        return " " * indent + f"# c{comment_count} {draw(_TEXT)}".rstrip()

    for index in range(count):
        if draw(st.booleans()):
            lines.append(comment(draw(st.sampled_from([0, 2, 4]))))
        names = draw(st.permutations(_FIELDS))[: draw(st.integers(2, len(_FIELDS)))]
        if "id" not in names:
            names = ["id", *names]
        for position, name in enumerate(names):
            value = f"e{index}" if name == "id" else draw(_TEXT)
            if draw(st.booleans()) and name != "id":
                rendered = f"{name}: [{', '.join(writer.scalar(v, in_flow=True) for v in draw(st.lists(_TEXT, max_size=3)))}]"  # noqa: E501
            else:
                rendered = writer.field_line(name, value)
            rendered_lines = rendered.split("\n")
            rendered_lines[0] = ("- " if position == 0 else "  ") + rendered_lines[0]
            if position and draw(st.booleans()):
                lines.append(comment(2))
            if draw(st.booleans()):
                rendered_lines[-1] += " " * draw(st.integers(1, 3)) + comment(0)
            lines += rendered_lines
        if draw(st.booleans()):
            lines.append("")
    if draw(st.booleans()):
        lines.append(comment(0))
    return "\n".join(lines) + "\n", comment_count


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(catalogs(), st.sampled_from(["tags", "papers"]))
def test_random_catalogs_keep_every_comment_and_value(case: tuple[str, int], kind: str):
    text, count = case
    result = fmt.format_text(text, f"data/{kind}.yaml", kind)
    found = comments(result)
    for number in range(1, count + 1):
        assert sum(1 for c in found if c.startswith(f"# c{number} ") or c == f"# c{number}") == 1
    assert by_id(result) == by_id(text)
    assert fmt.format_text(result, f"data/{kind}.yaml", kind) == result


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30))
def test_writer_scalars_read_back_unchanged(value: str):
    plain = yaml.safe_load(writer.field_line("k", value) + "\n")["k"]
    in_flow = yaml.safe_load(f"k: [{writer.scalar(value, in_flow=True)}]\n")["k"][0]
    assert plain == value or (plain is None and value == "")
    assert in_flow == value


def test_the_safety_net_refuses_output_that_lost_something(monkeypatch):
    """If a layout bug ever dropped a comment or changed a value, nothing would be written."""
    text = (FIXTURES / "topics.yaml").read_text(encoding="utf-8")
    render = fmt.render
    monkeypatch.setattr(fmt, "render", lambda doc: render(doc).replace("  # first on purpose", ""))
    with pytest.raises(fmt.FormatError, match="would lose comments"):
        fmt.format_text(text, "data/topics.yaml", "topics")
    monkeypatch.setattr(fmt, "render", lambda doc: render(doc).replace("GNN training", "GNN"))
    with pytest.raises(fmt.FormatError, match="would change a value"):
        fmt.format_text(text, "data/topics.yaml", "topics")
