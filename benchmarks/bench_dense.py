"""Benchmark 7: dense retrieval's encoder without torch (issue 21).

chunkbench's numpy all-MiniLM-L6-v2 encodes the chunks of the retrieval corpus (tests/data/retrieval,
`sentences` and `recursive` settings) against sentence-transformers on the same texts, when that is
installed (it needs torch, which chunkbench's install no longer has): CPU time, same embeddings."""

from __future__ import annotations

import os
import time

from chunkbench.loaders import load
from chunkbench.strategies import chunk

from .common import ROOT, Row

SECTION = "7. dense encoder"
CORPUS = os.path.join(ROOT, "tests", "data", "retrieval")


def corpus_units() -> list[str]:
    texts = []
    for name in sorted(os.listdir(CORPUS)):
        if name.endswith((".md", ".txt", ".pdf")):
            doc = load(os.path.join(CORPUS, name))
            for strategy, params in (("sentences", {}), ("recursive", {"chunk_size": 400})):
                texts += [c.text for c in chunk(doc, strategy, **params)]
    return texts


def _cpu(fn) -> tuple[float, object]:
    c0 = time.process_time()
    out = fn()
    return time.process_time() - c0, out


def run(runs: int = 2) -> tuple[list[Row], list[str]]:
    import numpy as np

    from chunkbench.text.minilm import MiniLM, model_dir

    texts = corpus_units()
    ours = MiniLM()
    t_ours, emb = min((_cpu(lambda: ours.encode(texts)) for _ in range(runs)), key=lambda r: r[0])
    notes = [f"{len(texts):,} chunks of the retrieval corpus, median {sorted(map(len, texts))[len(texts) // 2]} chars"]
    try:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer
    except ImportError:
        notes.append("sentence-transformers not installed: no peer figure")
        return [Row(SECTION, "numpy MiniLM, CPU time", t_ours, "s")], notes
    st = SentenceTransformer(str(model_dir()), device="cpu")
    t_st, ref = min((_cpu(lambda: st.encode(texts, batch_size=64, normalize_embeddings=True,
                                             show_progress_bar=False)) for _ in range(runs)), key=lambda r: r[0])
    gap = float(np.abs(np.asarray(emb) - np.asarray(ref)).max())
    ratio = t_st / t_ours
    rows = [Row(SECTION, "numpy MiniLM, CPU time", t_ours, "s", "sentence-transformers", t_st, ratio, "≥ 0.5x",
                ratio >= 0.5, f"largest embedding difference {gap:.1e}")]
    return rows, notes
