"""A quote found in a Document, with the boxes of exactly its words (`cb.cite`, `chunkbench cite`).

The quote is located as another chunker's chunk is (`locate`: exact, then normalised across
hyphenation, ligatures, spacing, columns and running headers, then in pieces, then by anchors:
fuzzy or partial), inside a given chunk's span first when one is named. Its canonical span is then
mapped to the PDF's words (`loaders.regions.word_lines`): one rectangle per line, on every page the
quote crosses. A Document keeps its Locator (`Document.derived`), so quotes after the first cost a
search, not a pass over the document.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

from chunkbench.loaders.regions import position_box, word_lines
from chunkbench.text.segment import one_line
from chunkbench.types.chunk import BBox, Chunk
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document, is_noise

from .locate import PIECE_MIN, UNLOCATED, Locator, Match, document_furniture, normalise

#: match kinds that place the quote's own words (fuzzy and partial place the span of its anchors)
FOUND_KINDS = ("exact", "normalised")


@dataclass(frozen=True)
class Citation:
    """Where a quote is: `kind` (exact, normalised, fuzzy, partial, unlocated), canonical
    [start, end) (spanning its `spans` when found in pieces), the share of its normalised
    characters found, the part of the quote found when that is not all of it, and `boxes`: one
    per line of its words, 1-based pages. `within` is the chunk searched first (its index) and
    `in_chunk` whether the quote was found there; `problem` says why nothing was found."""

    quote: str
    kind: str
    start: int | None = None
    end: int | None = None
    spans: tuple[tuple[int, int], ...] = ()
    share: float = 0.0
    found_part: str | None = None
    boxes: tuple[BBox, ...] = ()
    within: int | None = None
    in_chunk: bool | None = None
    problem: str | None = None
    locator: dict[str, Any] = field(default_factory=dict)

    @property
    def found(self) -> bool:
        return self.start is not None

    @property
    def pages(self) -> tuple[int, ...]:
        return tuple(sorted({b.page for b in self.boxes}))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: what `chunkbench cite -o` writes."""
        return {"quote": self.quote, "found": self.found, "kind": self.kind, "start": self.start, "end": self.end,
                "spans": [list(s) for s in self.spans], "share": self.share, "found_part": self.found_part,
                "pages": list(self.pages), "boxes": [b.to_dict() for b in self.boxes], "within": self.within,
                "in_chunk": self.in_chunk, "problem": self.problem, "locator": self.locator}


def cite(doc: Document, text: str, within: Chunk | None = None) -> Citation:
    """The quote `text` located in `doc` (inside chunk `within` first), with its words' line boxes.

    Never raises for a quote that is not there: the Citation says `found` False and why (an empty
    quote, one longer than the document, one not in it)."""
    quote = text if isinstance(text, str) else str(text)
    folded = normalise(quote)
    where = within.index if within is not None else None
    if not folded:
        return Citation(quote, "unlocated", within=where, problem="the quote is empty (no letters or digits)")
    locator = _locator(doc)
    if len(folded) > len(locator.norm.text):
        return Citation(quote, "unlocated", within=where, problem=f"the quote ({len(folded):,} letters and digits) is "
                        f"longer than the document ({len(locator.norm.text):,})")
    match, in_chunk = UNLOCATED, None
    if within is not None and within.start_char is not None and within.end_char is not None:
        match = _in_span(locator, quote.strip(), folded, within.start_char, within.end_char)
        if not match.located:  # in pieces, or fuzzily: the general search, kept when it lands in the chunk
            match = _search(locator, quote, within.start_char)
            if match.located and not within.start_char <= match.start <= match.end <= within.end_char:  # type: ignore[operator]
                match = UNLOCATED
        in_chunk = match.located
    if not match.located:
        match = _search(locator, quote, 0)
    if not match.located:
        return Citation(quote, "unlocated", within=where, in_chunk=in_chunk if within is not None else None,
                        problem="not found in the document")
    assert match.start is not None and match.end is not None
    start, end = match.start, match.end
    if match.kind in FOUND_KINDS and _cuts_a_word(doc.text, start, end):
        whole = _whole_word_occurrence(locator, doc.text, folded)
        if whole is not None:
            match = Match(whole[0], whole[1], "normalised", 1.0)
            if within is not None and within.start_char is not None and within.end_char is not None:
                in_chunk = within.start_char <= whole[0] <= whole[1] <= within.end_char
        elif len(folded) < WHOLE_WORDS_FROM:
            return Citation(quote, "unlocated", within=where, in_chunk=False if within is not None else None,
                            problem=f"found only inside a word ({one_line(_word_around(doc.text, start, end), 40)!r} "
                                    f"at characters {start}-{end}), not as a word of its own")
    assert match.start is not None and match.end is not None
    spans = _without_furniture(doc, match.spans, folded)
    boxes = tuple(box for a, b in spans for box in word_lines(doc, a, b))
    near = doc.text[max(0, match.start - len(quote)):match.end + len(quote)]
    part = None if match.kind in FOUND_KINDS else _found_part(quote, near)
    return Citation(quote, match.kind, match.start, match.end, spans if len(spans) > 1 else (),
                    match.score, part, boxes, where, in_chunk if within is not None else None,
                    locator=_place(doc, match.start, match.end))


#: a quote of this many letters and digits or more may start or end inside a word (a copy cut in a
#: word's middle); a shorter one found only inside words ("(ab)" in "about") is not found
WHOLE_WORDS_FROM = 20
#: occurrences of a quote looked through for one of whole words (bounds the work on "e")
_MAX_OCCURRENCES = 10_000


def _cuts_a_word(text: str, start: int, end: int) -> bool:
    """Whether canonical [start, end) begins or ends in the middle of a word of `text`."""
    return ((0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum())
            or (0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum()))


def _whole_word_occurrence(locator: Locator, text: str, folded: str) -> tuple[int, int] | None:
    """The first occurrence of the normalised quote that neither begins nor ends inside a word."""
    at = 0
    for _ in range(_MAX_OCCURRENCES):
        found = locator.norm.find(folded, at)
        if found is None:
            return None
        if not _cuts_a_word(text, *found):
            return found
        at = found[0] + 1
    return None


def _word_around(text: str, start: int, end: int) -> str:
    """The word(s) of `text` that [start, end) lies inside."""
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return text[start:end]


def _locator(doc: Document) -> Locator:
    """The Document's Locator, kept with it (built once: folding the text is a pass over it)."""
    return doc.derived("cite.locator", lambda: Locator(doc.text, document_furniture(doc)))


def _in_span(locator: Locator, needle: str, folded: str, start: int, end: int) -> Match:
    """The quote exactly, else normalised, inside canonical [start, end) (a chunk's span)."""
    at = locator.text.find(needle, start, end)
    if at >= 0 and at + len(needle) <= end:
        return Match(at, at + len(needle), "exact", 1.0)
    found = locator.norm.find(folded, start, end)
    return Match(found[0], found[1], "normalised", 1.0) if found is not None else UNLOCATED


def _search(locator: Locator, quote: str, at: int) -> Match:
    """`quote` searched from canonical offset `at` (the window there first, then the whole text).

    A quote found in pieces (a column, or a table's cells read in another order) must be in few of
    them, one per PIECE_MIN letters and digits at most: many short pieces are only letters the
    quote shares with the text around, so it is placed by its anchors instead."""
    locator.cursor = locator.previous_end = at
    match = locator.locate(quote)
    folded = normalise(quote)
    if len(match.pieces) > max(2, len(folded) // PIECE_MIN):
        match = locator.by_anchors(folded)
    return match


def _without_furniture(doc: Document, spans: tuple[tuple[int, int], ...], folded: str) -> tuple[tuple[int, int], ...]:
    """`spans` less the page furniture inside them that the quote does not hold (a quote across a
    page break is found across the footer and header between: those are not highlighted)."""
    cut = [(e.char_start, e.char_end) for e in doc.elements_overlapping(spans[0][0], spans[-1][1])
           if is_noise(e) and e.text and normalise(e.text) not in folded]
    out: list[tuple[int, int]] = []
    for a, b in spans:
        for x, y in cut:
            if a < x and y < b:
                out.append((a, x))
                a = y
        out.append((a, b))
    return tuple((a, b) for a, b in out if normalise(doc.text[a:b]))


def _found_part(quote: str, found: str) -> str | None:
    """The longest run of the quote's words whose letters and digits are in `found` (the text
    around the match): the part of a fuzzy or partial quote that is in the document."""
    words = quote.split()
    hay = normalise(found)
    best = (0, 0)
    for i in range(len(words)):
        j = i + max(best[1] - best[0], 0) + 1
        while j <= len(words) and normalise(" ".join(words[i:j])) in hay:
            best = (i, j)
            j += 1
    return " ".join(words[best[0]:best[1]]) or None


_MINERU_ID = re.compile(r"p(\d+)-e(\d+)$")


def _place(doc: Document, start: int, end: int, blocks: dict[str, int] | None = None) -> dict[str, Any]:
    """A reader's locator of canonical [start, end): its first page, the boxes of its first and
    last words (with a PDF), and for a MinerU parse its `page:N/block:M/char:K` (MinerU 4's content
    locator: 1-based page and block on that page, offset in the block's text; `blocks`, the
    document's `mineru_blocks` when the caller places many spans)."""
    out: dict[str, Any] = {}
    element = doc.element_at(start)
    if element is not None and element.page_idx is not None:
        out["page"] = element.page_idx + 1
    if doc.pdf_path:
        first, last = position_box(doc, start), position_box(doc, max(start, end - 1))
        if first is not None:
            out.update(page=first.page, first_word=first.to_dict())
        if last is not None:
            out["last_word"] = last.to_dict()
    if element is not None and element.page_idx is not None and doc.parser.name == "mineru":
        block = (blocks if blocks is not None else mineru_blocks(doc)).get(element.id)
        if block is not None:
            out["mineru"] = f"page:{element.page_idx + 1}/block:{block}/char:{max(0, start - element.char_start)}"
    return out


def mineru_blocks(doc: Document) -> dict[str, int]:
    """Element id → its 1-based block number on its page, in MinerU's order (ids `p{page}-e{item}`)."""
    by_page: dict[int, list[tuple[int, str]]] = {}
    for e in doc.elements:
        m = _MINERU_ID.match(e.id)
        if m is not None and e.page_idx is not None:
            by_page.setdefault(e.page_idx, []).append((int(m.group(2)), e.id))
    return {ident: n for items in by_page.values() for n, (_, ident) in enumerate(sorted(items), 1)}


#: the chunk field (chunks.json, the hand-offs' metadata) holding a chunk's citation locator
CITATION = "citation"


def with_citations(chunkset: ChunkSet) -> ChunkSet:
    """The same chunks, each with `citation`: where a reader finds it (first page, the boxes of its
    first and last words, and `page:N/block:M/char:K` for a MinerU parse); chunks without a place in
    the text are left as they are. Reads the words of each chunk's first and last element only."""
    doc = chunkset.doc
    blocks = mineru_blocks(doc) if doc.parser.name == "mineru" else {}
    chunks = tuple(
        dataclasses.replace(c, extra={**c.extra, CITATION: _place(doc, c.start_char, c.end_char, blocks)})
        if c.start_char is not None and c.end_char is not None and c.end_char > c.start_char else c
        for c in chunkset.chunks)
    return dataclasses.replace(chunkset, chunks=chunks)

