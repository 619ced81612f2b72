"""Where a chunk lies on the page: element boxes, narrowed to words when it starts or ends inside one.

A chunk that covers an element completely uses the element's bbox. A chunk that starts or ends
inside an element (token windows, split paragraphs, long lists) covers only its own words: the
element's text is aligned to the PyMuPDF words inside the element's bbox (non-space characters
matched in order, so whitespace, hyphenation and superscript spacing differences do not matter;
characters only the element has, such as a table's pipe syntax, are skipped, and `difflib`
resynchronises where the texts really differ), and the chunk's
characters select words. Selected words are grouped into lines; consecutive lines that are
selected completely merge into one box, partial first/last lines stay boxes of their own (the
familiar shape of a text selection). Every box is clipped to the element's bbox. When the page has
no words (scans), the element's box is cut vertically in proportion to the characters.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from chunkbench.text.segment import skip_space, word_start
from chunkbench.types.chunk import BBox, Chunk
from chunkbench.types.document import BBoxTuple, Document, Element, as_bbox

from .pagewords import page_words

#: hyphens a PDF word may end with at a line break that a joined text leaves out
_LINE_END_HYPHENS = frozenset("-\u2010")
#: word alignment through difflib is skipped (proportional fallback) above this many words
_MAX_ALIGN = 20_000


@dataclass(frozen=True)
class _Words:
    """The words of one element and, per character of its text, the index of its word (-1: none)."""

    boxes: np.ndarray  # (n, 4) float
    lines: tuple[tuple[int, int], ...]  # (block_no, line_no) per word
    char_word: np.ndarray  # (len(text),) int


def _clip(box: Sequence[float], bbox: Sequence[float]) -> tuple[float, float, float, float] | None:
    x0, y0 = max(box[0], bbox[0]), max(box[1], bbox[1])
    x1, y1 = min(box[2], bbox[2]), min(box[3], bbox[3])
    if x1 <= x0 or y1 <= y0:
        return None
    return (x0, y0, x1, y1)


@functools.lru_cache(maxsize=4096)
def _element_words(path: str, page: int, bbox: tuple[float, float, float, float], text: str) -> _Words | None:
    x0, y0, x1, y1 = bbox
    tol = 1.0
    picked = [
        w for w in page_words(path, page)
        if x0 - tol <= (w[0] + w[2]) / 2 <= x1 + tol and y0 - tol <= (w[1] + w[3]) / 2 <= y1 + tol
    ]
    if not picked:
        return None
    word_chars: list[str] = []
    owner: list[int] = []
    for i, w in enumerate(picked):
        # NFKC: a PDF's ligatures ("ﬀ") are two letters in the element's text, as loaders write it
        s = "".join(unicodedata.normalize("NFKC", w[4]).replace("\xad", "").split())
        word_chars.append(s)
        owner.extend([i] * len(s))
    wstr = "".join(word_chars)
    positions = [i for i, ch in enumerate(text) if not ch.isspace()]
    estr = "".join(text[i] for i in positions)
    char_word = np.full(len(text), -1, dtype=np.int64)
    if not positions or not wstr:
        return None
    pos = np.asarray(positions, dtype=np.int64)
    own = np.asarray(owner, dtype=np.int64)
    if estr == wstr:
        char_word[pos] = own
    else:
        mapped = _greedy(estr, wstr, own)
        if mapped is None:  # the texts differ in more than added characters: align word by word
            if len(picked) > _MAX_ALIGN:
                return None
            char_word = _word_alignment(text, word_chars)
            if (char_word < 0).all():
                return None
            boxes = np.asarray([w[:4] for w in picked], dtype=float)
            return _Words(boxes, tuple((int(w[5]), int(w[6])) for w in picked), char_word)
        if (mapped < 0).all():
            return None
        # characters the words lack take the word of their nearest mapped predecessor (or successor)
        idx = np.where(mapped >= 0, np.arange(len(mapped)), -1)
        np.maximum.accumulate(idx, out=idx)
        first = int(np.argmax(mapped >= 0))
        idx[idx < 0] = first
        char_word[pos] = mapped[idx]
    boxes = np.asarray([w[:4] for w in picked], dtype=float)
    return _Words(boxes, tuple((int(w[5]), int(w[6])) for w in picked), char_word)


def _greedy(estr: str, wstr: str, own: np.ndarray) -> np.ndarray | None:
    """Map element characters to words when the element text only ADDS characters to the words'
    (a table's pipes and separator row, superscript spacing) or lacks the hyphen ending a line
    ("acceler-" "ating" read as "accelerating"): walk both, skipping element characters that do
    not match. None when words are left unmatched (the texts really differ)."""
    mapped = np.full(len(estr), -1, dtype=np.int64)
    j, n = 0, len(wstr)
    for i, ch in enumerate(estr):
        if (j + 1 < n and ch != wstr[j] and wstr[j] in _LINE_END_HYPHENS and own[j + 1] != own[j]
                and ch == wstr[j + 1]):
            j += 1  # the hyphen ending this word's line: the text joined the word without it
        if j < n and ch == wstr[j]:
            mapped[i] = own[j]
            j += 1
    if j == n - 1 and wstr[j] in _LINE_END_HYPHENS:
        j = n  # the text ends before the hyphen of its last word (a paragraph joined to the next column)
    return mapped if j == n else None


def _word_alignment(text: str, words: list[str]) -> np.ndarray:
    """Per character of `text`, the index of the PyMuPDF word it belongs to, by aligning the
    text's tokens (split at whitespace and table pipes) with the words using difflib on whole
    tokens (fast: a table's cells come in another order than its words, and dot leaders are
    dropped). Characters of unmatched tokens take the word of the token before them."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\s|]+", text)]
    tokens = [text[a:b] for a, b in spans]
    out = np.full(len(text), -1, dtype=np.int64)
    token_word = [-1] * len(tokens)
    for blk in difflib.SequenceMatcher(None, tokens, words, autojunk=False).get_matching_blocks():
        for k in range(blk.size):
            token_word[blk.a + k] = blk.b + k
    last = next((w for w in token_word if w >= 0), -1)
    for (a, b), w in zip(spans, token_word):
        if w >= 0:
            last = w
        out[a:b] = last
    return out


def _box(e: Element) -> BBoxTuple:
    """The box of an element being drawn (only elements with a page and a box are)."""
    assert e.bbox is not None, "only elements with a box are drawn"
    return e.bbox


def _page(e: Element) -> int:
    assert e.page_idx is not None, "only elements on a page are drawn"
    return e.page_idx


def _proportional(e: Element, a: int, b: int) -> list[tuple[float, float, float, float]]:
    x0, y0, x1, y1 = _box(e)
    n = max(len(e.text), 1)
    h = y1 - y0
    return [(x0, y0 + h * a / n, x1, y0 + h * b / n)]


def _partial_boxes(path: str, e: Element, a: int, b: int, merge: bool = True) -> list[tuple[float, float, float, float]]:
    """Boxes of characters [a, b) of element `e`'s text (see module docstring), cached; `merge`
    False keeps one box per line (a citation's highlight)."""
    return list(_partial_boxes_cached(path, _page(e), _box(e), e.text, a, b, merge))


@functools.lru_cache(maxsize=16384)
def _partial_boxes_cached(path: str, page_idx: int, bbox: tuple, text: str, a: int, b: int, merge: bool) -> tuple:
    e = Element(id="", type="", text=text, page_idx=page_idx, bbox=bbox)
    return tuple(_compute_partial_boxes(path, e, a, b, merge))


def _compute_partial_boxes(path: str, e: Element, a: int, b: int,
                           merge: bool = True) -> list[tuple[float, float, float, float]]:
    words = _element_words(path, _page(e) + 1, _box(e), e.text)
    if words is None:
        return _proportional(e, a, b)
    sel = _selected_words(words.char_word, a, b)
    if sel is None:
        return _proportional(e, a, b)
    out = _line_boxes(words, sel.tolist(), merge)
    clipped = [_clip(b, _box(e)) for b in out]
    return [b for b in clipped if b is not None] or _proportional(e, a, b)


def _selected_words(char_word: np.ndarray, a: int, b: int) -> np.ndarray | None:
    """The words characters [a, b) of an element fall in (`char_word`: each character's word, -1
    for white space); white space alone (a token window starting at a space) takes the next word,
    else the previous; None when the element has no words."""
    sel = char_word[a:b]
    sel = np.unique(sel[sel >= 0])
    if sel.size:
        return sel
    nxt = char_word[b:]
    nxt = nxt[nxt >= 0]
    if nxt.size:
        return nxt[:1]
    prv = char_word[:a]
    prv = prv[prv >= 0]
    return prv[-1:] if prv.size else None


def _line_boxes(words: _Words, selected: list[int], merge: bool) -> list[tuple[float, float, float, float]]:
    """One box per line around the selected words, lines in the order the words come; with `merge`,
    consecutive lines whose every word is selected are one box."""
    chosen = set(selected)
    line_words: dict[tuple[int, int], list[int]] = {}
    for i, key in enumerate(words.lines):
        line_words.setdefault(key, []).append(i)
    line_order = list(dict.fromkeys(words.lines[i] for i in selected))
    out: list[tuple[float, float, float, float]] = []
    run: list[float] | None = None
    for key in line_order:
        ids = [i for i in line_words[key] if i in chosen]
        bx = words.boxes[ids]
        box = [float(bx[:, 0].min()), float(bx[:, 1].min()), float(bx[:, 2].max()), float(bx[:, 3].max())]
        complete = merge and len(ids) == len(line_words[key])
        if complete and run is not None:
            run = [min(run[0], box[0]), min(run[1], box[1]), max(run[2], box[2]), max(run[3], box[3])]
            continue
        if run is not None:
            out.append(as_bbox(run))
            run = None
        if complete:
            run = box
        else:
            out.append(as_bbox(box))
    if run is not None:
        out.append(as_bbox(run))
    return out


def span_regions(doc: Document, start: int, end: int, elements: Iterable[Element] | None = None) -> list[BBox]:
    """Boxes (1-based page, points) covering canonical text [start, end) within `elements`.

    `elements` defaults to every element of the document overlapping the span; whole elements use
    their bbox, partly covered ones their words."""
    if elements is None:
        elements = elements_overlapping(doc, start, end)
    path = doc.pdf_path
    out: list[BBox] = []
    for e in (part for el in elements for part in el.parts):  # a stitched table: each page's part
        if e.bbox is None or e.page_idx is None or not e.text:
            continue
        a, b = max(start, e.char_start) - e.char_start, min(end, e.char_end) - e.char_start
        if a >= b:
            continue
        if a <= 0 and b >= len(e.text) or not path:
            boxes = [_box(e)]
        else:
            boxes = _partial_boxes(path, e, a, b)
        out.extend(BBox(e.page_idx + 1, *box) for box in boxes)
    return out


def word_lines(doc: Document, start: int, end: int) -> list[BBox]:
    """One box per line (1-based page, points) around exactly the words of canonical text
    [start, end), whole elements too (their words, not their box); elements without words on the
    page (scans) give their box cut in proportion. Empty without a PDF."""
    path = doc.pdf_path
    if not path:
        return []
    out: list[BBox] = []
    for e in (part for el in elements_overlapping(doc, start, end) for part in el.parts):
        if e.bbox is None or e.page_idx is None or not e.text:
            continue
        a, b = max(start, e.char_start) - e.char_start, min(end, e.char_end) - e.char_start
        if a < b:
            out.extend(BBox(e.page_idx + 1, *box) for box in _partial_boxes(path, e, a, b, merge=False))
    return out


def chunk_regions(doc: Document, chunk: Chunk) -> list[BBox]:
    """The boxes a chunk covers, in reading order, one or more per page it touches (see module doc)."""
    elements = []
    for eid in chunk.source_blocks:
        try:
            elements.append(doc.element(eid))
        except KeyError:
            continue
    if chunk.start_char is None or chunk.end_char is None or not elements:
        return list(chunk.bbox)
    regions = span_regions(doc, chunk.start_char, chunk.end_char, elements)
    # elements with no text (pictures) inside the chunk's span belong to it as a whole
    for e in elements:
        inside = chunk.start_char <= e.char_start <= chunk.end_char
        if not e.text and e.bbox is not None and e.page_idx is not None and inside:
            regions.append(BBox(e.page_idx + 1, *e.bbox))
    return regions if regions else list(chunk.bbox)


def elements_overlapping(doc: Document, start: int, end: int) -> list[Element]:
    """Non-empty elements whose span intersects [start, end), in reading order
    (`Document.elements_overlapping`)."""
    return doc.elements_overlapping(start, end)


def element_at(doc: Document, char: int) -> Element | None:
    """The non-empty element containing canonical offset `char`, or the next one when `char` falls
    on a separator; None past the end (`Document.element_at`)."""
    return doc.element_at(char)


def position_box(doc: Document, char: int) -> BBox | None:
    """The box of the word at canonical offset `char` (the next element's first word when `char`
    falls on a separator), or None when that element has no bbox."""
    e = element_at(doc, char)
    if e is None:
        return None
    pos = skip_space(doc.text, max(char, e.char_start), e.char_end - 1)
    boxes = span_regions(doc, pos, min(pos + 1, e.char_end), [e])
    return boxes[0] if boxes else None


def position_at(doc: Document, page: int, x: float, y: float) -> int | None:
    """The canonical offset of the word at point (x, y) of 1-based `page` (PDF points): the
    inverse of `position_box`, for a click on a word. The smallest element box under the point
    (1 pt of slack) is searched for the word whose box holds the point, else the nearest word on
    the same line, else the nearest word; without words (scans) the place is found in proportion
    to the element's height. None when no element with text is under the point."""
    hits = [e for el in doc.elements for e in el.parts
            if e.text and e.page_idx == page - 1 and e.bbox is not None
            and e.bbox[0] - 1 <= x <= e.bbox[2] + 1 and e.bbox[1] - 1 <= y <= e.bbox[3] + 1]
    if not hits:
        return None
    e = min(hits, key=lambda h: (_box(h)[2] - _box(h)[0]) * (_box(h)[3] - _box(h)[1]))
    words = _element_words(doc.pdf_path, page, _box(e), e.text) if doc.pdf_path else None
    if words is None:
        x0, y0, x1, y1 = _box(e)
        offset = int(len(e.text) * min(max((y - y0) / max(y1 - y0, 1e-6), 0.0), 0.999))
    else:
        b = words.boxes
        inside = np.nonzero((b[:, 0] <= x) & (x <= b[:, 2]) & (b[:, 1] <= y) & (y <= b[:, 3]))[0]
        if inside.size:
            word = int(inside[0])
        else:  # between words: the nearest one, preferring the line the point is on
            on_line = (b[:, 1] <= y) & (y <= b[:, 3])
            dx = np.maximum(np.maximum(b[:, 0] - x, x - b[:, 2]), 0.0)
            dy = np.maximum(np.maximum(b[:, 1] - y, y - b[:, 3]), 0.0)
            word = int(np.argmin(np.where(on_line, dx, np.inf))) if on_line.any() else int(np.argmin(dx + dy))
        chars = np.nonzero(words.char_word == word)[0]
        if not chars.size:
            return None
        offset = int(chars[0])
    return word_start(doc.text, e.char_start + offset)
