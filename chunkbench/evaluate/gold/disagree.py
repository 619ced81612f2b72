"""Where the parse and the twin disagree, place by place: what `render --gold` draws on the page,
so a reviewer sees the parse's faults where they are. Each disagreement is one the parse scores
count (evaluate.gold.parse); the codes are in DISAGREEMENTS."""

from __future__ import annotations

from dataclasses import dataclass

from chunkbench.text.folding import LETTERS_AND_DIGITS, fold
from chunkbench.text.segment import one_line
from chunkbench.types.document import Document

from . import Gold, GoldBlock
from .blocks import KIND_NAMES
from .parse import PlacedIndex, covering, judged_elements, level_sign, table_row_at

#: every disagreement code and what it says
DISAGREEMENTS = {
    "missed_heading": "a heading of the twin the parse reads as something else",
    "extra_heading": "a parse heading where the twin has none (an admonition's title, a running title, a line of text)",
    "wrong_level": "a heading whose level compares with the heading before it otherwise than in the twin",
    "cell_differs": "a table row with a cell that differs from the twin's cell at the same place",
    "out_of_order": "a block the parse has before a block that comes before it in the twin",
}


@dataclass(frozen=True)
class Disagreement:
    """One place where the parse and the twin differ: its code, its span of `doc.text`, and what the twin says."""

    code: str
    start: int
    end: int
    detail: str


def disagreements(doc: Document, gold: Gold) -> list[Disagreement]:
    """Every disagreement of `doc` with `gold` (placed in `doc` first when made on another parse), in text order."""
    gold = gold.for_document(doc)
    located = [b for b in gold.leaves if b.located]
    out, matched = _missed_headings(doc, located)
    out += _extra_headings(doc, gold, located)
    out += _wrong_levels(matched)
    out += _cells_differing(doc, located)
    out += _out_of_order(located)
    return sorted(out, key=lambda d: (d.start, d.code))


def _missed_headings(doc: Document, located: list[GoldBlock]) -> tuple[list[Disagreement], list]:
    """The twin's headings that no heading of `doc` covers, and those that one does (twin, element)."""
    out: list[Disagreement] = []
    matched = []
    for b in (b for b in located if b.kind == "heading"):
        e = covering(doc, b, heading=True)
        if e is None:
            under = covering(doc, b)
            what = f"a {under.type}" if under is not None else "no single element"
            out.append(Disagreement("missed_heading", *b.span, f"twin heading {one_line(b.text)!r} is {what} here"))
        else:
            matched.append((b, e))
    return out, matched


def _extra_headings(doc: Document, gold: Gold, located: list[GoldBlock]) -> list[Disagreement]:
    """Headings of `doc` where the twin has no heading."""
    out = []
    placed = PlacedIndex(located)
    for e in (e for e in judged_elements(doc, gold) if e.is_heading):
        twin = [b.kind for b in placed.overlapping(e.char_start, e.char_end)]
        if "heading" in twin:
            continue
        what = f"the twin has {KIND_NAMES[twin[0]] if twin else 'nothing'} here"
        out.append(Disagreement("extra_heading", e.char_start, e.char_end, f"{one_line(e.text)!r} read as a heading; {what}"))
    return out


def _wrong_levels(matched: list) -> list[Disagreement]:
    """Consecutive matched headings whose levels go the other way than the twin's."""
    out = []
    for (g1, e1), (g2, e2) in zip(matched, matched[1:]):
        if g1.level is None or g2.level is None:
            continue
        p1, p2 = e1.heading_level, e2.heading_level
        if p1 is None or p2 is None or level_sign(p1 - p2) != level_sign(g1.level - g2.level):
            rel = {1: "above", 0: "at the level of", -1: "below"}[level_sign(g1.level - g2.level)]
            out.append(Disagreement("wrong_level", e2.char_start, e2.char_end,
                                    f"level {p2} after level {p1}; the twin has it {rel} {one_line(g1.text, 40)!r}"))
    return out


def _cells_differing(doc: Document, located: list[GoldBlock]) -> list[Disagreement]:
    """Table rows of the twin whose first differing cell reads otherwise in `doc`'s row."""
    out = []
    for row in (b for b in located if b.kind == "row"):
        found = table_row_at(doc, row)
        if found is None:
            continue
        theirs = list(found[1])
        for n, cell in enumerate(row.cells):
            mine = theirs[n] if n < len(theirs) else ""
            if fold(cell, LETTERS_AND_DIGITS) and fold(cell, LETTERS_AND_DIGITS) != fold(mine, LETTERS_AND_DIGITS):
                out.append(Disagreement("cell_differs", *row.span,
                                        f"column {n + 1}: {one_line(mine, 30)!r} where the twin has {one_line(cell, 30)!r}"))
                break
    return out


def _out_of_order(located: list[GoldBlock]) -> list[Disagreement]:
    """Blocks of the twin's flow that `doc` reads before one they follow in the twin."""
    out = []
    furthest = None
    for b in (b for b in located if b.kind not in ("footnote", "row")):
        if furthest is not None and b.span[0] < furthest.span[0]:
            out.append(Disagreement("out_of_order", *b.span,
                                    f"{one_line(b.text, 40)!r} comes before {one_line(furthest.text, 40)!r} here; "
                                    f"after it in the twin"))
        elif furthest is None or b.span[0] > furthest.span[0]:
            furthest = b
    return out
