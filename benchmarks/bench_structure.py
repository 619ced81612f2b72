"""Benchmark 2: structure strategies as a share of parse time, and their scaling on 1×/4×/16× streams."""

from __future__ import annotations

import gc
import os

from chunkbench.strategies import chunk
from chunkbench.text.tokenizer import count_tokens

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
    doc = None
    gc.collect()
    # one stream in memory at a time, so a run of one size does not also pay the garbage collector
    # for scanning the others; CPU time, since this code is single-threaded: it equals wall time on
    # an idle machine and is not inflated by other processes
    times: dict[str, dict[int, float]] = {name: {} for name in STRATEGIES}
    sizes = []
    for k in (1, 4, 16):
        stream = synthetic_document(BASE_ELEMENTS * k)
        sizes.append(f"{k}× = {len(stream.elements):,} elements / {len(stream.text) / 1e6:.1f} MB")
        for name in STRATEGIES:
            times[name][k] = timed(lambda s=stream, n=name: _cold(s, n), runs + 2 if k < 16 else runs)[1]
        del stream
        gc.collect()
    notes.append("synthetic streams: " + ", ".join(sizes))
    for name in STRATEGIES:
        t = times[name]
        growth = t[16] / t[1]
        rows.append(Row(SECTION, f"{name} 16× stream (CPU time)", t[16], "s", "1× stream", t[1], growth,
                        "≤ 18×", growth <= 18, f"4×: {t[4] / t[1]:.1f}×"))
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
