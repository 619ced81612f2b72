"""A held-out check for `chunkbench evaluate --holdout F`: the best setting is chosen on part of
the questions and then scored on the rest, which the choice never saw. A best picked among many
settings on the very questions it is scored on flatters itself; the project's own corpus showed
how much (docs/evaluation-heldout.md)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from chunkbench.errors import UsageError

from .benchmark import Case, Setting, beats_baseline, compare_settings
from .retrieval.questions import Question


def check_fraction(fraction: float) -> float:
    """`fraction` if it is a share of questions to hold out (strictly between 0 and 1), else a UsageError."""
    if not 0 < fraction < 1:
        raise UsageError(f"--holdout must be a fraction between 0 and 1, got {fraction}")
    return fraction


def held_out(ids: Sequence[str], fraction: float) -> set[int]:
    """Indices of the questions (by id) held out of one document: `fraction` of them, the same ones
    in every run (ordered by a hash of the id, not by position), at least one on each side when
    there are two or more."""
    check_fraction(fraction)
    order = sorted(range(len(ids)), key=lambda i: (_digest(ids[i]), i))
    return set(order[:held_count(len(order), fraction)])


def held_count(n: int, fraction: float) -> int:
    """How many of a document's `n` questions `fraction` holds out: rounded, at least one on each
    side when there are two or more, none otherwise (also benchmarks/selection_rules.py's rule)."""
    return min(max(round(n * fraction), 1), n - 1) if n > 1 else 0


def split_cases(cases: Sequence[Case], fraction: float) -> tuple[list[Case], list[Case]]:
    """(cases to choose on, cases held out): each document's questions split by `held_out`. A
    document left with no question on a side is left out of that side."""
    choose: list[Case] = []
    held: list[Case] = []
    for case in cases:
        out = held_out([r.question.id for r in case.resolved], fraction)
        for side, keep in ((choose, False), (held, True)):
            part = [i for i in range(len(case.resolved)) if (i in out) == keep]
            if part:
                side.append(case.keeping(part))
    if not held:
        raise UsageError("--holdout needs a document with at least two questions")
    return choose, held


def questions_not_held_out(questions: Sequence[Question], fraction: float) -> list[Question]:
    """The questions a choice is made on: those `held_out` leaves (what `chunkbench sweep --holdout`
    scores its points on; split_cases splits the same way)."""
    out = held_out([q.id for q in questions], fraction)
    return [q for i, q in enumerate(questions) if i not in out]


def _digest(question_id: str) -> str:
    return hashlib.sha256(question_id.encode("utf-8")).hexdigest()


def check_best(result: dict[str, Any], settings: Sequence[Setting], held: Sequence[Case], base: Setting,
               units_cache: dict | None = None) -> dict[str, Any] | None:
    """The best setting of `result` (chosen on the other questions) against the same baseline on
    the `held` questions: its IoU gain and recall difference with their intervals, and whether it
    still wins there (more IoU at no less token recall). None when `result` has no best."""
    name = result["best"]
    if name is None:
        return None
    setting = next(s for s in settings if s.name == name)
    return score_held(setting, held, base, result["rows"][0]["questions"], result["token_k"], result["retriever"],
                      units_cache)


def score_held(setting: Setting, held: Sequence[Case], base: Setting, chosen_on: int, token_k: int = 5,
               retriever: str = "bm25", units_cache: dict | None = None) -> dict[str, Any]:
    """A setting chosen on `chosen_on` other questions against `base` on the `held` questions: its IoU
    gain and recall difference with their intervals, and whether it still wins (benchmark.holdout_line
    says it in a sentence)."""
    check = compare_settings(held, [setting], base, token_k, retriever, units_cache)
    base_row, row = check["rows"]
    return {
        "setting": setting.name,
        "chosen_on": chosen_on,
        "questions": row["questions"],
        "token_iou": row["token_iou"],
        "baseline_token_iou": base_row["token_iou"],
        "iou_gain": row["iou_gain"],
        "iou_gain_ci": row["iou_gain_ci"],
        "token_recall": row["token_recall"],
        "baseline_token_recall": base_row["token_recall"],
        "recall_diff_ci": row["recall_diff_ci"],
        "holds": beats_baseline(row),
    }
