"""Benchmark 3: parsing with the default backend vs `pymupdf4llm.to_json` alone, cores, cache, memory.

Each parse runs in a fresh process (`benchmarks.worker`) whose process tree's RSS is sampled, so
peak memory includes the worker pool.
"""

from __future__ import annotations

import glob
import os
import shutil
import statistics

from .common import BENCH_DIR, SHARED_PDFS, Row, run_worker
from .pdfgen import long_pdf, pdf_slice

SECTION = "3. parsing"
LONG_PDF = os.path.join(SHARED_PDFS, "long_gnuplot-5.4.pdf")
SAMPLE_PDFS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sample_pdfs")
GIB = 2**30


def _median_worker(args: list[str], runs: int) -> tuple[float, dict, int]:
    answers = [run_worker(args) for _ in range(runs)]
    return statistics.median(a[0]["seconds"] for a in answers), answers[-1][0], max(a[1] for a in answers)


def _overhead_rows(what: str, pdfs: list[str], runs: int) -> list[Row]:
    """chunkbench's parse against `pymupdf4llm.to_json` on one core, in this process and by
    default (the per-page limit's forked workers), over `pdfs` (medians summed). The three are
    run in turn, run after run, so a change in the shared machine's load falls on all three."""
    modes = {"to_json": ["to_json"], "default": ["chunkbench", "--workers", "1"],
             "own": ["chunkbench", "--workers", "1", "--page-timeout", "0"]}
    total = dict.fromkeys(modes, 0.0)
    pages = 0
    for pdf in pdfs:
        seconds: dict[str, list[float]] = {mode: [] for mode in modes}
        for _ in range(runs):
            for mode, args in modes.items():
                answer, _ = run_worker([args[0], pdf, *args[1:], "--cpus", "1"])
                seconds[mode].append(answer["seconds"])
        for mode in modes:
            total[mode] += statistics.median(seconds[mode])
        pages += answer["pages"]
    t_json, t_cb, t_own = total["to_json"], total["default"], total["own"]
    own, overhead = t_own / t_json - 1, t_cb / t_json - 1
    return [
        Row(SECTION, f"parse in this process, 1 core ({what}, {pages} pages)", pages / t_own, "pages/s",
            "pymupdf4llm.to_json", pages / t_json, t_json / t_own, "overhead ≤ 10%", own <= 0.10,
            f"overhead {own * 100:+.1f}%: chunkbench's own work after to_json (page_timeout 0)"),
        Row(SECTION, f"parse, default (per-page time limit), 1 core ({what}, {pages} pages)", pages / t_cb,
            "pages/s", "pymupdf4llm.to_json", pages / t_json, t_json / t_cb, "overhead ≤ 10%", overhead <= 0.10,
            f"overhead {overhead * 100:+.1f}%: the parse runs in forked worker processes (the per-page limit); "
            "both sides run the layout model on one thread (--cpus 1)"),
    ]


def blank_pdf(pages: int) -> str:
    """A PDF of `pages` empty pages (nothing drawn), in the benchmark folder."""
    from chunkbench.loaders.pdflib import pymupdf

    path = os.path.join(BENCH_DIR, f"blank-{pages}.pdf")
    if not os.path.exists(path):
        doc = pymupdf.open()
        for _ in range(pages):
            doc.new_page()
        doc.save(path)
    return path


def _blank_pages_row(text_pdf: str, runs: int) -> Row:
    """Empty pages against text pages, per page, one core, in this process (issue 80: 5,000 empty
    pages took 30-40 minutes to give 0 chunks; they now skip the layout model)."""
    t_blank, blank, _ = _median_worker(["chunkbench", blank_pdf(500), "--workers", "1", "--cpus", "1",
                                        "--page-timeout", "0"], runs)
    t_text, text, _ = _median_worker(["chunkbench", text_pdf, "--workers", "1", "--cpus", "1",
                                      "--page-timeout", "0"], runs)
    per_blank, per_text = t_blank / blank["pages"], t_text / text["pages"]
    return Row(SECTION, f"empty pages, 1 core ({blank['pages']} pages)", blank["pages"] / t_blank, "pages/s",
               f"text pages ({text['pages']})", text["pages"] / t_text, per_text / per_blank, "≥ 50×",
               per_text / per_blank >= 50, f"median of {runs}; a page with no text, image or drawing skips the layout model")


def run(runs: int = 3, quick: bool = False) -> tuple[list[Row], list[str], dict]:
    """Rows, notes, and facts later sections use (`long_parse_seconds`, `long_cache_dir`)."""
    rows: list[Row] = []
    notes: list[str] = []
    facts: dict = {}
    if not os.path.exists(LONG_PDF):
        return rows, [f"{LONG_PDF} not found: parsing benchmarks skipped"], facts

    # overhead at equal cores: one process each pinned to one CPU, the layout model on one thread
    # (ONNX Runtime would otherwise run it on every core whatever the affinity), the same 12-page
    # file; then the sample PDFs, each parsed on its own as a user would, their times summed
    small = pdf_slice(LONG_PDF, 0, 12)
    rows += _overhead_rows("a slice of the 311-page PDF", [small], runs)
    samples = sorted(glob.glob(os.path.join(SAMPLE_PDFS, "*.pdf")))
    if samples:
        rows += _overhead_rows(f"the {len(samples)} sample PDFs one by one", samples, runs)

    rows.append(_blank_pages_row(small, runs))

    # all cores vs one core (pinned) on a file long enough for the worker pool
    mid = pdf_slice(LONG_PDF, 0, 32)  # more than PARALLEL_MIN_PAGES, so the pool is used
    core_runs = max(2, runs - 1)
    t1, a1, _ = _median_worker(["chunkbench", mid, "--workers", "1", "--cpus", "1"], core_runs)
    t2, _, _ = _median_worker(["chunkbench", mid, "--workers", str(max(2, os.cpu_count() or 2))], core_runs)
    rows.append(Row(SECTION, f"parse, all cores ({a1['pages']} pages)", a1["pages"] / t2, "pages/s",
                    "same, pinned to 1 core", a1["pages"] / t1, t1 / t2, "≥ 1.8×", t1 / t2 >= 1.8,
                    f"{os.cpu_count()} cores, median of {core_runs}"))

    # the whole 311-page PDF: parse time (used by section 2), cached reload, peak memory
    cache = os.path.join(BENCH_DIR, "parse-cache")
    shutil.rmtree(cache, ignore_errors=True)
    (answer, peak) = run_worker(["chunkbench", LONG_PDF, "--cache-dir", cache])
    t_long = answer["seconds"]
    facts.update(long_parse_seconds=t_long, long_cache_dir=cache, long_pdf=LONG_PDF)
    rows.append(Row(SECTION, f"parse {answer['pages']}-page PDF (default workers)", answer["pages"] / t_long,
                    "pages/s", note=f"{t_long:.1f} s, {answer['elements']:,} elements, single run"))
    rows.append(Row(SECTION, f"peak RSS, {answer['pages']}-page PDF", peak / GIB, "GiB", target="≤ 2 GB",
                    met=peak <= 2e9, note="process tree incl. workers"))
    reload, _ = run_worker(["reload", LONG_PDF, "--cache-dir", cache, "--runs", "5"])
    share = reload["seconds"] / t_long
    rows.append(Row(SECTION, "cached reload, 311-page PDF", reload["seconds"], "s", "parse", t_long, share,
                    "≤ 2% of parse", share <= 0.02, "median of 5", percent=True))

    if quick:
        notes.append("--quick: the generated 2,400-page PDF was not parsed")
        return rows, notes, facts
    big = long_pdf(2400)
    (answer, peak) = run_worker(["chunkbench", big], timeout=1800)
    rows.append(Row(SECTION, f"parse generated {answer['pages']}-page PDF", answer["pages"] / answer["seconds"],
                    "pages/s", note=f"{answer['seconds']:.0f} s, single run"))
    rows.append(Row(SECTION, f"peak RSS, generated {answer['pages']}-page PDF", peak / GIB, "GiB",
                    target="≤ 2 GB", met=peak <= 2e9, note="process tree incl. workers"))
    return rows, notes, facts
