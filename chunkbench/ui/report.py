"""The static HTML report of `chunkbench render`: one PNG overlay per page plus a self-contained index.html.

For each page the overlay sits on the left (its chunk regions are links) and that page's chunks on
the right: number, type, reason and detail, section path, clause ref, pages, tokens, a preview and
the full text on click. Inline CSS/JS only (no external URLs) and every document string escaped,
so the folder can be zipped and opened anywhere. Each file is written atomically and index.html
last, so a reader never sees a report pointing at missing images. Inputs without a PDF get the
text view (`render_text_view`) instead of page images.
"""

from __future__ import annotations

import html
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from chunkbench.errors import UsageError
from chunkbench.evaluate.diff import STATUSES, BoundaryDiff, describe
from chunkbench.io.atomic import write_text
from chunkbench.text.segment import one_line
from chunkbench.types.chunk import REASON_DOCS, Chunk
from chunkbench.types.chunkset import jsonable_params
from chunkbench.types.document import Document
from chunkbench.version import __version__

from .render import Region

CSS = """
*{box-sizing:border-box}body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#111;background:#f6f6f4}
header.top{padding:12px 20px;background:#fff;border-bottom:1px solid #ddd;position:sticky;top:0;z-index:5}
header.top h1{font-size:18px;margin:0 0 4px}header.top nav a{margin-right:6px}
.meta{color:#444;font-size:13px}code{font-size:12px;background:#eee;padding:0 3px;border-radius:3px}
section.page{display:flex;flex-wrap:wrap;gap:18px;padding:16px 20px;border-bottom:1px solid #ddd;align-items:flex-start}
figure{margin:0;flex:1 1 auto;min-width:0;background:#fff;box-shadow:0 1px 4px #0003}.pic{position:relative}
figure img{display:block;width:100%;height:auto}figure a.hit{position:absolute;display:block}
section.page,article.card{scroll-margin-top:96px}
figure a.hit:hover,figure a.hit.on{outline:3px solid #000;background:#0001}
figcaption{font-size:12px;color:#555;padding:4px}
.cards{flex:1 1 340px;min-width:320px;display:flex;flex-direction:column;gap:8px}
section.page.diff{display:block}section.page.diff figure{margin-bottom:12px}section.page.diff .cards{min-width:0}
.wide{overflow-x:auto;max-width:100%}td.wrap{min-width:14em;max-width:32em}
article.card{background:#fff;border-left:8px solid var(--c);border-radius:4px;padding:8px 10px;box-shadow:0 1px 2px #0002}
article.card.on{outline:3px solid var(--c)}
.num{display:inline-block;min-width:2.2em;text-align:center;font-weight:700;border-radius:3px;background:var(--c);color:var(--f)}
.kv{font-size:12px;color:#333}.kv b{color:#000;font-weight:600}
.preview{font-size:13px;color:#222;margin:4px 0}
details pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;background:#fafafa;border:1px solid #eee;padding:6px;max-height:30em;overflow:auto}
table.reasons{border-collapse:collapse;font-size:12px}table.reasons td{padding:1px 8px 1px 0;vertical-align:top}
"""

JS = """
function cbSelect(id){document.querySelectorAll('.on').forEach(function(e){e.classList.remove('on')});
var card=document.getElementById(id);if(card){card.classList.add('on');}
document.querySelectorAll('a.hit[data-card="'+id+'"]').forEach(function(e){e.classList.add('on')});}
document.addEventListener('click',function(ev){var a=ev.target.closest('a.hit');if(a){cbSelect(a.dataset.card);}
var c=ev.target.closest('article.card');if(c&&!ev.target.closest('details')){cbSelect(c.id);}});
"""


def parse_pages(spec: str | None, page_count: int) -> list[int]:
    """'1-5', '2,4,7-9' or 'all' → sorted 1-based page numbers; UsageError when out of range."""
    if spec is None or spec.strip().lower() in ("", "all"):
        return list(range(1, page_count + 1))
    pages: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        lo, sep, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if sep else a
        except ValueError:
            raise UsageError(f"--pages expects ranges like 1-5 or 2,4,7-9, got {spec!r}") from None
        if a < 1 or b < a or b > page_count:
            raise UsageError(f"--pages {part!r} is outside the document's pages 1-{page_count}")
        pages.update(range(a, b + 1))
    return sorted(pages)


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def color_vars(index: int) -> str:
    """CSS variables of chunk `index`'s palette colour (fill and readable text colour)."""
    from .render.palette import chunk_color, label_color

    r, g, b = chunk_color(index)
    fr, fg, fb = label_color((r, g, b))
    return f"--c:rgb({r},{g},{b});--f:rgb({fr},{fg},{fb})"


def chunk_card(c: Chunk, card_id: str, page: int | None = None) -> str:
    """One chunk as an HTML card (all text escaped)."""
    rows = [f"<b>reason</b> <code>{_esc(c.boundary.reason.value)}</code> {_esc(c.boundary.detail)}"]
    if c.section_path:
        rows.append(f"<b>section</b> {_esc(' › '.join(c.section_path))}")
    clause = c.extra.get("clause_ref")
    if clause:
        rows.append(f"<b>clause</b> {_esc(clause)}")
    pages = "–".join(str(p) for p in sorted({p for p in (c.page_start, c.page_end) if p is not None})) or "?"
    cont = ""
    if page is not None and c.page_start is not None and c.page_start < page:
        cont = f" (continues from p.{c.page_start})"
    rows.append(f"<b>pages</b> {_esc(pages)}{_esc(cont)} · <b>tokens</b> {c.tokens_est} · <b>chars</b> {len(c.text)}"
                f" · <b>id</b> <code>{_esc(c.chunk_id)}</code>")
    return (
        f'<article class="card" id="{_esc(card_id)}" style="{color_vars(c.index)}">'
        f'<div><span class="num">{c.index}</span> <b>{_esc(c.type)}</b></div>'
        + "".join(f'<div class="kv">{r}</div>' for r in rows)
        + f'<div class="preview">{_esc(one_line(c.text, 240))}</div>'
        f"<details><summary>full text</summary><pre>{_esc(c.text)}</pre></details></article>"
    )


def reasons_table(chunks: Iterable[Chunk]) -> str:
    """The reason codes used, how often, and what each means."""
    counts: dict[str, int] = {}
    for c in chunks:
        counts[c.boundary.reason.value] = counts.get(c.boundary.reason.value, 0) + 1
    rows = "".join(
        f"<tr><td><code>{_esc(r)}</code></td><td>{n}</td><td>{_esc(REASON_DOCS.get(r, ''))}</td></tr>"
        for r, n in sorted(counts.items(), key=lambda kv: -kv[1])
    )
    return f'<table class="reasons">{rows}</table>'


def html_page(title: str, head: str, body: str) -> str:
    """A self-contained HTML document with the report's CSS and JS inline."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)}</title><style>{CSS}</style></head><body>"
        f'<header class="top">{head}</header>{body}'
        f"<footer class=\"meta\" style=\"padding:12px 20px\">made by chunkbench {_esc(__version__)}</footer>"
        f"<script>{JS}</script></body></html>\n"
    )


def figure_html(png_name: str, img, hits: Sequence[tuple[str, Region]], caption: str) -> str:
    """An overlay image with its regions as links (percent positions, so the image can scale).

    The figure is as wide as the window allows, up to the image's own width (labels are drawn at
    their intended size there); the chunk cards wrap below it when the window is narrow."""
    w, h = img.width, img.height
    links = []
    for card_id, r in hits:
        links.append(
            f'<a class="hit" href="#{_esc(card_id)}" data-card="{_esc(card_id)}" title="{_esc(r.label)}" '
            f'style="left:{100 * r.x0 / w:.3f}%;top:{100 * r.y0 / h:.3f}%;'
            f'width:{100 * (r.x1 - r.x0) / w:.3f}%;height:{100 * (r.y1 - r.y0) / h:.3f}%"></a>'
        )
    return (
        f'<figure style="max-width:{w}px"><div class="pic"><img src="{_esc(png_name)}" width="{w}" '
        f'height="{h}" loading="lazy" alt="{_esc(caption)}">{"".join(links)}</div><figcaption>{_esc(caption)}</figcaption></figure>'
    )


def write_report(doc: Document, chunks, out_dir: str | os.PathLike, *, pages: Sequence[int] | None = None,
                 dpi: float = 100, show: Iterable[str] | None = None, elements_of: Document | None = None,
                 gold: Any = None) -> Path:
    """Write page PNGs and index.html for `chunks` of `doc` into `out_dir`; returns index.html's path.

    `pages`: 1-based pages (default all); `elements_of`: a second parse of the same PDF drawn as
    a dashed element layer (adds `elements` to `show`); `gold`: the document's Gold (`cb.gold`), whose
    disagreements with the parse are drawn as the `gold` layer and listed. Documents without a PDF
    get the text view."""
    from .render import DEFAULT_SHOW, chunks_on_page, render_page, render_text_view
    from .render.overlay import chunkset_defects

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chunk_list = list(chunks)
    params = jsonable_params(getattr(chunks, "params", {}) or {})
    strategy = getattr(chunks, "strategy", "")
    params_text = ", ".join(f"{k}={v}" for k, v in params.items())
    skipped = getattr(chunks, "skipped", {}) or {}
    title = f"{doc.source} — {strategy}"
    summary = (f'<div class="meta">strategy <code>{_esc(strategy)}</code> {_esc(params_text)} · '
               f"{len(chunk_list)} chunks · {len(skipped)} skipped elements · parser {_esc(doc.parser.name)}</div>")
    if not doc.pdf_path:
        head = f"<h1>{_esc(title)}</h1>{summary}"
        body = (f'<section style="padding:16px 20px">{reasons_table(chunk_list)}'
                f'<p class="meta">No PDF behind this input: the text view shows each chunk\'s span of the '
                f"document text, overlaps striped, text in no chunk struck through.</p>"
                f"{render_text_view(doc, chunk_list)}</section>")
        return write_text(out / "index.html", html_page(title, head, body))
    page_list = list(pages) if pages is not None else [p.index + 1 for p in doc.pages]
    layers = tuple(show or DEFAULT_SHOW) + (("elements",) if elements_of is not None else ())
    findings = chunkset_defects(chunks) if "defects" in layers else []
    differ = None
    if gold is not None:
        from chunkbench.evaluate.gold.disagree import disagreements

        differ = disagreements(doc, gold)
    sections = []
    for page in page_list:
        img = render_page(doc, chunks, page=page, dpi=dpi, show=layers, elements_of=elements_of, defects=findings,
                          gold=differ)
        name = f"page-{page:03d}.png"
        img.save(out / name)
        on_page = chunks_on_page(chunk_list, page)
        hits = [(f"p{page}-c{r.chunk_index}", r) for r in img.regions
                if r.kind == "chunk" and r.chunk_index is not None]
        cards = "".join(chunk_card(c, f"p{page}-c{c.index}", page) for c in on_page) or \
            '<p class="meta">no chunk on this page</p>'
        fig = figure_html(name, img, hits, f"page {page}: {len(on_page)} chunks")
        sections.append(f'<section class="page" id="page-{page}">{fig}<div class="cards">'
                        f"<h2>Page {page}</h2>{cards}</div></section>")
    nav = "".join(f'<a href="#page-{p}">{p}</a>' for p in page_list)
    head = f"<h1>{_esc(title)}</h1>{summary}<nav class=\"meta\">pages: {nav}</nav>"
    body = (f'<section style="padding:8px 20px"><details><summary>reason codes</summary>'
            f"{reasons_table(chunk_list)}</details>{defects_table(findings)}{gold_table(doc, differ)}</section>"
            + "".join(sections))
    return write_text(out / "index.html", html_page(title, head, body))


def gold_table(doc: Document, found) -> str:
    """The parse's disagreements with the twin drawn on the pages (code, page, what the twin says), folded."""
    if found is None:
        return ""
    from chunkbench.evaluate.gold.disagree import DISAGREEMENTS
    from chunkbench.evaluate.retrieval import pages_of

    def page_of(d) -> str:
        e = doc.element_at(d.start)
        return ", ".join(str(p) for p in sorted(pages_of(e))) if e is not None else ""

    rows = "".join(f"<tr><td><code>{_esc(d.code)}</code></td><td>{_esc(page_of(d))}</td><td>{_esc(d.detail)}</td></tr>"
                   for d in found)
    codes = "".join(f"<li><code>{_esc(k)}</code>: {_esc(v)}</li>" for k, v in DISAGREEMENTS.items())
    return (f"<details><summary>{len(found)} place(s) where the parse and the structured twin disagree (boxed in "
            f"violet on the pages; docs/gold.md)</summary><ul>{codes}</ul><table><tr><th>code</th><th>page</th>"
            f"<th>what</th></tr>{rows}</table></details>")


def defects_table(findings) -> str:
    """The defects drawn on the pages, one row each (code, chunks, place, what is wrong), folded."""
    if not findings:
        return ""
    rows = "".join(f"<tr><td><code>{_esc(f.code.value)}</code></td><td>{_esc(', '.join(f'#{i}' for i in f.chunks))}"
                   f"</td><td>{_esc(f.place)}</td><td>{_esc(f.detail)}</td></tr>" for f in findings)
    n = len(findings)
    return (f"<details><summary>{n} defect{'s' if n != 1 else ''} (boxed in red on the pages; docs/defects.md)</summary>"
            f"<table><tr><th>defect</th><th>chunks</th><th>where</th><th>what</th></tr>{rows}</table></details>")


# --- the boundary diff report ---------------------------------------------------------------------


def _missing(value) -> bool:
    """None, NaN or pandas NA (cells of absent a- or b- boundaries)."""
    import pandas as pd

    return value is None or bool(pd.isna(value))


def _changes_table(rows) -> str:
    """HTML table of diff rows (escaped)."""
    cols = ("status", "position", "shift", "chunk_a", "reason_a", "detail_a", "chunk_b", "reason_b", "detail_b",
            "context")
    head = "".join(f"<th>{c}</th>" for c in ("status", "pos", "shift", "a", "reason a", "detail a", "b", "reason b",
                                             "detail b", "text at the cut"))
    wrapped = {"detail_a", "detail_b", "context"}  # text columns: room for words, not one per line

    def cell(c, v) -> str:
        return f"<td{' class=wrap' if c in wrapped else ''}>{_esc('' if _missing(v) else v)}</td>"

    body = "".join(
        "<tr>" + "".join(cell(c, getattr(r, c)) for c in cols) + "</tr>" for r in rows.astype(object).itertuples()
    )
    return f'<div class="wide"><table class="reasons"><tr>{head}</tr>{body}</table></div>'


def write_diff_report(d: BoundaryDiff, out_dir: str | os.PathLike, *, dpi: float = 100) -> Path:
    """Write diff.csv, one PNG per page with changed boundaries, and index.html (last) into `out_dir`."""
    from .render.diffpages import render_diff

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = d.table
    write_text(out / "diff.csv", table.to_csv(index=False))
    counts = d.counts
    per_page = d.counts_per_page
    head = (f"<h1>{_esc(d.doc.source)}: boundary diff</h1><div class=\"meta\">"
            f"<b style=\"color:#1f5ab4\">a</b> <code>{_esc(describe(d.a))}</code> ({len(d.a)} chunks) · "
            f"<b style=\"color:#dc5a00\">b</b> <code>{_esc(describe(d.b))}</code> ({len(d.b)} chunks) · "
            + " · ".join(f"{k} {v}" for k, v in counts.items())
            + f" · moved = within {d.window} chars or same element</div>")
    drawn = set(d.changed_pages()) if d.doc.pdf_path else set()  # the pages drawn below: each row links its own
    rows = "".join(
        (f'<tr><td><a href="#page-{p}">{p}</a></td>' if p in drawn else f"<tr><td>{p}</td>")
        + "".join(f"<td>{int(r[c])}</td>" for c in (*STATUSES, "a", "b")) + "</tr>"
        for p, r in per_page.iterrows()
    )
    summary = ('<section style="padding:8px 20px"><table class="reasons"><tr><th>page</th>'
               + "".join(f"<th>{c}</th>" for c in (*STATUSES, "a", "b")) + f"</tr>{rows}</table>"
               f'<p class="meta">Full table: <a href="diff.csv">diff.csv</a></p></section>')
    sections = []
    if not d.doc.pdf_path:  # Markdown / document.json: no page images, one table of the changes
        changed = table[table["status"] != "stayed"]
        sections.append(f'<section style="padding:8px 20px"><h2>Changed boundaries</h2>'
                        f"{_changes_table(changed)}</section>")
    for page in (d.changed_pages() if d.doc.pdf_path else ()):
        img = render_diff(d, page, dpi=dpi)
        name = f"diff-page-{page:03d}.png"
        img.save(out / name)
        here = (table["page"] == page).fillna(False) | (
            (table["status"] == "appeared") & (table["page_b"] == page).fillna(False))
        page_rows = table[here.astype(bool)]
        changes = _changes_table(page_rows[page_rows["status"] != "stayed"])
        sections.append(
            f'<section class="page diff" id="page-{page}"><figure style="max-width:{img.width}px"><img src="{name}" '
            f'width="{img.width}" height="{img.height}" alt="page {page}"><figcaption>page {page}</figcaption>'
            f'</figure><div class="cards"><h2>Page {page}</h2>{changes}</div></section>'
        )
    if not sections:
        sections.append('<p class="meta" style="padding:0 20px">No boundary changed.</p>')
    return write_text(out / "index.html", html_page(f"{d.doc.source} boundary diff", head, summary + "".join(sections)))


def write_citation_report(doc: Document, citation, out_dir: str | os.PathLike, *, dpi: float = 100) -> Path:
    """index.html and a PNG per page a Citation crosses, its words' lines highlighted (the text
    itself, marked, for an input without a PDF); returns index.html's path."""
    from .render import render_page

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    title = f"{doc.source} — quote"
    where = (f"{_esc(citation.kind)}, characters {citation.start}–{citation.end}"
             + (f", page(s) {', '.join(map(str, citation.pages))}" if citation.pages else ""))
    head = (f"<h1>{_esc(title)}</h1><div class=\"meta\">{where}"
            + (f" · found {citation.share:.0%}: “{_esc(citation.found_part)}”" if citation.found_part else "")
            + f"</div><blockquote>{_esc(citation.quote)}</blockquote>")
    sections = []
    if not doc.pdf_path or not citation.pages:
        a, b = citation.start or 0, citation.end or 0
        sections.append(f'<section style="padding:16px 20px"><p>{_esc(doc.text[max(0, a - 200):a])}'
                        f'<mark>{_esc(doc.text[a:b])}</mark>{_esc(doc.text[b:b + 200])}</p></section>')
    for page in citation.pages:
        img = render_page(doc, None, page=page, dpi=dpi, cite=citation)
        name = f"page-{page:03d}.png"
        img.save(out / name)
        sections.append(f'<section class="page" id="page-{page}">'
                        f"{figure_html(name, img, [], f'page {page}: the quote highlighted')}</section>")
    return write_text(out / "index.html", html_page(title, head, "".join(sections)))
