"""Generated PDFs for the parse benchmarks: a long text PDF, and a page slice of a real PDF.

Both are written once under `.cache/bench/` (atomically) and reused; the same arguments always
give the same bytes, so the parse cache key stays stable.
"""

from __future__ import annotations

import os
import textwrap

import pymupdf

from chunkbench.io.atomic import write_bytes

from .common import BENCH_DIR
from .corpus import english_paragraphs

LINES_PER_PAGE = 40


def _wrapped_lines() -> list[str]:
    """Corpus paragraphs wrapped to 95 columns, a blank line between paragraphs."""
    out: list[str] = []
    for para in english_paragraphs():
        out += textwrap.wrap(" ".join(para.split()), 95) + [""]
    return out


def long_pdf(pages: int = 2400) -> str:
    """A `pages`-page A4 PDF of English corpus text: a numbered heading, LINES_PER_PAGE lines of
    wrapped paragraphs (about 2,500 characters) and a page number on every page."""
    path = os.path.join(BENCH_DIR, f"generated-{pages}p-{LINES_PER_PAGE}l.pdf")
    if os.path.exists(path):
        return path
    lines = _wrapped_lines()
    doc = pymupdf.open()
    k = 0
    for n in range(pages):
        page = doc.new_page(width=595, height=842)
        page.insert_text((56, 64), f"{n // 10 + 1}.{n % 10 + 1} Section on page {n + 1}", fontsize=15)
        body = [lines[(k + i) % len(lines)] for i in range(LINES_PER_PAGE)]
        k += LINES_PER_PAGE
        page.insert_text((56, 96), body, fontsize=10, lineheight=1.2)
        page.insert_text((290, 815), str(n + 1), fontsize=9)
    data = doc.tobytes(garbage=3, deflate=True, no_new_id=True)
    doc.close()
    write_bytes(path, data)
    return path


def pdf_slice(source: str, first: int, stop: int) -> str:
    """Pages `first`..`stop - 1` of `source` as their own PDF (for repeated timing of a long file)."""
    name = os.path.splitext(os.path.basename(source))[0]
    path = os.path.join(BENCH_DIR, f"{name}-p{first + 1}-{stop}.pdf")
    if os.path.exists(path):
        return path
    src = pymupdf.open(source)
    out = pymupdf.open()
    out.insert_pdf(src, from_page=first, to_page=stop - 1)
    data = out.tobytes(garbage=3, deflate=True, no_new_id=True)
    out.close()
    src.close()
    write_bytes(path, data)
    return path
