"""The tables gold scores are read in: the parse per document, the cuts per setting, and recall
per question kind at each budget. `chunkbench evaluate --gold` prints them and benchmarks/gold_public.py
writes them into docs/gold.md; one formatter for both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chunkbench.evaluate.benchmark.formats import markdown_table

from .cuts import CUT_SCORES
from .parse import PARSE_SCORES
from .questions import QUESTION_KINDS

#: the short column names of the tables (the score names are long)
PARSE_COLUMNS = {"located": "placed", "text_coverage": "text", "heading_recall": "head R",
                 "heading_precision": "head P", "level_agreement": "levels", "note_titles_as_headings": "notes as H",
                 "table_recall": "tables R", "table_precision": "tables P", "cell_accuracy": "cells",
                 "header_rows_kept": "header rows", "list_items": "items", "reading_order": "order"}
CUT_COLUMNS = {"paragraphs_cut": "¶ cut", "items_cut": "items cut", "rows_cut": "rows cut",
               "rows_without_header": "rows w/o header", "leadins_apart": "lead-ins apart",
               "chunks_crossing_sections": "over a section", "section_paths_agree": "paths agree"}
assert set(PARSE_COLUMNS) == set(PARSE_SCORES) and set(CUT_COLUMNS) == set(CUT_SCORES)


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def parse_table(rows: Sequence[tuple[str, Mapping[str, float | None]]]) -> str:
    """One row per (label, parse scores): every PARSE_SCORES column, in percent."""
    return markdown_table(["parse", *PARSE_COLUMNS.values()],
                          [[label, *(pct(scores.get(k)) for k in PARSE_COLUMNS)] for label, scores in rows])


def cuts_table(results: Sequence[Mapping[str, Any]], labels: Sequence[str] | None = None) -> str:
    """One row per setting's score_on_gold result: its units, mean size and every cut score, in percent."""
    labels = labels or [r["setting"] for r in results]
    return markdown_table(["setting", "chunks", "mean chars", *CUT_COLUMNS.values()],
                          [[label, f"{r['units']:,}", f"{r['mean_chars']:,.0f}", *(pct(r["cuts"].get(k)) for k in CUT_COLUMNS)]
                           for label, r in zip(labels, results)])


def recall_table(results: Sequence[Mapping[str, Any]], budget: int, labels: Sequence[str] | None = None) -> str:
    """Recall at `budget` tokens per question kind, then over every question, one row per setting;
    the questions of each kind in the head."""
    labels = labels or [r["setting"] for r in results]
    counts = results[0]["questions"] if results else {}
    head = ["setting", *(f"{kind} ({counts.get(kind, 0)})" for kind in QUESTION_KINDS),
            f"all ({sum(counts.values())})"]
    return markdown_table(head, [[label, *(pct(r["recall"][kind].get(str(budget))) for kind in QUESTION_KINDS),
                                  pct(r.get("recall_all", {}).get(str(budget)))]
                                 for label, r in zip(labels, results)])


def format_gold_report(parse_rows: Sequence[tuple[str, Mapping[str, float | None]]],
                       results: Sequence[Mapping[str, Any]], budgets: Sequence[int],
                       giveaway: float | None, labels: Sequence[str] | None = None) -> str:
    """The whole report: the parse, the cuts, recall per kind at each budget, and how many questions
    the heading words alone find."""
    retriever = results[0]["retriever"] if results else "bm25"
    parts = ["Parse against the twin (percent):", "", parse_table(parse_rows), "",
             "Cuts against the twin (percent; lower is better but for paths agree):", "",
             cuts_table(results, labels)]
    for budget in budgets:
        parts += ["", f"Recall at {budget:,} tokens per question kind ({retriever}; questions per kind in brackets):",
                  "", recall_table(results, budget, labels)]
    if giveaway is not None:
        parts += ["", f"Questions the heading words above their evidence alone find: {100 * giveaway:.1f}% "
                      f"(kept under 10%: questions are made of the evidence's own words)"]
    return "\n".join(parts)
