"""The parse against gold: headings found and invented, their levels, tables and their cells,
list items, reading order and how much of the twin's text is there. Each score is defined once,
in PARSE_SCORES, and documented in docs/gold.md from it.

A parse element *matches* a located gold block when it covers at least half of the block's place.
Only parse elements inside the stretch the gold covers (from its first located block to its last)
are judged: a PDF's cover and back-of-book pages have no twin."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from chunkbench.text.folding import LETTERS_AND_DIGITS, fold
from chunkbench.text.segment import is_rule_line
from chunkbench.types.document import Document, Element, is_noise

from . import Gold, share
from .blocks import GoldBlock

#: every parse score: name -> what it measures (the docs' table and the glossary read this)
PARSE_SCORES = {
    "located": "share of the twin's blocks placed in the parse (exact or anchored); the rest are not scored",
    "text_coverage": "share of the twin's letters and digits inside placed blocks",
    "heading_recall": "share of the twin's placed headings that a parse heading covers",
    "heading_precision": "share of the parse's headings (inside the stretch the gold covers) that cover a twin heading",
    "level_agreement": "share of consecutive pairs of matched headings whose levels compare alike in both "
                       "(deeper, same, shallower)",
    "note_titles_as_headings": "share of the twin's admonition titles (Note, Warning, ...) the parse reads as headings",
    "table_recall": "share of the twin's tables with at least half their placed rows inside parse tables",
    "table_precision": "share of the parse's tables (inside the stretch the gold covers) that hold rows of a twin table",
    "cell_accuracy": "share of the twin's non-empty cells, in rows of detected tables, equal (letters and digits) "
                     "to the parse's cell at the same row and column",
    "header_rows_kept": "share of the twin's header rows that are a parse table's header row",
    "list_items": "share of the twin's placed list items that begin a parse list element or a line inside one",
    "reading_order": "share of pairs of placed twin blocks (footnotes and table rows aside, which move in print) "
                     "that the parse has in the same order",
}


@dataclass(frozen=True)
class Match:
    """A gold block and the parse element covering most of it (None: no element covers half)."""

    block: GoldBlock
    element: Element | None


def parse_scores(doc: Document, gold: Gold) -> dict[str, float | None]:
    """Every PARSE_SCORES score of `doc` against `gold` (placed in `doc`); None where the twin has
    nothing of that kind."""
    gold = gold.for_document(doc)
    located = [b for b in gold.leaves if b.located]
    headings = [b for b in located if b.kind == "heading"]
    heading_matches = [Match(b, covering(doc, b, heading=True)) for b in headings]
    placed = PlacedIndex(headings)
    parse_headings = [e for e in judged_elements(doc, gold) if e.is_heading]
    tables = table_scores(doc, gold)
    summary = gold.summary()
    return {
        "located": summary["located"],
        "text_coverage": summary["located_chars"],
        "heading_recall": share(m.element is not None for m in heading_matches),
        "heading_precision": share(any(_covers((e.char_start, e.char_end), b.span)
                                       for b in placed.overlapping(e.char_start, e.char_end)) for e in parse_headings),
        "level_agreement": level_agreement(heading_matches),
        "note_titles_as_headings": share(covering(doc, b, heading=True) is not None
                                          for b in located if b.kind == "note_title"),
        **tables,
        "list_items": share(_begins_item(doc, b) for b in located if b.kind == "item"),
        "reading_order": reading_order(located),
    }


class PlacedIndex:
    """Placed gold blocks by start: those overlapping a span found without a scan of them all."""

    def __init__(self, blocks: Sequence[GoldBlock]):
        self.blocks = sorted((b for b in blocks if b.located), key=lambda b: b.span)
        self.starts = [b.span[0] for b in self.blocks]
        self.longest = max((b.span[1] - b.span[0] for b in self.blocks), default=0)

    def overlapping(self, a: int, b: int) -> list[GoldBlock]:
        """The blocks whose place shares a character with [a, b), in text order."""
        lo = bisect.bisect_left(self.starts, a - self.longest)
        hi = bisect.bisect_left(self.starts, b)
        return [g for g in self.blocks[lo:hi] if g.span[1] > a]


def judged_elements(doc: Document, gold: Gold) -> list[Element]:
    """The parse's content elements inside the stretch the gold's placed blocks cover."""
    spans = [b.span for b in gold.leaves if b.located]
    if not spans:
        return []
    lo, hi = min(a for a, _ in spans), max(b for _, b in spans)
    return [e for e in doc.elements if e.text.strip() and not is_noise(e) and e.char_end > lo and e.char_start < hi]


def covering(doc: Document, block: GoldBlock, *, heading: bool = False) -> Element | None:
    """The parse element covering at least half of the block's place (a heading when `heading`)."""
    a, b = block.span
    for e in doc.elements_overlapping(a, b):
        if heading and not e.is_heading:
            continue
        if _covers((e.char_start, e.char_end), (a, b)):
            return e
    return None


def _covers(element: tuple[int, int], place: tuple[int, int]) -> bool:
    a, b = place
    overlap = min(element[1], b) - max(element[0], a)
    return overlap > 0 and 2 * overlap >= max(1, b - a)


def level_agreement(matches: Sequence[Match]) -> float | None:
    """Consecutive matched headings: whether the parse's levels compare as the twin's do."""
    pairs = [(m.block, m.element) for m in matches if m.element is not None]
    agree = []
    for (g1, e1), (g2, e2) in zip(pairs, pairs[1:]):
        if g1.level is None or g2.level is None:
            continue
        p1, p2 = e1.heading_level, e2.heading_level
        agree.append(p1 is not None and p2 is not None and level_sign(p1 - p2) == level_sign(g1.level - g2.level))
    return share(agree)


def level_sign(x: int) -> int:
    return (x > 0) - (x < 0)


def table_scores(doc: Document, gold: Gold) -> dict[str, float | None]:
    """table_recall, table_precision, cell_accuracy and header_rows_kept."""
    detected: list[bool] = []
    cells: list[bool] = []
    headers: list[bool] = []
    hit_tables: set[str] = set()
    for table in (b for b in gold.blocks if b.kind == "table"):
        rows = [r for r in gold.children(table.id) if r.located]
        if not rows:
            continue
        placed = [(r, table_row_at(doc, r)) for r in rows]
        inside = [(r, found) for r, found in placed if found is not None]
        found_table = 2 * len(inside) >= len(rows)
        detected.append(found_table)
        for _, found in inside:
            hit_tables.add(found[0].id)
        if not found_table:
            continue
        for row, at in placed:
            parse_cells = list(at[1]) if at is not None else []
            for n, cell in enumerate(row.cells):
                if not fold(cell, LETTERS_AND_DIGITS):
                    continue
                theirs = parse_cells[n] if n < len(parse_cells) else ""
                cells.append(fold(cell, LETTERS_AND_DIGITS) == fold(theirs, LETTERS_AND_DIGITS))
            if row.header:
                headers.append(at is not None and at[2] == 0)
    parse_tables = [e for e in judged_elements(doc, gold) if e.type == "table"]
    return {
        "table_recall": share(detected),
        "table_precision": share(e.id in hit_tables for e in parse_tables),
        "cell_accuracy": share(cells),
        "header_rows_kept": share(headers),
    }


def table_row_at(doc: Document, row: GoldBlock) -> tuple[Element, tuple[str, ...], int] | None:
    """The parse table holding most of a gold row, that table's row at the same place and its index."""
    a, b = row.span
    for e in doc.elements_overlapping(a, b):
        if e.type != "table" or not e.rows:
            continue
        spans = pipe_row_spans(e)
        best, best_overlap = None, 0
        for n, (ra, rb) in enumerate(spans):
            overlap = min(rb, b) - max(ra, a)
            if overlap > best_overlap:
                best, best_overlap = n, overlap
        if best is not None and best < len(e.rows):
            return e, e.rows[best], best
    return None


def pipe_row_spans(e: Element) -> list[tuple[int, int]]:
    """Canonical spans of a table element's rows when its text is the pipe table of its rows (one
    line each, the `|---|` line skipped); [] when it is not."""
    lines = e.text.split("\n")
    spans, pos = [], e.char_start
    for line in lines:
        if not is_rule_line(line):
            spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans if e.rows is not None and len(spans) == len(e.rows) else []


def _begins_item(doc: Document, item: GoldBlock) -> bool:
    """Whether a gold item begins a parse list element, or a line of one (only non-letters before it)."""
    a, _ = item.span
    e = doc.element_at(a)
    if e is None or e.type != "list":
        return False
    line_start = doc.text.rfind("\n", e.char_start, a) + 1 or e.char_start
    return not any(ch.isalpha() for ch in doc.text[max(line_start, e.char_start):a])


def reading_order(blocks: Sequence[GoldBlock]) -> float | None:
    """Share of pairs of placed blocks (footnotes and rows aside) in the twin's order in the parse:
    1 - inversions / pairs, inversions counted by merge sort."""
    starts = [b.span[0] for b in blocks if b.kind not in ("footnote", "row")]
    n = len(starts)
    if n < 2:
        return None
    inversions = _inversions(starts)
    return round(1 - inversions / (n * (n - 1) // 2), 4)


def _inversions(values: list[int]) -> int:
    """Pairs i < j with values[i] > values[j] (bottom-up merge sort)."""
    count, width, items = 0, 1, list(values)
    while width < len(items):
        merged: list[int] = []
        for lo in range(0, len(items), 2 * width):
            left, right = items[lo:lo + width], items[lo + width:lo + 2 * width]
            i = j = 0
            while i < len(left) and j < len(right):
                if left[i] <= right[j]:
                    merged.append(left[i])
                    i += 1
                else:
                    merged.append(right[j])
                    count += len(left) - i
                    j += 1
            merged += left[i:] + right[j:]
        items, width = merged, 2 * width
    return count

