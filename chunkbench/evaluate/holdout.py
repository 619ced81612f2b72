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


def split_cases(cases: Sequence[Case], fraction: float) -> tuple[list[Case], list[Case]]:
    """(cases to choose on, cases held out): `fraction` of each document's questions held out, the
    same ones in every run (ordered by a hash of the question id, not by position), and at least
    one question on each side of a document that has two. A document left with no question on a
    side is left out of that side."""
    if not 0 < fraction < 1:
        raise UsageError(f"--holdout must be a fraction between 0 and 1, got {fraction}")
    choose: list[Case] = []
    held: list[Case] = []
    for case in cases:
        order = sorted(range(len(case.resolved)), key=lambda i: (_digest(case.resolved[i].question.id), i))
        k = min(max(round(len(order) * fraction), 1), len(order) - 1) if len(order) > 1 else 0
        out = set(order[:k])
        for side, keep in ((choose, False), (held, True)):
            part = tuple(r for i, r in enumerate(case.resolved) if (i in out) == keep)
            if part:
                side.append(Case(case.doc, case.questions_path, part))
    if not held:
        raise UsageError("--holdout needs a document with at least two questions")
    return choose, held


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
    check = compare_settings(held, [setting], base, result["token_k"], result["retriever"], units_cache)
    base_row, row = check["rows"]
    return {
        "setting": name,
        "chosen_on": result["rows"][0]["questions"],
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
