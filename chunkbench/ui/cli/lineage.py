"""`chunkbench lineage OLD NEW [--a SPEC] [--b SPEC] [-o lineage.jsonl]`: what became of each chunk
between two chunk sets (two versions of a document, two parses, two settings), and what to re-embed."""

from __future__ import annotations

import argparse
import os

from . import add_document_id_option, add_edits_option, strategy_chunks


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "lineage", help="what became of each chunk between two versions or settings, and what to re-embed",
        description=(
            "Maps every chunk of OLD to the chunks of NEW: unchanged, moved, split, merged, edited (with the "
            "share of words kept) or removed; a chunk of NEW nothing maps to is added. Each side is a chunks.json "
            "(its document beside it) or an input chunked with --a / --b (like diff: 'strategy=tokens,"
            "chunk_size=512'; default: elements). Prints one summary line; -o writes one JSON line per mapping "
            "(kind, old ids, new ids, similarity, pages): re-embed the new ids of added, edited, split and "
            "merged, keep the rest (docs/lineage.md)."),
    )
    p.add_argument("old", metavar="OLD", help="the earlier chunks.json, or input (.pdf, .md, MinerU output, ...)")
    p.add_argument("new", metavar="NEW", help="the later chunks.json, or input")
    p.add_argument("--a", default="", metavar="SPEC", help="how OLD is chunked when it is an input")
    p.add_argument("--b", default="", metavar="SPEC", help="how NEW is chunked when it is an input (default: as --a)")
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write the mappings as JSON Lines here")
    p.add_argument("--html", default=None, metavar="DIR",
                   help="write index.html here: the changes, and both versions' changed pages side by side with "
                        "each chunk in the colour of its kind")
    p.add_argument("--carry-reviews", action="store_true",
                   help="save for NEW the reviewers' verdicts and edits on OLD that still apply (the chunk's text "
                        "is the same; the edit's text is there) and list those that no longer apply")
    p.add_argument("--workspace", default=None,
                   help="workspace database of the reviews (default $CHUNKBENCH_WORKSPACE or ./.chunkbench/workspace.db)")
    p.add_argument("--force", action="store_true",
                   help="map two sets that share no text (every chunk removed and added) instead of refusing")
    add_edits_option(p, workspace=False)
    add_document_id_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from chunkbench.evaluate.lineage import lineage
    from chunkbench.io.atomic import write_text
    from chunkbench.io.outputs import check_outputs, write_output

    targets = check_outputs({"--output": args.output}, inputs=[args.old, args.new], folders={"--html": args.html})
    target, html_dir = targets.get("--output"), targets.get("--html")
    old = side(args.old, args.a, args)
    new = side(args.new, args.b or args.a, args)
    result = lineage(old, new, force=args.force)
    if target is not None:
        write_output(target, lambda p: write_text(p, result.to_jsonl()))
    print(result.summary())
    if target is not None:
        print(f"wrote {target} ({len(result.links)} lines)")
    if html_dir is not None:
        from chunkbench.ui.lineage_report import write_lineage_report

        print(f"wrote {write_lineage_report(result, old, new, html_dir)}")
    if args.carry_reviews:
        from chunkbench.app.carry_over import carry_reviews

        carried = carry_reviews(old, new, workspace=args.workspace, result=result)
        print(carried.summary())
        for line in carried.not_applying:
            print(f"  no longer applies: {line}")
    return 0


def side(path: str, spec: str, args: argparse.Namespace):
    """One side of the lineage: a chunks.json over its document, or the input chunked by `spec`
    (with the stored edits under `--apply-edits`, as every command chunks)."""
    from chunkbench.app.opening import load, load_chunks
    from chunkbench.evaluate.diff import parse_spec

    if path.endswith(".json") and os.path.isfile(path) and _is_chunks_json(path):
        return load_chunks(path)
    return strategy_chunks(load(path, document_id=args.document_id), args, *parse_spec(spec))


def _is_chunks_json(path: str) -> bool:
    """Whether a .json file is a chunks.json (it names its chunking), read only as far as needed."""
    with open(path, "rb") as f:
        head = f.read(4096)
    return b'"chunking"' in head
