"""`chunkbench parse` (write elements.json) and `chunkbench info` (one-screen summary)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from chunkbench.io.atomic import write_json
from chunkbench.loaders.summary import document_summary, format_summary

from . import add_input_options, load_input


def register(sub) -> None:
    p = sub.add_parser("parse", help="parse INPUT into elements.json")
    add_input_options(p)
    p.add_argument("-o", "--output", default=None, help="elements.json path (default: print a summary only)")
    p.add_argument("--quiet", action="store_true", help="do not print the summary")
    p.set_defaults(func=run_parse)

    p = sub.add_parser("info", help="pages, elements by type, heading outline, pages without text")
    add_input_options(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run_info)


def run_parse(args) -> int:
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
