"""`chunkbench render` (page overlays + index.html) and `chunkbench diff` (boundary diff of two configurations)."""

from __future__ import annotations

import os

from chunkbench.errors import UsageError
from chunkbench.io.outputs import check_outputs, say_if_replacing

from . import (
    add_chunks_option,
    add_edits_option,
    add_fail_on_empty,
    add_input_options,
    add_set_option,
    check_not_empty,
    chunks_for,
    load_input,
    located_chunks,
    strategy_chunks,
)


def register(sub) -> None:
    p = sub.add_parser("render", help="draw chunks on the PDF pages: a folder of page PNGs and the index.html that shows them")
    add_input_options(p)
    add_set_option(p)
    p.add_argument("--pages", default=None, help="pages to render, e.g. 1-5 or 2,4,7-9 (default: all)")
    p.add_argument("--dpi", type=float, default=100, help="resolution of the page images (default 100)")
    p.add_argument("--show", default=None,
                   help="overlay layers, comma-separated: chunks,reasons,overlap,noise,defects,elements "
                        "(default chunks,reasons,overlap,noise,defects: leave defects out to hide the red boxes)")
    p.add_argument("--elements-of", default=None, metavar="INPUT",
                   help="another parse of the same PDF (e.g. a MinerU output folder) drawn dashed over the "
                        "parser's own elements, to compare parsers")
    p.add_argument("--gold", default=None, metavar="GOLD_JSON",
                   help="a gold.json of INPUT (`chunkbench gold`): draw where the parse disagrees with the structured "
                        "twin (a missed or extra heading, a wrong level, a cell that differs, blocks out of order) "
                        "as the violet gold layer, and list the places (docs/gold.md)")
    p.add_argument("-o", "--output", required=True, help="output folder")
    add_chunks_option(p, "draw")
    add_edits_option(p)
    add_fail_on_empty(p)
    p.set_defaults(func=run_render)

    p = sub.add_parser("diff", help="boundaries that stayed, moved, appeared or vanished between two configurations")
    add_input_options(p)
    p.add_argument("--a", required=True, metavar="SPEC",
                   help='first configuration, e.g. "strategy=tokens,chunk_size=512", or a chunks FILE (JSON or JSON '
                        'Lines, as `chunk --chunks` reads) whose chunks are located in INPUT')
    p.add_argument("--b", required=True, metavar="SPEC",
                   help='second configuration, e.g. "strategy=tokens,chunk_size=256", or a chunks FILE')
    add_edits_option(p)
    p.add_argument("--window", type=int, default=200,
                   help="a boundary within this many characters (or in the same element) counts as moved (default 200)")
    p.add_argument("--dpi", type=float, default=100, help="resolution of the page images (default 100)")
    p.add_argument("-o", "--output", required=True, help="output folder (diff.csv, page PNGs, index.html)")
    p.set_defaults(func=run_diff)


def run_render(args) -> int:
    from chunkbench.ui.report import parse_pages, write_report

    if not 10 <= args.dpi <= 600:
        raise UsageError(f"--dpi must be between 10 and 600, got {args.dpi:g}")
    show = tuple(s.strip() for s in args.show.split(",") if s.strip()) if args.show else None
    if show is not None:
        from chunkbench.ui.render import check_show

        check_show(show)
    check_outputs({}, inputs=[args.input, args.pdf, args.elements_of, args.chunks, args.gold],
                  folders={"--output": args.output})
    gold = None
    if args.gold:
        from chunkbench.app.gold import read_gold

        gold = read_gold(args.gold)
    doc = load_input(args)
    chunks = chunks_for(doc, args)
    check_not_empty(chunks, args)
    other = None
    if args.elements_of:
        from chunkbench.app.opening import load

        other = load(args.elements_of, pdf=doc.pdf_path, cache=not args.no_cache)
    pages = parse_pages(args.pages, len(doc.pages)) if doc.pdf_path else None
    say_if_replacing(args.output, "index.html", "report", "its index.html and the page images of the same pages are")
    index = write_report(doc, chunks, args.output, pages=pages, dpi=args.dpi, show=show, elements_of=other,
                         gold=gold.for_document(doc, where=args.gold) if gold is not None else None)
    what = f"{len(pages)} page images" if pages is not None else "the text view (no PDF)"
    print(f"wrote {index} ({len(chunks)} chunks, {what})")
    return 0


def run_diff(args) -> int:
    from chunkbench.evaluate.diff import diff, parse_spec
    from chunkbench.ui.report import write_diff_report

    if not 10 <= args.dpi <= 600:
        raise UsageError(f"--dpi must be between 10 and 600, got {args.dpi:g}")
    files = [spec for spec in (args.a, args.b) if _is_chunks_file(spec)]
    check_outputs({}, inputs=[args.input, args.pdf, *files], folders={"--output": args.output})
    doc = load_input(args)
    sides = [located_chunks(doc, spec, os.path.basename(spec)) if spec in files
             else strategy_chunks(doc, args, *parse_spec(spec)) for spec in (args.a, args.b)]
    d = diff(doc, *sides, window=args.window)
    say_if_replacing(args.output, "index.html", "report", "its index.html, diff.csv and the page images of the same "
                     "pages are")
    index = write_diff_report(d, args.output, dpi=args.dpi)
    counts = ", ".join(f"{k} {v}" for k, v in d.counts.items())
    print(f"wrote {index} ({counts}; {len(d.changed_pages())} pages with changes)")
    return 0


def _is_chunks_file(spec: str) -> bool:
    """A diff side that names a file of chunks rather than a configuration ("strategy=...")."""
    return "=" not in spec and os.path.isfile(spec)

