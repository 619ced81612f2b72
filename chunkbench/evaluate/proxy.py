"""A retrieval score without questions: the document asks its own.

Two ways to make the queries, both deterministic for a seed, compared in docs/proxy.md (where
`keywords` ranks settings as real questions do far better, so it is the default):

* `keywords`: the most distinctive words of a three-sentence passage (by tf-idf over the document's
  sentences) are the query, the passage the evidence; nothing is taken out.
* `cloze` (inverse cloze): a body sentence is the query, the passage around it (the
  sentence before, itself and the sentence after, within its section) is the evidence, and the
  sentence is taken out of every text the index sees, so a chunk is found by the words of its
  context, as a question is answered by a passage that does not repeat it. Query sentences are
  never neighbours of each other; when more than a tenth of the sentences would be taken out at
  once, the queries are scored in folds, each with its own index.

Each query is scored as a real question is (`retrieval.scoring.evaluate`: recall@k, MRR, token
precision / recall / IoU of the top 5), as `proxy_*` measures. The splitter at 200 characters is
scored on the same queries (`proxy_baseline_token_recall`): the label-free best keeps at least
its recall, as the question-picked best keeps the splitter's real recall (sweep/floor.py).
A document with fewer than MIN_QUERIES usable sentences gets no score (a reason instead): a
handful of queries ranks settings by noise.
"""

from __future__ import annotations

import bisect
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from chunkbench.strategies.kept import KeptState, kept_or_made
from chunkbench.text.context import OWN_TEXT, Indexing
from chunkbench.text.sentences import sentence_spans

from .retrieval.locate import Resolved
from .retrieval.questions import Question
from .retrieval.ranking import tokenize
from .retrieval.scoring import KS, TOKEN_K, RetrievalUnit, baseline_units, chunk_units, evaluate, indexed_units

if TYPE_CHECKING:
    from chunkbench.types.chunkset import ChunkSet
    from chunkbench.types.document import Document

#: how the queries are made (module docstring); the first is the default
METHODS = ("keywords", "cloze")
#: queries asked of a document at most (a 300-page document has thousands of sentences)
MOST_QUERIES = 200
#: fewer usable sentences than this: no score ("too short for proxy queries")
MIN_QUERIES = 20
#: a query sentence has at least this many distinct word tokens (stopwords aside)
MIN_WORDS = 5
#: share of the sentences one fold may take out of the index
FOLD_SHARE = 0.1
#: words in a `keywords` query
KEYWORDS = 6
#: element types whose sentences are queries and evidence: body text, not headings, tables, furniture
_BODY = frozenset({"paragraph", "list"})
#: the size of the splitter whose proxy recall is the floor (benchmark.BASELINE_SIZE)
FLOOR_CHARS = 200


@dataclass(frozen=True)
class Sentence:
    """A body sentence: its range of `doc.text` and the section it is in (headings before it)."""

    start: int
    end: int
    section: int


@dataclass(frozen=True)
class ProxyQueries:
    """The queries a document asks itself: resolved as questions are (spans = the evidence), and,
    per fold, the ranges taken out of what is indexed (empty for `keywords`)."""

    method: str
    seed: int
    resolved: tuple[Resolved, ...]
    folds: tuple[tuple[int, ...], ...]  # positions in `resolved` scored together
    masked: tuple[tuple[tuple[int, int], ...], ...]  # per fold, sorted ranges of doc.text taken out
    sentences: int  # body sentences in the document

    def describe(self) -> str:
        return (f"{len(self.resolved)} {self.method} queries (seed {self.seed}) from {self.sentences} body sentences"
                + (f", in {len(self.folds)} folds" if len(self.folds) > 1 else ""))


class TooShort(ValueError):
    """The document has too few body sentences for proxy queries: no score rather than a noisy one."""


def body_sentences(doc: Document) -> list[Sentence]:
    """The sentences of the document's body elements in reading order, each with its section."""
    out: list[Sentence] = []
    section = 0
    for e in doc.elements:
        if e.is_heading:
            section += 1
            continue
        if e.type not in _BODY or e.char_start is None or not e.text.strip():
            continue
        for a, b in sentence_spans(e.text):
            out.append(Sentence(e.char_start + a, e.char_start + b, section))
    return out


def make_queries(doc: Document, method: str = METHODS[0], seed: int = 0, most: int = MOST_QUERIES) -> ProxyQueries:
    """The document's own queries (module docstring); raises TooShort with the reason when it has
    fewer than MIN_QUERIES usable sentences."""
    if method not in METHODS:
        raise ValueError(f"proxy method must be one of {', '.join(METHODS)}; got {method!r}")
    sentences = body_sentences(doc)
    text = doc.text
    words = [set(tokenize(text[s.start:s.end])) for s in sentences]

    def neighbours(i: int) -> list[int]:
        return [j for j in (i - 1, i + 1) if 0 <= j < len(sentences) and sentences[j].section == sentences[i].section]

    usable = [i for i, w in enumerate(words) if len(w) >= MIN_WORDS and neighbours(i)]
    rng = random.Random(f"{seed}:{method}")
    order = usable[:]
    rng.shuffle(order)
    chosen: list[int] = []
    taken: set[int] = set()
    for i in order:  # no query is another's neighbour: its evidence stays in the index
        if len(chosen) >= most:
            break
        if taken.isdisjoint((i - 1, i, i + 1)):
            chosen.append(i)
            taken.add(i)
    if len(chosen) < MIN_QUERIES:
        raise TooShort(f"{doc.source}: {len(chosen)} usable sentences for proxy queries (at least {MIN_QUERIES} "
                       f"needed, of {len(sentences)} body sentences): too short to score without questions")
    chosen.sort()
    idf = _idf(words) if method == "keywords" else {}
    resolved = []
    for n, i in enumerate(chosen):
        around = [i, *neighbours(i)]
        a, b = min(sentences[j].start for j in around), max(sentences[j].end for j in around)
        query = text[sentences[i].start:sentences[i].end] if method == "cloze" else _keywords(text[a:b], idf)
        resolved.append(Resolved(Question(f"proxy-{n + 1}", query, ()), ((a, b),), frozenset(), 1.0))
    if method == "keywords":
        folds: tuple[tuple[int, ...], ...] = (tuple(range(len(chosen))),)
        masked: tuple[tuple[tuple[int, int], ...], ...] = ((),)
    else:
        per_fold = max(1, int(len(sentences) * FOLD_SHARE))
        count = math.ceil(len(chosen) / per_fold)
        folds = tuple(tuple(range(k, len(chosen), count)) for k in range(count))
        masked = tuple(tuple((sentences[chosen[p]].start, sentences[chosen[p]].end) for p in fold) for fold in folds)
    return ProxyQueries(method, seed, tuple(resolved), folds, masked, len(sentences))


def _idf(words: Sequence[set[str]]) -> dict[str, float]:
    df: Counter[str] = Counter(w for ws in words for w in ws)
    n = len(words)
    return {w: math.log((n + 1) / (c + 0.5)) for w, c in df.items()}


def _keywords(passage: str, idf: dict[str, float], count: int = KEYWORDS) -> str:
    """The KEYWORDS most distinctive words of `passage` (tf-idf; ties in order of appearance)."""
    counts = Counter(tokenize(passage))
    first = {w: n for n, w in reversed(list(enumerate(tokenize(passage))))}
    ranked = sorted(counts, key=lambda w: (-counts[w] * idf.get(w, 0.0), first[w]))
    return " ".join(ranked[:count])


def masked_units(units: Sequence[RetrievalUnit], masked: Sequence[tuple[int, int]], doc: Document,
                 indexing: Indexing = OWN_TEXT) -> list[RetrievalUnit]:
    """The units indexed (as `indexing` says) by their text with the `masked` ranges taken out: a
    unit with a range reads it from `doc.text`, one without (a foreign chunk not located) has each
    masked sentence's text removed from its own."""
    if not masked:
        return indexed_units(units, indexing, doc)
    starts = [a for a, _ in masked]
    texts = [doc.text[a:b] for a, b in masked]
    out = []
    for u in units:
        if u.start is None or u.end is None:
            text = u.text
            for t in texts:
                text = text.replace(t, " ")
        else:
            text = _cut(doc.text, u.start, u.end, masked, starts)
        out.append(replace(u, text=text))
    return [replace(u, indexed=m.ranked_texts) for m, u in zip(indexed_units(out, indexing, doc), units)]


def _cut(text: str, a: int, b: int, masked: Sequence[tuple[int, int]], starts: Sequence[int]) -> str:
    """text[a:b] without the masked ranges (sorted, disjoint) that overlap it."""
    pieces, at = [], a
    n = max(0, bisect.bisect_right(starts, a) - 1)
    while n < len(masked) and masked[n][0] < b:
        lo, hi = masked[n]
        if hi > at:
            pieces.append(text[at:max(at, lo)])
            at = max(at, hi)
        n += 1
    pieces.append(text[at:b] if at < b else "")
    return " ".join(pieces)


def score_units(units: Sequence[RetrievalUnit], queries: ProxyQueries, doc: Document, indexing: Indexing = OWN_TEXT,
                retriever: str = "bm25", token_k: int = TOKEN_K) -> dict[str, Any]:
    """The proxy measures of `units` (recall@k, MRR, token precision / recall / IoU) over every
    query, each fold ranked by an index with its sentences taken out."""
    rows: list[dict] = []
    for fold, masked in zip(queries.folds, queries.masked):
        ranked = masked_units(units, masked, doc, indexing)
        rows.extend(evaluate(ranked, [queries.resolved[p] for p in fold], KS, token_k, retriever, text=doc.text)[1])
    out: dict[str, Any] = {}
    for key in [f"recall@{k}" for k in KS] + ["mrr", "token_precision", "token_recall", "token_iou"]:
        values = [r[key] for r in rows if key in r]
        out[key] = round(sum(values) / len(values), 4) if values else None
    return out


def document_queries(doc: Document, method: str = METHODS[0], seed: int = 0, retriever: str = "bm25",
                     kept: KeptState | None = None) -> tuple[ProxyQueries, dict]:
    """The document's queries and the FLOOR_CHARS splitter's proxy scores on them; raises TooShort
    as make_queries does. Made once per document for the owner of `kept` (a sweep's points of one
    input: strategies.kept), every time without one."""

    def make() -> tuple[ProxyQueries | TooShort, dict | None]:
        try:
            made = make_queries(doc, method, seed)
            return made, score_units(baseline_units(doc, FLOOR_CHARS), made, doc, OWN_TEXT, retriever)
        except TooShort as exc:
            return exc, None

    queries, base = kept_or_made(kept, "proxy", doc, (method, seed, retriever), make)
    if isinstance(queries, TooShort):
        raise queries
    assert base is not None
    return queries, base


def proxy_metrics(doc: Document, chunkset: ChunkSet, indexing: Indexing = OWN_TEXT, retriever: str = "bm25",
                  method: str = METHODS[0], seed: int = 0, kept: KeptState | None = None) -> tuple[dict, dict]:
    """Flat `proxy_*` scores of the chunks (ranked as `indexing` says) on the document's own queries,
    with the FLOOR_CHARS splitter's token recall and IoU on them, and details (the method, the
    queries); a document too short for them gets `proxy_queries` 0 and `proxy_note` saying why."""
    try:
        queries, base = document_queries(doc, method, seed, retriever, kept)
    except TooShort as exc:
        return {"proxy_queries": 0, "proxy_note": str(exc)}, {"proxy": {"note": str(exc)}}
    flat: dict[str, Any] = {"proxy_queries": len(queries.resolved), "proxy_method": queries.method}
    for key, value in score_units(chunk_units(chunkset), queries, doc, indexing, retriever).items():
        flat[f"proxy_{key.replace('@', '_at_')}"] = value
    flat["proxy_baseline_token_recall"] = base["token_recall"]
    flat["proxy_baseline_token_iou"] = base["token_iou"]
    details = {"proxy": {"method": queries.method, "seed": queries.seed, "describe": queries.describe(),
                         "queries": [{"id": r.question.id, "query": r.question.question, "spans": [list(s) for s in r.spans]}
                                     for r in queries.resolved]}}
    return flat, details
