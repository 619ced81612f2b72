"""Every number of a Document read back from JSON that sizes work, checked against the document.

An elements.json (or a parse-cache entry) is chunkbench's own format, but a file can say anything:
one `page_end_idx` of 10^9 made the elements strategy build a set of a billion page numbers (4.6 GB,
then MemoryError). Pages, page spans, text offsets, boxes and heading levels are checked here, at
the input's boundary, so nothing downstream sizes its work by a number the document does not back.
"""

from __future__ import annotations

import math
from typing import Any

from chunkbench.types.document import SEPARATOR, Document

#: pages a document without page records may name (MinerU's own bound for a page_idx without a PDF)
MAX_PAGES = 100_000
#: the largest page side or box coordinate believed, in points (PDF's user space ends at 14,400)
MAX_POINTS = 100_000.0
#: the deepest heading level believed
MAX_LEVEL = 100


def document_problem(doc: Document) -> str | None:
    """What is wrong with the numbers of `doc` (the first problem found, naming the element), or None."""
    for n, page in enumerate(doc.pages):
        if page.index != n:
            return f"page record {n} has index {page.index}"
        if not all(_finite(v) and 0 <= v <= MAX_POINTS for v in (page.width, page.height)):  # 0: unknown (MinerU without its PDF)
            return f"page {n + 1} has a size of {page.width} x {page.height} points"
    pages = len(doc.pages) or MAX_PAGES
    text_length = len(doc.text)
    # an element without text sits where the next text would start (types.document.with_offsets):
    # after the last text, that is one separator past the end
    empty_end = text_length + len(SEPARATOR)
    for e in doc.elements:
        where = f"element {e.id!r}"
        if e.page_idx is not None and not (_int(e.page_idx) and 0 <= e.page_idx < pages):
            return f"{where}: page_idx {e.page_idx!r} is not a page of the document ({len(doc.pages)} pages)"
        if e.page_end_idx is not None and (
                e.page_idx is None or not (_int(e.page_end_idx) and e.page_idx <= e.page_end_idx < pages)):
            return (f"{where}: page_end_idx {e.page_end_idx!r} is not a page from its page_idx {e.page_idx!r} "
                    f"to the document's last ({len(doc.pages)} pages)")
        if not (0 <= e.char_start <= e.char_end <= (text_length if e.text else empty_end)):
            return f"{where}: characters {e.char_start}-{e.char_end} are outside the document's text ({text_length:,} characters)"
        if e.bbox is not None and not all(_finite(v) and abs(v) <= MAX_POINTS for v in e.bbox):
            return f"{where}: bbox {list(e.bbox)} is not on a page (coordinates beyond {MAX_POINTS:,.0f} points)"
        if e.text_level is not None and not (_int(e.text_level) and 0 <= e.text_level <= MAX_LEVEL):
            return f"{where}: text_level {e.text_level!r} is not a heading level (0-{MAX_LEVEL})"
    return None


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
