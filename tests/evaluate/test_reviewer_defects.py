"""Defects a reviewer sees, on public PDFs nobody here wrote (`make public-pdfs`): chunks a reviewer accepts.

Each test names the place in the PDF a reviewer saw go wrong: the lead-in of the /bin table apart
from it, footnotes inside table pieces, the table of contents as chunks, inverted table reasons,
no section path on the retrieval default, `elements` putting three sections in one chunk, the
title page's lines as level-1 headings, a half-sentence after a display of code, and another
chunker's chunk at a page break reported mid-word with a box on the page before."""

from __future__ import annotations

import pytest

import chunkbench as cb
from chunkbench.app.defaults import RETRIEVAL_DEFAULT
from chunkbench.evaluate.defects import Defect, find_defects
from chunkbench.types.chunk import Reason
from chunkbench.types.document import CONTENTS_SKIPPED
from tests.support.paths import public_pdf

pytestmark = pytest.mark.xdist_group("public_pdfs")

#: every own strategy but `semantic` (its MiniLM embedding of 113 pages takes minutes; its lead-ins
#: go through `sentences`' units, tested here) with its defaults, and the retrieval default
OWN = ("elements", "contract", "headers", "sections", "tokens", "recursive", "sentences")
#: what a reviewer counts per document, at most 1 of each, for every strategy but `tokens`
GOAL = (Defect.LEAD_IN_SPLIT, Defect.TOC_CHUNK, Defect.INDEX_CHUNK)


@pytest.fixture(scope="module")
def fhs():
    return cb.load(public_pdf("fhs-3.0.pdf"))


@pytest.fixture(scope="module")
def rintro(tmp_path_factory):
    """Pages 13-15 (the display of code a sentence goes on in) and 108-112 (the indexes) of "An
    Introduction to R", then 105 blank pages, written as one PDF by PyMuPDF: the index's page
    numbers (up to 106) are still numbers of the document's pages, at a third of the parse time."""
    import pymupdf

    path = tmp_path_factory.mktemp("rintro") / "R-intro-pages.pdf"
    with pymupdf.open(public_pdf("R-intro.pdf")) as whole, pymupdf.open() as part:
        part.insert_pdf(whole, from_page=12, to_page=14)
        part.insert_pdf(whole, from_page=107, to_page=111)
        for _ in range(whole.page_count - part.page_count):
            part.new_page()
        part.save(path)
    return cb.load(path)


def _chunk_holding(cs, text):
    return next(c for c in cs if text in c.text)


def test_the_bin_table_is_one_table_over_two_pages_with_its_lead_in_and_no_footnote(fhs):
    """FHS p.12-13: the footnote at the foot of p.12 stood between the two pages of the /bin table
    and stopped them being stitched; it now follows "… used indirectly by scripts. 1", which cites it."""
    table = next(e for e in fhs.elements if e.type == "table" and "| cat |" in e.text)
    assert table.page_numbers == (12, 13) and "| sed |" in table.text
    note = fhs.element("p12-e9")
    before = fhs.elements[fhs.elements.index(note) - 1]
    assert note.type == "footnote" and "scripts. 1" in before.text
    lead = "The following commands, or symbolic links to commands, are required in /bin:"
    for strategy in ("elements", "contract", "headers", "sections", "recursive", "sentences"):
        cs = cb.chunk(fhs, strategy)
        holding = _chunk_holding(cs, lead)
        assert "| cat |" in holding.text, strategy
        pieces = [c for c in cs if "| cat |" in c.text or "| sed |" in c.text]
        assert not any(note.id in c.source_blocks for c in pieces if c.type in ("table", "pricing_table")), strategy


def test_reasons_of_table_pieces_are_the_right_way_round(fhs):
    """recursive: the first piece of a table said `table_row_split`, its continuation `table`."""
    for strategy, params in (("recursive", {}), (RETRIEVAL_DEFAULT.strategy, dict(RETRIEVAL_DEFAULT.strategy_params))):
        cs = cb.chunk(fhs, strategy, **params)
        for c in cs:
            e = fhs.element_at(c.start_char)
            if e is not None and e.type == "table" and c.boundary.reason in (Reason.TABLE, Reason.TABLE_ROW_SPLIT):
                first = c.start_char <= e.char_start
                assert (c.boundary.reason is Reason.TABLE) == first, (strategy, c.index, c.boundary)


def test_the_table_of_contents_is_typed_and_no_strategy_chunks_it(fhs):
    toc = [e for e in fhs.elements if e.type == "toc"]
    assert [e.page_numbers for e in toc] == [(4,), (4,), (5,), (6,), (7,)]  # its heading and four pages
    assert fhs.element("p4-e1").text == "Table of Contents"
    retrieval = cb.chunk(fhs, RETRIEVAL_DEFAULT.strategy, **RETRIEVAL_DEFAULT.strategy_params)
    assert not find_defects(retrieval, [Defect.TOC_CHUNK.value])
    assert {e.id for e in toc} <= {k for k, why in retrieval.skipped.items() if why == CONTENTS_SKIPPED}
    kept = cb.chunk(fhs, "recursive", skip_contents=False)
    assert len(find_defects(kept, [Defect.TOC_CHUNK.value])) >= 5  # the parameter keeps them


def test_an_index_and_its_letter_headings_are_typed_index(rintro):
    index = [e for e in rintro.elements if e.type == "index"]
    assert index[0].text == "Appendix D Function and variable index"
    assert {e.text for e in index if len(e.text) == 1} >= {"C", "D", "Q"}  # the letters open no sections
    assert not any(e.page_idx is not None and e.page_idx < 3 for e in index)  # the indexes' pages only


def test_every_own_strategy_carries_a_section_path_and_keeps_lead_ins(fhs):
    """Every chunk after the first heading says which section it is in (95% at least), and no
    lead-in, table of contents or index is left apart / chunked, on every own strategy's defaults."""
    first = next(e.char_start for e in fhs.elements if e.heading_level is not None)
    for strategy in OWN:
        cs = cb.chunk(fhs, strategy)
        after = [c for c in cs if c.start_char is not None and c.start_char >= first]
        assert sum(bool(c.section_path) and bool(c.heading) for c in after) >= 0.95 * len(after), strategy
        if strategy != "tokens":
            counts = {d: 0 for d in GOAL}
            for f in find_defects(cs, [d.value for d in GOAL]):
                counts[f.code] += 1
            assert all(n <= 1 for n in counts.values()), (strategy, counts)
    handed = cb.chunk(fhs, RETRIEVAL_DEFAULT.strategy, **RETRIEVAL_DEFAULT.strategy_params).to_langchain()
    assert sum(bool(d.metadata["section_path"]) for d in handed) >= 0.95 * len(handed)


def test_elements_cuts_at_the_level_the_sections_of_text_begin(fhs):
    """FHS p.16: one chunk held the tail of the /etc table, "3.7.4 /etc/opt" and "3.7.5 /etc/X11"
    under the heading "3.7.3. Specific Options": the numbered sections are level 3, and the
    default cut only at 2."""
    assert fhs.body_heading_level == 3
    cs = cb.chunk(fhs, "elements")
    for title in ("3.7.4. /etc/opt", "3.7.5. /etc/X11"):
        holding = _chunk_holding(cs, title)
        assert holding.text.startswith(title) and any(h.startswith(title) for h in holding.section_path)
    spec = cb.chunk(fhs, "elements", heading_level=2)
    assert not _chunk_holding(spec, "3.7.5. /etc/X11").text.startswith("3.7.5")


def test_the_title_page_opens_no_section(fhs):
    assert [e.type for e in fhs.elements[:2]] == ["paragraph", "paragraph"]
    assert fhs.element("p1-e2").text == "LSB Workgroup, The Linux Foundation"
    paths = fhs.section_paths([fhs.element("p2-e6").char_start, fhs.element("p8-e3").char_start])
    assert paths[1] == ("Chapter 1. Introduction", "1.1. Purpose")
    assert "LSB Workgroup, The Linux Foundation" not in paths[0]


def test_a_sentence_a_display_of_code_goes_on_in_stays_whole(rintro):
    """R-intro p.15: "To work with complex numbers, supply an explicit complex part. Thus" |
    sqrt(-17) | "will give NaN and a warning, but" | sqrt(-17+0i) | "will do the computations as
    complex numbers." ended up with its last line alone in a chunk."""
    for strategy in ("recursive", "elements", "sections"):
        holding = _chunk_holding(cb.chunk(rintro, strategy), "will do the computations as complex numbers.")
        assert "supply an explicit complex part. Thus" in holding.text, strategy


def test_another_chunkers_chunk_at_a_page_break_is_read_at_the_top_of_the_page(fhs):
    """A LangChain chunk of pypdf's text of the FHS starts "The Root Filesystem\\n7\\nis planned …":
    pypdf reads p.14's running header and number in the middle of the sentence. It was reported
    mid-word ("thr|ough") with its first box on the "6" at the foot of p.13."""
    pypdf = pytest.importorskip("pypdf")
    splitters = pytest.importorskip("langchain_text_splitters")
    text = "\n".join(p.extract_text() for p in pypdf.PdfReader(public_pdf("fhs-3.0.pdf")).pages)
    chunks = splitters.RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200).split_text(text)
    chunk = next(c for c in cb.inspect(fhs, chunks) if c.text.startswith("The Root Filesystem\n7\nis planned"))
    assert chunk.boundary.reason is Reason.MID_SENTENCE and "at the top of p. 14" in chunk.boundary.detail
    assert chunk.bbox[0].page == 14 and fhs.text[chunk.start_char:].startswith("is planned")
    assert not any(fhs.element(b).type == "page_number" for b in chunk.source_blocks)
