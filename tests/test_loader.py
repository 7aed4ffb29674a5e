"""The loader on hostile input, and its fast line reader against libyaml.

No input may raise: every file gives entries and problems. The fast reader must give
exactly what reading the whole file with libyaml gives: on the shipped catalogs, on a
generated catalog with planted problems, and on text made up by hypothesis.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlsys_kb import loader, validate, writer
from mlsys_kb.model import Catalog, Problem

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from bench import generate_catalogs, generate_project

CLI = Path(sys.executable).parent / "mlsys-kb"
MiB = 1024 * 1024


def problems(root: Path) -> list[str]:
    return [str(problem) for problem in validate.load(root)[1]]


def papers(root: Path, content: str | bytes) -> None:
    file = root / "data" / "papers.yaml"
    if isinstance(content, bytes):
        file.write_bytes(content)
    else:
        file.write_text(content, encoding="utf-8")


def no_traceback(root: Path) -> list[str]:
    """Run the real command; it must fail with problems, not a traceback."""
    done = subprocess.run(
        [str(CLI), "validate"], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    return done.stdout.splitlines()


# --- hostile files -------------------------------------------------------------------------


def test_binary_garbage(project: Path) -> None:
    papers(project, bytes(range(256)) * 64)
    # The first byte that is not UTF-8 is 0x80, byte 128, on the second line (after 0x0a).
    expected = ["data/papers.yaml:2:118: -: not UTF-8 text (byte 0x80); save the file as UTF-8"]
    assert problems(project) == expected
    assert no_traceback(project) == expected


def test_invalid_utf8_in_an_otherwise_good_file(project: Path) -> None:
    good = (project / "data" / "papers.yaml").read_bytes()
    papers(project, good + b"\n- id: caf\xe9\n")
    line = good.count(b"\n") + 2
    assert problems(project) == [
        f"data/papers.yaml:{line}:10: -: not UTF-8 text (byte 0xe9); save the file as UTF-8"
    ]


def test_nul_bytes(project: Path) -> None:
    good = (project / "data" / "papers.yaml").read_text()
    papers(project, good + "\n- id: nul\x00led\n")
    line = good.count("\n") + 2
    assert problems(project) == [
        f"data/papers.yaml:{line}:10: -: YAML syntax error: character U+0000 is not allowed "
        "here (control characters are not allowed)"
    ]


def test_control_characters_and_odd_line_breaks_in_values(project: Path) -> None:
    # Escapes in double quotes are valid YAML; the values must still be refused.
    good = (project / "data" / "tags.yaml").read_text()
    line = good.count("\n") + 2
    (project / "data" / "tags.yaml").write_text(
        good + '\n- id: odd\n  title: "bell\\a and line\\u2028separator"\n'
    )
    assert problems(project) == []  # a title may hold anything printable...
    (project / "data" / "tags.yaml").write_text(good + '\n- id: "odd\\u2028id"\n  title: T\n')
    assert problems(project) == [
        f"data/tags.yaml:{line}:7: odd\u2028id: an id must be lowercase a-z, 0-9 and single "
        "dashes, not 'odd\\u2028id'; for example `odd-id`"
    ]


def test_a_50_mb_file(project: Path) -> None:
    entry = (project / "data" / "papers.yaml").read_text()
    with (project / "data" / "papers.yaml").open("w") as file:
        while file.tell() < 50 * MiB:
            file.write(entry)
    expected = [
        "data/papers.yaml:1:1: -: file is 50.0 MiB, larger than the limit of 20 MiB; "
        "split it or remove what does not belong"
    ]
    assert problems(project) == expected
    assert no_traceback(project) == expected


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # 19 MiB of opening brackets: refused at the 65th level, not after minutes.
        ("- " + "[" * (19 * MiB), "1:66: -: nesting deeper than 64 levels"),
        ("- id: x\n  title: " + "{a: " * (4 * MiB), "2:258: -: nesting deeper than 64 levels"),
        ("- " * (9 * MiB) + "x\n", "1:129: -: nesting deeper than 64 levels"),
        # A value of 19 MiB is read, and quoted in the message only in part.
        (
            "- id: " + "A" * (19 * MiB) + "\n",
            "1:7: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA...: an id must be",
        ),
    ],
    ids=["flow-brackets", "flow-mappings", "block-dashes", "huge-value"],
)
def test_files_just_under_the_size_limit(project: Path, content: str, expected: str) -> None:
    papers(project, content)
    found = [line for line in problems(project) if line.startswith("data/papers.yaml")]
    assert any(line.startswith(f"data/papers.yaml:{expected}") for line in found), found
    assert max(len(line) for line in found) < 1000


def test_a_catalog_that_is_a_device_a_pipe_or_a_directory(project: Path) -> None:
    data = project / "data"
    (data / "papers.yaml").unlink()
    (data / "papers.yaml").symlink_to("/dev/zero")  # would never end
    os.mkfifo(data / "venues.yaml.fifo")
    (data / "venues.yaml").unlink()
    (data / "venues.yaml").symlink_to(data / "venues.yaml.fifo")  # would never start
    (data / "tags.yaml").unlink()
    (data / "tags.yaml").mkdir()
    unusual = "not a regular file; a catalog must be a plain text file"
    assert problems(project) == [
        f"data/papers.yaml:1:1: -: {unusual}",
        f"data/tags.yaml:1:1: -: {unusual}",
        f"data/venues.yaml:1:1: -: {unusual}",
    ]


def test_deep_block_nesting_by_indentation(project: Path) -> None:
    lines = ["- id: deep", "  title:"] + [" " * (4 + level) + "k:" for level in range(200)]
    papers(project, "\n".join(lines) + "\n")
    assert problems(project) == [
        "data/papers.yaml:65:67: -: nesting deeper than 64 levels; catalog entries are flat "
        "mappings of fields"
    ]


BILLION_LAUGHS = "\n".join(
    ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    + [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 10)]
)


def test_a_billion_laughs_is_never_expanded(project: Path) -> None:
    papers(project, BILLION_LAUGHS)
    expected = [
        "data/papers.yaml:1:1: -: the file must be a list of entries, each starting with "
        "`- id: ...`, not a mapping"
    ]
    assert problems(project) == expected
    assert no_traceback(project) == expected


def test_aliases_inside_entries_are_each_reported_once(project: Path) -> None:
    good = (project / "data" / "tags.yaml").read_text()
    line = good.count("\n") + 2
    number = good.count("\n- ") + good.startswith("- ") + 5  # the alias entry's number
    laughs = "".join(f"\n- id: laugh-{n}\n  title: *t\n" for n in range(3))
    (project / "data" / "tags.yaml").write_text(
        good + "\n- id: anchor\n  title: &t Anchor\n" + laughs + "- *t\n"
    )
    alias = "YAML aliases (*name) are not allowed in catalogs; write the value out"
    assert problems(project) == [
        *(f"data/tags.yaml:{line + 4 + 3 * n}:10: laugh-{n}: {alias}" for n in range(3)),
        f"data/tags.yaml:{line + 11}:3: #{number}: this entry is a YAML alias (*name); "
        "aliases are not allowed in catalogs, write the entry out",
    ]


def test_tabs(project: Path) -> None:
    good = (project / "data" / "tags.yaml").read_text()
    line = good.count("\n") + 2
    (project / "data" / "tags.yaml").write_text(good + "\n- id: tabbed\n\ttitle: T\n")
    assert problems(project) == [
        f"data/tags.yaml:{line + 1}:1: -: YAML syntax error: found a tab character that "
        f"violates indentation (while scanning a plain scalar at line {line}, column 7)"
    ]
    # A tab inside a value is text like any other.
    (project / "data" / "tags.yaml").write_text(good + "\n- id: tabbed\n  title: a\tb\n")
    assert problems(project) == []


def test_crlf_line_endings_are_read_and_counted_as_yaml_counts_them(project: Path) -> None:
    text = (project / "data" / "tags.yaml").read_text()
    line = text.count("\n") + 2
    (project / "data" / "tags.yaml").write_bytes(
        (text + "\n- id: Windows\n  title: T\n").replace("\n", "\r\n").encode()
    )
    assert problems(project) == [
        f"data/tags.yaml:{line}:7: Windows: an id must be lowercase a-z, 0-9 and single "
        "dashes, not 'Windows'; for example `windows`"
    ]


# --- the fast reader gives what libyaml gives ----------------------------------------------


def whole_file_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every file go through libyaml in one piece, the reference."""
    monkeypatch.setattr(loader, "split", lambda text: None)


def summary(root: Path) -> tuple[dict[str, list[Any]], list[Problem]]:
    catalog, found = validate.load(root)
    return {
        kind: [entry_state(e) for e in entries] for kind, entries in catalog.entries.items()
    }, found


def entry_state(entry: Any) -> tuple[Any, ...]:
    items = {name: list(marks) for name, marks in entry.item_marks.items()}
    return (
        entry.kind,
        entry.path,
        entry.mark,
        entry.index,
        entry.values,
        entry.marks,
        entry.key_marks,
        items,
    )


def test_fast_reader_matches_libyaml_on_the_shipped_catalogs() -> None:
    for file in sorted((ROOT / "data").glob("*.yaml")):
        text = file.read_text(encoding="utf-8")
        assert loader.parse(text, file.name) == loader.parse(text, file.name, fast=False)


# Entries written by hand rather than by `mlsys-kb fmt`: every line the fast reader must
# leave to libyaml, and problems of every kind, planted among generated entries.
PLANTED = [
    "- id: block-lists\n  authors:\n    - Ada Lovelace\n    - Alan Turing\n  tags: []\n",
    "- id: comments  # a comment after a value\n  title: 'It''s quoted' # and here\n",
    '- id: escapes\n  title: "Tab\\there, \\u00e9, \\"quoted\\" and \\\\"\n',
    "- id: multi-line\n  summary: a plain scalar\n    that goes on\n\n    and on\n",
    "- id: literal\n  summary: |\n    Line one\n    - not an entry\n  year: 2021\n",
    "- id: folded\n  summary: >-\n    folded\n    text\n",
    "- id: flow-map\n  venue: {name: x}\n  topics: [a, {b: c}, [d]]\n",
    "- id: anchors\n  title: &t Anchor\n  summary: *t\n",
    "- {id: flow-entry, title: In flow style, year: 2020}\n",
    "- id: empty-value\n  title:\n  venue: ''\n  year: 2024\n",
    "- id: trailing  \n  title: Trailing blanks  \n",
    '- id: odd-key\n  ? complex\n  : key\n  "quoted": key\n  3: number key\n',
    "- id: Bad_Id\n  year: 1800\n  added: 2026-02-30\n  url: javascript:alert(1)\n",
    "- id: dupe-field\n  title: One\n  title: Two\n",
    "- id: tabbed-value\n  title: a\tb\n  year:\t2020\n",
    "- id: no-break\n  title: a\u00a0b\u2003c\n",
    "-   id: wide-indent\n    title: Indented by four\n",
    "- id: list-spacing\n  tags: [ a ,b,  c ]\n  authors: [x,]\n",
    "- id: unicode-\u00e9\n  title: \u65e5\u672c\u8a9e \U0001f600 titles\n",
    "- just a scalar\n",
    "- id: last\n  title: The end\n",
]


def planted_project(root: Path, seed: int = 1) -> Path:
    """2,000 generated papers with PLANTED among them, and a paper copied under a new id."""
    generate_project(root, 2000, seed=seed)
    text = (root / "data" / "papers.yaml").read_text()
    entries = text.split("\n- ")
    for position, planted in enumerate(PLANTED):
        entries.insert(1 + position * (len(entries) // len(PLANTED)), planted.removeprefix("- "))
    catalogs = generate_catalogs(2000, seed=seed)
    duplicate = catalogs["papers"][5] | {"id": "duplicate-doi"}
    entries.append(writer.entry_text("papers", duplicate).removeprefix("- "))
    (root / "data" / "papers.yaml").write_text("\n- ".join(entries))
    return root


def test_fast_reader_matches_libyaml_on_a_generated_catalog_with_planted_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = planted_project(tmp_path)
    fast = summary(root)
    assert len(fast[0]["papers"]) > 2000
    assert len(fast[1]) > len(PLANTED)  # the planted problems are found...
    with monkeypatch.context() as patch:
        whole_file_only(patch)
        assert summary(root) == fast  # ...exactly as libyaml reading the whole file finds them


def test_a_syntax_error_among_fast_entries_is_reported_for_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = generate_project(tmp_path, 300)
    text = (root / "data" / "papers.yaml").read_text()
    middle = text.index("\n- ", len(text) // 2)
    (root / "data" / "papers.yaml").write_text(
        text[:middle] + '\n- id: open\n  title: "unclosed\n' + text[middle:]
    )
    fast = problems(root)
    assert len(fast) == 1 and "YAML syntax error" in fast[0]
    whole_file_only(monkeypatch)
    assert problems(root) == fast


# --- made-up text --------------------------------------------------------------------------

FRAGMENTS = [
    "- ",
    "-",
    "  ",
    " ",
    "\n",
    "\n- ",
    "\n  ",
    "id",
    "title",
    "authors",
    "year",
    "tags",
    ": ",
    ":",
    "2020",
    "x",
    "a b",
    "[",
    "]",
    "{",
    "}",
    ",",
    ", ",
    '"',
    "'",
    "\\",
    "#",
    " #",
    "&a ",
    "*a",
    "!!str ",
    "|",
    ">",
    "?",
    "%",
    "@",
    "`",
    "~",
    "null",
    "---",
    "...",
    "\t",
    "\r",
    "\r\n",
    "\x00",
    "\x85",
    "\u00a0",
    "\u2028",
    "\ufeff",
    "\U0001f600",
    "é",
    "''",
]
made_up_text = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=60).map("".join),
)

KEYS = st.sampled_from(["id", "title", "authors", "year", "tags", "url", "Title", "x_1"])
TRICKY = st.text(
    alphabet=st.sampled_from([*"aZ09 .-_:#,?[]{}'\"&*!|>%@`\\~/", "é", "\u00a0", "😀", "\t"]),
    max_size=12,
)
VALUES = st.one_of(
    TRICKY,
    TRICKY.map(lambda text: f'"{text}"'),
    TRICKY.map(lambda text: f"'{text}'"),
    st.lists(TRICKY, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
    st.lists(TRICKY, max_size=4).map(lambda items: "[" + ",".join(items) + "]"),
)
LINES = st.one_of(
    st.tuples(KEYS, VALUES).map(lambda pair: f"{pair[0]}: {pair[1]}"),
    st.sampled_from(["", "# comment", "  # indented comment", "   ", "    continued"]),
)
catalog_like_text = st.lists(
    st.lists(LINES, min_size=1, max_size=5).map(lambda lines: "- " + "\n  ".join(lines)),
    min_size=1,
    max_size=4,
).map(lambda entries: "\n".join(entries) + "\n")


@settings(max_examples=200, deadline=None)
@given(st.one_of(made_up_text, catalog_like_text))
def test_the_fast_reader_agrees_with_libyaml_on_made_up_text(text: str) -> None:
    assert loader.parse(text, "p.yaml") == loader.parse(text, "p.yaml", fast=False)


@settings(max_examples=200, deadline=None)
@given(st.one_of(made_up_text, catalog_like_text))
def test_any_text_gives_entries_and_problems_never_an_exception(text: str) -> None:
    raw, found = loader.parse(text, "p.yaml")
    assert isinstance(found, list) and all(isinstance(p, Problem) for p in found)
    catalog = Catalog()
    for kind in validate.KINDS.values():  # every catalog's checks on the same entries
        catalog.entries[kind.name] = [validate._check_fields(kind, entry, found) for entry in raw]
    validate._check_unique(catalog, found)
    validate._check_references(catalog, found, set(), Path(tempfile.gettempdir()))
    assert all(isinstance(p, Problem) for p in found)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300) | made_up_text.map(lambda text: text.encode("utf-8", "replace")))
def test_any_bytes_give_problems_never_an_exception(project: Path, data: bytes) -> None:
    (project / "data" / "papers.yaml").write_bytes(data)
    _catalog, found = validate.load(project)
    assert isinstance(found, list) and all(isinstance(p, Problem) for p in found)
