"""Benchmark 1: the `tokens` strategy on ~5 MB of real English text vs raw encode and peer splitters.

Every tool gets the same offline cl100k encoding object (or, for LangChain, which only takes a
name, the same registered offline encoding) and the same 512/50 window parameters.
"""

from __future__ import annotations

import cProfile
import hashlib
import io
import pstats

from chunkbench.strategies import chunk
from chunkbench.strategies.tokens import _idle_cores, token_windows
from chunkbench.text.tokenizer import get_encoding

from .common import Row, timed
from .corpus import corpus_document, english_paragraphs

SECTION = "1. tokens strategy"
SIZE, OVERLAP = 512, 50


def _peers(enc, text: str) -> dict:
    """name → zero-argument callable chunking `text` with that peer (skipped when not installed)."""
    peers = {}
    try:
        from langchain_text_splitters import TokenTextSplitter

        lc = TokenTextSplitter(encoding_name=enc.name, chunk_size=SIZE, chunk_overlap=OVERLAP,
                               disallowed_special=())
        peers["LangChain TokenTextSplitter"] = lambda: lc.split_text(text)
    except ImportError:
        pass
    try:
        from chonkie import TokenChunker

        ch = TokenChunker(tokenizer=enc, chunk_size=SIZE, chunk_overlap=OVERLAP)
        peers["chonkie TokenChunker"] = lambda: ch.chunk(text)
    except ImportError:
        pass
    try:
        import semchunk

        sc = semchunk.chunkerify(enc, SIZE)
        peers["semchunk"] = lambda: sc(text, overlap=OVERLAP, offsets=True)
    except ImportError:
        pass
    return peers


def run(runs: int = 5, peer_runs: int = 3) -> tuple[list[Row], list[str]]:
    enc = get_encoding()
    paras = english_paragraphs()
    doc = corpus_document(paras)
    text = doc.text
    mb = len(text.encode("utf-8")) / 1e6
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    notes = [f"corpus: {mb:.2f} MB, {len(paras):,} distinct paragraphs from installed documentation, "
             f"{len(doc.pages):,} synthetic pages; {sum(not c.isascii() for c in text):,} non-ASCII characters; "
             f"sha256 {digest} (it changes when the installed packages change)"]
    rows: list[Row] = []

    t_raw, c_raw, ids = timed(lambda: enc.encode(text, disallowed_special=()), runs)
    notes.append(f"{len(ids):,} cl100k tokens; raw `enc.encode` {mb / t_raw:.2f} MB/s")
    # each run encodes the text: no owner keeps its tokens (the explorer's state would, for its slider)
    t_strategy, c_strategy, cs = timed(lambda: chunk(doc, "tokens", chunk_size=SIZE, overlap=OVERLAP), runs)
    t_windows, c_windows, ws = timed(lambda: token_windows(text, SIZE, OVERLAP), runs)
    notes.append(f"CPU seconds (all threads): raw encode {c_raw:.3f}, token_windows {c_windows:.3f}, "
                 f"tokens strategy {c_strategy:.3f}; tokenizer threads the load average allowed: {_idle_cores()}")
    assert all(c.text == text[c.start_char:c.end_char] for c in cs)
    mbs = mb / t_strategy
    rows.append(Row(SECTION, "tokens strategy (chunk(), exact offsets, pages, bbox)", mbs, "MB/s",
                    "raw enc.encode", mb / t_raw, t_raw / t_strategy, "≥ 0.9×", t_raw / t_strategy >= 0.9,
                    f"{len(cs)} chunks"))
    rows.append(Row(SECTION, "token_windows() core (offsets only)", mb / t_windows, "MB/s",
                    "raw enc.encode", mb / t_raw, t_raw / t_windows, "≥ 0.9×", t_raw / t_windows >= 0.9,
                    f"{len(ws)} windows"))
    for name, fn in _peers(enc, text).items():
        t_peer, _, out = timed(fn, peer_runs)
        n = len(out[0]) if isinstance(out, tuple) else len(out)
        rows.append(Row(SECTION, "tokens strategy vs " + name, mbs, "MB/s", name, mb / t_peer,
                        t_peer / t_strategy, "> 1× (faster)", t_peer / t_strategy > 1, f"peer: {n} chunks"))
    notes.append(profile(doc))
    return rows, notes


def profile(doc) -> str:
    """Top functions by cumulative time in one `chunk(doc, 'tokens')` call."""
    prof = cProfile.Profile()
    prof.enable()
    chunk(doc, "tokens", chunk_size=SIZE, overlap=OVERLAP)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(10)
    body = "\n".join(ln for ln in out.getvalue().splitlines() if ln.strip())
    return "profile of one tokens-strategy run (cumulative):\n\n```\n" + body + "\n```"
