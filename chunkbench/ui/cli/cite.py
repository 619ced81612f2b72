"""`chunkbench cite INPUT "quoted text" [--chunks FILE --chunk N] [-o cite.json] [--html DIR]`: where a
quote is in a document, with the boxes of its words on every page it crosses."""

from __future__ import annotations

import argparse
import json
import sys

from . import add_chunks_option, add_edits_option, add_input_options, add_set_option, chunks_for, load_input


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "cite", help="find a quoted text in a document: match kind, offsets, pages and the boxes of its words",
        description=(
            "Locates QUOTE in INPUT as another chunker's chunk is located (exactly, then across hyphenation, "
            "ligatures, spacing, columns and running headers, then by its anchors) and prints where: the match "
            "kind, the canonical offsets, the pages, and one box per line of exactly its words. With --chunk N "
            "(of --chunks FILE, or of the strategy's chunks) the quote is searched inside that chunk first. A quote "
            "that is empty, longer than the document or not in it is exit 3 (docs/citations.md)."),
    )
    add_input_options(p)
    add_set_option(p)
    p.add_argument("quote", metavar="QUOTE", help="the quoted text")
    add_chunks_option(p, "with --chunk: search inside a chunk of", role="instead of the strategy's")
    add_edits_option(p)
    p.add_argument("--chunk", type=int, default=None, metavar="N", help="search inside chunk N (0-based) first")
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write the citation as JSON here")
    p.add_argument("--html", default=None, metavar="DIR",
                   help="write index.html here: the pages the quote crosses with its lines highlighted")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from chunkbench.errors import InputError, UsageError
    from chunkbench.foreign.cite import cite
    from chunkbench.io.atomic import write_text
    from chunkbench.io.outputs import check_outputs, write_output
    from chunkbench.text.segment import one_line
    from chunkbench.text.terminal import terminal_safe

    targets = check_outputs({"--output": args.output}, inputs=[args.input, args.pdf, args.chunks],
                            folders={"--html": args.html})
    doc = load_input(args)
    within = None
    if args.chunk is not None:
        chunks = chunks_for(doc, args)
        if not 0 <= args.chunk < len(chunks):
            raise UsageError(f"--chunk {args.chunk}: there are chunks 0-{len(chunks) - 1}")
        within = chunks[args.chunk]
    found = cite(doc, args.quote, within)
    if not found.found:
        raise InputError(f"{found.problem}: {one_line(args.quote, 60)!r}", doc.source)
    if targets.get("--output") is not None:
        write_output(targets["--output"], lambda p: write_text(p, json.dumps(found.to_dict(), indent=1) + "\n"))
    pages = ", ".join(map(str, found.pages)) or "no PDF page (a text input)"
    print(f"{found.kind}: characters {found.start}-{found.end}, page(s) {pages}, {len(found.boxes)} line box(es)"
          + (f"; found {found.share:.0%}: {one_line(found.found_part or '', 60)!r}" if found.found_part else "")
          + ("" if found.in_chunk is None else (" in chunk " if found.in_chunk else " outside chunk ") + str(args.chunk)))
    if "mineru" in found.locator:
        print(f"MinerU locator: {found.locator['mineru']}")
    if targets.get("--html") is not None:
        from chunkbench.ui.report import write_citation_report

        print(f"wrote {terminal_safe(str(write_citation_report(doc, found, targets['--html'])))}")
    if targets.get("--output") is not None:
        print(f"wrote {terminal_safe(str(targets['--output']))}", file=sys.stdout)
    return 0
