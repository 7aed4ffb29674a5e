"""Bar charts as SVG, drawn at build time: no script, nothing fetched from the internet."""

from __future__ import annotations

from html import escape

BAR_HEIGHT = 22
GAP = 6
LABEL_WIDTH = 260
CHART_WIDTH = 420
FONT = "font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:13px"


def bar_chart(title: str, rows: list[tuple[str, int]]) -> str:
    """A horizontal bar chart; labels are escaped, colours follow the page's theme."""
    top = max((value for _, value in rows), default=0) or 1
    height = len(rows) * (BAR_HEIGHT + GAP) + 40
    width = LABEL_WIDTH + CHART_WIDTH + 60
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="18" style="{FONT};font-weight:600" fill="#555">{escape(title)}</text>',
    ]
    for index, (label, value) in enumerate(rows):
        y = 32 + index * (BAR_HEIGHT + GAP)
        bar = max(2, round(CHART_WIDTH * value / top)) if value else 0
        parts += [
            f'<text x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end" style="{FONT}" '
            f'fill="#555">{escape(label)}</text>',
            f'<rect x="{LABEL_WIDTH}" y="{y}" width="{bar}" height="{BAR_HEIGHT}" rx="3" '
            'fill="#4051b5"/>',
            f'<text x="{LABEL_WIDTH + bar + 6}" y="{y + 15}" style="{FONT}" fill="#555">'
            f"{value}</text>",
        ]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
