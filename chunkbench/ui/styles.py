"""Inline styles the explorer (ipywidgets) and the review app (Panel) share: their HTML panes work
offline and outside any theme, so what they look like travels with the element, written once here."""

from __future__ import annotations

#: a note that something is not final or is carried over (pale yellow band)
BANNER_STYLE = "background:#fff4d6;padding:4px 8px"
#: a block of document text: wrapped, scrolled past 210 px, on a pale panel
TEXT_STYLE = ("white-space:pre-wrap;font-size:12.5px;line-height:1.35;max-height:210px;overflow:auto;"
              "background:#f7f7f5;border:1px solid #ddd;padding:6px 8px;margin:0")


def banner(inner_html: str, css_class: str) -> str:
    """`inner_html` (already escaped) in the shared banner style."""
    return f'<div class="{css_class}" style="{BANNER_STYLE}">{inner_html}</div>'
