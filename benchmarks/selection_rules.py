"""How often a best setting chosen on some questions still wins on others, per recall margin.

    python -m benchmarks.selection_rules [--chroma DIR] [--splits 40] [--margins 0se,0.5se,1se,1pt,2pt]
                                         [--retriever bm25|dense] [--small] [--headings] [--only TEXT]
                                         [-o FILE.md]

`chunkbench evaluate` names as best the highest-IoU setting whose token recall is at least the
baseline's (`--recall-margin M`: at least the baseline's plus M). Such a best is chosen on the very
questions it is scored on. Here every document's questions are split at random, 60% to choose on
and 40% to check on, N times (seeded). Each split, each recall margin picks its best among a grid
of about 70 settings (`recursive` 100-900 characters, each plain, with index context, also indexed
alone, also by sentence pieces; `sentences` with index context; `--headings`: each also indexed
under the headings above its chunks) against the sentence splitter at
each size of issue 19.5. The table counts, per size and margin: the splits where a best was named,
those where it still wins on the held-out questions (no less token recall, more IoU), those where
it also keeps issue 19.5's 1.2x IoU there, the named bests that lose (false wins), and the mean
IoU gain and recall difference of the picks on the held-out questions. Top 5, BM25 by default:
every setting is scored once per question, and each split reuses those scores
(benchmark.compare_scored), so the whole run takes a few minutes. `--retriever dense --small`
(18 settings, `recursive` 150-400 plain, with index context, also indexed alone; `--only "200
characters,400 characters"`, the two sizes they can meet) takes about 20 minutes: dense retrieval
embeds each setting's index texts.
On the project's corpus (tests/data/retrieval, all 762 questions) by default; `--chroma DIR` runs
it on Chroma's general benchmark (as benchmarks/retrieval_public.py --chroma)."""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

from chunkbench.errors import UsageError
from chunkbench.evaluate.benchmark import (
    Case,
    Setting,
    baseline,
    beats_baseline,
    compare_scored,
    pooled_measures,
    score_questions,
)
from chunkbench.evaluate.holdout import held_count
from chunkbench.evaluate.margin import RecallMargin

from .retrieval_public import GOAL_GAIN, chroma_cases, emit, grid, load_cases, with_heading_rows

#: the splitter of each size of issue 19.5's goal
BASELINES = (("200 characters", baseline(200)), ("400 characters", baseline(400)),
             ("800 characters, overlap 400", baseline(800, 400)), ("200 cl100k tokens", baseline(200, unit="tokens")))
#: the recall margins compared by default (docs/evaluation.md's table shows 0se and 1se)
MARGINS = "0se,0.5se,1se,1pt,2pt"
#: share of each document's questions the choice is checked on
HELD = 0.4


def part(scored: tuple[dict, list[dict]], picks: Sequence[Sequence[int]]) -> tuple[dict, list[dict]]:
    """One setting's (row, question scores) restricted to the questions `picks[n]` of each case n:
    the row pooled again over them, overall and per document (unit counts unchanged)."""
    row, questions = scored
    by_case: list[list[dict]] = [[] for _ in picks]
    for q in questions:
        by_case[q["case"]].append(q)
    kept = [[by_case[n][i] for i in pick] for n, pick in enumerate(picks)]
    documents = [{**d, **pooled_measures(k, d["units"], d["units"] * d["mean_chars"])}
                 for d, k in zip(row["documents"], kept)]
    flat = [q for k in kept for q in k]
    return {**row, **pooled_measures(flat, row["units"], row["units"] * row["mean_chars"]),
            "documents": documents}, flat


def split(cases: Sequence[Case], seed: int) -> tuple[list[list[int]], list[list[int]]]:
    """(questions to choose on, questions held out): per case, positions of its questions, HELD of
    them held out at random (seeded)."""
    rng = random.Random(seed)
    choose, held = [], []
    for case in cases:
        order = list(range(len(case.resolved)))
        rng.shuffle(order)
        k = held_count(len(order), HELD)
        held.append(sorted(order[:k]))
        choose.append(sorted(order[k:]))
    return choose, held


def subcases(cases: Sequence[Case], picks: Sequence[Sequence[int]]) -> list[Case]:
    return [c.keeping(pick) for c, pick in zip(cases, picks)]


def rule_rows(cases: Sequence[Case], scores: dict[str, tuple[dict, list[dict]]], base: Setting,
              settings: Sequence[Setting], margins: Sequence[RecallMargin], splits: int,
              retriever: str = "bm25") -> list[list[str]]:
    """One table row per margin: how its bests fared on the held-out questions over `splits` splits."""
    tallies: dict[RecallMargin, dict] = {m: {"named": 0, "holds": 0, "goal": 0, "gains": [], "recall": []}
                                         for m in margins}
    for seed in range(splits):
        choose, held = split(cases, seed)
        chosen_on = [part(scores[s.name], choose) for s in (base, *settings)]
        for margin in margins:
            best = compare_scored(chosen_on, subcases(cases, choose), 5, retriever, margin)["best"]
            if best is None:
                continue
            t = tallies[margin]
            t["named"] += 1
            check = compare_scored([part(scores[base.name], held), part(scores[best], held)],
                                   subcases(cases, held), 5, retriever)["rows"]
            t["holds"] += beats_baseline(check[1])
            t["goal"] += beats_baseline(check[1], GOAL_GAIN)
            t["gains"].append(check[1]["iou_gain"] or 0.0)
            t["recall"].append(check[1]["token_recall"] - check[0]["token_recall"])
    rows = []
    for margin, t in tallies.items():
        mean = statistics.mean
        rows.append([str(margin), f"{t['named']} of {splits}", str(t["holds"]), str(t["goal"]),
                     str(t["named"] - t["holds"]),
                     f"{mean(t['gains']):+.0%}" if t["gains"] else "-",
                     f"{100 * mean(t['recall']):+.1f} pt" if t["recall"] else "-"])
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chroma", default=None, metavar="DIR",
                    help="Chroma's general benchmark (DIR with questions_df.csv and corpora/) instead of the "
                         "project's corpus")
    ap.add_argument("--splits", type=int, default=40, help="random 60/40 splits of the questions (default 40)")
    ap.add_argument("--margins", default=MARGINS, help=f"recall margins compared (default {MARGINS})")
    ap.add_argument("--retriever", default="bm25", choices=("bm25", "dense"))
    ap.add_argument("--small", action="store_true",
                    help="the small grid (18 settings: recursive 150-400, plain, with index context, also indexed "
                         "alone), for dense")
    ap.add_argument("--headings", action="store_true",
                    help="also every setting of the grid indexed under the headings above each chunk "
                         "(index_headings=true): twice the settings")
    ap.add_argument("--only", default=None, metavar="TEXT",
                    help="only the splitter sizes whose label contains TEXT, or one of several, comma-separated "
                         "(e.g. '200 characters,400 characters')")
    ap.add_argument("-o", "--output", default=None, help="write the Markdown here (default: print it)")
    args = ap.parse_args(argv)
    wanted = None if args.only is None else args.only.split(",")
    blocks = [(label, base) for label, base in BASELINES if wanted is None or any(w in label for w in wanted)]
    if not blocks:
        ap.error(f"--only {args.only!r} matches none of: " + "; ".join(label for label, _ in BASELINES))
    if args.splits < 1:
        ap.error("--splits must be at least 1")
    try:
        margins = [RecallMargin.parse(m, "--margins") for m in args.margins.split(",")]
    except UsageError as e:
        ap.error(str(e))
    started = time.perf_counter()
    if args.chroma:
        cases = chroma_cases(ap, args.chroma)
        name = "Chroma's general benchmark"
    else:
        cases = load_cases(("all",))["all"]
        name = "the project's corpus (all question sets)"
    settings = list(with_heading_rows(grid(args.small)) if args.headings else grid(args.small))
    units: dict = {}
    scores = {}
    for s in [*(b for _, b in blocks), *settings]:
        scores[s.name] = score_questions(s, cases, 5, args.retriever, units)
        print(f"  {s.name}: {time.perf_counter() - started:.0f} s", flush=True)
    print(f"scored {len(scores)} settings: {time.perf_counter() - started:.0f} s", flush=True)
    n = sum(len(c.resolved) for c in cases)
    head = ["recall margin", "best named", "still wins held out", "and keeps 1.2× IoU", "false wins",
            "held-out IoU gain", "held-out recall Δ"]
    parts = [f"# Selection rules on {name}\n\n{n} questions on {len(cases)} documents; {args.splits} random "
             f"splits, {1 - HELD:.0%} to choose on and {HELD:.0%} held out; {args.retriever} top 5; "
             f"{len(settings)} settings."]
    for label, base in blocks:
        rows = rule_rows(cases, scores, base, settings, margins, args.splits, args.retriever)
        table = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        table += ["| " + " | ".join(r) + " |" for r in rows]
        parts.append(f"## Against the splitter at {label}\n\n" + "\n".join(table))
        print(f"{label}: {time.perf_counter() - started:.0f} s", flush=True)
    emit("\n\n".join(parts) + "\n", args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
