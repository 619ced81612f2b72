"""One setting scored on the cases: its units per document, ranked per question, the token-range and rank measures per question and pooled."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from chunkbench.types.document import Document

from ..retrieval import (
    KS,
    TOKEN_K,
    RetrievalUnit,
    baseline_units,
    chunk_units,
    evaluate,
    indexed_units,
)
from ..retrieval.budget import BudgetSpec, budget_measures
from ..retrieval.scoring import (
    DEFAULT_SEPARATORS,
    unit_ranker,
)
from ..settings import BASELINE, Setting
from .baseline import BASELINE_SIZE
from .cases import Case

#: measures reported per setting, in table order
MEASURES = ("recall@1", "recall@5", "mrr", "token_precision", "token_recall", "token_iou")


def units_for(setting: Setting, doc: Document) -> list[RetrievalUnit]:
    """The retrievable units `setting` cuts `doc` into, each with the texts its indexing ranks it by."""
    params = setting.strategy_params
    if setting.strategy is None:
        units = baseline_units(doc, int(params.get("chunk_size", BASELINE_SIZE)), int(params.get("chunk_overlap", 0)),
                               str(params.get("separators", DEFAULT_SEPARATORS)), str(params.get("unit", "chars")))
    else:
        from chunkbench.strategies import chunk

        units = chunk_units(chunk(doc, setting.strategy, **params))
    return indexed_units(units, setting.indexing, doc)


#: how each question was searched, as a report says it (compare_settings' `protocol`)
PROTOCOLS = {"own": "each question searched in its own document's units (exact search)",
             "pooled": "each question searched in the units of every document at once, as Chroma's benchmark "
                       "does (exact search)"}


#: the measures whose differences from the baseline get bootstrap intervals, per question
PAIRED = ("token_iou", "token_recall")


def score_setting(setting: Setting, cases: Sequence[Case], token_k: int = TOKEN_K,
                  retriever: str = "bm25", units_cache: dict | None = None) -> dict[str, Any]:
    """One table row: the setting's unit counts and its measures pooled over every question, with
    the same per document under `documents`."""
    return score_questions(setting, cases, token_k, retriever, units_cache)[0]


def score_questions(setting: Setting, cases: Sequence[Case], token_k: int, retriever: str,
                    units_cache: dict | None, rankers: dict | None = None,
                    pooled: bool = False, budget: BudgetSpec | None = None) -> tuple[dict[str, Any], list[dict]]:
    """The row of score_setting and every question's scores (with `case`, its case's index).

    Each question is searched in its own document's units, or with `pooled` in the units of every
    document at once (Chroma's protocol: a unit of another document is retrieved length that holds
    no evidence). Both searches are exact and deterministic (BM25 scores every unit; dense, every
    embedding). `units_cache` (keyed by setting and document) lets a second retriever rank the same
    units without cutting every document again; `rankers` (keyed by those and the retriever) lets
    other questions of the same documents be ranked without indexing them again (a dense index
    embeds every unit). `budget`: the budgets recall is measured at and the return policy
    (retrieval.budget; default BudgetSpec())."""
    budget = budget or BudgetSpec()
    per_case = []
    for case in cases:
        key = (setting.name, case.doc.source)
        units = units_cache.get(key) if units_cache is not None else None
        if units is None:
            units = units_for(setting, case.doc)
            if units_cache is not None:
                units_cache[key] = units
        per_case.append(units)
    rows_of = (_pooled_rows(setting, cases, per_case, token_k, retriever, rankers, budget) if pooled and len(cases) > 1
               else [_own_rows(setting, case, units, token_k, retriever, rankers, budget)
                     for case, units in zip(cases, per_case)])
    questions: list[dict] = []
    documents = []
    for n, (case, units, rows) in enumerate(zip(cases, per_case, rows_of)):
        questions.extend({**row, "case": n} for row in rows)
        documents.append({"source": case.name, **pooled_measures(rows, len(units), sum(len(u.text) for u in units))})
    out: dict[str, Any] = {"setting": setting.name, "strategy": setting.strategy or BASELINE,
                           "params": dict(setting.params),
                           **pooled_measures(questions, sum(d["units"] for d in documents),
                                       sum(d["units"] * d["mean_chars"] for d in documents)),
                           "documents": documents}
    return out, questions


def _own_rows(setting: Setting, case: Case, units: Sequence[RetrievalUnit], token_k: int, retriever: str,
              rankers: dict | None, budget: BudgetSpec) -> list[dict]:
    """Each question of `case` searched in its own document's units."""
    key = (setting.name, case.doc.source, retriever)
    ranker = rankers.get(key) if rankers is not None else None
    if ranker is None:
        ranker = unit_ranker(retriever, units)
        if rankers is not None:
            rankers[key] = ranker
    return evaluate(units, case.resolved, KS, token_k, retriever, text=case.doc.text, ranker=ranker,
                    budgets=budget.budgets, policy=budget.policy)[1]


#: a page number far above any document's: page n of the k-th pooled document becomes k * this + n
_POOLED_PAGES = 1_000_000


def _pooled_rows(setting: Setting, cases: Sequence[Case], per_case: Sequence[Sequence[RetrievalUnit]], token_k: int,
                 retriever: str, rankers: dict | None, budget: BudgetSpec) -> list[list[dict]]:
    """Every question searched in the units of all documents at once: the documents' texts laid end
    to end (a blank line between), each unit's range, pages and evidence moved to its document's place,
    so a unit of another document can be retrieved but never holds the evidence. Rows per case."""
    offsets, at = [], 0
    for case in cases:
        offsets.append(at)
        at += len(case.doc.text) + 2
    joined = "\n\n".join(case.doc.text for case in cases)

    def moved(u: RetrievalUnit, n: int) -> RetrievalUnit:
        shift = offsets[n]
        return replace(u, start=None if u.start is None else u.start + shift, end=None if u.end is None else u.end + shift,
                       pages=frozenset(p + n * _POOLED_PAGES for p in u.pages))

    units = [moved(u, n) for n, us in enumerate(per_case) for u in us]
    key = (setting.name, "pooled:" + "|".join(c.doc.source for c in cases), retriever)
    ranker = rankers.get(key) if rankers is not None else None
    if ranker is None:
        ranker = unit_ranker(retriever, units)
        if rankers is not None:
            rankers[key] = ranker
    out = []
    for n, case in enumerate(cases):
        resolved = [replace(r, spans=tuple((a + offsets[n], b + offsets[n]) for a, b in r.spans),
                            pages=frozenset(p + n * _POOLED_PAGES for p in r.pages)) for r in case.resolved]
        out.append(evaluate(units, resolved, KS, token_k, retriever, text=joined, ranker=ranker,
                            budgets=budget.budgets, policy=budget.policy)[1])
    return out


def pooled_measures(rows: Sequence[Mapping[str, Any]], units: int, chars: float) -> dict[str, Any]:
    """Unit count, mean unit length and every measure averaged over question rows (the one place
    rows are pooled: per document, overall, and in benchmarks/retrieval_public.py)."""
    out: dict[str, Any] = {"units": units, "mean_chars": round(chars / units, 1) if units else 0.0,
                           "questions": len(rows)}
    for key in (*MEASURES, *budget_measures(rows)):
        values = [row[key] for row in rows if key in row]
        out[key] = round(sum(values) / len(values), 4) if values else None
    return out
