"""Link check benchmark: `mlsys-kb check-links` against linkinator on the same built sites.

    python scripts/bench_links.py                      # real, 10,000-paper and 2,000-page sites
    python scripts/bench_links.py --site site/         # any built site
    python scripts/bench_links.py --sizes 1000 --runs 3 --write
    python scripts/bench_links.py --baseline 114b979 --no-linkinator   # before and after

With ``--baseline REF`` the check as it was at commit REF (its ``src/`` taken with
``git archive``) runs on the same copies too, turn about with today's: what a change to
the check costs, in one run.

Each site is copied, and broken links and links to missing #anchors are planted in its
pages (seeded, so every run plants the same). Both checkers then run on the copy, turn
about, ``--runs`` times: the whole `mlsys-kb check-links` process, and linkinator (from
npm, installed into a scratch directory, never into the repository) with
``--recurse --check-fragments``, external links skipped. The table gives pages per second
(HTML pages of the site over the median wall time) and how many planted problems each
found. With ``--write`` it goes into docs/benchmarks.md between ``<!-- bench:links -->``
markers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import posixpath
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
MARKER = "links"
LINKINATOR = "linkinator@7.6.1"
NODE_DIR = Path(tempfile.gettempdir()) / "mlsys-kb-node"
ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


# --- sites ------------------------------------------------------------------------------------


def html_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if p.relative_to(site).as_posix() != "404.html")


def build(project: Path) -> Path:
    """`mlsys-kb build` of a project, as a contributor runs it."""
    cli = Path(sys.executable).with_name("mlsys-kb")
    subprocess.run([str(cli), "build"], cwd=project, env=ENV, check=True, stdout=subprocess.DEVNULL)
    return project / "site"


def synthetic_site(scratch: Path, size: int) -> Path:
    """A project from scripts/bench.py's generator with the real mkdocs.yml, built.

    Without docs/assets, every page of it links a stylesheet that is not there: the
    link check finds that (mkdocs build --strict does not).
    """
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench import generate_project

    project = generate_project(scratch / f"p{size}", size)
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    (project / "docs").mkdir(exist_ok=True)
    # The theme's own files (mkdocs.yml names them); not the guides, which cite real papers.
    if (ROOT / "docs" / "assets").is_dir():
        shutil.copytree(ROOT / "docs" / "assets", project / "docs" / "assets")
    return build(project)


def pages_site(scratch: Path, count: int, anchors: int = 10, seed: int = 7) -> Path:
    """A plain MkDocs site of ``count`` small pages (one per entry, in the Material theme),
    each with ``anchors`` headings and as many links to other pages' headings: the shape
    where pages, not their size, are what a checker spends its time on."""
    rng = random.Random(seed)
    project = scratch / f"pages{count}"
    docs = project / "docs"
    docs.mkdir(parents=True)
    for number in range(count):
        lines = [f"# Entry {number}", ""]
        for heading in range(anchors):
            other = rng.randrange(count)
            lines += [
                f"## Part {heading} {{#e{number}-{heading}}}",
                "",
                f"See [entry {other}](../p{other}/#e{other}-{rng.randrange(anchors)}) "
                f"and [its page](../p{other}/).",
                "",
            ]
        (docs / f"p{number}.md").write_text("\n".join(lines), encoding="utf-8")
    index = "\n".join(f"- [Entry {n}](p{n}/)" for n in range(count))
    (docs / "index.md").write_text(f"# Entries\n\n{index}\n", encoding="utf-8")
    (project / "mkdocs.yml").write_text(
        "site_name: Pages\nuse_directory_urls: true\n"
        "theme:\n  name: material\n  font: false\n"
        "markdown_extensions: [attr_list, toc]\nnav:\n  - index.md\n",
        encoding="utf-8",
    )
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet"],
        cwd=project,
        env=ENV,
        check=True,
        stderr=subprocess.DEVNULL,
    )
    return project / "site"


def real_site(scratch: Path) -> Path:
    project = scratch / "real"
    for name in ("data", "slides", "docs", "schemas"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, project / name)
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    return build(project)


# --- planting ---------------------------------------------------------------------------------


@dataclass
class Planted:
    broken: set[str] = field(default_factory=set)  # site paths that do not exist
    anchors: set[str] = field(default_factory=set)  # "page/#fragment" with no such anchor


def _url_of(site: Path, page: Path) -> str:
    """The page's URL path in the site: ``topics/gnn/`` for topics/gnn/index.html."""
    rel = page.relative_to(site).as_posix()
    return rel[: -len("index.html")] if rel.endswith("index.html") else rel


def _href(from_url: str, to_url: str) -> str:
    """A relative link from the page at ``from_url`` to ``to_url``, as MkDocs writes them."""
    base = from_url.rstrip("/") if from_url.endswith("/") else posixpath.dirname(from_url)
    target = to_url.rstrip("/") or "."
    href = posixpath.relpath(target, base or ".")
    return href + "/" if to_url == "" or to_url.endswith("/") else href


def plant(site: Path, count: int, seed: int = 4) -> Planted:
    """Add ``count`` broken links and ``count`` links to missing anchors to random pages."""
    rng = random.Random(seed)
    pages = html_pages(site)
    planted = Planted()
    additions: dict[Path, list[str]] = {}
    for number in range(count):
        page = rng.choice(pages)
        missing = f"bench-missing-{number}/"
        planted.broken.add(missing)
        href = _href(_url_of(site, page), missing)
        additions.setdefault(page, []).append(f'<a href="{href}">missing page {number}</a>')
        page, target = rng.choice(pages), _url_of(site, rng.choice(pages))
        fragment = f"bench-no-anchor-{number}"
        planted.anchors.add(f"{target}#{fragment}")
        href = _href(_url_of(site, page), target) + "#" + fragment
        additions.setdefault(page, []).append(f'<a href="{href}">missing anchor {number}</a>')
    for page, links in additions.items():
        html = page.read_text(encoding="utf-8")
        block = "<p>" + " ".join(links) + "</p>"
        where = html.rfind("</article>")
        where = where if where >= 0 else html.rfind("</body>")
        page.write_text(html[:where] + block + html[where:], encoding="utf-8")
    return planted


# --- the checkers -----------------------------------------------------------------------------


@dataclass
class Run:
    seconds: float  # wall
    cpu: float  # user + system of the process and its children
    broken: set[str]  # planted broken targets found
    anchors: set[str]  # planted anchor targets found
    other: int  # problems reported that were not planted


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_ours(site: Path, planted: Planted, scratch: Path, src: Path = ROOT / "src") -> Run:
    report = scratch / "ours.json"
    report.unlink(missing_ok=True)
    cpu, start = _cpu(), time.perf_counter()
    command = [sys.executable, "-m", "mlsys_kb.cli", "check-links", "--site", str(site)]
    subprocess.run(
        [*command, "--report-json", str(report)],
        env={**ENV, "PYTHONPATH": str(src)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    seconds, cpu = time.perf_counter() - start, _cpu() - cpu
    failures = json.loads(report.read_text())["failures"]
    targets = {f["target"] for f in failures}
    broken = planted.broken & targets
    anchors = planted.anchors & targets
    other = len({t for t in targets if t not in planted.broken | planted.anchors})
    return Run(seconds, cpu, broken, anchors, other)


def linkinator_path(node_dir: Path) -> Path | None:
    binary = node_dir / "node_modules" / ".bin" / "linkinator"
    if binary.exists():
        return binary
    if not shutil.which("npm"):
        return None
    node_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["npm", "install", "--prefix", str(node_dir), "--no-audit", "--no-fund", LINKINATOR],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return binary if binary.exists() else None


def run_linkinator(binary: Path, site: Path, planted: Planted, scratch: Path) -> Run:
    output = scratch / "linkinator.json"
    cpu, start = _cpu(), time.perf_counter()
    with open(output, "w") as out:
        # To a file: Node cuts a large output to a pipe short when it exits.
        subprocess.run(
            [
                str(binary),
                str(site),
                "--recurse",
                "--check-fragments",
                "--skip",
                "^https?://(?!localhost)",  # external links: not fetched, as in ours
                "--format",
                "json",
            ],
            stdout=out,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    seconds, cpu = time.perf_counter() - start, _cpu() - cpu
    text = output.read_text()
    links = json.loads(text)["links"] if text.strip() else []
    bad = [link["url"] for link in links if link.get("state") == "BROKEN"]
    prefix = re.compile(r"^(?:https?://[^/]+/|" + re.escape(str(site)) + "/?)")
    targets = {prefix.sub("", url) for url in bad}
    broken = planted.broken & targets
    anchors = planted.anchors & targets
    other = len({t for t in targets if t not in planted.broken | planted.anchors})
    return Run(seconds, cpu, broken, anchors, other)


# --- the table --------------------------------------------------------------------------------


def linkchecker_version() -> str:
    from importlib.metadata import version

    return version("linkchecker")


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}, {time.strftime('%Y-%m-%d')}, "
        f"load average {load:.1f}"
    )


def baseline_src(ref: str, scratch: Path) -> Path:
    """The package's source as it was at commit ``ref``."""
    target = scratch / f"baseline-{ref}"
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", ref, "src"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target / "src"


def rows_for(
    label: str,
    site: Path,
    runs: int,
    count: int,
    binary: Path | None,
    baseline: tuple[str, Path] | None = None,
) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-links-bench-") as scratch_name:
        scratch = Path(scratch_name)
        copy = scratch / "site"
        shutil.copytree(site, copy)
        count = min(count, len(html_pages(copy)))
        planted = plant(copy, count)
        pages = len(html_pages(copy)) + (1 if (copy / "404.html").exists() else 0)
        ours: list[Run] = []
        before: list[Run] = []
        theirs: list[Run] = []
        for _ in range(runs):
            ours.append(run_ours(copy, planted, scratch))
            if baseline:
                before.append(run_ours(copy, planted, scratch, baseline[1]))
            if binary:
                theirs.append(run_linkinator(binary, copy, planted, scratch))
        out = []
        checker = f"`mlsys-kb check-links` (LinkChecker {linkchecker_version()})"
        for name, results in (
            (checker, ours),
            (f"{checker} at {baseline[0] if baseline else ''}", before),
            (f"linkinator {LINKINATOR.split('@')[1]}", theirs),
        ):
            if not results:
                continue
            seconds = [r.seconds for r in results]
            median = statistics.median(seconds)
            cpu = statistics.median(r.cpu for r in results)
            last = results[-1]
            spread = f" ({min(seconds):.1f}-{max(seconds):.1f})" if len(seconds) > 1 else ""
            out.append(
                f"| {label} | {pages:,} | {name} | {median:.1f} s{spread} | {cpu:.1f} s "
                f"| {pages / median:.1f} | {len(last.broken)}/{count} "
                f"| {len(last.anchors)}/{count} | {last.other} |"
            )
            print(out[-1], file=sys.stderr, flush=True)
        return out


def write_section(doc: Path, text: str) -> None:
    begin, end = f"<!-- bench:{MARKER} -->", f"<!-- /bench:{MARKER} -->"
    current = doc.read_text(encoding="utf-8") if doc.exists() else "# Benchmarks\n"
    block = f"{begin}\n{text}\n{end}"
    if begin in current and end in current:
        head, rest = current.split(begin, 1)
        tail = rest.split(end, 1)[1]
        updated = head + block + tail
    else:
        updated = current.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(updated, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, action="append", help="a built site (repeatable)")
    parser.add_argument("--sizes", default="10000", help="synthetic sizes (default: 10000)")
    parser.add_argument(
        "--pages", type=int, default=2000, help="pages of a plain MkDocs site (0: none)"
    )
    parser.add_argument("--no-real", action="store_true", help="skip the real site")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--plant", type=int, default=30, help="problems of each kind")
    parser.add_argument("--node-dir", type=Path, default=NODE_DIR)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    parser.add_argument("--baseline", metavar="REF", help="also run the check as at commit REF")
    parser.add_argument("--no-linkinator", action="store_true", help="leave linkinator out")
    args = parser.parse_args()
    binary = None if args.no_linkinator else linkinator_path(args.node_dir)
    if binary is None and not args.no_linkinator:
        print("npm not found: linkinator is left out", file=sys.stderr)
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-links-sites-") as scratch_name:
        scratch = Path(scratch_name)
        sites: list[tuple[str, Path]] = []
        if args.site:
            sites += [(str(site), site) for site in args.site]
        else:
            if not args.no_real:
                sites.append(("real site", real_site(scratch)))
            for size in [int(s) for s in args.sizes.split(",") if s]:
                sites.append((f"synthetic, {size:,} papers", synthetic_site(scratch, size)))
            if args.pages:
                label = f"plain MkDocs, {args.pages:,} small pages"
                sites.append((label, pages_site(scratch, args.pages)))
        baseline = (args.baseline, baseline_src(args.baseline, scratch)) if args.baseline else None
        for label, site in sites:
            rows += rows_for(label, site, args.runs, args.plant, binary, baseline)
    text = "\n".join(
        [
            "## Link check",
            "",
            "Internal links and #anchors of a built site, with broken links and links to "
            "missing anchors planted in it; both checkers on the same copy, turn about, "
            "external links skipped. Wall time and CPU time (user + system, children "
            f"included) of the whole process, medians (and ranges) of {args.runs} runs; "
            "pages per second "
            "= HTML pages / median wall time; found = "
            "planted problems reported; other = problems reported that were not planted. "
            f"{machine()}.",
            "",
            "`mlsys-kb check-links` runs LinkChecker through `mlsys_kb.linkcheck.launcher`, "
            "which does LinkChecker's repeated work once (see its docstring); plain "
            "`linkchecker` with the same configuration gives the same results on the real "
            "site, with 37-42 s of CPU instead of about 2 s.",
            "",
            "| site | pages | checker | time | CPU | pages/s | broken links found "
            "| missing anchors found | other |",
            "|---|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )
    print(text)
    if args.write:
        write_section(DOC, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
