"""axe-core (npm, pinned in tests/browser/axe/package-lock.json; `make test` installs it)
inside the tests' Chromium: no serious or critical violation of the WCAG 2.1 A and AA rules
on the pages readers use most, in the light and the dark scheme."""

from __future__ import annotations

import os
from urllib.parse import urljoin

import pytest

from ..sitebuild import ROOT
from .tabs import open_tab

AXE = ROOT / "tests" / "browser" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
RULES = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
PAGES = ["", "topics/gnn/", "issues/", "papers/by-year/", "explore/", "search:DistDGL"]


def _need_axe() -> None:
    if AXE.exists():
        return
    message = f"axe-core not found at {AXE}: run `make axe` (npm ci in tests/browser/axe)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", PAGES)
def test_no_serious_wcag_violations(browser, base_url, path, scheme) -> None:
    _need_axe()
    with open_tab(browser, viewport={"width": 1280, "height": 900}, color_scheme=scheme) as tab:
        if path.startswith("search:"):
            # An open search, with its results.
            tab.goto(base_url)
            tab.locator(".md-search__input").first.click()
            tab.locator("input.md-search__input").press_sequentially(path[7:], delay=10)
            tab.wait_for_selector(".md-search-result__item")
        else:
            tab.goto(urljoin(base_url, path))
            if path == "explore/":
                tab.wait_for_selector("[data-entry-id]")
        tab.add_script_tag(path=str(AXE))
        violations = tab.evaluate(
            """async (rules) => {
                const result = await axe.run(document, {
                    runOnly: {type: "tag", values: rules}, resultTypes: ["violations"]});
                return result.violations.map(v => ({id: v.id, impact: v.impact,
                    nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + ": "
                        + (n.failureSummary || "").split("\\n").slice(1, 2).join(""))}));
            }""",
            RULES,
        )
    serious = [v for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == [], "\n".join(f"{v['id']} ({v['impact']}): {v['nodes']}" for v in serious)
