"""Inputs built by hand for tests: chunks from spans, a pymupdf4llm text line, and the check that a
text loader's offsets are exact."""

from __future__ import annotations

from chunkbench.types.chunk import Boundary, Reason, build_chunk
from chunkbench.types.chunkset import ChunkSet


def hand_chunks(doc, spans, strategy="hand"):
    """A ChunkSet from (start_char, end_char) spans, built with build_chunk like a strategy would."""
    chunks = []
    for i, (a, b) in enumerate(spans):
        els = [e for e in doc.elements if e.text and e.char_start < b and e.char_end > a]
        reason = Reason.DOCUMENT_START if i == 0 else Reason.TOKEN_WINDOW
        chunks.append(build_chunk(
            doc, index=i, chunk_id=f"c{i}", type="paragraph", text=doc.text[a:b], elements=els,
            boundary=Boundary(reason, f"span {a}-{b}"), start_char=a, end_char=b,
        ))
    return ChunkSet(doc=doc, strategy=strategy, params={}, chunks=tuple(chunks))


def line(*words, x=0.0, size=10.0, char=5.0, gap=3.0):
    """A text line as pymupdf4llm gives it: spans (text, flags) laid out from `x`, `char` points
    per character, `gap` points apart (pymupdf4llm drops whitespace-only spans)."""
    spans = []
    for word in words:
        text, flags = word if isinstance(word, tuple) else (word, 0)
        spans.append({"text": text, "flags": flags, "size": size, "bbox": [x, 0, x + char * len(text), size]})
        x += char * len(text) + gap
    return {"spans": spans}


def assert_exact_offsets(doc, source: str) -> None:
    """Every element's text is its src span of the source; spans are ordered and disjoint."""
    end = 0
    for e in doc.elements:
        a, b = e.attrs["src_start"], e.attrs["src_end"]
        assert source[a:b] == e.text, e.id
        assert end <= a <= b
        end = b
