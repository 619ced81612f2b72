"""Strategy `recursive`: a recursive splitter over the document's content text.

Like a recursive character splitter, chunks are filled greedily up to `chunk_size` (characters or
cl100k tokens) with whole paragraphs; a paragraph too big for a chunk is cut at sentences, a
sentence too big at a line break or a space, evenly so that no piece is a scrap (the `Packer` of
spans.py, the one cutter all strategies share). Unlike a plain splitter it works on layout
elements: page furniture is left out, tables are cut at rows, headings start a chunk
(`respect_headings`) and are never left alone at the end of one, and every chunk records pages,
bboxes and source elements, and why it starts there.

`overlap` (in the same unit) makes each chunk after the first of a section start that much
earlier, inside the previous chunk, at a word start: the overlap is the previous chunk's text in
place, never copied text, and never reaches across a heading that started a chunk.

Offsets: `start_char`/`end_char` are exact bounds in the canonical text (the overlap included); the
chunk text is that span with any skipped element (header, footer, page number) inside it left out.
"""

from __future__ import annotations

from chunkbench.errors import ParamError
from chunkbench.text.tokenizer import count_tokens
from chunkbench.types.chunk import Boundary, Chunk, Reason
from chunkbench.types.document import Document

from .base import Param, StrategyResult, always, declare
from .spans import (
    HARD,
    HEADING,
    OPENING_REASONS,
    PARAGRAPH,
    ROW,
    SENTENCE,
    SKIP_CONTENTS,
    TABLE,
    TITLE,
    ContentText,
    Packer,
    PackUnit,
    char_size,
    content_chunk,
    overlap_start,
)

#: upper bound of characters per cl100k token, so huge spans are never tokenized whole
MAX_TOKEN_CHARS = 128
#: why a chunk starts where it does, in words, by the kind of unit it starts with (the code: spans.OPENING_REASONS)
_WHY = {
    HEADING: "a heading starts here",
    PARAGRAPH: "a paragraph starts here: the previous chunk was full",
    TABLE: "a table starts here: the previous chunk was full",
    ROW: "a table too big for one chunk continues at a row",
    SENTENCE: "a paragraph too big for one chunk continues at a sentence",
    HARD: "a sentence too big for one chunk continues at a line break or space",
}


def _check(params: dict) -> None:
    if params["overlap"] >= params["chunk_size"]:
        raise ParamError(f"strategy 'recursive' parameter 'overlap' ({params['overlap']}) must be < chunk_size "
                         f"({params['chunk_size']})")


def chunk_recursive(doc: Document, *, chunk_size: int, unit: str, overlap: int,
                    respect_headings: bool, join_dependent: bool, skip_contents: bool) -> StrategyResult:
    """Greedy chunks of whole paragraphs up to `chunk_size`, cut finer only where one is too big."""
    _check({"chunk_size": chunk_size, "overlap": overlap})
    ct, skipped = ContentText.of(doc, skip_contents=skip_contents)
    if unit == "tokens":
        packer = Packer(ct.text, chunk_size, lambda a, b: count_tokens(ct.text[a:b]), chars_per_unit=MAX_TOKEN_CHARS,
                        header_room=True, keep_dependents=join_dependent)
    else:
        packer = Packer(ct.text, chunk_size, char_size, header_room=True, keep_dependents=join_dependent)
    sections: list[list[PackUnit]] = [[]]
    for i in range(len(ct.elements)):
        kind = ct.kind(i)
        # a heading starts a section, unless the section so far holds only headings (a heading
        # directly followed by a sub-heading): a chunk of headings alone says nothing
        if respect_headings and kind == HEADING and any(u.kind != HEADING for u in sections[-1]):
            sections.append([])
        sections[-1].extend(ct.element_units(i, kind))
    chunks: list[Chunk] = []
    for section in sections:
        previous_end = section[0].start if section else 0
        for n, piece in enumerate(packer.pack(section)):
            lead = _lead(ct.text, section[0].start, piece[0].start, overlap, unit) if n else piece[0].start
            if lead >= previous_end:  # only text between the pieces (a blank line the packer dropped): no overlap
                lead = piece[0].start
            previous_end = piece[-1].end
            if not chunks:
                boundary = Boundary(Reason.DOCUMENT_START, "first chunk of the document")
            elif respect_headings and n == 0:
                boundary = Boundary(Reason.HEADING, f"a heading starts a new chunk (chunks up to {chunk_size} {unit})")
            elif piece[0].kind == TITLE:
                boundary = ct.lead_in_boundary(piece[0].start, f"the previous chunk was full (chunks up to {chunk_size} {unit})")
            else:
                kind = piece[0].kind
                boundary = Boundary(OPENING_REASONS[kind], f"{_WHY[kind]} (chunks up to {chunk_size} {unit}){packer.why_moved(piece[0].start)}")
            if lead < piece[0].start:
                boundary = Boundary(boundary.reason, f"{boundary.detail}; starts {piece[0].start - lead} chars "
                                                     "earlier, overlapping the previous chunk")
            end = piece[-1].end
            size = count_tokens(ct.text[lead:end]) if unit == "tokens" else end - lead
            chunks.append(content_chunk(doc, ct, len(chunks), lead, end, boundary,
                                        {"size": size, "size_unit": unit, "overlap_chars": piece[0].start - lead}))
    return StrategyResult(chunks=chunks, skipped=skipped)


def _lead(text: str, floor: int, start: int, overlap: int, unit: str) -> int:
    """Where a chunk starting at `start` begins with `overlap` units of the text before it (not
    before `floor`, the section start), moved to a word start."""
    if overlap <= 0 or start <= floor:
        return start
    if unit == "chars":
        return overlap_start(text, max(floor, start - overlap), start)
    lo, hi = max(floor, start - overlap * MAX_TOKEN_CHARS), start  # the earliest start within `overlap` tokens
    while lo < hi:
        mid = (lo + hi) // 2
        if count_tokens(text[mid:start]) <= overlap:
            hi = mid
        else:
            lo = mid + 1
    return overlap_start(text, lo, start)


STRATEGY = declare(
    chunk_recursive,
    "recursive",
    small={"chunk_size": 150, "respect_headings": False, "overlap": 20},
    params=[
        SKIP_CONTENTS,
        Param("chunk_size", int, 1000, "largest chunk, in `unit`s; whole paragraphs are packed up to it",
              min=20, max=100_000, ui_step=50),
        Param("unit", str, "chars", "what chunk_size and overlap count", choices=("chars", "tokens")),
        Param("overlap", int, 0, "each chunk after the first of a section starts this much earlier, inside the "
              "previous one (at a word start)", min=0, max=10_000, ui_step=10),
        Param("respect_headings", bool, True, "a heading always starts a new chunk"),
        Param("join_dependent", bool, True, "a cut inside a paragraph before a sentence that refers back "
              "(\"This …\", \"But …\") moves to the nearest sentence that does not, when both chunks fit"),
    ],
    doc="recursive splitter on layout elements: paragraphs, then sentences, then words, up to chunk_size",
    spec="docs/strategy-recursive.md",
    ruleset="recursive/2026-12-05",
    offsets="slice_without_skipped",
    check=_check,
    boundaries='whole paragraphs packed greedily up to `chunk_size` (1000 `chars`, or cl100k `tokens`); a paragraph too big is cut at sentences, a sentence at a line break or space, evenly (no scraps), and not before a sentence that refers back ("This …", "But …") when the cut can move (`join_dependent`); a heading starts a chunk (`respect_headings`); `overlap` (0) in place, at a word start; page furniture skipped',
    fields='`size`, `size_unit`, `overlap_chars`',
    size_limit=lambda p: (p["chunk_size"], p["unit"]),
    keeps_lead_ins=always,
)
