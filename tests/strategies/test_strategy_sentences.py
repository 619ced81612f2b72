"""Strategy `sentences`: one chunk per sentence, short and dependent sentences joined,
long ones cut; exact offsets; property tests over random element streams."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench import chunk
from chunkbench.errors import ParamError
from chunkbench.text.sentences import depends_on_previous
from chunkbench.types.document import is_noise, lead_ins
from tests.element_streams import check_common_invariants, element_documents
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS


def _squeeze(text: str) -> str:
    return "".join(text.split())


def test_a_chunk_per_sentence_with_short_and_dependent_ones_joined():
    doc = make_doc([
        {"type": "heading", "text": "Ukraine", "text_level": 1},
        {"type": "paragraph", "text": "Putin is on the march in Europe. He will not stop at Ukraine. "
                                      "Zero. Sweden joined NATO this morning after a long wait."},
        {"type": "paragraph", "text": "Congress must act on the security bill now."},
    ])
    cs = chunk(doc, "sentences")
    assert [c.text for c in cs] == [
        # heading + sentence; "He" refers back; "Zero." is under min_chars (20) and joins too
        "Ukraine\n\nPutin is on the march in Europe. He will not stop at Ukraine. Zero.",
        "Sweden joined NATO this morning after a long wait.",
        "Congress must act on the security bill now.",  # a new paragraph starts a chunk
    ]
    assert [c.boundary.reason.value for c in cs] == ["document_start", "sentence_split", "paragraph_split"]
    assert [c.extra["sentences"] for c in cs] == [3, 1, 1]
    assert all(doc.text[c.start_char:c.end_char] == c.text for c in cs)
    plain = chunk(doc, "sentences", min_chars=0, join_dependent=False)
    assert [c.text for c in plain][:3] == ["Ukraine\n\nPutin is on the march in Europe.", "He will not stop at Ukraine.",
                                           "Zero."]


def test_a_sentence_longer_than_max_chars_is_cut_and_tables_stand_alone():
    words = " ".join(["word"] * 100)  # 499 chars, no sentence end
    rows = "\n".join(f"| r{i} | {i} |" for i in range(30))
    doc = make_doc([{"type": "paragraph", "text": words}, {"type": "table", "text": rows},
                    {"type": "paragraph", "text": "After the table."}])
    cs = chunk(doc, "sentences", max_chars=200)
    reasons = [c.boundary.reason.value for c in cs]
    assert reasons[:3] == ["document_start", "word_split", "word_split"] and "table" in reasons
    assert all(c.char_len <= 200 for c in cs)
    titled = chunk(make_doc([{"type": "heading", "text": "Rates", "text_level": 1},
                             {"type": "table", "text": "| a | 1 |\n| b | 2 |"}]), "sentences")
    assert [c.text for c in titled] == ["Rates\n\n| a | 1 |\n| b | 2 |"]  # a heading titles its table
    tables = [c for c in cs if c.type == "table"]
    assert len(tables) == 2 and tables[1].boundary.reason.value == "table_row_split"  # cut at a row
    assert cs[-1].text == "After the table."


@pytest.mark.parametrize("text, dependent", [
    ("And just this morning, Sweden joined.", True), ("“But they failed.”", True), ("It matters.", True),
    ("Sweden joined.", False), ("Andrew came.", False), ("", False),
    # a notice's capitals and the document's own defined terms refer to nothing before them
    ("THIS SOFTWARE IS PROVIDED \"AS IS\".", False), ("IT IS AGREED as follows.", False),
    ("This Agreement is made between:", False), ("These Terms apply.", False), ("“This Agreement”", False),
    ("This is why.", True), ("These are the terms.", True), ("That was the Agreement.", True),
])
def test_dependent_openers(text, dependent):
    assert depends_on_previous(text) is dependent


def test_bad_parameters():
    doc = make_doc([{"type": "paragraph", "text": "x"}])
    with pytest.raises(ParamError, match="min_chars"):
        chunk(doc, "sentences", min_chars=500, max_chars=100)


def test_sample_pdf():
    from chunkbench.evaluate.metrics import is_heading_only

    doc = cb.load(SAMPLE_PDFS / "technical_manual.pdf")
    cs = chunk(doc, "sentences")
    check_common_invariants(doc, cs, dict(cs.params))
    assert not any(is_heading_only(doc, c) for c in cs)  # "6 Troubleshooting" takes its table
    assert {"heading", "paragraph_split", "sentence_split"} <= {c.boundary.reason.value for c in cs}
    assert all(c.page_start and c.bbox and c.source_blocks for c in cs)
    content = _squeeze("".join(e.text for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped))
    assert _squeeze("".join(c.span_text for c in cs)) == content


@given(element_documents(), st.sampled_from([0, 20, 60]), st.sampled_from([40, 300, 1000]), st.booleans())
def test_properties_on_random_element_streams(doc, minimum, maximum, dependent):
    params = {"min_chars": min(minimum, maximum), "max_chars": maximum, "join_dependent": dependent}
    cs = chunk(doc, "sentences", **params)
    check_common_invariants(doc, cs, params)
    assert all(0 < c.char_len <= maximum for c in cs), "every chunk within max_chars"
    content = _squeeze("".join(e.text for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped))
    assert _squeeze("".join(c.span_text for c in cs)) == content, "in order, nothing lost or repeated"
    assert all(a.end_char <= b.start_char for a, b in zip(cs.chunks, cs.chunks[1:])), "no overlap"
    titles = lead_ins([e for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped])
    for c in cs:
        els = [doc.element(b) for b in c.source_blocks]
        body = [e for e in els if not e.is_heading and e.id not in titles]
        assert len(body) <= 1 or c.type == "table", "a chunk never joins two paragraphs (headings, tables' captions aside)"
    assert chunk(doc, "sentences", **params).to_dict(chunked_at="x") == cs.to_dict(chunked_at="x")
