"""Benchmark 2: structure strategies as a share of parse time, and the scaling of every strategy
on 1×/4×/16× streams: a synthetic parser-like stream, and a real PDF's elements repeated (ids and
pages renumbered)."""

from __future__ import annotations

import contextlib
import gc
import os

from chunkbench.strategies import chunk
from chunkbench.text.tokenizer import count_tokens

from .common import SHARED_PDFS, Row, timed
from .corpus import repeated_document, synthetic_document

SECTION = "2. structure strategies"
STRATEGIES = ("elements", "contract", "headers", "sections")
#: the seven strategies whose time must grow linearly (semantic runs a model: its own benchmark)
SCALING = ("elements", "contract", "headers", "sections", "tokens", "recursive", "sentences")
BASE_ELEMENTS = 4000  # 1× stream: about 250 pages of parser-like elements
#: the real stream's 1×: this PDF of ../shared, repeated to about BASE_ELEMENTS elements
REAL_PDF = "financial_bestbuy-2023-10k.pdf"


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
    streams = {"synthetic": lambda k: synthetic_document(BASE_ELEMENTS * k)}
    real = real_base()
    if real is not None:
        repeat = max(1, round(BASE_ELEMENTS / max(1, len(real.elements))))
        streams[f"{REAL_PDF} ×{repeat}"] = lambda k, r=real, n=repeat: repeated_document(r, n * k)
    for stream_name, make in streams.items():
        rows += _scaling(stream_name, make, runs, notes)
    return rows, notes


def _scaling(stream_name: str, make, runs: int, notes: list[str]) -> list[Row]:
    """Each strategy's CPU time on the 1×, 4× and 16× stream; target 16× in ≤ 18× the time."""
    # one stream in memory at a time, so a run of one size does not also pay the garbage collector
    # for scanning the others; CPU time, since this code is single-threaded: it equals wall time on
    # an idle machine and is not inflated by other processes. `tokens` encodes long texts on idle
    # cores' threads (less wall time, ~40% more CPU): it is timed on one thread here, its own work
    times: dict[str, dict[int, float]] = {name: {} for name in SCALING}
    sizes = []
    with _serial_tokenizer():
        for k in (1, 4, 16):
            stream = make(k)
            sizes.append(f"{k}× = {len(stream.elements):,} elements / {len(stream.text) / 1e6:.1f} MB")
            for name in SCALING:
                times[name][k] = timed(lambda s=stream, n=name: _cold(s, n), runs + 2 if k < 16 else runs)[1]
            del stream
            gc.collect()
    notes.append(f"{stream_name} streams: " + ", ".join(sizes))
    rows = []
    for name in SCALING:
        t = times[name]
        growth = t[16] / t[1]
        rows.append(Row(SECTION, f"{name} 16× {stream_name} stream (CPU time)", t[16], "s", "1× stream", t[1], growth,
                        "≤ 18×", growth <= 18, f"4×: {t[4] / t[1]:.1f}×"))
    return rows


@contextlib.contextmanager
def _serial_tokenizer():
    """The tokens strategy encoding on this thread only (see _scaling)."""
    from chunkbench.strategies import tokens

    idle = tokens._idle_cores
    tokens._idle_cores = lambda: 1
    try:
        yield
    finally:
        tokens._idle_cores = idle


def real_base():
    """The real stream's 1× Document (parsed once into the parse cache), or None without ../shared."""
    path = os.path.join(SHARED_PDFS, REAL_PDF)
    if not os.path.exists(path):
        return None
    import chunkbench

    return chunkbench.load(path, progress=False)


def _cold(doc, name: str):
    """Chunk with empty token counts and nothing a strategy kept from an earlier run (no
    `strategies.kept` owner), so every run (and every stream size) pays the same."""
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
