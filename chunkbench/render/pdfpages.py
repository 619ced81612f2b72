"""Cached access to the PDF behind a Document: open files, page rasters and page words.

PyMuPDF documents are not thread-safe, so every call into them holds one lock (the notebook
explorer and the review app render from worker threads). Rasters of plain pages are cached
(a few pages, keyed by file, modification time, page and dpi) so re-rendering an overlay after a
parameter change does not rasterise the page again.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import OrderedDict

import numpy as np
import pymupdf

from ..errors import InputError
from ..model import Document

LOCK = threading.RLock()
_RASTER_CACHE: "OrderedDict[tuple, np.ndarray]" = OrderedDict()
_RASTER_CACHE_SIZE = 12


def pdf_path_of(doc: Document) -> str:
    """The PDF to draw on, or InputError pointing to the text view when the input has none."""
    path = doc.pdf_path
    if not path:
        raise InputError(
            "this document has no PDF to draw on (Markdown, or document.json / MinerU output without "
            "--pdf); use chunkbench.render.render_text_view(doc, chunks) for the text view",
            doc.source,
        )
    if not os.path.exists(path):
        raise InputError(f"the source PDF {path} of this document is missing", doc.source)
    return path


def _stamp(path: str) -> tuple[str, int, int]:
    st = os.stat(path)
    return (os.path.abspath(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _open(stamp: tuple[str, int, int]) -> pymupdf.Document:
    try:
        return pymupdf.open(stamp[0])
    except Exception as exc:  # noqa: BLE001 - any open failure is a bad input
        raise InputError(f"cannot open PDF: {exc}", stamp[0]) from None


def open_pdf(path: str) -> pymupdf.Document:
    """An open (cached) PyMuPDF document; callers hold LOCK while using it."""
    return _open(_stamp(path))


def _page(pdf: pymupdf.Document, page: int, path: str) -> pymupdf.Page:
    if not 1 <= page <= pdf.page_count:
        raise InputError(f"page {page} does not exist (the PDF has {pdf.page_count} pages)", path)
    return pdf[page - 1]


def page_raster(path: str, page: int, dpi: float) -> np.ndarray:
    """The page rasterised at `dpi` as a read-only (height, width, 3) uint8 array."""
    key = (*_stamp(path), page, float(dpi))
    with LOCK:
        arr = _RASTER_CACHE.get(key)
        if arr is not None:
            _RASTER_CACHE.move_to_end(key)
            return arr
        pdf = open_pdf(path)
        zoom = float(dpi) / 72.0
        pix = _page(pdf, page, path).get_pixmap(
            matrix=pymupdf.Matrix(zoom, zoom), alpha=False, colorspace=pymupdf.csRGB)
        arr = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3]
        arr = np.ascontiguousarray(arr)
        arr.setflags(write=False)
        _RASTER_CACHE[key] = arr
        if len(_RASTER_CACHE) > _RASTER_CACHE_SIZE:
            _RASTER_CACHE.popitem(last=False)
        return arr


def page_size(path: str, page: int) -> tuple[float, float]:
    """Width and height of the page in points (as PyMuPDF's page.rect shows it)."""
    with LOCK:
        rect = _page(open_pdf(path), page, path).rect
        return rect.width, rect.height


@functools.lru_cache(maxsize=64)
def _words(stamp: tuple[str, int, int], page: int) -> tuple[tuple[float, float, float, float, str, int, int, int], ...]:
    with LOCK:
        pdf = _open(stamp)
        return tuple(tuple(w) for w in _page(pdf, page, stamp[0]).get_text("words", sort=False))


def page_words(path: str, page: int):
    """PyMuPDF words of a page: (x0, y0, x1, y1, text, block_no, line_no, word_no) in extraction order."""
    return _words(_stamp(path), page)
