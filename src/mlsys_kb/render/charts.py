"""Bar charts as SVG, drawn at build time: no script, nothing fetched from the internet."""

from __future__ import annotations

from html import escape

BAR_HEIGHT = 22
GAP = 6
WIDTH = 680  # the content column at 1280 px is 688 px: wider would be scaled down, text too
NARROW_WIDTH = 340  # the phone layout: a 375 px screen's content column
NARROW_ROW = 38
# Labels are sized without font metrics (the build measures no text): a generous average
# width for 13px sans-serif, so that no label is cut off at the left edge.
CHAR_WIDTH = 7.2
LONGEST_LABEL = 60  # characters; longer ones end in an ellipsis, whole in their tooltip
# The chart is an image, so the page's colour variables do not reach it: it brings its own
# background and follows the reader's system setting, which the site's palette follows too.
STYLE = (
    "text{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:13px;"
    "fill:#555}.title{font-weight:600}.ground{fill:#fff}.bar{fill:#4051b5}"
    "@media (prefers-color-scheme:dark){text{fill:#c9cbd1}.ground{fill:#1e2129}"
    ".bar{fill:#5c6bc0}}"
)


def bar_chart(title: str, rows: list[tuple[str, int]]) -> str:
    """A horizontal bar chart, labels left of the bars; escaped, readable on a light or a
    dark page."""
    longest = max((min(len(label), LONGEST_LABEL) for label, _ in rows), default=0)
    label_width = max(80, round(longest * CHAR_WIDTH) + 12)
    # The bars take what the labels leave, with room for the counts.
    bars = _lengths(rows, WIDTH - label_width - 60)
    body = []
    for index, ((label, value), bar) in enumerate(zip(rows, bars, strict=True)):
        y = 34 + index * (BAR_HEIGHT + GAP)
        body += [
            f'<text x="{label_width - 8}" y="{y + 15}" text-anchor="end">'
            f"{_label(label, LONGEST_LABEL)}</text>",
            f'<rect class="bar" x="{label_width}" y="{y}" width="{bar}" '
            f'height="{BAR_HEIGHT}" rx="3"/>',
            f'<text x="{label_width + bar + 6}" y="{y + 15}">{value}</text>',
        ]
    return _svg(title, WIDTH, len(rows) * (BAR_HEIGHT + GAP) + 44, body)


def stacked_bar_chart(title: str, rows: list[tuple[str, int]]) -> str:
    """The same chart for a phone: each label above its bar, so that it fits 340 px
    without being scaled down."""
    longest = int((NARROW_WIDTH - 16) // CHAR_WIDTH)
    bars = _lengths(rows, NARROW_WIDTH - 16 - 40)
    body = []
    for index, ((label, value), bar) in enumerate(zip(rows, bars, strict=True)):
        y = 34 + index * NARROW_ROW
        body += [
            f'<text x="8" y="{y + 13}">{_label(label, longest)}</text>',
            f'<rect class="bar" x="8" y="{y + 18}" width="{bar}" height="12" rx="2"/>',
            f'<text x="{8 + bar + 6}" y="{y + 29}">{value}</text>',
        ]
    return _svg(title, NARROW_WIDTH, len(rows) * NARROW_ROW + 44, body)


def _lengths(rows: list[tuple[str, int]], room: int) -> list[int]:
    """Bar lengths in pixels, the largest value filling `room`; a non-zero value shows."""
    top = max((value for _, value in rows), default=0) or 1
    return [max(2, round(room * value / top)) if value else 0 for _, value in rows]


def _label(label: str, longest: int) -> str:
    if len(label) <= longest:
        return escape(label)
    return f"<title>{escape(label)}</title>{escape(label[: longest - 1])}…"


def _svg(title: str, width: int, height: int, body: list[str]) -> str:
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f"<style>{STYLE}</style>",
        '<rect class="ground" width="100%" height="100%" rx="4"/>',
        f'<text class="title" x="8" y="20">{escape(title)}</text>',
        *body,
        "</svg>",
    ]
    return "\n".join(parts) + "\n"
