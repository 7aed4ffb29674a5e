"""A superfences format for BibTeX blocks: plain (no Pygments spans) and kept out of the
search index, so that searches land on entries rather than on their citations.

    custom_fences:
      - name: bibtex
        class: bibtex
        format: !!python/name:mlsys_kb.render.fences.bibtex_block
"""

from __future__ import annotations

from html import escape
from typing import Any


def bibtex_block(
    source: str, language: str, class_name: str, options: Any, md: Any, **kwargs: Any
) -> str:
    return (
        f'<pre class="{escape(class_name)}" data-search-exclude><code>'
        f"{escape(source, quote=False)}</code></pre>"
    )
