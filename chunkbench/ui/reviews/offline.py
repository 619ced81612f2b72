"""An HTML pane whose updates never link cdn.holoviz.org while Panel is inline (in a notebook).

Panel inlines a pane's stylesheets when a notebook first renders it, but every later change of
`object` re-sends the pane's stylesheets as links to cdn.holoviz.org (theme default.css,
native.css, loading.css), which an offline JupyterLab cannot reach (Panel 1.9.4). This pane
sends them as inline stylesheets instead, one instance per document and URL, so each update
re-sends a reference, not the CSS.
"""

from __future__ import annotations

import weakref
from typing import Any

import panel as pn
from bokeh.document import Document
from bokeh.models import ImportedStyleSheet
from panel.io.notebook import replace_inline_css

#: per document: stylesheet URL → the stylesheet that replaces it (inline when Panel has the file)
_INLINED: weakref.WeakKeyDictionary[Document, dict[str, Any]] = weakref.WeakKeyDictionary()


def inline_stylesheets(sheets: list[Any], doc: Document) -> list[Any]:
    """`sheets` with every stylesheet Panel links from its CDN replaced by the same CSS inline."""
    cache = _INLINED.setdefault(doc, {})
    out = []
    for sheet in sheets:
        if isinstance(sheet, ImportedStyleSheet):
            if sheet.url not in cache:
                cache[sheet.url] = replace_inline_css(sheet)
            sheet = cache[sheet.url]
        out.append(sheet)
    return out


class OfflineHTML(pn.pane.HTML):
    """`pn.pane.HTML` that keeps its stylesheets inline on every update while `pn.config.inline`."""

    def _get_properties(self, doc: Document | None) -> dict[str, Any]:
        props = super()._get_properties(doc)
        if pn.config.inline and doc is not None and props.get("stylesheets"):
            props["stylesheets"] = inline_stylesheets(props["stylesheets"], doc)
        return props
