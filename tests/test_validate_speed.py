"""What keeps validation fast is only a shortcut: quick checks decide as the full checks
do, and generated catalogs in the canonical layout never need the slow parser. Also the
benchmark script itself: its generator, its table, its markers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlsys_kb import loader, validate
from mlsys_kb.loader import RawList
from mlsys_kb.model import Entry
from mlsys_kb.schema import KINDS

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import bench

SPECS = [(kind, spec) for kind in KINDS.values() for spec in kind.fields]
TEXTS = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "~",
            "null",
            "2020",
            "0",
            "007",
            "1_000",
            "-3",
            "2026-11-21",
            "2026-02-30",
            "https://example.org/a",
            "HTTP://x.org",
            "https://ex ample.org",
            "javascript:x",
            "//x.org",
            "slides/a.pdf",
            "10.1145/1.2",
            "2101.00001",
            "cs/0112017",
            "a-b",
            "A-b",
            "open",
            "closed",
            "tool",
            "pytorch/pytorch",
            "en",
            "x\ny",
            "\u0661\u0662",
        ]
    ),
    st.text(max_size=20),
)
RAW = st.one_of(
    st.tuples(TEXTS, st.booleans()),
    st.lists(TEXTS, max_size=4).map(
        lambda texts: RawList(texts, [True] * len(texts), [(1, n) for n in range(len(texts))], [])
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SPECS), RAW)
def test_quick_checks_accept_only_what_the_full_checks_accept_unchanged(spec_of, raw) -> None:
    kind, spec = spec_of
    quick_entry = Entry(kind.name, "p.yaml", (1, 1), {})
    quick = validate._quick(spec)(raw, quick_entry)
    if quick is validate._SLOW:
        return
    full_entry = Entry(kind.name, "p.yaml", (1, 1), {})
    reported: list[str] = []
    full = validate._convert(
        spec, raw, (1, 1), full_entry, lambda mark, text: reported.append(text)
    )
    assert reported == []
    assert quick == full
    assert {n: list(m) for n, m in quick_entry.item_marks.items()} == full_entry.item_marks


def test_a_generated_project_is_valid_and_read_by_the_fast_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = bench.generate_project(tmp_path, 300)
    full_parser_calls = []
    real = loader._run_yaml
    monkeypatch.setattr(
        loader, "_run_yaml", lambda *args: full_parser_calls.append(args) or real(*args)
    )
    catalog, found = validate.load(root)
    assert [str(p) for p in found] == []
    assert full_parser_calls == []  # every entry of the canonical layout took the fast way
    assert len(catalog["papers"]) == 300
    assert {len(p["authors"]) for p in catalog["papers"]} == {3, 4, 5, 6, 7}
    assert sum(1 for deck in catalog["decks"] if "file" in deck.values) >= 1


def test_generated_projects_are_the_same_for_the_same_seed(tmp_path: Path) -> None:
    one = bench.generate_project(tmp_path / "one", 50)
    two = bench.generate_project(tmp_path / "two", 50)
    for file in sorted((one / "data").glob("*.yaml")):
        assert file.read_text() == (two / "data" / file.name).read_text()


def test_the_table_goes_between_its_markers(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(
        "# Benchmarks\n\nIntro.\n\n<!-- bench:site -->\nold site\n<!-- /bench:site -->\n"
    )
    bench.write_section(doc, "validate", "| a |\n|---|")
    bench.write_section(doc, "validate", "| b |\n|---|")  # replaced, not added twice
    bench.write_section(doc, "site", "new site")
    assert doc.read_text() == (
        "# Benchmarks\n\nIntro.\n\n<!-- bench:site -->\nnew site\n<!-- /bench:site -->\n\n"
        "<!-- bench:validate -->\n| b |\n|---|\n<!-- /bench:validate -->\n"
    )


def test_the_benchmark_runs_and_prints_a_table() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench.py"),
            "--only",
            "validate",
            "--sizes",
            "shipped,100",
            "--runs",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "| catalogs | catalog data | median | fastest | CPU (median) |" in lines
    assert any(line.startswith("| shipped catalogs | ") for line in lines)
    assert any(line.startswith("| 100 papers | ") for line in lines)
