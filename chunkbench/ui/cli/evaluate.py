"""`chunkbench evaluate INPUT... [--strategy S --grid K=V1,V2] [-o DIR]`: settings vs a baseline splitter
on documents with questions and reference spans."""

from __future__ import annotations

import argparse
import os

from chunkbench.evaluate.glossary import explain
from chunkbench.evaluate.retrieval.budget import BudgetSpec
from chunkbench.io.return_policy import POLICIES
from chunkbench.strategies.peers import BASELINE_UNITS

from . import add_set_option, parse_sets

#: printed under every evaluation: small IoU values are expected, not a fault
IOU_NOTE = "token IoU: " + explain("ret_chunks_token_iou") + "."


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="score chunking settings by retrieval of reference spans; compare with a 200-char recursive splitter",
        description=(
            "Each INPUT (a file with <stem>.questions.json beside it, or a folder of such files) is cut by "
            "every setting and by LangChain's RecursiveCharacterTextSplitter; the top-k units retrieved per "
            "question are scored by token-range precision, recall and IoU against the reference spans, plus "
            "recall@k and MRR, pooled over all questions. Without --strategy/--grid a default set of settings "
            "is compared. The best setting is the highest IoU at a token recall no lower than the baseline's "
            "(higher by --recall-margin, if given). An INPUT without a questions file is scored on queries it "
            "makes of itself (the distinctive words of a passage, the passage as evidence), said plainly in "
            "the report with how far such picks can be trusted (docs/proxy.md)."
        ),
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="documents or folders (.txt, .md, .pdf, ...)")
    add_set_option(p)
    p.set_defaults(strategy=None)  # no --strategy, --set or --grid: the default settings
    p.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="swept parameter (repeatable); KEY may be 'strategy', 'index_context': each chunk ranked "
                        "by its text with N chunks before and after it, only the chunk returned, or 'index_alone': "
                        "with index_context, also by its own text alone, the better score kept (also with --set)")
    p.add_argument("--questions", default=None, metavar="FILE",
                   help="questions file of a single INPUT (default: <stem>.questions.json beside it), or a "
                        "Chroma chunking-evaluation CSV (question, references, corpus_id) for every corpus "
                        "file in the INPUT folders")
    p.add_argument("--questions-dir", action="append", default=None, metavar="DIR",
                   help="folder searched first for <stem>.questions.json of each document (an INPUT file, or a "
                        "file of an INPUT folder); repeat it to pool the questions of several folders (e.g. two "
                        "question sets; each question id once)")
    p.add_argument("--pooled", action="store_true",
                   help="search each question in the chunks of every input at once, as Chroma's benchmark does "
                        "(default: in its own document's); both searches are exact; the report says which")
    p.add_argument("--baseline-size", type=int, default=200, metavar="N",
                   help="chunk size of the RecursiveCharacterTextSplitter baseline (default 200), in "
                        "--baseline-unit")
    p.add_argument("--baseline-overlap", type=int, default=0, metavar="N",
                   help="chunk overlap of the baseline (default 0), in --baseline-unit")
    p.add_argument("--baseline-unit", choices=BASELINE_UNITS, default="chars",
                   help="what the baseline's size and overlap count: characters (default) or cl100k tokens")
    p.add_argument("--baseline-index-context", type=int, default=0, metavar="N",
                   help="index each baseline piece with N neighbouring pieces on each side, as a setting's "
                        "index_context does (default 0): the fair comparison for settings that use it")
    p.add_argument("--baseline-index-alone", action="store_true",
                   help="with --baseline-index-context: also index each piece by its own text alone, as a "
                        "setting's index_alone=true does (each ranked by the better of its two scores)")
    p.add_argument("--baseline-index-windows", type=int, default=0, metavar="N",
                   help="also index each baseline piece by pieces of its sentences of at most N characters, as a "
                        "setting's index_windows=N does (default 0: not)")
    p.add_argument("--baseline-index-headings", action="store_true",
                   help="index each baseline piece after the headings above it, as a setting's "
                        "index_headings=true does")
    p.add_argument("--baseline-separators", choices=("sentences", "langchain"), default="sentences",
                   help="where the baseline cuts: paragraph and line breaks, sentence ends (. ? !), spaces "
                        "(sentences, as Chroma's RecursiveTokenChunker: the default), or LangChain's own "
                        "separators, with no sentence ends (langchain)")
    p.add_argument("--retriever", default="bm25", choices=("bm25", "dense", "both"),
                   help="ranking: BM25 (default), dense all-MiniLM-L6-v2 embeddings (extra chunkbench[dense]), "
                        "or both, one report each")
    p.add_argument("--holdout", type=float, default=None, metavar="F",
                   help="choose the best setting on the other questions and check it on this fraction of each "
                        "document's questions (e.g. 0.3; the same questions every run): a best chosen on the "
                        "questions it is scored on flatters itself")
    p.add_argument("--recall-margin", default=None, metavar="M",
                   help="the best setting must beat the baseline's token recall by M: standard errors of the "
                        "paired recall difference (1se) or percentage points (2pt), not merely match it. With 1se, a "
                        "best lost to the baseline on new questions about half as often (docs/evaluation.md)")
    p.add_argument("--per-document", action="store_true",
                   help="print a table per document (corpus), not only a line each (evaluation.md always has them)")
    p.add_argument("--top-k", type=int, default=5, help="units per question scored by token IoU (default 5)")
    p.add_argument("--budgets", default=None, metavar="B1,B2,...",
                   help="context budgets in cl100k tokens: recall@B is the reference's share inside the ranked "
                        "chunks sent until B tokens are filled (default 500,1000,2000; 'none' to skip)")
    p.add_argument("--return-policy", default="hits", choices=sorted(POLICIES),
                   help="what is sent for each hit within the budget: " + "; ".join(
                       f"{name}: {what}" for name, what in POLICIES.items()) + " (default hits)")
    p.add_argument("-o", "--output", default=None, metavar="DIR",
                   help="also write evaluation.json and evaluation.md here")
    p.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
    p.add_argument("--misses", default="best", metavar="SETTING",
                   help="with -o: the questions this setting misses, each with the page, the evidence marked, the "
                        "cuts inside it and the chunks retrieved instead, in DIR/misses/index.html (default: the "
                        "best setting, else the one with the most IoU; a setting's name as in the table; 'none')")
    p.add_argument("--gold", action="append", default=None, metavar="GOLD_JSON",
                   help="score against a structured twin instead of a questions file: one gold.json (`chunkbench "
                        "gold`) per INPUT, in their order. Prints the parse against the twin, each setting's cuts and "
                        "recall per question kind (table cell, list, section, definition, footnote, passage) at each "
                        "budget (docs/gold.md)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="parse the PDFs not yet in the parse cache on N local worker processes (a Dask LocalCluster)")
    p.add_argument("--dask", default=None, metavar="SCHEDULER_ADDRESS",
                   help="parse the PDFs not yet in the parse cache on a dask.distributed cluster")
    p.add_argument("--no-progress", action="store_true", help="no progress bar while PDFs are parsed")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from chunkbench.app.defaults import default_settings
    from chunkbench.app.sweep import parse_grid
    from chunkbench.errors import UsageError
    from chunkbench.evaluate.benchmark import (
        baseline,
        compare_retrievers,
        equally_indexed,
        find_cases,
        format_report,
        grid_settings,
    )
    from chunkbench.evaluate.margin import RecallMargin
    from chunkbench.io.atomic import dumps_json, write_json, write_text
    from chunkbench.io.outputs import check_outputs, say_if_replacing

    check_outputs({}, inputs=[*args.inputs, args.questions, *(args.gold or ())], folders={"--output": args.output})
    if args.top_k < 1:
        raise UsageError("--top-k must be at least 1")
    if args.baseline_size < 1 or not 0 <= args.baseline_overlap < args.baseline_size:
        raise UsageError("--baseline-size must be at least 1 and --baseline-overlap in [0, size)")
    margin = None if args.recall_margin is None else RecallMargin.parse(args.recall_margin)
    try:
        budget = BudgetSpec.parse(args.budgets, args.return_policy)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    explicit = args.strategy is not None or args.grid or args.params
    settings = (grid_settings(args.strategy or "recursive", parse_sets(args.params), parse_grid(args.grid))
                if explicit else default_settings())
    if args.workers is not None or args.dask is not None:
        _parse_first(args)
    if args.gold:
        return _run_gold(args, settings, budget)
    # an input without a questions file asks its own (evaluate.proxy), and the report says so
    cases = find_cases(args.inputs, args.questions, questions_dir=args.questions_dir, proxy=args.questions is None)
    if args.output:
        say_if_replacing(args.output, "evaluation.json", "evaluation", "its evaluation.json, evaluation.md and misses/ are")
    retrievers = ("bm25", "dense") if args.retriever == "both" else (args.retriever,)
    base = baseline(args.baseline_size, args.baseline_overlap, args.baseline_separators, args.baseline_unit,
                    args.baseline_index_context, args.baseline_index_alone, args.baseline_index_windows,
                    args.baseline_index_headings)
    settings = equally_indexed(settings, base)  # an indexed setting beside the splitter indexed alike
    scored: dict = {}  # per retriever and setting, every question's row: the misses report reuses them
    if args.pooled and args.holdout is not None:
        raise UsageError("--pooled does not go with --holdout yet: search each question in its own document to "
                         "check the best on held-out questions")
    if args.holdout is None:
        results = compare_retrievers(cases, settings, base, args.top_k, retrievers, margin=margin, questions_out=scored,
                                     pooled=args.pooled, budget=budget)
    else:
        results = _with_holdout(cases, settings, base, args.top_k, retrievers, args.holdout, margin, budget)
    missed = (_write_misses(args, cases, settings, results[0], scored.get(results[0]["retriever"], {}))
              if args.output and args.misses != "none" and not args.pooled else
              "misses: not drawn for a pooled search (each question's misses are drawn in its own document)"
              if args.output and args.misses != "none" else "")
    data = results[0] if len(results) == 1 else {"results": results}
    if args.output:
        os.makedirs(args.output, exist_ok=True)
        write_json(os.path.join(args.output, "evaluation.json"), data)
        write_text(os.path.join(args.output, "evaluation.md"),
                   "\n\n".join(format_report(r) for r in results) + f"\n\n{IOU_NOTE}\n")
    print(dumps_json(data) if args.json else
          "\n\n".join(format_report(r, args.per_document) for r in results) + f"\n\n{IOU_NOTE}"
          + (f"\n{missed}" if missed else ""))
    return 0


def _run_gold(args: argparse.Namespace, settings, budget) -> int:
    """`evaluate --gold`: the settings and the baseline splitter on each input's gold (app.gold)."""
    from chunkbench.app.gold import evaluate_on_gold, gold_cases
    from chunkbench.errors import UsageError
    from chunkbench.evaluate.benchmark import baseline
    from chunkbench.evaluate.gold.report import format_gold_report
    from chunkbench.io.atomic import dumps_json, write_json, write_text

    if args.questions or args.questions_dir or args.holdout is not None or args.pooled:
        raise UsageError("--gold asks the gold's own questions: it does not go with --questions, --questions-dir, "
                         "--holdout or --pooled")
    base = baseline(args.baseline_size, args.baseline_overlap, args.baseline_separators, args.baseline_unit)
    retrievers = ("bm25", "dense") if args.retriever == "both" else (args.retriever,)
    cases = gold_cases(args.inputs, args.gold)
    found = evaluate_on_gold(cases, [*settings, base], retrievers, budget)
    reports = [format_gold_report(found["parse"], results, found["budgets"], found["giveaway"])
               for results in found["results"].values()]
    data = {**found, "results": {r: [{k: v for k, v in row.items() if k != "rows"} for row in rows]
                                 for r, rows in found["results"].items()}}
    if args.output:
        os.makedirs(args.output, exist_ok=True)
        write_json(os.path.join(args.output, "gold_evaluation.json"), data)
        write_text(os.path.join(args.output, "gold_evaluation.md"), "\n\n".join(reports) + "\n")
    print(dumps_json(data) if args.json else "\n\n".join(reports))
    return 0


def _with_holdout(cases, settings, base, top_k: int, retrievers, fraction: float, margin=None,
                  budget=None) -> list[dict]:
    """Per retriever: the comparison on the questions not held out (the best chosen with the recall
    `margin`, if any), with its best setting checked on the held-out ones under "holdout" (each
    document cut once per setting for both)."""
    from chunkbench.evaluate.benchmark import compare_retrievers
    from chunkbench.evaluate.holdout import check_best, split_cases

    choose, held = split_cases(cases, fraction)
    units: dict = {}
    results = compare_retrievers(choose, settings, base, top_k, retrievers, units, margin, budget=budget)
    for result in results:
        result["holdout"] = check_best(result, settings, held, base, units)
    return results


def _parse_first(args: argparse.Namespace) -> None:
    """The PDFs among the inputs (folders searched) parsed on workers before the evaluation loads them."""
    from pathlib import Path

    from chunkbench.app.opening import warm_cache
    from chunkbench.errors import UsageError

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    pdfs = []
    for item in args.inputs:
        p = Path(item)
        pdfs.extend(sorted(str(f) for f in p.rglob("*.pdf")) if p.is_dir() else [str(p)])
    warm_cache(pdfs, workers=args.workers, dask=args.dask, progress=not args.no_progress)


def _write_misses(args: argparse.Namespace, cases, settings, result: dict, scored: dict) -> str:
    """DIR/misses/index.html for the chosen setting (ranked as the first retriever ranks: as its
    per-question rows in `scored` say, when the evaluation kept them), the count of its misses by
    cause in `result["misses"]` (so in evaluation.json), and a line saying so."""
    from chunkbench.evaluate.benchmark import miss_setting, misses_of
    from chunkbench.evaluate.misses import cause_table
    from chunkbench.ui.misses import write_misses_report

    setting = miss_setting(result, settings, args.misses)
    if setting is None:
        return ""
    items = misses_of(setting, cases, result["retriever"], result["token_k"], scored.get(setting.name))
    index = write_misses_report(items, os.path.join(args.output, "misses"),
                                f"Retrieval misses of {setting.name} ({result['retriever']} top {result['token_k']})")
    misses = [m for _, ms, _ in items for m in ms]
    result["misses"] = {"setting": setting.name, "missed": len(misses), "judged": sum(n for _, _, n in items),
                        "causes": cause_table(misses), "report": os.path.relpath(index, args.output)}
    causes = ", ".join(f"{c['cause']} {c['misses']}" for c in result["misses"]["causes"]) or "none"
    return (f"misses: {setting.name} misses {len(misses)} of {result['misses']['judged']} questions; by the reason of "
            f"the cut in the evidence: {causes}; each drawn in {index}")
