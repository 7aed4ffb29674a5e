"""Benchmarks of the knowledge base at several catalog sizes.

    python scripts/bench.py                          # every benchmark, shipped + 1,000 + 10,000
    python scripts/bench.py --only validate --sizes 10000
    python scripts/bench.py --write                  # also update docs/benchmarks.md

Each benchmark times a real ``mlsys-kb`` process (median of ``--runs`` runs) on the shipped
catalogs and on synthetic projects made by ``generate_project``, prints a Markdown table,
and with ``--write`` puts the table into docs/benchmarks.md between its markers
``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->``.

To add a benchmark, write a function ``(project_root, runs) -> list[str]`` giving one
row's cells (``time_command`` times a command) and register it in ``BENCHMARKS`` with its
column titles; ``generate_project`` is importable for tests and other tools
(``sys.path.insert(0, "scripts"); from bench import generate_project``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from mlsys_kb.writer import catalog_text  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
DOC_INTRO = """# Benchmarks

How long the knowledge base's commands take as the catalogs grow. `scripts/bench.py`
generates synthetic projects (papers with three to seven authors, a venue, DOI, arXiv id,
URL, PDF, code, topics, tags, a summary and a date; decks, issues and resources in
proportion) and times the real commands on them and on the shipped catalogs:

```sh
.venv/bin/python scripts/bench.py --write      # every benchmark; updates this page
.venv/bin/python scripts/bench.py --only validate --sizes shipped,1000,10000
```

Each table is written by the script between its markers; the text around them is kept.
"""
SHIPPED = "shipped"

# --- synthetic projects --------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


_FIRST = _words(
    "Ada Alan Amir Ana Anil Bo Carlos Chen Chao Da Dan Elena Emma Fang Felix Grace Hao Hiro "
    "Ian Ines Jia Jin Joao Julia Kai Karim Lars Lei Li Lin Lucia Maria Mei Min Minjie Nadia "
    "Noah Olga Omar Priya Qi Rahul Rui Sara Sean Shen Sofia Tao Tim Uma Vera Wei Xin Yan "
    "Yi Yu Yuki Zhen Zoe"
)
_LAST = _words(
    "Abadi Bai Barham Chen Chowdhery Dean Dettmers Diaz Du Fan Gao Ghemawat Gonzalez Guo "
    "Han Harlap He Hu Huang Isard Jia Jiang Kim Kumar Lee Li Lin Liu Ma Mao Moritz Narayanan "
    "Nguyen Nishihara Olukotun Paszke Patel Peng Qiao Rajbhandari Ren Sarkar Shoeybi Smith "
    "Stoica Sun Tang Wang Wei Wu Xie Xu Yang Ye Yu Zaharia Zeng Zhang Zhao Zheng Zhou Zhu"
)
_WORDS = _words(
    "adaptive asynchronous attention batching cache checkpointing cluster collective "
    "communication compiler compression dataflow distributed dynamic efficient elastic "
    "embedding energy execution fault fusion gradient graph heterogeneous hierarchical "
    "inference kernel language large latency learning memory mixed model offloading "
    "operator optimizer parallel partitioning pipeline placement precision profiling "
    "quantization recommendation resource runtime scalable scheduling serving sparse "
    "speculative storage tensor throughput training transformer tuning unified workload"
)
_VENUES = _words(
    "osdi sosp nsdi eurosys atc mlsys asplos isca micro hpca ppopp sc ipdps pldi cgo icml "
    "neurips iclr aaai kdd sigmod vldb socc middleware hpdc ics cluster europar tpds tocs "
    "jmlr arxiv"
)
_STATES = ("open", "closed")
_KINDS = ("framework", "library", "tool", "post", "course", "site", "tutorial", "docs")


def _title(rng: random.Random) -> str:
    words = rng.sample(_WORDS, rng.randint(4, 9))
    name = "".join(w.capitalize() for w in rng.sample(_WORDS, 2))[: rng.randint(6, 12)]
    return f"{name}: " + " ".join(words).capitalize()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(14, 26))).capitalize() + "."


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _date(rng: random.Random) -> str:
    return (dt.date(2020, 1, 1) + dt.timedelta(days=rng.randrange(2000))).isoformat()


def generate_catalogs(n_papers: int, seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    """Entries of every catalog of a synthetic, valid project with ``n_papers`` papers.

    Other catalogs scale with it: a deck per 50 papers, an issue per 20, a resource per 10;
    vocabularies stay the size a real knowledge base would have.
    """
    rng = random.Random(seed)
    topics: list[dict[str, Any]] = []
    for number in range(40):
        topic: dict[str, Any] = {"id": f"topic-{number}", "title": _title(rng)}
        if number >= 10:
            topic["parent"] = f"topic-{number % 10}"
        topic["description"] = _sentence(rng)
        topics.append(topic)
    venues = [
        {
            "id": venue,
            "name": venue.upper(),
            "title": _title(rng),
            "kind": "preprint" if venue == "arxiv" else rng.choice(("conference", "journal")),
        }
        for venue in _VENUES
    ]
    tags = [
        {"id": f"tag-{word}", "title": word.capitalize(), "description": _sentence(rng)}
        for word in _WORDS
    ]
    topic_ids = [t["id"] for t in topics]
    tag_ids = [t["id"] for t in tags]

    papers: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number in range(n_papers):
        authors: list[str] = []
        count = rng.randint(3, 7)
        while len(authors) < count:
            person = _person(rng)
            if person not in authors:
                authors.append(person)
        year = rng.randint(2012, 2025)
        title = _title(rng)
        key = f"{authors[0].split()[-1].lower()}{year}{title.split(':')[0].lower()[:10]}"
        while key in seen:
            key += rng.choice("abcdefghijklmnopqrstuvwxyz")
        seen.add(key)
        arxiv = f"{year % 100:02d}{rng.randint(1, 12):02d}.{number:05d}"
        doi = f"10.{rng.randint(1000, 9999)}/{number}.{rng.randint(100000, 999999)}"
        repo = f"{authors[0].split()[-1].lower()}-lab/{key}"
        papers.append(
            {
                "id": key,
                "title": title,
                "authors": authors,
                "year": year,
                "venue": rng.choice(_VENUES),
                "doi": doi,
                "arxiv": arxiv,
                "url": f"https://doi.org/{doi}",
                "pdf": f"https://arxiv.org/pdf/{arxiv}",
                "code": f"https://github.com/{repo}",
                "topics": rng.sample(topic_ids, rng.randint(1, 2)),
                "tags": rng.sample(tag_ids, rng.randint(2, 3)),
                "summary": _sentence(rng),
                "added": _date(rng),
            }
        )
    paper_ids = [p["id"] for p in papers]

    decks: list[dict[str, Any]] = []
    for number in range(max(1, n_papers // 50)):
        deck: dict[str, Any] = {
            "id": f"seminar-{number}",
            "title": _title(rng),
            "date": _date(rng),
            "presenters": [_person(rng)],
            "topics": rng.sample(topic_ids, 1),
            "tags": rng.sample(tag_ids, 2),
            "summary": _sentence(rng),
        }
        if paper_ids:
            deck["papers"] = rng.sample(paper_ids, min(len(paper_ids), rng.randint(1, 3)))
        if number % 2:
            deck["file"] = f"slides/seminar-{number}.pdf"
        else:
            deck["url"] = f"https://slides.example.org/seminar-{number}"
        deck["added"] = _date(rng)
        decks.append(deck)
    issues = [
        {
            "id": f"pytorch-{100000 + number}",
            "repo": "pytorch/pytorch",
            "number": 100000 + number,
            "title": _title(rng),
            "state": rng.choice(_STATES),
            "symptom": _sentence(rng),
            "cause": _sentence(rng),
            "workaround": _sentence(rng),
            "versions": [f"2.{rng.randint(0, 5)}.{rng.randint(0, 2)}"],
            "topics": rng.sample(topic_ids, 1),
            "tags": rng.sample(tag_ids, 1),
            "added": _date(rng),
        }
        for number in range(max(1, n_papers // 20))
    ]
    resources = [
        {
            "id": f"resource-{number}",
            "name": _title(rng).split(":")[0],
            "kind": rng.choice(_KINDS),
            "url": f"https://tools.example.org/resource-{number}",
            "description": _sentence(rng),
            "topics": rng.sample(topic_ids, rng.randint(1, 2)),
            "tags": rng.sample(tag_ids, 2),
            "added": _date(rng),
        }
        for number in range(max(1, n_papers // 10))
    ]
    return {
        "topics": topics,
        "venues": venues,
        "tags": tags,
        "papers": papers,
        "decks": decks,
        "issues": issues,
        "resources": resources,
    }


def generate_project(root: Path, n_papers: int, seed: int = 0) -> Path:
    """Write a synthetic, valid project with ``n_papers`` papers under ``root``; return ``root``.

    Catalogs are written in the canonical layout (``writer.catalog_text``), slide files that
    decks name exist under slides/, and the JSON Schemas are copied so that the project
    looks like the real one.
    """
    root.mkdir(parents=True, exist_ok=True)
    (root / "data").mkdir(exist_ok=True)
    (root / "slides").mkdir(exist_ok=True)
    catalogs = generate_catalogs(n_papers, seed)
    for kind, entries in catalogs.items():
        (root / "data" / f"{kind}.yaml").write_text(catalog_text(kind, entries), encoding="utf-8")
    for deck in catalogs["decks"]:
        if "file" in deck:
            (root / deck["file"]).write_bytes(b"%PDF-1.4\n% synthetic slides\n")
    if (ROOT / "schemas").is_dir():
        shutil.copytree(ROOT / "schemas", root / "schemas", dirs_exist_ok=True)
    return root


# --- timing --------------------------------------------------------------------------------


def cli() -> list[str]:
    """The installed ``mlsys-kb`` next to this Python, as a contributor runs it."""
    script = Path(sys.executable).parent / "mlsys-kb"
    return [str(script)] if script.exists() else [sys.executable, "-m", "mlsys_kb.cli"]


@dataclass(frozen=True)
class Timing:
    wall: float  # seconds, as the user waits
    cpu: float  # seconds of CPU the process and its children used (user + system)


def time_command(argv: Sequence[str], cwd: Path, runs: int) -> list[Timing]:
    """Timings of ``runs`` runs of a command, each a fresh process, after one run that is
    not counted (it warms the file cache and Python's cache of compiled modules).

    Python runs as installed for a user: caching compiled modules, even where the
    environment (such as a sandbox keeping the checkout clean) turns that off. CPU time is
    given too: on a shared machine the wall time also says how busy the others were.
    """
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    timings = []
    for run in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        if run:
            timings.append(Timing(wall, cpu))
        if done.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} failed in {cwd}:\n{done.stderr}")
    return timings


def _seconds(value: float) -> str:
    return f"{value:.2f} s"


def _size_of(project: Path) -> str:
    total = sum(f.stat().st_size for f in (project / "data").glob("*.yaml"))
    return f"{total / 1048576:.1f} MiB" if total >= 1048576 else f"{total / 1024:.0f} KiB"


def bench_validate(project: Path, runs: int) -> list[str]:
    timings = time_command([*cli(), "validate"], project, runs)
    walls = [timing.wall for timing in timings]
    return [
        _size_of(project),
        _seconds(statistics.median(walls)),
        _seconds(min(walls)),
        _seconds(statistics.median(timing.cpu for timing in timings)),
    ]


@dataclass(frozen=True)
class Benchmark:
    name: str  # also the marker in docs/benchmarks.md: <!-- bench:NAME -->
    title: str
    columns: tuple[str, ...]
    measure: Callable[[Path, int], list[str]]
    note: str = ""


BENCHMARKS: dict[str, Benchmark] = {
    bench.name: bench
    for bench in (
        Benchmark(
            "validate",
            "mlsys-kb validate",
            ("catalog data", "median", "fastest", "CPU (median)"),
            bench_validate,
            "Whole `mlsys-kb validate` process (start-up included), wall time. "
            "Target: 10,000 papers in at most 2 s.",
        ),
    )
}


# --- report --------------------------------------------------------------------------------


def _label(size: str) -> str:
    if size == SHIPPED:
        return "shipped catalogs"
    return f"{int(size):,} papers"


def table(bench: Benchmark, rows: dict[str, list[str]], runs: int) -> str:
    lines = [
        f"{bench.note} Median of {runs} runs; {machine()}.",
        "",
        "| catalogs | " + " | ".join(bench.columns) + " |",
        "|---" * (len(bench.columns) + 1) + "|",
    ]
    lines += [f"| {_label(size)} | " + " | ".join(cells) + " |" for size, cells in rows.items()]
    return "\n".join(lines)


def machine() -> str:
    # The load average says how much else was running: on a shared machine it moves the
    # figures more than anything in the code does.
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return (
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}, {dt.date.today().isoformat()}{load}"
    )


def write_section(doc: Path, name: str, text: str) -> None:
    """Replace the text between ``<!-- bench:NAME -->`` markers, appending them if absent."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{text}\n{end}"
    current = doc.read_text(encoding="utf-8") if doc.exists() else DOC_INTRO
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(current):
        updated = pattern.sub(lambda _: block, current)
    else:
        updated = current.rstrip("\n") + "\n\n" + block + "\n"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(updated, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes",
        default=f"{SHIPPED},1000,10000",
        help="comma-separated paper counts, and `shipped` for the real catalogs",
    )
    parser.add_argument(
        "--only", action="append", choices=sorted(BENCHMARKS), help="run only these benchmarks"
    )
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median)")
    parser.add_argument("--write", action="store_true", help="put the tables into --doc")
    parser.add_argument(
        "--doc", type=Path, default=DOC, help=f"page to update (default {DOC.relative_to(ROOT)})"
    )
    args = parser.parse_args(argv)
    sizes = [size.strip() for size in args.sizes.split(",") if size.strip()]
    for size in sizes:
        if size != SHIPPED and not size.isdigit():
            parser.error(f"--sizes: {size!r} is neither a number nor `{SHIPPED}`")
    chosen = [BENCHMARKS[name] for name in (args.only or BENCHMARKS)]
    results: dict[str, dict[str, list[str]]] = {bench.name: {} for bench in chosen}
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-bench-") as scratch:
        for size in sizes:
            if size == SHIPPED:
                project = ROOT
            else:
                project = generate_project(Path(scratch) / f"papers-{size}", int(size))
            for bench in chosen:
                results[bench.name][size] = bench.measure(project, args.runs)
                print(f"{bench.name} {_label(size)}: {results[bench.name][size]}", file=sys.stderr)
            if project != ROOT:
                shutil.rmtree(project)
    for bench in chosen:
        text = table(bench, results[bench.name], args.runs)
        print(f"\n## {bench.title}\n\n{text}")
        if args.write:
            write_section(args.doc, bench.name, f"## {bench.title}\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
