"""A table that continues on the next page is stitched into one table, marked on both
pages (loaders/stitch.py, Element.parts)."""

from __future__ import annotations

import json

import pytest

import chunkbench as cb
from chunkbench.loaders.regions import chunk_regions
from chunkbench.types.document import Element
from chunkbench.ui.cli import main
from tests.support.paths import SAMPLE_PDFS, shared_pdf

REPORT = SAMPLE_PDFS / "financial_annual_report.pdf"


def _stitched(doc):
    return [e for e in doc.elements if e.attrs.get("stitched")]


def test_the_balance_sheet_continued_on_the_next_page_is_one_table():
    """The sample annual report's balance sheet runs from page 5 to page 6, where it goes on with
    a label row ("Non-current liabilities | |"), not a header of its own."""
    apart = cb.load(REPORT, stitch_tables=False)
    first, second = (e for e in apart.elements if e.type == "table" and e.page_idx in (4, 5) and "million" in
                     apart.text[max(0, e.char_start - 2000):e.char_end] and e.text.count("\n") > 10)
    doc = cb.load(REPORT)
    (table,) = _stitched(doc)
    assert table.attrs["stitched"] == [first.id, second.id] and doc.parser.options["stitched_tables"] == 1
    assert len(doc.elements) == len(apart.elements) - 1
    assert table.page_numbers == (5, 6) and table.rows == (*first.rows, *second.rows)
    lines = table.text.split("\n")
    assert lines[0] == "| £ million | 2024 | 2023 |" and sum(set(x) <= set("|-: ") for x in lines) == 1  # one rule line
    assert "| Non-current liabilities |  |  |" in lines
    page5, page6 = table.parts
    assert (page5.page_idx, page5.bbox, page6.page_idx, page6.bbox) == (4, first.bbox, 5, second.bbox)
    assert doc.text[page5.char_start:page5.char_end] == first.text
    assert doc.text[page6.char_start:page6.char_end] == "\n".join(second.text.split("\n")[i] for i in
                                                                   [0, *range(2, second.text.count("\n") + 1)])


def test_chunks_of_a_stitched_table_are_marked_on_the_pages_they_cover():
    doc = cb.load(REPORT)
    (table,) = _stitched(doc)
    whole = next(c for c in cb.chunk(doc, "elements") if table.id in c.source_blocks)
    assert (whole.page_start, whole.page_end) == (5, 6)
    assert {b.page for b in whole.bbox} == {5, 6} and {b.page for b in chunk_regions(doc, whole)} == {5, 6}
    pieces = [c for c in cb.chunk(doc, "recursive", chunk_size=300) if table.id in c.source_blocks]
    across = [c for c in pieces if c.page_start == 5 and c.page_end == 6]
    late = [c for c in pieces if c.page_start == 6]
    assert across and late
    for c in late:  # rows of page 6 alone: boxes and regions on page 6 only, under the repeated header
        assert {b.page for b in c.bbox} == {6} and {b.page for b in chunk_regions(doc, c)} == {6}
        assert c.text.startswith("| £ million | 2024 | 2023 |\n") and c.boundary.reason.value == "table_row_split"
    for c in across:
        assert {b.page for b in chunk_regions(doc, c)} == {5, 6}
    windows = [c for c in cb.chunk(doc, "tokens", chunk_size=60, overlap=0) if table.id in c.source_blocks]
    assert {(c.page_start, c.page_end) for c in windows} >= {(5, 5), (5, 6), (6, 6)}
    assert all({b.page for b in c.bbox} == set(range(c.page_start, c.page_end + 1)) for c in windows)


def test_an_overlay_draws_the_stitched_table_on_both_pages(tmp_path):
    from chunkbench.ui.render.overlay import render_page

    doc = cb.load(REPORT)
    (table,) = _stitched(doc)
    cs = cb.chunk(doc, "elements")
    whole = next(c for c in cs if table.id in c.source_blocks)
    for page in (5, 6):
        img = render_page(doc, cs, page, dpi=50)
        assert any(r.chunk_index == whole.index and r.kind == "chunk" for r in img.regions), page
        assert any(r.kind == "element" and r.label == f"table {table.id}" for r in render_page(doc, None, page, dpi=50, show=("elements",)).regions)


def test_a_repeated_header_is_dropped_and_tables_with_headers_of_their_own_stay_apart():
    bestbuy = cb.load(shared_pdf("financial_bestbuy-2023-10k.pdf"))
    (table,) = [e for e in _stitched(bestbuy) if e.page_idx == 61]
    lines = table.text.split("\n")
    assert lines.count("|  | 2023 | 2022 | 2021 |") == 1 and "| Revenue by product category |  |  |  |" in lines
    apart = cb.load(shared_pdf("financial_bestbuy-2023-10k.pdf"), stitch_tables=False)
    a, b = (apart.element(i) for i in table.attrs["stitched"])
    assert table.rows == (*a.rows, *b.rows[1:])
    ulta = cb.load(shared_pdf("financial_ulta-2023q4-earnings.pdf"))  # stores, then square feet: two tables
    assert not _stitched(ulta) and "stitched_tables" not in ulta.parser.options


def test_elements_json_keeps_a_stitched_table_and_bad_segments_are_ignored(tmp_path, capsys):
    out = tmp_path / "report.elements.json"
    assert main(["parse", str(REPORT), "-o", str(out)]) == 0
    back = cb.load(out)
    (table,) = _stitched(back)
    assert [(p.page_idx, p.bbox) for p in table.parts] == [(p.page_idx, p.bbox) for p in _stitched(cb.load(REPORT))[0].parts]
    assert main(["parse", str(REPORT), "--no-stitch-tables", "-o", str(tmp_path / "apart.json")]) == 0
    assert not _stitched(cb.load(tmp_path / "apart.json"))
    data = json.loads(out.read_text())
    for e in data["elements"]:
        if e.get("attrs", {}).get("segments"):
            e["attrs"]["segments"][1]["end"] = 10 ** 9  # hand-edited: past the text
    bad = tmp_path / "bad.elements.json"
    bad.write_text(json.dumps(data))
    (table,) = _stitched(cb.load(bad))
    assert table.parts == (table,)
    assert cb.chunk(cb.load(bad), "recursive", chunk_size=300)


@pytest.mark.parametrize("segments", [None, [], [{"start": "0"}], [{"start": 0, "end": 3, "page_idx": -1, "bbox": None}],
                                      [{"start": 0, "end": 3, "page_idx": 0, "bbox": [1, 2]}]])
def test_malformed_segments_are_no_parts(segments):
    e = Element(id="t", type="table", text="| a | b |\n|---|---|\n| 1 | 2 |", page_idx=0, bbox=(0, 0, 10, 10),
                page_end_idx=1, attrs={"segments": segments})
    assert e.parts == (e,)


def test_a_table_title_read_as_a_heading_is_a_caption_and_its_continued_title_does_not_keep_the_table_apart():
    """The Federal Register's cost table runs from page 5 to page 6 under its centred title,
    "ESTIMATED COSTS" and "ESTIMATED COSTS—Continued", which the model boxes as headings: they took
    level 1 (everything after the table sat under "ESTIMATED COSTS—Continued") and the second
    stood between the table's parts."""
    from chunkbench.loaders.stitch import REPEATED_TITLE
    from chunkbench.loaders.table_titles import OPTION

    pdf = shared_pdf("req_federal-register-2020-17221.pdf")
    doc = cb.load(pdf)
    titles = [e for e in doc.elements if e.text.startswith("ESTIMATED COSTS")]
    # the second only repeats the stitched table's title: furniture, as the repeated header row is dropped
    assert [(e.type, e.raw_type, e.page_idx) for e in titles] == [("caption", "section-header", 4), ("header", "section-header", 5)]
    assert titles[1].attrs["reclassified"] == REPEATED_TITLE
    assert doc.parser.options[OPTION] == 2 and not any(e.text_level for e in titles)
    (table,) = [e for e in _stitched(doc) if e.type == "table"]
    assert table.page_numbers == (5, 6) and table.text.split("\n")[0].startswith("| Action | Labor cost |")
    assert sum(line.startswith("| Action | Labor cost |") for line in table.text.split("\n")) == 1  # repeated header dropped
    order = [e.id for e in doc.elements]
    assert order.index(titles[0].id) < order.index(table.id) < order.index(titles[1].id)
    assert not any("ESTIMATED COSTS" in " > ".join(p) for p in doc.section_paths(e.char_start for e in doc.elements))
    apart = cb.load(pdf, stitch_tables=False)
    assert sum(e.type == "table" for e in apart.elements) == sum(e.type == "table" for e in doc.elements) + 1
    assert [e.type for e in apart.elements if e.text.startswith("ESTIMATED COSTS")] == ["caption", "caption"]
    for strategy in ("sentences", "recursive", "elements"):  # no chunk holds the repeated title (one held it alone)
        assert not any("Continued" in c.text for c in cb.chunk(doc, strategy).chunks), strategy


def test_a_heading_over_a_table_with_no_body_text_after_it_stays_a_heading():
    """A reference card's boxes ("Dpkg" centred over its table, then the next box) and an earnings
    release's statements ("… Balance Sheets" over the table, then "Exhibit 4") keep their headings."""
    refcard = cb.load(shared_pdf("multicol_debian-refcard-en-a4.pdf"))
    assert {"Dpkg", "The Network", "Getting Help", "APT"} <= {e.text for e in refcard.elements if e.type == "heading"}
    ulta = cb.load(shared_pdf("financial_ulta-2023q4-earnings.pdf"))
    assert any(e.type == "heading" and "Balance Sheets" in e.text for e in ulta.elements)
    assert "table_titles_from_headings" not in refcard.parser.options | ulta.parser.options
