"""The search records made from the catalog, and the Pagefind index the build writes."""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mlsys_kb import validate
from mlsys_kb.render import Options, render_site, search_records
from mlsys_kb.render.search import Record, page_records, record_html
from mlsys_kb.schema import ENTRY_KINDS

from .test_build import PAYLOADS

GOLDEN = Path(__file__).parent / "golden"


def _records(**options: object) -> tuple[object, list[Record]]:
    catalog, problems = validate.load(GOLDEN / "project")
    assert problems == []
    return catalog, search_records(catalog, Options(**options))  # type: ignore[arg-type]


def test_a_record_says_what_the_entry_is_before_who_and_where() -> None:
    """A result shows the words after the title, under a line that gives the byline, venue
    and year: the summary (an issue's symptom) comes first, or a paper's result repeats its
    authors where a reader looks for what it is about."""
    catalog, records = _records()
    by_id = {r.meta["id"]: r for r in records if "id" in r.meta}
    checked = 0
    for kind in ENTRY_KINDS:
        for entry in catalog[kind]:
            first = entry.get("symptom") if kind == "issues" else None
            first = first or entry.get("summary") or entry.get("description")
            if first:
                assert by_id[entry.id].text.startswith(" ".join(first.split())), entry.id
                checked += 1
    assert checked >= 4


def test_one_record_per_entry_at_its_permalink() -> None:
    catalog, records = _records()
    catalog_json = json.loads(render_site(catalog)["downloads/catalog.json"])  # type: ignore[arg-type]
    permalinks = {row["id"]: row["permalink"] for kind in ENTRY_KINDS for row in catalog_json[kind]}
    entries = [r for r in records if "kind" in r.filters]
    assert sorted(r.meta["id"] for r in entries) == sorted(permalinks)
    for record in entries:
        assert record.url == permalinks[record.meta["id"]]
    # Topics have a record of their own (their page), without a kind: Explore lists entries.
    topics = [r for r in records if "kind" not in r.filters]
    assert sorted(r.url for r in topics) == sorted(
        f"topics/{t.id}/"
        for t in catalog["topics"]  # type: ignore[index]
    )


def test_a_record_holds_its_entry_and_no_other() -> None:
    """beta2020second is followed on its page by a list that links alpha2022first: that
    list is nobody's text, so only alpha's own record holds its title."""
    _, records = _records()
    by_id = {r.meta.get("id"): r for r in records}
    assert "Alpha" not in by_id["beta2020second"].text
    holding = [r.meta.get("id") for r in records if "First Paper" in r.title + r.text]
    assert holding == ["alpha2022first"]


def test_filters_carry_topic_ancestors_and_sort_by_year() -> None:
    catalog, records = _records()
    topics = {t.id: t for t in catalog["topics"]}  # type: ignore[index]
    for record in records:
        if record.filters.get("kind") != ["papers"]:
            continue
        paper = next(p for p in catalog["papers"] if p.id == record.meta["id"])  # type: ignore[index]
        expected = set()
        for topic in paper["topics"]:
            while topic:
                expected.add(topic)
                topic = topics[topic].get("parent")
        assert set(record.filters["topic"]) == expected
        assert record.filters["year"] == [str(paper["year"])] == [record.sort["year"]]
        assert record.filters["venue"] == [paper["venue"]]
        # Every author is searchable, and so are the venue's names.
        for author in paper["authors"]:
            assert author in record.text


def test_permalinks_follow_use_directory_urls() -> None:
    _, records = _records(directory_urls=False)
    urls = {r.meta.get("id"): r.url for r in records}
    assert urls["beta2020second"] == "topics/gnn/index.html#beta2020second"


def test_record_html_keeps_every_value_as_text() -> None:
    """Pagefind reads the record as HTML: no catalog text may open an element in it."""
    payload = " ".join(PAYLOADS)
    record = Record(
        url="topics/x/#y",
        title=payload,
        text=payload,
        meta={"title": payload, "byline": payload},
        filters={"tag": [payload]},
        sort={"year": "2020"},
        names=("y",),
    )

    class Scan(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tags: list[str] = []
            self.values: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.tags.append(tag)
            self.values += [v or "" for k, v in attrs if k == "data-value"]

    scan = Scan()
    scan.feed(record_html(record))
    assert set(scan.tags) <= {"html", "head", "meta", "body", "h1", "p", "i"}
    assert scan.values.count(payload) == 3  # two meta values and the filter, unchanged


def test_hand_written_pages_are_indexed_section_by_section() -> None:
    content = (
        '<h1 id="guide">Guide<a class="headerlink" href="#guide">¶</a></h1><p>Intro.</p>'
        '<h2 id="slurm">Slurm</h2><p>sbatch <code>torchrun</code></p><script>x()</script>'
        '<h2 id="end">End</h2><p>Done.</p>'
    )
    records = page_records(content, "guides/g/", "Guide", "Guide")
    assert [(r.url, r.title, r.text) for r in records] == [
        ("guides/g/#guide", "Guide", "Intro."),
        ("guides/g/#slurm", "Guide: Slurm", "sbatch torchrun"),
        ("guides/g/#end", "Guide: End", "Done."),
    ]


def test_a_sections_text_has_words_not_signs() -> None:
    """Citations (mkdocs-bibtex's footnote numbers) and their way back are signs, not words:
    they showed as "training 2 ." in a result. Inline markup does not cut a word, and the
    items of a list are apart."""
    content = (
        '<h2 id="s">Sampling</h2><p><em>Graph</em>SAINT samples subgraphs <sup id="fnref:z">'
        '<a class="footnote-ref" href="#fn:z">1</a></sup>.</p><ul><li>one</li><li>two</li></ul>'
        '<div class="footnote"><ol><li id="fn:z"><p>Zeng et al. GraphSAINT.&#160;'
        '<a class="footnote-backref" href="#fnref:z">&#8617;</a></p></li></ol></div>'
    )
    [record] = page_records(content, "overviews/gnn/", "GNN", "Overview")
    assert record.text == "GraphSAINT samples subgraphs. one two Zeng et al. GraphSAINT."


def test_the_build_writes_the_index_offline(tmp_path: Path) -> None:
    """The Pagefind index holds every record: entries, topics and the sections of the
    hand-written pages; Material's own index holds nothing."""
    from mlsys_kb.build import build

    project = tmp_path / "project"
    shutil.copytree(GOLDEN / "project", project)
    (project / "mkdocs.yml").write_text(
        "site_name: t\nsite_url: https://example.org/kb/\n"
        "theme:\n  name: material\n  font: false\n"
        "plugins:\n  - search\n  - mlsys-kb\n"
        "markdown_extensions:\n  - attr_list\n  - toc:\n      permalink: true\n",
        encoding="utf-8",
    )
    (project / "docs").mkdir(exist_ok=True)
    (project / "docs" / "about.md").write_text("# About\n\nText.\n\n## More\n\nMore text.\n")
    assert build(project, project / "site") == 0
    site = project / "site"
    entry = json.loads((site / "pagefind" / "pagefind-entry.json").read_text())
    _, records = _records()
    assert entry["languages"]["en"]["page_count"] == len(records)
    # The hand-written page, section by section, in an index of its own.
    pages = json.loads((site / "pagefind-pages" / "pagefind-entry.json").read_text())
    assert pages["languages"]["en"]["page_count"] == 2
    assert not list(project.glob(".mlsys-kb-search-*"))  # the scratch folder is gone
    assert (site / "pagefind" / "pagefind.js").is_file()
    assert not list((site / "pagefind").glob("pagefind-*ui*"))
    assert (site / "assets" / "javascripts" / "mlsys-kb" / "search-worker.js").is_file()
    assert json.loads((site / "search" / "search_index.json").read_text())["docs"] == []
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "assets/javascripts/mlsys-kb/search-worker.js?pages" in home
    assert (site / "explore" / "index.html").is_file()


def test_every_entry_has_a_year_to_sort_by() -> None:
    """Pagefind leaves a record without the sort key out of sorted results (98 records,
    74 when sorted by year, on the real site: the topics have none), and Explore sorts by
    year: an entry without a year or a date must still be listed, last."""
    from mlsys_kb.render.search import entry_record
    from mlsys_kb.render.site import Site

    catalog, problems = validate.load(GOLDEN / "project")
    assert problems == []
    site = Site(catalog)
    for kind in ENTRY_KINDS:
        for entry in catalog[kind]:
            undated = {k: v for k, v in entry.values.items() if k not in ("year", "date", "added")}
            entry.values = undated
            assert entry_record(entry, site).sort == {"year": "0"}, entry.id


def _whole(index: Path) -> list[str]:
    """The files of a Pagefind index that are not whole: its binary files are gzip streams,
    and a write cut short leaves a prefix that does not decompress."""
    import gzip

    torn = []
    for path in sorted(index.rglob("*")):
        if path.is_file() and (path.suffix.startswith(".pf_") or path.suffix == ".pagefind"):
            try:
                gzip.decompress(path.read_bytes())
            except (EOFError, OSError):
                torn.append(path.name)
    return torn


def test_the_index_is_whole_when_write_index_returns(tmp_path: Path) -> None:
    """Pagefind 1.5.2's Python API could answer before its last writes were done (Pagefind
    issue #1271): a busy 10,000-paper build shipped an empty pagefind-entry.json. Every file
    must be complete once write_index returns."""
    from mlsys_kb.search_index import write_index

    _, records = _records()
    many = [dataclasses.replace(r, url=f"r/{i}/{r.url}") for i in range(40) for r in records]
    out = tmp_path / "pagefind"
    assert write_index(many, out) == len(many)
    entry = json.loads((out / "pagefind-entry.json").read_text("utf-8"))
    assert entry["languages"]["en"]["page_count"] == len(many)
    assert len(list((out / "fragment").iterdir())) == len(many)
    assert _whole(out) == []
    assert (out / "pagefind.js").is_file()


def _fake_python(tmp_path: Path, script: str) -> str:
    fake = tmp_path / "python"
    fake.write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
    fake.chmod(0o755)
    return str(fake)


def test_a_pagefind_that_fails_stops_the_index_with_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mlsys_kb import search_index

    _, records = _records()
    monkeypatch.setattr(
        search_index.sys, "executable", _fake_python(tmp_path, "echo 'no site' >&2; exit 3")
    )
    with pytest.raises(RuntimeError, match="Pagefind failed: no site"):
        search_index.write_index(records, tmp_path / "out")


def test_an_index_without_its_entry_file_is_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Pagefind that exits 0 but leaves the entry file empty (what the race above left)
    is caught by the record count."""
    from mlsys_kb import search_index

    _, records = _records()
    out = tmp_path / "out"
    script = f"mkdir -p '{out}' && : > '{out}/pagefind-entry.json'"
    monkeypatch.setattr(search_index.sys, "executable", _fake_python(tmp_path, script))
    with pytest.raises(RuntimeError, match=f"Pagefind indexed 0 of {len(records)} search records"):
        search_index.write_index(records, out)


def _scratch_of_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where write_index put the records' files for Pagefind: a stand-in Pagefind notes its
    --site folder, sees the records there, and fails (so nothing else happens)."""
    from mlsys_kb import search_index

    _, records = _records()
    noted = tmp_path / "site-was"
    script = f"""echo "$4" > '{noted}'; ls "$4" | wc -l >> '{noted}'; exit 3"""
    monkeypatch.setattr(search_index.sys, "executable", _fake_python(tmp_path, script))
    with pytest.raises(RuntimeError, match="Pagefind failed"):
        search_index.write_index(records, tmp_path / "out")
    site, count = noted.read_text("utf-8").split()
    assert int(count) == len(records)
    assert not Path(site).exists(), "the records' folder is removed after the run"
    return Path(site)


def test_the_records_go_to_memory_where_there_is_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a disk each small file is slow to make (11,740 records: 3.3 to 5.7 s on ext4,
    0.5 to 0.9 s in /dev/shm): the records go to the in-memory folder when it has room."""
    from mlsys_kb import search_index

    memory = tmp_path / "memory"
    memory.mkdir()
    monkeypatch.setattr(search_index, "_IN_MEMORY", memory)
    monkeypatch.delenv("TMPDIR", raising=False)
    assert _scratch_of_a_run(tmp_path, monkeypatch).parent == memory
    # Without room for them, or without the folder, the system's temporary folder.
    assert search_index._scratch_root(10**18, 1) is None
    monkeypatch.setattr(search_index, "_IN_MEMORY", tmp_path / "none")
    assert _scratch_of_a_run(tmp_path, monkeypatch).parent == Path(tempfile.gettempdir())


def test_a_tmpdir_the_user_set_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mlsys_kb import search_index

    memory, own = tmp_path / "memory", tmp_path / "own"
    memory.mkdir()
    own.mkdir()
    monkeypatch.setattr(search_index, "_IN_MEMORY", memory)
    monkeypatch.setenv("TMPDIR", str(own))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    assert _scratch_of_a_run(tmp_path, monkeypatch).parent == own
