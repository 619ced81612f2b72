"""What the corpus can and cannot tell: too few questions, evidence not found."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..intervals import excludes_zero
from .formats import _listed, _pct

#: fewer questions than this (pooled) and the health check says the intervals will be wide
FEW_QUESTIONS = 30


def corpus_health(result: Mapping[str, Any]) -> list[str]:
    """Warnings about what keeps this corpus from telling settings apart: no difference beyond
    chance, few questions, documents that some settings cut into no more units than are retrieved
    (top k returns the whole document), documents on which every setting scores the same."""
    out = []
    rows = result["rows"]
    k = result["token_k"]
    questions = rows[0]["questions"]
    others = rows[1:]
    if others and not any(excludes_zero(r["iou_gain_ci"]) or excludes_zero(r["recall_diff_ci"]) for r in others):
        out.append(f"settings can't be told apart: no setting's token IoU or recall differs from the baseline's "
                   f"beyond chance (every 95% interval includes 0, {questions} questions); add questions or "
                   "documents before trusting the ranking")
    elif questions < FEW_QUESTIONS:
        out.append(f"only {questions} questions: the 95% intervals are wide; {FEW_QUESTIONS} or more tell "
                   "settings apart better")
    for n, doc in enumerate(result["documents"]):
        whole = [r["setting"] for r in rows if r["documents"][n]["units"] <= k]
        if whole:
            out.append(f"{doc['source']} ({doc['chars']:,} chars) is short for {len(whole)} setting(s) "
                       f"({_listed(whole)}): each cuts it into {k} units or fewer, so top-{k} retrieval returns "
                       "all of it and cannot tell them apart; use smaller chunks or longer documents")
        ious = {r["documents"][n]["token_iou"] for r in rows}
        if len(rows) > 1 and len(ious) == 1:
            out.append(f"{doc['source']}: every setting scores the same token IoU ({_pct(ious.pop())}), "
                       "so it says nothing about which is better")
    return out
