"""How far a label-free score can be trusted: on documents with real questions, how
well it ranks a grid of settings (Kendall's tau) and what its pick loses against the
question-picked best (regret). docs/proxy.md publishes the table; benchmarks/proxy_calibration.py
makes it; CALIBRATION holds its headline, printed with every label-free best."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: the headline of docs/proxy.md's table, quoted by `caveat`: `keywords` queries against the 471
#: questions of the project's corpus that no design choice saw (its held-out and fresh sets: 7
#: documents, 75 settings, BM25 top 5; `python -m benchmarks.proxy_calibration --questions untuned`),
#: the means over the documents
CALIBRATION: dict[str, Any] = {
    "corpus": "7 labelled documents (471 questions)",
    "iou_loss": 0.05,
    "recall_loss": 3.2,
    "tau": 0.93,
}


def kendall_tau(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Kendall's tau-b of two paired sequences (ties in either counted as neither concordant nor
    discordant); None with fewer than two pairs or when either is constant."""
    n = len(xs)
    if n != len(ys):
        raise ValueError(f"tau of {n} and {len(ys)} values")
    concordant = discordant = ties_x = ties_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = xs[i] - xs[j], ys[i] - ys[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = ((concordant + discordant + ties_x) * (concordant + discordant + ties_y)) ** 0.5
    return (concordant - discordant) / denominator if denominator else None


def pick(rows: Sequence[Mapping[str, Any]], objective: str, recall: str, floor: float | None) -> int | None:
    """The position of the best row: the highest `objective` among the rows whose `recall` is at
    least `floor` (all rows with the highest recall when none is; ties: the earlier row)."""
    scored = [(n, r) for n, r in enumerate(rows) if r.get(objective) is not None and r.get(recall) is not None]
    if not scored:
        return None
    keep = [(n, r) for n, r in scored if floor is None or r[recall] >= floor - 1e-9]
    if not keep:
        top = max(r[recall] for _, r in scored)
        keep = [(n, r) for n, r in scored if r[recall] >= top - 1e-9]
    return max(keep, key=lambda nr: (nr[1][objective], -nr[0]))[0]


@dataclass(frozen=True)
class Regret:
    """What the label-free pick loses on one document against the question-picked best."""

    document: str
    tau: float | None
    label_free: str
    question_picked: str
    iou_loss: float  # relative: 0.1 = the pick has 10% less real token IoU
    recall_loss: float  # points of real token recall (0 when the pick has more)


def regret(document: str, names: Sequence[str], real: Sequence[Mapping[str, Any]], proxy: Sequence[Mapping[str, Any]],
           real_floor: float | None, proxy_floor: float | None) -> Regret:
    """Tau between the proxy's and the real token IoU over the settings `names`, and the regret of
    the proxy's pick (highest proxy IoU at the splitter's proxy recall) against the real pick
    (highest real IoU at the splitter's real recall)."""
    q = pick(real, "token_iou", "token_recall", real_floor)
    p = pick(proxy, "token_iou", "token_recall", proxy_floor)
    if q is None or p is None:
        raise ValueError(f"{document}: no setting has both scores")
    pairs = [(a["token_iou"], b["token_iou"]) for a, b in zip(proxy, real)
             if a.get("token_iou") is not None and b.get("token_iou") is not None]
    tau = kendall_tau([a for a, _ in pairs], [b for _, b in pairs])
    best, chosen = real[q], real[p]
    loss = 1 - chosen["token_iou"] / best["token_iou"] if best["token_iou"] else 0.0
    return Regret(document, tau, names[p], names[q], max(0.0, loss),
                  max(0.0, best["token_recall"] - chosen["token_recall"]) * 100)


def caveat(calibration: Mapping[str, Any] = CALIBRATION) -> str:
    """The line printed with every label-free best: how such picks fared on the labelled corpora."""
    if calibration.get("iou_loss") is None:
        return "picked without questions: not yet calibrated against real questions"
    return (f"picked without questions; on {calibration['corpus']} such picks lose {calibration['iou_loss']:.0%} "
            f"token IoU and {calibration['recall_loss']:.1f} points of recall against the question-picked best, "
            f"tau = {calibration['tau']:.2f} (docs/proxy.md)")
