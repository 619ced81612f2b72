"""The held-out check of a sweep (`chunkbench sweep --holdout F`): each input's best point by token
IoU or precision, chosen on the questions its points were scored on, scored against the splitter on
the questions held out, as `chunkbench evaluate --holdout` checks its best setting."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .floor import GUARDED
from .results import best_settings, row_setting

if TYPE_CHECKING:
    from chunkbench.evaluate.benchmark import Case


def check_best_points(df, held: Mapping[str, Case], splitter_chars: int, rank_by: str | None = None,
                      retriever: str = "bm25") -> dict[str, dict[str, Any]]:
    """Document → holdout.score_held of its best point (results.best_settings) against the splitter
    at `splitter_chars` on its `held` questions (input → Case), for the inputs that have some and
    whose best is by token IoU or precision (GUARDED: the measures the check reports)."""
    from chunkbench.evaluate.benchmark import baseline
    from chunkbench.evaluate.holdout import score_held

    out = {}
    for _, best in best_settings(df, rank_by).iterrows():
        rows = df[(df["document"] == best["document"]) & (df["strategy"] == best["strategy"])
                  & (df["params"] == best["params"]) & (df["status"] == "ok")]
        case = held.get(rows["input"].iloc[0])
        if case is None or best["objective"] not in GUARDED:
            continue
        chosen_on = int(rows["ret_questions"].iloc[0])
        out[best["document"]] = score_held(row_setting(best), [case], baseline(splitter_chars), chosen_on,
                                           retriever=retriever)
    return out
