"""Benchmark 15: recall at a context budget (docs/context-budget.md), the quick rows of
`benchmarks.budgets_public` with BM25: the retrieval default, with its best return policy at each
budget, against the best of the peers with any policy. The full table (every row, both
retrievers) is `python -m benchmarks.budgets_public --retriever both`."""

from __future__ import annotations

from chunkbench.evaluate.retrieval.budget import BUDGETS
from chunkbench.io.return_policy import POLICIES

from .budgets_public import GOAL_MARGIN, OWN, PEERS, QUICK, available, measure
from .common import Row
from .retrieval_public import load_cases

SECTION = "15. recall at a context budget"


def run() -> tuple[list[Row], list[str]]:
    cases = load_cases(("all",))["all"]
    own = [r for r in available(OWN) if r[0] in QUICK]
    peers = [r for r in available(PEERS) if r[0] in QUICK]
    units: dict = {}
    rankers: dict = {}
    scores = measure(cases, own, "bm25", BUDGETS, tuple(POLICIES), units, rankers)
    scores.update(measure(cases, peers, "bm25", BUDGETS, ("hits", "window", "section"), units, rankers))
    peer_labels = {label for label, _ in peers}
    rows = []
    for b in BUDGETS:
        key = f"budget_recall@{b}"
        mine = max((k for k in scores if k[0] == "retrieval default"), key=lambda k: scores[k]["pooled"].get(key) or 0)
        best = max((k for k in scores if k[0] in peer_labels), key=lambda k: scores[k]["pooled"].get(key) or 0)
        ours, theirs = scores[mine]["pooled"][key] or 0.0, scores[best]["pooled"][key] or 0.0
        rows.append(Row(SECTION, f"recall@{b} tokens, retrieval default ({mine[1]}), BM25", ours * 100, "%",
                        f"{best[0]} ({best[1]})", theirs * 100, None, target=f"≥ best peer + {100 * GOAL_MARGIN:.0f} pt",
                        met=ours - theirs >= GOAL_MARGIN - 1e-9, note=f"{100 * (ours - theirs):+.1f} pt"))
    questions = sum(len(c.resolved) for c in cases)
    notes = [f"{questions} questions on {len(cases)} documents; the quick rows ({', '.join(QUICK)}); the target is "
             "issue 57's, not met (docs/context-budget.md says why)"]
    return rows, notes
