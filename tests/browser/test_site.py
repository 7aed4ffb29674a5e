"""The built site as a reader uses it, in a real headless Chromium."""

from __future__ import annotations

import re
from urllib.parse import urljoin

import pytest

from mlsys_kb import validate

from ..sitebuild import ROOT
from .tabs import open_tab

CATALOG, _ = validate.load(ROOT)
TOPICS = [topic.id for topic in CATALOG["topics"]]


def test_home_page_lists_topics_with_counts(page, base_url) -> None:
    page.goto(base_url)
    assert page.locator("h1").first.inner_text().rstrip("¶") == "MLSys knowledge base"
    topics = page.locator("article li", has_text="Graph neural networks").first.inner_text()
    assert re.search(r"Graph neural networks \(\d+\)", topics)
    assert page.locator("article a[href$='downloads/papers.bib']").count() == 1
    assert page.console_errors == []


@pytest.mark.parametrize("topic", TOPICS)
def test_every_topic_page_loads_without_errors(page, base_url, topic) -> None:
    response = page.goto(urljoin(base_url, f"topics/{topic}/"))
    assert response is not None and response.status == 200
    title = CATALOG.by_id("topics")[topic]["title"]
    assert page.locator("article h1").inner_text().rstrip("¶") == title
    assert page.console_errors == []


def _search(page, base_url, query: str) -> list[str]:
    page.goto(base_url)
    page.locator("label.md-search__icon, .md-search__input").first.click()
    # Typed key by key, as a reader does: Material searches on keyboard events.
    page.locator("input.md-search__input").press_sequentially(query, delay=10)
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    links = page.locator(".md-search-result__item a.md-search-result__link")
    return [links.nth(i).get_attribute("href") or "" for i in range(min(links.count(), 5))]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("DistDGL", "#zheng2020distdgl"),
        ("FSDP", "#zhao2023pytorch"),
        ("torchrun", "multi-node-torchrun"),
        ("lazy wrapper should be called at most once", "#pytorch-90613"),
        ("Karypis", "#zheng2020distdgl"),  # its ninth and last author
        ("METIS", "#zheng2020distdgl"),  # a word only in the summary
    ],
)
def test_search_puts_the_entry_among_the_top_results(page, base_url, query, expected) -> None:
    hrefs = _search(page, base_url, query)
    assert any(expected in href for href in hrefs), hrefs
    assert page.console_errors == []


def test_permalink_scrolls_to_the_entry(page, base_url) -> None:
    page.goto(urljoin(base_url, "topics/gnn/#zheng2020distdgl"))
    heading = page.locator("#zheng2020distdgl")
    heading.wait_for()
    box = heading.bounding_box()
    assert box is not None and 0 <= box["y"] < 900
    assert page.evaluate("window.scrollY") > 0


def test_bibtex_block_expands(page, base_url) -> None:
    page.goto(urljoin(base_url, "topics/gnn/#zheng2020distdgl"))
    details = page.locator("details.quote").first
    assert details.get_attribute("open") is None
    details.locator("summary").click()
    assert details.get_attribute("open") is not None
    code = details.locator("code").inner_text()
    assert code.startswith("@inproceedings{zheng2020distdgl,")


PAGES = ["", "topics/gnn/", "topics/automatic-parallelism/", "papers/by-year/", "issues/", "stats/"]


@pytest.mark.parametrize("path", PAGES)
def test_no_horizontal_overflow_on_a_phone(browser, base_url, path) -> None:
    with open_tab(browser, viewport={"width": 375, "height": 812}) as tab:
        tab.goto(urljoin(base_url, path))
        width = tab.evaluate("document.documentElement.scrollWidth")
        name = path.strip("/").replace("/", "_") or "home"
        tab.screenshot(path=str(ROOT / "test-artifacts" / "screenshots" / f"phone-{name}.png"))
    assert width <= 375, f"{path} is {width}px wide at 375px"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(
    "chart",
    [
        f"{name}{layout}"
        for name in ("by-kind", "by-topic", "by-year")
        for layout in ("", "-narrow")
    ],
)
def test_chart_labels_fit_and_read_inside_the_chart(browser, base_url, chart, scheme) -> None:
    # The charts are SVG files shown as images; opened directly, Chromium lays out their
    # text with real fonts, so a label cut off at the edge shows in its box. (Its own tab:
    # the `page` fixture's full-page screenshot never finishes on a bare SVG document.)
    with open_tab(browser, color_scheme=scheme) as tab:
        tab.goto(urljoin(base_url, f"stats/{chart}.svg"))
        ground = tab.evaluate("getComputedStyle(document.querySelector('.ground')).fill")
        labels = tab.evaluate(
            """() => {
                const svg = document.documentElement;
                const width = svg.viewBox.baseVal.width;
                return [...svg.querySelectorAll('text')].map(t => {
                    const box = t.getBBox();
                    return [t.textContent, box.x, box.x + box.width, width,
                            getComputedStyle(t).fill];
                });
            }"""
        )
    assert len(labels) > 3
    outside = [label for label, left, right, width, _ in labels if left < 0 or right > width]
    assert outside == []
    faint = [label for label, *_, fill in labels if _contrast(fill, ground) < 4.5]
    assert faint == [], (scheme, ground)


def _luminance(css_rgb: str) -> float:
    red, green, blue = (int(n) / 255 for n in re.findall(r"\d+", css_rgb)[:3])

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def _contrast(one: str, other: str) -> float:
    """WCAG contrast ratio of two CSS rgb() colours; AA asks 4.5 for text."""
    lighter, darker = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_link_buttons_are_readable_in_both_colour_schemes(browser, base_url, scheme) -> None:
    # The palette follows the reader's system setting; WCAG AA asks 4.5:1 for text.
    with open_tab(browser, color_scheme=scheme) as tab:
        tab.goto(urljoin(base_url, "topics/gnn/"))
        button = tab.locator(".entry-links a").first.evaluate("e => getComputedStyle(e).color")
        ground = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    assert _contrast(button, ground) >= 4.5, (scheme, button, ground)


@pytest.mark.parametrize(("width", "layout"), [(375, "-narrow.svg"), (1280, "by-topic.svg")])
def test_a_phone_gets_charts_it_does_not_have_to_shrink(browser, base_url, width, layout) -> None:
    with open_tab(browser, viewport={"width": width, "height": 800}) as tab:
        tab.goto(urljoin(base_url, "stats/"))
        image = tab.locator("picture img").nth(1)
        image.scroll_into_view_if_needed()
        loaded = "img => img.complete && img.naturalWidth > 0"
        tab.wait_for_function(loaded, arg=image.element_handle())
        sizes = "i => [i.currentSrc, i.clientWidth, i.naturalWidth]"
        source, shown, natural = image.evaluate(sizes)
    assert source.endswith(layout)
    assert shown >= natural * 0.95, f"the chart is scaled to {shown / natural:.0%}"
