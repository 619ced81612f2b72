"""Strategy `tokens` (specs/5): golden offsets and pages, character snapping, window properties."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest
from element_streams import check_common_invariants, element_documents
from hypothesis import given
from hypothesis import strategies as st

import chunkbench
from chunkbench.errors import InputError, ParamError
from chunkbench.strategies import chunk
from chunkbench.strategies.tokens import encode_ids, safe_cuts, token_windows, window_starts
from chunkbench.text.tokenizer import get_encoding
from chunkbench.types.chunk import BBox, Chunk
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS, shared_pdf

TWO_PAGES = [
    {"type": "paragraph", "text": "one two three", "page_idx": 0, "bbox": [10, 20, 200, 40]},
    {"type": "paragraph", "text": "four five six seven", "page_idx": 1, "bbox": [10, 50, 220, 70]},
]


def test_golden_offsets_pages_and_boxes():
    # cl100k: one| two| three|\n\n|four| five| six| seven  (8 tokens)
    doc = make_doc(TWO_PAGES, metadata={"document_id": "d7", "user_id": "u"})
    cs = chunk(doc, "tokens", chunk_size=4, overlap=1)
    rows = [(c.extra["token_start"], c.extra["token_end"], c.start_char, c.end_char, c.text,
             c.extra["page"], c.extra["pages"], c.source_blocks) for c in cs]
    assert rows == [
        (0, 4, 0, 15, "one two three\n\n", 1, [1], ("e0",)),
        (3, 7, 13, 28, "\n\nfour five six", 2, [2], ("e1",)),  # starts in the separator: page 2's text
        (6, 8, 24, 34, " six seven", 2, [2], ("e1",)),
    ]
    assert all(c.chunk_id.startswith("d7_") for c in cs) and len({c.chunk_id for c in cs}) == 3  # not the index: lineage.md
    assert [c.extra["tokens"] for c in cs] == [4, 4, 2]
    assert [c.extra["overlap_tokens"] for c in cs] == [0, 1, 1]
    assert [c.boundary.reason.value for c in cs] == ["document_start", "token_window", "token_window"]
    assert cs[0].boundary.detail == "tokens 0–3 of 8"
    assert cs[1].boundary.detail == "tokens 3–6 (overlap 1)"
    assert [b.to_dict() for b in cs[1].bbox] == [{"page": 2, "x0": 10.0, "y0": 50.0, "x1": 220.0, "y1": 70.0}]
    assert cs[0].metadata == {"document_id": "d7", "user_id": "u"}
    whole = chunk(doc, "tokens")
    assert len(whole) == 1 and whole[0].extra["pages"] == [1, 2] and whole[0].page_end == 2
    assert whole[0].text == doc.text


def test_chunks_and_boxes_equal_what_their_dataclass_constructors_make():
    # build_chunk and element_bboxes fill the frozen instances directly (speed); they must stay
    # the same objects the generated __init__ makes: every field set, nothing else, picklable
    doc = make_doc(TWO_PAGES, metadata={"document_id": "d7"})
    for c in chunk(doc, "tokens", chunk_size=4, overlap=1):
        rebuilt = Chunk(**{f.name: getattr(c, f.name) for f in dataclasses.fields(Chunk)})
        assert c == rebuilt and vars(c) == vars(rebuilt) and hash(c.bbox) == hash(rebuilt.bbox)
        assert pickle.loads(pickle.dumps(c)) == c
        for b in c.bbox:
            assert vars(b) == vars(BBox(b.page, b.x0, b.y0, b.x1, b.y1))
        with pytest.raises(dataclasses.FrozenInstanceError):
            c.text = "changed"


def test_pages_of_elements_spanning_pages_or_without_one():
    doc = make_doc([
        {"type": "paragraph", "text": "spans two pages", "page_idx": 0, "page_end_idx": 1},
        {"type": "paragraph", "text": "on page three", "page_idx": 2},
        {"type": "paragraph", "text": "nowhere", "page_idx": None},
    ])
    cs = chunk(doc, "tokens", chunk_size=3, overlap=0)
    assert [(c.text, c.extra["pages"], c.extra["page"]) for c in cs] == [
        ("spans two", [1, 2], 1), (" pages\n\non", [1, 2, 3], 1), (" page three\n\n", [3], 3), ("nowhere", [], None),
    ]
    assert (cs[0].page_start, cs[0].page_end) == (1, 2) and (cs[1].page_start, cs[1].page_end) == (1, 3)


def test_a_window_of_whitespace_alone_is_no_chunk():
    # found by `make fuzz`: a code block ending in its indent left a last window of whitespace
    doc = make_doc([
        {"type": "paragraph", "text": "alpha beta gamma", "page_idx": 0},
        {"type": "code", "text": "x = 1\n" + " " * 64 + "\n" + " " * 64 + "\ny = 2\n" + " " * 64 + "\t", "page_idx": 0},
    ])
    raw = token_windows(doc.text, 2, 0)
    assert any(doc.text[w.start_char:w.end_char].isspace() for w in raw[:-1]) and raw[-1] and \
        doc.text[raw[-1].start_char:raw[-1].end_char].isspace(), "the input has whitespace windows inside and last"
    cs = chunk(doc, "tokens", chunk_size=2, overlap=0)
    assert cs.chunks and not any(c.text.isspace() for c in cs)
    assert len(cs) < len(raw) and [c.index for c in cs] == list(range(len(cs)))
    assert cs[-1].text.strip() == "2" and cs[0].boundary.reason.value == "document_start"
    gap = next(c for p, c in zip(cs, cs[1:]) if c.extra["token_start"] > p.extra["token_end"])
    assert gap.extra["overlap_tokens"] == 0 and gap.boundary.detail.endswith("(overlap 0)")
    with_overlap = chunk(doc, "tokens", chunk_size=4, overlap=1)
    assert all(c.extra["overlap_tokens"] in (0, 1) for c in with_overlap) and not any(c.text.isspace() for c in with_overlap)


def test_window_edges_inside_a_character_grow_to_the_whole_character():
    # cl100k splits each 🎉 (4 bytes) into tokens of 2, 1 and 1 bytes
    text = "🎉🎉"
    spans = [(w.token_start, w.token_end, w.start_char, w.end_char) for w in token_windows(text, 2, 1)]
    assert spans == [(0, 2, 0, 1), (1, 3, 0, 1), (2, 4, 0, 2), (3, 5, 1, 2), (4, 6, 1, 2)]


def test_window_starts_stop_once_a_window_reaches_the_end():
    assert list(window_starts(0, 512, 50)) == []
    assert list(window_starts(512, 512, 50)) == [0]  # the spec's loop would add a window inside this one
    assert list(window_starts(513, 512, 50)) == [0, 462]
    assert list(window_starts(10, 4, 0)) == [0, 4, 8]


def test_empty_document_and_bad_parameters():
    assert len(chunk(make_doc([{"type": "paragraph", "text": ""}]), "tokens")) == 0
    doc = make_doc(TWO_PAGES)
    for bad in ({"overlap": 512}, {"overlap": 600}, {"overlap": -1}, {"chunk_size": 0}):
        with pytest.raises(ParamError):
            chunk(doc, "tokens", **bad)
    with pytest.raises(InputError, match="surrogate"):
        token_windows("bad \ud800 text")


def _oracle_spans(text: str, chunk_size: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """Independent (quadratic, test-only) computation: decode token prefixes, snap by per-char bytes."""
    enc = get_encoding()
    ids = enc.encode_ordinary(text)
    char_bytes = [0]
    for ch in text:
        char_bytes.append(char_bytes[-1] + len(ch.encode("utf-8")))
    out = []
    for ts in window_starts(len(ids), chunk_size, overlap):
        te = min(ts + chunk_size, len(ids))
        b0 = len(enc.decode_bytes(ids[:ts]))
        b1 = len(enc.decode_bytes(ids[:te]))
        c0 = max(c for c, b in enumerate(char_bytes) if b <= b0)
        c1 = min(c for c, b in enumerate(char_bytes) if b >= b1)
        out.append((ts, te, c0, c1))
    return out


UNICODE_TEXT = st.one_of(
    st.text(max_size=300),
    st.text(st.characters(codec="utf-8"), max_size=300),
    st.lists(st.sampled_from(["日本語", "の", "テキスト", "数据", "😀", "🎉", "👍🏽", "👨‍👩‍👧", "e\u0301",
                              "a\u0308\u0323", "ﷺ", "𝔘𝔫𝔦", " ", "\n\n", "word", " the", "ü", "Ω"]),
             max_size=120).map("".join),
)


@given(UNICODE_TEXT, st.integers(1, 40), st.data())
def test_offsets_exact_on_random_unicode(text, chunk_size, data):
    overlap = data.draw(st.integers(0, chunk_size - 1))
    windows = token_windows(text, chunk_size, overlap)
    got = [(w.token_start, w.token_end, w.start_char, w.end_char) for w in windows]
    assert got == _oracle_spans(text, chunk_size, overlap)
    n = len(get_encoding().encode_ordinary(text))
    if not n:
        assert windows == []
        return
    assert windows[0].token_start == 0 and windows[-1].token_end == n, "windows cover all tokens"
    assert windows[0].start_char == 0 and windows[-1].end_char == len(text)
    for prev, w in zip(windows, windows[1:]):
        assert w.token_start == prev.token_end - overlap and w.overlap_tokens == overlap
        assert prev.token_end - prev.token_start == chunk_size, "only the last window is short"
        assert w.start_char <= prev.end_char, "consecutive windows touch or overlap in the text"
    assert all(0 < w.token_end - w.token_start <= chunk_size for w in windows)


@given(st.lists(st.one_of(UNICODE_TEXT, st.sampled_from(["\n", "\nA", "\n\nword", " \n", "'s", "\r\n", "\n1",
                                                        "\n日", "\t\n", ".\n", "\n\u0301"])), max_size=40).map("".join),
       st.integers(2, 6))
def test_parallel_encoding_at_safe_cuts_equals_encoding_the_whole_text(text, threads):
    whole = get_encoding().encode_ordinary(text)
    assert encode_ids(text, min_parallel=0, threads=threads).tolist() == whole
    for cut in safe_cuts(text, threads):
        assert text[cut - 1] == "\n" and text[cut].isalpha()


def test_parallel_encoding_splits_long_texts():
    text = "".join(f"Line {i} of a long text, with words.\n" for i in range(4000))
    cuts = safe_cuts(text, 4)
    assert len(cuts) == 3
    assert np.array_equal(encode_ids(text, min_parallel=0, threads=4), np.asarray(get_encoding().encode_ordinary(text)))


@given(element_documents(), st.sampled_from([(8, 0), (16, 3), (64, 10), (512, 50)]))
def test_properties_on_random_element_streams(doc, sizes):
    chunk_size, overlap = sizes
    cs = chunk(doc, "tokens", chunk_size=chunk_size, overlap=overlap)
    check_common_invariants(doc, cs, {"chunk_size": chunk_size, "overlap": overlap})
    located = [e for e in doc.elements if e.text]
    for c in cs:
        assert c.text == doc.text[c.start_char:c.end_char]
        assert c.extra["tokens"] <= chunk_size
        overlapping = tuple(e.id for e in located if e.char_start < c.end_char and e.char_end > c.start_char)
        assert c.source_blocks == overlapping
        pages = sorted({e.page_idx + 1 for e in located if e.id in overlapping})
        assert c.extra["pages"] == pages and c.extra["page"] == pages[0] == c.page_start
        assert len(c.bbox) == len(overlapping)
    covered = [False] * len(doc.text)
    for c in cs:
        assert not c.text.isspace(), "a window of whitespace alone is not a chunk"
        covered[c.start_char:c.end_char] = [True] * (c.end_char - c.start_char)
    assert all(covered[i] for i, ch in enumerate(doc.text) if not ch.isspace()), "every non-space char is in a chunk"


@pytest.mark.parametrize("path", [SAMPLE_PDFS / "technical_manual.pdf", "legal_ukgov-example-mutual-nda.pdf"])
def test_real_pdfs(path):
    doc = chunkbench.load(path if not isinstance(path, str) else shared_pdf(path))
    cs = chunk(doc, "tokens")
    check_common_invariants(doc, cs)
    assert len(cs) >= 2
    for c in cs:
        assert c.text == doc.text[c.start_char:c.end_char]
        assert c.page_start is not None and c.bbox and c.source_blocks
        assert c.extra["tokens"] <= 512 and abs(c.tokens_est - c.extra["tokens"]) <= 2


@given(element_documents(), st.lists(st.sampled_from([(8, 0), (16, 3), (64, 10)]), min_size=2, max_size=4))
def test_a_re_chunk_on_kept_tokens_gives_the_chunks_of_a_fresh_one(doc, settings):
    """The explorer's slider re-chunks one Document at setting after setting: the tokens kept from
    the owner's kept encoding (`token_offsets`) and the elements' layout give exactly what encoding
    and laying out afresh gives, at every setting."""
    from chunkbench.strategies.kept import KeptState

    owner = KeptState()
    kept = [chunk(doc, "tokens", kept=owner, chunk_size=size, overlap=overlap).chunks for size, overlap in settings]
    for (size, overlap), chunks in zip(settings, kept):
        assert chunk(doc, "tokens", chunk_size=size, overlap=overlap).chunks == chunks


_PIECES = st.text(alphabet=st.sampled_from(list("ab Zé1.,:;'\"-\t\n ()漢ü€😀\r\u00a0\u3000#|`")), min_size=1, max_size=30)


@given(st.lists(st.one_of(_PIECES, st.text(min_size=1, max_size=20)), min_size=1, max_size=6),
       st.sampled_from(["\n\n", "\n", "\r\n", " \n", " ", ""]))
def test_a_joined_count_is_the_count_of_the_joined_text(texts, separator):
    """count_joined adds the parts' counts only where that is exact: whatever the texts and the separator,
    it answers what counting the joined text answers."""
    from chunkbench.text.tokenizer import count_joined, count_tokens

    assert count_joined(texts, separator) == count_tokens(separator.join(texts))


@given(element_documents(), st.sampled_from([100, 300, 2000]))
def test_the_elements_strategy_counts_each_chunks_tokens_exactly(doc, size):
    from chunkbench.text.tokenizer import count_tokens

    for c in chunk(doc, "elements", max_chunk_size=size):
        assert c.tokens_est == count_tokens(c.text)
