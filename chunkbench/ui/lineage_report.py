"""The lineage of two versions as an HTML page (`chunkbench lineage OLD NEW --html DIR`): the
summary, one table row per link that is not `unchanged`, and the pages of both versions side by
side with each chunk drawn in the colour of its kind (ui.render.lineagepages). All text escaped."""

from __future__ import annotations

import os
from pathlib import Path

from chunkbench.evaluate.lineage import Lineage
from chunkbench.io.atomic import write_text
from chunkbench.text.segment import one_line
from chunkbench.types.chunkset import ChunkSet

from .render.lineagepages import KIND_COLORS, changed_pages, render_lineage
from .report import _esc, html_page

#: pages drawn per side at most (a whole new manual is a table, not 300 images)
MAX_PAGES = 40


def _links_table(result: Lineage, old: ChunkSet, new: ChunkSet) -> str:
    text = {c.chunk_id: c for c in (*old.chunks, *new.chunks)}

    def chunks(ids) -> str:
        return "".join(f"<details><summary><code>{text[i].index}</code> {_esc(one_line(text[i].text, 80))}</summary>"
                       f"<pre>{_esc(text[i].text)}</pre></details>" for i in ids if i in text)

    def pages(p) -> str:
        return "" if not p or p[0] is None else (f"{p[0]}" if p[0] == p[1] else f"{p[0]}–{p[1]}")

    rows = "".join(
        f'<tr><td><b style="color:rgb{KIND_COLORS[m.kind]}">{_esc(m.kind)}</b></td><td>{m.similarity:.2f}</td>'
        f"<td>{_esc(pages(m.old_pages))}</td><td class=wrap>{chunks(m.old)}</td>"
        f"<td>{_esc(pages(m.new_pages))}</td><td class=wrap>{chunks(m.new)}</td></tr>"
        for m in result.links if m.kind != "unchanged")
    if not rows:
        return '<p class="meta" style="padding:0 20px">Every chunk is unchanged.</p>'
    return ('<div class="wide"><table class="reasons"><tr><th>kind</th><th>similarity</th><th>old pages</th>'
            f"<th>old chunks</th><th>new pages</th><th>new chunks</th></tr>{rows}</table></div>")


def _side(result: Lineage, chunks: ChunkSet, side: str, out: Path, dpi: float) -> str:
    if not chunks.doc.pdf_path:
        return f'<p class="meta">{_esc(chunks.doc.source)} has no pages to draw (not a PDF).</p>'
    pages = changed_pages(result, chunks, side)
    figures = []
    for page in pages[:MAX_PAGES]:
        img = render_lineage(result, chunks, page, side, dpi=dpi)
        name = f"{side}-page-{page:03d}.png"
        img.save(out / name)
        figures.append(f'<figure style="max-width:{img.width}px"><img src="{name}" width="{img.width}" '
                       f'height="{img.height}" alt="{side} page {page}"><figcaption>{side} version, page {page}'
                       "</figcaption></figure>")
    more = f'<p class="meta">and {len(pages) - MAX_PAGES} more pages</p>' if len(pages) > MAX_PAGES else ""
    return "".join(figures) + more or '<p class="meta">no page with a change</p>'


def write_lineage_report(result: Lineage, old: ChunkSet, new: ChunkSet, out_dir: str | os.PathLike, *,
                         dpi: float = 80) -> Path:
    """index.html (written last) and a PNG per changed page of each version in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    legend = " ".join(f'<b style="color:rgb{color}">{kind}</b>' for kind, color in KIND_COLORS.items())
    head = (f"<h1>{_esc(old.doc.source)} → {_esc(new.doc.source)}: lineage</h1><div class=\"meta\">"
            f"{_esc(result.summary())} · {legend}</div>")
    body = (f'<section style="padding:8px 20px"><h2>What changed</h2>{_links_table(result, old, new)}</section>'
            '<section class="page diff" style="display:flex;gap:16px;align-items:flex-start">'
            f'<div style="flex:1;min-width:0"><h2>Old: {_esc(old.doc.source)}</h2>{_side(result, old, "old", out, dpi)}</div>'
            f'<div style="flex:1;min-width:0"><h2>New: {_esc(new.doc.source)}</h2>{_side(result, new, "new", out, dpi)}</div>'
            "</section>")
    return write_text(out / "index.html", html_page(f"{old.doc.source} → {new.doc.source} lineage", head, body))
