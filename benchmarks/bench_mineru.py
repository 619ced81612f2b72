"""Benchmark 8: MinerU 4's flash tier against the default parser, on the same PDFs, uncached.

Both run as chunkbench runs them (`chunkbench.load(pdf, backend=...)`): MinerU through its SDK in a
child process, the default parser with its worker pool. Wall time, median of `runs`, including
start-up (MinerU's child Python and model load are part of what a user waits for)."""

from __future__ import annotations

import importlib.util
import os
import statistics
import time

from chunkbench import load

from .common import ROOT, SHARED_PDFS, Row
from .pdfgen import pdf_slice

SECTION = "8. MinerU flash vs default parser"


def _seconds(pdf: str, backend: str, runs: int) -> tuple[float, int]:
    times = []
    pages = 0
    for _ in range(runs):
        started = time.perf_counter()
        doc = load(pdf, backend=backend, cache=False)
        times.append(time.perf_counter() - started)
        pages = len(doc.pages)
    return statistics.median(times), pages


def run(runs: int = 3) -> tuple[list[Row], list[str]]:
    if importlib.util.find_spec("mineru") is None:
        return [], ["the mineru extra is not installed: MinerU benchmarks skipped"]
    rows: list[Row] = []
    pdfs = [os.path.join(ROOT, "sample_pdfs", "contract_services_agreement.pdf")]
    long_pdf = os.path.join(SHARED_PDFS, "long_gnuplot-5.4.pdf")
    if os.path.exists(long_pdf):
        pdfs.append(pdf_slice(long_pdf, 0, 32))
    for pdf in pdfs:
        t_mineru, pages = _seconds(pdf, "mineru", runs)
        t_default, _ = _seconds(pdf, "pymupdf", runs)
        rows.append(Row(SECTION, f"MinerU 4 flash, {pages} pages ({os.path.basename(pdf)})", pages / t_mineru,
                        "pages/s", "default parser (pymupdf)", pages / t_default, t_default / t_mineru,
                        note=f"{t_mineru:.1f} s vs {t_default:.1f} s, median of {runs}, uncached"))
    return rows, []
