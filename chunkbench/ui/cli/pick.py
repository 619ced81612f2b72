"""`chunkbench pick INPUT [--questions FILE] -o chunks.json`: from a document to a judged choice in
one command (app.pick): the comparison evaluate runs, the best setting written as chunks.json with
its index texts, and the lines that load it into LangChain or LlamaIndex."""

from __future__ import annotations

import argparse
import os


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "pick",
        help="compare the default settings on INPUT, write the best as chunks.json, print how to load it",
        description=(
            "Runs the comparison `chunkbench evaluate INPUT` runs (on the questions file beside INPUT or "
            "--questions; without one on queries the document makes of itself, said with how far that can be "
            "trusted), recall at --budget tokens sent with the retrieval default's return policy; chunks INPUT with the "
            "best setting (the retrieval default when none beats the splitter), writes it with its index texts, "
            "and prints the lines that load it into LangChain and LlamaIndex (docs/context-budget.md)."
        ),
    )
    p.add_argument("input", metavar="INPUT", help="a document (.pdf, .md, .html, .txt, ...)")
    p.add_argument("--questions", default=None, metavar="FILE",
                   help="questions file (default: <stem>.questions.json beside INPUT; none: the document's own queries)")
    p.add_argument("--retriever", default="bm25", choices=("bm25", "dense"),
                   help="ranking used to compare the settings (default bm25; dense embeds every chunk with MiniLM)")
    p.add_argument("--budget", type=int, default=1000, metavar="TOKENS",
                   help="the context budget recall is measured at (default 1000 cl100k tokens)")
    p.add_argument("-o", "--output", required=True, metavar="PATH", help="where to write the chosen chunks.json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from chunkbench.app.pick import pick
    from chunkbench.errors import UsageError
    from chunkbench.io.outputs import check_outputs, write_output

    outputs = check_outputs({"--output": args.output}, inputs=[args.input, args.questions])
    if args.budget < 1:
        raise UsageError("--budget must be at least 1 token")
    chosen = pick(args.input, args.questions, retriever=args.retriever, budget=args.budget)
    write_output(outputs["--output"], chosen.chunks.to_json)
    print(chosen.report(str(outputs["--output"]), os.path.abspath(args.input)))
    return 0
