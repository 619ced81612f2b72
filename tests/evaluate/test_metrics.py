"""chunkbench.evaluate.metrics on hand-built documents and chunk sets where the right number is known."""

from __future__ import annotations

import json

import pytest
from element_streams import element_documents
from hypothesis import given
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.evaluate import metrics as M
from chunkbench.evaluate import stats
from chunkbench.text.sentences import depends_on_previous
from chunkbench.types.chunk import Boundary, Reason, build_chunk
from chunkbench.types.chunkset import ChunkSet
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS, TEST_DATA, shared_pdf

BOX = [50.0, 100.0, 500.0, 140.0]
SQLITE = TEST_DATA / "retrieval" / "sqlite_how_to_corrupt.md"


def cut(doc, pieces, *, skipped=None, section=("S",), extra=None):
    """A ChunkSet from pieces: each a list of element ids, or (element id, start offset, end offset)
    for a chunk made of part of one element (offsets relative to the element's text)."""
    chunks = []
    for n, piece in enumerate(pieces):
        if isinstance(piece, tuple):
            eid, a, b = piece
            el = doc.element(eid)
            els, start, end = [el], el.char_start + a, el.char_start + b
        else:
            els = [doc.element(i) for i in piece]
            start, end = els[0].char_start, els[-1].char_end
        reason = Reason.DOCUMENT_START if n == 0 else Reason.SIZE_LIMIT
        chunks.append(build_chunk(
            doc, index=n, chunk_id=f"c{n}", type="paragraph", text=doc.text[start:end], elements=els,
            boundary=Boundary(reason, "test"), section_path=section, start_char=start, end_char=end,
            extra=(extra or [{}] * len(pieces))[n],
        ))
    return ChunkSet(doc, "hand", {}, tuple(chunks), skipped=dict(skipped or {}))


def para(text, page=0, **kw):
    return {"type": "paragraph", "text": text, "page_idx": page, "bbox": BOX, **kw}


TABLE = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"


def test_a_table_split_in_two_counts_once_and_a_whole_table_not_at_all():
    doc = make_doc([para("Intro text."), {"type": "table", "text": TABLE, "page_idx": 0, "bbox": BOX}])
    split = cut(doc, [["e0"], ("e1", 0, 20), ("e1", 20, len(TABLE))])
    whole = cut(doc, [["e0"], ["e1"]])
    together = cut(doc, [["e0", "e1"]])
    assert M.structure_metrics(doc, split)["tables_split"] == 1
    assert M.structure_metrics(doc, whole)["tables_split"] == 0
    assert M.structure_metrics(doc, together)["tables_split"] == 0
    assert M.structure_metrics(doc, whole)["tables"] == 1


def test_an_overlapping_window_that_holds_the_whole_table_means_it_is_not_split():
    doc = make_doc([para("Intro text."), {"type": "table", "text": TABLE, "page_idx": 0}])
    # chunk 1 holds the table whole; chunk 0 overlaps its first rows
    cs = cut(doc, [["e0"], ["e1"]])
    c0 = cs.chunks[0]
    widened = ChunkSet(doc, "hand", {}, (
        build_chunk(doc, index=0, chunk_id="c0", type="paragraph", text=doc.text[:30],
                    elements=[doc.element("e0"), doc.element("e1")], boundary=c0.boundary,
                    start_char=0, end_char=30),
        cs.chunks[1],
    ))
    assert M.structure_metrics(doc, widened)["tables_split"] == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("The Supplier shall deliver the", True),  # ends in a function word
    ("The Supplier shall deliver the goods to the Customer at the agreed place and", True),
    ("The Supplier shall deliver the goods.", False),
    ("Delivery terms:", False),
    ("The Supplier shall deliver the goods to the Customer at the agreed delivery place", True),  # long, unfinished
    ("Eleanor Vance, Chair, 4 March 2025", False),  # a short label line, not a cut sentence
])
def test_mid_sentence_by_the_last_word_and_punctuation(text, expected):
    doc = make_doc([para(text)])
    cs = cut(doc, [["e0"]])
    assert M.is_mid_sentence(doc, cs.chunks[0]) is expected
    assert M.structure_metrics(doc, cs)["mid_sentence_chunks"] == int(expected)


def test_headings_tables_and_lists_may_end_without_a_full_stop():
    doc = make_doc([
        {"type": "heading", "text": "Termination of this Agreement by either of the parties for cause", "text_level": 1},
        {"type": "table", "text": TABLE},
        {"type": "list", "text": "• deliver the goods to the Customer at the agreed delivery place every week"},
    ])
    cs = cut(doc, [["e0"], ["e1"], ["e2"]])
    assert M.structure_metrics(doc, cs)["mid_sentence_chunks"] == 0


def test_a_chunk_cut_inside_a_sentence_of_an_element_is_mid_sentence():
    text = "The Customer shall pay each invoice within thirty days of receipt of a valid invoice."
    doc = make_doc([para(text)])
    at = text.index("of receipt") + len("of")
    cs = cut(doc, [("e0", 0, at), ("e0", at + 1, len(text))])
    assert [M.is_mid_sentence(doc, c) for c in cs] == [True, False]
    assert M.structure_metrics(doc, cs)["mid_sentence_share"] == 0.5


def test_a_list_item_ending_semicolon_and_ends_an_item_not_a_sentence():
    """ "(a) …; and" at the end of its list item is an enumeration going on, not a cut; the same
    words ending a chunk inside the item, or ending a paragraph, still count."""
    item = "(a) the Supplier shall deliver the goods to the agreed place; and"
    doc = make_doc([{"type": "list", "text": item}, para("The parties agree to the following terms; and")])
    assert not M.is_mid_sentence(doc, cut(doc, [["e0"]]).chunks[0])
    assert M.is_mid_sentence(doc, cut(doc, [("e0", 0, item.index(" goods"))]).chunks[0])  # "… deliver the"
    assert M.is_mid_sentence(doc, cut(doc, [["e1"]]).chunks[0])


def test_the_enumerations_of_a_10k_are_not_mid_sentence_ends():
    """Best Buy's 10-K, `sentences`: 23 of the 39 chunks counted mid-sentence ended a list item
    "…; and" or "…; or" (22 the first); 16 are left, none of them that."""
    doc = cb.load(shared_pdf("financial_bestbuy-2023-10k.pdf"))
    cs = cb.chunk(doc, "sentences")
    items = [c for c in cs if c.text.rstrip().endswith("; and") and doc.element(c.source_blocks[-1]).type == "list"]
    assert len(items) >= 20 and not any(M.is_mid_sentence(doc, c) for c in items)
    mid = [c for c in cs if M.is_mid_sentence(doc, c)]
    assert 0 < len(mid) <= 20 and not any(c.text.rstrip().endswith("; and") for c in mid)


def test_a_chunk_opening_inside_a_paragraph_with_a_sentence_that_refers_back():
    """Cut before "This …" inside a paragraph: counted; the same sentence opening a paragraph of
    its own, or a chunk cut before a sentence that does not refer back: not."""
    text = "Some filesystems contain bugs. This is especially true of NFS. Locks then fail."
    doc = make_doc([para(text), para("This paragraph opens with a pronoun but starts a paragraph.")])
    this, then = text.index("This"), text.index("Locks")
    cs = cut(doc, [("e0", 0, this - 1), ("e0", this, then - 1), ("e0", then, len(text)), ["e1"]])
    assert [M.opens_dependent(doc, c) for c in cs] == [False, True, False, False]
    m = M.structure_metrics(doc, cs)
    assert m["dependent_start_chunks"] == 1 and m["dependent_start_share"] == 0.25
    # a splitter that keeps its separator opens the chunk with the stop: ". This is especially …"
    kept = cut(doc, [("e0", 0, this - 2), ("e0", this - 2, len(text))])
    assert kept.chunks[1].text.startswith(". This") and M.opens_dependent(doc, kept.chunks[1])


def test_dependent_starts_of_real_chunks():
    """SQLite's page, `recursive` at 450 characters: some chunks still open with "This …"/"But …"
    where no cut fits, none of those whose cut moved does, and without the move there are more."""
    doc = cb.load(SQLITE)
    ours = cb.chunk(doc, "recursive", chunk_size=450)
    counted = [c for c in ours if M.opens_dependent(doc, c)]
    assert counted and all(depends_on_previous(c.text) for c in counted)
    moved = [c for c in ours if "moved off" in c.boundary.detail]
    assert moved and not any(M.opens_dependent(doc, c) for c in moved)
    unmoved = cb.chunk(doc, "recursive", chunk_size=450, join_dependent=False)
    assert M.structure_metrics(doc, unmoved)["dependent_start_chunks"] >= len(counted) + len(moved)


def test_heading_only_chunks_and_chunks_spanning_pages():
    doc = make_doc([
        {"type": "heading", "text": "1 Definitions", "text_level": 1, "page_idx": 0},
        para("Agreement means this agreement.", 0),
        para("It continues here.", 1),
        {"type": "heading", "text": "2 Term", "text_level": 1, "page_idx": 1},
    ])
    cs = cut(doc, [["e0"], ["e1", "e2"], ["e3"]])
    m = M.structure_metrics(doc, cs)
    assert m["heading_only_chunks"] == 2
    assert m["chunks_spanning_pages"] == 1


def test_a_list_run_cut_between_items_is_split_once():
    doc = make_doc([
        para("The Supplier shall:"),
        {"type": "list", "text": "(a) deliver;"},
        {"type": "list", "text": "(b) install;"},
        {"type": "list", "text": "(c) maintain."},
        para("Other text."),
        {"type": "list", "text": "• one"},
    ])
    split = cut(doc, [["e0", "e1", "e2"], ["e3", "e4", "e5"]])
    whole = cut(doc, [["e0", "e1", "e2", "e3"], ["e4", "e5"]])
    assert M.list_runs(doc.elements) == [(doc.element("e1").char_start, doc.element("e3").char_end),
                                         (doc.element("e5").char_start, doc.element("e5").char_end)]
    assert M.structure_metrics(doc, split)["lists_split"] == 1
    assert M.structure_metrics(doc, whole)["lists_split"] == 0
    assert M.structure_metrics(doc, whole)["lists"] == 2


def test_a_clause_with_its_sub_items_cut_in_two_is_a_clause_split():
    doc = make_doc([
        {"type": "heading", "text": "2 Services", "text_level": 1},
        para("2.1 The Supplier shall provide the Services."),
        para("2.2 The Supplier shall:"),
        {"type": "list", "text": "(a) comply with the law;"},
        {"type": "list", "text": "(b) keep records."},
        {"type": "heading", "text": "3 Fees", "text_level": 1},
        para("3.1 The Customer shall pay."),
    ])
    spans = M.clause_spans(doc.elements)
    assert [doc.text[a:b][:3] for a, b in spans] == ["2.1", "2.2", "3.1"]
    assert spans[1][1] == doc.element("e4").char_end  # 2.2 runs over its sub-items up to the heading
    split = cut(doc, [["e0", "e1", "e2", "e3"], ["e4"], ["e5", "e6"]])
    whole = cut(doc, [["e0", "e1"], ["e2", "e3", "e4"], ["e5", "e6"]])
    assert M.structure_metrics(doc, split)["clauses_split"] == 1
    assert M.structure_metrics(doc, whole)["clauses_split"] == 0
    assert M.structure_metrics(doc, whole)["clauses"] == 3


def test_text_lost_counts_non_space_chars_of_elements_no_chunk_holds_and_ignores_skipped_ones():
    doc = make_doc([
        para("Kept text here."),
        para("Lost words"),  # 9 non-space characters
        {"type": "footer", "text": "Page 1 of 2"},
        para("Also kept."),
    ])
    cs = cut(doc, [["e0"], ["e3"]], skipped={"e2": "noise"})
    m = M.structure_metrics(doc, cs)
    assert m["text_lost_chars"] == 9
    total = len("Kepttexthere.") + 9 + len("Alsokept.")
    assert m["text_lost_share"] == round(9 / total, 4)
    assert M.structure_metrics(doc, cut(doc, [["e0", "e1"], ["e3"]], skipped={"e2": "noise"}))["text_lost_chars"] == 0


def test_a_gap_between_sub_element_chunks_is_lost_text():
    text = "alpha beta gamma delta"
    doc = make_doc([para(text)])
    cs = cut(doc, [("e0", 0, 10), ("e0", 17, len(text))])  # "gamma " never chunked
    assert M.structure_metrics(doc, cs)["text_lost_chars"] == len("gamma")


def test_overlap_share_and_storage_overhead_of_overlapping_windows():
    text = "abcdefghij" * 3  # 30 chars, no spaces
    doc = make_doc([para(text)])
    cs = cut(doc, [("e0", 0, 20), ("e0", 10, 30)])  # 10 chars held twice
    m = M.structure_metrics(doc, cs)
    assert m["overlap_chars"] == 10
    assert m["overlap_share"] == round(10 / 30, 4)
    assert m["storage_overhead"] == round(40 / 30 - 1, 4)
    plain = M.structure_metrics(doc, cut(doc, [("e0", 0, 15), ("e0", 15, 30)]))
    assert (plain["overlap_chars"], plain["overlap_share"], plain["storage_overhead"]) == (0, 0.0, 0.0)


def test_evidence_shares_and_section_path_coverage():
    doc = make_doc([para("With a box."), {"type": "paragraph", "text": "No box.", "page_idx": 0}])
    cs = cut(doc, [["e0"], ["e1"]])
    m = M.evidence_metrics(doc, cs)
    assert m == {"share_with_pages": 1.0, "share_with_bbox": 0.5, "share_with_source_blocks": 1.0}
    assert M.structure_metrics(doc, cut(doc, [["e0"], ["e1"]], section=()))["section_path_coverage"] == 0.0
    assert M.structure_metrics(doc, cs)["section_path_coverage"] == 1.0


def test_clause_ref_rates_from_the_field_and_from_the_text():
    doc = make_doc([para("1.1 First clause."), para("Plain text."), para("(a) an item.")])
    with_field = cut(doc, [["e0"], ["e1"], ["e2"]],
                     extra=[{"clause_ref": "1.1"}, {"clause_ref": None}, {"clause_ref": "(a)"}])
    m = M.structure_metrics(doc, with_field)
    assert m["clause_ref_rate"] == round(2 / 3, 4)
    assert m["clause_ref_text_rate"] == round(2 / 3, 4)
    assert M.structure_metrics(doc, cut(doc, [["e0"], ["e1"], ["e2"]]))["clause_ref_rate"] is None


def test_size_metrics_and_targets_come_from_stats():
    doc = make_doc([para("x" * n) for n in (100, 800, 900, 3000)])
    cs = cut(doc, [["e0"], ["e1"], ["e2"], ["e3"]])
    size = M.size_metrics(doc, cs)
    summary = stats.size_summary(cs)
    assert size["chunks"] == 4
    assert (size["chars_min"], size["chars_median"], size["chars_max"]) == (100, 850, 3000)
    assert size["chars_p95"] == summary.chars.p95 == 3000
    targets = M.target_metrics(cs)
    expected = {t.name: t.passed for t in stats.quality_targets(cs)}
    assert {k[len("target_"):]: v for k, v in targets.items() if k.startswith("target_") and not k.endswith("_value")} == expected
    assert targets["target_median_chars"] is True and targets["target_share_under_2500_chars"] is False
    assert targets["targets_passed"] == sum(expected.values()) == 3


def test_size_histogram_counts_every_chunk_once():
    doc = make_doc([para("x" * n) for n in (100, 150, 900, 2000)])
    cs = cut(doc, [["e0"], ["e1"], ["e2"], ["e3"]])
    hist = M.size_histogram(cs, bins=4)
    assert hist["counts"] == [2, 1, 0, 1]  # edges 100, 575, 1050, 1525, 2000
    assert hist["edges"][0] == 100 and hist["edges"][-1] == 2000
    assert sum(M.size_histogram(cs, "tokens")["counts"]) == 4


def test_an_empty_chunk_set_gives_none_not_errors():
    doc = make_doc([para("Only text.")])
    m = M.all_metrics(doc, ChunkSet(doc, "hand", {}, ()))
    assert m["chunks"] == 0 and m["mid_sentence_share"] is None and m["targets_passed"] == 0
    assert m["text_lost_chars"] == len("Onlytext.")


def test_all_metrics_is_flat_and_json_on_every_strategy_of_a_sample_pdf():
    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    questions = SAMPLE_PDFS / "contract_services_agreement.questions.json"
    for strategy in ("elements", "contract", "headers", "sections", "tokens"):
        cs = cb.chunk(doc, strategy)
        m = M.all_metrics(doc, cs, questions)
        json.dumps(m, allow_nan=False)
        assert all(not isinstance(v, (dict, list, tuple)) for v in m.values()), strategy
        assert m["chunks"] == len(cs)
        assert m["text_lost_chars"] == 0, strategy  # every strategy keeps all non-skipped text
        assert m["ret_questions"] == 12 and m["ret_chunks_questions_used"] == 12
    tokens = M.all_metrics(doc, cb.chunk(doc, "tokens", chunk_size=256, overlap=64))
    assert tokens["overlap_share"] > 0 and tokens["storage_overhead"] > 0
    assert M.all_metrics(doc, cb.chunk(doc, "elements"))["overlap_share"] == 0


def test_structure_and_retrieval_tables_for_the_notebook():
    doc = make_doc([para("One sentence here."), para("Another sentence.")])
    m = M.all_metrics(doc, cut(doc, [["e0"], ["e1"]]))
    table = M.structure_table(m)
    assert "tables_split" in table.index and "targets_passed" in table.index
    assert table.loc["mid_sentence_chunks", "value"] == 0


STRATEGIES = ("elements", "contract", "headers", "sections", "tokens")


@given(doc=element_documents(), strategy=st.sampled_from(STRATEGIES))
def test_metrics_hold_together_on_random_documents(doc, strategy):
    cs = cb.chunk(doc, strategy)
    m = M.all_metrics(doc, cs)
    json.dumps(m, allow_nan=False)
    n = m["chunks"]
    assert n == len(cs)
    assert m["text_lost_chars"] == 0, strategy  # no strategy drops text it did not declare skipped
    for key in ("tables_split", "lists_split", "clauses_split"):
        assert 0 <= m[key] <= m[key[: -len("_split")]]
    for key in ("heading_only_chunks", "mid_sentence_chunks", "dependent_start_chunks", "chunks_spanning_pages"):
        assert 0 <= m[key] <= n
    for key in ("mid_sentence_share", "dependent_start_share", "section_path_coverage", "overlap_share", "share_with_pages",
                "share_with_bbox", "share_with_source_blocks", "clause_ref_text_rate"):
        assert m[key] is None or 0 <= m[key] <= 1, key
    assert m["overlap_chars"] >= 0
    assert sum(M.size_histogram(cs)["counts"]) == n


def test_cb_metrics_is_this_module():
    assert cb.metrics.all_metrics is M.all_metrics and cb.metrics.measure is M.measure
