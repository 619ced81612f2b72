"""The explorer's HTML pieces: the summary line, a chunk's detail card, the chunk list's labels and
one stylesheet for them (classes, no inline styles). Every text from the document is escaped."""

from __future__ import annotations

import html
import json
from typing import Any

from chunkbench.app.explore import on_page
from chunkbench.evaluate.stats import quality_targets, size_summary
from chunkbench.types.chunk import Chunk
from chunkbench.types.chunkset import ChunkSet

#: the explorer's stylesheet, shown once in its widget
STYLE = """<style>
.cb-explorer .widget-hbox>.widget-vbox+.widget-vbox{margin-left:12px}
.cb-chunk-list select{font-family:ui-monospace,monospace;font-size:12px}
.cb-summary{padding:4px 6px;background:#f3f5f8;border-radius:4px}
.cb-pass{color:#1b7f3b} .cb-fail,.cb-error{color:#b00020}
.cb-detail{line-height:1.35} .cb-detail .cb-head{font-size:14px;margin:4px 0}
.cb-reason{background:#1f5fa8;color:#fff;padding:1px 6px;border-radius:3px}
.cb-note{font-size:12px;color:#555}
.cb-text{white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;max-height:220px;overflow:auto;
 background:#f7f7f5;border:1px solid #ddd;padding:6px;font-size:12px;margin:0}
.cb-fields{font-size:12px;margin-top:4px} .cb-fields td{padding:0;vertical-align:top}
.cb-fields td.cb-key{color:#555;padding:0 8px 0 0}
.cb-page-canvas{background:#fff;border:1px solid #ccc;align-items:start}
.cb-page-canvas .cb-overlay,.cb-page-canvas .cb-overlay *{pointer-events:none}
.cb-page-canvas .widget-image,.cb-page-canvas .cb-overlay{margin:0;padding:0}
</style>"""


def chunk_label(c: Chunk) -> str:
    """One line of the chunk list: index, pages, reason, size and the first words."""
    pages = "" if c.page_start is None else (
        f"p{c.page_start}" if c.page_end in (None, c.page_start) else f"p{c.page_start}-{c.page_end}")
    head = c.text.strip().replace("\n", " ")[:40]
    return f"#{c.index:<3} {pages:<5} {c.boundary.reason.value:<14} {c.char_len:>5}  {head}"


def field_row(key: str, value: Any, limit: int = 140) -> str:
    """One escaped `key: value` table row; long values (a strategy's copy of the text) are cut."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text)} chars)"
    return f"<tr><td class='cb-key'>{html.escape(key)}</td><td>{html.escape(text)}</td></tr>"


def error_html(message: str) -> str:
    return f'<span class="cb-error">{html.escape(message)}</span>'


def summary_html(cs: ChunkSet) -> str:
    """Chunk count, median and p95 size, skipped elements and the quality targets, on one line."""
    s = size_summary(cs)
    marks = []
    for t in quality_targets(cs):
        value = "–" if t.value is None else (f"{t.value:.0%}" if t.value <= 1 and "share" in t.name else f"{t.value:g}")
        cls = "cb-pass" if t.passed else "cb-fail"
        marks.append(f'<span class="{cls}" title="expected {html.escape(t.expected)}">'
                     f'{"✔" if t.passed else "✘"} {html.escape(t.name)} {value}</span>')
    med = "–" if s.chars.median is None else f"{s.chars.median:g}"
    p95 = "–" if s.chars.p95 is None else f"{s.chars.p95:g}"
    return (f'<div class="cb-summary"><b>{s.count}</b> chunks · median <b>{med}</b> chars · p95 <b>{p95}</b> '
            f"chars · {len(cs.skipped)} elements skipped &nbsp;|&nbsp; " + " &nbsp; ".join(marks) + "</div>")


def detail_html(cs: ChunkSet, selected: int | None, page: int) -> str:
    """The selected chunk's card: why it starts here, its text, fields and metadata; or a hint."""
    e = html.escape
    if selected is None:
        count = sum(on_page(c, page) for c in cs)
        return f"<i>{count} chunks on page {page}. Select one to see its text and reason.</i>"
    c = cs[selected]
    spans = ""
    if c.page_start is not None and (c.page_end or c.page_start) > c.page_start:
        spans = f'<div class="cb-note">spans pages {c.page_start}–{c.page_end}; this is page {page}</div>'
    fields = {k: v for k, v in c.to_dict().items() if k not in ("text", "boundary", "bbox", "metadata")}
    rows = "".join(field_row(k, v) for k, v in fields.items())
    meta = "".join(field_row(k, v) for k, v in c.metadata.items())
    return (
        '<div class="cb-detail">'
        f'<div class="cb-head">Chunk <b>#{c.index}</b> starts here because '
        f'<code class="cb-reason">{e(c.boundary.reason.value)}</code> {e(c.boundary.detail)}</div>{spans}'
        f'<pre class="cb-text">{e(c.text)}</pre>'
        f'<table class="cb-fields">{rows}</table>'
        + (f'<div style="margin-top:4px"><b>metadata</b></div><table class="cb-fields">{meta}</table>' if meta else "")
        + "</div>"
    )
