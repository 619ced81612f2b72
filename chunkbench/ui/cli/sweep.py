"""`chunkbench sweep INPUT... --grid KEY=V1,V2 ... -o DIR`: the sweep notebook over a parameter grid."""

from __future__ import annotations

import argparse
import os
import sys
import time

from chunkbench.app.sweep.floor import FLOOR_HELP

from . import add_chunks_option, add_set_option, parse_sets


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sweep",
        help="measure inputs × a parameter grid; collect metrics and plots; the notebook per input",
        description=(
            "Computes every input × grid point in-process (worker processes or a Dask cluster when the work "
            "outweighs starting them), writes results.csv, results.parquet and summary.html to DIR, then runs "
            "notebooks/02_sweep.ipynb with papermill once per input (--notebooks). A failed point is recorded "
            "in its row and the sweep goes on: the exit code is 0 when any point succeeded (with a warning "
            "line for the failures), otherwise that of the common error (2 parameters, 3 input, else 1)."
        ),
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="inputs (.pdf, .md, MinerU output, document.json, elements.json), folders of PDFs or globs "
                        "('pdfs/**/*.pdf')")
    add_set_option(p)
    p.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="swept parameter (repeatable); KEY may be 'strategy', 'index_context': the retrieval "
                        "columns rank each chunk by its text with N chunks before and after it, or 'index_alone': "
                        "with index_context, also by its own text alone, the better score kept; 'index_windows', "
                        "'index_headings' likewise (also with --set)")
    add_chunks_option(p, "measure", role="one more point beside the grid's, for one INPUT (indexed as --set's "
                      "index_* parameters say)")
    p.add_argument("--stability-against", default=None, metavar="BASELINE",
                   help="a `stability` column: the share of each point's chunks that keep a baseline chunk's id and "
                        "text (what a vector store keyed by chunk_id keeps). BASELINE is another version of the one "
                        "INPUT (a file, chunked with each point's setting) or a setting ('strategy=elements,"
                        "max_chunk_size=900', diff's syntax)")
    p.add_argument("--gold", action="append", default=[], metavar="GOLD_JSON",
                   help="a gold.json (`chunkbench gold`) of one of the inputs, repeatable: its points get gold_* "
                        "columns, the cut scores against the twin and recall per question kind at 500/1,000/2,000 "
                        "tokens (docs/gold.md)")
    p.add_argument("--max-points", type=int, default=None, metavar="N",
                   help="run a grid of more than 10,000 points (the bound against a typo that makes millions)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="output folder")
    p.add_argument("--questions", default="auto", metavar="FILE",
                   help="questions file for the retrieval check (default: <input stem>.questions.json beside each "
                        "input, or a FinanceBench .jsonl there; 'none' to skip)")
    p.add_argument("--retriever", default="bm25", choices=("bm25", "dense"),
                   help="how the retrieval check ranks: BM25 (default) or dense all-MiniLM-L6-v2 (extra chunkbench[dense])")
    p.add_argument("--notebooks", default="best", choices=("all", "best", "none"),
                   help="the notebook once per input: for its best point (best, default), with the whole grid "
                        "as well (all), or none")
    p.add_argument("--rank-by", default=None, metavar="METRIC",
                   help="metric that picks each input's best point (default: ret_chunks_token_iou, else "
                        "ret_chunks_mrr, else targets_passed)")
    p.add_argument("--recall-floor", default="splitter", metavar="FLOOR",
                   help="the token recall a best point by token IoU (or precision) must keep: " + FLOOR_HELP)
    p.add_argument("--holdout", type=float, default=None, metavar="F",
                   help="score the points on the other questions of each input, then check each best point against "
                        "the splitter on this share held out (e.g. 0.3; the split chunkbench evaluate --holdout makes)")
    p.add_argument("--workspace", default="auto", metavar="DB",
                   help="reviewers' verdicts in this workspace are labelled boundaries: rev_boundary_precision/"
                        "recall/f1 per point, --rank-by rev_boundary_f1 (default: $CHUNKBENCH_WORKSPACE or "
                        "./.chunkbench/workspace.db when it exists; 'none' to skip)")
    p.add_argument("--jobs", "--workers", dest="jobs", type=int, default=None, metavar="N",
                   help="at most this many worker processes, for the points and for parsing the PDFs not yet in the "
                        "parse cache (default: the core count; 1: all in this process)")
    p.add_argument("--dask", default=None, metavar="SCHEDULER_ADDRESS",
                   help="parse the PDFs and run the points as tasks on an existing dask.distributed cluster")
    p.add_argument("--timeout", type=float, default=600, help="seconds one notebook cell may run (default 600)")
    p.add_argument("--kernel", default="python3", help="Jupyter kernel (default python3 = this interpreter)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--cache-dir", default=None, help="parse cache folder (default ~/.cache/chunkbench)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from chunkbench.app.sweep import best_lines, exit_status, format_results, parse_grid, run_sweep
    from chunkbench.errors import UsageError

    if args.cache_dir:
        os.environ["CHUNKBENCH_CACHE_DIR"] = args.cache_dir
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    from chunkbench.app.opening import expand_corpus_items
    from chunkbench.io.outputs import check_outputs, say_if_replacing

    args.inputs = expand_corpus_items(args.inputs)
    missing = [p for p in args.inputs if not os.path.exists(p)]
    if missing:  # before anything is written: a sweep of nothing leaves no results behind
        from chunkbench.errors import InputError

        more = f" (and {len(missing) - 1} more inputs)" if len(missing) > 1 else ""
        raise InputError(f"no such file or folder{more}; nothing was written", missing[0])
    check_outputs({}, inputs=[*args.inputs, *args.gold], folders={"--output": args.output})
    grid = parse_grid(args.grid)
    say_if_replacing(args.output, "results.csv", "sweep", "its results.csv, results.parquet and summary.html are",
                     "its points that this sweep does not compute stay under points/", _rows(args.output))
    fixed = parse_sets(args.params)
    questions = None if args.questions.lower() == "none" else args.questions
    df = run_sweep(
        args.inputs, grid, args.output, strategy=args.strategy, fixed=fixed, questions=questions,
        jobs=args.jobs, dask=args.dask, progress=not args.no_progress, kernel_name=args.kernel,
        timeout=args.timeout, notebooks=args.notebooks, rank_by=args.rank_by, retriever=args.retriever,
        labels=_labels(args.workspace), recall_floor=args.recall_floor, holdout=args.holdout,
        chunks=(args.chunks, args.chunker) if args.chunks else None, baseline=args.stability_against,
        max_points=args.max_points, gold=args.gold,
    )
    from chunkbench.ui.sweep_summary import write_summary

    started = time.monotonic()
    write_summary(df, args.output)
    df.attrs["timing"]["summary_s"] = round(time.monotonic() - started, 3)
    print(format_results(df))
    for line in best_lines(df):
        print(line)
    if args.holdout is not None and not df.attrs.get("holdout"):
        print("held-out check: none made (no input has two questions or more and a best point by token IoU or "
              "precision)")
    print(f"results: {os.path.join(args.output, 'results.csv')} (and results.parquet)")
    print(f"summary: {os.path.join(args.output, 'summary.html')}")
    for row in df.attrs.get("edit_changes") or []:
        print(f"edit {row['edit_id']} ({row['kind']} by {row['reviewer'] or '(anonymous)'} at “{row['text'][:30]}”, "
              f"{row['document']}): smallest change reproducing it: {row['smallest_change']}")
    if df.attrs.get("edit_changes"):
        print(f"edits: {os.path.join(args.output, 'edit_changes.csv')}")
    timing = df.attrs.get("timing", {})
    print("time: " + ", ".join(f"{k.removesuffix('_s')} {v:.1f} s" for k, v in timing.items()))
    code, message = exit_status(df)
    if message:
        print(f"chunkbench: {message}", file=sys.stderr)
    return code


def _labels(workspace: str):
    """The workspace whose reviewers' labels a sweep scores, from --workspace: "auto" the default
    workspace when it exists, "none" none; a named file must exist."""
    from chunkbench.app.runs import workspace_path
    from chunkbench.errors import UsageError

    if workspace.lower() == "none":
        return None
    if workspace == "auto":
        return workspace_path() if workspace_path().is_file() else None
    if not workspace_path(workspace).is_file():
        raise UsageError(f"no workspace database at {workspace}")
    return workspace


def _rows(output: str) -> str:
    """The row count of the results.csv in `output`, for the warning that replaces it."""
    try:
        with open(os.path.join(output, "results.csv"), encoding="utf-8", errors="replace") as f:
            return f"{max(0, sum(1 for _ in f) - 1)} rows"
    except OSError:
        return ""
