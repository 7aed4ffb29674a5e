"""Comparison tables: the declarations on topics, the values on papers, and the table on the
topic page. Each validation test compares the whole list of problems, places included."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlsys_kb import validate
from mlsys_kb.render import Options, render_site
from mlsys_kb.render.compare import code_label, short_title

PAPER = """- id: {id}
  title: "{title}"
  authors: [Ada Lovelace]
  year: 2024
  venue: osdi
  url: https://example.org/{id}
  topics: [{topic}]
{compare}
"""


def problems(root: Path) -> list[str]:
    return [str(problem) for problem in validate.load(root)[1]]


def append(root: Path, kind: str, text: str) -> int:
    """Add ``text`` at the end of a catalog; the line number its first line gets."""
    file = root / "data" / f"{kind}.yaml"
    old = file.read_text(encoding="utf-8")
    file.write_text(old + "\n" + text, encoding="utf-8")
    return old.count("\n") + 2


def paper(paper_id: str, topic: str, compare: str, title: str = "A paper") -> str:
    return PAPER.format(id=paper_id, title=title, topic=topic, compare=compare)


def test_the_shipped_tables_are_declared_where_the_design_says(project: Path) -> None:
    catalog, found = validate.load(project)
    assert found == []
    topics = catalog.by_id("topics")
    assert topics["gpu-programs"]["compare"]["topics"] == ["gpu-analyse", "gpu-test"]
    covered = {t: table.id for t, table in validate.comparison_coverage(catalog).items()}
    assert covered == {
        "gpu-analyse": "gpu-programs",
        "gpu-test": "gpu-programs",
        "automatic-parallelism": "automatic-parallelism",
    }


def test_every_problem_of_a_declaration_in_one_run(project: Path) -> None:
    line = append(
        project,
        "topics",
        "- id: new-topic\n"
        "  title: New\n"
        "  description: A topic.\n"
        "  compare:\n"
        "    topic: [x]\n"
        "    properties:\n"
        "      speed: {label: Speed, kind: sett, values: {fast: Fast}}\n"
        "      when: {label: When, kind: one}\n"
        "      flag: {label: Flag, kind: bool, values: {a: A}}\n"
        "      Bad-Name: {label: X, kind: text}\n"
        "      what: {lable: What, kind: set, values: {Two Words: x, ok: [a]}}\n"
        "      note: text\n",
    )
    assert problems(project) == [
        f"data/topics.yaml:{line + 4}:5: new-topic: unknown key `topic` in `compare`; "
        "did you mean `topics`? (keys: topics, properties)",
        f"data/topics.yaml:{line + 6}:35: new-topic: `kind` of property `speed` must be one of "
        "one, set, bool, text, not 'sett'; did you mean `set`? (one: one value of its "
        "vocabulary; set: a list of values of its vocabulary; bool: true or false (shown as yes "
        "or no); text: a short text)",
        f"data/topics.yaml:{line + 7}:13: new-topic: a `one` property needs `values`: each "
        "value's id and its label, such as `values: {data: Data, tensor: Tensor}`",
        f"data/topics.yaml:{line + 8}:39: new-topic: a `bool` property has no `values`; "
        "remove them",
        f"data/topics.yaml:{line + 9}:7: new-topic: a property name is lowercase a-z, 0-9 and _, "
        "not 'Bad-Name'",
        f"data/topics.yaml:{line + 10}:13: new-topic: property `what` needs `label`, such as "
        "`parallelism: {label: Parallelism, kind: set, values: {data: Data}}`",
        f"data/topics.yaml:{line + 10}:14: new-topic: unknown key `lable` in property `what`; "
        "did you mean `label`? (keys: label, kind, description, values)",
        f"data/topics.yaml:{line + 10}:47: new-topic: a value id must be lowercase a-z, 0-9 and "
        "single dashes, not 'Two Words'; for example `two-words`",
        f"data/topics.yaml:{line + 10}:65: new-topic: the label of value `ok` must be one line "
        "of text",
        f"data/topics.yaml:{line + 11}:13: new-topic: property `note` must be a mapping of label, "
        "kind and values, such as `parallelism: {label: Parallelism, kind: set, values: "
        "{data: Data}}`, not a single value",
    ]


def test_which_topics_a_table_covers(project: Path) -> None:
    # gpu-programs already covers gpu-analyse; a second table over it would give its papers
    # two meanings for one property.
    line = append(
        project,
        "topics",
        "- id: more-gpu\n"
        "  title: More\n"
        "  parent: gpu-programs\n"
        "  description: A topic.\n"
        "  compare:\n"
        "    topics: [more-gpu, gpu-tst, gpu-analyse, pytorch]\n"
        "    properties: {speed: {label: Speed, kind: text}}\n",
    )
    found = problems(project)
    assert found == [
        f"data/topics.yaml:{line + 5}:24: more-gpu: unknown topic `gpu-tst`; "
        "did you mean `gpu-test`?",
        f"data/topics.yaml:{line + 5}:33: more-gpu: `gpu-analyse` is not `more-gpu` or one of "
        "its subtopics; a table compares the papers of its own topic and subtopics",
        f"data/topics.yaml:{line + 5}:46: more-gpu: `pytorch` is not `more-gpu` or one of its "
        "subtopics; a table compares the papers of its own topic and subtopics",
    ]
    # A table on a subtopic that its parent's table already covers.
    text = (project / "data" / "topics.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "  description: Static and dynamic program analysis of GPU programs.\n",
        "  description: Static and dynamic program analysis of GPU programs.\n"
        "  compare: {properties: {speed: {label: Speed, kind: text}}}\n",
    )
    (project / "data" / "topics.yaml").write_text(text, encoding="utf-8")
    analyse = text.splitlines().index("- id: gpu-analyse") + 1
    parent = text.splitlines().index("- id: gpu-programs") + 1
    assert (
        f"data/topics.yaml:{analyse + 4}:12: gpu-analyse: topic `gpu-analyse` is already "
        f"compared in the table of `gpu-programs` (data/topics.yaml:{parent}); a topic's papers "
        "have one comparison table"
    ) in problems(project)


def test_every_problem_of_a_papers_values_in_one_run(project: Path) -> None:
    line = append(
        project,
        "papers",
        paper(
            "zz2024bad",
            "automatic-parallelism",
            "  compare:\n"
            "    parallelism: [data, pipline, data]\n"
            "    search: greedy\n"
            "    heterogenous: false\n"
            "    cost_model: unknown\n"
            "    heterogeneous: yes\n",
        )
        + "\n"
        + paper("zz2024nowhere", "llm", "  compare: {parallelism: [data]}")
        + "\n"
        + paper("zz2024shape", "gpu-test", "  compare: [approach]"),
    )
    assert problems(project) == [
        f"data/papers.yaml:{line + 8}:25: zz2024bad: `pipline` is not a value of `parallelism`; "
        "did you mean `pipeline`? (values: data, tensor, pipeline, operator-placement, "
        "spatial, reduction, operator-specific, algebraic-transformations, recomputation, "
        "micro-batch-size, load-balancing; a new one is declared in data/topics.yaml first)",
        f"data/papers.yaml:{line + 8}:34: zz2024bad: `data` is listed twice in `parallelism`",
        f"data/papers.yaml:{line + 9}:13: zz2024bad: `search` is a set: write a list, such as "
        "`search: [greedy]`",
        f"data/papers.yaml:{line + 10}:5: zz2024bad: unknown comparison property `heterogenous`; "
        "did you mean `heterogeneous`? (the table of `automatic-parallelism` declares "
        "parallelism, search, cost_model, heterogeneous)",
        f"data/papers.yaml:{line + 11}:17: zz2024bad: leave `cost_model` out when it is not "
        "verified: it shows as unknown",
        f"data/papers.yaml:{line + 12}:20: zz2024bad: `heterogeneous` is yes or no: write true "
        "or false, not 'yes'",
        f"data/papers.yaml:{line + 22}:12: zz2024nowhere: no comparison table covers this "
        "paper's topics; declare one under `compare` in data/topics.yaml, or remove `compare`",
        f"data/papers.yaml:{line + 31}:12: zz2024shape: `compare` must be a mapping of property: "
        "value, such as `compare: {parallelism: [data, pipeline], heterogeneous: false}`, "
        "not a list",
    ]


def test_a_subtopics_paper_fills_its_parents_table(project: Path) -> None:
    append(
        project,
        "papers",
        paper(
            "zz2024fine",
            "gpu-test",
            "  compare: {approach: [simulation], needs_source: false, works_on: [ptx]}",
        ),
    )
    catalog, found = validate.load(project)
    assert found == []
    values = catalog.by_id("papers")["zz2024fine"]["compare"]
    assert values == {"approach": ["simulation"], "needs_source": False, "works_on": ["ptx"]}


def test_nested_mappings_are_read_with_their_places(project: Path) -> None:
    line = append(
        project,
        "papers",
        paper(
            "zz2024nest",
            "gpu-test",
            "  compare:\n"
            "    approach: [simulation]\n"
            "    approach: [simulation]\n"
            "    works_on: {deep: {deeper: {deepest: {too: deep}}}}\n"
            "    defects: [[data-races]]\n"
            "  title2: {a: b}\n",
        ),
    )
    assert problems(project) == [
        f"data/papers.yaml:{line + 9}:5: zz2024nest: key `approach` appears "
        "twice in this mapping; keep one",
        f"data/papers.yaml:{line + 10}:15: zz2024nest: `works_on` must be a value or a list of "
        "values, not a mapping",
        f"data/papers.yaml:{line + 11}:15: zz2024nest: each item of `defects` must be a single "
        "value, not a list",
        f"data/papers.yaml:{line + 12}:3: zz2024nest: unknown field `title2` for a paper; did you "
        "mean `title`? (fields: id, title, authors, year, venue, doi, arxiv, url, pdf, code, "
        "slides, video, topics, tags, summary, compare, added)",
    ]


# --- the table -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    from .conftest import ROOT

    catalog, found = validate.load(ROOT)
    assert found == []
    return render_site(catalog, Options(repo_url="https://github.com/example/kb"))


def _rows(page: str) -> list[str]:
    table = page[page.index('<table class="compare-table">') : page.index("</table>")]
    return [row for row in table.split("\n") if row.startswith('<tr><th scope="row"')]


def test_one_row_per_paper_and_unknown_cells_say_so(pages: dict[str, str]) -> None:
    from .conftest import ROOT

    catalog, _ = validate.load(ROOT)
    papers = [p for p in catalog["papers"] if "automatic-parallelism" in p["topics"]]
    rows = _rows(pages["topics/automatic-parallelism/index.md"])
    assert len(rows) == len(papers) == 9
    declared = list(catalog.by_id("topics")["automatic-parallelism"]["compare"]["properties"])
    for paper in papers:
        row = next(r for r in rows if f'href="#{paper.id}"' in r)
        cells = row.count("<td")
        assert cells == 1 + len(declared) + 1  # year, properties, code
        missing = [name for name in declared if name not in paper.get("compare", {})]
        missing += [] if paper.get("code") else ["code"]
        assert row.count('class="compare-unknown"') == len(missing), paper.id


def test_the_parent_shows_the_whole_table_and_each_subtopic_its_rows(
    pages: dict[str, str],
) -> None:
    parent = _rows(pages["topics/gpu-programs/index.md"])
    analyse = _rows(pages["topics/gpu-analyse/index.md"])
    test = _rows(pages["topics/gpu-test/index.md"])
    assert len(parent) == len(analyse) + len(test) == 7
    assert 'href="../gpu-programs/#compare"' in pages["topics/gpu-analyse/index.md"]
    for topic in ("gpu-profile", "gpu-schedule", "gpu-optimize", "llm"):
        assert "compare-table" not in pages[f"topics/{topic}/index.md"]


def test_names_in_rows_and_code_links() -> None:
    assert short_title("Alpa: Automating Inter- and Intra-Operator Parallelism") == "Alpa"
    assert short_title("Many-Core Compiler Fuzzing") == "Many-Core Compiler Fuzzing"
    long_lead = "A very long lead that is not a name at all: a subtitle"
    assert short_title(long_lead) == long_lead
    assert code_label("https://github.com/alpa-projects/alpa") == "alpa-projects/alpa"
    assert (
        code_label("https://github.com/microsoft/SuperScaler/tree/Aceso")
        == "github.com/microsoft/SuperScaler/tree/Aceso"
    )
    assert code_label("https://gitlab.mpi-sws.org/cld/ml/clockwork/") == (
        "gitlab.mpi-sws.org/cld/ml/clockwork"
    )
