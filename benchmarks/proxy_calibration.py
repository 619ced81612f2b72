"""How far the label-free proxy score can be trusted (issue 54): each method's ranking of a grid of
settings against the real questions' ranking, per document.

    python -m benchmarks.proxy_calibration [--methods cloze,keywords] [--questions all] [--seeds 0]
                                           [--chroma DIR] [-o FILE.md]

For every document of the project's retrieval corpus (tests/data/retrieval, 762 questions with
`--questions all`; `--chroma DIR`: Chroma's general benchmark or any corpus in its format) and
every setting of the grid (benchmarks/retrieval_public.py's 69, `recursive` 100-900 characters
plain and with each index parameter, `sentences` with index context, and each own strategy at its
defaults), the real token IoU and recall (BM25, top 5) and the proxy's, on the document's own
queries. Per document: Kendall's tau between the proxy's token IoU and the real one over the grid,
and the regret of the label-free pick (the highest proxy IoU at the 200-character splitter's proxy
recall) against the question-picked best (the highest real IoU at the splitter's real recall, as
a sweep picks): the real token IoU it loses (relative) and the real recall (points). BM25: about
two minutes per method here."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

from chunkbench.evaluate.benchmark import Case, Setting, baseline, score_questions, units_for
from chunkbench.evaluate.calibration import Regret, regret
from chunkbench.evaluate.proxy import METHODS, TooShort, make_queries, score_units

from .retrieval_public import chroma_cases, emit, grid, load_cases

#: the own strategies at their defaults, beside the retrieval grid (a user's sweep compares them)
STRATEGY_ROWS = tuple(Setting(s, {}) for s in ("elements", "sections", "sentences", "tokens", "contract", "headers"))


def settings() -> list[Setting]:
    """The grid ranked: the retrieval grid, the own strategies at their defaults, the splitter."""
    return [*grid(), *STRATEGY_ROWS, baseline(200), baseline(400), baseline(800, 400)]


def calibrate(cases: Sequence[Case], methods: Sequence[str], seeds: Sequence[int], retriever: str = "bm25"):
    """{method: [Regret per document (and seed)]} and the rows (document, setting, real, proxy)."""
    grid_settings = settings()
    floor = baseline(200)
    cache: dict = {}
    real = {s.name: score_questions(s, cases, 5, retriever, cache)[0]["documents"] for s in [*grid_settings, floor]}
    out: dict[str, list[Regret]] = {m: [] for m in methods}
    rows = []
    for n, case in enumerate(cases):
        plain = {s.name: units_for(Setting(s.strategy, s.strategy_params), case.doc) for s in [*grid_settings, floor]}
        for method in methods:
            for seed in seeds:
                try:
                    queries = make_queries(case.doc, method, seed)
                except TooShort as exc:
                    print(f"  {exc}")
                    continue
                proxy = {s.name: score_units(plain[s.name], queries, case.doc, s.indexing, retriever)
                         for s in [*grid_settings, floor]}
                names = [s.name for s in grid_settings]
                r = regret(case.name, names, [real[x][n] for x in names], [proxy[x] for x in names],
                           real[floor.name][n]["token_recall"], proxy[floor.name]["token_recall"])
                out[method].append(r)
                rows.extend({"document": case.name, "method": method, "seed": seed, "setting": x,
                             "real_iou": real[x][n]["token_iou"], "real_recall": real[x][n]["token_recall"],
                             "proxy_iou": proxy[x]["token_iou"], "proxy_recall": proxy[x]["token_recall"]}
                            for x in names)
    return out, rows


def markdown(results: dict[str, list[Regret]], label: str, seconds: float) -> str:
    lines = [f"## {label}", "",
             "| method | document | tau | IoU lost | recall lost (points) | label-free pick | question-picked best |",
             "|---|---|---|---|---|---|---|"]
    for method, regrets in results.items():
        for r in regrets:
            tau = "-" if r.tau is None else f"{r.tau:.2f}"
            lines.append(f"| {method} | {r.document} | {tau} | {r.iou_loss:.0%} | {r.recall_loss:.1f} | "
                         f"`{r.label_free}` | `{r.question_picked}` |")
        taus = [r.tau for r in regrets if r.tau is not None]
        if regrets:
            lines.append(f"| **{method}** | **mean of {len(regrets)}** | **{statistics.mean(taus):.2f}** | "
                         f"**{statistics.mean(r.iou_loss for r in regrets):.0%}** | "
                         f"**{statistics.mean(r.recall_loss for r in regrets):.1f}** | | |")
    lines += ["", f"({len(settings()) - 3} settings, BM25 top 5; {seconds:.0f} s)", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--questions", default="all", help="the question set of the project's corpus (retrieval_public)")
    ap.add_argument("--seeds", default="0", help="comma-separated seeds of the proxy queries")
    ap.add_argument("--chroma", default=None, metavar="DIR", help="a corpus in Chroma's format instead")
    ap.add_argument("-o", "--output", default=None)
    args = ap.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    seeds = [int(s) for s in args.seeds.split(",")]
    if args.chroma:
        cases, label = chroma_cases(ap, args.chroma), f"Chroma-format corpus {args.chroma}"
    else:
        cases = load_cases((args.questions,))[args.questions]
        label = f"The project's corpus ({args.questions} questions)"
    started = time.monotonic()
    results, _ = calibrate(cases, methods, seeds)
    emit(markdown(results, label, time.monotonic() - started), args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
