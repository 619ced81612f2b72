"""Evidence located in `doc.text` ignoring whitespace, case, accents and typographic quotes: every
question's evidence becomes character ranges and pages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chunkbench.text.folding import EVIDENCE, FoldedText, fold
from chunkbench.text.ranges import Span, merge_ranges

from .questions import Question

if TYPE_CHECKING:
    from chunkbench.types.document import Document, Element


#: an evidence fragment shorter than this (normalized chars) is not located on its own
MIN_FRAGMENT = 16


@dataclass(frozen=True)
class Resolved:
    """A question with its evidence turned into character ranges and 1-based pages."""

    question: Question
    spans: tuple[tuple[int, int], ...]
    pages: frozenset[int]
    #: share of the evidence text (normalized characters) that was found in the document
    located: float


def normalized_text(text: str) -> FoldedText:
    """`text` folded as evidence is compared (text.folding.EVIDENCE), mapped back to source offsets;
    built once per document."""
    return FoldedText(text, EVIDENCE)


def normalize(s: str) -> str:
    """Whitespace-free folded form of `s`, character by character exactly as `normalized_text` folds
    the document (so a needle and the text it came from always compare equal)."""
    return fold(s, EVIDENCE)


def pages_of(e: Element) -> frozenset[int]:
    """1-based pages an element lies on (empty when it has no page)."""
    return frozenset(e.page_numbers)


def page_ranges(doc: Document) -> dict[int, tuple[int, int]]:
    """1-based page → the character range of `doc.text` its non-empty elements span."""
    out: dict[int, tuple[int, int]] = {}
    for e in doc.elements:
        if e.page_idx is None or e.char_end <= e.char_start:
            continue
        for p in pages_of(e):
            a, b = out.get(p, (e.char_start, e.char_end))
            out[p] = (min(a, e.char_start), max(b, e.char_end))
    return out


def locate(norm: FoldedText, text: str, window: Span | None = None) -> tuple[list[Span], float]:
    """Character ranges where `text` occurs (whitespace-insensitive) and the share found.

    The whole text is looked for first (inside `window`, the evidence page, then anywhere); when
    it is not there verbatim (tables extracted in another order), its lines are grouped into
    fragments of at least MIN_FRAGMENT characters and each is looked for the same way."""
    whole = normalize(text)
    if not whole:
        return [], 0.0
    hit = _find(norm, whole, window)
    if hit:
        return [hit], 1.0
    spans, found = [], 0
    for frag in _fragments(text):
        hit = _find(norm, frag, window)
        if hit:
            spans.append(hit)
            found += len(frag)
    return merge_ranges(spans), found / len(whole)


def _find(norm: FoldedText, needle: str, window: tuple[int, int] | None) -> tuple[int, int] | None:
    if window is not None:
        hit = norm.find(needle, *window)
        if hit:
            return hit
    return norm.find(needle)


def _fragments(text: str) -> list[str]:
    """Lines of `text` (normalized), consecutive short ones joined to >= MIN_FRAGMENT chars."""
    out, buf = [], ""
    for line in re.split(r"\n|(?<=[.;:])\s+", text):
        buf += normalize(line)
        if len(buf) >= MIN_FRAGMENT:
            out.append(buf)
            buf = ""
    if buf and out and len(buf) < MIN_FRAGMENT:
        out[-1] += buf  # a short tail rides with the previous fragment
    elif buf:
        out.append(buf)
    return out


def resolve(doc: Document, questions: Sequence[Question], norm: FoldedText | None = None,
            source_chars: int | None = None) -> list[Resolved]:
    """Each question's evidence as character ranges of `doc.text` and a set of 1-based pages.

    Evidence with an `offset` into the source file (of `source_chars` characters) is looked for
    first near the same share of `doc.text`, so a sentence that occurs twice resolves to the copy meant."""
    norm = norm or normalized_text(doc.text)
    pages_at = page_ranges(doc)
    scale = len(doc.text) / source_chars if source_chars else 1.0
    out = []
    for q in questions:
        spans: list[tuple[int, int]] = []
        pages: set[int] = set()
        found = total = 0.0
        for ev in q.evidence:
            if ev.page is not None:
                pages.add(ev.page)
            if ev.text:
                window = (pages_at.get(ev.page) if ev.page is not None
                          else _near(ev.offset * scale, len(ev.text), len(doc.text)) if ev.offset is not None else None)
                got, share = locate(norm, ev.text, window)
                spans.extend(got)
                size = len(normalize(ev.text))
                found += share * size
                total += size
        out.append(Resolved(q, tuple(merge_ranges(spans)), frozenset(pages), found / total if total else 0.0))
    return out


#: how far (characters of doc.text, at least) around a source offset a span is looked for first
NEAR_SLACK = 2000


def _near(at: float, length: int, total: int) -> Span:
    """The window around `at` where a span of `length` characters given by offset is looked for
    first: loaders change whitespace and markup, so offsets drift by a few per cent at most."""
    slack = max(NEAR_SLACK, total // 50)
    return max(0, int(at) - slack), min(total, int(at) + length + slack)
