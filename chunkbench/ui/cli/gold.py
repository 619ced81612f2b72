"""`chunkbench gold INPUT TWIN... -o gold.json`: a PDF's structured twin (the HTML or Markdown it was
made from) placed in its parse, and what that says about the parse."""

from __future__ import annotations

import argparse
import json
import sys

from . import add_input_options, load_input


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "gold", help="place a PDF's structured twin (HTML, Markdown) in its parse: gold for the parse, the cuts "
                     "and the answers",
        description=(
            "TWIN is the structured form INPUT was made from: an HTML file, a folder of chunked HTML pages (read "
            "from its index.html along each page's rel=next link) or a Markdown file; several are read in the "
            "order given. Each of its blocks (headings, paragraphs, list items, table rows, definitions, "
            "footnotes, code) is placed in INPUT's parse: exact, anchored (by both ends, or aligned between its "
            "placed neighbours) or missing. The gold file says where each block is; `evaluate --gold` and `sweep "
            "--gold` score chunkings with it, `render --gold` draws where the parse and the twin disagree "
            "(docs/gold.md). A twin of which under half the blocks are found is not the same document: exit 3."),
    )
    add_input_options(p)
    p.add_argument("twins", nargs="+", metavar="TWIN", help="HTML file, folder of HTML pages, or Markdown file")
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write gold.json here")
    p.add_argument("--json", action="store_true", help="print the summary and the parse scores as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from chunkbench.app.gold import gold, load_twin
    from chunkbench.evaluate.gold.parse import parse_scores
    from chunkbench.io.outputs import check_outputs, write_output

    targets = check_outputs({"--output": args.output}, inputs=[args.input, args.pdf, *args.twins])
    doc = load_input(args)
    twins = [load_twin(t) for t in args.twins]
    for twin in twins:
        for warning in twin.warnings:
            print(f"chunkbench: warning: {twin.source}: {warning}", file=sys.stderr)
    found = gold(doc, twins)
    scores = parse_scores(doc, found)
    if targets.get("--output") is not None:
        write_output(targets["--output"], found.write)
    if args.json:
        json.dump({"summary": found.summary(), "parse": scores}, sys.stdout, indent=1)
        print()
    else:
        print(format_gold(found, scores))
    if targets.get("--output") is not None:
        print(f"wrote {targets['--output']}")
    return 0


def format_gold(found, scores) -> str:
    """What a person reads after `chunkbench gold`: blocks placed, by kind, and the parse's scores."""
    from chunkbench.evaluate.gold.parse import PARSE_SCORES
    from chunkbench.text.terminal import terminal_safe

    s = found.summary()
    twins = ", ".join(f"{t['source']} ({t['generator'] or 'unknown generator'})" for t in found.twins)
    kinds = ", ".join(f"{kind} {k['located']}/{k['blocks']}" for kind, k in s["kinds"].items())
    lines = [terminal_safe(f"{found.source} ({found.parser}) against {twins}"),
             f"  {s['blocks']} blocks: {s['located']:.1%} placed ({s['exact']} exact, {s['anchored']} anchored, "
             f"{s['missing']} missing), {s['located_chars']:.1%} of the twin's text",
             f"  by kind: {kinds}",
             "  the parse against the twin:"]
    for name in PARSE_SCORES:
        if name in ("located", "text_coverage"):
            continue
        value = scores.get(name)
        lines.append(f"    {name:24} {'-' if value is None else f'{value:.1%}'}")
    return "\n".join(lines)
