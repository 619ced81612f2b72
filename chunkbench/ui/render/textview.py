"""The text view: for inputs with no PDF (Markdown, document.json without bboxes).

The canonical text is shown once, cut into one row per chunk (from its start to the next chunk's
start); the chunk's span is coloured in its palette colour, text it shares with the previous chunk
(overlap) is striped in both colours, text no chunk contains (skipped noise) is grey. The margin of
each row gives the chunk number, its reason code and the reason's detail. Everything is escaped.
"""

from __future__ import annotations

import html

from chunkbench.types.document import Document

from .palette import chunk_color

STYLE = """
.cbtv{font:13px/1.45 system-ui,sans-serif;color:#111}
.cbtv-row{display:grid;grid-template-columns:13em 1fr;gap:.8em;border-top:3px solid var(--c);padding:.3em 0}
.cbtv-m{font-size:12px;color:#333;overflow-wrap:anywhere}
.cbtv-m b{display:inline-block;min-width:2em;padding:0 .3em;border-radius:3px;background:var(--c);color:var(--f)}
.cbtv-m code{font-size:11px}
.cbtv-t{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px;overflow-wrap:anywhere}
.cbtv-in{background:var(--bg)}
.cbtv-ov{background:repeating-linear-gradient(135deg,var(--bg) 0 6px,var(--pbg) 6px 12px);outline:1px dashed #444}
.cbtv-gap{color:#888;background:#eee;text-decoration:line-through}
"""


def _vars(index: int) -> str:
    r, g, b = chunk_color(index)
    fg = "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#fff"
    return f"--c:rgb({r},{g},{b});--bg:rgba({r},{g},{b},.2);--f:{fg}"


def render_text_view(doc: Document, chunks, *, standalone: bool = False) -> str:
    """HTML (escaped) of `doc`'s canonical text with `chunks`' spans coloured and reasons in the margin.

    `standalone=True` returns a whole HTML page, otherwise a fragment with its own <style>."""
    text = doc.text
    cl = list(chunks)
    parts = [f"<style>{STYLE}</style>", '<div class="cbtv">']
    if not cl:
        parts.append('<div class="cbtv-row" style="--c:#bbb"><div class="cbtv-m">no chunks</div>'
                     f'<div class="cbtv-t"><span class="cbtv-gap">{html.escape(text)}</span></div></div>')
    elif all(c.start_char is not None and c.end_char is not None for c in cl):
        order = sorted(cl, key=lambda c: (c.start_char, c.index))
        if order[0].start_char > 0:
            before = html.escape(text[:order[0].start_char])
            parts.append('<div class="cbtv-row" style="--c:#bbb"><div class="cbtv-m">before the first chunk</div>'
                         f'<div class="cbtv-t"><span class="cbtv-gap">{before}</span></div></div>')
        for i, c in enumerate(order):
            row_end = order[i + 1].start_char if i + 1 < len(order) else max(len(text), c.end_char)
            row_end = max(row_end, c.start_char)
            prev = order[i - 1] if i else None
            prev_end = prev.end_char if prev is not None else c.start_char
            cuts = sorted({c.start_char, row_end, *(p for p in (prev_end, c.end_char) if c.start_char < p < row_end)})
            spans = []
            for a, b in zip(cuts, cuts[1:]):
                piece = html.escape(text[a:b])
                if a >= c.end_char:
                    spans.append(f'<span class="cbtv-gap" title="in no chunk">{piece}</span>')
                elif prev is not None and a < prev_end:
                    pr, pg, pb = chunk_color(prev.index)
                    spans.append(f'<span class="cbtv-ov" style="--pbg:rgba({pr},{pg},{pb},.3)" '
                                 f'title="overlap: also in chunk {prev.index}">{piece}</span>')
                else:
                    spans.append(f'<span class="cbtv-in">{piece}</span>')
            parts.append(_row(c, "".join(spans)))
    else:
        for c in cl:
            parts.append(_row(c, f'<span class="cbtv-in">{html.escape(c.text)}</span>'))
    parts.append("</div>")
    body = "\n".join(parts)
    if not standalone:
        return body
    title = html.escape(f"{doc.source} — chunks")
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body>{body}</body></html>")


def _row(c, inner: str) -> str:
    section = " › ".join(c.section_path)
    meta = [f"<b>{c.index}</b> <code>{html.escape(c.boundary.reason.value)}</code>",
            html.escape(c.boundary.detail)]
    if section:
        meta.append(f"<i>{html.escape(section)}</i>")
    meta.append(f"{html.escape(c.type)} · {len(c.text)} chars · {c.tokens_est} tokens")
    return (f'<div class="cbtv-row" id="chunk-{c.index}" style="{_vars(c.index)}">'
            f'<div class="cbtv-m">{"<br>".join(meta)}</div><div class="cbtv-t">{inner}</div></div>')


def page_or_text_view(doc, chunkset, page: int = 1):
    """What a notebook shows for one page: the PDF page with the chunk overlay (page clamped to
    the document), or the coloured text view for inputs without a PDF (Markdown, document.json)."""
    import os

    from .overlay import render_page

    if doc.pdf_path and os.path.exists(doc.pdf_path):
        last = max(1, len(doc.pages))
        return render_page(doc, chunkset, page=min(max(1, int(page)), last))
    view = render_text_view(doc, chunkset)
    try:
        from IPython.display import HTML
    except ImportError:  # outside Jupyter: the HTML text itself
        return view
    return HTML(view)

