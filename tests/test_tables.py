"""Issue 19.6 (part): a table cut at rows says so: every strategy gives the cut between two rows
the reason `table_row_split` (it was `paragraph_split` or `size_limit`), and the pieces are whole
rows, exact spans of the canonical text. (Repeating the header row on each piece is not done yet:
see docs/strategy-recursive.md.)"""

from __future__ import annotations

import pytest

import chunkbench as cb
from chunkbench.text.segment import pipe_table
from tests.conftest import make_doc

ROWS = [("Service", "Rate", "Unit")] + [(f"Service line {i}", f"${i * 12.5:,.2f}", "per hour") for i in range(60)]
SMALL = {
    "elements": {"max_chunk_size": 400},
    "recursive": {"chunk_size": 400},
    "sentences": {"max_chars": 400},
    "sections": {"min_tokens": 40, "max_tokens": 100},
    "headers": {"max_chunk_chars": 400, "min_chunk_chars": 0, "overlap_chars": 0},
}


def table_doc():
    return make_doc([
        {"type": "heading", "text": "Rates", "text_level": 1, "page_idx": 0},
        {"type": "paragraph", "text": "The rates below apply from 1 July.", "page_idx": 0},
        {"type": "table", "text": pipe_table(ROWS), "rows": ROWS, "page_idx": 0},
        {"type": "paragraph", "text": "Rates are reviewed every year.", "page_idx": 1},
    ])


@pytest.mark.parametrize("strategy", sorted(SMALL))
def test_a_table_cut_at_rows_says_so(strategy):
    doc = table_doc()
    table = next(e for e in doc.elements if e.type == "table")
    cs = cb.chunk(doc, strategy, **SMALL[strategy])
    inside = [c for c in cs if table.char_start < c.start_char < table.char_end]  # pieces starting in the table
    assert len(inside) > 1
    for c in inside:
        assert c.boundary.reason.value == "table_row_split", (c.index, c.boundary)
        assert doc.text[c.start_char - 1] == "\n" and c.text.startswith("| "), c.index  # at a row's start
    rows = [line for c in cs if table.id in c.source_blocks for line in c.text.split("\n") if line.startswith("|")]
    assert rows == table.text.split("\n")  # every row once, in order
