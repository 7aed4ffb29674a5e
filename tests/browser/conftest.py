"""A real headless Chromium (Debian's /usr/bin/chromium) driven by Playwright, against the
real site built once and served on 127.0.0.1.

Without Chromium the tests skip with the command that installs it, except under CI=true,
where a missing browser is a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from mlsys_kb.chromium import ARGS, CHROMIUM

from ..sitebuild import ROOT, build_site, copy_project, deploy_path, serve
from .tabs import open_tab

ARTIFACTS = ROOT / "test-artifacts" / "screenshots"


def _need_chromium() -> None:
    if Path(CHROMIUM).exists():
        return
    message = (
        f"Chromium not found at {CHROMIUM}. Install it with "
        "`sudo apt-get install chromium chromium-driver` (or run `make browser` as root)."
    )
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("project"))
    site = project / "site"
    result = build_site(project, site)
    assert result.returncode == 0, result.stdout + result.stderr
    return site


@pytest.fixture(scope="session")
def base_url(built_site: Path) -> Iterator[str]:
    # Under the path of site_url, as the hosted site: a root-relative URL would break.
    with serve(built_site, deploy_path()) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    _need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, request):  # type: ignore[no-untyped-def]
    with open_tab(browser, viewport={"width": 1280, "height": 900}) as tab:
        errors: list[str] = []
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.console_errors = errors  # type: ignore[attr-defined]
        yield tab
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        name = request.node.name.replace("/", "_").replace("[", "-").replace("]", "")
        shutil.rmtree(ARTIFACTS / f"{name}.png", ignore_errors=True)
        tab.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
