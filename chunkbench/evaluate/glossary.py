"""What each metric means, in one sentence a newcomer can read: shown beside the metrics (sweep
summary, evaluate, notebooks) and generated into docs/guide.md's metrics table.

Retrieval metrics are named `ret_<system>_<measure>`; their meaning is the system's and the
measure's, composed, so every combination is explained without listing it."""

from __future__ import annotations

import re

from chunkbench.evaluate.defects import DEFECT_DOCS
from chunkbench.evaluate.stats import TARGETS_TEXT
from chunkbench.evaluate.verdict import VERDICT_TEXT

#: the main metrics, in the order docs/guide.md lists them
METRICS: dict[str, str] = {
    "chunks": "number of chunks",
    "chars_median": "median chunk length in characters (chars_min/p95/max/mean likewise; tokens_* in cl100k tokens)",
    "targets_passed": f"how many of the 4 quality targets the chunk set meets: {TARGETS_TEXT}",
    "verdict": f"the targets and the defects per 100 chunks in one word: {VERDICT_TEXT}",
    "share_with_pages": "share of chunks that know their pages (share_with_bbox, share_with_source_blocks likewise)",
    "tables_split": "tables cut into two or more chunks with no chunk holding the whole table (lists_split, "
                    "clauses_split likewise)",
    "mid_sentence_share": "share of chunks that end in the middle of a sentence",
    "dependent_start_share": "share of chunks that open inside a paragraph with a sentence that refers back "
                             "(\"This …\", \"But …\", \"However …\"), away from what it refers to",
    "heading_only_chunks": "chunks made of nothing but headings",
    "defects_per_100": "defects a reviewer sees on the page (a lead-in apart from its table, a footnote inside a "
                       "table piece, a table of contents as chunks, a heading left at a chunk's end, a cut "
                       "mid-sentence, …) per 100 chunks; defect_<code> counts each kind per 100 chunks "
                       "(chunkbench.evaluate.defects, docs/defects.md)",
    "text_lost_share": "share of the document's text (outside skipped furniture) that no chunk covers",
    "overlap_share": "share of the covered text that lies in two or more chunks",
    "ret_chunks_recall_at_5": "share of questions whose evidence is in one of the 5 best-ranked chunks",
    "ret_chunks_mrr": "mean reciprocal rank of the first chunk holding the evidence (1 = always first, "
                      "0.5 = second on average)",
    "rev_boundary_f1": "agreement of the chunking's boundaries with reviewers' verdicts on any chunking of the "
                       "document (ok and wrong type: a cut belongs there; should merge, should split elsewhere: "
                       "not): F1 of rev_boundary_precision (cuts at labelled places that are right) and "
                       "rev_boundary_recall (places that need a cut that it cuts at); rev_labels is how many "
                       "labels it rests on",
    "ret_chunks_token_iou": "overlap of the top-5 chunks' text with the evidence span, as intersection over union of "
                            "tokens. Small by design (often 1–10%): five whole chunks are compared with a short "
                            "evidence span, so it rewards chunks that are both on target and short",
    "ret_chunks_token_recall": "share of the evidence's tokens found in the top-5 chunks (the space between two "
                               "of them that abut counts as found)",
    "ret_chunks_token_precision": "share of the top-5 chunks' tokens that are evidence",
    "ret_evidence_located": "share of the questions' evidence texts found in the document (the rest cannot be scored)",
    "proxy_token_iou": "token IoU of the top-5 chunks on queries the document makes of itself (without a questions "
                       "file: the most distinctive words of a three-sentence passage, the passage as evidence; "
                       "evaluate.proxy, docs/proxy.md says how far it ranks settings as real questions do)",
    "proxy_token_recall": "share of the passage's tokens in the top-5 chunks on the document's own queries",
    "proxy_token_precision": "share of the top-5 chunks' tokens that are the passage, on the document's own queries",
    "proxy_recall_at_5": "share of the document's own queries whose passage is in one of the 5 best-ranked chunks",
    "proxy_mrr": "mean reciprocal rank of the first chunk holding the passage, on the document's own queries",
    "proxy_queries": "queries the document made of itself (0: too short for them; proxy_note says so)",
    "proxy_baseline_token_recall": "the 200-character splitter's proxy token recall on the same queries: the floor "
                                   "a label-free best keeps, as a question-picked best keeps the splitter's recall",
}

#: columns of a sweep's results beside the metrics of its points
SWEEP_COLUMNS: dict[str, str] = {
    "recall_floor": "the token recall a sweep's best point by token IoU must keep (by IoU alone the smallest "
                    "chunks would win, however much evidence they miss): by default the token recall of the "
                    "splitter with sentence separators at 200 characters on the same questions; when no point "
                    "keeps it, the best is chosen among those with the highest recall (sweep --recall-floor)",
}

_SYSTEMS = {
    "chunks": "the chunks",
    "elements": "the raw parser elements (no chunking)",
    "baseline": "LangChain's RecursiveCharacterTextSplitter with sentence ends among its separators, at the chunks' mean size",
}
_MEASURES = {
    "recall_at_1": "share of questions whose evidence is in the best-ranked unit",
    "recall_at_3": "share of questions whose evidence is in one of the 3 best-ranked units",
    "recall_at_5": "share of questions whose evidence is in one of the 5 best-ranked units",
    "mrr": "mean reciprocal rank of the first unit holding the evidence",
    "token_iou": "token intersection over union of the top-5 units with the evidence (small by design: whole "
                 "units against a short span)",
    "token_recall": "share of the evidence's tokens in the top-5 units (the space between two of them that abut "
                    "counts as found)",
    "token_precision": "share of the top-5 units' tokens that are evidence",
    "questions_used": "questions scored",
    "units": "units ranked",
}
_RETRIEVAL = re.compile(r"ret_(chunks|elements|baseline)_(\w+)")
#: recall at a context budget and the tokens sent there (evaluate.retrieval.budget)
_BUDGET = re.compile(r"budget_(recall|tokens)_at_(\d+)")
#: the label-free measures (evaluate.proxy) of the chunks, and of the splitter on the same queries
_PROXY = re.compile(r"proxy_(baseline_)?(\w+)")
#: a sweep's gold columns (sweep --gold): a cut score, or recall of a question kind at a budget
_GOLD_RECALL = re.compile(r"gold_(\w+?)_recall_at_(\d+)")


def explain(metric: str) -> str:
    """One sentence on `metric`, or "" when it has none."""
    if metric in METRICS or metric in SWEEP_COLUMNS:
        return METRICS.get(metric) or SWEEP_COLUMNS[metric]
    if metric.startswith("defect_") and metric[len("defect_"):] in DEFECT_DOCS:
        return f"per 100 chunks: {DEFECT_DOCS[metric[len('defect_'):]]}"
    match = _RETRIEVAL.fullmatch(metric)
    if match and match.group(2) in _MEASURES:
        return f"{_MEASURES[match.group(2)]}; units: {_SYSTEMS[match.group(1)]}"
    budget = _BUDGET.fullmatch(match.group(2)) if match else None
    if match and budget:
        what = (f"share of the evidence inside the ranked units sent until {budget.group(2)} cl100k tokens are "
                f"filled (docs/context-budget.md)" if budget.group(1) == "recall" else
                f"cl100k tokens sent per question at a budget of {budget.group(2)}")
        return f"{what}; units: {_SYSTEMS[match.group(1)]}"
    if metric.startswith("gold_"):
        return _gold(metric)
    match = _PROXY.fullmatch(metric)
    if match and match.group(2) in _MEASURES:
        units = _SYSTEMS["baseline"].split(", at")[0] + " at 200 characters" if match.group(1) else "the chunks"
        return f"{_MEASURES[match.group(2)]}, on queries the document makes of itself (docs/proxy.md); units: {units}"
    return ""


def _gold(metric: str) -> str:
    """A gold column's meaning (docs/gold.md): a cut score against the twin, or recall of a question kind."""
    from chunkbench.evaluate.gold.cuts import CUT_SCORES
    from chunkbench.evaluate.gold.questions import QUESTION_KINDS

    name = metric[len("gold_"):]
    if name in CUT_SCORES:
        return f"against the document's structured twin (docs/gold.md): {CUT_SCORES[name]}"
    match = _GOLD_RECALL.fullmatch(metric)
    if match and match.group(1) in QUESTION_KINDS:
        return (f"share of the evidence inside the ranked chunks sent until {match.group(2)} cl100k tokens are filled, "
                f"on questions made from the twin whose evidence is {QUESTION_KINDS[match.group(1)]} (docs/gold.md)")
    return ""


def legend(metrics: list[str]) -> list[tuple[str, str]]:
    """(metric, meaning) for the metrics that have one, in the given order, without repeats."""
    return [(m, explain(m)) for m in dict.fromkeys(metrics) if explain(m)]
