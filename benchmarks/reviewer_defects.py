"""Issue 55's table: the defects a reviewer sees at once, per document and strategy, with defaults.

    python -m benchmarks.reviewer_defects [PDF_OR_DIR ...] [--strategies a,b] [-o FILE.md]

Every own strategy with its defaults, the retrieval default (`chunk --for-retrieval`) and LangChain's
recursive splitter (1,000 characters) chunk each PDF (default: the public PDFs `make public-pdfs`
puts in .cache/public_pdfs, and ../shared/pdfs); `chunkbench.evaluate.defects` counts what is wrong.
The columns are issue 55's goal (at most 1 per document of each): a lead-in apart from its table
or list, a footnote inside a table piece, a table-of-contents chunk, an inverted table reason (a
table's first piece saying `table_row_split`, a later one saying `table`); and `section_path` on the
chunks after the first heading (goal ≥ 95%), then every defect per 100 chunks."""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence

import chunkbench as cb
from chunkbench.errors import ChunkbenchError
from chunkbench.evaluate.defects import Defect, find_defects
from chunkbench.io.atomic import write_text
from chunkbench.types.chunk import Reason

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PUBLIC = os.path.join(ROOT, ".cache", "public_pdfs")
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "pdfs")
OWN = ("elements", "contract", "headers", "sections", "tokens", "recursive", "sentences", "semantic")
#: the settings beside the own strategies' defaults: the retrieval default and a plain splitter
EXTRA = (("for-retrieval", "recursive", {"chunk_size": 150}),
         ("langchain", "langchain:RecursiveCharacterTextSplitter", {"chunk_size": 1000}))


def inverted_reasons(chunkset) -> int:
    """Table pieces whose reason is the wrong way round: the first piece of a table saying
    `table_row_split`, a later piece (the table began in an earlier chunk) saying `table`."""
    doc, n = chunkset.doc, 0
    for c in chunkset.chunks:
        if c.start_char is None:
            continue
        start = c.start_char + int(c.extra.get("overlap_chars") or 0)  # where its own text begins, past an overlap
        e = doc.element_at(start)
        if e is None or e.type != "table":
            continue
        first = start <= e.char_start
        if (first and c.boundary.reason is Reason.TABLE_ROW_SPLIT) or (not first and c.boundary.reason is Reason.TABLE):
            n += 1
    return n


def path_coverage(chunkset) -> float | None:
    """Share of the chunks starting after the document's first heading that carry a section path."""
    first = next((e.char_start for e in chunkset.doc.elements if e.heading_level is not None and e.text.strip()), None)
    if first is None:
        return None
    after = [c for c in chunkset.chunks if c.start_char is not None and c.start_char >= first]
    return round(sum(bool(c.section_path) for c in after) / len(after), 3) if after else None


def row(name: str, chunkset) -> dict:
    findings = find_defects(chunkset)
    counts = Counter(f.code for f in findings)
    in_table = sum(f.code is Defect.FURNITURE_INSIDE and "piece of a table" in f.detail for f in findings)
    n = len(chunkset.chunks)
    return {"setting": name, "chunks": n, "lead_in": counts[Defect.LEAD_IN_SPLIT], "footnote_in_table": in_table,
            "toc": counts[Defect.TOC_CHUNK] + counts[Defect.INDEX_CHUNK], "inverted": inverted_reasons(chunkset),
            "path": path_coverage(chunkset), "per100": round(100 * len(findings) / n, 1) if n else None,
            "codes": {d.value: counts[d] for d in Defect if counts[d]}}


def measure(pdf: str, strategies: Sequence[str]) -> list[dict]:
    doc = cb.load(pdf)
    settings = [(s, s, {}) for s in strategies if s in OWN] + [e for e in EXTRA if e[0] in strategies]
    out = []
    for name, strategy, params in settings:
        try:
            chunkset = cb.chunk(doc, strategy, **params)
        except ChunkbenchError as exc:
            print(f"{os.path.basename(pdf)} {name}: {exc}", file=sys.stderr)
            continue
        out.append({"doc": os.path.basename(pdf), **row(name, chunkset)})
    return out


def table(rows: Sequence[dict]) -> str:
    head = ("| document | setting | chunks | lead-in apart | footnote in table piece | contents chunks | "
            "inverted table reason | section_path after 1st heading | defects / 100 chunks | by code |")
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        codes = ", ".join(f"{k} {v}" for k, v in sorted(r["codes"].items()))
        path = "–" if r["path"] is None else f"{100 * r['path']:.1f}%"
        lines.append(f"| {r['doc']} | {r['setting']} | {r['chunks']} | {r['lead_in']} | {r['footnote_in_table']} | "
                     f"{r['toc']} | {r['inverted']} | {path} | {r['per100']} | {codes} |")
    return "\n".join(lines)


def inputs(items: Sequence[str]) -> list[str]:
    paths = []
    for item in items or [PUBLIC, SHARED]:
        paths += sorted(glob.glob(os.path.join(item, "*.pdf"))) if os.path.isdir(item) else [item]
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("inputs", nargs="*", help="PDFs or folders of PDFs")
    p.add_argument("--strategies", default=",".join([s for s in OWN if s != "semantic"] + [e[0] for e in EXTRA]),
                   help="settings to run (default: all but semantic, which embeds every sentence: about 1,000 "
                        "characters a second)")
    p.add_argument("-o", "--output", default=None)
    args = p.parse_args(argv)
    started = time.monotonic()
    rows = [r for pdf in inputs(args.inputs) for r in measure(pdf, [s for s in args.strategies.split(",") if s])]
    text = table(rows) + f"\n\n({len(rows)} rows, {time.monotonic() - started:.0f} s)\n"
    if args.output:
        write_text(args.output, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
