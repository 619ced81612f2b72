"""OCR'd text in column order, each word once.

On a scanned page whose two columns stand close together, the layout model can box both columns as
one paragraph, and the OCR lines then run across the gutter: "Recording a Sequence ... simply Moving
Around. To move ...". A box of OCR'd lines is split at its gutter when the lines show one: an x that
almost no word crosses, with a wide gap at it on most lines. The left column's lines then come
before the right column's, as two boxes. When a box has such a gap on many lines but too many words
cross it to be sure, it is left as it is and the page is named in a warning. A word OCR read twice
at the same place (two overlapping boxes of the same text) is kept once.

Works on pymupdf4llm's raw page (boxes with `textlines` of `spans`), before the boxes become elements.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: a box needs this many OCR'd lines before a gutter is looked for
MIN_LINES = 3
#: a gutter: at most this share of the lines has a word across it ...
MAX_CROSSING_SHARE = 0.1
#: ... and at least this share has words on both sides of it, a wide gap apart
MIN_SPLIT_SHARE = 0.6
#: a wide gap: this many times the box's usual gap between two words
WIDE_GAP = 2.5
#: a box whose lines have a wide gap at one x on at least this share, but too many crossings to
#: split, looks interleaved: its page is named in a warning
SUSPECT_SHARE = 0.4
#: two readings of one word: the same text, their boxes overlapping by this share of the narrower
SAME_PLACE = 0.5

Box = dict[str, Any]


def in_column_order(raw_page: dict, is_ocr: Callable[[Mapping[str, Any]], bool]) -> bool:
    """Split the OCR'd boxes of `raw_page` that run across a gutter and drop words OCR read twice
    (in place); True when a box still looks like two interleaved columns. `is_ocr(span)` says
    whether a span is OCR text."""
    boxes: list[Box] = []
    suspect = False
    for box in raw_page["boxes"]:
        lines = box.get("textlines") or []
        if not lines or not all(is_ocr(s) for line in lines for s in line["spans"]):
            boxes.append(box)
            continue
        lines = [_once(line) for line in lines]
        box = {**box, "textlines": lines}
        x, split, crossing = _gutter(lines)
        if len(lines) >= MIN_LINES and x is not None:
            if crossing <= MAX_CROSSING_SHARE * len(lines) and split >= MIN_SPLIT_SHARE * len(lines):
                boxes.extend(_split(box, lines, x))
                continue
            suspect = suspect or split >= SUSPECT_SHARE * len(lines)
        boxes.append(box)
    raw_page["boxes"] = boxes
    return suspect


def _words(line: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The spans of a line with a letter or digit in them (a speck read as "—" or "_" is none)."""
    return [s for s in line["spans"] if any(ch.isalnum() for ch in s["text"])]


def _gutter(lines: Sequence[Mapping[str, Any]]) -> tuple[float | None, int, int]:
    """The best gutter of a box's lines: its x, the lines with a wide gap at it, the lines with a
    word across it; (None, 0, 0) when no line has a wide gap in the middle 60% of the box."""
    gaps = [b["bbox"][0] - a["bbox"][2] for line in lines for a, b in zip(_words(line), _words(line)[1:])
            if b["bbox"][0] > a["bbox"][2]]
    if not gaps:
        return None, 0, 0
    wide = WIDE_GAP * statistics.median(gaps)
    x0 = min(s["bbox"][0] for line in lines for s in _words(line) or line["spans"])
    x1 = max(s["bbox"][2] for line in lines for s in _words(line) or line["spans"])
    openings: list[tuple[float, float]] = []  # every wide gap in the middle of the box, per line
    for line in lines:
        words = _words(line)
        for a, b in zip(words, words[1:]):
            lo, hi = a["bbox"][2], b["bbox"][0]
            if hi - lo >= wide and x0 + 0.2 * (x1 - x0) <= (lo + hi) / 2 <= x0 + 0.8 * (x1 - x0):
                openings.append((lo, hi))
    if not openings:
        return None, 0, 0
    best: tuple[int, int, float] | None = None
    for lo, hi in openings:
        x = (lo + hi) / 2
        split = sum(lo2 <= x <= hi2 for lo2, hi2 in openings)
        crossing = sum(any(s["bbox"][0] < x < s["bbox"][2] for s in _words(line)) for line in lines)
        if best is None or (split - crossing, -crossing) > (best[0] - best[1], -best[1]):
            best = (split, crossing, x)
    assert best is not None
    return best[2], best[0], best[1]


def _split(box: Box, lines: Sequence[Mapping[str, Any]], x: float) -> list[Box]:
    """The box as two: its lines' spans left of `x`, then those right of it, each a box of its own."""
    halves: tuple[list[dict], list[dict]] = ([], [])
    for line in lines:
        left = [s for s in line["spans"] if (s["bbox"][0] + s["bbox"][2]) / 2 < x]
        right = [s for s in line["spans"] if (s["bbox"][0] + s["bbox"][2]) / 2 >= x]
        for half, spans in zip(halves, (left, right)):
            if _words({"spans": spans}):
                half.append({**line, "spans": spans, "bbox": _union([s["bbox"] for s in spans])})
    out = []
    for half in halves:
        if half:
            x0, y0, x1, y1 = _union([line["bbox"] for line in half])
            out.append({**box, "x0": x0, "y0": y0, "x1": x1, "y1": y1, "textlines": half})
    return out


def _once(line: Mapping[str, Any]) -> dict:
    """The line without a span that repeats the one before it at the same place."""
    spans: list[Mapping[str, Any]] = []
    for s in line["spans"]:
        if spans and _same_word(spans[-1], s):
            continue
        spans.append(s)
    return {**line, "spans": spans}


def _same_word(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if a["text"].strip().casefold() != b["text"].strip().casefold():
        return False
    overlap = min(a["bbox"][2], b["bbox"][2]) - max(a["bbox"][0], b["bbox"][0])
    narrower = min(a["bbox"][2] - a["bbox"][0], b["bbox"][2] - b["bbox"][0])
    return narrower > 0 and overlap >= SAME_PLACE * narrower


def _union(boxes: Sequence[Sequence[float]]) -> tuple[float, float, float, float]:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
