"""Strategy `elements` (specs/1): the spec's worked example, each boundary rule, and properties."""

from __future__ import annotations

import pytest
from element_streams import check_common_invariants, element_documents
from hypothesis import given
from hypothesis import strategies as st

import chunkbench
from chunkbench.errors import ParamError
from chunkbench.strategies import chunk
from chunkbench.types.document import SEPARATOR, is_noise, lead_ins
from tests.support.documents import CAPTION_HEADER_TABLE, make_doc
from tests.support.paths import SAMPLE_PDFS, mineru_fixture, shared_pdf

SPEC_EXAMPLE = [
    {"type": "paragraph", "text": "Revenue increased...", "page_idx": 1, "text_level": 999},
    {"type": "paragraph", "text": "Net income was...", "page_idx": 1, "text_level": 999},
    {"type": "heading", "text": "Financial Statements", "page_idx": 2, "text_level": 1},
    {"type": "table", "text": "Revenue: $100M...", "page_idx": 2, "text_level": 999},
]


def _doc(elements, **kw):
    # MinerU writes text_level 999 for non-headings; the loaders normalize that to None
    els = [{**e, "text_level": None if e.get("text_level") == 999 else e.get("text_level")} for e in elements]
    return make_doc(els, **kw)


def test_spec_worked_example_gives_exactly_its_three_chunks():
    doc = _doc(SPEC_EXAMPLE, metadata={"document_id": "doc-42", "user_id": "u1", "company": "ACME",
                                       "fiscal_year": 2024})
    cs = chunk(doc, "elements", join_headings=False)
    got = [(c.source_blocks, c.extra["chunk_type"], c.extra["page_idx"], c.extra["content"]) for c in cs]
    assert got == [
        (("e0", "e1"), "paragraph", 1, "Revenue increased...\n\nNet income was..."),
        (("e2",), "heading", 2, "Financial Statements"),
        (("e3",), "table", 2, "Revenue: $100M..."),
    ]
    assert all(c.chunk_id.startswith("doc-42_") for c in cs) and len({c.chunk_id for c in cs}) == 3  # not the index: lineage.md
    assert [c.boundary.reason.value for c in cs] == ["document_start", "page_break", "table"]
    assert cs[1].boundary.detail == "page 2 → 3"
    assert [c.extra["has_table"] for c in cs] == [False, False, True]
    assert [c.extra["page_indices"] for c in cs] == [[1], [2], [2]]
    assert all(c.type == c.extra["chunk_type"] for c in cs)
    assert all(dict(c.metadata) == {"document_id": "doc-42", "user_id": "u1", "company": "ACME",
                                    "fiscal_year": 2024} for c in cs)
    assert [c.page_start for c in cs] == [2, 3, 3]  # common fields are 1-based
    for c in cs:
        assert doc.text[c.start_char:c.end_char] == c.text


def test_by_default_a_heading_is_never_a_chunk_alone():
    """The spec leaves 'Financial Statements' alone before its table; by default what
    follows a heading joins it while it fits (the table here)."""
    cs = chunk(_doc(SPEC_EXAMPLE), "elements")
    assert [c.source_blocks for c in cs] == [("e0", "e1"), ("e2", "e3")]
    assert cs[1].boundary.reason.value == "page_break" and cs[1].section_path == ("Financial Statements",)
    els = [{"type": "heading", "text": "Top", "text_level": 1}, {"type": "heading", "text": "Sub", "text_level": 1},
           {"type": "paragraph", "text": "b" * 145}, {"type": "heading", "text": "Last", "text_level": 1}]
    cs = chunk(make_doc(els), "elements", max_chunk_size=150)
    # the body does not fit beside the headings: it is cut, its first piece opening with them
    assert [c.source_blocks for c in cs] == [("e0", "e1", "e2"), ("e2",), ("e3",)]
    assert "145 chars, 10 before it that open it, > 150" in cs[1].boundary.detail


def test_raw_mineru_text_level_999_is_not_a_heading():
    raw = chunk(make_doc(SPEC_EXAMPLE), "elements", join_headings=False)
    assert [c.source_blocks for c in raw] == [("e0", "e1"), ("e2",), ("e3",)]
    assert raw[0].section_path == () and raw[2].section_path == ("Financial Statements",)


def test_without_table_boundary_the_spec_rules_alone_put_the_table_with_its_heading():
    cs = chunk(_doc(SPEC_EXAMPLE), "elements", table_boundary=False)
    assert [c.source_blocks for c in cs] == [("e0", "e1"), ("e2", "e3")]
    assert cs[1].extra["chunk_type"] == "heading" and cs[1].extra["has_table"] is True


def test_size_limit_counts_joined_text_and_says_why():
    els = [{"type": "paragraph", "text": "a" * 900}, {"type": "paragraph", "text": "b" * 900},
           {"type": "paragraph", "text": "c" * 196}, {"type": "paragraph", "text": "d" * 198}]
    cs = chunk(make_doc(els), "elements")
    # 900 + 2 + 900 + 2 + 196 == 2000 fits exactly; the separator counts
    assert [c.source_blocks for c in cs] == [("e0", "e1", "e2"), ("e3",)]
    assert len(cs[0].text) == 2000
    assert cs[1].boundary.reason.value == "size_limit"
    assert cs[1].boundary.detail == "2000 + 200 chars > 2000"
    assert all(c.char_len <= 2000 for c in cs)


def test_boundary_wins_over_size_at_the_same_element():
    els = [{"type": "paragraph", "text": "a" * 1990, "page_idx": 0},
           {"type": "heading", "text": "Next Part", "text_level": 2, "page_idx": 0},
           {"type": "paragraph", "text": "b" * 1980, "page_idx": 0},
           {"type": "paragraph", "text": "c" * 50, "page_idx": 1}]
    # the heading and the last paragraph would each also break on size: the structural reason wins
    cs = chunk(make_doc(els), "elements")
    assert [c.boundary.reason.value for c in cs] == ["document_start", "heading", "page_break"]
    assert cs[1].boundary.detail == "heading level 2 'Next Part'"


def test_deeper_headings_do_not_break_unless_the_level_parameter_says_so():
    els = [{"type": "heading", "text": "Top", "text_level": 1},
           {"type": "heading", "text": "Sub", "text_level": 3},
           {"type": "paragraph", "text": "body"}]
    assert [c.source_blocks for c in chunk(make_doc(els), "elements")] == [("e0", "e1", "e2")]
    assert [c.source_blocks for c in chunk(make_doc(els), "elements", heading_level=3)] == [("e0", "e1", "e2")]
    cs = chunk(make_doc(els), "elements", heading_level=3, join_headings=False)
    assert [c.source_blocks for c in cs] == [("e0",), ("e1", "e2")]
    assert cs[1].section_path == ("Top", "Sub") and cs[1].heading == "Sub"


def test_oversize_element_is_a_chunk_of_its_own_as_the_spec_says_when_not_split():
    els = [{"type": "paragraph", "text": "short"}, {"type": "paragraph", "text": "x" * 2500},
           {"type": "paragraph", "text": "after"}]
    cs = chunk(make_doc(els), "elements", split_oversize=False)
    assert [c.source_blocks for c in cs] == [("e0",), ("e1",), ("e2",)]
    assert cs[1].boundary.reason.value == "oversize_element"
    assert "2500 chars > 2000" in cs[1].boundary.detail
    assert [c.extra["oversize"] for c in cs] == [False, True, False]
    assert cs[2].boundary.reason.value == "size_limit"


def test_an_oversize_element_is_split_at_paragraphs_then_sentences_then_words():
    """A text with no blank lines loaded as one 120k-character paragraph came out as
    one chunk; now it is cut at sentences into pieces within the limit, each an exact slice."""
    sentences = " ".join(f"Sentence {i} says one thing about the topic." for i in range(2500))
    words = "x" * 2500
    els = [{"type": "heading", "text": "Title", "text_level": 1}, {"type": "paragraph", "text": sentences},
           {"type": "paragraph", "text": "Two paragraphs.\n\n" + "A second one. " * 200}, {"type": "paragraph", "text": words}]
    doc = make_doc(els)
    cs = chunk(doc, "elements")
    assert max(c.char_len for c in cs) <= 2000
    assert all(doc.text[c.start_char:c.end_char] == c.text for c in cs)
    pieces = [c for c in cs if "e1" in c.source_blocks]
    assert len(pieces) == -(-len(sentences) // 2000) or len(pieces) == -(-len(sentences) // 2000) + 1
    # the heading is not left alone: it opens the first piece (it was a chunk of its own)
    assert pieces[0].source_blocks == ("e0", "e1") and pieces[0].text.startswith("Title\n\nSentence 0 ")
    assert pieces[0].boundary.reason.value == "document_start" and "cut into" in pieces[0].boundary.detail
    assert [c.source_blocks for c in pieces[1:]] == [("e1",)] * (len(pieces) - 1)
    assert {c.boundary.reason.value for c in pieces[1:]} == {"sentence_split"}
    assert all(c.text.endswith(".") for c in pieces)  # cut between sentences
    assert "".join(c.text for c in pieces).removeprefix("Title\n\n").replace(" ", "") == sentences.replace(" ", "")
    x = [c for c in cs if c.source_blocks == ("e3",)]
    assert [c.char_len for c in x] == [2000, 500] and x[1].boundary.reason.value == "word_split"


def test_chunk_type_priority_heading_table_code_list_paragraph():
    def kind(*types):
        els = [{"type": t, "text": f"{t} text", **({"text_level": 1} if t == "heading" else {})} for t in types]
        return chunk(make_doc(els), "elements", table_boundary=False)[0].extra["chunk_type"]

    assert kind("paragraph", "list") == "list"
    assert kind("paragraph", "list", "code") == "code"
    assert kind("code", "table", "list") == "table"
    assert kind("heading", "table") == "heading"
    assert kind("paragraph", "equation") == "paragraph"


def test_noise_and_empty_elements_are_skipped_and_declared():
    els = [{"type": "header", "text": "ACME Annual Report"}, {"type": "paragraph", "text": "body"},
           {"type": "paragraph", "text": "   "}, {"type": "other", "raw_type": "discarded", "text": "x"},
           {"type": "page_number", "text": "1"}, {"type": "paragraph", "text": "more"}]
    doc = make_doc(els)
    cs = chunk(doc, "elements")
    assert [c.source_blocks for c in cs] == [("e1", "e5")]
    assert cs[0].text == "body\n\nmore"
    assert set(cs.skipped) == {"e0", "e2", "e3", "e4"}
    assert cs.skipped["e2"] == "empty text" and "header" in cs.skipped["e0"]
    kept = chunk(doc, "elements", skip_noise=False)
    assert kept[0].source_blocks == ("e0", "e1", "e3", "e4", "e5") and set(kept.skipped) == {"e2"}
    assert is_noise(doc.elements[3]) and not is_noise(doc.elements[1])


def test_multi_page_elements_list_every_page_and_break_on_the_page_they_end():
    els = [{"type": "paragraph", "text": "spans", "page_idx": 0, "page_end_idx": 1},
           {"type": "paragraph", "text": "same page as the end", "page_idx": 1},
           {"type": "paragraph", "text": "next", "page_idx": 2}]
    cs = chunk(make_doc(els), "elements")
    assert [c.source_blocks for c in cs] == [("e0", "e1"), ("e2",)]
    assert cs[0].extra["page_indices"] == [0, 1] and cs[0].extra["page_idx"] == 0


def test_bad_parameters_are_rejected():
    doc = make_doc([{"type": "paragraph", "text": "x"}])
    with pytest.raises(ParamError, match="max_chunk_size"):
        chunk(doc, "elements", max_chunk_size=0)
    with pytest.raises(ParamError, match="allowed"):
        chunk(doc, "elements", max_chars=100)


@given(element_documents(), st.sampled_from([80, 300, 2000]), st.booleans(), st.integers(1, 3), st.booleans(),
       st.booleans())
def test_properties_on_random_element_streams(doc, limit, tables, level, split, join):
    params = {"max_chunk_size": limit, "table_boundary": tables, "heading_level": level, "skip_noise": True,
              "split_oversize": split, "join_headings": join}
    cs = chunk(doc, "elements", **params)
    check_common_invariants(doc, cs, params)
    chunked = [b for c in cs for b in c.source_blocks]
    in_order = [b for i, b in enumerate(chunked) if i == 0 or chunked[i - 1] != b]  # a split element once
    assert len(in_order) == len(set(in_order)), "every element in one chunk, or in consecutive pieces"
    expected = [e.id for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped]
    assert in_order == expected, "reading order kept, nothing lost"
    titles = lead_ins([e for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped])
    for prev, c in zip([None, *cs.chunks], cs.chunks):
        els = [doc.element(b) for b in c.source_blocks]
        if split and c.text != SEPARATOR.join(e.text for e in els):  # a piece of a split element
            assert c.text == doc.text[c.start_char:c.end_char] and 0 < c.char_len <= limit
            # its first piece may open with the headings (and a table's caption) before it
            assert len(els) == 1 or (join and all(e.is_heading or e.id in titles for e in els[:-1]))
        else:
            assert c.text == SEPARATOR.join(e.text for e in els)
        if c.char_len > limit:
            assert not split and len(els) == 1 and c.extra["oversize"], "only a lone unsplit element exceeds the limit"
        # with join_headings, leading headings (and a table's caption) and the element after them were joined on purpose
        lead = next((i for i, e in enumerate(els) if not e.is_heading and e.id not in titles), len(els)) if join else 0
        ruled = els[lead:] if join else els
        assert len({e.page_idx for e in ruled}) <= 1, "a page change always starts a chunk"
        for e in ruled[1:]:
            assert e.text_level is None or e.text_level > level, "top headings start chunks"
            assert not (tables and e.type == "table"), "tables start chunks"
        prev_piece = prev is not None and split and \
            prev.text != SEPARATOR.join(doc.element(b).text for b in prev.source_blocks)  # pieces of a cut element stand alone
        if prev is not None and c.boundary.reason.value == "size_limit" and not prev_piece:
            # the headings and lead-ins that open the chunk were the previous chunk's end
            assert prev.char_len + len(SEPARATOR) + len(SEPARATOR.join(e.text for e in els[:lead + 1])) > limit, \
                "chunks are filled greedily"
        if join and prev is not None and all(doc.element(b).is_heading for b in prev.source_blocks):
            assert prev.char_len + len(SEPARATOR) + len(els[0].text) > limit, "headings alone only when full"
            if split and len(els[0].text) > limit:  # an element too long for any chunk takes them into its first piece
                # unless they are over half the limit, or skipped furniture lies between any two of them
                # (the piece is one slice of the text), as found at 1,000 examples: a page number
                chain = [*(doc.element(b) for b in prev.source_blocks), els[0]]
                parted = any(b.char_start != a.char_end + len(SEPARATOR) for a, b in zip(chain, chain[1:]))
                assert prev.char_len + len(SEPARATOR) > limit // 2 or parted


def test_mineru_fixture():
    doc = chunkbench.load(mineru_fixture("naacl-long-107", "naacl-long-107_content_list.json"))
    cs = chunk(doc, "elements")
    assert cs[0].extra["chunk_type"] == "heading"
    assert all(c.page_start is not None and c.source_blocks for c in cs)
    assert {c.boundary.reason.value for c in cs} >= {"document_start", "heading", "page_break"}
    check_common_invariants(doc, cs)


@pytest.mark.parametrize("path", [SAMPLE_PDFS / "financial_annual_report.pdf", "financial_bestbuy-2023-10k.pdf"])
def test_real_pdfs(path):
    doc = chunkbench.load(path if not isinstance(path, str) else shared_pdf(path))
    cs = chunk(doc, "elements")
    check_common_invariants(doc, cs)
    assert len(cs) > 5
    assert all(c.page_start is not None and c.bbox and c.source_blocks for c in cs), "evidence on every chunk"
    assert all(c.char_len <= 2000 or c.extra["oversize"] for c in cs)


def test_furniture_kept_between_a_caption_and_its_table_stays_with_them():
    # with skip_noise off, a page header between a caption and its table hid the table from it
    doc = make_doc(CAPTION_HEADER_TABLE)
    for skip_noise, with_table in ((False, ("e1", "e2", "e3")), (True, ("e1", "e3"))):
        cs = chunk(doc, "elements", skip_noise=skip_noise)
        check_common_invariants(doc, cs, dict(cs.params))
        assert cs[0].source_blocks == ("e0",) and cs[1].source_blocks[:len(with_table)] == with_table, skip_noise
        assert cs[1].boundary.reason.value == "table"


@given(element_documents(), st.data())
def test_the_lead_ins_a_document_keeps_are_those_of_its_elements_less_the_left_out(doc, data):
    """`Document.lead_ins_without` (asked at every re-chunk and defect scan of one Document) answers
    as `lead_ins` over the elements left, asked again or not, and cannot be changed by a caller."""
    ids = data.draw(st.sets(st.sampled_from([e.id for e in doc.elements]))) if doc.elements else set()
    types = data.draw(st.sets(st.sampled_from(["table", "caption", "list", "toc"])))
    expected = lead_ins([e for e in doc.elements if e.id not in ids and e.type not in types])
    first = doc.lead_ins_without(ids=ids, types=types)
    assert dict(first) == expected and doc.lead_ins_without(ids=set(ids), types=list(types)) is first
    with pytest.raises(TypeError):
        first["x"] = None  # type: ignore[index]


def test_max_chunk_size_steps_give_the_chunks_of_a_fresh_document():
    """A slider's settings one after another on one Document (its kept lead-ins) give the chunks the
    same settings give on a fresh load."""
    path = SAMPLE_PDFS / "technical_manual.pdf"
    doc = chunkbench.load(path)
    steps = [chunk(doc, "elements", max_chunk_size=size).chunks for size in (400, 900, 1500, 400)]
    for size, chunks in zip((400, 900, 1500, 400), steps):
        assert chunk(chunkbench.load(path), "elements", max_chunk_size=size).chunks == chunks


@given(element_documents(), st.lists(st.integers(50, 700), min_size=2, max_size=6), st.integers(0, 3), st.booleans(),
       st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_a_re_chunk_from_the_kept_walk_gives_the_chunks_of_a_whole_walk(doc, limits, level, tables, noise, split,
                                                                        join, contents):
    """Slider steps on one Document re-walk only the stretches a new limit can move; every step gives
    exactly the chunks (boundaries and their sentences naming the limit, indices) of walking it whole."""
    from chunkbench.strategies.kept import KeptState

    rules = {"heading_level": level, "table_boundary": tables, "skip_noise": noise, "split_oversize": split,
             "join_headings": join, "skip_contents": contents}
    kept = KeptState()  # the explorer's, across its steps
    stepped = [chunk(doc, "elements", kept=kept, max_chunk_size=size, **rules) for size in limits]
    for size, cs in zip(limits, stepped):
        whole = chunk(doc, "elements", max_chunk_size=size, **rules)  # no owner: nothing kept
        assert [c.to_dict() for c in cs] == [c.to_dict() for c in whole] and cs.skipped == whole.skipped


def test_a_limit_change_walks_again_only_the_stretches_it_can_move(monkeypatch):
    from chunkbench.strategies import elements
    from chunkbench.strategies.kept import KeptState

    doc = chunkbench.load(SAMPLE_PDFS / "technical_manual.pdf")
    walked: list[int] = []
    real = elements._chunk_stretch
    monkeypatch.setattr(elements, "_chunk_stretch", lambda *a, **k: walked.append(1) or real(*a, **k))
    kept = KeptState()
    chunk(doc, "elements", kept=kept, max_chunk_size=1500)
    whole = len(walked)
    walked.clear()
    chunk(doc, "elements", kept=kept, max_chunk_size=1501)
    assert whole > 5 and len(walked) < whole / 2, (whole, len(walked))
    walked.clear()
    chunk(doc, "elements", kept=kept, max_chunk_size=1500, join_headings=False)  # other rules: a walk of their own
    assert len(walked) > 5



@given(st.integers(50, 5000), st.lists(st.integers(0, 10_000), max_size=12), st.data())
def test_every_limit_in_a_kept_range_answers_each_comparison_alike(limit, sizes, data):
    """`limits.SizeLimit`: after any comparisons, every limit in [lo, hi] answers them as the limit
    they were made with did (so a walk that asked only them gives the same groups)."""
    from chunkbench.strategies.limits import SizeLimit

    lim = SizeLimit(limit)
    answers = [lim.fits(s) for s in sizes]
    assert lim.lo <= limit <= lim.hi
    other = data.draw(st.integers(lim.lo, min(lim.hi, 20_000)))
    assert [s <= other for s in sizes] == answers
    if lim.hi < 20_000:  # just outside the range, some answer differs
        assert [s <= lim.hi + 1 for s in sizes] != answers
    if lim.lo > 0:
        assert [s <= lim.lo - 1 for s in sizes] != answers
