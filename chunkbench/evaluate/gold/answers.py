"""Retrieval of structured answers: the gold questions of each document asked of one setting's
units, recall at each context budget per question kind, and the setting's cut scores, pooled over
documents (each question, and each judged block or chunk, weighs the same)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkbench.evaluate.benchmark.cases import Case
from chunkbench.evaluate.benchmark.scoring import units_for
from chunkbench.evaluate.retrieval import (
    KS,
    TOKEN_K,
    Evidence,
    Question,
    Resolved,
    RetrievalUnit,
    UnitRanker,
    evaluate,
    pages_of,
)
from chunkbench.evaluate.retrieval.budget import BUDGETS, BudgetSpec
from chunkbench.evaluate.retrieval.scoring import unit_ranker
from chunkbench.evaluate.settings import Setting
from chunkbench.text.ranges import merge_ranges
from chunkbench.types.document import Document

from . import Gold, share
from .cuts import CUT_SCORES, cut_flags
from .questions import QUESTION_KINDS, GoldQuestion, giveaway, make_questions


@dataclass(frozen=True)
class GoldCase:
    """A document with its gold (placed in it) and the questions made from that gold, as a retrieval Case."""

    case: Case
    gold: Gold
    questions: tuple[GoldQuestion, ...]

    @property
    def doc(self) -> Document:
        return self.case.doc

    @property
    def giveaway(self) -> float | None:
        """Share of its questions the heading words alone find (questions.giveaway)."""
        return giveaway(self.gold, self.questions)


def gold_case(doc: Document, gold: Gold, path: str | Path | None = None, phrasing: str = "keywords") -> GoldCase:
    """`doc` with the questions of `gold` in `phrasing` (questions.PHRASINGS; placed in `doc` first
    when the gold was made on another parse)."""
    gold = gold.for_document(doc)
    questions = tuple(make_questions(gold, phrasing=phrasing))
    resolved = tuple(_resolved(doc, gold, q) for q in questions)
    return GoldCase(Case(doc, Path(path or gold.source), resolved), gold, questions)


def _resolved(doc: Document, gold: Gold, q: GoldQuestion) -> Resolved:
    blocks = [gold.block(i) for i in q.evidence]
    spans = tuple(merge_ranges([b.span for b in blocks]))
    pages = frozenset(p for a, b in spans for e in doc.elements_overlapping(a, b) for p in pages_of(e))
    evidence = tuple(Evidence(None, b.text) for b in blocks)
    return Resolved(Question(q.id, q.question, evidence), spans, pages, 1.0)


def kind_of(question_id: str) -> str:
    """The kind a gold question's id names (`table_cell/g12` -> `table_cell`)."""
    return question_id.split("/", 1)[0]


def case_scores(case: GoldCase, units: Sequence[RetrievalUnit], retriever: str = "bm25",
                budget: BudgetSpec | None = None, ranker: UnitRanker | None = None) -> tuple[list[dict], dict[str, list[bool]]]:
    """One document's units on its gold: a row per question (retrieval.evaluate's, budgets included)
    and the cut scores' flags (cuts.cut_flags), ready to pool with other documents'."""
    budget = budget or BudgetSpec()
    rows = evaluate(units, case.case.resolved, KS, TOKEN_K, retriever, text=case.doc.text, ranker=ranker,
                    budgets=budget.budgets, policy=budget.policy)[1]
    return rows, cut_flags(case.gold, case.doc.text, units)


def pooled(rows: Sequence[dict], flags: dict[str, list[bool]], budgets: Sequence[int]) -> dict[str, Any]:
    """Cut scores and recall@B per question kind over the rows and flags of any number of documents,
    and over every question (`recall_all`: each question weighs the same)."""
    recall: dict[str, dict[str, float | None]] = {}
    counts: dict[str, int] = {}
    for kind in QUESTION_KINDS:
        of_kind = [q for q in rows if kind_of(q["id"]) == kind]
        counts[kind] = len(of_kind)
        recall[kind] = {str(b): _mean(q.get(f"budget_recall@{b}") for q in of_kind) for b in budgets}
    recall_all = {str(b): _mean(q.get(f"budget_recall@{b}") for q in rows) for b in budgets}
    return {"cuts": {name: share(flags.get(name, [])) for name in CUT_SCORES}, "recall": recall,
            "recall_all": recall_all, "questions": counts}


def score_on_gold(setting: Setting, cases: Sequence[GoldCase], retriever: str = "bm25",
                  budget: BudgetSpec | None = None, units_cache: dict | None = None,
                  rankers: dict | None = None) -> dict[str, Any]:
    """One setting on gold cases: its cut scores and recall@B per question kind, pooled (each question,
    and each judged block or chunk, weighs the same), with the questions of each kind counted.
    `units_cache` and `rankers` (keyed as benchmark.scoring keys them) spare cutting and indexing again."""
    budget = budget or BudgetSpec()
    units_cache = {} if units_cache is None else units_cache
    rows: list[dict] = []
    flags: dict[str, list[bool]] = {name: [] for name in CUT_SCORES}
    counted = chars = 0
    for case in cases:
        key = (setting.name, case.doc.source)
        units = units_cache.get(key)
        if units is None:
            units = units_cache[key] = units_for(setting, case.doc)
        ranker = rankers.get((*key, retriever)) if rankers is not None else None
        if ranker is None:
            ranker = unit_ranker(retriever, units)
            if rankers is not None:
                rankers[(*key, retriever)] = ranker
        case_rows, case_flags = case_scores(case, units, retriever, budget, ranker)
        rows.extend(case_rows)
        for name, values in case_flags.items():
            flags[name].extend(values)
        counted += len(units)
        chars += sum(len(u.text) for u in units)
    return {"setting": setting.name, "retriever": retriever, "units": counted,
            "mean_chars": round(chars / counted, 1) if counted else 0.0, **pooled(rows, flags, budget.budgets),
            "rows": rows}


def gold_columns(case: GoldCase, units: Sequence[RetrievalUnit], retriever: str = "bm25",
                 budgets: Sequence[int] = BUDGETS) -> dict[str, float | None]:
    """A sweep point's gold columns: `gold_<cut score>` and `gold_<kind>_recall_at_<B>`."""
    rows, flags = case_scores(case, units, retriever, BudgetSpec(tuple(budgets)))
    scores = pooled(rows, flags, budgets)
    out: dict[str, float | None] = {f"gold_{name}": value for name, value in scores["cuts"].items()}
    for kind, by_budget in scores["recall"].items():
        if scores["questions"][kind]:
            out.update({f"gold_{kind}_recall_at_{b}": v for b, v in by_budget.items()})
    return out


def _mean(values) -> float | None:
    kept = [v for v in values if v is not None]
    return round(sum(kept) / len(kept), 4) if kept else None
