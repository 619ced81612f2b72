"""Strategy `headers` (specs/3): header paths, merge below min, _sub_N split with the spec's sibling
overlap, fallback, source positions on Markdown, real PDFs and properties on random documents."""

from __future__ import annotations

import pytest
from element_streams import check_common_invariants, element_documents
from hypothesis import given
from hypothesis import strategies as st

import chunkbench
from chunkbench.errors import ParamError
from chunkbench.loaders.textfile import read_source_text
from chunkbench.strategies import chunk
from chunkbench.types.ids import document_key
from tests.support.documents import make_doc
from tests.support.paths import ROOT, SAMPLE_PDFS, shared_pdf
from tests.support.strategy_checks import headers_coverage, headers_own

GUIDE = ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"


def _h(text, level):
    return {"type": "heading", "text": text, "text_level": level}


def _p(text):
    return {"type": "paragraph", "text": text}


# --- the spec's _apply_overlap, verbatim, as the reference for the overlap semantics -------------
class _SpecChunk:
    def __init__(self, chunk_id, content):
        self.chunk_id, self.content = chunk_id, content


def _apply_overlap(chunks, overlap_chars):
    if overlap_chars <= 0:
        return chunks
    result = []
    for i, chunk in enumerate(chunks):  # noqa: F402 - the spec's code, verbatim
        if i == 0:
            result.append(chunk)
            continue
        prev_chunk = chunks[i - 1]
        current_is_subchunk = "_sub_" in chunk.chunk_id
        prev_is_subchunk = "_sub_" in prev_chunk.chunk_id
        if current_is_subchunk and prev_is_subchunk:
            current_parent = chunk.chunk_id.rsplit("_sub_", 1)[0]
            prev_parent = prev_chunk.chunk_id.rsplit("_sub_", 1)[0]
            if current_parent == prev_parent:
                overlap_text = prev_chunk.content[-overlap_chars:]
                chunk.content = overlap_text + "\n\n" + chunk.content
        result.append(chunk)
    return result


def test_header_path_follows_the_heading_levels():
    doc = make_doc([_h("Architecture", 1), _p("a" * 300), _h("Components", 2), _p("b" * 300),
                    _h("Detail", 3), _p("c" * 300), _h("Interfaces", 2), _p("d" * 300), _h("Ops", 1), _p("e" * 300)],
                   metadata={"document_id": "doc1"})
    cs = chunk(doc, "headers", include_parent_headers=False)
    assert [c.extra["header_path"] for c in cs] == [
        "Architecture", "Architecture > Components", "Architecture > Components > Detail",
        "Architecture > Interfaces", "Ops"]
    assert all(c.chunk_id.startswith("doc1_") for c in cs) and len({c.chunk_id for c in cs}) == 5
    assert [c.extra["chunk_index"] for c in cs] == list(range(5))
    assert [c.boundary.reason.value for c in cs] == ["document_start"] + ["heading"] * 4
    assert cs[2].boundary.detail == "heading level 3 'Detail'"
    assert cs[2].section_path == ("Architecture", "Components", "Detail") and cs[2].heading == "Detail"
    for c in cs:  # header chunks never overlap and their text is the canonical span
        assert c.extra["overlap_chars"] == 0 and c.text == doc.text[c.start_char:c.end_char]


def test_parent_headers_are_a_breadcrumb_field_and_the_text_stays_a_slice():
    doc = make_doc([_h("Architecture", 1), _p("a" * 300), _h("Components", 2), _p("b" * 300)])
    cs = chunk(doc, "headers")  # include_parent_headers defaults to true (the spec's config)
    assert cs[0].extra["header_prefix"] == "" and cs[0].text.startswith("Architecture\n\n")
    assert cs[1].extra["header_prefix"] == "Architecture\n\n"
    assert cs[1].text == "Components\n\n" + "b" * 300 == doc.text[cs[1].start_char:cs[1].end_char]
    assert chunk(doc, "headers", include_parent_headers=False)[1].extra["header_prefix"] == ""


def test_small_sections_merge_until_the_minimum_and_keep_their_shared_path():
    doc = make_doc([_h("Guide", 1), _p("x" * 400), _h("Setup", 2), _p("short one"), _h("Install", 3),
                    _p("short two"), _h("Configure", 3), _p("y" * 300), _h("Run", 2), _p("z" * 300)])
    cs = chunk(doc, "headers", include_parent_headers=False)
    assert [c.source_blocks for c in cs] == [("e0", "e1"), ("e2", "e3", "e4", "e5", "e6", "e7"), ("e8", "e9")]
    merged = cs[1]
    assert merged.boundary.reason.value == "merged_small"
    assert "'Setup' (16), 'Install' (18), 'Configure' (311)" in merged.boundary.detail
    # the merged chunk keeps the deepest path its sections share, and lists them all
    assert merged.extra["header_path"] == "Guide > Setup"
    assert merged.extra["header_paths"] == ["Guide > Setup", "Guide > Setup > Install", "Guide > Setup > Configure"]
    assert merged.text == "Setup\n\nshort one\n\nInstall\n\nshort two\n\nConfigure\n\n" + "y" * 300
    assert len(merged.text) >= 200
    # merging stops once the minimum is met: 'Run' stays a chunk of its own
    assert cs[2].boundary.reason.value == "heading"


def test_merge_across_top_level_sections_keeps_the_first_path_and_a_small_last_section_stays():
    doc = make_doc([_h("A", 1), _h("B", 2), _p("tiny"), _h("C", 1), _p("q" * 250), _h("D", 1), _p("end")])
    cs = chunk(doc, "headers", include_parent_headers=False)
    # "A" has no text of its own; "A > B" and "C" share nothing: the first of them is kept
    assert cs[0].extra["header_path"] == "A > B"
    assert cs[0].extra["header_paths"] == ["A", "A > B", "C"]
    assert cs[0].boundary.reason.value == "document_start" and "merged" in cs[0].boundary.detail
    assert cs[1].text == "D\n\nend" and cs[1].boundary.reason.value == "heading"


def test_large_section_splits_into_sub_chunks_overlapping_their_sibling_in_place():
    paras = ["First " + "a" * 894, "Second " + "b" * 893, "Third " + "c" * 894]
    doc = make_doc([_h("Deployment", 1), _h("Steps", 2), *map(_p, paras), _h("Next", 2), _p("n" * 400)],
                   metadata={"document_id": "doc1"})
    cs = chunk(doc, "headers", include_parent_headers=False)
    sub0, sub1, nxt = cs
    parent = sub0.chunk_id.rsplit("_sub_", 1)[0]  # spec 3: siblings share the id before `_sub_`
    assert parent.startswith("doc1_") and sub1.chunk_id.rsplit("_sub_", 1)[0] == parent
    assert nxt.chunk_id.startswith("doc1_") and "_sub_" not in nxt.chunk_id
    assert sub0.text == "Deployment\n\nSteps\n\n" + paras[0] + "\n\n" + paras[1]
    assert sub1.text == (sub0.text + "\n\n")[-50:] + paras[2]
    assert sub1.extra["overlap_chars"] == 50 and sub1.extra["parent_chunk_id"] == parent
    assert sub1.boundary.reason.value == "paragraph_split"
    assert sub1.boundary.detail == ("split of 'Deployment > Steps' (part 2 of 2) at a paragraph boundary, "
                                    "50-char overlap")
    # the overlap is drawn as [start_char, previous.end_char)
    assert sub1.start_char == sub0.end_char + len("\n\n") - 50 and sub1.source_blocks == ("e3", "e4")
    # no overlap between header-based chunks
    assert nxt.text == "Next\n\n" + "n" * 400 and nxt.extra["overlap_chars"] == 0
    assert all(len(headers_own(c)) <= 2000 for c in cs)


def test_overlap_is_the_previous_siblings_text_in_place_even_when_a_sibling_is_shorter_than_it():
    # sub_1 is a 30-char paragraph, so sub_2's overlap reaches back through it into sub_0
    paras = ["p" * 1990, "short paragraph of thirty ch.", "q" * 1990, "r" * 500]
    doc = make_doc([_h("H", 1), *map(_p, paras), _h("Other", 1), _p("o" * 300)])
    plain = chunk(doc, "headers", include_parent_headers=False, overlap_chars=0)
    cs = chunk(doc, "headers", include_parent_headers=False, overlap_chars=50)
    assert [c.extra.get("split_part") for c in cs] == [c.extra.get("split_part") for c in plain] == [1, 2, 3, 4, None]
    assert len({c.extra["parent_chunk_id"] for c in cs[:4]}) == 1
    for k, (c, own) in enumerate(zip(cs, plain)):
        assert c.text == doc.text[c.start_char:c.end_char], "a slice, never re-joined text"
        assert headers_own(c) == own.text and c.end_char == own.end_char
        ov = c.extra["overlap_chars"]
        assert (ov == 0) if k in (0, 4) else (0 < ov <= 50)
        assert c.start_char == own.start_char - ov
    assert cs[1].extra["overlap_chars"] == 50  # all 'p': one word, kept whole
    # sub_2's 50 characters reach into sub_0's p-run: mid-word, so they start at the next word
    assert cs[2].text.startswith("short paragraph") and cs[2].start_char == cs[1].start_char + 50
    # an overlap falling mid-word starts at the next word
    words = " ".join(f"w{i:03d}" for i in range(600))
    cs = chunk(make_doc([_h("W", 1), _p(words)]), "headers", max_chunk_chars=500, overlap_chars=22)
    for c in cs.chunks[1:]:
        assert c.text.startswith("w") and 0 < c.extra["overlap_chars"] <= 22
        assert c.text[:c.extra["overlap_chars"]].split()[0] in words.split()


def test_paragraph_too_long_splits_at_sentences_and_a_sentence_too_long_is_cut_at_whitespace():
    sentence = "This sentence is about forty characters. "
    long_para = (sentence * 80).strip()  # ~3300 chars, 80 sentences
    words = " ".join(["word"] * 700)  # 3499 chars without any sentence end
    doc = make_doc([_h("Long", 1), _p(long_para), _h("Words", 1), _p(words)])
    cs = chunk(doc, "headers", include_parent_headers=False, overlap_chars=0)
    reasons = [c.boundary.reason.value for c in cs]
    assert reasons == ["document_start", "sentence_split", "heading", "size_limit"]
    assert all(len(c.text) <= 2000 for c in cs)
    assert cs[1].text.startswith("This sentence") and cs[0].text.endswith("characters.")
    assert "hard cut" in cs[3].boundary.detail
    assert cs[2].text.endswith("word") and cs[3].text.startswith("word")
    # nothing lost: the pieces rebuild the words exactly
    assert (cs[2].text.removeprefix("Words\n\n") + " " + cs[3].text).split() == words.split()


def test_no_headers_falls_back_to_paragraphs_and_one_paragraph_is_one_chunk():
    one = chunk(make_doc([_p("Just one paragraph.")]), "headers")
    assert len(one) == 1 and one[0].text == "Just one paragraph." and one[0].type == "text"
    doc = make_doc([_p("a" * 900), _p("b" * 900), _p("c" * 900), _p("d" * 100)])
    cs = chunk(doc, "headers")
    assert [c.source_blocks for c in cs] == [("e0", "e1"), ("e2", "e3")]
    assert [c.boundary.reason.value for c in cs] == ["document_start", "fallback_paragraphs"]
    assert cs[1].boundary.detail == "no headings: paragraph boundary, 1802 + 902 chars > 2000"
    assert all(c.extra["header_path"] == "" and c.extra["overlap_chars"] == 0 for c in cs)


def test_noise_is_skipped_and_declared():
    doc = make_doc([{"type": "header", "text": "Running head"}, _h("Title", 1), _p("body " * 50),
                    {"type": "page_number", "text": "1"}, _p("more body " * 20), {"type": "paragraph", "text": ""}])
    cs = chunk(doc, "headers")
    assert set(cs.skipped) == {"e0", "e3", "e5"}
    assert "Running head" not in cs[0].text and "\n\n1\n\n" not in cs[0].text
    assert cs[0].source_blocks == ("e1", "e2", "e4")


def test_chunks_inherit_document_metadata_and_list_their_wikilinks(tmp_path):
    md = tmp_path / "note.md"
    md.write_text("---\ntags: [ops]\naliases: [n]\nowner: team-a\n---\n# Note\n\nSee [[Runbook#Alerts|alerts]] "
                  "and [[Oncall]]. " + "y " * 120 + "\n\n## Other\n\n" + "x " * 150 + "[[Runbook]]\n", encoding="utf-8")
    cs = chunk(chunkbench.load(md), "headers")
    assert [c.extra["links"] for c in cs] == [["Runbook", "Oncall"], ["Runbook"]]
    assert all(dict(c.metadata) == {"tags": ["ops"], "aliases": ["n"], "owner": "team-a"} for c in cs)


def test_bad_parameters_are_rejected():
    doc = make_doc([_p("x")])
    with pytest.raises(ParamError, match="min_chunk_chars"):
        chunk(doc, "headers", min_chunk_chars=3000, max_chunk_chars=2000)
    with pytest.raises(ParamError, match="overlap_chars"):
        chunk(doc, "headers", overlap_chars=500, max_chunk_chars=500)


@pytest.mark.parametrize("params", [{}, {"max_chunk_chars": 120, "min_chunk_chars": 50, "overlap_chars": 0},
                                    {"max_chunk_chars": 120, "min_chunk_chars": 0, "overlap_chars": 30}])
def test_markdown_positions_are_offsets_in_the_original_file(params):
    source = read_source_text(GUIDE)
    doc = chunkbench.load(GUIDE)
    cs = chunk(doc, "headers", **params)
    check_common_invariants(doc, cs, {**dict(cs.params)})
    assert len(cs) > 3
    for c in cs:
        a, b = c.extra["start_pos"], c.extra["end_pos"]
        region = source[a:b]
        # each source element's part of the region, Markdown markup between elements left out
        pieces = []
        for bid in c.source_blocks:
            el = doc.element(bid)
            s, e = el.attrs["src_start"], el.attrs["src_end"]
            pieces.append(source[max(s, a):min(e, b)])
        assert region.startswith(pieces[0]) and region.endswith(pieces[-1])
        if not c.extra["overlap_chars"]:
            assert "\n\n".join(pieces) == headers_own(c)
        else:  # the overlap starts at start_pos
            assert c.text.startswith(pieces[0][:10])
        tail = headers_own(c)[-min(len(headers_own(c)), len(pieces[-1])):]
        assert region.endswith(tail)  # the own text ends at end_pos
    first = cs[0]
    assert source[first.extra["start_pos"]:].startswith("Deployment Guide\n\nThis guide")
    assert first.extra["header_path"] == "Deployment Guide"
    paths = {c.extra["header_path"] for c in cs}
    assert "Deployment Guide > Building the image > Build options" in paths


def test_markdown_default_chunks_of_the_deployment_guide():
    doc = chunkbench.load(GUIDE)
    cs = chunk(doc, "headers")
    got = [(c.extra["header_path"], c.boundary.reason.value) for c in cs]
    assert got == [
        ("Deployment Guide", "document_start"),  # intro (165 chars) merged with Prerequisites
        ("Deployment Guide > Building the image", "heading"),
        ("Deployment Guide > Building the image > Build options", "heading"),
        ("Deployment Guide > Rollback procedure", "merged_small"),  # + Step-by-step
        ("Monitoring", "heading"),
    ]
    assert cs[2].text.startswith("Build options\n\n| Option |")
    assert cs[2].extra["header_prefix"] == "Deployment Guide > Building the image\n\n"
    assert "## This line is a shell comment" in cs[1].text  # fenced code is not a heading


def test_technical_manual_pdf():
    doc = chunkbench.load(SAMPLE_PDFS / "technical_manual.pdf")
    cs = chunk(doc, "headers")
    check_common_invariants(doc, cs)
    by_heading = {c.heading: c for c in cs}
    sampling = by_heading["3.2.1 The sampling section"]
    assert sampling.extra["header_path"] == ("TX-200 Environmental Data Logger > 3 Configuration > "
                                             "3.2 The configuration file > 3.2.1 The sampling section")
    assert sampling.text.startswith("3.2.1 The sampling section\n\n")
    assert sampling.extra["header_prefix"] == ("TX-200 Environmental Data Logger > 3 Configuration > "
                                               "3.2 The configuration file\n\n")
    # a chapter heading without text of its own is merged with its first subsection
    install = by_heading["2 Installation"]
    assert install.boundary.reason.value == "merged_small" and "2.1 Package contents" in install.text
    assert not any("Page 1 of 5" in c.text or "fictional sample manual" in c.text for c in cs)
    assert all(c.page_start and c.bbox and c.source_blocks for c in cs)
    assert all(len(headers_own(c)) <= 2000 for c in cs)
    assert all(c.extra["start_pos"] == c.start_char for c in cs)  # PDFs: canonical offsets


def test_shared_pdf_federal_register():
    doc = chunkbench.load(shared_pdf("req_federal-register-2020-17221.pdf"))
    cs = chunk(doc, "headers")
    check_common_invariants(doc, cs)
    headers_coverage(doc, cs)
    assert len(cs) > 20
    assert {c.boundary.reason.value for c in cs} >= {"heading", "merged_small", "paragraph_split"}
    assert all(len(headers_own(c)) <= 2000 for c in cs)
    subs = [c for c in cs if c.extra.get("split_part", 1) > 1]
    assert subs and all(0 < c.extra["overlap_chars"] <= 50 for c in subs)


@given(element_documents(), st.sampled_from([(0, 60, 0), (100, 300, 30), (200, 2000, 50), (50, 120, 10)]),
       st.booleans())
def test_properties_on_random_element_streams(doc, sizes, parents):
    mn, mx, ov = sizes
    params = {"min_chunk_chars": mn, "max_chunk_chars": mx, "overlap_chars": ov, "include_parent_headers": parents}
    cs = chunk(doc, "headers", **params)
    check_common_invariants(doc, cs, params)
    headers_coverage(doc, cs)
    for prev, c in zip([None, *cs.chunks], cs.chunks):
        assert len(headers_own(c)) <= mx, "size limit (own text; prefix and overlap are declared)"
        assert (c.extra["header_prefix"] != "") <= parents
        sibling = (prev is not None and "_sub_" in c.chunk_id and "_sub_" in prev.chunk_id
                   and c.chunk_id.rsplit("_sub_", 1)[0] == prev.chunk_id.rsplit("_sub_", 1)[0])
        overlap = c.text[:c.extra["overlap_chars"]]
        own_start = c.start_char + len(overlap)  # the overlap is the text right before it, in place
        if sibling and ov and overlap:
            assert len(overlap) <= ov and c.start_char < prev.end_char, "overlap in place"
            assert not overlap[0].isspace(), "no overlap starting with whitespace"  # an indented code line
        elif sibling and ov:
            assert not doc.text[max(0, own_start - ov):own_start].strip(), "overlap where text precedes"
        else:
            assert c.extra["overlap_chars"] == 0, "overlap only between siblings"
            head, tail = headers_own(c).split("\n\n")[0], headers_own(c).split("\n\n")[-1]  # skipped noise may sit between
            assert doc.text[c.start_char:].startswith(head) and doc.text[:c.end_char].endswith(tail)
        assert c.chunk_id.startswith(f"{document_key(cs.doc)}_")


def test_a_table_above_the_maximum_is_split_at_rows():
    rows = [f"| row {i} | value {i} |" for i in range(40)]
    doc = make_doc([_h("Table", 1), {"type": "table", "text": "\n".join(rows)}])
    cs = chunk(doc, "headers", max_chunk_chars=300, min_chunk_chars=0, overlap_chars=0, include_parent_headers=False)
    assert len(cs) > 2 and all(len(c.text) <= 300 for c in cs)
    assert [c.boundary.reason.value for c in cs[1:]] == ["table_row_split"] * (len(cs) - 1)
    assert "at a table row" in cs[1].boundary.detail
    assert all(line in rows for c in cs[1:] for line in c.text.split("\n"))  # whole rows only


def test_hard_cuts_never_separate_a_combining_mark_from_its_letter():
    text = "e\u0301" * 1500  # 3000 characters, no whitespace, no sentence end
    cs = chunk(make_doc([_p(text)]), "headers", max_chunk_chars=999, overlap_chars=0)
    assert [len(c.text) for c in cs] == [998, 998, 998, 6]
    assert "".join(c.text for c in cs) == text and not any(c.text.startswith("\u0301") for c in cs)


def test_malformed_headers_skipped_levels_missing_levels_and_empty_headings():
    doc = make_doc([_h("Top", 1), _p("t" * 250), _h("Deep", 4), _p("d" * 250), _h("Mid", 2), _p("m" * 250),
                    {"type": "heading", "text": "No level"}, _p("n" * 250), {"type": "heading", "text": "  ",
                                                                            "text_level": 2},
                    {"type": "paragraph", "text": "Styled", "text_level": 3}, _p("s" * 250)])
    cs = chunk(doc, "headers", include_parent_headers=False)
    assert [c.extra["header_path"] for c in cs] == ["Top", "Top > Deep", "Top > Mid", "No level", "No level > Styled"]
    assert cs.skipped["e8"] == "empty text"


def test_mineru_fixture():
    from tests.support.paths import mineru_fixture
    doc = chunkbench.load(mineru_fixture("naacl-long-107", "naacl-long-107_content_list.json"))
    cs = chunk(doc, "headers")
    check_common_invariants(doc, cs)
    headers_coverage(doc, cs)
    assert {"heading", "paragraph_split"} <= {c.boundary.reason.value for c in cs}
    assert all(c.page_start for c in cs) and all(len(headers_own(c)) <= 2000 for c in cs)  # (no bboxes: no page size)


def test_fallback_split_of_a_paragraph_inside_an_element_does_not_repeat_its_neighbours():
    long_para = " ".join(["word"] * 60)  # 299 chars, no sentence end
    doc = make_doc([_p("First paragraph.\n\n" + long_para + "\n\nLast one.")])
    cs = chunk(doc, "headers", max_chunk_chars=120, min_chunk_chars=0, overlap_chars=0)
    assert cs[0].text == "First paragraph." and cs[-1].text.endswith("Last one.")
    headers_coverage(doc, cs)
    assert all(c.start_char >= cs[0].end_char for c in cs[1:])


@pytest.mark.parametrize("text, lo, start, begins", [
    ("abc def  ghi", 1, 8, 4),  # mid-word: the next word
    ("abc def  ghi", 5, 7, 5),  # the whole overlap is part of one word: kept
    ("abc def  ghi", 4, 8, 4),  # at a word start
    ("the\n    \t\n    the", 3, 14, 14),  # an indented code line: whitespace alone is no overlap
    ("the\n    \t\n    the", 2, 14, 2),  # the end of "the", then whitespace: kept
])
def test_an_overlap_begins_at_a_word_and_is_never_whitespace_alone(text, lo, start, begins):
    from chunkbench.strategies.spans import overlap_start

    assert overlap_start(text, lo, start) == begins
