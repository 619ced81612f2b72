"""Settings compared with the baseline: paired bootstrap intervals, the best setting (highest IoU at the baseline's recall, or a margin), retrievers side by side, the misses of one setting."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from chunkbench.errors import UsageError

from ..intervals import PairedBootstrap
from ..margin import RecallMargin, difference_se
from ..retrieval import (
    TOKEN_K,
)
from ..retrieval.budget import BudgetSpec, budget_measures
from ..settings import BASELINE, Setting
from .baseline import baseline
from .cases import Case
from .health import corpus_health
from .scoring import PAIRED, PROTOCOLS, score_questions


def compare_settings(cases: Sequence[Case], settings: Sequence[Setting], base: Setting | None = None,
            token_k: int = TOKEN_K, retriever: str = "bm25", units_cache: dict | None = None,
            rankers: dict | None = None, margin: RecallMargin | None = None,
            questions_out: dict | None = None, pooled: bool = False,
            budget: BudgetSpec | None = None) -> dict[str, Any]:
    """Score the baseline and every setting; mark each against the baseline, overall and per
    document, and name the best.

    `iou_gain` is the relative IoU change over the baseline and `iou_gain_ci` its paired bootstrap
    95% interval; `recall_diff_ci` the interval of the token recall difference and `recall_diff_se`
    its standard error; `recall_ok` whether the token recall is at least the baseline's; `best` is
    the highest-IoU setting with recall_ok (and the recall `margin`, if given) and more IoU than the
    baseline (None if none: then no setting wins, and the summary says so).
    `health` lists what makes the corpus unable to tell settings apart. `units_cache` and `rankers`
    (dicts the caller keeps) share cut documents and built indexes with other calls (score_questions);
    `questions_out` receives each setting's per-question rows by its name (misses_of can reuse them);
    `pooled`: each question searched in every document's units at once (score_questions), said in
    the result's `protocol`; `budget`: the budgets and return policy of recall@B (score_questions),
    each budget's recall difference from the baseline with its interval in `budget_recall_diff_ci`."""
    from chunkbench.io.progress import progress

    base = base or baseline()
    scored = []
    with progress(len(settings) + 1, "evaluate", "setting", enabled=None if len(settings) > 1 else False) as bar:
        for setting in (base, *settings):
            scored.append(score_questions(setting, cases, token_k, retriever, units_cache, rankers, pooled, budget))
            bar.update(1)
    if questions_out is not None:
        questions_out.update((s.name, questions) for s, (_, questions) in zip((base, *settings), scored))
    result = compare_scored(scored, cases, token_k, retriever, margin)
    result["protocol"] = PROTOCOLS["pooled" if pooled and len(cases) > 1 else "own"]
    result["budget_policy"] = (budget or BudgetSpec()).policy
    return result


def compare_scored(scored: Sequence[tuple[dict[str, Any], list[dict]]], cases: Sequence[Case], token_k: int,
                   retriever: str, margin: RecallMargin | None = None) -> dict[str, Any]:
    """compare_settings from settings already scored (score_questions; the baseline first): the
    rows marked against the baseline, the best named, the corpus's health checked. Also what
    benchmarks/selection_rules.py calls on parts of the questions."""
    rows = [dict(row, documents=[dict(d) for d in row["documents"]]) for row, _ in scored]
    _mark_against_baseline(rows, [[q for q in qs if "token_iou" in q] for _, qs in scored], len(cases))
    best = _best(rows, margin)
    documents = [{"source": c.name, "questions": len(c.resolved), "chars": len(c.doc.text),
                  "best": _best([r["documents"][n] | {"setting": r["setting"], "strategy": r["strategy"]}
                                 for r in rows], margin)}
                 for n, c in enumerate(cases)]
    result: dict[str, Any] = {
        "documents": documents,
        "token_k": token_k,
        "retriever": retriever,
        "baseline": rows[0]["setting"],
        "best": best,
        "rows": rows,
    }
    if margin is not None:
        result["recall_margin"] = {"amount": margin.amount, "unit": margin.unit}
    if any(c.proxy for c in cases):
        result["proxy"] = [c.name for c in cases if c.proxy]
    result["health"] = corpus_health(result)
    return result


def _mark_against_baseline(rows: list[dict], spanned: list[list[dict]], n_cases: int) -> None:
    """Gains, recall checks and paired bootstrap intervals against rows[0], pooled and per document
    (`spanned[i]`: row i's question scores that have token measures, in the same question order)."""
    groups = [q["case"] for q in spanned[0]]
    pooled = PairedBootstrap(groups)
    picks = [[i for i, g in enumerate(groups) if g == n] for n in range(n_cases)]  # each case's questions
    per_case = [PairedBootstrap([0] * len(pick)) for pick in picks]
    paired = [*PAIRED, *(k for k in budget_measures(spanned[0]) if k.startswith("budget_recall@"))]
    base_q = {key: [q[key] for q in spanned[0]] for key in paired}
    for row, qs in zip(rows, spanned):
        values = {key: [q[key] for q in qs] for key in paired}
        _mark(row, rows[0], pooled, values, base_q, row is rows[0])
        for n, (doc, pick) in enumerate(zip(row["documents"], picks)):
            _mark(doc, rows[0]["documents"][n], per_case[n], {k: [v[i] for i in pick] for k, v in values.items()},
                  {k: [v[i] for i in pick] for k, v in base_q.items()}, row is rows[0])


def _mark(row: dict, base: Mapping[str, Any], boot: PairedBootstrap, values: Mapping[str, list],
          reference: Mapping[str, list], is_base: bool) -> None:
    row["iou_gain"] = _gain(row["token_iou"], base["token_iou"])
    row["recall_ok"] = (row["token_recall"] or 0) >= (base["token_recall"] or 0)
    gain = recall = se = None
    if not is_base and boot.size:
        gain = boot.gain_interval(values["token_iou"], reference["token_iou"])
        recall = boot.difference_interval(values["token_recall"], reference["token_recall"])
        se = difference_se(values["token_recall"], reference["token_recall"])
    row["iou_gain_ci"] = list(gain) if gain else None
    row["recall_diff_ci"] = list(recall) if recall else None
    row["recall_diff_se"] = se
    row["budget_recall_diff_ci"] = {
        key.rpartition("@")[2]: list(boot.difference_interval(values[key], reference[key]))
        for key in values if key.startswith("budget_recall@") and not is_base and boot.size}


def beats_baseline(row: Mapping[str, Any], by: float = 0.0) -> bool:
    """Whether a marked row (pooled, or one document's) wins against its baseline: token recall at
    least the baseline's and more token IoU, by at least `by` as a relative gain (e.g. 0.2)."""
    gain = row["iou_gain"] or 0.0
    return bool(row["recall_ok"]) and gain > 0 and gain >= by - 1e-9


def clears_margin(row: Mapping[str, Any], base: Mapping[str, Any], margin: RecallMargin | None) -> bool:
    """Whether a marked row's token recall is above the baseline's by `margin` (always, without one)."""
    return margin is None or _short_of(row, base, margin) >= -1e-9


def _best(rows: Sequence[Mapping[str, Any]], margin: RecallMargin | None = None) -> str | None:
    """The highest-IoU chunkbench row after the first (the baseline) that beats it, by the recall
    `margin` when given; another splitter row (the baseline indexed differently, a reference) is
    never the best."""
    eligible = [r for r in candidates(rows[1:]) if beats_baseline(r) and clears_margin(r, rows[0], margin)]
    best = max(eligible, key=lambda r: (r["token_iou"], r["token_recall"]), default=None)
    return best["setting"] if best else None


def candidates(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows of chunkbench settings: those that can be named best or closest."""
    return [r for r in rows if r.get("strategy") != BASELINE]


def compare_retrievers(cases: Sequence[Case], settings: Sequence[Setting], base: Setting | None = None,
                       token_k: int = TOKEN_K, retrievers: Sequence[str] = ("bm25",),
                       units_cache: dict | None = None, margin: RecallMargin | None = None,
                       questions_out: dict | None = None, pooled: bool = False,
                       budget: BudgetSpec | None = None) -> list[dict[str, Any]]:
    """compare_settings once per retriever, every document cut once per setting (`units_cache`,
    when given, keeps the cut documents for the caller's later calls; `questions_out`, each
    setting's per-question rows by retriever, then setting name)."""
    cache: dict = {} if units_cache is None else units_cache
    return [compare_settings(cases, settings, base, token_k, r, cache, margin=margin,
                             questions_out=questions_out.setdefault(r, {}) if questions_out is not None else None,
                             pooled=pooled, budget=budget)
            for r in retrievers]


def miss_setting(result: Mapping[str, Any], settings: Sequence[Setting], wanted: str = "best") -> Setting | None:
    """The setting whose retrieval misses to explain: `wanted` by its name in the table, or "best"
    (the best setting, else the one with the most token IoU). The baseline has no chunk
    boundaries to blame, so it is never chosen; an unknown name is a usage error listing the names."""
    by_name = {s.name: s for s in settings if s.strategy is not None}
    if wanted != "best":
        if wanted not in by_name:
            raise UsageError(f"--misses {wanted!r} is not a setting of this evaluation; one of: "
                             f"{', '.join(by_name) or 'none'}")
        return by_name[wanted]
    rows = [r for r in candidates(result["rows"][1:]) if r["token_iou"] is not None]
    closest = max(rows, key=lambda r: r["token_iou"], default=None)
    name = result["best"] or (closest["setting"] if closest else None)
    return by_name.get(name) if name else None


def misses_of(setting: Setting, cases: Sequence[Case], retriever: str = "bm25", token_k: int = TOKEN_K,
              scored: Sequence[Mapping[str, Any]] | None = None) -> list:
    """For each case: (the setting's ChunkSet, its retrieval misses, how many questions were judged).
    `scored`, the setting's per-question rows of the same cases as score_questions gave them (with
    `case`), spares ranking every question again (a dense index embeds every chunk)."""
    from chunkbench.strategies import chunk

    from ..misses import find_misses, judged

    by_case: list[list[Mapping[str, Any]]] = [[] for _ in cases]
    for row in scored or ():
        by_case[row["case"]].append(row)
    out = []
    for case, rows in zip(cases, by_case):
        cs = chunk(case.doc, str(setting.strategy), **setting.strategy_params)
        out.append((cs, find_misses(cs, case.resolved, retriever, token_k, setting.indexing,
                                    rows=rows if scored is not None else None),
                    judged(case.resolved)))
    return out


def _gain(value: float | None, reference: float | None) -> float | None:
    if value is None or not reference:
        return None
    return round(value / reference - 1.0, 4)


def result_margin(result: Mapping[str, Any]) -> RecallMargin | None:
    """The recall margin the best of `result` was chosen with (compare_scored), or None."""
    spec = result.get("recall_margin")
    return None if spec is None else RecallMargin(spec["amount"], spec["unit"])


def _short_of(row: Mapping[str, Any], base: Mapping[str, Any], margin: RecallMargin | None) -> float:
    """A row's token recall above the baseline's, less the margin it needs (negative: short of it)."""
    above = (row["token_recall"] or 0) - (base["token_recall"] or 0)
    return above - (0.0 if margin is None else margin.needed(row.get("recall_diff_se")))
