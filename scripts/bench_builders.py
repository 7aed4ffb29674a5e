"""Builders benchmark: the same site built by our MkDocs plugin, and from the project that
`mlsys-kb render --out` writes by MkDocs, ProperDocs and Zensical (without our plugin).

    python scripts/bench_builders.py --sizes shipped,10000 --runs 3

Each build is a fresh process, one at a time; wall and CPU time, median and range of the
runs, the site's page count and search index size, and the time from opening the home page
in headless Chromium to the first search result for a paper's title word. Zensical builds
with --clean (no cache of an earlier build). The shipped catalogs are built with the
hand-written pages; the synthetic ones (scripts/bench.py's generator) without.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench import ROOT, SHIPPED, generate_project, machine
from bench_site import _Quiet, first_results

sys.path.insert(0, str(ROOT / "src"))

from mlsys_kb.chromium import ARGS, CHROMIUM

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
BIN = Path(sys.executable).parent


def _timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=ENV, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def first_search_result(site: Path, query: str, runs: int = 3) -> tuple[float, float]:
    """Medians of bench_site's seconds from navigation and from the last keystroke to the
    first result in Material's search box; NaN when no context saw one within 120 s."""
    found = first_results({"site": site}, [query], runs)["site"]
    if not found["navigation"]:
        return float("nan"), float("nan")
    return statistics.median(found["navigation"]), statistics.median(found["keystroke"])


def _zensical_first_result(site: Path, query: str, runs: int = 3) -> tuple[float, float]:
    """As first_search_result, for Zensical's search dialog."""
    from playwright.sync_api import sync_playwright

    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    times, waits = [], []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for _ in range(runs):
                context = browser.new_context()
                context.route("https://**", lambda route: route.abort())
                page = context.new_page()
                start = time.perf_counter()
                page.goto(url, wait_until="domcontentloaded")
                page.locator(".md-search__button").first.click()
                page.keyboard.type(query)
                typed = time.perf_counter()
                # The dialog says "N results" above the first ones (in its shadow root).
                count = page.get_by_text(re.compile(r"^\s*[1-9][0-9]* results?\s*$"))
                count.first.wait_for(timeout=120_000)
                times.append(time.perf_counter() - start)
                waits.append(time.perf_counter() - typed)
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return statistics.median(times), statistics.median(waits)


def _builds(project: Path, out: Path) -> dict[str, tuple[list[str], Path, Path]]:
    """name: (command, working folder, site folder)."""
    config = str(out / "mkdocs.yml")
    return {
        "plugin (mlsys-kb build)": (
            [str(BIN / "mlsys-kb"), "build", "--site-dir", str(project / "site")],
            project,
            project / "site",
        ),
        "render --out": ([str(BIN / "mlsys-kb"), "render", "--out", str(out)], project, out),
        "MkDocs 1.6.1": (
            [str(BIN / "mkdocs"), "build", "--strict", "-f", config, "-d", str(out / "site-mk")],
            out,
            out / "site-mk",
        ),
        "ProperDocs 1.6.7": (
            [str(BIN / "properdocs"), "build", "--strict", "-f", config, "-d", str(out / "pd")],
            out,
            out / "pd",
        ),
        "Zensical 0.0.73": (
            [str(BIN / "zensical"), "build", "--clean", "-f", config],
            out,
            out / "site",
        ),
    }


def measure(project: Path, label: str, runs: int, query: str) -> list[str]:
    out = project.parent / f"{project.name}-out"
    rows = []
    for name, (argv, cwd, site) in _builds(project, out).items():
        timings = [_timed(argv, cwd) for _ in range(runs)]
        walls = sorted(t[0] for t in timings)
        cpu = statistics.median(t[1] for t in timings)
        cells = [
            f"{statistics.median(walls):.2f} s ({walls[0]:.2f}-{walls[-1]:.2f})",
            f"{cpu:.2f} s",
        ]
        if name == "render --out":
            cells += ["", "", ""]
        else:
            pages = sum(1 for _ in site.rglob("*.html"))
            index = next(
                (
                    p
                    for p in (site / "search" / "search_index.json", site / "search.json")
                    if p.exists()
                ),
                None,
            )
            size = f"{index.stat().st_size / 1e6:.2f} MB" if index else "none"
            finder = _zensical_first_result if name.startswith("Zensical") else first_search_result
            seconds, wait = finder(site, query) if Path(CHROMIUM).exists() else (0.0, 0.0)
            cells += [str(pages), size, f"{seconds:.2f} s ({wait:.2f} s after typing)"]
        rows.append(f"| {label} | {name} | " + " | ".join(cells) + " |")
        print(rows[-1], f"load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=f"{SHIPPED},10000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-builders-") as scratch:
        for size in args.sizes.split(","):
            project = Path(scratch) / f"p{size}"
            if size == SHIPPED:
                project.mkdir()
                for name in ("data", "docs", "slides", "schemas"):
                    if (ROOT / name).is_dir():
                        shutil.copytree(ROOT / name, project / name)
                shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
                label = "shipped catalogs"
            else:
                generate_project(project, int(size))
                shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
                shutil.copytree(ROOT / "docs" / "assets", project / "docs" / "assets")
                label = f"{int(size):,} papers"
            from mlsys_kb import validate

            catalog, _ = validate.load(project)
            query = catalog["papers"][len(catalog["papers"]) // 2]["title"].split(":")[0]
            rows += measure(project, label, args.runs, query.split()[0])
    print(f"{machine()}; load average at the end {os.getloadavg()[0]:.1f}")
    print(
        "| catalogs | build | wall, median (range) | CPU | HTML pages | search index "
        "| first search result |\n|---|---|---|---|---|---|---|"
    )
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
