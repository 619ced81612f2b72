"""Strategy `sentences`: one chunk per sentence, short sentences joined.

For retrieval scored on the text a question's answer sits in, a chunk that starts and ends where
a sentence does wastes nothing: a character splitter's 200-character pieces cut sentences in two,
and a greedy packer adds neighbouring sentences that dilute the match. Here:

* the content (page furniture skipped) is cut into paragraphs (elements and their blank lines),
  then sentences (chunkbench.text.sentences.sentence_spans: abbreviations, decimals, list markers and ellipses do not end one; lower-case text has sentences too);
* consecutive sentences of one paragraph are joined while the chunk so far or the next sentence
  is shorter than `min_chars` ("Mr. Speaker." or "Zero." alone says nothing), as long as the
  chunk stays within `max_chars`; a chunk of headings takes the sentence (or the table) after them
  (no chunk of a heading alone);
* a sentence longer than `max_chars` is cut at a line break, else a space (the shared Packer); a
  table is one chunk, cut at rows when longer than `max_chars`.

Offsets: exact canonical bounds; the text is that span less any skipped element inside it.
"""

from __future__ import annotations

from collections.abc import Callable

from chunkbench.errors import ParamError
from chunkbench.text.sentences import depends_on_previous, sentence_spans
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
    content_chunk,
)

#: why a chunk starts where it does, in words, by the kind of its first unit (the code: spans.OPENING_REASONS)
_WHY = {
    HEADING: "a heading starts here",
    PARAGRAPH: "a new paragraph starts here",
    SENTENCE: "a new sentence starts here",
    TABLE: "a table starts here",
    ROW: "a table longer than the maximum continues at a row",
    HARD: "a sentence longer than the maximum continues at a line break or space",
}


def check_min_max(strategy: str) -> Callable[[dict], None]:
    """The check that `min_chars` is at most `max_chars`, for `strategy` (sentences, semantic)."""
    def check(params: dict) -> None:
        if params["min_chars"] > params["max_chars"]:
            raise ParamError(f"strategy {strategy!r} parameter 'min_chars' ({params['min_chars']}) must be <= "
                             f"max_chars ({params['max_chars']})")
    return check


_check = check_min_max("sentences")


def chunk_sentences(doc: Document, *, min_chars: int, max_chars: int, join_dependent: bool,
                    skip_contents: bool) -> StrategyResult:
    """One chunk per sentence; sentences under `min_chars` joined with their neighbour."""
    _check({"min_chars": min_chars, "max_chars": max_chars})
    ct, skipped = ContentText.of(doc, skip_contents=skip_contents)
    packer = Packer(ct.text, max_chars, header_room=True)
    groups: list[list[PackUnit]] = []
    for unit, opens_paragraph in sentence_units(ct, packer):
        if groups and _joins(groups[-1], unit, opens_paragraph, min_chars, max_chars, ct.text, join_dependent):
            groups[-1].append(unit)
        else:
            groups.append([unit])
    chunks: list[Chunk] = []
    for n, group in enumerate(groups):
        if n == 0:
            boundary = Boundary(Reason.DOCUMENT_START, "first chunk of the document")
        elif group[0].kind == TITLE:
            boundary = ct.lead_in_boundary(group[0].start, "tables are chunks of their own")
        else:
            kind = group[0].kind
            boundary = Boundary(OPENING_REASONS[kind], f"{_WHY[kind]} (sentences of at least {min_chars}, at most {max_chars} chars)")
        chunks.append(content_chunk(doc, ct, n, group[0].start, group[-1].end, boundary,
                                    {"sentences": sum(u.kind in (PARAGRAPH, SENTENCE, TITLE) for u in group)}))
    return StrategyResult(chunks=chunks, skipped=skipped)


def sentence_units(ct: ContentText, packer: Packer):
    """(unit, opens a paragraph) in reading order: headings, table pieces (the first, of kind
    TABLE, or TITLE when a caption or lead-in opens it), sentences and the pieces of sentences too
    long for one chunk. The last sentence of a lead-in (types.document.lead_ins) opens what it
    introduces: the table's first piece, or the first sentence of the list item or display after
    it, within the limit."""
    lead: tuple[PackUnit, bool] | None = None  # a lead-in's last sentence, held for what follows it
    for i, el in enumerate(ct.elements):
        if el.is_heading:
            if lead is not None:
                yield from _within(*lead, packer)
                lead = None
            for u in ct.element_units(i, HEADING):
                yield from _within(u, True, packer)
            continue
        if el.type == "table":
            table = ([PackUnit(lead[0].start, lead[0].end, TITLE)] if lead else []) + ct.element_units(i, TABLE)
            for k, piece in enumerate(packer.pack(table)):
                yield PackUnit(piece[0].start, piece[-1].end, piece[0].kind if k or lead else TABLE), k == 0
            lead = None
            continue
        units: list[tuple[PackUnit, bool]] = [(PackUnit(para.start + a, para.start + b, PARAGRAPH if k == 0 else SENTENCE), k == 0)
                 for para in ct.element_units(i, PARAGRAPH)
                 for k, (a, b) in enumerate(sentence_spans(ct.text[para.start:para.end]))]
        if lead is not None and units:
            first = units[0][0]
            if first.end - lead[0].start <= packer.limit:
                units[0] = (PackUnit(lead[0].start, first.end, lead[0].kind), lead[1])
            else:
                yield from _within(*lead, packer)
            lead = None
        if ct.kind(i) == TITLE and units:
            lead = units.pop()
        for unit, opens in units:
            yield from _within(unit, opens, packer)
    if lead is not None:
        yield from _within(*lead, packer)


def _within(unit: PackUnit, opens_paragraph: bool, packer: Packer):
    """`unit`, or its pieces cut at line breaks or spaces when it is longer than the limit."""
    if unit.end - unit.start <= packer.limit:
        yield unit, opens_paragraph
        return
    for j, piece in enumerate(packer.hard_split(unit.start, unit.end)):
        yield PackUnit(piece.start, piece.end, unit.kind if j == 0 else HARD), opens_paragraph and j == 0


def _joins(group: list[PackUnit], unit: PackUnit, opens_paragraph: bool, minimum: int, maximum: int,
           text: str = "", dependent: bool = False) -> bool:
    """Whether `unit` joins the chunk `group`: after headings alone, or when either is short and
    both are sentences of one paragraph; never past `maximum`."""
    if unit.end - group[0].start > maximum:
        return False
    if all(u.kind == HEADING for u in group):
        return unit.kind not in (ROW, HARD)  # headings take what follows them, a table they title too
    if unit.kind in (TABLE, TITLE, ROW, HARD) or group[-1].kind in (TABLE, TITLE, ROW):
        return False
    if opens_paragraph or unit.kind == HEADING:
        return False
    if dependent and depends_on_previous(text[unit.start:unit.end]):
        return True
    return group[-1].end - group[0].start < minimum or unit.end - unit.start < minimum


STRATEGY = declare(
    chunk_sentences,
    "sentences",
    small={"min_chars": 0, "max_chars": 120, "join_dependent": False},
    params=[
        SKIP_CONTENTS,
        Param("min_chars", int, 20, "a sentence (or chunk) shorter than this is joined with its neighbour in the paragraph",
              min=0, max=10_000, ui_step=10),
        Param("join_dependent", bool, True, "a sentence opening with a connective or pronoun that refers back "
              "(And, But, This, It, They, ...) joins the sentence before it"),
        Param("max_chars", int, 1000, "largest chunk; a longer sentence is cut at a line break or space",
              min=20, max=100_000, ui_step=50),
    ],
    doc="one chunk per sentence, short sentences joined: boundaries where the text's own sentences end",
    spec="docs/strategy-recursive.md",
    ruleset="sentences/2026-12-05",
    offsets="slice_without_skipped",
    check=_check,
    boundaries='one chunk per sentence; a sentence under `min_chars` (20) joins its neighbour in the paragraph, one opening with "And", "But", "This", "It", ... joins the one before (`join_dependent`); a heading joins the sentence after it; a sentence over `max_chars` (1000) is cut at a line break or space; tables alone, cut at rows',
    fields='`sentences`',
    size_limit=lambda p: (p["max_chars"], "chars"),
    keeps_lead_ins=always,
)
