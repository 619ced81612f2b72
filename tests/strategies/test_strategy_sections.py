"""Strategy `sections` (specs/4): heading detection, classification, requirement flag, tables, token
budget, fallback, ids and metadata; the sample RFP and a shared PDF; properties on random documents."""

from __future__ import annotations

import re

import pytest
from element_streams import check_common_invariants, element_documents
from hypothesis import given
from hypothesis import strategies as st

import chunkbench
from chunkbench.errors import ParamError
from chunkbench.strategies import chunk
from chunkbench.strategies.sections import classify, file_is_relevant, heading_kind, is_text_table
from chunkbench.text.tokenizer import count_tokens
from chunkbench.types.ids import document_key
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS, shared_pdf
from tests.support.strategy_checks import sections_coverage


def _p(text, **kw):
    return {"type": "paragraph", "text": text, **kw}


def _h(text, level):
    return {"type": "heading", "text": text, "text_level": level}


@pytest.mark.parametrize("name, ancestors, body, expected", [
    ("SECTION 2: REQUIREMENTS", [], "", "requirement"),
    ("Technical Specifications", [], "", "specification"),
    ("Spec sheet", [], "", "specification"),
    ("TERMS AND CONDITIONS", [], "", "condition"),
    ("Clause 7", [], "", "condition"),
    ("Evaluation Criteria", [], "", "evaluation_criteria"),
    ("Scoring", [], "", "evaluation_criteria"),
    ("Statement of Work", [], "", "scope_of_work"),
    ("SOW", [], "", "scope_of_work"),
    ("Scope", [], "", "scope_of_work"),
    # the name decides before the body
    ("Evaluation", [], "The offeror shall and must meet every requirement.", "evaluation_criteria"),
    # no keyword in the name: the nearest parent section's name decides
    ("2.1 Service desk", ["SECTION 2: SCOPE OF WORK"], "The contractor shall answer calls.", "scope_of_work"),
    ("4.1 Images", ["Part A", "SECTION 4: SPECIFICATIONS"], "", "specification"),
    # then keyword counts in the text; ties go to the spec's order
    ("Background", [], "The contractor shall do it and must report.", "requirement"),
    ("Background", [], "These terms and conditions apply; see the scope.", "condition"),
    ("Background", [], "scope and evaluation", "evaluation_criteria"),
    ("Background", [], "Shallow mustard special descriptions.", "other"),
    ("", [], "", "other"),
])
def test_section_classification_by_the_specs_keyword_lists(name, ancestors, body, expected):
    assert classify(name, ancestors, body)[0] == expected


@pytest.mark.parametrize("text, flagged", [
    ("The Contractor shall provide staff.", True), ("Offerors MUST register.", True),
    ("A bond is required.", True), ("See the requirements below.", True), ("Attendance is mandatory.", True),
    ("A shallow pool of mustard.", False), ("The system requires power.", False), ("Nothing here.", False),
])
def test_requirement_flag_uses_the_specs_keywords_on_word_boundaries(text, flagged):
    cs = chunk(make_doc([_h("Notes", 1), _p(text)]), "sections")
    assert cs[0].extra["requirement_flag"] is flagged
    assert cs[0].extra["is_critical"] is flagged  # section 'Notes' has type other: the flag decides


@pytest.mark.parametrize("line, kind", [
    ("SECTION 1: INTRODUCTION", "numbered section"), ("Section 4.2 - Reporting", "numbered section"),
    ("ARTICLE IV. TERMS", "numbered section"), ("SCOPE OF WORK", "all caps"), ("PRICING SCHEDULE", "all caps"),
    ("Deliverables:", "trailing colon"), ("Key Personnel:", "trailing colon"),
    ("RIN 2120–AA64", None), ("The contractor shall provide the following services to the County:", None),
    ("Section 4.2. The contractor shall do it.", None), ("Just a sentence.", None),
    ("SECTION 3: REQUIREMENTS\nmore", None),
])
def test_heading_heuristics(line, kind):
    assert heading_kind(line) == kind


def test_headings_in_plain_text_make_sections_and_text_less_headings_join_the_next():
    doc = make_doc([
        _p("SECTION 1: SCOPE OF WORK"), _p("1.1 Overview:"), _p("The County needs a service desk."),
        _p("SECTION 2: REQUIREMENTS\nThe Contractor shall staff the desk."),
        _p("EVALUATION CRITERIA"), _p("Proposals are scored on price and approach."),
    ], metadata={"document_id": "N-1"}, source="Statement_of_Work.pdf")
    cs = chunk(doc, "sections")
    got = [(c.text, c.extra["section_name"], c.extra["section_type"], c.boundary.reason.value) for c in cs]
    assert got == [
        ("SECTION 1: SCOPE OF WORK\n\n1.1 Overview:\n\nThe County needs a service desk.", "1.1 Overview:",
         "scope_of_work", "document_start"),
        ("SECTION 2: REQUIREMENTS\nThe Contractor shall staff the desk.", "SECTION 2: REQUIREMENTS",
         "requirement", "heading"),
        ("EVALUATION CRITERIA\n\nProposals are scored on price and approach.", "EVALUATION CRITERIA",
         "evaluation_criteria", "heading"),
    ]
    assert cs[0].section_path == ("SECTION 1: SCOPE OF WORK", "1.1 Overview:")
    assert cs[0].boundary.detail == ("first chunk: section '1.1 Overview:' (trailing colon); "
                                     "with the text-less heading 'SECTION 1: SCOPE OF WORK'")
    assert cs[1].section_path == ("SECTION 2: REQUIREMENTS",)  # numbered sections share one level
    assert all(c.chunk_id.startswith("N-1_") for c in cs)  # the document key metadata names
    assert len({c.chunk_id for c in cs}) == 3


def test_spec_metadata_example_fields():
    doc = make_doc([_h("SECTION 2: REQUIREMENTS", 1), _p("The Contractor shall provide a help desk.")],
                   source="rfp.pdf")
    c = chunk(doc, "sections", notice_id="W912", amendment_number=2)[0]
    d = c.to_dict()
    assert d["chunk_id"].startswith("W912_rfp_")
    assert {k: d[k] for k in ("notice_id", "filename", "section_name", "section_type", "is_critical",
                              "requirement_flag", "is_table", "chunk_index", "amendment_number",
                              "is_latest_version", "embed")} == {
        "notice_id": "W912", "filename": "rfp", "section_name": "SECTION 2: REQUIREMENTS",
        "section_type": "requirement", "is_critical": True, "requirement_flag": True, "is_table": False,
        "chunk_index": 0, "amendment_number": 2, "is_latest_version": True, "embed": True}
    assert d["text"] == "SECTION 2: REQUIREMENTS\n\nThe Contractor shall provide a help desk."
    default = chunk(doc, "sections")[0]
    assert default.chunk_id.startswith(f"{document_key(doc)}_") and default.extra["amendment_number"] == 0


def test_tables_are_chunks_of_their_own_not_embedded_and_typed_by_pricing_keywords():
    doc = make_doc([
        _h("SECTION 5: COSTS", 1), _p("Offerors complete the schedule."),
        {"type": "table", "text": "| CLIN | Item | Price |\n|---|---|---|\n| 0001 | Desk | $1 |",
         "rows": [["CLIN", "Item", "Price"], ["0001", "Desk", "$1"]]},
        _p("Quantities are estimates."),
        {"type": "table", "text": "| Event | Date |\n|---|---|\n| Issue | May 1 |"},
        _p("Line item 0001 desk support 36 months\nLine item 0002 field support 36 months"),
        _p("Col A\tCol B\n1\t2"),
        {"type": "code", "text": "ls | grep x\ncat a | wc -l"},
        _p("A single pipe | in prose is not a table."),
    ])
    cs = chunk(doc, "sections")
    got = [(c.type, c.extra["is_table"], c.extra["embed"], c.boundary.reason.value) for c in cs]
    assert got == [
        ("text", False, True, "document_start"),
        ("pricing_table", True, False, "table"),  # layout table with CLIN
        ("text", False, True, "after_table"),
        ("table", True, False, "table"),  # a table without pricing keywords
        ("pricing_table", True, False, "table"),  # line items without columns
        ("table", True, False, "table"),  # tab columns
        ("text", False, True, "after_table"),  # code with pipes and prose with one pipe are text
    ]
    assert cs[1].source_blocks == ("e2",) and cs[1].boundary.detail == "pricing table in section 'SECTION 5: COSTS'"
    assert is_text_table("a | b\nc | d") and not is_text_table("a | b") and not is_text_table("pricing\ntext")


def test_a_table_in_a_pricing_section_is_a_pricing_table_and_a_heading_before_a_table_stays_with_it():
    doc = make_doc([_h("Pricing", 1), {"type": "table", "text": "| A | B |\n|---|---|\n| 1 | 2 |"}, _p("after")])
    cs = chunk(doc, "sections")
    assert [(c.type, c.source_blocks) for c in cs] == [("pricing_table", ("e0", "e1")), ("text", ("e2",))]


def _words(n, start=0):
    return " ".join(f"w{i}" for i in range(start, start + n))


def test_small_sections_merge_towards_the_budget_but_not_across_types_parents_or_tables():
    """On the FHS the median `sections` chunk was 60 tokens, its spec says 400-600."""
    doc = make_doc([_h("A", 1), _p("tiny"), _h("B", 1), _p("also tiny")])
    cs = chunk(doc, "sections")
    assert [c.text for c in cs] == ["A\n\ntiny\n\nB\n\nalso tiny"]
    assert cs[0].boundary.reason.value == "document_start" and cs[0].extra["merged_sections"] == ["B"]
    assert cs[0].section_path == ("A",) and cs[0].extra["section_name"] == "A"
    # a section of another type, a climb out of the parent section, a section with a table: no merge
    doc = make_doc([_h("Scope", 1), _p("tiny"), _h("Evaluation criteria", 1), _p("scored"),
                    _h("Parent", 1), _h("Child one", 2), _p("a"), _h("Child two", 2), _p("b"), _h("Uncle", 1), _p("c"),
                    _h("With table", 1), {"type": "table", "text": "| a | b |\n|---|---|\n| 1 | 2 |"}])
    cs = chunk(doc, "sections", min_tokens=400)
    names = [(c.extra["section_name"], c.extra["merged_sections"]) for c in cs]
    assert names == [("Scope", []), ("Evaluation criteria", []), ("Child one", ["Child two"]), ("Uncle", []),
                     ("With table", [])]
    assert cs[2].boundary.reason.value == "merged_small" and "'Child two'" in cs[2].boundary.detail


def test_large_section_splits_at_paragraphs_within_the_budget_and_tops_up_the_last_piece():
    para = " ".join(f"Sentence {i} says the contractor will work." for i in range(12))
    assert count_tokens(para) == 108
    doc = make_doc([_h("Big", 1)] + [_p(para)] * 6)
    cs = chunk(doc, "sections")
    # greedy gives heading + 5 paragraphs, then 1; the last piece takes a paragraph (216 tokens)
    # and stops where the first would drop below 400
    assert [len(c.source_blocks) for c in cs] == [5, 2]
    assert [c.tokens_est for c in cs] == [434, 216]
    assert [c.boundary.reason.value for c in cs] == ["document_start", "paragraph_split"]
    assert all(400 <= c.tokens_est <= 600 for c in cs[:-1]) and all(c.tokens_est <= 600 for c in cs)
    assert cs[1].boundary.detail.startswith("section 'Big' (") and "split at a paragraph, part 2 of 2" in cs[1].boundary.detail
    assert cs[1].extra["section_name"] == "Big"
    # greedy gives heading + 4, then 2 (216 < 300): one paragraph moves and both reach the minimum
    cs = chunk(doc, "sections", min_tokens=300, max_tokens=500)
    assert [len(c.source_blocks) for c in cs] == [4, 3]
    assert all(300 <= c.tokens_est <= 500 for c in cs)


def test_paragraph_above_max_splits_at_sentences_and_a_sentence_above_max_is_cut():
    long_para = " ".join(f"Sentence {i} says the contractor will work." for i in range(150))
    words = _words(900)
    doc = make_doc([_h("Long", 1), _p(long_para), _h("Words", 1), _p(words)])
    cs = chunk(doc, "sections")
    reasons = [c.boundary.reason.value for c in cs]
    assert reasons[0] == "document_start" and "sentence_split" in reasons and "size_limit" in reasons
    assert all(count_tokens(c.text) <= 600 for c in cs)
    words_chunks = [c for c in cs if c.extra["section_name"] == "Words"]
    assert " ".join(c.text for c in words_chunks).removeprefix("Words\n\n").split() == words.split()
    assert words_chunks[0].text.startswith("Words\n\nw0 w1")  # the heading joins the first cut


def test_no_headings_groups_paragraphs_by_the_token_budget():
    para = " ".join(f"Sentence {i} says the contractor shall work." for i in range(10))
    doc = make_doc([_p(para)] * 7)
    cs = chunk(doc, "sections")
    assert [c.boundary.reason.value for c in cs] == ["document_start", "fallback_paragraphs"]
    assert [c.tokens_est for c in cs] == [450, 180]  # 6 + 1 paragraphs of 90 tokens, rebalanced to 5 + 2
    assert all(c.extra["section_name"] == "" and c.extra["section_type"] == "requirement" for c in cs)
    one = chunk(make_doc([_p("One paragraph only.")]), "sections")
    assert len(one) == 1 and one[0].extra["section_type"] == "other"


def test_noise_and_empty_elements_are_skipped():
    doc = make_doc([{"type": "header", "text": "RFP 12"}, _h("Scope", 1), _p("Text."),
                    {"type": "page_number", "text": "Page 1 of 2"}, _p("More."), _p("")])
    cs = chunk(doc, "sections")
    assert set(cs.skipped) == {"e0", "e3", "e5"}
    assert cs[0].text == "Scope\n\nText.\n\nMore." and cs[0].source_blocks == ("e1", "e2", "e4")


@pytest.mark.parametrize("name, relevant", [
    ("Statement_of_Work.pdf", True), ("Attachment 3 - Technical Requirements.docx", True),
    ("TermsAndConditions.pdf", True), ("Evaluation Criteria.pdf", True), ("Performance Work Statement.pdf", True),
    ("SOW_Template.docx", False), ("Pricing Form.xlsx", False), ("Sample Requirements.pdf", False),
    ("Past Performance Questionnaire.pdf", False), ("rfp_it_services.pdf", False), ("Information.pdf", False),
])
def test_file_filter(name, relevant):
    assert file_is_relevant(name) is relevant


def test_bad_parameters_are_rejected():
    doc = make_doc([_p("x")])
    with pytest.raises(ParamError, match="min_tokens"):
        chunk(doc, "sections", min_tokens=700, max_tokens=600)
    with pytest.raises(ParamError, match="amendment_number"):
        chunk(doc, "sections", amendment_number=-1)


def test_sample_rfp():
    doc = chunkbench.load(SAMPLE_PDFS / "rfp_it_services.pdf")
    cs = chunk(doc, "sections", notice_id="RC-OIT-2025-031")
    check_common_invariants(doc, cs)
    sections_coverage(doc, cs)
    by_name: dict[str, list] = {}
    for c in cs:  # a chunk by its section's name and the names of the small sections merged into it
        for name in [c.extra["section_name"], *c.extra["merged_sections"]]:
            by_name.setdefault(name, []).append(c)
    for name in ("3.1 General requirements", "3.3 Personnel requirements", "3.4 Security requirements"):
        (c,) = by_name[name]
        assert c.extra["section_type"] == "requirement" and c.extra["requirement_flag"] and c.extra["is_critical"]
        assert re.search(r"\bR-0\d\. The Contractor (shall|must)", c.text)
    clin = [c for c in cs if "| CLIN |" in c.text]
    assert len(clin) == 1 and clin[0].type == "pricing_table" and clin[0].extra["embed"] is False
    assert clin[0].extra["section_name"] == "SECTION 5: PRICING" and clin[0].boundary.reason.value == "table"
    evaluation = by_name["SECTION 6: EVALUATION CRITERIA"]
    assert {c.extra["section_type"] for c in evaluation} == {"evaluation_criteria"}
    assert any("Technical approach" in c.text and c.type == "table" for c in evaluation)
    assert by_name["2.1 Service desk"][0].extra["section_type"] == "scope_of_work"
    assert by_name["2.1 Service desk"][0].text.startswith("SECTION 2: SCOPE OF WORK\n\n2.1 Service desk\n\n")
    assert by_name["4.2 Reporting"][0].extra["section_type"] == "specification"
    assert by_name["7.3 Termination"][0].extra["section_type"] == "condition"
    assert all(c.tokens_est <= 600 for c in cs)
    assert all(c.chunk_id.startswith("RC-OIT-2025-031_rfp_it_services_") for c in cs)
    assert not any("Page 2 of 6" in c.text or "Fictional sample" in c.text for c in cs)
    assert all(c.page_start and c.bbox for c in cs)
    # the service-level table sits on the page after its heading and lead-in
    lead = by_name["3.2 Service level requirements"][0]
    assert (lead.page_start, lead.page_end) == (2, 3)


def test_shared_pdf_federal_register():
    doc = chunkbench.load(shared_pdf("req_federal-register-2020-17221.pdf"))
    cs = chunk(doc, "sections")
    check_common_invariants(doc, cs)
    sections_coverage(doc, cs)
    assert all(count_tokens(c.text) <= 600 for c in cs)
    names = {c.extra["section_name"] for c in cs}
    assert {"Comments Invited", "Proposed Design Changes"} <= names
    assert "paragraph_split" in {c.boundary.reason.value for c in cs}
    assert sum(c.extra["requirement_flag"] for c in cs) > 10


@given(element_documents(), st.sampled_from([(1, 12), (30, 60), (400, 600), (100, 150)]))
def test_properties_on_random_element_streams(doc, budget):
    mn, mx = budget
    params = {"min_tokens": mn, "max_tokens": mx, "notice_id": "", "amendment_number": 0}
    cs = chunk(doc, "sections", **params)
    check_common_invariants(doc, cs, params)
    sections_coverage(doc, cs)
    for i, c in enumerate(cs):
        e = c.extra
        assert count_tokens(c.text) <= mx, "token budget"
        assert c.chunk_id.startswith(f"{document_key(doc)}_") and e["chunk_index"] == i
        assert e["embed"] is not e["is_table"]
        assert (c.type in ("table", "pricing_table")) == e["is_table"]
        assert e["requirement_flag"] == bool(re.search(r"\b(shall|must|required|requirements?|mandatory)\b",
                                                        c.text, re.I))
        assert e["is_critical"] == (e["section_type"] in ("requirement", "evaluation_criteria") or e["requirement_flag"])
        assert e["is_latest_version"] is True and e["amendment_number"] == 0
        head = c.text.split("\n\n")[0]
        assert doc.text[c.start_char:].startswith(head)


@pytest.mark.parametrize("text", ["a" * 20000, "数据文本" * 3000, "x\n" * 5000, "e\u0301" * 6000])
def test_text_without_sentences_or_spaces_is_cut_within_the_budget_and_nothing_is_lost(text):
    doc = make_doc([_h("Blob", 1), _p(text)])
    cs = chunk(doc, "sections", min_tokens=50, max_tokens=100)
    assert all(count_tokens(c.text) <= 100 for c in cs)
    assert "".join("".join(c.text.split()) for c in cs) == "Blob" + "".join(text.split())
    assert {c.boundary.reason.value for c in cs[1:]} == {"size_limit"}
    for c in cs:  # never a combining mark cut from its base letter
        assert not c.text.startswith("\u0301")


def test_mineru_fixture():
    from tests.support.paths import mineru_fixture
    doc = chunkbench.load(mineru_fixture("naacl-long-122", "naacl-long-122_content_list.json"))
    cs = chunk(doc, "sections")
    check_common_invariants(doc, cs)
    sections_coverage(doc, cs)
    assert any(c.extra["is_table"] and not c.extra["embed"] for c in cs)
    assert all(c.page_start and count_tokens(c.text) <= 600 for c in cs)


def test_vector_metadata_is_the_specs_minimal_set_and_tables_have_none():
    from chunkbench.strategies.sections import vector_metadata
    doc = make_doc([_h("SECTION 2: REQUIREMENTS", 1), _p("The Contractor shall comply."),
                    {"type": "table", "text": "| CLIN | Price |\n|---|---|\n| 0001 | $1 |"}], source="rfp.pdf")
    text, table = chunk(doc, "sections", notice_id="N9")
    assert text.chunk_id.startswith("N9_rfp_")
    assert vector_metadata(text) == {"chunk_id": text.chunk_id, "noticeId": "N9", "filename": "rfp",
                                     "section_type": "requirement", "is_critical": "true", "requirement_flag": "true"}
    assert vector_metadata(table) is None
