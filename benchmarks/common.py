"""Shared benchmark plumbing: medians of repeated runs, result rows, machine description, peak RSS."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED_PDFS = os.path.join(os.path.dirname(ROOT), "shared", "pdfs")
BENCH_DIR = os.path.join(ROOT, ".cache", "bench")


def timed(fn: Callable[[], Any], runs: int, warmup: int = 1) -> tuple[float, float, Any]:
    """Median wall time and median CPU time (this process, all threads) of `runs` calls of `fn`
    after `warmup` untimed calls, and the last result."""
    result = None
    for _ in range(warmup):
        result = fn()
    walls, cpus = [], []
    for _ in range(runs):
        c0, t0 = time.process_time(), time.perf_counter()
        result = fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus), result


@dataclass
class Row:
    """One measured figure, optionally against a peer measured in the same run, and its target."""

    section: str
    name: str
    value: float
    unit: str
    peer: str = ""
    peer_value: float | None = None
    ratio: float | None = None
    target: str = ""
    met: bool | None = None
    note: str = ""
    #: show the ratio as a percentage (shares of a larger figure) instead of a factor
    percent: bool = False

    def cells(self) -> list[str]:
        status = "" if self.met is None else ("met" if self.met else "NOT met")
        return [
            self.name,
            f"{fmt(self.value)} {self.unit}",
            self.peer,
            "" if self.peer_value is None else f"{fmt(self.peer_value)} {self.unit}",
            "" if self.ratio is None else f"{self.ratio * 100:.2f}%" if self.percent else f"{self.ratio:.2f}×",
            self.target,
            status,
            self.note,
        ]


def fmt(x: float) -> str:
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


HEADER = ["measure", "value", "peer", "peer value", "ratio", "target", "status", "note"]


def markdown_rows(rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table of rows' cells (Row.cells()) under HEADER."""
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join("---" for _ in HEADER) + "|"]
    for cells in rows:
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def plain_table(rows: Sequence[Row]) -> str:
    cells = [HEADER] + [r.cells() for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADER))]
    return "\n".join("  ".join(c[i].ljust(widths[i]) for i in range(len(HEADER))).rstrip() for c in cells)


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def machine() -> list[str]:
    """Lines describing the machine and the versions that the figures depend on."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            names = [ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem = float("nan")
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    pkgs = ["chunkbench", "tiktoken", "numpy", "pymupdf", "pymupdf4llm", "pymupdf-layout",
            "langchain-text-splitters", "chonkie", "semchunk"]
    return [
        f"CPU: {cpu}, {os.cpu_count()} logical cores; RAM {mem:.1f} GiB",
        f"OS: {platform.platform()}; Python {platform.python_version()}",
        f"load average at start: {', '.join(f'{x:.2f}' for x in load)} (the machine may be shared)",
        "versions: " + ", ".join(f"{p} {package_version(p)}" for p in pkgs),
    ]


class TreeRss:
    """Samples the summed RSS of a process and all its descendants; `peak` in bytes."""

    def __init__(self, pid: int, interval: float = 0.05):
        import psutil

        self.proc = psutil.Process(pid)
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> TreeRss:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import psutil

        while not self._stop.is_set():
            total = 0
            try:
                procs = [self.proc, *self.proc.children(recursive=True)]
            except psutil.Error:
                break
            for p in procs:
                try:
                    total += p.memory_info().rss
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            self._stop.wait(self.interval)


def run_worker(args: Sequence[str], timeout: float = 900) -> tuple[dict, int]:
    """Run `python -m benchmarks.worker ARGS` in a fresh process; its JSON answer and peak tree RSS."""
    import json

    cmd = [sys.executable, "-m", "benchmarks.worker", *args]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with TreeRss(proc.pid) as rss:
        out, err = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed: {err.strip().splitlines()[-1:] or proc.returncode}")
    return json.loads(out.strip().splitlines()[-1]), rss.peak
