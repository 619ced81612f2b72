"""Retrieval misses shown: for each question a setting misses, the page with the reference span
marked over the chunk overlay (boundaries and their reasons), the evidence text with every cut in
it marked, and the chunks retrieved instead; a table of misses by the reason of the cut that split
the evidence. As HTML for the notebook (`MissesView`) and as a static report
(`write_misses_report`, which `chunkbench evaluate -o` writes). Every text is escaped.
"""

from __future__ import annotations

import base64
import html
import os
from collections.abc import Sequence
from pathlib import Path

from chunkbench.app.sweep.grid import slug
from chunkbench.errors import ChunkbenchError
from chunkbench.evaluate.misses import NOT_SPLIT, Miss, cause_table, find_misses, judged, resolve_questions
from chunkbench.io.atomic import write_bytes, write_text
from chunkbench.text.segment import one_line
from chunkbench.types.chunk import REASON_DOCS
from chunkbench.types.chunkset import ChunkSet

from .report import CSS as REPORT_CSS
from .report import chunk_card, color_vars, html_page

#: pages of one miss drawn at most (evidence spanning more shows its first pages)
MAX_PAGES = 2

CSS = """
.miss{background:#fff;margin:14px 20px;padding:10px 14px;border-radius:4px;box-shadow:0 1px 3px #0002}
.miss h2{font-size:15px;margin:0 0 6px}.miss .q{font-size:15px}
.evidence{white-space:pre-wrap;background:#fffbe6;border:1px solid #e8d48a;padding:6px 8px;font-size:13px}
.evidence .cut{background:#c81e1e;color:#fff;border-radius:3px;padding:0 4px;margin:0 2px;font-size:11px}
.pages{display:flex;flex-wrap:wrap;gap:12px;margin:8px 0}.pages img{max-width:100%;height:auto;border:1px solid #ccc}
.retrieved{display:flex;flex-direction:column;gap:6px}
table.causes{border-collapse:collapse;font-size:13px;margin:8px 20px}table.causes td,table.causes th{border:1px solid #ccc;padding:2px 8px}
"""


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def miss_images(chunkset: ChunkSet, miss: Miss, dpi: float = 80) -> list[tuple[int, bytes]]:
    """(page, PNG) of each page the evidence lies on (at most MAX_PAGES): the chunk overlay with
    the reference span outlined and tinted; none for an input without a PDF."""
    from chunkbench.loaders.regions import word_lines

    from .render import render_page
    from .render.overlay import draw_quote

    doc = chunkset.doc
    if not doc.pdf_path:
        return []
    boxes = [b for a, z in miss.spans for b in word_lines(doc, a, z)]
    out: list[tuple[int, bytes]] = []
    for page in sorted({b.page for b in boxes})[:MAX_PAGES]:
        try:
            img = render_page(doc, chunkset, page=page, dpi=dpi)
        except ChunkbenchError:  # the PDF moved since it was parsed: the text view still explains
            return out
        draw_quote(img, boxes, label="evidence")
        out.append((page, img.png()))
    return out


def evidence_html(chunkset: ChunkSet, miss: Miss) -> str:
    """The reference text with a marker at every cut inside it (chunk number and reason)."""
    text = chunkset.doc.text
    parts = []
    for a, z in miss.spans:
        pos, pieces = a, []
        for cut in (c for c in miss.cuts if a < c.position < z):
            pieces.append(_esc(text[pos:cut.position]))
            pieces.append(f'<span class="cut" title="{_esc(cut.detail)}">✂ #{cut.chunk_index} {_esc(cut.reason)}</span>')
            pos = cut.position
        pieces.append(_esc(text[pos:z]))
        parts.append("".join(pieces))
    return '<div class="evidence">' + "<br>…<br>".join(parts) + "</div>"


def miss_html(chunkset: ChunkSet, miss: Miss, images: Sequence[tuple[int, str]]) -> str:
    """One miss as an HTML section; `images` are (page, src) of its page pictures."""
    chunks = chunkset.chunks
    why = ("no boundary cuts the evidence: it lies in " + ", ".join(f"#{i}" for i in miss.holding)
           + ", which ranked below the chunks retrieved" if not miss.cuts else
           "the evidence is cut at " + "; ".join(f"#{c.chunk_index} ({c.reason}: {c.detail})" for c in miss.cuts))
    retrieved = []
    for rank, i in enumerate(miss.retrieved, 1):
        c = chunks[i]
        has = " · holds part of the evidence" if i in miss.holding else ""
        retrieved.append(f'<div class="kv"><b>{rank}.</b> <span class="num" style="{color_vars(i)}">{i}</span> '
                         f'p.{_esc(c.page_start)} · {_esc(c.boundary.reason.value)}{_esc(has)} — '
                         f'{_esc(one_line(c.text, 160))}</div>')
    pics = "".join(f'<figure><img src="{_esc(src)}" alt="page {p} with the evidence of {_esc(miss.question_id)} '
                   f'marked"><figcaption>page {p}</figcaption></figure>' for p, src in images)
    missing = [chunk_card(chunks[i], f"m-{miss.question_id}-{i}") for i in miss.holding if i not in miss.retrieved]
    return (f'<section class="miss" id="miss-{_esc(miss.question_id)}"><h2>{_esc(miss.question_id)}: token recall '
            f'{100 * miss.token_recall:.0f}% · cause <code>{_esc(miss.cause)}</code></h2>'
            f'<div class="q">{_esc(miss.question)}</div><p class="kv">{_esc(why)}</p>'
            f"{evidence_html(chunkset, miss)}"
            + (f'<div class="pages">{pics}</div>' if pics else "")
            + f'<h3>Retrieved instead</h3><div class="retrieved">{"".join(retrieved) or "<i>nothing</i>"}</div>'
            + (f"<h3>Evidence left behind in</h3>{''.join(missing)}" if missing else "")
            + "</section>")


def causes_html(misses: Sequence[Miss], judged: int) -> str:
    """The table of misses by the reason of the cut that split the evidence."""
    meaning = {**REASON_DOCS, NOT_SPLIT: "no cut inside the evidence: a ranking miss"}
    rows = "".join(
        f"<tr><td><code>{_esc(r['cause'])}</code></td><td>{r['misses']}</td><td>{100 * r['share']:.0f}%</td>"
        f"<td>{_esc(meaning.get(r['cause'], ''))}</td></tr>" for r in cause_table(misses))
    return (f'<p class="kv">{len(misses)} of {judged} questions missed (the retrieved chunks hold less than all '
            f'of the evidence)</p><table class="causes"><tr><th>cause (reason of the cut in the evidence)</th>'
            f"<th>misses</th><th>share</th><th>meaning</th></tr>{rows}</table>")


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


class MissesView:
    """The misses of a chunking for the notebook: `_repr_html_` shows the causes table and the
    first `limit` misses with their pages (images inline)."""

    def __init__(self, chunkset: ChunkSet, questions, *, retriever: str = "bm25", token_k: int = 5,
                 limit: int = 5, dpi: float = 72):
        self.chunkset = chunkset
        resolved = resolve_questions(chunkset.doc, questions) if questions else []
        self.misses = find_misses(chunkset, resolved, retriever, token_k) if resolved else []
        self.judged = judged(resolved)
        self.limit, self.dpi = limit, dpi

    def table(self):
        """The causes table as a DataFrame."""
        import pandas as pd

        return pd.DataFrame(cause_table(self.misses), columns=["cause", "misses", "share"])

    def _repr_html_(self) -> str:
        if not self.misses:
            return "<p>No retrieval misses (or no questions with reference spans).</p>"
        shown = self.misses[: self.limit]
        body = "".join(miss_html(self.chunkset, m, [(p, _data_uri(png)) for p, png in
                                                    miss_images(self.chunkset, m, self.dpi)]) for m in shown)
        more = (f"<p class='kv'>{len(self.misses) - len(shown)} more: MissesView(..., limit=N), or the report of "
                "chunkbench evaluate -o</p>") if len(self.misses) > len(shown) else ""
        return f"<style>{REPORT_CSS}{CSS}</style>{causes_html(self.misses, self.judged)}{body}{more}"


def write_misses_report(items: Sequence[tuple[ChunkSet, Sequence[Miss], int]], out_dir: str | os.PathLike,
                        title: str, dpi: float = 80) -> Path:
    """`out_dir/index.html` (and one PNG per page drawn) for (chunkset, its misses, questions
    judged) of each document; index.html is written last."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sections = []
    all_misses = [m for _, misses, _ in items for m in misses]
    judged = sum(n for _, _, n in items)
    for n, (cs, misses, count) in enumerate(items):
        sections.append(f'<h2 style="margin:14px 20px 0">{_esc(cs.doc.source)}: {len(misses)} of {count} missed</h2>')
        for miss in misses:
            images = []
            for page, png in miss_images(cs, miss, dpi):
                name = f"d{n}-{slug(miss.question_id)}-p{page}.png"
                write_bytes(out / name, png)
                images.append((page, name))
            sections.append(miss_html(cs, miss, images))
    head = f"<h1>{_esc(title)}</h1>{causes_html(all_misses, judged)}"
    index = out / "index.html"
    write_text(index, html_page(title, head, f"<style>{CSS}</style>" + "".join(sections)))
    return index
