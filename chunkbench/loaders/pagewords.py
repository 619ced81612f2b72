"""The PDF behind a Document, opened once and shared: its pages' sizes and words.

PyMuPDF documents are not thread-safe, so every call into them holds one lock, LOCK (the notebook
explorer and the review app render from worker threads; ui.render.pdfpages rasterises under the
same lock). Word lists are cached per page: citing a quote, mapping a chunk to its words and
drawing it all read them from here.
"""

from __future__ import annotations

import functools
import os
import threading

from chunkbench.errors import InputError
from chunkbench.loaders.pdflib import pymupdf, pymupdf_open
from chunkbench.types.document import Document

LOCK = threading.RLock()


def pdf_path_of(doc: Document) -> str:
    """The PDF to draw on, or InputError pointing to the text view when the input has none."""
    path = doc.pdf_path
    if not path:
        raise InputError(
            "this document has no PDF to draw on (Markdown, or document.json / MinerU output without "
            "--pdf); use chunkbench.ui.render.render_text_view(doc, chunks) for the text view",
            doc.source,
        )
    if not os.path.exists(path):
        raise InputError(f"the source PDF {path} of this document is missing", doc.source)
    return path


def stamp(path: str) -> tuple[str, int, int]:
    """The file's identity for the caches: its absolute path, modification time and size."""
    st = os.stat(path)
    return (os.path.abspath(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def open_stamped(stamped: tuple[str, int, int]) -> pymupdf.Document:
    """The open PyMuPDF document of a `stamp` (the eight last kept open)."""
    try:
        return pymupdf_open(stamped[0])
    except Exception as exc:  # noqa: BLE001 - any open failure is a bad input
        raise InputError(f"cannot open PDF: {exc}", stamped[0]) from None


def open_pdf(path: str) -> pymupdf.Document:
    """An open (cached) PyMuPDF document; callers hold LOCK while using it."""
    return open_stamped(stamp(path))


def pdf_page(pdf: pymupdf.Document, page: int, path: str) -> pymupdf.Page:
    """1-based `page` of `pdf`; InputError when there is no such page."""
    if not 1 <= page <= pdf.page_count:
        raise InputError(f"page {page} does not exist (the PDF has {pdf.page_count} pages)", path)
    return pdf[page - 1]


def page_size(path: str, page: int) -> tuple[float, float]:
    """Width and height of the page in points (as PyMuPDF's page.rect shows it)."""
    with LOCK:
        rect = pdf_page(open_pdf(path), page, path).rect
        return rect.width, rect.height


@functools.lru_cache(maxsize=64)
def _words(stamped: tuple[str, int, int], page: int) -> tuple[tuple[float, float, float, float, str, int, int, int], ...]:
    with LOCK:
        pdf = open_stamped(stamped)
        src = pdf_page(pdf, page, stamped[0])
        words = src.get_text("words", sort=False)
        if not src.rotation:
            return tuple(tuple(w) for w in words)
        # words come in unrotated coordinates; element bboxes (and the picture) are rotated
        m = src.rotation_matrix
        out = []
        for w in words:
            r = pymupdf.Rect(w[:4]) * m
            out.append((r.x0, r.y0, r.x1, r.y1, *w[4:]))
        return tuple(out)


def page_words(path: str, page: int):
    """PyMuPDF words of a page: (x0, y0, x1, y1, text, block_no, line_no, word_no) in extraction order."""
    return _words(stamp(path), page)
