"""`chunkbench render` (page overlays + index.html) and `chunkbench diff` (boundary diff of two configurations)."""

from __future__ import annotations

from chunkbench.errors import UsageError
from chunkbench.io.outputs import check_outputs

from . import add_fail_on_empty, add_input_options, add_set_option, check_not_empty, load_input, parse_sets


def register(sub) -> None:
    p = sub.add_parser("render", help="draw chunks on the PDF pages: PNGs and a self-contained index.html")
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
    p.add_argument("-o", "--output", required=True, help="output folder")
    add_fail_on_empty(p)
    p.set_defaults(func=run_render)

    p = sub.add_parser("diff", help="boundaries that stayed, moved, appeared or vanished between two configurations")
    add_input_options(p)
    p.add_argument("--a", required=True, metavar="SPEC", help='first configuration, e.g. "strategy=tokens,chunk_size=512"')
    p.add_argument("--b", required=True, metavar="SPEC", help='second configuration, e.g. "strategy=tokens,chunk_size=256"')
    p.add_argument("--window", type=int, default=200,
                   help="a boundary within this many characters (or in the same element) counts as moved (default 200)")
    p.add_argument("--dpi", type=float, default=100, help="resolution of the page images (default 100)")
    p.add_argument("-o", "--output", required=True, help="output folder (diff.csv, page PNGs, index.html)")
    p.set_defaults(func=run_diff)


def run_render(args) -> int:
    from chunkbench.strategies import chunk
    from chunkbench.ui.report import parse_pages, write_report

    if not 10 <= args.dpi <= 600:
        raise UsageError(f"--dpi must be between 10 and 600, got {args.dpi:g}")
    show = tuple(s.strip() for s in args.show.split(",") if s.strip()) if args.show else None
    if show is not None:
        from chunkbench.ui.render import check_show

        check_show(show)
    check_outputs({}, inputs=[args.input, args.pdf, args.elements_of], folders={"--output": args.output})
    doc = load_input(args)
    chunks = chunk(doc, args.strategy, **parse_sets(args.params))
    check_not_empty(chunks, args)
    other = None
    if args.elements_of:
        from chunkbench.loaders import load

        other = load(args.elements_of, pdf=doc.pdf_path, cache=not args.no_cache)
    pages = parse_pages(args.pages, len(doc.pages)) if doc.pdf_path else None
    index = write_report(doc, chunks, args.output, pages=pages, dpi=args.dpi, show=show, elements_of=other)
    what = f"{len(pages)} page images" if pages is not None else "the text view (no PDF)"
    print(f"wrote {index} ({len(chunks)} chunks, {what})")
    return 0


def run_diff(args) -> int:
    from chunkbench.evaluate.diff import diff
    from chunkbench.ui.report import write_diff_report

    if not 10 <= args.dpi <= 600:
        raise UsageError(f"--dpi must be between 10 and 600, got {args.dpi:g}")
    check_outputs({}, inputs=[args.input, args.pdf], folders={"--output": args.output})
    doc = load_input(args)
    d = diff(doc, args.a, args.b, window=args.window)
    index = write_diff_report(d, args.output, dpi=args.dpi)
    counts = ", ".join(f"{k} {v}" for k, v in d.counts.items())
    print(f"wrote {index} ({counts}; {len(d.changed_pages())} pages with changes)")
    return 0
