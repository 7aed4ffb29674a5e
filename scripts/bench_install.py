"""Install benchmark: wall time of `make install` into a fresh .venv, with a warm and with a
cold package cache, for a commit of this repository.

    python scripts/bench_install.py --ref HEAD --runs 3
    python scripts/bench_install.py --ref 114b979 --runs 3 --label before

The commit is exported with `git archive` into a temporary folder, so the checkout's own
.venv is untouched. Warm: one uncounted run fills a cache folder, then each counted run
makes a new .venv with that cache. Cold: each run gets a new, empty cache folder
(PIP_CACHE_DIR and UV_CACHE_DIR), so every file comes from the package index again.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _export(ref: str, target: Path) -> None:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)


def _install(project: Path, cache: Path, make_args: list[str]) -> float:
    shutil.rmtree(project / ".venv", ignore_errors=True)
    env = {**os.environ, "PIP_CACHE_DIR": str(cache), "UV_CACHE_DIR": str(cache)}
    env.pop("VIRTUAL_ENV", None)
    start = time.perf_counter()
    done = subprocess.run(["make", "install"], cwd=project, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"make install failed:\n{done.stdout}\n{done.stderr}")
    return seconds


def _summary(label: str, times: list[float]) -> str:
    return (
        f"| {label} | {statistics.median(times):.1f} s | {min(times):.1f}-{max(times):.1f} s "
        f"| {len(times)} |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default="HEAD", help="commit to measure (default: HEAD)")
    parser.add_argument("--runs", type=int, default=3, help="counted runs per cache state")
    parser.add_argument("--label", default=None, help="row label (default: the ref)")
    parser.add_argument(
        "--make-arg", action="append", default=[], help="passed to make, e.g. INSTALLER=pip"
    )
    args = parser.parse_args()
    label = args.label or args.ref
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-install-") as temporary:
        project = Path(temporary) / "project"
        project.mkdir()
        _export(args.ref, project)
        warm_cache = Path(temporary) / "warm-cache"
        _install(project, warm_cache, args.make_arg)  # fills the cache; not counted
        warm = []
        for _ in range(args.runs):
            warm.append(_install(project, warm_cache, args.make_arg))
            print(f"warm: {warm[-1]:.1f} s, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
        cold = []
        for run in range(args.runs):
            cold.append(_install(project, Path(temporary) / f"cold-cache-{run}", args.make_arg))
            print(f"cold: {cold[-1]:.1f} s, load {os.getloadavg()[0]:.1f}", file=sys.stderr)
        rows = [_summary(f"{label}, warm cache", warm), _summary(f"{label}, cold cache", cold)]
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print("| install | median | range | runs |\n|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
