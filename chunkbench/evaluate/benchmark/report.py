"""The benchmark's tables and lines as text: the settings, the documents, the summary, the proxy and hold-out lines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chunkbench.io.return_policy import POLICIES

from ..calibration import caveat
from ..intervals import excludes_zero
from ..margin import RecallMargin
from ..retrieval.budget import budget_measures
from ..settings import BASELINE, Setting
from .baseline import equally_indexed
from .compare import _gain, _short_of, candidates, clears_margin, result_margin
from .formats import _count, _interval, _listed, _num, _pct, _points, _signed, markdown_table
from .scoring import MEASURES


def format_table(result: Mapping[str, Any]) -> str:
    """The pooled comparison as a Markdown table, the best setting marked with `*`; each difference
    from the baseline with its 95% interval."""
    head = ["setting", "units", "mean chars", *MEASURES, "IoU vs baseline", "IoU 95% CI", "recall Δ 95% CI"]
    return markdown_table(head, [[row["setting"] + (" *" if row["setting"] == result["best"] else ""), str(row["units"]),
                          f"{row['mean_chars']:.0f}", *(_pct(row[k]) if k != "mrr" else _num(row[k]) for k in MEASURES),
                          *_against(row, row["setting"] == result["baseline"])] for row in result["rows"]])


def format_budget_table(result: Mapping[str, Any]) -> str:
    """Recall at each context budget (retrieval.budget) per setting, the tokens sent at each, and
    the difference from the baseline with its 95% interval; "" when no budget was measured."""
    budgets = [k.rpartition("@")[2] for k in budget_measures(result["rows"]) if k.startswith("budget_recall@")]
    if not budgets:
        return ""
    head = ["setting", *(f"recall@{b}" for b in budgets), *(f"tokens@{b}" for b in budgets),
            *(f"recall@{b} Δ 95% CI" for b in budgets)]
    body = [[row["setting"], *(_pct(row.get(f"budget_recall@{b}")) for b in budgets),
             *(_tokens(row.get(f"budget_tokens@{b}")) for b in budgets),
             *(("baseline" if row["setting"] == result["baseline"] else
                _interval((row.get("budget_recall_diff_ci") or {}).get(b), _points)) for b in budgets)]
            for row in result["rows"]]
    policy = result.get("budget_policy", "hits")
    return (f"At a context budget (cl100k tokens sent per question, return policy `{policy}`: "
            f"{POLICIES.get(policy, '')}):\n\n{markdown_table(head, body)}")


def _tokens(v: float | None) -> str:
    return "-" if v is None else f"{v:,.0f}"


def format_documents(result: Mapping[str, Any]) -> str:
    """One Markdown table per document (corpus): each setting's units, token recall and IoU there,
    the difference from the baseline with its 95% interval, that document's best marked `*`."""
    parts = []
    for n, doc in enumerate(result["documents"]):
        head = ["setting", "units", "mean chars", "token_recall", "token_iou", "IoU vs baseline", "IoU 95% CI",
                "recall Δ 95% CI"]
        body = [[row["setting"] + (" *" if row["setting"] == doc["best"] else ""), str(d["units"]),
                 f"{d['mean_chars']:.0f}", _pct(d["token_recall"]), _pct(d["token_iou"]),
                 *_against(d, row["setting"] == result["baseline"])]
                for row in result["rows"] for d in [row["documents"][n]]]
        parts.append(f"### {doc['source']} ({doc['questions']} questions, {doc['chars']:,} chars)\n\n"
                     f"{markdown_table(head, body)}\n\n{_document_line(result, n)}")
    return "\n\n".join(parts)


def _against(row: Mapping[str, Any], is_base: bool) -> list[str]:
    """The three 'against the baseline' cells of a row: gain, its interval, the recall interval."""
    if is_base:
        return ["baseline", "", ""]
    return [_signed(row["iou_gain"]), _interval(row["iou_gain_ci"], _signed),
            _interval(row["recall_diff_ci"], _points)]


def _document_line(result: Mapping[str, Any], n: int) -> str:
    """The summary of one document: its best setting, or that none wins there."""
    rows = [{**r["documents"][n], "setting": r["setting"], "strategy": r["strategy"]} for r in result["rows"]]
    doc = result["documents"][n]
    return summary_line({**result, "rows": rows, "best": doc["best"], "documents": [doc]})


def summary_line(result: Mapping[str, Any]) -> str:
    """One sentence: the best setting, its IoU gain and that gain's 95% interval, or plainly that
    none beats the baseline (with the recall margin, when the choice had one)."""
    rows = {r["setting"]: r for r in result["rows"]}
    base = rows[result["baseline"]]
    margin = result_margin(result)
    by = "" if margin is None else f" by the margin of {margin}"
    if result["best"] is None:
        others = [r for r in candidates(result["rows"]) if r["token_iou"] is not None]
        near = max((r for r in others if r["recall_ok"] and clears_margin(r, base, margin)),
                   key=lambda r: r["token_iou"], default=None)
        if near is None:
            line = f"no setting wins: none reached the baseline's token recall ({_pct(base['token_recall'])}){by}"
            most = max(others, key=lambda r: (_short_of(r, base, margin), r["token_iou"]), default=None)
            return line if most is None else f"{line}; closest: {_recall_gap(most, base, margin)}"
        return (f"no setting wins: none has more token IoU than the baseline ({_pct(base['token_iou'])}) at its "
                f"token recall ({_pct(base['token_recall'])}){by}; closest: {near['setting']}, IoU "
                f"{_pct(near['token_iou'])} ({_signed(near['iou_gain'])}) at recall {_pct(near['token_recall'])}")
    best = rows[result["best"]]
    sure = _interval_note(best.get("iou_gain_ci"), _signed)
    above = "" if margin is None else (
        f", above it{by}: {_points(margin.needed(best.get('recall_diff_se')))} needed")
    alike = _indexed_alike(best, base, rows)
    if alike is not None:
        above += (f"; the splitter indexed alike (the recipe without the cut): IoU {_pct(alike['token_iou'])} at "
                  f"recall {_pct(alike['token_recall'])}, so the cut adds {_signed(_gain(best['token_iou'], alike['token_iou']))}")
    own, documents = len(result.get("proxy") or ()), len(result["documents"])
    asked = ("questions" if not own else "queries made from the documents' own text" if own >= documents
             else f"questions and queries ({own} of the {documents} documents had no questions: theirs are made "
                  "from their own text)")
    line = (f"best: {best['setting']}: token IoU {_pct(best['token_iou'])} vs {_pct(base['token_iou'])} "
            f"({_signed(best['iou_gain'])}{sure}), token recall {_pct(best['token_recall'])} vs "
            f"{_pct(base['token_recall'])}{above} ({_count(len(result['documents']), 'document')}, "
            f"{best['questions']} {asked}, {result.get('retriever', 'bm25')} top {result['token_k']})")
    return line if not result.get("proxy") else f"{line}\n{caveat()}"


def _indexed_alike(row: Mapping[str, Any], base: Mapping[str, Any], rows: Mapping[str, Mapping[str, Any]]):
    """The row of the baseline splitter indexed as `row` is (equally_indexed), when it was scored."""
    if row.get("strategy") in (None, BASELINE):
        return None
    setting = Setting(row["strategy"], row.get("params") or {})
    pair = equally_indexed([setting], Setting(None, base.get("params") or {}))
    return rows.get(pair[1].name) if len(pair) == 2 else None


def proxy_line(result: Mapping[str, Any]) -> str:
    """What a comparison without questions files rests on, said before its table; "" with questions."""
    names = result.get("proxy") or []
    if not names:
        return ""
    return (f"No questions file for {_listed(names)}: scored on queries each document makes of itself (the most "
            f"distinctive words of a passage, the passage as evidence: docs/proxy.md). A questions file of your "
            f"own is the better judge (docs/proxy.md#write-a-questions-file).")


def holdout_line(check: Mapping[str, Any] | None) -> str:
    """The held-out check of the best setting (chunkbench.evaluate.holdout) in one sentence: its
    scores on the questions its choice never saw, and whether it still wins there."""
    if check is None:
        return ("held-out check: no setting won on the questions the choice was made on, so there is "
                "nothing to check")
    recall = (check["token_recall"] or 0) - (check["baseline_token_recall"] or 0)
    verdict = ("the win holds" if check["holds"] else "the win does not hold: " +
               ("less token recall than the baseline" if recall < 0 else "no more token IoU than the baseline"))
    return (f"held-out check: {check['setting']}, chosen on {check['chosen_on']} questions, on the "
            f"{check['questions']} held out: token IoU {_pct(check['token_iou'])} vs "
            f"{_pct(check['baseline_token_iou'])} ({_signed(check['iou_gain'])}"
            f"{_interval_note(check['iou_gain_ci'], _signed)}), token recall {_pct(check['token_recall'])} vs "
            f"{_pct(check['baseline_token_recall'])} ({_points(recall)}"
            f"{_interval_note(check['recall_diff_ci'], _points)}): {verdict}")


def _recall_gap(row: Mapping[str, Any], base: Mapping[str, Any], margin: RecallMargin | None = None) -> str:
    """The setting with the most recall when none reaches the baseline's (plus the margin): how far
    short, whether that can be told from chance, and the IoU it has there."""
    short = _points((row["token_recall"] or 0) - (base["token_recall"] or 0))
    sure = _interval_note(row.get("recall_diff_ci"), _points)
    needed = "" if margin is None else f"; {_points(margin.needed(row.get('recall_diff_se')))} needed"
    return (f"{row['setting']}, recall {_pct(row['token_recall'])} ({short}{sure}{needed}) "
            f"at IoU {_pct(row['token_iou'])} ({_signed(row['iou_gain'])})")


def _interval_note(ci: Sequence[float] | None, fmt) -> str:
    """", 95% CI a to b", with ": not beyond chance" when the interval holds 0; "" without one."""
    return "" if ci is None else (f", 95% CI {_interval(ci, fmt)}" + ("" if excludes_zero(ci) else ": not beyond chance"))


def format_report(result: Mapping[str, Any], per_document: bool = True) -> str:
    """The whole comparison as Markdown: the pooled table and its summary, the corpus-health
    warnings, and with several documents a table per document (`per_document`) or a line each."""
    chosen = ", the questions not held out" if "holdout" in result else ""  # the choice is made on them
    said = f"{proxy_line(result)}\n\n" if result.get("proxy") else ""
    if result.get("protocol"):
        said += f"Protocol: {result['protocol']}.\n\n"
    parts = [f"## {result.get('retriever', 'bm25')} top {result['token_k']}: all documents{chosen}\n\n"
             f"{said}{format_table(result)}\n\n{summary_line(result)}"]
    budgets = format_budget_table(result)
    if budgets:
        parts[0] += f"\n\n{budgets}"
    if "holdout" in result:
        parts[0] += f"\n\n{holdout_line(result['holdout'])}"
    if result.get("health"):
        parts.append("Corpus health:\n" + "\n".join(f"- {w}" for w in result["health"]))
    if len(result["documents"]) > 1:
        parts.append(format_documents(result) if per_document else "Per document:\n" + "\n".join(
            f"- {doc['source']}: {_document_line(result, n)}" for n, doc in enumerate(result["documents"])))
    return "\n\n".join(parts)
