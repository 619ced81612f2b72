"""Noise blocks of the `contract` strategy (specs/2 "Rule 2 — Ignore noise blocks").

Skipped, never deleted: the Document keeps every element; the strategy declares each skipped
element with its reason in `StrategyResult.skipped`. Noise is page furniture (header, footer,
page_number types, configurable), page numbers typed as text when they repeat over pages, and
watermarks: the same short text on many pages. A header or footer carrying a critical identifier
(an agreement or reference number) that the body never states is kept, once.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable

from chunkbench.text.clauses import clause_ref
from chunkbench.text.words import page_text_key
from chunkbench.types.document import Document, Element

_PAGE_NUMBER = re.compile(
    r"^\s*(?:(?:page|pg\.?|p\.)\s*)?\d{1,4}\s*(?:(?:of|/)\s*\d{1,4})?\s*$|^\s*[-–—]\s*\d{1,4}\s*[-–—]\s*$",
    re.I,
)
#: an alphanumeric code with a dash or slash: MSA-2025-014, ABC/123/X
_CODE = re.compile(r"\b[A-Za-z0-9]+(?:[-/][A-Za-z0-9]+)+\b")
#: a number introduced by a reference word: "Contract No. 4471", "Ref: 88-A"
_REFERENCE = re.compile(r"\b(?:no|number|ref|reference|contract|agreement|order|po)\b\.?\s*[:#]?\s*(\w[\w/-]{3,})", re.I)
#: a word of body text as identifiers are looked up in it (codes keep their dashes and slashes)
_TOKEN = re.compile(r"[\w/-]+")
#: share of the page height at the top and bottom where running headers and page numbers sit
MARGIN_BAND = 0.12
#: longest text that can be a watermark; anything longer is content, however often it repeats
WATERMARK_MAX_CHARS = 80
#: share of the pages a text must be on to count as a watermark
WATERMARK_PAGE_SHARE = 0.5


def identifiers(text: str) -> list[str]:
    """Critical identifiers in a header or footer: reference codes holding letters and digits."""
    out = []
    for m in _CODE.finditer(text):
        tok = m.group(0)
        if any(c.isdigit() for c in tok) and any(c.isalpha() for c in tok) and len(tok) >= 5:
            out.append(tok)
    for m in _REFERENCE.finditer(text):
        tok = m.group(1)
        if any(c.isdigit() for c in tok) and tok not in out:
            out.append(tok)
    return out


def _is_page_number(e: Element, heights: dict[int, float]) -> bool:
    """Page-number text ("Page 3 of 6", "- 3 -", "3"). A bare number counts only in the top or
    bottom margin band of its page, or, without a box, when it is that page's number: a clause
    number parsed apart from its text ("3") is content."""
    if not _PAGE_NUMBER.match(e.text):
        return False
    if not e.text.strip().isdigit():
        return True
    height = heights.get(e.page_idx, 0.0) if e.page_idx is not None else 0.0
    if e.bbox is not None and height > 0:
        return e.bbox[1] < MARGIN_BAND * height or e.bbox[3] > (1 - MARGIN_BAND) * height
    return e.page_idx is not None and int(e.text) == e.page_idx + 1


def find_noise(
    doc: Document,
    *,
    noise_types: Iterable[str],
    keep_identifiers: bool,
    watermark_min_pages: int,
) -> dict[str, str]:
    """Element id → why it is skipped (empty text, furniture, page number, watermark)."""
    noise_types = frozenset(noise_types)
    skipped: dict[str, str] = {e.id: "empty text" for e in doc.elements if e.is_empty}
    content = [e for e in doc.elements if e.id not in skipped and e.type not in noise_types]
    skipped.update(_page_numbers(doc, content))
    skipped.update(_watermarks(doc, [e for e in content if e.id not in skipped], watermark_min_pages))
    body = {tok for e in content if e.id not in skipped for tok in _TOKEN.findall(e.text)}
    kept_first: dict[str, str] = {}
    for e in doc.elements:
        if e.id in skipped or e.type not in noise_types:
            continue
        key = page_text_key(e.text)
        if key in kept_first:
            skipped[e.id] = f"repeated {e.type}; its identifier is kept once in {kept_first[key]}"
            continue
        missing = [i for i in identifiers(e.text) if i not in body] if keep_identifiers and e.type != "page_number" else []
        if missing:
            kept_first[key] = e.id
        else:
            skipped[e.id] = f"page furniture ({e.type})"
    return skipped


def _page_numbers(doc: Document, content: list[Element]) -> dict[str, str]:
    """Page numbers among the content, when they repeat on two pages or more."""
    heights = {p.index: p.height for p in doc.pages}
    numbers = [e for e in content if e.type != "table" and _is_page_number(e, heights)]
    if len({e.page_idx for e in numbers if e.page_idx is not None}) < 2:
        return {}
    return {e.id: f"repeated page number {' '.join(e.text.split())!r}" for e in numbers}


def _watermarks(doc: Document, content: list[Element], watermark_min_pages: int) -> dict[str, str]:
    """Short texts (no clause, list or table) repeated on enough of the pages to be a watermark."""
    n_pages = len({e.page_idx for e in doc.elements if e.page_idx is not None})
    need = max(watermark_min_pages, math.ceil(WATERMARK_PAGE_SHARE * n_pages))
    pages_of: dict[str, set[int]] = defaultdict(set)
    candidates: dict[str, list[Element]] = defaultdict(list)
    for e in content:
        if (
            e.page_idx is not None
            and e.type not in ("table", "list")
            and len(e.text.strip()) <= WATERMARK_MAX_CHARS
            and clause_ref(e.text) is None
        ):
            pages_of[page_text_key(e.text)].add(e.page_idx)
            candidates[page_text_key(e.text)].append(e)
    return {e.id: f"watermark: {' '.join(e.text.split())!r} repeated on {len(pages)} of {n_pages} pages"
            for key, pages in pages_of.items() if len(pages) >= need for e in candidates[key]}
