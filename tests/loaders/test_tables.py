"""A table cut at rows stays readable and says so. Every strategy gives the cut between
two rows the reason `table_row_split` (it was `paragraph_split` or `size_limit`), the pieces are
whole rows; and in the strategies with a size limit each later piece repeats the header row and
`|---|` line (as docling-core's `repeat_table_header`), within the limit, the rows under it still
the exact canonical span."""

from __future__ import annotations

import pytest

import chunkbench as cb
import chunkbench.strategies
import chunkbench.text.tokenizer
from chunkbench.text.segment import pipe_table
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS

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
    rows = [line for c in cs if table.id in c.source_blocks
            for line in c.text.split("\n")[2 if c.extra.get("table_header_repeated") else 0:] if line.startswith("|")]
    assert rows == table.text.split("\n")  # every row once, in order (repeated headers aside)


#: the strategies that repeat the header, with their limit and its unit
REPEATING = {name: SMALL[name] for name in ("elements", "recursive", "sentences", "sections")}


def _limit(strategy: str, params: dict) -> tuple[int, str]:
    return cb.strategies.get_strategy(strategy).size_limit(cb.strategies.get_strategy(strategy).resolve(params))


@pytest.mark.parametrize("strategy, params", [*REPEATING.items(), ("recursive", {"chunk_size": 100, "unit": "tokens"})])
def test_every_later_piece_of_a_table_repeats_its_header_within_the_limit(strategy, params):
    doc = table_doc()
    table = next(e for e in doc.elements if e.type == "table")
    header = "\n".join(table.text.split("\n")[:2])
    cs = cb.chunk(doc, strategy, **params)
    later = [c for c in cs if table.char_start < c.start_char < table.char_end]
    assert len(later) > 1 and all(c.extra.get("table_header_repeated") for c in later)
    limit, unit = _limit(strategy, params)
    for c in later:
        assert c.text.startswith(header + "\n| Service line") and c.boundary.reason.value == "table_row_split"
        assert c.text[len(header) + 1:] == doc.text[c.start_char:c.end_char]  # the rows: the canonical span
        assert (c.tokens_est if unit == "tokens" else c.char_len) <= limit
        assert c.tokens_est == cb.text.tokenizer.count_tokens(c.text)
    first = next(c for c in cs if table.id in c.source_blocks)
    assert not first.extra.get("table_header_repeated")  # the first piece has the header already


def test_no_header_is_repeated_where_it_would_crowd_out_the_rows():
    """A header over a third of the limit is not repeated (room for it would leave the rows none:
    the first attempt at this looped forever on a header longer than the limit), nor by `headers`,
    whose chunks are sections, nor by `tokens`, whose windows are exact slices."""
    wide = [tuple(f"Column heading number {i} of the wide table" for i in range(4))] + \
        [(f"r{i}", "1", "2", "3") for i in range(30)]
    doc = make_doc([{"type": "table", "text": pipe_table(wide), "rows": wide, "page_idx": 0}])
    for strategy, params in [("sentences", {"max_chars": 120, "min_chars": 0}), ("recursive", {"chunk_size": 300}),
                             ("elements", {"max_chunk_size": 400})]:
        cs = cb.chunk(doc, strategy, **params)
        assert len(cs) > 1 and not any(c.extra.get("table_header_repeated") for c in cs), strategy
        assert all(c.text == doc.text[c.start_char:c.end_char] for c in cs)
    doc = table_doc()
    for strategy, params in [("headers", SMALL["headers"]), ("tokens", {"chunk_size": 40, "overlap": 0})]:
        cs = cb.chunk(doc, strategy, **params)
        assert not any(c.extra.get("table_header_repeated") for c in cs), strategy


def test_a_real_table_cut_at_rows_on_a_sample_pdf():
    doc = cb.load(SAMPLE_PDFS / "rfp_it_services.pdf")
    cs = cb.chunk(doc, "recursive", chunk_size=200)
    repeated = [c for c in cs if c.extra.get("table_header_repeated")]
    assert repeated
    for c in repeated:
        header, rule, first_row = c.text.split("\n")[:3]
        assert header.startswith("| ") and set(rule) <= set("|-: ") and first_row.startswith("| ") and c.page_start
        assert c.char_len <= 200


@pytest.mark.parametrize("strategy", ["elements", "contract", "sections", "headers", "recursive", "sentences", "semantic"])
def test_a_caption_above_a_table_opens_the_tables_chunk_on_a_real_paper(strategy):
    """The HotOS paper's "Table 1: Summary of recent Intel x86 ISA extensions" sits right above its
    table; it ended the chunk of the text above in all of these strategies, so the table's chunk did
    not say what the table is."""
    if strategy == "semantic":
        pytest.importorskip("onnxruntime")
    from tests.support.paths import shared_pdf

    doc = cb.load(shared_pdf("paper_hotos17-baumann.pdf"))
    caption = next(e for e in doc.elements if e.text.startswith("Table 1: Summary"))
    table = doc.elements[doc.elements.index(caption) + 1]
    assert caption.type == "caption" and table.type == "table"
    cs = chunkbench.strategies.chunk(doc, strategy)
    holding = [c for c in cs if caption.id in c.source_blocks]
    assert holding and table.id in holding[-1].source_blocks, [c.text[-80:] for c in holding]
    own = holding[-1].text[holding[-1].extra.get("overlap_chars", 0) or 0:]
    assert own.lstrip().startswith("Table 1: Summary") or own.startswith("2 Background"), own[:80]


def test_a_caption_that_does_not_fit_with_its_table_is_not_left_at_a_chunks_end():
    doc = make_doc([
        {"type": "paragraph", "text": "Rates are reviewed every year by the board. " * 3, "page_idx": 0},
        {"type": "caption", "text": "Table 2: Hourly rates", "page_idx": 0},
        {"type": "table", "text": pipe_table(ROWS[:12]), "rows": [list(r) for r in ROWS[:12]], "page_idx": 0},
    ])
    for strategy, params in SMALL.items():
        cs = chunkbench.strategies.chunk(doc, strategy, **params)
        first_with_table = next(c for c in cs if "e2" in c.source_blocks)
        # the caption's piece is filled with rows (`elements`: the table, too long for any chunk,
        # joins its caption, which opens its first piece, as a heading does)
        assert first_with_table.text.startswith("Table 2: Hourly rates\n\n| Service |"), (strategy, first_with_table.text[:60])
        assert not any(c.text.rstrip().endswith("Table 2: Hourly rates") for c in cs), strategy
