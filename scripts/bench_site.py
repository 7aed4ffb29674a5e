"""Site benchmark: validate, render and `mkdocs build` at several catalog sizes, with peak
memory, site size, search index size and the time to the first search result in a real
headless Chromium.

    python scripts/bench_site.py --sizes 100,1000,10000 --write

The synthetic projects come from ``bench.generate_project``; they have no hand-written
pages (the real guides cite real papers). Results go to docs/benchmarks.md between
``<!-- bench:site -->`` markers.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
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

from bench import DOC, ROOT, generate_project, machine, time_command, write_section

sys.path.insert(0, str(ROOT / "src"))

from mlsys_kb.chromium import ARGS, CHROMIUM

ENV = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}


def _run(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        argv, cwd=cwd, env=ENV, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def _render_seconds(project: Path) -> float:
    from mlsys_kb import validate
    from mlsys_kb.render import render_site

    catalog, problems = validate.load(project)
    assert not problems, problems[:3]
    start = time.perf_counter()
    render_site(catalog)
    return time.perf_counter() - start


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def first_search_result(site: Path, query: str, runs: int = 3) -> tuple[float, float]:
    """Seconds from opening the home page to the first search result on screen, as a
    reader does it: open the page, click the search box, type the query; and of those, the
    seconds from the last keystroke to the result (what the search engine adds)."""
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
                context = browser.new_context()  # a cold cache each time
                context.route("https://**", lambda route: route.abort())
                page = context.new_page()
                start = time.perf_counter()
                page.goto(url, wait_until="domcontentloaded")
                page.locator(".md-search__input").first.click()
                page.locator("input.md-search__input").press_sequentially(query)
                typed = time.perf_counter()
                page.wait_for_selector(".md-search-result__item", timeout=120_000)
                times.append(time.perf_counter() - start)
                waits.append(time.perf_counter() - typed)
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return statistics.median(times), statistics.median(waits)


def measure(project: Path, runs: int, query: str) -> list[str]:
    cli = [str(Path(sys.executable).with_name("mlsys-kb"))]
    validate_s = statistics.median(_run([*cli, "validate"], project) for _ in range(runs))
    render_s = statistics.median(_render_seconds(project) for _ in range(runs))
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    builds = time_command([*cli, "build"], project, max(1, runs // 2))
    peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    build_wall = statistics.median(timing.wall for timing in builds)
    build_cpu = statistics.median(timing.cpu for timing in builds)
    site = project / "site"
    index = site / "search" / "search_index.json"
    nan = float("nan")
    search_s, wait_s = first_search_result(site, query) if Path(CHROMIUM).exists() else (nan, nan)
    return [
        f"{validate_s:.2f} s",
        f"{render_s:.2f} s",
        f"{build_wall:.1f} s ({build_cpu:.1f} s CPU)",
        f"{peak / 1024:.0f} MiB",
        f"{_size(site) / 1e6:.1f} MB",
        f"{index.stat().st_size / 1e6:.2f} MB",
        f"{search_s:.2f} s ({wait_s:.2f} s after typing)",
    ]


COLUMNS = (
    "validate",
    "render",
    "full build",
    "peak memory",
    "site size",
    "search index",
    "first search result",
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-site-") as scratch:
        for size in [int(s) for s in args.sizes.split(",")]:
            project = generate_project(Path(scratch) / f"p{size}", size)
            shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
            # The theme's own stylesheet, so that every page's links resolve as on the real site.
            shutil.copytree(ROOT / "docs" / "assets", project / "docs" / "assets")
            shutil.copytree(ROOT / "overrides", project / "overrides")
            from mlsys_kb import validate

            catalog, _ = validate.load(project)
            query = catalog["papers"][len(catalog["papers"]) // 2]["title"].split(":")[0]
            cells = measure(project, args.runs, query)
            entries = sum(len(catalog[k]) for k in ("papers", "decks", "issues", "resources"))
            label = f"{size:,} papers ({entries:,} entries)"
            rows.append(f"| {label} | " + " | ".join(cells) + " |")
            print(rows[-1], file=sys.stderr, flush=True)
            shutil.rmtree(project)
    text = "\n".join(
        [
            "## Site: build and search",
            "",
            "Whole-process wall times: `mlsys-kb validate`, `render_site` in process, "
            "`mlsys-kb build` (validate, render and `mkdocs build --strict`, with its CPU "
            "time: the machine is shared, and wall times moved by up to a third between runs); "
            "peak memory of "
            "the build; the time from opening the home page in headless Chromium to the first "
            "search result for a title word, cold cache, and of that the time from the last "
            "keystroke to the result (the rest is opening the page, clicking and typing, "
            f"which the search engine does not change). Median of runs; {machine()}.",
            "",
            "| catalogs | " + " | ".join(COLUMNS) + " |",
            "|---" * (len(COLUMNS) + 1) + "|",
            *rows,
        ]
    )
    print(text)
    if args.write:
        write_section(DOC, "site", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
