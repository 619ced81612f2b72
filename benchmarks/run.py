"""`make bench`: run the benchmarks, print the table, write `benchmarks/results.md`.

    python -m benchmarks.run [--quick] [--only tokens,parse,structure,render,explore,foreign,dense,mineru] [-o benchmarks/results.md]

Sections (issue 8): 1. tokens strategy vs raw encode and peer splitters; 2. structure strategies
as a share of parse time and their scaling; 3. parsing vs pymupdf4llm, cores, cache, memory;
4. overlay rendering vs pdfplumber (`bench_render`); 5. explorer and sweep (`bench_explore`);
6. locating another chunker's chunks (`bench_foreign`); 7. the torch-free dense encoder (`bench_dense`);
8. MinerU 4's flash tier against the default parser (`bench_mineru`).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
import time

from chunkbench.io.atomic import write_text

from .common import ROOT, Row, machine, markdown_table, plain_table

SECTIONS = ("tokens", "parse", "structure", "render", "explore", "foreign", "dense", "mineru", "corpus")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer runs; skip the generated 2,400-page PDF")
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections: " + ", ".join(SECTIONS))
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "benchmarks", "results.md"))
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(only) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown section(s) {', '.join(sorted(unknown))}; choose from {', '.join(SECTIONS)}")
    runs = 3 if args.quick else 5
    started = time.perf_counter()
    header = machine()
    print("\n".join(header), flush=True)
    rows: list[Row] = []
    notes: dict[str, list[str]] = {}
    facts: dict = {}
    if "tokens" in only:
        from . import bench_tokens

        r, n = bench_tokens.run(runs=runs, peer_runs=3)
        _report(rows, notes, bench_tokens.SECTION, r, n)
    if "parse" in only:
        from . import bench_parse

        r, n, facts = bench_parse.run(runs=2 if args.quick else 3, quick=args.quick)
        _report(rows, notes, bench_parse.SECTION, r, n)
    if "structure" in only:
        from . import bench_structure

        r, n = bench_structure.run(facts, runs=2 if args.quick else 3)
        _report(rows, notes, bench_structure.SECTION, r, n)
    if "render" in only:
        from . import bench_render

        r, n = bench_render.run(runs=2 if args.quick else 3)
        _report(rows, notes, bench_render.SECTION, r, n)
    if "explore" in only:
        from . import bench_explore

        r, n = bench_explore.run(runs=2 if args.quick else 3)
        _report(rows, notes, bench_explore.SECTION, r, n)
    if "foreign" in only:
        from . import bench_foreign

        r, n = bench_foreign.run(runs=2 if args.quick else 3)
        _report(rows, notes, bench_foreign.SECTION, r, n)
    if "dense" in only:
        from . import bench_dense

        r, n = bench_dense.run(runs=2)
        _report(rows, notes, bench_dense.SECTION, r, n)
    if "mineru" in only:
        from . import bench_mineru

        r, n = bench_mineru.run(runs=2 if args.quick else 3)
        _report(rows, notes, bench_mineru.SECTION, r, n)
    if "corpus" in only:
        from . import bench_corpus

        r, n = bench_corpus.run(runs=1 if args.quick else 2)
        _report(rows, notes, bench_corpus.SECTION, r, n)
    elapsed = time.perf_counter() - started
    rows.sort(key=lambda r: r.section)
    write_text(args.output, results_markdown(header, rows, notes, elapsed, args))
    missed = [r for r in rows if r.met is False]
    print(f"\n{len(rows)} figures, {sum(r.met is True for r in rows)} targets met, {len(missed)} not met; "
          f"{elapsed / 60:.1f} min; wrote {os.path.relpath(args.output)}")
    return 0


def _report(rows: list[Row], notes: dict, section: str, new_rows: list[Row], new_notes: list[str]) -> None:
    rows.extend(new_rows)
    notes[section] = new_notes
    print(f"\n## {section}\n" + plain_table(new_rows), flush=True)
    for n in new_notes:
        if not n.startswith("profile"):
            print("  " + n)


def results_markdown(header: list[str], rows: list[Row], notes: dict, elapsed: float, args) -> str:
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        "# chunkbench benchmark results",
        "",
        f"Written by `python -m benchmarks.run{' --quick' if args.quick else ''}` (`make bench`) on {now}, "
        f"in {elapsed / 60:.1f} minutes. Each figure is the median of several runs unless its note says "
        "otherwise; every ratio is against a peer measured in the same run (ratio > 1 means chunkbench "
        "is faster, or for shares/growth: the measured factor).",
        "",
        "## Machine",
        "",
        *[f"- {line}" for line in header],
        "",
        "## Results",
        "",
        markdown_table(rows),
        "",
    ]
    missed = [r for r in rows if r.met is False]
    out += ["## Targets not met", ""]
    out += [f"- {r.name}: {r.cells()[4]} against target {r.target} ({r.note})" for r in missed] or ["- none"]
    out.append("")
    for section in sorted(notes):
        if notes[section]:
            out += [f"## Notes: {section}", ""]
            out += [n if n.startswith("profile") else f"- {n}" for n in notes[section]]
            out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
