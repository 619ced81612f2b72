"""`chunkbench parse` (write elements.json) and `chunkbench info` (one-screen summary)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from chunkbench.io.atomic import write_json
from chunkbench.loaders.summary import document_summary, format_summary

from . import add_input_options, load_input


def register(sub) -> None:
    p = sub.add_parser("parse", help="parse INPUT into elements.json, or a corpus of PDFs into a folder")
    add_input_options(p, many=True)
    p.add_argument("-o", "--output", default=None,
                   help="elements.json path; for a corpus, the folder of <stem>.elements.json files and corpus.jsonl "
                        "(default: print a summary only; a corpus is parsed into the parse cache)")
    p.add_argument("--quiet", action="store_true", help="do not print the summary")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="corpus: parse on N local worker processes (a Dask LocalCluster; default 1)")
    p.add_argument("--dask", default=None, metavar="SCHEDULER_ADDRESS",
                   help="corpus: parse on the workers of a dask.distributed cluster, e.g. tcp://10.0.0.5:8786")
    p.add_argument("--no-resume", action="store_true",
                   help="corpus: parse every file again, even those corpus.jsonl records as done")
    p.add_argument("--no-progress", action="store_true", help="corpus: no progress bar or lines")
    p.set_defaults(func=run_parse)

    p = sub.add_parser("info", help="pages, elements by type, heading outline, pages without text")
    add_input_options(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run_info)


def is_corpus(args) -> bool:
    """Several inputs, a glob, a folder of PDFs (not MinerU output), or workers asked for."""
    from chunkbench.app.opening import is_corpus_item

    return len(args.inputs) > 1 or args.workers is not None or args.dask is not None or is_corpus_item(args.inputs[0])


def run_parse(args) -> int:
    if is_corpus(args):
        return run_parse_corpus(args)
    args.input = args.inputs[0]
    from chunkbench.io.outputs import check_outputs, write_output

    outputs = check_outputs({"--output": args.output}, inputs=[args.input, args.pdf])
    doc = load_input(args)
    if args.output:
        write_output(outputs["--output"], lambda path: write_json(Path(path), doc.to_dict()))
    if not args.quiet:
        print(format_summary(doc))
        if args.output:
            print(f"  wrote    {args.output}")
    return 0


def run_info(args) -> int:
    doc = load_input(args)
    if args.json:
        json.dump(document_summary(doc, max_outline=10_000), sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        print(format_summary(doc))
    return 0


def run_parse_corpus(args) -> int:
    """Parse a corpus (loaders.corpus): locally, on N workers or on a Dask cluster; one line per
    failed file, a summary line; exit 1 when a file failed."""
    import os
    import time

    from chunkbench.app.opening import parse_corpus
    from chunkbench.errors import UsageError

    if args.backend != "pymupdf" or args.pdf:
        raise UsageError("a corpus is parsed with the pymupdf backend; parse MinerU output one input at a time")
    if args.output and Path(args.output).exists() and not Path(args.output).is_dir():
        raise UsageError(f"--output {args.output} is a file: a corpus is written into a folder")
    if getattr(args, "cache_dir", None):
        os.environ["CHUNKBENCH_CACHE_DIR"] = args.cache_dir
    options = {"cache": not args.no_cache, "password": args.password, "page_timeout": args.page_timeout,
               "stitch_tables": not args.no_stitch_tables}
    started = time.monotonic()
    results = parse_corpus(args.inputs, args.output, workers=args.workers, dask=args.dask,
                           resume=not args.no_resume, progress=not args.no_progress, options=options)
    elapsed = time.monotonic() - started
    failed = [r for r in results if r.status != "ok"]
    skipped = sum(r.skipped for r in results)
    for r in failed:
        print(f"chunkbench: {r.file}: {r.error}", file=sys.stderr)
    if not args.quiet:
        pages = sum(r.pages for r in results if not r.skipped)
        where = f"on {args.dask}" if args.dask else f"on {args.workers or 1} worker{'s' if (args.workers or 1) > 1 else ''}"
        print(f"parsed {len(results) - skipped - len(failed)} of {len(results)} files ({pages} pages) {where} in "
              f"{elapsed:.1f} s" + (f"; {skipped} done in an earlier run" if skipped else "")
              + (f"; {len(failed)} failed" if failed else ""))
        if args.output:
            print(f"  wrote    {args.output} (<stem>.elements.json per file, corpus.jsonl)")
    return 1 if failed else 0
