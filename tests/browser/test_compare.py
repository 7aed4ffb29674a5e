"""Comparison tables in a real Chromium: one row per paper, sorting by mouse and keyboard,
readable on a phone without the page scrolling sideways."""

from __future__ import annotations

from urllib.parse import urljoin

import pytest

from mlsys_kb import validate

from ..sitebuild import ROOT
from .tabs import open_tab

CATALOG, _ = validate.load(ROOT)
TABLES = {
    "automatic-parallelism": ["automatic-parallelism"],
    "gpu-programs": ["gpu-analyse", "gpu-test"],
}


def _papers(topics: list[str]) -> list[str]:
    return [p.id for p in CATALOG["papers"] if set(topics) & set(p["topics"])]


def _rows(tab) -> list[list[str]]:
    """The table's rows as the reader sees them: the row's paper id, then each cell's text."""
    return tab.evaluate(
        """() => [...document.querySelectorAll('table.compare-table tbody tr')].map(row =>
            [row.querySelector('th a').hash.slice(1),
             ...[...row.cells].map(cell => cell.innerText.trim())])"""
    )


@pytest.mark.parametrize(("topic", "covered"), list(TABLES.items()))
def test_one_row_per_paper_of_the_topic(page, base_url, topic, covered) -> None:
    page.goto(urljoin(base_url, f"topics/{topic}/"))
    rows = _rows(page)
    assert sorted(row[0] for row in rows) == sorted(_papers(covered))
    assert len(rows) >= 7
    headings = page.locator("table.compare-table thead th").all_inner_texts()
    properties = CATALOG.by_id("topics")[topic]["compare"]["properties"]
    labels = [heading.rstrip(" ↕▲▼") for heading in headings]
    assert labels == ["Paper", "Year", *(d["label"] for d in properties.values()), "Official code"]
    assert page.console_errors == []


def test_sorting_by_a_column_with_the_mouse_and_the_keyboard(page, base_url) -> None:
    page.goto(urljoin(base_url, "topics/automatic-parallelism/"))
    year = page.locator("table.compare-table thead th").nth(1)
    year.locator("button").click()
    assert year.get_attribute("aria-sort") == "ascending"
    years = [int(row[2]) for row in _rows(page)]
    assert years == sorted(years)
    year.locator("button").click()
    assert year.get_attribute("aria-sort") == "descending"
    years = [int(row[2]) for row in _rows(page)]
    assert years == sorted(years, reverse=True)
    # By keyboard: Tab reaches the heading's button, Enter sorts.
    paper = page.locator("table.compare-table thead th").first
    paper.locator("button").focus()
    page.keyboard.press("Enter")
    assert paper.get_attribute("aria-sort") == "ascending"
    assert year.get_attribute("aria-sort") is None
    names = [row[1].lower() for row in _rows(page)]
    assert names == sorted(names)
    assert page.console_errors == []


def test_unknown_cells_stay_last_in_both_directions(page, base_url) -> None:
    page.goto(urljoin(base_url, "topics/automatic-parallelism/"))
    headings = page.locator("table.compare-table thead th")
    column = headings.all_inner_texts().index(
        next(h for h in headings.all_inner_texts() if h.startswith("Heterogeneous"))
    )
    button = headings.nth(column).locator("button")
    for order in ("ascending", "descending"):
        button.click()
        assert headings.nth(column).get_attribute("aria-sort") == order
        cells = [row[column + 1] for row in _rows(page)]
        known = [cell for cell in cells if cell != "unknown"]
        assert cells == [
            *sorted(known, reverse=order == "descending"),
            *["unknown"] * (len(cells) - len(known)),
        ]
        assert 0 < len(known) < len(cells)


@pytest.mark.parametrize("topic", list(TABLES))
def test_on_a_phone_each_paper_is_a_block_that_fits(browser, base_url, topic) -> None:
    with open_tab(browser, viewport={"width": 375, "height": 812}) as tab:
        tab.goto(urljoin(base_url, f"topics/{topic}/"))
        page_width = tab.evaluate("document.documentElement.scrollWidth")
        box = tab.locator(".compare-scroll")
        inner, outer = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
        # Each value is shown under its column's name, as the reader sees it.
        labels = tab.evaluate(
            """() => [...document.querySelectorAll('table.compare-table tbody td')].map(td =>
                [td.dataset.label, getComputedStyle(td, '::before').content])"""
        )
        # The headings are sort buttons there, and they sort.
        year = tab.locator("table.compare-table thead th").nth(1)
        year.locator("button").click()
        years = [int(row[2]) for row in _rows(tab)]
        box.scroll_into_view_if_needed()
        tab.screenshot(
            path=str(ROOT / "test-artifacts" / "screenshots" / f"phone-compare-{topic}.png")
        )
    assert page_width <= 375
    assert inner <= outer  # nothing to scroll sideways
    assert labels and all(content == f'"{label}"' for label, content in labels)
    assert years == sorted(years)
