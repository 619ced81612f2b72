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
Steps 1-3 search a window after the previous chunk first (a few chunk lengths), and the whole text
only when no step finds the chunk there, so each chunk costs bounded work in the usual case. The normalised
text is built once per Document, in one pass, so locating is linear in the document and chunks.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: a fuzzy span must cover at least this share of the chunk's normalised text
FUZZY_MIN = 0.6
#: below FUZZY_MIN but at least this: the chunk is `partial`, located where its anchors are
PARTIAL_MIN = 0.2
#: furniture text shorter than this (normalised) is not taken out of a chunk (a page number "3")
FURNITURE_MIN = 3
#: characters searched past a chunk's expected place before the whole text is searched
WINDOW = 20_000
#: normalised characters per anchor
ANCHOR = 12
#: at most this many anchors per chunk
MAX_ANCHORS = 48
#: match kinds, best first
KINDS = ("exact", "normalised", "fuzzy", "partial", "unlocated")



class _FoldTable(dict):
    """str.translate table: a letter or digit to its NFKC, case-folded form (letters and digits
    only); anything else to nothing. Filled on first sight of each character."""

    def __missing__(self, codepoint: int) -> str:
        ch = chr(codepoint)
        folded = "".join(c for c in unicodedata.normalize("NFKC", ch).casefold() if c.isalnum()) if ch.isalnum() else ""
        self[codepoint] = folded
        return folded


_FOLD = _FoldTable()


def normalise(text: str) -> str:
    """Letters and digits only, NFKC and case-folded, character by character: the form both sides
    are compared in."""
    return text.translate(_FOLD)


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


class NormalisedText:
    """A text's normal form with, for each of its characters, the offset it came from; the spans in
    `skip` (sorted, not overlapping) are left out. Built with one translate and numpy, so a
    1-million-character document takes a fraction of a second."""

    def __init__(self, text: str, skip: Sequence[tuple[int, int]] = ()):
        codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        unique, inverse = np.unique(codes, return_inverse=True)
        widths = np.array([len(_FOLD[int(c)]) for c in unique], dtype=np.int64)[inverse]
        keep = np.ones(len(text), dtype=bool)
        for a, b in skip:
            keep[a:b] = False
        widths[~keep] = 0
        self.origin = np.repeat(np.arange(len(text), dtype=np.int64), widths)
        if len(skip):
            pieces, pos = [], 0
            for a, b in skip:
                pieces.append(text[pos:a])
                pos = max(pos, b)
            pieces.append(text[pos:])
            self.text = "".join(pieces).translate(_FOLD)
        else:
            self.text = text.translate(_FOLD)
        assert len(self.text) == len(self.origin)
        self.source_length = len(text)

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """The source span of normalised span [start, end)."""
        return int(self.origin[start]), int(self.origin[end - 1]) + 1

    def from_source(self, pos: int) -> int:
        """The first normalised index at or after source offset `pos`."""
        return int(np.searchsorted(self.origin, pos, side="left"))


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
        folded = sorted({f for _, _, t in furniture if len(f := normalise(t)) >= FURNITURE_MIN}, key=len, reverse=True)
        self.furniture = re.compile("|".join(map(re.escape, folded))) if folded else None
        self.furniture_texts = folded
        self.cursor = 0  # source offset where the next search starts: just after the previous start
        self.previous_end = 0  # a chunk overlaps the previous one by less than its own length

    def _start_for(self, length: int) -> int:
        """Where to search for a chunk of `length` source characters: after the previous chunk's start,
        and no earlier than the previous chunk's end less that length (so a short chunk, "3", is not
        found inside the chunk before it)."""
        return max(self.cursor, self.previous_end - length)

    def locate(self, chunk_text: str) -> Match:
        needle = chunk_text.strip()
        folded = normalise(chunk_text)
        content: str | None = None
        match = None
        for near in (True, False):  # near the previous chunk first: bounded work per chunk, linear overall
            match = self._exact(needle, near) or self._normalised(folded, self.norm, near)
            if match is None and self.content is not None:
                content = self._without_furniture(folded) if content is None else content
                match = (self._normalised(content, self.content, near)
                         or self._normalised(self._trim_furniture_edges(content), self.content, near))
            if match is not None:
                break
        if match is None:
            match = self._fuzzy(folded)
        if match.start is not None and match.end is not None:
            self.cursor = match.start + 1
            self.previous_end = match.end
        return match

    def _window(self, start: int, length: int, near: bool) -> tuple[int, int]:
        """The search range: from `start` for a few chunk lengths when `near`, else the whole text."""
        return (start, start + length + 2 * length + WINDOW) if near else (0, 2**62)

    def _exact(self, needle: str, near: bool) -> Match | None:
        if not needle:
            return None
        lo, hi = self._window(self._start_for(len(needle)), len(needle), near)
        at = self.text.find(needle, lo, hi)
        return Match(at, at + len(needle), "exact", 1.0) if at >= 0 else None

    def _normalised(self, needle: str, norm: NormalisedText, near: bool) -> Match | None:
        if not needle:
            return None
        start = max(norm.from_source(self.cursor), norm.from_source(self.previous_end) - len(needle))
        lo, hi = self._window(start, len(needle), near)
        at = norm.text.find(needle, lo, hi)
        if at < 0:
            return None
        start, end = norm.to_source(at, at + len(needle))
        return Match(start, end, "normalised", 1.0)

    def _trim_furniture_edges(self, needle: str) -> str:
        """`needle` less a start that ends a furniture text and an end that begins one (at least
        FURNITURE_MIN characters each): a chunk cut in the middle of a running header or footer."""
        start, end = 0, len(needle)
        for f in self.furniture_texts:
            for k in range(min(len(f), len(needle)), FURNITURE_MIN - 1, -1):
                if needle.startswith(f[-k:]):
                    start = max(start, k)
                    break
            for k in range(min(len(f), len(needle)), FURNITURE_MIN - 1, -1):
                if needle.endswith(f[:k]):
                    end = min(end, len(needle) - k)
                    break
        return needle[start:end] if end - start >= FURNITURE_MIN else ""

    def _without_furniture(self, folded: str) -> str:
        return self.furniture.sub("", folded) if self.furniture is not None else folded

    def _fuzzy(self, needle: str) -> Match:
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
