"""A chunking's cuts against gold: blocks cut through, table rows away from their header, lead-ins
away from what they introduce, chunks over a section's start, and section paths that say what the
twin says. Measured on retrieval units (any strategy's chunks, a peer's, a baseline's pieces), so
every row of a comparison is scored alike. Each score is defined once, in CUT_SCORES."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TYPE_CHECKING

from chunkbench.text.folding import LETTERS_AND_DIGITS, fold
from chunkbench.text.leadins import introduces

from . import Gold, share
from .align import strip_numbering
from .blocks import GoldBlock

if TYPE_CHECKING:
    from chunkbench.evaluate.retrieval import RetrievalUnit

#: every cut score: name -> what it measures (lower is better for all but section_paths_agree)
CUT_SCORES = {
    "paragraphs_cut": "share of the twin's placed paragraphs (definitions' descriptions and footnotes too) "
                      "with a chunk boundary inside them",
    "items_cut": "share of the twin's placed list items with a chunk boundary inside them",
    "rows_cut": "share of the twin's placed table rows with a chunk boundary inside them",
    "rows_without_header": "share of the twin's placed table body rows whose chunk does not hold every cell of "
                           "the table's header row",
    "leadins_apart": "share of the twin's lead-ins (a paragraph ending in a colon or announcing what follows, "
                     "right before a list or table) that no chunk holds together with the first item or row",
    "chunks_crossing_sections": "share of chunks that hold the start of a twin heading after some text of their own",
    "section_paths_agree": "share of chunks (holding the start of a placed twin block) whose innermost section "
                           "heading is the twin's at that block, numbers aside (higher is better)",
}
_PARAGRAPHS = frozenset({"paragraph", "description", "footnote"})


def cut_scores(gold: Gold, text: str, units: Sequence[RetrievalUnit]) -> dict[str, float | None]:
    """Every CUT_SCORES score of `units` cut from the document whose canonical text is `text`
    (`gold` placed in it)."""
    return {name: share(flags) for name, flags in cut_flags(gold, text, units).items()}


def cut_flags(gold: Gold, text: str, units: Sequence[RetrievalUnit]) -> dict[str, list[bool]]:
    """What each CUT_SCORES score is the share of, item by item: pooled over documents by adding them."""
    index = UnitIndex(units)
    cuts = sorted({p for u in index.units for p in (u.start, u.end) if p is not None and 0 < p < len(text)})
    located = [b for b in gold.leaves if b.located]
    heading_starts = sorted(b.span[0] for b in located if b.kind == "heading")
    return {
        "paragraphs_cut": [_cut_inside(text, b, cuts) for b in located if b.kind in _PARAGRAPHS],
        "items_cut": [_cut_inside(text, b, cuts) for b in located if b.kind == "item"],
        "rows_cut": [_cut_inside(text, b, cuts) for b in located if b.kind == "row"],
        "rows_without_header": rows_without_header(gold, index),
        "leadins_apart": leadins_apart(gold, index),
        "chunks_crossing_sections": [_crosses(text, u, heading_starts) for u in index.units],
        "section_paths_agree": section_paths_agree(gold, index.units),
    }


class UnitIndex:
    """Units with a place, by start: the ones holding a position found without a scan of them all."""

    def __init__(self, units: Sequence[RetrievalUnit]):
        self.units = sorted((u for u in units if u.start is not None and u.end is not None),
                            key=lambda u: (u.start, u.end))
        self.starts: list[int] = [u.start for u in self.units]  # type: ignore[misc]
        self.longest = max((u.end - u.start for u in self.units), default=0)  # type: ignore[operator]

    def holding(self, pos: int) -> list[RetrievalUnit]:
        """The units whose span holds `pos`."""
        out = []
        i = bisect.bisect_right(self.starts, pos) - 1
        while i >= 0 and self.starts[i] > pos - self.longest - 1:
            u = self.units[i]
            if u.end > pos:  # type: ignore[operator]
                out.append(u)
            i -= 1
        return out


def _cut_inside(text: str, block: GoldBlock, cuts: Sequence[int]) -> bool:
    """Whether a cut falls inside the block's place with letters or digits of it on both sides."""
    a, b = block.span
    i = bisect.bisect_right(cuts, a)
    while i < len(cuts) and cuts[i] < b:
        p = cuts[i]
        if _has_letters(text[a:p]) and _has_letters(text[p:b]):
            return True
        i += 1
    return False


def _has_letters(s: str) -> bool:
    return any(ch.isalnum() for ch in s)


def rows_without_header(gold: Gold, index: UnitIndex) -> list[bool]:
    """Body rows whose chunk (any chunk holding the row's start) lacks a cell of the header row
    (each header cell's letters and digits are looked for in the chunk's text: a chunker that writes
    the column names beside each value, as Docling's serializer does, keeps them)."""
    out: list[bool] = []
    for table in (b for b in gold.blocks if b.kind == "table"):
        rows = [r for r in gold.children(table.id) if r.located]
        header = next((r for r in rows if r.header), None)
        cells = [c for c in (fold(c, LETTERS_AND_DIGITS) for c in header.cells) if c] if header else []
        if not cells:
            continue
        for row in (r for r in rows if not r.header):
            texts = [fold(u.text, LETTERS_AND_DIGITS) for u in index.holding(row.span[0])]
            out.append(not any(all(c in t for c in cells) for t in texts))
    return out


def leadins_apart(gold: Gold, index: UnitIndex) -> list[bool]:
    """Lead-ins right before a list or table (in the twin) that no chunk holds with its first item or row."""
    out: list[bool] = []
    blocks = gold.blocks
    for n, block in enumerate(blocks):
        if block.kind not in ("list", "table") or n == 0:
            continue
        lead = blocks[n - 1]
        first = next((c for c in gold.children(block.id) if c.located), None)
        if lead.kind not in _PARAGRAPHS or not lead.located or first is None or not introduces(lead.text):
            continue
        last_char, first_char = lead.span[1] - 1, first.span[0]
        out.append(not any(u.end > first_char for u in index.holding(last_char)))  # type: ignore[operator]
    return out


def _crosses(text: str, unit: RetrievalUnit, heading_starts: Sequence[int]) -> bool:
    assert unit.start is not None and unit.end is not None
    i = bisect.bisect_right(heading_starts, unit.start)
    return i < len(heading_starts) and heading_starts[i] < unit.end and _has_letters(text[unit.start:heading_starts[i]])


def section_paths_agree(gold: Gold, units: Sequence[RetrievalUnit]) -> list[bool]:
    """Chunks whose innermost section heading is the twin's at the first placed block starting in them."""
    located = sorted((b for b in gold.leaves if b.located), key=lambda b: b.span[0])
    starts = [b.span[0] for b in located]
    out: list[bool] = []
    for u in units:
        if u.start is None or u.end is None:
            continue
        i = bisect.bisect_left(starts, u.start)
        if i >= len(located) or starts[i] >= u.end:
            continue
        block = located[i]
        # a heading starting the chunk is its own section's: the twin's path down to it
        path = (*block.section, block.id) if block.kind == "heading" else block.section
        theirs = _title(gold.block(path[-1]).text) if path else ""
        mine = _title(u.section[-1]) if u.section else ""
        out.append(theirs == mine)
    return out


def _title(heading: str) -> str:
    return fold(strip_numbering(heading), LETTERS_AND_DIGITS)

