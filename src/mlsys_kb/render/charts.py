"""Bar charts as SVG, drawn at build time: no script, nothing fetched from the internet."""

from __future__ import annotations

from html import escape

BAR_HEIGHT = 22
GAP = 6
WIDTH = 740  # the whole chart: wider would be scaled down to the page, text and all
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
    """A horizontal bar chart; labels are escaped, readable on a light or a dark page."""
    top = max((value for _, value in rows), default=0) or 1
    longest = max((min(len(label), LONGEST_LABEL) for label, _ in rows), default=0)
    label_width = max(80, round(longest * CHAR_WIDTH) + 12)
    bars_width = WIDTH - label_width - 60  # what the labels leave, and room for the counts
    height = len(rows) * (BAR_HEIGHT + GAP) + 44
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f"<style>{STYLE}</style>",
        '<rect class="ground" width="100%" height="100%" rx="4"/>',
        f'<text class="title" x="8" y="20">{escape(title)}</text>',
    ]
    for index, (label, value) in enumerate(rows):
        y = 34 + index * (BAR_HEIGHT + GAP)
        bar = max(2, round(bars_width * value / top)) if value else 0
        shown = escape(label)
        if len(label) > LONGEST_LABEL:
            shown = f"<title>{shown}</title>{escape(label[: LONGEST_LABEL - 1])}…"
        parts += [
            f'<text x="{label_width - 8}" y="{y + 15}" text-anchor="end">{shown}</text>',
            f'<rect class="bar" x="{label_width}" y="{y}" width="{bar}" '
            f'height="{BAR_HEIGHT}" rx="3"/>',
            f'<text x="{label_width + bar + 6}" y="{y + 15}">{value}</text>',
        ]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
