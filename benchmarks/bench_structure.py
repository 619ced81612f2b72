"""Benchmark 2: structure strategies as a share of parse time, and their scaling on 1×/4×/16× streams."""

from __future__ import annotations

import os

from chunkbench.chunkset import chunk
from chunkbench.tokens import count_tokens

from .common import Row, timed
from .corpus import synthetic_document

SECTION = "2. structure strategies"
STRATEGIES = ("elements", "contract", "headers", "sections")
BASE_ELEMENTS = 4000  # 1× stream: about 250 pages of parser-like elements


def run(facts: dict, runs: int = 3) -> tuple[list[Row], list[str]]:
    rows: list[Row] = []
    notes: list[str] = []
    parse_s = facts.get("long_parse_seconds")
    doc = _long_document(facts)
    if doc is not None:
        notes.append(f"311-page PDF: {len(doc.elements):,} elements, {len(doc.text):,} characters"
                     + (f", parsed in {parse_s:.1f} s" if parse_s else ""))
        for name in STRATEGIES:
            t, _, cs = timed(lambda: _cold(doc, name), runs)
            if parse_s:
                share = t / parse_s
                rows.append(Row(SECTION, f"{name} on the 311-page PDF", t, "s", "parse", parse_s, share,
                                "≤ 2% of parse", share <= 0.02, f"{len(cs)} chunks",
                                percent=True))
            else:
                rows.append(Row(SECTION, f"{name} on the 311-page PDF", t, "s", note=f"{len(cs)} chunks"))
    docs = {k: synthetic_document(BASE_ELEMENTS * k) for k in (1, 4, 16)}
    notes.append("synthetic streams: " + ", ".join(
        f"{k}× = {len(d.elements):,} elements / {len(d.text) / 1e6:.1f} MB" for k, d in docs.items()))
    for name in STRATEGIES:
        # CPU time: single-threaded code, so it equals wall time on an idle machine and is not
        # inflated when the machine is shared
        times = {k: timed(lambda d=d: _cold(d, name), runs + 2 if k < 16 else runs)[1]
                 for k, d in docs.items()}
        growth = times[16] / times[1]
        rows.append(Row(SECTION, f"{name} 16× stream (CPU time)", times[16], "s", "1× stream", times[1], growth,
                        "≤ 18×", growth <= 18, f"4×: {times[4] / times[1]:.1f}×"))
    return rows, notes


def _cold(doc, name: str):
    """Chunk with an empty token-count cache, so every run (and every stream size) pays the same."""
    clear = getattr(count_tokens, "cache_clear", None)
    if clear:
        clear()
    return chunk(doc, name)


def _long_document(facts: dict):
    """The 311-page PDF's Document from the parse benchmark's cache (or the default cache)."""
    path = facts.get("long_pdf")
    if not path or not os.path.exists(path):
        return None
    import chunkbench

    if facts.get("long_cache_dir"):
        os.environ["CHUNKBENCH_CACHE_DIR"] = facts["long_cache_dir"]
    return chunkbench.load(path, progress=False)
