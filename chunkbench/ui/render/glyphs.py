"""Label text metrics: Helvetica advance widths (from PyMuPDF's built-in font) for laying out labels.

Labels are drawn with the base-14 Helvetica in WinAnsi (Windows-1252) encoding; characters outside
it are shown as '?', so a label never fails to draw.
"""

from __future__ import annotations

import functools

from chunkbench.loaders.pdflib import pymupdf


@functools.lru_cache(maxsize=1)
def _advances() -> dict[str, float]:
    """Advance width of each Windows-1252 character at font size 1."""
    from .pdfpages import LOCK

    chars = [bytes([b]).decode("cp1252", "ignore") for b in range(32, 256)]
    with LOCK:
        font = pymupdf.Font("helv")
        return {ch: font.text_length(ch, fontsize=1.0) for ch in chars if ch}


def clean(text: str) -> str:
    """`text` with characters Helvetica/WinAnsi cannot show replaced by '?' (and no line breaks)."""
    adv = _advances()
    return "".join(ch if ch in adv else ("?" if ch not in "\n\r\t" else " ") for ch in text)


def text_width(text: str, size: float) -> float:
    """Width of (cleaned) `text` set in Helvetica at `size` (same units as size)."""
    adv = _advances()
    return sum(adv.get(ch, adv["?"]) for ch in text) * size
