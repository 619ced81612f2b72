"""Strategy `recursive`: greedy whole paragraphs up to chunk_size, cut finer only where
one is too big; exact offsets; property tests over random element streams."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench import chunk
from chunkbench.errors import ParamError
from chunkbench.text.tokenizer import count_tokens
from chunkbench.types.document import is_noise
from tests.element_streams import check_common_invariants, element_documents
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS, TEST_DATA


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
    content = _squeeze("".join(e.text for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped))
    assert _squeeze("".join(c.span_text for c in cs)) == content  # nothing lost, nothing repeated


def test_overlap_is_the_previous_chunks_text_in_place_at_a_word_start():
    text = " ".join(f"word{i:03d}" for i in range(300))  # 2399 chars, no sentence end
    doc = make_doc([{"type": "paragraph", "text": text}])
    plain = chunk(doc, "recursive", chunk_size=300)
    cs = chunk(doc, "recursive", chunk_size=300, overlap=40)
    assert len(cs) == len(plain) and cs[0].extra["overlap_chars"] == 0
    for c, own, prev in zip(cs.chunks[1:], plain.chunks[1:], plain.chunks):
        ov = c.extra["overlap_chars"]
        assert 0 < ov <= 40 and c.text == doc.text[c.start_char:c.end_char]
        assert c.text[ov:] == own.text and c.start_char == own.start_char - ov
        assert prev.text.endswith(c.text[:ov].rstrip()) and c.text[0] == "w", "a word start inside the previous chunk"
        assert "overlapping the previous chunk" in c.boundary.detail
    tokens = chunk(doc, "recursive", chunk_size=60, unit="tokens", overlap=10)
    assert all(0 < count_tokens(c.text[:c.extra["overlap_chars"]]) <= 10 for c in tokens.chunks[1:])
    # never across a heading that starts a chunk
    headed = make_doc([{"type": "heading", "text": "A", "text_level": 1}, {"type": "paragraph", "text": text[:250]},
                       {"type": "heading", "text": "B", "text_level": 1}, {"type": "paragraph", "text": "Body of B."}])
    b = chunk(headed, "recursive", chunk_size=300, overlap=40)
    assert b[1].text.startswith("B\n\n") and b[1].extra["overlap_chars"] == 0


def test_overlap_must_be_below_the_chunk_size():
    doc = make_doc([{"type": "paragraph", "text": "x"}])
    with pytest.raises(ParamError, match="overlap"):
        chunk(doc, "recursive", chunk_size=100, overlap=100)


@given(element_documents(), st.sampled_from([20, 80, 400]), st.booleans(), st.sampled_from([0, 10]))
def test_properties_on_random_element_streams(doc, size, headings, overlap):
    params = {"chunk_size": size, "unit": "chars", "respect_headings": headings, "overlap": overlap}
    cs = chunk(doc, "recursive", **params)
    check_common_invariants(doc, cs, params)
    assert all(0 < c.char_len - c.extra["overlap_chars"] <= size for c in cs), "own text within the size"
    assert all(c.extra["overlap_chars"] <= overlap for c in cs)
    content = _squeeze("".join(e.text for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped))
    own = "".join(c.text[c.extra["overlap_chars"]:] for c in cs)
    assert _squeeze(own) == content, "in order, nothing lost or repeated"
    for a, b in zip(cs.chunks, cs.chunks[1:]):
        assert (a.end_char <= b.start_char) if not b.extra["overlap_chars"] else (b.start_char < a.end_char)
    assert chunk(doc, "recursive", **params).to_dict(chunked_at="x") == cs.to_dict(chunked_at="x")


def test_an_overlap_reaching_only_a_blank_line_between_pieces_is_no_overlap():
    """Found by the property test above: the packer drops a whitespace-only line of a code block
    between two pieces; an overlap reaching back only into that line claimed 10 chars of overlap
    for a chunk that starts after the previous one ends."""
    items = [{"type": "heading", "text": "The", "text_level": 1, "bbox": [0, 10 * i, 50, 10 * i + 8]}
             for i in range(21)]
    items.append({"type": "code", "text": "    the the\n    \t\n    the", "bbox": [0, 300, 100, 340]})
    doc = make_doc(items)
    cs = chunk(doc, "recursive", chunk_size=20, overlap=10, respect_headings=False, unit="chars")
    assert len(cs) > 5
    for a, b in zip(cs.chunks, cs.chunks[1:]):
        if b.extra["overlap_chars"]:
            assert b.start_char < a.end_char, (a.text, b.text, b.extra)
        else:
            assert a.end_char <= b.start_char
    assert cs.chunks[-1].extra["overlap_chars"] == 0 and cs.chunks[-2].extra["overlap_chars"] == 10


CONSTITUTION = TEST_DATA / "retrieval" / "us_constitution.txt"


def test_no_scraps_a_long_sentence_is_cut_near_its_middle_and_a_heading_keeps_company():
    """At 280 characters the Constitution's long sentences were cut greedily, leaving 14 scraps
    ("not be a Law.", "of the Crime."), and "Section. 8." was a chunk of its own because the
    one-sentence clause after it did not fit beside it."""
    cs = chunk(cb.load(CONSTITUTION), "recursive", chunk_size=280)
    scraps = [c.text for c in cs if len(c.text) < 40]
    assert scraps == ["Georgia\n\nWilliam Few\nAbr Baldwin"]  # a paragraph of its own between headings
    assert all(len(c.text) <= 280 for c in cs)
    law = next(i for i, c in enumerate(cs) if c.text.endswith("in which Case it shall not be a Law."))
    assert cs[law].boundary.reason.value == "word_split"
    assert cs[law - 1].text.endswith("the Same shall be a Law,")  # at the clause nearest the middle
    assert len(cs[law].text) > 100 and len(cs[law - 1].text.split("\n\n")[-1]) > 100
    section8 = next(c for c in cs if c.text.startswith("Section. 8."))
    assert "Clause 1: The Congress shall have Power" in section8.text
    assert section8.boundary.reason.value == "heading"


def test_a_short_sentence_before_a_sentence_too_big_for_any_chunk_is_not_left_alone():
    """The speech at 150 characters: "But I’m not waiting." was a chunk of its own, the sentence after
    it being too long for any chunk; now its chunk goes on with that sentence's first words."""
    cs = chunk(cb.load(CONSTITUTION.parent / "sotu_2024.txt"), "recursive", chunk_size=150)
    assert "But I’m not waiting." not in [c.text for c in cs]
    waiting = next(c for c in cs if c.text.startswith("But I’m not waiting."))
    assert waiting.text.startswith("But I’m not waiting. I want to provide an annual tax credit")
    following = list(cs)[list(cs).index(waiting) + 1]
    assert following.boundary.reason.value == "word_split" and len(following.text) > 50


def test_a_chunk_does_not_open_with_a_sentence_that_refers_back_when_the_cut_can_move():
    """SQLite's page at 450 characters: "This is especially true of network filesystems and NFS in
    particular." opened a chunk, cut from the sentence it is about; the cut moves so it stays with
    "But some filesystems contain bugs …" (both chunks still fit). At 300 neither way fits: it stays;
    with join_dependent=false it stays too."""
    doc = cb.load(CONSTITUTION.parent / "sqlite_how_to_corrupt.md")
    nfs = "This is especially true of network filesystems and NFS in particular."
    cs = chunk(doc, "recursive", chunk_size=450)
    holder = next(c for c in cs if nfs in c.text)
    assert "But some filesystems contain bugs in their locking logic" in holder.text
    assert not holder.text.startswith(nfs) and all(len(c.text) <= 450 for c in cs)
    after = list(cs)[list(cs).index(holder) + 1]
    assert after.boundary.detail.endswith("; moved off “This is especially true of …”, which refers back to the "
                                          "sentence before it")
    assert next(c for c in chunk(doc, "recursive", chunk_size=300) if nfs in c.text).text.startswith(nfs)
    # join_dependent=false keeps the cut where packing put it
    plain = chunk(doc, "recursive", chunk_size=450, join_dependent=False)
    assert next(c for c in plain if nfs in c.text).text.startswith(nfs)
    assert not any("moved off" in c.boundary.detail for c in plain)
