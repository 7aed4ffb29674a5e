"""Site benchmark: validate, render and `mkdocs build` at several catalog sizes, with peak
memory and site size; and the site's search (Pagefind, the default) beside Material's own
lunr search on the same catalogs, in the same run: index build time, index bytes, bytes
fetched for a first query, and in a real headless Chromium the time from navigation to the
first result and from the last keystroke to it.

    python scripts/bench_site.py --sizes 100,1000,10000 --write

The synthetic projects come from ``bench.generate_project``; they have no hand-written
pages (the real guides cite real papers). Material's search is built with the plugin's
switch ``search: material``. Results go to docs/benchmarks.md between ``<!-- bench:site -->``
markers.
"""

from __future__ import annotations

import argparse
import functools
import gzip
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
BASE = "/mlsys-kb/"  # served under a path, as the hosted site is


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


def _index_seconds(project: Path) -> float:
    """Pagefind's index of the catalog's records, made the way the plugin makes it."""
    from mlsys_kb import validate
    from mlsys_kb.render import search_records
    from mlsys_kb.search_index import write_index

    catalog, _ = validate.load(project)
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-index-") as out:
        start = time.perf_counter()
        write_index(search_records(catalog), Path(out))
        return time.perf_counter() - start


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """The built site under BASE, text gzipped as static hosts (GitHub Pages) send it."""

    def log_message(self, *args: object) -> None:
        pass

    def translate_path(self, path: str) -> str:
        return super().translate_path("/" + path.removeprefix(BASE))

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path.split("?")[0]))
        if path.is_dir():
            path = path / "index.html"
        compress = path.suffix in _TEXT and "gzip" in self.headers.get("Accept-Encoding", "")
        if not path.is_file() or not compress:
            super().do_GET()
            return
        body = _gzipped(path, path.stat().st_mtime_ns)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


_TEXT = {".html", ".js", ".css", ".json", ".svg", ".xml"}


@functools.lru_cache(maxsize=4096)
def _gzipped(path: Path, mtime_ns: int) -> bytes:
    """Compressed once, as a static host's cache does: compressing Material's 5 MB index
    on every request would load the machine the browser is being timed on."""
    return gzip.compress(path.read_bytes(), compresslevel=6)


def _serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}{BASE}"


def first_results(
    sites: dict[str, Path], queries: list[str], runs: int
) -> dict[str, dict[str, list[float]]]:
    """For each query, ``runs`` fresh browser contexts (a cold cache each) per site, the
    sites taking turns so that the machine's noise falls on all of them alike: open the
    home page, click the search box, type the query, and wait for the first result.
    Returns per site the seconds from navigation to the frame that shows the result, from
    the last keystroke to it (both as the page's clock says: see ``_CLOCK``), and the bytes
    the page fetched until the script saw it."""
    from playwright.sync_api import sync_playwright

    served = {name: _serve(site) for name, site in sites.items()}
    found = {
        name: {"navigation": [], "keystroke": [], "bytes": [], "timeouts": []} for name in sites
    }
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for query in queries:
                for run in range(runs):
                    names = list(sites)
                    for name in names[run % len(names) :] + names[: run % len(names)]:
                        _first_result(browser, served[name][1], query, found[name])
            browser.close()
    finally:
        for server, _ in served.values():
            server.shutdown()
    return found


# The times are taken inside the page, not by Playwright looking from outside:
# wait_for_selector looks again 0, 20, 50, 100 and 100 ms apart and then every 500 ms
# (Playwright 1.65, Frame.retryWithProgressAndBackoff), so a result drawn just after a look
# was seen up to half a second late. That made the earlier 10,000-paper figures look
# bimodal (0.2 s or 0.8 s from the keystroke); timed in the page, the same results were
# drawn 0.20 to 0.55 s after it (15 contexts, 2026-11-22). Here the page notes the time of
# the last keydown, and of the first animation frame after a result is added to the list
# after that keydown (the first frame that can show it), on the page's clock, which starts
# at navigation.
_CLOCK = """
(() => {
  const kb = (window.__kbBench = {});
  addEventListener("keydown", () => { kb.key = performance.now(); kb.drawn = undefined; }, true);
  const isResult = (node) => node.nodeType === 1 &&
    (node.matches(".md-search-result__item") || node.querySelector(".md-search-result__item"));
  new MutationObserver((records) => {
    if (kb.key === undefined || kb.drawn !== undefined) return;
    if (!records.some((record) => [...record.addedNodes].some(isResult))) return;
    kb.drawn = null;
    requestAnimationFrame(() => { kb.drawn = performance.now(); });
  }).observe(document, { subtree: true, childList: true });
})();
"""


def _first_result(browser, url: str, query: str, into: dict[str, list[float]]) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    context = browser.new_context()
    context.route("https://**", lambda route: route.abort())
    page = context.new_page()
    page.add_init_script(_CLOCK)
    finished: list[object] = []
    errors: list[str] = []
    page.on("requestfinished", lambda request: finished.append(request))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url, wait_until="domcontentloaded")
    page.locator(".md-search__input").first.click()
    box = page.locator("input.md-search__input")
    # All but the last character without key events, then one keystroke: the engine is
    # asked once for the whole query, and only a result drawn after it counts (Material
    # may already list results for the first characters).
    box.fill(query[:-1])
    box.press(query[-1])
    try:
        page.wait_for_function("window.__kbBench.drawn", timeout=120_000, polling=50)
    except PlaywrightTimeout:  # counted and reported, not a crash
        into["timeouts"].append(1)
        print(f"no result for {query!r} in 120 s; page errors: {errors}", file=sys.stderr)
        context.close()
        return
    clock = page.evaluate("window.__kbBench")
    fetched = sum(r.sizes()["responseBodySize"] for r in list(finished))  # type: ignore[attr-defined]
    into["navigation"].append(clock["drawn"] / 1000)
    into["keystroke"].append((clock["drawn"] - clock["key"]) / 1000)
    into["bytes"].append(fetched)
    context.close()
    # The next context is timed only once this one's teardown (its workers, a lunr index of
    # several MB) is out of the way.
    time.sleep(1)


def _settle(most: float = 1.0, wait: float = 180.0) -> float:
    """Wait (at most ``wait`` seconds) for the 1-minute load average to fall below ``most``
    after the builds, so that the browser does not time their writing-back; returns it."""
    deadline = time.monotonic() + wait
    while os.getloadavg()[0] >= most and time.monotonic() < deadline:
        time.sleep(5)
    return os.getloadavg()[0]


def _spread(values: list[float], unit: str = "s") -> str:
    if not values:
        return "-"
    if unit == "KB":
        low, mid, high = (v / 1000 for v in (min(values), statistics.median(values), max(values)))
        return f"{mid:.0f} KB ({low:.0f} to {high:.0f})"
    return f"{statistics.median(values):.2f} s ({min(values):.2f} to {max(values):.2f})"


def _use_search(project: Path, engine: str) -> None:
    """Switch the project's mkdocs.yml between the two searches (the plugin's option)."""
    config = project / "mkdocs.yml"
    lines = [
        line
        for line in config.read_text(encoding="utf-8").splitlines()
        if not line.startswith("      search: ")
    ]
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("- mlsys-kb"))
    lines[at] = "  - mlsys-kb:"
    lines.insert(at + 1, f"      search: {engine}")
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")


def measure(
    project: Path, runs: int, browser_runs: int, queries: list[str]
) -> tuple[list[list[str]], float]:
    """One row per search; and the load average when the browser measurements began."""
    cli = [str(Path(sys.executable).with_name("mlsys-kb"))]
    validate_s = statistics.median(_run([*cli, "validate"], project) for _ in range(runs))
    render_s = statistics.median(_render_seconds(project) for _ in range(runs))
    built = {}
    for engine in ("pagefind", "material"):
        _use_search(project, engine)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        builds = time_command([*cli, "build"], project, runs)
        peak = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        site = (project / "site").rename(project / f"site-{engine}")
        if engine == "pagefind":
            index_bytes = _size(site / "pagefind")
            index_s = f"{statistics.median(_index_seconds(project) for _ in range(runs)):.2f} s"
        else:
            index_bytes = (site / "search" / "search_index.json").stat().st_size
            index_s = "in the browser"
        built[engine] = (site, builds, peak, index_s, index_bytes)
    _use_search(project, "pagefind")
    load = _settle()
    empty = {"navigation": [], "keystroke": [], "bytes": [], "timeouts": []}
    timed = (
        first_results({engine: b[0] for engine, b in built.items()}, queries, browser_runs)
        if Path(CHROMIUM).exists()
        else {engine: empty for engine in built}
    )
    rows = []
    for engine, (site, builds, peak, index_s, index_bytes) in built.items():
        times = timed[engine]
        rows.append(
            [
                "Pagefind" if engine == "pagefind" else "Material (lunr)",
                f"{validate_s:.2f} s",
                f"{render_s:.2f} s",
                f"{statistics.median(t.wall for t in builds):.1f} s "
                f"({min(t.wall for t in builds):.1f} to {max(t.wall for t in builds):.1f}; "
                f"{statistics.median(t.cpu for t in builds):.1f} s CPU)",
                f"{peak / 1024:.0f} MiB",
                f"{_size(site) / 1e6:.1f} MB",
                index_s,
                f"{index_bytes / 1e6:.2f} MB",
                _spread(times["bytes"], "KB"),
                _spread(times["navigation"]),
                _spread(times["keystroke"])
                + (
                    f", {len(times['timeouts'])} with no result in 120 s"
                    if times.get("timeouts")
                    else ""
                ),
            ]
        )
    return rows, load


COLUMNS = (
    "search",
    "validate",
    "render",
    "full build",
    "peak memory",
    "site size",
    "index build",
    "index bytes",
    "fetched for a first query",
    "navigation → first result",
    "last keystroke → first result",
)


def _queries(project: Path) -> list[str]:
    """A title word, the last author of a paper, and ten words of an issue's symptom pasted
    whole, as long as the error messages of the real catalog (6 to 11 words); the synthetic
    symptoms are 20-word sentences. Each word of a query costs Pagefind one index chunk
    (about 22 KB at 10,000 papers)."""
    from mlsys_kb import validate

    catalog, _ = validate.load(project)
    paper = catalog["papers"][len(catalog["papers"]) // 2]
    issue = catalog["issues"][len(catalog["issues"]) // 2]
    symptom = " ".join(issue["symptom"].split()[:10])
    return [paper["title"].split(":")[0], paper["authors"][-1].split()[-1], symptom]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--browser-runs", type=int, default=5, help="fresh contexts per query")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    rows = []
    loads = []
    with tempfile.TemporaryDirectory(prefix="mlsys-kb-site-") as scratch:
        for size in [int(s) for s in args.sizes.split(",")]:
            project = generate_project(Path(scratch) / f"p{size}", size)
            shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
            # The theme's own stylesheet, so that every page's links resolve as on the real site.
            shutil.copytree(ROOT / "docs" / "assets", project / "docs" / "assets")
            from mlsys_kb import validate

            catalog, _ = validate.load(project)
            entries = sum(len(catalog[k]) for k in ("papers", "decks", "issues", "resources"))
            label = f"{size:,} papers ({entries:,} entries)"
            measured, load = measure(project, args.runs, args.browser_runs, _queries(project))
            for cells in measured:
                rows.append(f"| {label} | " + " | ".join(cells) + " |")
                print(rows[-1], file=sys.stderr, flush=True)
            loads.append(
                f"{size:,}: {load:.1f} when the browser began, {os.getloadavg()[0]:.1f} after"
            )
            shutil.rmtree(project)
    text = "\n".join(
        [
            "## Site: build and search",
            "",
            "Whole-process wall times: `mlsys-kb validate`, `render_site` in process, "
            f"`mlsys-kb build` (validate, render and `mkdocs build --strict`; {args.runs} "
            "builds after one not counted, median (min to max) and the median CPU time, "
            "children included); peak memory of the build. Each catalog is built with the "
            "site's search (Pagefind) and with Material's own (`search: material`). Index "
            "build: Pagefind's index of the catalog's records, in process (Material's lunr "
            "index is built in the browser, on every page load). Index bytes: "
            "`site/pagefind/`, or `search/search_index.json`. Then, once the builds' load "
            "has settled (1-minute load average below 1, or 3 minutes), headless Chromium, "
            f"both sites served on 127.0.0.1 under `{BASE}` with text gzipped once (as a "
            "static host sends it), a fresh browser context each time, a second apart, the "
            "two sites taking turns: open the home page, click the search box, type a query, "
            "wait for the first result; bytes fetched by the page until then, seconds from "
            "navigation and from the last keystroke to the first animation frame after a "
            "result was added to the list, on the page's own clock (`performance.now()`; "
            "Playwright's `wait_for_selector` looks only every 500 ms after its first few "
            "tries, which made earlier tables up to half a second late). Three queries (a "
            "title word, a paper's last author, ten words of an issue's symptom pasted whole), "
            f"{args.browser_runs} contexts each: median (min to max). {machine()}; "
            f"load average (1 min): {'; '.join(loads)}.",
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
