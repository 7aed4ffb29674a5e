"""The header search, answered from the Pagefind index, in a real Chromium, on the site served
under its deploy path. The queries come from the catalog, not typed in."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from mlsys_kb import validate
from mlsys_kb.render.site import entry_title
from mlsys_kb.schema import ENTRY_KINDS

from ..sitebuild import ROOT
from .tabs import open_tab

CATALOG, _ = validate.load(ROOT)
ENTRIES = [entry for kind in ENTRY_KINDS for entry in CATALOG[kind]]


def _open_search(page, base_url: str, query: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(base_url)
    page.locator("label.md-search__icon, .md-search__input").first.click()
    # Typed key by key, as a reader does: Material searches on keyboard events (a key is
    # pressed at the end: characters typed through an input method send no keyup).
    page.locator("input.md-search__input").press_sequentially(query, delay=10)
    page.keyboard.press("End")


def _results(page) -> list[str]:  # type: ignore[no-untyped-def]
    """The entry each result leads to, in order: the first link of each result."""
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    # One snapshot of the list: Material redraws it as answers come, and a link counted
    # first and read after (nth(i)) could be gone by then (seen under load).
    hrefs = page.eval_on_selector_all(
        ".md-search-result__item > a.md-search-result__link",
        "links => links.map(link => link.getAttribute('href') || '')",
    )
    return [urlsplit(href).fragment for href in hrefs]


def _first_per_kind() -> list[object]:
    picked = []
    for kind in ENTRY_KINDS:
        picked += CATALOG[kind][:2]
    return picked


@pytest.mark.parametrize("entry", _first_per_kind(), ids=lambda e: e.id)
def test_a_query_naming_an_entry_puts_it_first(page, base_url, entry) -> None:
    # By id, and by title; where two entries share a title (a paper and the deck that
    # reviews it), the paper comes first and the other second.
    _open_search(page, base_url, entry.id)
    assert _results(page)[0] == entry.id
    same_title = [e.id for e in ENTRIES if entry_title(e) == entry_title(entry)]
    _open_search(page, base_url, entry_title(entry))
    assert sorted(_results(page)[: len(same_title)]) == sorted(same_title)
    assert page.console_errors == []


ERRORS = [
    (issue.id, message)
    for issue in CATALOG["issues"]
    for message in re.findall(r"`([^`]*(?:Error|error)[^`]*)`", issue["symptom"])
]


@pytest.mark.parametrize(
    ("issue", "message"), ERRORS, ids=[f"{i}-{n}" for n, (i, _) in enumerate(ERRORS)]
)
def test_an_error_message_pasted_whole_finds_its_issue(page, base_url, issue, message) -> None:
    assert len(ERRORS) >= 3
    _open_search(page, base_url, message)
    assert issue in _results(page)[:3]


def test_search_never_fetches_materials_index_and_shows_the_count(page, base_url) -> None:
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    _open_search(page, base_url, "Karypis")
    _results(page)
    assert not [url for url in fetched if "search_index" in url]
    assert [url for url in fetched if "/pagefind/" in url]
    # Everything from the site itself, under its deploy path: nothing from the internet but
    # the repository's stars, which Material's header asks GitHub's API for.
    outside = [
        url
        for url in fetched
        if not url.startswith((base_url, "https://api.github.com/repos/mlsys-kb/"))
    ]
    assert outside == []
    meta = page.locator(".md-search-result__meta").inner_text()
    assert re.fullmatch(r"\d+ matching documents?", meta), meta
    assert page.console_errors == []


def test_past_nine_results_the_count_is_the_answers_total(page, base_url) -> None:
    """The search box shows nine results and a link to the matching entries on the Explore
    page, in the ten groups Material draws at once; the count says how many documents
    match (Pagefind's total, with the hand-written pages' index merged as the worker does),
    not "10"; Explore lists the entries among them."""
    from collections import Counter

    tags = Counter(tag for entry in ENTRIES for tag in entry.get("tags") or [])
    tag, tagged = tags.most_common(1)[0]
    assert tagged > 9, tags.most_common(3)  # a query with more results than one answer
    _open_search(page, base_url, tag)
    _results(page)
    link = page.locator(".md-search-result__list > :last-child a[href*='explore/?q=']")
    link.wait_for()
    assert link.inner_text().strip() == "All matching entries on the Explore page"
    groups = page.locator(".md-search-result__item").count()
    meta = page.locator(".md-search-result__meta").inner_text()
    total = page.evaluate(
        """async ([base, query]) => {
            const pagefind = await import(base + "pagefind/pagefind.js");
            await pagefind.options({ baseUrl: new URL(base).pathname });
            await pagefind.mergeIndex(base + "pagefind-pages/");
            return (await pagefind.search(query)).results.length;
        }""",
        [base_url, tag],
    )
    assert groups == 10  # nine results and the link
    assert total > 9
    assert meta == f"{total} matching documents"
    link.click()
    page.wait_for_url(re.compile(r".*/explore/.*"))
    page.wait_for_function(
        "() => document.querySelector('[data-result-count]').dataset.resultCount !== ''"
    )
    entries = int(page.locator("[data-result-count]").get_attribute("data-result-count"))
    assert tagged <= entries <= total
    assert page.console_errors == []


def test_keyboard_opens_the_best_result_at_its_anchor_with_highlighting(page, base_url) -> None:
    _open_search(page, base_url, "METIS")
    assert _results(page)[0] == "zheng2020distdgl"
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*#zheng2020distdgl$"))
    url = urlsplit(page.url)
    assert url.path.endswith("/topics/gnn/")
    assert parse_qs(url.query)["h"] == ["metis"]
    # Material's search.highlight marks the words on the page it opens.
    marks = page.locator("article mark[data-md-highlight]")
    marks.first.wait_for()
    assert marks.first.inner_text().lower() == "metis"


def test_arrow_keys_walk_the_results(page, base_url) -> None:
    _open_search(page, base_url, "torchrun")
    _results(page)
    links = page.locator(".md-search-result__item a.md-search-result__link")
    hrefs = [links.nth(i).get_attribute("href") for i in range(3)]
    focused = []
    for _ in range(3):
        page.keyboard.press("ArrowDown")
        focused.append(page.evaluate("document.activeElement.getAttribute('href')"))
    assert focused == hrefs, (focused, hrefs)
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.getAttribute('href')") == hrefs[1]


@pytest.mark.parametrize(("scheme", "width"), [("dark", 1280), ("light", 375), ("dark", 375)])
def test_results_read_in_both_schemes_and_on_a_phone(browser, base_url, scheme, width) -> None:
    with open_tab(browser, viewport={"width": width, "height": 812}, color_scheme=scheme) as tab:
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.goto(base_url)
        if width < 600:
            tab.locator("label.md-header__button[for=__search]").click()
        box = tab.locator("input.md-search__input")
        box.wait_for(state="visible")  # on a phone it slides in
        box.click()
        box.press_sequentially("DistDGL", delay=10)
        tab.wait_for_selector(".md-search-result__item")
        # On a phone Material opens search with an overlay that grows as a circle far past
        # the screen for about 0.3 s; under load the first result can come before it ends.
        tab.wait_for_function("document.getAnimations().every(a => a.playState !== 'running')")
        overflow = tab.evaluate("document.documentElement.scrollWidth")
        tab.screenshot(
            path=str(ROOT / "test-artifacts" / "screenshots" / f"search-{scheme}-{width}.png")
        )
    assert overflow <= width
    assert errors == []


def test_hostile_text_in_results_stays_text(browser, tmp_path) -> None:
    """Pagefind keeps the indexed text unescaped; the worker escapes it before Material
    puts it into the page as HTML."""
    from ..sitebuild import build_site, copy_project, deploy_path, serve
    from ..test_build import _hostile

    project = copy_project(tmp_path / "project")
    _hostile(project)
    result = build_site(project, project / "site")
    assert result.returncode == 0, result.stderr
    with serve(project / "site", deploy_path()) as url, open_tab(browser) as tab:
        tab.add_init_script("window.alert = () => { window.pwned = new Error().stack }")
        tab.goto(url)
        tab.locator(".md-search__input").first.click()
        tab.locator("input.md-search__input").press_sequentially("alert", delay=10)
        tab.wait_for_selector(".md-search-result__item")
        tab.wait_for_timeout(500)
        assert tab.evaluate("window.pwned") is None
        assert tab.locator(".md-search-result img, .md-search-result script").count() == 0
        assert "<script>" in tab.locator(".md-search-result").inner_text()
        # The Explore page sets every text from the index and the catalog as text.
        tab.goto(url + "explore/?q=alert")
        tab.wait_for_selector("[data-entry-id]")
        assert tab.evaluate("window.pwned") is None
        assert tab.locator(".kb-explore img, .kb-explore__list script").count() == 0
        assert "<" in tab.locator(".kb-explore__list").inner_text()


def test_suggests_the_word_being_typed(page, base_url) -> None:
    # Material completes the last word from the best result's title (search.suggest).
    _open_search(page, base_url, "DistD")
    _results(page)
    page.wait_for_function("document.querySelector('.md-search__suggest').textContent !== ''")
    assert page.locator(".md-search__suggest").inner_text() == "DistDGL"
