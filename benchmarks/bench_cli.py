"""Benchmark 11: how long the command line takes to answer, from process start to exit: a new
user's first contact. `chunkbench strategies` (target ≤ 0.5 s: the peers are listed from their
distributions, not imported) and `chunkbench chunk` on a PDF whose parse is cached (target ≤ 0.6 s:
what is left is imports and the chunking), each the median of `runs` fresh processes."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import ROOT, Row

SECTION = "11. command-line start"
PDF = Path(ROOT) / "sample_pdfs" / "contract_services_agreement.pdf"
TARGETS = {"strategies": 0.5, "chunk": 0.6}  # issue 80.5, on an idle machine


def _seconds(args: list[str], runs: int) -> float:
    """Median wall time of `runs` fresh `python -m chunkbench ARGS` processes."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "chunkbench", *args], check=True, capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run(runs: int = 5) -> tuple[list[Row], list[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "chunks.json")
        _seconds(["chunk", str(PDF), "-o", out], 1)  # fills the parse cache
        measured = {
            "strategies": _seconds(["strategies"], runs),
            "chunk": _seconds(["chunk", str(PDF), "-o", out], runs),
        }
    rows = [Row(SECTION, f"`chunkbench {name}`" + (" (cached 6-page PDF, -o chunks.json)" if name == "chunk" else ""),
                seconds, "s", target=f"≤ {TARGETS[name]} s", met=seconds <= TARGETS[name])
            for name, seconds in measured.items()]
    notes = ["Wall time of a fresh process, the interpreter's own start (about 0.02 s) included; "
             "`python -X importtime -m chunkbench chunk ...` shows where the rest goes (PyMuPDF's import "
             "is about 0.08 s of it)."]
    return rows, notes
