"""Benchmark 10: judging a chunking without questions (issue 54): the defect detectors and the
label-free proxy score.

A 300-page parser-like Document (the synthetic stream of section 2) cut by `recursive` into about
10,000 chunks: `find_defects` over all of them (target ≤ 1 s), and the same at a quarter and four
times the size (the time per chunk should not grow). The proxy score of the retrieval default on
that document, cold (its queries made and the splitter's floor scored, as a sweep's first point
does; target ≤ 10 s on one core), and of a second setting with the queries kept (every later
point of a sweep)."""

from __future__ import annotations

import gc

from chunkbench.evaluate import proxy
from chunkbench.evaluate.defects import find_defects
from chunkbench.strategies import chunk
from chunkbench.strategies.kept import KeptState

from .common import Row, timed
from .corpus import synthetic_document

SECTION = "10. judging without questions"
PAGES_PER_ELEMENT = 300 / 4800  # the synthetic stream: about 16 elements a page


def _cold_proxy(doc, cs):
    return proxy.proxy_metrics(doc, cs)  # no owner: its queries made again


def _against_making(runs: int) -> list[Row]:
    """Finding the defects of a chunk set against making it (issue 80.3, target ≤ 0.5x): a strategy's
    chunks made cold (nothing kept from an earlier run), and another chunker's chunks located."""
    from chunkbench.foreign import inspect

    doc = synthetic_document(4800)
    rows = []

    def cold_chunk():  # no owner: nothing kept from an earlier run (strategies.kept)
        return chunk(doc, "recursive", chunk_size=150)

    _, made, cs = timed(cold_chunk, runs)
    _, found, _ = timed(lambda: find_defects(cs), runs)
    rows.append(Row(SECTION, f"defects of `recursive chunk_size=150` ({len(cs):,} chunks)", found, "s CPU",
                    "making them, cold", made, found / made, "≤ 0.5x", found / made <= 0.5))
    texts = [c.text for c in chunk(doc, "tokens", chunk_size=300, overlap=30)]
    _, located, foreign = timed(lambda: inspect(doc, texts, name="another chunker"), runs)
    _, found, _ = timed(lambda: find_defects(foreign), runs)
    rows.append(Row(SECTION, f"defects of another chunker's chunks ({len(texts):,} token windows)", found, "s CPU",
                    "locating them", located, found / located, "≤ 0.5x", found / located <= 0.5))
    return rows


def run(runs: int = 3) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    notes: list[str] = []
    per_chunk = {}
    for scale in (0.25, 1, 4):
        doc = synthetic_document(int(4800 * scale))
        cs = chunk(doc, "recursive", chunk_size=150)
        gc.collect()
        t, _, found = timed(lambda: find_defects(cs), runs)
        per_chunk[scale] = t / len(cs)
        pages = round(len(doc.elements) * PAGES_PER_ELEMENT)
        label = f"defects of {len(cs):,} chunks of a {pages}-page document"
        if scale == 1:
            rows.append(Row(SECTION, label, t, "s", target="≤ 1 s (10,000 chunks)", met=t <= 1.0 * len(cs) / 10_000,
                            note=f"{len(found):,} defects found"))
            t, _, (flat, _) = timed(lambda: _cold_proxy(doc, cs), runs)
            rows.append(Row(SECTION, f"proxy score of a {pages}-page document, cold", t, "s", target="≤ 10 s",
                            met=t <= 10.0, note=f"{flat['proxy_queries']} {flat['proxy_method']} queries, "
                                                f"{len(cs):,} chunks and the 200-character splitter ranked"))
            other = chunk(doc, "sentences")
            owner = KeptState()  # a sweep's: the queries made at its first point
            proxy.proxy_metrics(doc, cs, kept=owner)
            t, _, _ = timed(lambda: proxy.proxy_metrics(doc, other, kept=owner), runs)
            rows.append(Row(SECTION, "proxy score of another setting, queries kept", t, "s",
                            note=f"`sentences`, {len(other):,} chunks: every later point of a sweep"))
        else:
            rows.append(Row(SECTION, label, t, "s", note=f"{len(found):,} defects found"))
    rows += _against_making(runs)
    growth = per_chunk[4] / per_chunk[0.25]
    rows.append(Row(SECTION, "defects: time per chunk, 16x the document", growth, "x",
                    note="1.0x is linear in the chunks; no target set (the issue names none)"))
    notes.append("one process, one core; the proxy score uses BM25 (bm25s) over the chunks' own texts")
    return rows, notes
