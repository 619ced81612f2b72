"""Issue 19.6: a table cut at rows stays readable: each later piece repeats the header row (and the
`|---|` line), as docling-core's `repeat_table_header` does, within the size limit, with reason
`table_row_split`."""

from __future__ import annotations

import pytest

import chunkbench as cb
from chunkbench.text.segment import pipe_table
from tests.conftest import SAMPLE_PDFS, make_doc

ROWS = [("Service", "Rate", "Unit")] + [(f"Service line {i}", f"${i * 12.5:,.2f}", "per hour") for i in range(60)]
SMALL = {
    "elements": {"max_chunk_size": 400},
    "recursive": {"chunk_size": 400},
    "sentences": {"max_chars": 400},
    "sections": {"min_tokens": 40, "max_tokens": 100},
}


def table_doc():
    return make_doc([
        {"type": "heading", "text": "Rates", "text_level": 1, "page_idx": 0},
        {"type": "paragraph", "text": "The rates below apply from 1 July.", "page_idx": 0},
        {"type": "table", "text": pipe_table(ROWS), "rows": ROWS, "page_idx": 0},
        {"type": "paragraph", "text": "Rates are reviewed every year.", "page_idx": 1},
    ])


@pytest.mark.parametrize("strategy", sorted(SMALL))
def test_every_piece_of_a_table_cut_at_rows_repeats_its_header(strategy):
    doc = table_doc()
    table = next(e for e in doc.elements if e.type == "table")
    header = "\n".join(table.text.split("\n")[:2])
    cs = cb.chunk(doc, strategy, **SMALL[strategy])
    pieces = [c for c in cs if c.source_blocks == (table.id,)]
    assert len(pieces) > 2
    later = [c for c in pieces if c.start_char > table.char_start]
    assert later and all(c.extra.get("table_header_repeated") for c in later)
    for c in later:
        assert c.text.startswith(header + "\n") and c.boundary.reason.value == "table_row_split", c.index
        assert c.text[len(header) + 1:] == doc.text[c.start_char:c.end_char]  # the rows: the canonical span
    limit = SMALL[strategy].get("max_chunk_size") or SMALL[strategy].get("chunk_size") or SMALL[strategy].get("max_chars")
    if limit:
        assert max(c.char_len for c in pieces) <= limit
    # every row once, in order, under the repeated headers (the last rows may share a chunk with the text after)
    holding = [c for c in cs if table.id in c.source_blocks]
    rows = [line for c in holding for line in (c.text.split("\n")[2:] if c in later else c.text.split("\n"))
            if line.startswith("|")]
    assert rows == table.text.split("\n")


def test_a_chunk_of_rows_and_text_and_token_windows_are_left_as_they_are():
    doc = table_doc()
    windows = cb.chunk(doc, "tokens", chunk_size=40, overlap=0)  # exact slices by contract
    assert not any(c.extra.get("table_header_repeated") for c in windows)
    assert all(c.text == doc.text[c.start_char:c.end_char] for c in windows)


def test_a_real_table_on_the_page():
    doc = cb.load(SAMPLE_PDFS / "rfp_it_services.pdf")
    cs = cb.chunk(doc, "recursive", chunk_size=200)
    repeated = [c for c in cs if c.extra.get("table_header_repeated")]
    assert repeated and all(c.text.startswith("| ") and c.page_start for c in repeated)
