"""A browser tab for one test, the way every browser test needs it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def open_tab(browser: Any, **options: Any) -> Iterator[Any]:
    """A tab in a fresh context (a cold cache), closed afterwards. `options` go to
    `browser.new_context` (viewport, color_scheme, ...).

    The hosted site shows the repository's stars from GitHub's API; this machine is offline,
    so that one request is answered locally instead of failing.
    """
    context = browser.new_context(**options)
    context.route(
        "https://api.github.com/**",
        lambda route: route.fulfill(status=200, content_type="application/json", body="{}"),
    )
    try:
        yield context.new_page()
    finally:
        context.close()
