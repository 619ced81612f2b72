"""Benchmark 16: gold from a structured twin (docs/gold.md), the quick rows of `benchmarks.gold_public`
with BM25 on the five tuned PDF/HTML pairs: the share of each document's twin blocks placed (target
at least 95%), the questions the heading words alone find (target under 10%), and how long placing,
scoring and the rows take once the parses are cached (target: the whole benchmark within 10 minutes;
measured here for the quick rows, and the full table's time is in docs/gold.md). The full table is
`python -m benchmarks.gold_public [--retriever both] [--parsers default,mineru]`."""

from __future__ import annotations

import time

from chunkbench.evaluate.retrieval.budget import BUDGETS

from .common import Row
from .gold_public import LOCATED_GOAL, PEERS, QUICK, available, load_parse, measure, own_rows, pairs

SECTION = "16. gold from a structured twin"
#: the share of questions the heading words alone may find
GIVEAWAY_GOAL = 0.10


def run() -> tuple[list[Row], list[str]]:
    documents = pairs("tuned")
    for d in documents:  # parse first (the parse cache): the target is for cached parses
        load_parse(d["pdf"], "default")
    rows_in = [r for r in [*available(own_rows()), *available(PEERS)] if r[0] in QUICK]
    started = time.perf_counter()
    found = measure(documents, ["default"], ["bm25"], rows_in, BUDGETS)
    seconds = time.perf_counter() - started
    got = found["parsers"]["default"]
    rows = [Row(SECTION, f"{d['name']}: twin blocks placed", 100 * d["summary"]["located"], "%",
                target=f"≥ {100 * LOCATED_GOAL:.0f}%", met=d["summary"]["located"] >= LOCATED_GOAL,
                note=f"{d['summary']['blocks']:,} blocks, {d['pages']} pages, {d['generator']}")
            for d in got["documents"]]
    asked = sum(d["questions"] for d in got["documents"])
    given = sum((d["giveaway"] or 0.0) * d["questions"] for d in got["documents"]) / max(asked, 1)
    rows.append(Row(SECTION, "questions the heading words alone find", 100 * given, "%",
                    target=f"< {100 * GIVEAWAY_GOAL:.0f}%", met=given < GIVEAWAY_GOAL, note=f"{asked} questions"))
    rows.append(Row(SECTION, f"place, score, {len(rows_in)} rows (BM25, parses cached)", seconds, "s",
                    target="≤ 600 s for the full table", met=None,
                    note="the quick rows; the full table's time is in docs/gold.md"))
    by_label = dict(got["results"]["bm25"])
    default, sections = by_label.get("retrieval default"), by_label.get("sections")
    notes = [f"quick rows: {', '.join(label for label, _ in rows_in)}"]
    if default and sections:
        notes.append("recall@1000 section / list_all: retrieval default "
                     f"{100 * (default['recall']['section']['1000'] or 0):.1f} / "
                     f"{100 * (default['recall']['list_all']['1000'] or 0):.1f}%, sections "
                     f"{100 * (sections['recall']['section']['1000'] or 0):.1f} / "
                     f"{100 * (sections['recall']['list_all']['1000'] or 0):.1f}%")
    return rows, notes
