"""Benchmark 6: locating another chunker's chunks (`cb.inspect`, issue 18).

A 300-page parser-like Document (the synthetic stream of section 2) and another extraction of its
text: line breaks moved (lines rewrapped at 80 characters, blank lines single), as a PDF text
extractor gives them. LangChain's RecursiveCharacterTextSplitter cuts that text into about 10,000
chunks, which are located in the Document. Scaling: the same at 1/4 of the size (2,500 chunks) and
at 4x (40,000 chunks); the time per chunk should not grow with the document."""

from __future__ import annotations

import textwrap

from chunkbench.foreign import inspect, match_counts

from .common import Row, timed
from .corpus import synthetic_document

SECTION = "6. foreign chunks"
PAGES_PER_ELEMENT = 300 / 4800  # the synthetic stream: about 16 elements a page
TARGET_CHUNKS = 10_000


def other_extraction(text: str) -> str:
    """The same words with another line layout: each paragraph rewrapped at 80, one line break between."""
    return "\n".join(textwrap.fill(p, 80) for p in text.split("\n\n"))


def case(n_elements: int, n_chunks: int):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    doc = synthetic_document(n_elements)
    theirs = other_extraction(doc.text)
    size = max(50, len(theirs) // n_chunks)
    chunks = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=size // 10).split_text(theirs)
    return doc, chunks


def run(runs: int = 3) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    notes: list[str] = []
    per_chunk = {}
    for scale in (0.25, 1, 4):
        n_elements = int(4800 * scale)
        doc, chunks = case(n_elements, int(TARGET_CHUNKS * scale))
        t, _, cs = timed(lambda: inspect(doc, chunks), runs)
        per_chunk[scale] = t / len(chunks)
        counts = match_counts(cs)
        found = (counts["exact"] + counts["normalised"]) / len(cs)
        pages = round(n_elements * PAGES_PER_ELEMENT)
        label = f"locate {len(chunks):,} chunks of a {pages}-page document"
        if scale == 1:
            rows.append(Row(SECTION, label, t, "s", target="≤ 2 s", met=t <= 2.0,
                            note=f"{found:.1%} exact or normalised; {len(doc.text):,} characters"))
        else:
            rows.append(Row(SECTION, label, t, "s", note=f"{found:.1%} exact or normalised"))
    growth = per_chunk[4] / per_chunk[0.25]
    rows.append(Row(SECTION, "time per chunk, 16x the document and chunks", growth, "x", target="≤ 1.2x",
                    met=growth <= 1.2, note="linear: the time per chunk does not grow with the document"))
    notes.append("another extraction is simulated: the Document's text rewrapped at 80 characters with single "
                 "line breaks, so no chunk is found exactly and each goes through the normalised search")
    return rows, notes
