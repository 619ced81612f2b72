"""The unit retrieval ranks and a budget sends: one dataclass, apart from the scoring (which makes
units) and the budget (which sends them), so neither imports the other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RetrievalUnit:
    """A retrievable piece: its text, its character range in `doc.text` (if known), its pages, and
    the texts it is ranked by when that is not its own alone (Indexing): the unit's score is the
    best of theirs."""

    text: str
    start: int | None
    end: int | None
    pages: frozenset[int]
    indexed: tuple[str, ...] = ()
    #: the headings above its start (what the `section` and `grow` return policies keep within)
    section: tuple[str, ...] = ()
    #: whether the cut at its start / end is a size cut (SIZE_CUTS), which `grow` may reach across
    cut_before: bool = False
    cut_after: bool = False
    #: the structural block its start lies in (types.blocks.blocks_at: what `structure` sends before the section)
    block: str | None = None

    @property
    def ranked_texts(self) -> tuple[str, ...]:
        """What the retriever ranks the unit by: the indexed texts if any, else the unit's own."""
        return self.indexed or (self.text,)
