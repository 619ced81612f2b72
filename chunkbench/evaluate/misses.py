"""Retrieval misses traced to the cut that caused them.

A question is missed when the chunks retrieved for it (the top `token_k`) do not hold all of its
reference span (token recall below 1). The miss is explained by the chunk boundaries that fall
inside the span: the evidence was cut there, with that boundary's reason code, and part of it went
to a chunk that was not retrieved. A miss with no cut inside the span is a ranking miss: the whole
evidence was in one chunk, and other chunks ranked higher. `cause_table` counts misses by the
reason of the first cut inside their evidence. Drawing is in chunkbench.ui.misses.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunkbench.text.context import OWN_TEXT, Indexing
from chunkbench.text.ranges import Span

from .retrieval import (
    KS,
    TOKEN_K,
    Resolved,
    chunk_units,
    evaluate,
    indexed_units,
    load_questions,
    normalized_text,
    resolve,
)

if TYPE_CHECKING:
    from chunkbench.types.chunkset import ChunkSet

#: the cause of a miss whose evidence no boundary cut
NOT_SPLIT = "not_split"


@dataclass(frozen=True)
class Cut:
    """A chunk boundary inside a reference span: where chunk `chunk_index` starts, and why."""

    chunk_index: int
    position: int
    reason: str
    detail: str


@dataclass(frozen=True)
class Miss:
    """A question whose retrieved chunks do not hold all of its evidence, and why."""

    question_id: str
    question: str
    spans: tuple[Span, ...]
    token_recall: float
    #: the boundaries inside the evidence, in text order
    cuts: tuple[Cut, ...]
    #: chunk indices retrieved for the question, best first
    retrieved: tuple[int, ...]
    #: chunk indices holding some of the evidence
    holding: tuple[int, ...]

    @property
    def cause(self) -> str:
        """The reason code of the first cut inside the evidence, or NOT_SPLIT."""
        return self.cuts[0].reason if self.cuts else NOT_SPLIT


def find_misses(chunkset: ChunkSet, questions, retriever: str = "bm25", token_k: int = TOKEN_K,
                indexing: Indexing = OWN_TEXT, rows: Sequence[Mapping[str, Any]] | None = None) -> list[Miss]:
    """The misses of `chunkset` on `questions` (Questions, resolved questions, or a questions file
    path), ranked by `retriever` as `chunkbench evaluate` ranks them (each chunk indexed as
    `indexing` says), or as `rows` say when that ranking was already done (its per-question rows:
    `id`, `token_recall`, `retrieved`). Questions without a located reference span (page-only
    evidence) are not judged."""
    resolved = resolve_questions(chunkset.doc, questions)
    if rows is None:
        units = indexed_units(chunk_units(chunkset), indexing, chunkset.doc)
        rows = evaluate(units, resolved, KS, token_k, retriever, text=chunkset.doc.text)[1]
    by_id = {row["id"]: row for row in rows}
    chunks = chunkset.chunks
    out = []
    for r in resolved:
        row = by_id.get(r.question.id)
        if row is None or not r.spans or row.get("token_recall", 1.0) >= 1.0:
            continue
        cuts = tuple(Cut(c.index, c.start_char, c.boundary.reason.value, c.boundary.detail) for c in chunks[1:]
                     if c.start_char is not None and any(a < c.start_char < b for a, b in r.spans))
        holding = tuple(c.index for c in chunks if c.start_char is not None and c.end_char is not None
                        and any(c.start_char < b and a < c.end_char for a, b in r.spans))
        out.append(Miss(r.question.id, r.question.question, r.spans, round(float(row["token_recall"]), 4),
                        cuts, tuple(row["retrieved"]), holding))
    return out


def resolve_questions(doc, questions) -> list[Resolved]:
    """Questions (a questions file path, Questions, or already resolved ones) as Resolved of `doc`."""
    if isinstance(questions, (str, os.PathLike)):
        questions = load_questions(questions, doc)
    qs = list(questions)
    return qs if all(isinstance(q, Resolved) for q in qs) else resolve(doc, qs, normalized_text(doc.text))


def judged(resolved: Sequence[Resolved]) -> int:
    """How many questions a miss can be judged on: those with a located reference span."""
    return sum(1 for r in resolved if r.spans)


def cause_table(misses: Sequence[Miss]) -> list[dict]:
    """Misses counted by the reason of the cut that split their evidence (NOT_SPLIT: none did),
    most frequent first."""
    counts = Counter(m.cause for m in misses)
    total = len(misses)
    return [{"cause": cause, "misses": n, "share": round(n / total, 4)}
            for cause, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
