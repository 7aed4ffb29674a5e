"""The Explore page in a real Chromium: what each combination of facets lists is computed here
from the catalog (data/*.yaml), never typed in."""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import pytest

from mlsys_kb import validate
from mlsys_kb.render.search import _year
from mlsys_kb.schema import ENTRY_KINDS

from ..sitebuild import ROOT
from .tabs import open_tab

CATALOG, _ = validate.load(ROOT)
ENTRIES = [entry for kind in ENTRY_KINDS for entry in CATALOG[kind]]
TOPICS = CATALOG.by_id("topics")


def _under(topic: str) -> set[str]:
    """A topic and every topic below it."""
    found = {topic}
    for other in TOPICS.values():
        parent = other.get("parent")
        while parent:
            if parent == topic:
                found.add(other.id)
            parent = TOPICS[parent].get("parent")
    return found


def expected(**chosen: list[str]) -> set[str]:
    """The ids the catalog says a view lists: any value within a facet, every facet."""

    def values(entry, facet: str) -> set[str]:  # type: ignore[no-untyped-def]
        if facet == "kind":
            return {entry.kind}
        if facet == "topic":
            return set(entry.get("topics", []))
        if facet == "tag":
            return set(entry.get("tags", []))
        value = entry.get(facet)
        return {str(value)} if value is not None else set()

    def matches(entry, facet: str, wanted: list[str]) -> bool:  # type: ignore[no-untyped-def]
        if facet == "topic":
            wanted = [t for chosen in wanted for t in _under(chosen)]
        return bool(values(entry, facet) & set(wanted))

    return {e.id for e in ENTRIES if all(matches(e, f, w) for f, w in chosen.items() if w)}


def _common(facet: str, kind: str = "papers", n: int = 1) -> list[str]:
    counts: Counter[str] = Counter()
    for entry in CATALOG[kind]:
        value = entry.get(facet)
        counts.update(value if isinstance(value, list) else [str(value)])
    return [value for value, _ in counts.most_common(n)]


PARENT = next(
    t.id for t in TOPICS.values() if any(o.get("parent") == t.id for o in TOPICS.values())
)
VIEWS = [
    {},
    {"kind": ["papers"], "venue": _common("venue")},
    {"kind": ["papers"], "year": _common("year", n=2)},
    {"topic": [PARENT]},
    {"tag": _common("tags"), "kind": ["papers", "decks"]},
    {"kind": ["issues", "resources"], "topic": [PARENT]},
    {"venue": _common("venue", n=2), "year": _common("year", n=3), "tag": _common("tags", n=3)},
]


def _address(view: dict[str, list[str]]) -> str:
    return "explore/" + (
        "?" + urlencode([(k, v) for k, vs in view.items() for v in vs]) if view else ""
    )


def _listed(page) -> list[str]:  # type: ignore[no-untyped-def]
    """The ids the page lists, all of them (pressing "Show more" until it goes)."""
    page.wait_for_function(
        "() => document.querySelector('[data-result-count]').dataset.resultCount !== ''"
    )
    count = int(page.locator("[data-result-count]").get_attribute("data-result-count"))
    more = page.locator(".kb-explore__more")
    while (shown := page.locator("[data-entry-id]").count()) < count:
        more.click()
        page.wait_for_function(
            "(n) => document.querySelectorAll('[data-entry-id]').length > n", arg=shown
        )
    ids = page.locator("[data-entry-id]").evaluate_all("els => els.map(e => e.dataset.entryId)")
    assert len(ids) == count
    assert not more.is_visible()
    return ids


def _settled(page, address: str) -> None:  # type: ignore[no-untyped-def]
    # The page has drawn the view of this address (the count is set after the search).
    page.wait_for_function(
        "(query) => location.search === query && document.querySelector("
        "'[data-result-count]').dataset.resultCount !== ''",
        arg=address,
    )


@pytest.mark.parametrize("view", VIEWS, ids=lambda view: _address(view))
def test_a_view_lists_exactly_the_entries_the_catalog_says(page, base_url, view) -> None:
    page.goto(urljoin(base_url, _address(view)))
    ids = _listed(page)
    assert set(ids) == expected(**view)
    assert len(ids) == len(set(ids))
    # Newest first.
    years = [_year(CATALOG.by_id(e.kind)[e.id]) for i in ids for e in ENTRIES if e.id == i]
    assert years == sorted(years, reverse=True)
    # The view in the address is the view on the page.
    for facet, values in view.items():
        for value in values:
            box = page.locator(f".kb-facet input[name={facet}][value='{value}']")
            assert box.is_checked()
    assert page.console_errors == []


def test_facet_values_count_the_entries_choosing_them_would_list(page, base_url) -> None:
    view = {"kind": ["papers"], "venue": _common("venue")}
    page.goto(urljoin(base_url, _address(view)))
    _listed(page)
    for facet in ("year", "venue", "kind"):
        shown = page.locator(f".kb-facet[data-facet={facet}] label").evaluate_all(
            "labels => labels.map(l => [l.querySelector('input').value,"
            " +l.querySelector('.kb-facet__count').textContent])"
        )
        assert shown
        for value, count in shown:
            # What this value alone would list, with the other facets as chosen.
            assert count == len(expected(**{**view, facet: [value]})), (facet, value)


def test_words_and_facets_combine(page, base_url) -> None:
    page.goto(urljoin(base_url, "explore/?kind=papers&q=Karypis"))
    ids = _listed(page)
    assert ids == [e.id for e in CATALOG["papers"] if "George Karypis" in e.get("authors", [])]
    assert page.locator("#kb-explore-q").input_value() == "Karypis"
    # Material's search box did not open with the Explore page's words.
    assert not page.locator("#__search").is_checked()
    assert parse_qs(urlsplit(page.url).query) == {"kind": ["papers"], "q": ["Karypis"]}


def test_says_plainly_when_nothing_matches(page, base_url) -> None:
    page.goto(urljoin(base_url, "explore/?q=zzqqxxnothing"))
    assert _listed(page) == []
    assert "No entries match" in page.locator("[data-result-count]").inner_text()


def test_the_address_follows_the_view_and_back_and_forward_restore_it(page, base_url) -> None:
    page.goto(urljoin(base_url, "explore/"))
    _listed(page)
    page.locator(".kb-facet input[name=kind][value=papers]").check()
    _settled(page, "?kind=papers")
    assert set(_listed(page)) == expected(kind=["papers"])
    venue = _common("venue")[0]
    # With the keyboard: Tab to the box, Space to check it.
    page.locator(f".kb-facet input[name=venue][value='{venue}']").focus()
    page.keyboard.press("Space")
    _settled(page, f"?kind=papers&venue={venue}")
    assert set(_listed(page)) == expected(kind=["papers"], venue=[venue])
    page.go_back()
    _settled(page, "?kind=papers")
    assert set(_listed(page)) == expected(kind=["papers"])
    assert not page.locator(f".kb-facet input[name=venue][value='{venue}']").is_checked()
    page.go_forward()
    _settled(page, f"?kind=papers&venue={venue}")
    assert set(_listed(page)) == expected(kind=["papers"], venue=[venue])
    assert page.console_errors == []


def test_explore_is_in_the_top_navigation(page, base_url) -> None:
    page.goto(base_url)
    tab = page.locator(".md-tabs a", has_text=re.compile(r"^\s*Explore\s*$"))
    tab.click()
    page.wait_for_url(re.compile(r".*/explore/$"))
    assert len(_listed(page)) == len(ENTRIES)


@pytest.mark.parametrize(("scheme", "width"), [("light", 375), ("dark", 375), ("dark", 1280)])
def test_explore_on_a_phone_and_in_the_dark(browser, base_url, scheme, width) -> None:
    with open_tab(browser, viewport={"width": width, "height": 812}, color_scheme=scheme) as tab:
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.goto(urljoin(base_url, "explore/?kind=papers&year=" + _common("year")[0]))
        tab.wait_for_selector("[data-entry-id]")
        overflow = tab.evaluate("document.documentElement.scrollWidth")
        tab.screenshot(
            path=str(ROOT / "test-artifacts" / "screenshots" / f"explore-{scheme}-{width}.png"),
            full_page=True,
        )
    assert overflow <= width
    assert errors == []
