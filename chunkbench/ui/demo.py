"""The main job `make demo` runs: `python -m chunkbench.ui.demo sample_pdfs out`.

For every PDF in the folder it runs the per-document STEPS (parse → `out/<stem>/elements.json` and
summary; chunk with every registered strategy → `out/<stem>/<strategy>/chunks.json` and
`chunk_debug.md`; an overlay report per strategy), then the FINAL_STEPS over all documents (the
document × strategy table, a small papermill sweep, `out/index.html` linking everything).
Steps are plain functions, so later features append a step to a list. A failing document or
strategy is reported on one line and the others go on; the exit code is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkbench.evaluate.stats import TARGETS_TEXT
from chunkbench.evaluate.verdict import VERDICT_TEXT
from chunkbench.io.atomic import write_json, write_text
from chunkbench.types.document import Document


@dataclass
class DocRun:
    """One document's state as the steps run: its paths, the parsed Document, its chunk sets."""

    pdf: Path
    out: Path
    doc: Document | None = None
    #: strategy name → ChunkSet
    chunksets: dict = field(default_factory=dict)
    #: one row per strategy for the final table
    rows: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class Demo:
    """The whole run: input folder, output folder, options and every document's DocRun."""

    folder: Path
    out: Path
    strategies: list[str] | None = None
    debug: bool = False
    #: end with a small papermill sweep (elements vs contract over every document)
    sweep: bool = True
    #: sweep points that failed (each is reported by the sweep itself)
    sweep_failures: int = 0
    runs: list[DocRun] = field(default_factory=list)

    def fail(self, run: DocRun | None, what: str, exc: BaseException) -> None:
        """Report one failure on one line (traceback with --debug) and remember it."""
        if self.debug:
            traceback.print_exception(exc)
        name = run.pdf.name if run else str(self.folder)
        line = f"{name}: {what}: {exc}" if what else f"{name}: {exc}"
        print(f"chunkbench demo: error: {line}", file=sys.stderr)
        if run is not None:
            run.errors.append(line)


Step = Callable[[Demo, DocRun], None]
FinalStep = Callable[[Demo], None]


def step_parse(demo: Demo, run: DocRun) -> None:
    """Parse the PDF, write elements.json and summary.txt, print the one-screen summary."""
    from chunkbench.app.opening import load
    from chunkbench.loaders.summary import format_summary

    run.doc = load(run.pdf)
    write_json(run.out / "elements.json", run.doc.to_dict())
    summary = format_summary(run.doc)
    write_text(run.out / "summary.txt", summary + "\n")
    print(summary)
    print(f"  wrote    {run.out / 'elements.json'}")


def step_chunk(demo: Demo, run: DocRun) -> None:
    """Chunk with every registered strategy (default params): chunks.json + chunk_debug.md each."""
    from chunkbench.app.chunking import chunk
    from chunkbench.evaluate.verdict import assess
    from chunkbench.strategies import all_strategies

    if run.doc is None:
        return
    names = demo.strategies or [s.name for s in all_strategies(peers=False)]
    for name in names:
        try:
            chunkset = chunk(run.doc, name)
            folder = run.out / name
            chunkset.to_json(folder / "chunks.json")
            seen = assess(chunkset)
            chunkset.to_debug_markdown(folder / "chunk_debug.md", [f.to_dict() for f in seen.findings])
        except Exception as exc:  # noqa: BLE001 - one strategy failing must not hide the others
            demo.fail(run, f"strategy {name}", exc)
            run.rows.append({"document": run.pdf.stem, "strategy": name, "error": type(exc).__name__})
            continue
        run.chunksets[name] = chunkset
        size, verdict = seen.size, seen.verdict
        run.rows.append({
            "document": run.pdf.stem, "strategy": name, "chunks": size.count,
            "median_chars": size.chars.median, "p95_chars": size.chars.p95,
            "targets_passed": verdict.targets_passed, "targets_total": verdict.targets_total,
            "defects_per_100": seen.counts["defects_per_100"], "verdict": verdict,
        })


def step_report(demo: Demo, run: DocRun) -> None:
    """Overlay report per strategy: `out/<stem>/<strategy>/report/index.html` and one PNG per page."""
    from .report import write_report

    if run.doc is None:
        return
    for name, chunkset in run.chunksets.items():
        try:
            write_report(run.doc, chunkset, run.out / name / "report")
        except Exception as exc:  # noqa: BLE001 - one report failing must not hide the others
            demo.fail(run, f"report {name}", exc)
    if run.chunksets:
        print(f"  reports  {run.out}/<strategy>/report/index.html")


def format_table(rows: list[dict]) -> str:
    """document × strategy → chunks, median chars, p95 chars, targets passed, defects per 100 chunks,
    the verdict of both (evaluate.verdict)."""
    from chunkbench.evaluate.stats import fmt_num

    width = max([len(r["document"]) for r in rows] + [8])
    lines = [f"{'document':<{width}}  {'strategy':<10} {'chunks':>6} {'median':>7} {'p95':>6}  targets  "
             f"{'defects':>7}  verdict"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['document']:<{width}}  {r['strategy']:<10} {'ERROR: ' + r['error']}")
            continue
        lines.append(
            f"{r['document']:<{width}}  {r['strategy']:<10} {r['chunks']:>6} {fmt_num(r['median_chars']):>7} "
            f"{fmt_num(r['p95_chars']):>6}  {r['targets_passed']}/{r['targets_total']:<5} "
            f"{fmt_num(r['defects_per_100']):>7}  {r['verdict'].word}"
        )
    return "\n".join(lines)


#: what "targets 3/4", "defects" and the verdict mean, printed under the table
TARGETS_LEGEND = (f"targets: of 4 checks met — {TARGETS_TEXT} (chunkbench stats CHUNKS.json lists them)\n"
                  f"defects: per 100 chunks, what a reviewer would object to (docs/defects.md)\nverdict: {VERDICT_TEXT}")


def final_table(demo: Demo) -> None:
    """Print the document × strategy table and keep a copy in out/summary.txt."""
    rows = [r for run in demo.runs for r in run.rows]
    if not rows:
        return
    table = format_table(rows) + "\n" + TARGETS_LEGEND
    write_text(demo.out / "summary.txt", table + "\n")
    print()
    print(table)


def final_sweep(demo: Demo) -> None:
    """A small papermill sweep over the documents (elements vs contract): results table and plots."""
    inputs = [run.pdf for run in demo.runs if run.doc is not None]
    if inputs and demo.sweep:
        print()
        results = demo_sweep(inputs, demo.out / "sweep")
        demo.sweep_failures = int((results["status"] != "ok").sum())


#: the small grid `make demo` ends with: two strategies over every sample PDF (8 points, 4 notebooks)
DEMO_GRID = {"strategy": ["elements", "contract"]}


def demo_sweep(inputs: Sequence[str | os.PathLike], out_dir: str | os.PathLike,
               grid: Mapping[str, Sequence[Any]] = DEMO_GRID, jobs: int | None = None):
    """Run a small sweep, write its summary.html, print its results table and where the files and
    plots are; return the DataFrame."""
    from chunkbench.app.sweep import best_lines, exit_status, format_results, run_sweep
    from chunkbench.ui.sweep_summary import write_summary

    df = run_sweep(inputs, grid, out_dir, jobs=jobs)
    write_summary(df, out_dir)
    print(format_results(df))
    for line in best_lines(df):
        print(line)
    out = Path(out_dir)
    print(f"sweep results: {out / 'results.csv'} (and results.parquet); each input's notebook (its best point) "
          f"under {out / 'points'}")
    print(f"sweep plots:   {out / 'summary.html'}")
    message = exit_status(df)[1]
    if message:
        print(f"chunkbench sweep: {message}", file=sys.stderr)
    return df


def final_index(demo: Demo) -> None:
    """`out/index.html`: per document, a row per strategy with what it is, its counts, its verdict
    (the best marked), the quality targets it met, its defects and a thumbnail linking its overlay
    report; then the sweep."""
    write_text(demo.out / "index.html", index_html(demo))
    print(f"\nopen {demo.out / 'index.html'} for every report")


def index_html(demo: Demo) -> str:
    import html

    from chunkbench.evaluate.stats import MEDIAN_CHARS_RANGE, P95_CHARS_LIMIT, fmt_num
    from chunkbench.evaluate.verdict import WORDS as VERDICT_WORDS
    from chunkbench.strategies import get_strategy

    lo, hi = MEDIAN_CHARS_RANGE
    sections = []
    for run in demo.runs:
        ok_rows = [r for r in run.rows if "error" not in r]
        best = min((r["verdict"].word for r in ok_rows), key=VERDICT_WORDS.index, default=None)
        lines = []
        for r in run.rows:
            name = r["strategy"]
            about = html.escape(get_strategy(name).doc) if name in run.chunksets else ""
            report = f"{run.pdf.stem}/{name}/report/index.html"
            thumb = f"{run.pdf.stem}/{name}/report/page-001.png"
            if "error" in r:
                lines.append(f"<tr><td><b>{html.escape(name)}</b></td><td colspan=8 class=err>failed: "
                             f"{html.escape(r['error'])}</td></tr>")
                continue
            verdict = r["verdict"]
            star = " ✓ cleanest" if verdict.word == best else ""
            picture = (f'<a href="{html.escape(report)}"><img src="{html.escape(thumb)}" alt="page 1, {html.escape(name)}"'
                       ' loading=lazy></a>' if (demo.out / thumb).exists() else "")
            lines.append(
                f"<tr><td><a href=\"{html.escape(report)}\"><b>{html.escape(name)}</b></a><div class=about>{about}</div></td>"
                f"<td class=n>{r['chunks']}</td><td class=n>{fmt_num(r['median_chars'])}</td>"
                f"<td class=n>{fmt_num(r['p95_chars'])}</td>"
                f"<td><b>{verdict.word}</b>{star}</td><td class=n>{r['targets_passed']}/{r['targets_total']}</td>"
                f"<td class=n>{fmt_num(r['defects_per_100'])}</td><td>{picture}</td></tr>"
            )
        sections.append(
            f"<h2>{html.escape(run.pdf.name)}</h2><table><tr><th>strategy (opens its overlay report)</th>"
            "<th>chunks</th><th>median chars</th><th>p95 chars</th><th>verdict</th><th>targets met</th>"
            "<th>defects per 100 chunks</th>"
            "<th>page 1</th></tr>"
            + "".join(lines) + "</table>"
        )
    sweep = ('<h2>Sweep: which retrieves best</h2><p><a href="sweep/summary.html">Sweep summary</a>: the best '
             "strategy per document by retrieval over its questions (by the measure it names), metrics "
             "per strategy, and every point (results.csv, results.parquet).</p>"
             if (demo.out / "sweep" / "summary.html").exists() else "")
    return (
        '<!doctype html><meta charset="utf-8"><title>chunkbench demo</title>'
        "<style>body{font:14px/1.4 system-ui,sans-serif;margin:24px;max-width:1200px}"
        "table{border-collapse:collapse;margin-bottom:8px}td,th{padding:4px 10px;border-bottom:1px solid #ddd;"
        "vertical-align:top;text-align:left}td.n{text-align:right;white-space:nowrap}.about{color:#555;font-size:12px;"
        "max-width:34em}img{width:110px;border:1px solid #ccc}.err{color:#a00}.legend{background:#f4f4f0;"
        "padding:8px 12px;border-radius:4px}</style>"
        "<h1>chunkbench demo</h1>"
        "<p>Each sample PDF was parsed once and chunked with every strategy. A row opens that strategy's overlay "
        "report: the pages with each chunk drawn on them and the reason each boundary is where it is.</p>"
        f"<p class=legend><b>Verdict</b> says in one word what the targets and the defects say together: "
        f"{html.escape(VERDICT_TEXT)}. <b>✓ cleanest</b> marks the best verdict for that document: chunks that are "
        "usable and cut where a reader would, not a verdict on which retrieves best. That is the sweep's, "
        "below: it is the one this page calls best. "
        f"<b>Targets met</b> counts four checks of a chunk set: the median chunk is {lo}–{hi} "
        f"characters; 95% of chunks are under {P95_CHARS_LIMIT:,}; every chunk knows its pages; every chunk knows its "
        "source elements. "
        "<b>Defects per 100 chunks</b> counts what a reviewer would object to (a lead-in apart from its table, a "
        "cut mid-sentence or mid-word, a footnote inside a table piece, …), boxed in red in each report "
        "(docs/defects.md).</p>"
        + "".join(sections) + sweep
    )


#: per-document steps, in order; append to extend the demo
STEPS: list[Step] = [step_parse, step_chunk, step_report]
#: steps over all documents after the per-document steps
FINAL_STEPS: list[FinalStep] = [final_table, final_sweep, final_index]


def run_demo(folder: str | Path, out: str | Path, *, strategies: list[str] | None = None,
             debug: bool = False, sweep: bool = True) -> int:
    """Run STEPS on every PDF in `folder`, then FINAL_STEPS; 0 if all succeeded, else 1."""
    from chunkbench.errors import UsageError

    demo = Demo(Path(folder), Path(out), strategies, debug, sweep)
    if not demo.folder.is_dir():
        raise UsageError("not a folder", demo.folder)
    pdfs = sorted(p for p in demo.folder.iterdir() if p.suffix.lower() == ".pdf" and p.is_file())
    if not pdfs:
        raise UsageError("no .pdf files in this folder", demo.folder)
    for pdf in pdfs:
        run = DocRun(pdf, demo.out / pdf.stem)
        demo.runs.append(run)
        for step in STEPS:
            try:
                step(demo, run)
            except Exception as exc:  # noqa: BLE001 - report and go on with the next document
                demo.fail(run, "", exc)
                break
        print()
    for final in FINAL_STEPS:
        try:
            final(demo)
        except Exception as exc:  # noqa: BLE001
            demo.fail(None, final.__name__, exc)
            return 1
    failed = [run for run in demo.runs if run.errors]
    if failed:
        print(f"chunkbench demo: {len(failed)} of {len(demo.runs)} document(s) had errors", file=sys.stderr)
    if demo.sweep_failures:
        print(f"chunkbench demo: {demo.sweep_failures} sweep point(s) failed", file=sys.stderr)
    return 1 if failed or demo.sweep_failures else 0


def main(argv: list[str] | None = None) -> int:
    from chunkbench.errors import ChunkbenchError

    ap = argparse.ArgumentParser(prog="python -m chunkbench.ui.demo", description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", default="sample_pdfs", help="folder of PDFs (default sample_pdfs)")
    ap.add_argument("out", nargs="?", default="out", help="output folder (default out)")
    ap.add_argument("--strategies", default=None, help="comma-separated strategies (default: all registered)")
    ap.add_argument("--no-sweep", action="store_true", help="skip the final small sweep")
    ap.add_argument("--debug", action="store_true", help="show tracebacks")
    args = ap.parse_args(argv)
    names = [s.strip() for s in args.strategies.split(",") if s.strip()] if args.strategies else None
    try:
        return run_demo(args.folder, args.out, strategies=names, debug=args.debug, sweep=not args.no_sweep)
    except ChunkbenchError as exc:
        print(f"chunkbench demo: error: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
