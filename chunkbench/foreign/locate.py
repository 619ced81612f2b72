"""Locating another chunker's chunks in a Document's canonical text.

Their chunks usually come from another text extraction of the same PDF, with its own line breaks,
hyphenation, ligatures, quotes, bullets and reading order. Each chunk is tried, in order:
1. `exact`: its text as it is, searched from the previous chunk's start (chunks may overlap);
2. `normalised`: letters and digits only, NFKC and case-folded, on both sides, so that whitespace,
   line-end hyphens, ligatures, quotes, dashes and bullets do not matter;
3. `fuzzy`: anchors (runs of normalised characters) found near where the chunk should be; the
   densest run of anchors gives the span, and the share of the chunk it covers is the score:
   at least FUZZY_MIN is `fuzzy`, at least PARTIAL_MIN `partial` (only that part is located);
4. otherwise `unlocated`.
Each step searches forward from the previous chunk's start first, then anywhere. The normalised
text is built once per Document, in one pass, so locating is linear in the document and chunks.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from collections.abc import Sequence
from dataclasses import dataclass

#: a fuzzy span must cover at least this share of the chunk's normalised text
FUZZY_MIN = 0.6
#: below FUZZY_MIN but at least this: the chunk is `partial`, located where its anchors are
PARTIAL_MIN = 0.2
#: furniture text shorter than this (normalised) is not taken out of a chunk (a page number "3")
FURNITURE_MIN = 3
#: normalised characters per anchor
ANCHOR = 12
#: at most this many anchors per chunk
MAX_ANCHORS = 48
#: match kinds, best first
KINDS = ("exact", "normalised", "fuzzy", "partial", "unlocated")

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Match:
    """Where one chunk was found: canonical offsets [start, end), how, and the share found."""

    start: int | None
    end: int | None
    kind: str
    score: float

    @property
    def located(self) -> bool:
        return self.start is not None


UNLOCATED = Match(None, None, "unlocated", 0.0)


def normalise(text: str) -> str:
    """Letters and digits only, NFKC and case-folded: the form both sides are compared in."""
    return "".join(_fold(m.group()) for m in _WORD.finditer(text))


def _fold(segment: str) -> str:
    if segment.isascii():
        return segment.lower().replace("_", "")
    return unicodedata.normalize("NFKC", segment).casefold().replace("_", "")


class NormalisedText:
    """A text's normal form with, for each of its characters, the offset it came from; the spans in
    `skip` (sorted, not overlapping) are left out."""

    def __init__(self, text: str, skip: Sequence[tuple[int, int]] = ()):
        parts: list[str] = []
        origin = array("l")
        gaps = iter(skip)
        gap = next(gaps, None)
        for m in _WORD.finditer(text):
            segment, start = m.group(), m.start()
            while gap is not None and gap[1] <= start:
                gap = next(gaps, None)
            if gap is not None and gap[0] <= start:
                continue
            folded = _fold(segment)
            parts.append(folded)
            if len(folded) == len(segment) and "_" not in segment:
                origin.extend(range(start, m.end()))
            else:  # a ligature or an underscore changed the length: map char by char
                for i, ch in enumerate(segment):
                    origin.extend([start + i] * len(_fold(ch)))
        self.text = "".join(parts)
        self.origin = origin
        self.source_length = len(text)

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """The source span of normalised span [start, end)."""
        return self.origin[start], self.origin[end - 1] + 1

    def from_source(self, pos: int) -> int:
        """The first normalised index at or after source offset `pos`."""
        lo, hi = 0, len(self.origin)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.origin[mid] < pos:
                lo = mid + 1
            else:
                hi = mid
        return lo


class Locator:
    """Locates chunks one after another in one text, each search starting at the previous find.

    `furniture`: spans of page furniture (running headers, footers, page numbers) with their text.
    Another extraction puts them elsewhere in its reading order (a footer before the page number,
    a header in mid-chunk), so the normalised search is tried a second time without them on both
    sides: in the text, and (when at least FURNITURE_MIN normalised characters long) in the chunk."""

    def __init__(self, text: str, furniture: Sequence[tuple[int, int, str]] = ()):
        self.text = text
        self.norm = NormalisedText(text)
        spans = sorted((a, b) for a, b, _ in furniture)
        self.content = NormalisedText(text, spans) if spans else None
        folded = {normalise(t) for _, _, t in furniture}
        self.furniture = sorted((f for f in folded if len(f) >= FURNITURE_MIN), key=len, reverse=True)
        self.cursor = 0  # source offset where the next search starts

    def locate(self, chunk_text: str) -> Match:
        match = (self._exact(chunk_text) or self._normalised(chunk_text, self.norm)
                 or self._without_furniture(chunk_text) or self._fuzzy(chunk_text))
        if match.start is not None:
            self.cursor = match.start + 1
        return match

    def _exact(self, chunk_text: str) -> Match | None:
        needle = chunk_text.strip()
        if not needle:
            return None
        at = self.text.find(needle, self.cursor)
        if at < 0:
            at = self.text.find(needle)
        return Match(at, at + len(needle), "exact", 1.0) if at >= 0 else None

    def _normalised(self, chunk_text: str, norm: NormalisedText, needle: str | None = None) -> Match | None:
        needle = normalise(chunk_text) if needle is None else needle
        if not needle:
            return None
        hay = norm.text
        at = hay.find(needle, norm.from_source(self.cursor))
        if at < 0:
            at = hay.find(needle)
        if at < 0:
            return None
        start, end = norm.to_source(at, at + len(needle))
        return Match(start, end, "normalised", 1.0)

    def _without_furniture(self, chunk_text: str) -> Match | None:
        if self.content is None:
            return None
        needle = normalise(chunk_text)
        for f in self.furniture:
            needle = needle.replace(f, "")
        return self._normalised(chunk_text, self.content, needle)

    def _fuzzy(self, chunk_text: str) -> Match:
        needle = normalise(chunk_text)
        if len(needle) < ANCHOR:
            return UNLOCATED
        hits, anchors = self._anchor_hits(needle)
        if not hits:
            return UNLOCATED
        first, last, found = _densest(hits, len(needle))
        score = found / anchors
        if score < PARTIAL_MIN:
            return UNLOCATED
        start, end = self.norm.to_source(first, last + ANCHOR)
        return Match(start, end, "fuzzy" if score >= FUZZY_MIN else "partial", round(score, 3))

    def _anchor_hits(self, needle: str) -> tuple[list[int], int]:
        """Normalised positions of the chunk's anchors found (near the cursor when there, else
        anywhere), and how many anchors there were."""
        hay = self.norm.text
        stride = max(ANCHOR, len(needle) // MAX_ANCHORS)
        anchors = [needle[i:i + ANCHOR] for i in range(0, len(needle) - ANCHOR + 1, stride)]
        near = self.norm.from_source(self.cursor)
        lo, hi = max(0, near - len(needle)), near + 4 * len(needle) + 2000
        hits = [at for a in anchors if (at := hay.find(a, lo, hi + len(a))) >= 0]
        if len(hits) * 2 < len(anchors):
            hits = [at for a in anchors if (at := hay.find(a)) >= 0]
        return sorted(hits), len(anchors)


def _densest(hits: Sequence[int], length: int) -> tuple[int, int, int]:
    """The run of anchor hits spanning at most 1.5x the chunk with the most hits: (first, last, count)."""
    best = (hits[0], hits[0], 1)
    lo = 0
    for hi, pos in enumerate(hits):
        while pos - hits[lo] > 1.5 * length:
            lo += 1
        if hi - lo + 1 > best[2]:
            best = (hits[lo], pos, hi - lo + 1)
    return best


def locate_all(text: str, chunk_texts: Sequence[str], furniture: Sequence[tuple[int, int, str]] = ()) -> list[Match]:
    """Where each chunk of `chunk_texts` lies in `text`, in order (see the module docstring)."""
    locator = Locator(text, furniture)
    return [locator.locate(t) for t in chunk_texts]
