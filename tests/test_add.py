"""``mlsys-kb add`` end to end: a scratch copy of the project, recorded real responses served
on 127.0.0.1, and the catalogs checked by the real validator afterwards."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mlsys_kb import validate
from mlsys_kb.cli import main

from .conftest import ROOT
from .test_add_fetch import (
    ARXIV_ALLTOALL,
    ARXIV_NONASCII,
    CROSSREF_PLOS,
    GITHUB_ISSUE,
    RecordedServer,
    Reply,
    recorded,
    refused_url,
    server,  # noqa: F401 - the fixture
)

TODAY = dt.date.today().isoformat()


@pytest.fixture
def services(server: RecordedServer, monkeypatch) -> RecordedServer:  # noqa: F811
    """The recorded responses, and the environment pointing the tool at them."""
    server.route("/arxiv/api/query?id_list=2309.13541&max_results=1", recorded(ARXIV_ALLTOALL))
    server.route("/arxiv/api/query?id_list=2401.11741&max_results=1", recorded(ARXIV_NONASCII))
    server.route("/crossref/works/10.1371/journal.pone.0033693", recorded(CROSSREF_PLOS))
    server.route("/github/repos/PyGithub/PyGithub/issues/28", recorded(GITHUB_ISSUE))
    monkeypatch.setenv("MLSYS_KB_ARXIV_API", f"{server.url}/arxiv/api/query")
    monkeypatch.setenv("MLSYS_KB_CROSSREF_API", f"{server.url}/crossref")
    monkeypatch.setenv("MLSYS_KB_GITHUB_API", f"{server.url}/github")
    monkeypatch.setenv("MLSYS_KB_HTTP_BACKOFF", "0.01")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    return server


def run(project: Path, *args: str) -> int:
    return main(["--root", str(project), *args])


def read(project: Path, kind: str) -> str:
    return (project / "data" / f"{kind}.yaml").read_text(encoding="utf-8")


def entries(project: Path, kind: str) -> list[dict]:
    return yaml.safe_load(read(project, kind))


def problems(project: Path) -> list[str]:
    return [str(problem) for problem in validate.load(project)[1]]


def without(text: str, entry_id: str) -> str:
    """The catalog text with one entry (and the blank line that separates it) cut out."""
    start = text.index(f"- id: {entry_id}\n")
    end = text.find("\n\n", start)  # canonical entries hold no blank line
    if end < 0:  # the last entry
        return text[: start - 1]
    return text[:start] + text[end + 2 :]


# --- papers -------------------------------------------------------------------------------


def test_add_paper_from_arxiv(project: Path, services: RecordedServer, capsys):
    before = read(project, "papers")
    assert (
        run(project, "add", "paper", "--arxiv", "2309.13541", "--topic", "distributed-training")
        == 0
    )
    after = read(project, "papers")
    # only the new entry was added: the rest of the file, comments included, is unchanged
    assert without(after, "basu2023efficient") == before
    papers = entries(project, "papers")
    ids = [paper["id"] for paper in papers]
    assert ids == sorted(ids)
    new = next(paper for paper in papers if paper["id"] == "basu2023efficient")
    assert new == {
        "id": "basu2023efficient",
        "title": "Efficient All-to-All Collective Communication Schedules for Direct-Connect "
        "Topologies",
        "authors": [
            "Prithwish Basu",
            "Liangyu Zhao",
            "Jason Fantl",
            "Siddharth Pal",
            "Arvind Krishnamurthy",
            "Joud Khoury",
        ],
        "year": 2023,
        "venue": "arxiv",
        "arxiv": "2309.13541",
        "topics": ["distributed-training"],
        "added": dt.date.fromisoformat(TODAY),
    }
    assert problems(project) == []
    err = capsys.readouterr().err
    assert "added basu2023efficient to data/papers.yaml:2;" in err
    assert "note: venue arxiv, a preprint (arXiv's comment: HPDC '24)" in err


def test_the_same_paper_twice_is_refused(project: Path, services: RecordedServer, capsys):
    args = ("add", "paper", "--arxiv", "2309.13541", "--topic", "distributed-training")
    assert run(project, *args) == 0
    before = read(project, "papers")
    capsys.readouterr()
    assert run(project, *args) == 1
    err = capsys.readouterr().err
    assert "the same arXiv id 2309.13541 is catalogued already as `basu2023efficient`" in err
    assert read(project, "papers") == before
    # the same title under another identifier is refused too
    assert (
        run(
            project,
            "add",
            "paper",
            "--no-fetch",
            "--title",
            "Efficient all-to-all collective communication schedules for direct-connect topologies",
            "--author",
            "P. Basu",
            "--year",
            "2024",
            "--venue",
            "arxiv",
            "--url",
            "https://example.org/paper",
            "--topic",
            "distributed-training",
        )
        == 1
    )
    assert "the same title is catalogued already" in capsys.readouterr().err


def test_a_doi_already_catalogued_is_refused_before_any_request(
    project: Path, services: RecordedServer, capsys
):
    assert run(project, "add", "paper", "--doi", "10.14778/3415478.3415530", "--topic", "gnn") == 1
    assert "same DOI 10.14778/3415478.3415530 is catalogued already as `li2020pytorch`" in (
        capsys.readouterr().err
    )
    assert services.seen == []


def test_an_unknown_venue_asks_for_venue_then_a_new_venue_is_found(
    project: Path, services: RecordedServer, capsys
):
    before = read(project, "papers")
    args = ("add", "paper", "--doi", "10.1371/journal.pone.0033693", "--topic", "gnn")
    assert run(project, *args) == 1
    err = capsys.readouterr().err
    assert "cannot tell which venue this is: the metadata says 'PLoS ONE'" in err
    assert "pass --venue with one of: isc, osdi" in err
    assert "add the venue to data/venues.yaml" in err
    assert "Traceback" not in err
    assert read(project, "papers") == before
    # once the venue is catalogued, Crossref's container title finds it
    with (project / "data" / "venues.yaml").open("a", encoding="utf-8") as venues:
        venues.write("\n- id: plos-one\n  name: PLOS ONE\n  title: PLoS ONE\n  kind: journal\n")
    assert run(project, *args) == 0
    new = next(p for p in entries(project, "papers") if p["id"] == "sadasivan2012methylphenidate")
    assert new["venue"] == "plos-one"
    assert new["doi"] == "10.1371/journal.pone.0033693"
    assert new["authors"][-1] == "Richard J. Smeyne"
    assert problems(project) == []


def test_an_unknown_venue_on_the_command_line_lists_the_venues(
    project: Path, services: RecordedServer, capsys
):
    code = run(
        project, "add", "paper", "--arxiv", "2309.13541", "--venue", "hpdc", "--topic", "gnn"
    )
    assert code == 1
    err = capsys.readouterr().err
    assert "unknown venue hpdc in --venue" in err
    assert "use ids from data/venues.yaml: isc, osdi" in err


def test_names_with_accents_are_written_and_read_back(project: Path, services: RecordedServer):
    assert run(project, "add", "paper", "--arxiv", "2401.11741", "--topic", "concepts") == 0
    text = read(project, "papers")
    assert "authors: [Ilinka Dimitrova, Vítor H. Fernandes, Jörg Koppitz]" in text
    new = next(p for p in entries(project, "papers") if p["id"] == "dimitrova2024partial")
    assert new["authors"][2] == "Jörg Koppitz"
    assert problems(project) == []


def test_no_fetch_takes_the_fields_from_the_command_line(project: Path, capsys, monkeypatch):
    monkeypatch.setenv("MLSYS_KB_ARXIV_API", refused_url())  # any request would fail
    args = [
        "add", "paper", "--no-fetch",
        "--title", "Orca: A Distributed Serving System for Transformer-Based Generative Models",
        "--author", "Gyeong-In Yu", "--author", "Joo Seong Jeong",
        "--year", "2022", "--venue", "osdi",
        "--url", "https://www.usenix.org/conference/osdi22/presentation/yu",
        "--topic", "serving", "--tag", "serving", "--tag", "inference",
        "--summary", "Iteration-level scheduling: 50% fewer stalls & more.",
    ]  # fmt: skip
    assert run(project, *args) == 0
    new = next(p for p in entries(project, "papers") if p["id"] == "yu2022orca")
    assert new["title"].startswith("Orca: A Distributed")
    assert new["tags"] == ["serving", "inference"]
    assert new["summary"] == "Iteration-level scheduling: 50% fewer stalls & more."
    assert problems(project) == []


def test_no_fetch_with_an_arxiv_id_defaults_to_the_preprint_venue(project: Path, capsys):
    args = [
        "add", "paper", "--no-fetch", "--arxiv", "2309.13541",
        "--title", "Efficient All-to-All Collective Communication Schedules for Direct-Connect "
        "Topologies",
        "--author", "Prithwish Basu", "--author", "Liangyu Zhao", "--year", "2023",
        "--topic", "distributed-training",
    ]  # fmt: skip
    assert run(project, *args) == 0
    new = next(p for p in entries(project, "papers") if p["id"] == "basu2023efficient")
    assert new["venue"] == "arxiv"
    assert "note: venue arxiv, a preprint; pass --venue" in capsys.readouterr().err


def test_no_fetch_says_what_is_missing(project: Path, capsys):
    assert run(project, "add", "paper", "--no-fetch", "--title", "X", "--topic", "gnn") == 1
    err = capsys.readouterr().err
    assert "--no-fetch takes the metadata from the command line: give --author, --year" in err


def test_a_missing_topic_lists_the_topics(project: Path, capsys):
    assert run(project, "add", "paper", "--arxiv", "2309.13541") == 1
    err = capsys.readouterr().err
    assert "give at least one --topic" in err
    assert "pytorch, distributed-training" in err


def test_an_invalid_entry_is_rolled_back_with_its_problems(project: Path, capsys):
    before = read(project, "papers")
    args = [
        "add", "paper", "--no-fetch", "--title", "A paper", "--author", "Some One",
        "--year", "1800", "--venue", "osdi", "--url", "javascript:alert(1)", "--topic", "gnn",
    ]  # fmt: skip
    assert run(project, *args) == 1
    err = capsys.readouterr().err
    assert read(project, "papers") == before
    assert "the new entry is not valid, so data/papers.yaml was left as it was" in err
    assert "data/papers.yaml:" in err and ": one1800paper: year 1800 is out of range" in err
    assert "javascript: scheme" in err


def test_dry_run_prints_and_changes_nothing(project: Path, services: RecordedServer, capsys):
    before = read(project, "papers")
    code = run(project, "add", "paper", "--arxiv", "2309.13541", "--topic", "gnn", "--dry-run")
    assert code == 0
    out = capsys.readouterr().out
    assert out.startswith("- id: basu2023efficient\n  title: Efficient All-to-All")
    assert read(project, "papers") == before


def test_offline_is_a_clear_error_suggesting_no_fetch(project: Path):
    """As a user runs it: a separate process, no network, no traceback."""
    env = {**os.environ, "MLSYS_KB_ARXIV_API": refused_url(), "MLSYS_KB_HTTP_BACKOFF": "0.01"}
    result = subprocess.run(
        [sys.executable, "-m", "mlsys_kb.cli", "--root", str(project), "add", "paper",
         "--arxiv", "2309.13541", "--topic", "gnn"],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 1
    assert "mlsys-kb add: error: cannot reach 127.0.0.1" in result.stderr
    assert "--no-fetch --title ... --author ... --year ... --venue ..." in result.stderr
    assert "Traceback" not in result.stderr
    assert read(project, "papers") == (ROOT / "data" / "papers.yaml").read_text(encoding="utf-8")


def test_a_service_that_keeps_failing_is_reported(project: Path, services: RecordedServer, capsys):
    services.route("/crossref/works/10.1145/3132847.3132886", Reply(500, b"oops"))
    code = run(project, "add", "paper", "--doi", "10.1145/3132847.3132886", "--topic", "gnn")
    assert code == 1
    err = capsys.readouterr().err
    assert "Crossref answered HTTP 500 Internal Server Error 4 times; try again later" in err


def test_insertion_keeps_comments_and_lands_above_the_next_entrys_comments(project: Path, capsys):
    papers = project / "data" / "papers.yaml"
    text = papers.read_text(encoding="utf-8")
    marker = "- id: zheng2020distdgl\n"
    text = text.replace(marker, "# DistDGL is reviewed in the distdgl-review deck.\n" + marker)
    text += "# end of the papers\n"
    papers.write_text(text, encoding="utf-8")
    # the new id sorts just before zheng2020distdgl in the shipped catalog
    ids = [line[6:] for line in text.splitlines() if line.startswith("- id: ")]
    assert ids[ids.index("zheng2020distdgl") - 1] < "zhen2021example" < "zheng2020distdgl"
    args = [
        "add", "paper", "--no-fetch", "--id", "zhen2021example",
        "--title", "An Example", "--author", "Wei Zhen", "--year", "2021",
        "--venue", "osdi", "--url", "https://example.org/zhang", "--topic", "gnn",
    ]  # fmt: skip
    assert run(project, *args) == 0
    after = papers.read_text(encoding="utf-8")
    assert without(after, "zhen2021example") == text
    # the new entry sits before zheng2020distdgl's own comment, not between the two
    assert "added: " + TODAY + "\n\n# DistDGL is reviewed in the distdgl-review deck.\n" in after
    assert after.endswith("# end of the papers\n")


# --- issues, decks, resources -----------------------------------------------------------------


def test_add_issue_from_github(project: Path, services: RecordedServer):
    before = read(project, "issues")
    args = [
        "add", "issue", "--url", "https://github.com/PyGithub/PyGithub/issues/28",
        "--symptom", "An issue created by the library's own tests.", "--topic", "tools",
    ]  # fmt: skip
    assert run(project, *args) == 0
    issues = entries(project, "issues")
    assert issues[0] == {
        "id": "pygithub-28",
        "repo": "PyGithub/PyGithub",
        "number": 28,
        "title": "Issue created by PyGithub",
        "state": "closed",
        "symptom": "An issue created by the library's own tests.",
        "topics": ["tools"],
        "added": dt.date.fromisoformat(TODAY),
    }
    assert without(read(project, "issues"), "pygithub-28") == before
    assert problems(project) == []
    assert run(project, *args) == 1  # the same issue again


def test_add_issue_not_found(project: Path, services: RecordedServer, capsys):
    args = [
        "add", "issue", "--url", "https://github.com/PyGithub/PyGithub/issues/99999",
        "--symptom", "x", "--topic", "tools",
    ]  # fmt: skip
    assert run(project, *args) == 1
    err = capsys.readouterr().err
    assert "GitHub has no issue PyGithub/PyGithub#99999" in err
    assert "--no-fetch --title ... --state open|closed" in err


def test_add_deck_and_resource(project: Path, capsys):
    deck = [
        "add", "deck", "--title", "Alpa review", "--summary", "Review of the Alpa paper.",
        "--date", "2023-04-05", "--presenter", "PHW", "--paper", "zheng2022alpa",
        "--topic", "automatic-parallelism",
    ]  # fmt: skip
    assert run(project, *deck) == 0
    new = next(d for d in entries(project, "decks") if d["id"] == "alpa-review")
    assert new["papers"] == ["zheng2022alpa"]
    resource = [
        "add", "resource", "--name", "vLLM", "--kind", "framework",
        "--url", "https://github.com/vllm-project/vllm",
        "--description", "A high-throughput serving engine for LLMs.", "--topic", "serving",
    ]  # fmt: skip
    assert run(project, *resource) == 0
    assert any(r["id"] == "vllm" for r in entries(project, "resources"))
    assert problems(project) == []
    capsys.readouterr()
    resource[resource.index("--url") + 1] = "https://github.com/vllm-project/vllm/"
    assert run(project, *resource) == 1
    assert "is catalogued already as `vllm`" in capsys.readouterr().err


def test_a_deck_reviewing_an_unknown_paper_is_refused(project: Path, capsys):
    args = [
        "add", "deck", "--title", "T", "--summary", "S", "--paper", "nobody2020nothing",
        "--topic", "gnn",
    ]  # fmt: skip
    assert run(project, *args) == 1
    assert "unknown paper nobody2020nothing in --paper" in capsys.readouterr().err
