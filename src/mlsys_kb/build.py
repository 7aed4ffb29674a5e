"""Build and serve the site with the real MkDocs, strictly.

``build`` validates first and prints the validator's messages on a bad catalog; the site
is built into a fresh directory and only then swapped in, so a failed build leaves the
previous ``site/`` as it was.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import validate

QUIET = {"NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}


def _mkdocs(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "mkdocs", *args, "--config-file", str(root / "mkdocs.yml")]


def build(root: Path, site_dir: Path | None = None) -> int:
    _catalog, problems = validate.load(root)
    if problems:
        for problem in problems:
            print(problem)
        print(f"{len(problems)} problem(s) found; site not built", file=sys.stderr)
        return 1
    target = (site_dir or root / "site").resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".site-", dir=target.parent))
    env = {**os.environ, **QUIET}
    result = subprocess.run(
        # No --quiet: it hides the warnings that --strict counts, and the build would pass.
        [*_mkdocs(root, "build", "--strict"), "--site-dir", str(staging)],
        cwd=root,
        env=env,
        check=False,
    )
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        print("mkdocs build --strict failed; the previous site is unchanged", file=sys.stderr)
        return 1
    old = target.with_name(target.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    print(
        f"built {target.relative_to(Path.cwd()) if target.is_relative_to(Path.cwd()) else target}"
    )
    return 0


def serve(root: Path, dev_addr: str) -> int:
    _catalog, problems = validate.load(root)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    env = {**os.environ, **QUIET}
    command = [*_mkdocs(root, "serve", "--strict", "--dev-addr", dev_addr)]
    try:
        return subprocess.run(command, cwd=root, env=env, check=False).returncode
    except KeyboardInterrupt:
        return 0
