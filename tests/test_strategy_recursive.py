"""Strategy `recursive` (issue 11): greedy whole paragraphs up to chunk_size, cut finer only where
one is too big; exact offsets; property tests over random element streams."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench import chunk
from chunkbench.model import is_noise
from tests.conftest import SAMPLE_PDFS, make_doc
from tests.element_streams import check_common_invariants, element_documents


def _squeeze(text: str) -> str:
    return "".join(text.split())


def test_paragraphs_are_packed_whole_and_cut_finer_only_when_too_big():
    long = " ".join(f"Sentence {i} of a long paragraph." for i in range(100))
    doc = make_doc([{"type": "heading", "text": "Intro", "text_level": 1},
                    {"type": "paragraph", "text": "Short one."}, {"type": "paragraph", "text": "Short two."},
                    {"type": "paragraph", "text": long}, {"type": "heading", "text": "Next", "text_level": 1},
                    {"type": "paragraph", "text": "x" * 450}])
    cs = chunk(doc, "recursive", chunk_size=200)
    assert cs[0].text == "Intro\n\nShort one.\n\nShort two." and cs[0].boundary.reason.value == "document_start"
    reasons = [c.boundary.reason.value for c in cs]
    assert "sentence_split" in reasons and "word_split" in reasons and reasons.count("heading") == 1
    assert all(c.char_len <= 200 for c in cs)
    assert all(doc.text[c.start_char:c.end_char] == c.text for c in cs)
    assert next(c for c in cs if c.text.startswith("Next")).boundary.reason.value == "heading"


def test_a_heading_directly_followed_by_a_sub_heading_is_not_a_chunk_of_its_own():
    doc = make_doc([{"type": "heading", "text": "3 Configuration", "text_level": 1},
                    {"type": "heading", "text": "3.1 The console", "text_level": 2},
                    {"type": "paragraph", "text": "Connect the cable."}])
    cs = chunk(doc, "recursive", chunk_size=200)
    assert [c.text for c in cs] == ["3 Configuration\n\n3.1 The console\n\nConnect the cable."]


def test_token_sizes_and_sample_pdfs():
    doc = cb.load(SAMPLE_PDFS / "technical_manual.pdf")
    cs = chunk(doc, "recursive", chunk_size=128, unit="tokens")
    assert all(c.extra["size"] <= 128 and c.extra["size_unit"] == "tokens" for c in cs)
    assert all(c.page_start and c.bbox and c.source_blocks for c in cs)
    content = _squeeze("".join(e.text for e in doc.elements if not e.is_empty and not is_noise(e)))
    assert _squeeze("".join(c.text for c in cs)) == content  # nothing lost, nothing repeated


@given(element_documents(), st.sampled_from([20, 80, 400]), st.booleans())
def test_properties_on_random_element_streams(doc, size, headings):
    params = {"chunk_size": size, "unit": "chars", "respect_headings": headings}
    cs = chunk(doc, "recursive", **params)
    check_common_invariants(doc, cs, params)
    assert all(0 < c.char_len <= size for c in cs), "every chunk within the size"
    content = _squeeze("".join(e.text for e in doc.elements if not e.is_empty and not is_noise(e)))
    assert _squeeze("".join(c.text for c in cs)) == content, "in order, nothing lost or repeated"
    assert all(a.end_char <= b.start_char for a, b in zip(cs.chunks, cs.chunks[1:])), "no overlap"
    assert chunk(doc, "recursive", **params).to_dict(chunked_at="x") == cs.to_dict(chunked_at="x")
