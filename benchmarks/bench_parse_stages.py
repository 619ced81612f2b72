"""Benchmark 14: the default parse by stage, on one core, against MinerU 4's flash tier on one core.

The 32-page slice of the gnuplot manual, uncached, in this process (one worker, no page time limit), the
process pinned to one core (MinerU's child inherits the pin). One profiled parse is split into what
each library spends: the layout model (pymupdf.layout: its page raster and image features, its own
text page, the graph network), the table-structure model, MuPDF's text pages and dicts for
pymupdf4llm and chunkbench, the JSON pymupdf4llm writes and chunkbench reads back, and chunkbench's
own work. The wall times are unprofiled, median of `runs`."""

from __future__ import annotations

import cProfile
import importlib.util
import os
import pstats
import statistics
import time

from .common import SHARED_PDFS, Row
from .pdfgen import pdf_slice

SECTION = "14. parse by stage"


def _stat(stats: pstats.Stats, needle: str, field: str = "cum") -> float:
    """Seconds of the functions whose `file:line(name)` contains `needle` (cumulative or own time)."""
    total = 0.0
    for (file, line, name), (_cc, _nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if needle in f"{file}:{line}({name})":
            total += ct if field == "cum" else tt
    return total


def run(runs: int = 3) -> tuple[list[Row], list[str]]:
    from chunkbench import load
    from chunkbench.loaders.pdf import load_pdf

    source = os.path.join(SHARED_PDFS, "long_gnuplot-5.4.pdf")
    if not os.path.exists(source) or not hasattr(os, "sched_setaffinity"):
        return [], ["../shared's gnuplot manual (or CPU pinning) is missing: section skipped"]
    pdf = pdf_slice(source, 0, 32)
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})
    try:
        load_pdf(pdf, cache=False, workers=1, page_timeout=0)  # the model loaded once, as in a long-lived process
        walls = []
        for _ in range(runs):
            t0 = time.perf_counter()
            doc = load_pdf(pdf, cache=False, workers=1, page_timeout=0)
            walls.append(time.perf_counter() - t0)
        profile = cProfile.Profile()
        profile.enable()
        load_pdf(pdf, cache=False, workers=1, page_timeout=0)
        profile.disable()
        mineru = None
        if importlib.util.find_spec("mineru") is not None:
            times = []
            for _ in range(runs):
                t0 = time.perf_counter()
                load(pdf, backend="mineru", cache=False)
                times.append(time.perf_counter() - t0)
            mineru = statistics.median(times)
    finally:
        os.sched_setaffinity(0, cores)
    pages = len(doc.pages)
    wall = statistics.median(walls)
    stats = pstats.Stats(profile)
    total = _stat(stats, "pdf.py:83(load_pdf)")
    layout = _stat(stats, "BoxRFDGNN.py:924(predict)")
    tables = _stat(stats, "TableGridExtractorV2.py:291(predict)")
    onnx = _stat(stats, "onnxruntime_pybind11_state.run", "own")
    textpages = _stat(stats, "page_get_textpage", "own") + _stat(stats, "JM_make_textpage_dict", "own")
    json_trip = _stat(stats, "encoder.py:205(iterencode)", "own") + _stat(stats, "decoder.py:343(raw_decode)", "own")
    to_json = _stat(stats, "pymupdf4llm/__init__.py:245(to_json)")
    own = total - to_json - _stat(stats, "decoder.py:343(raw_decode)", "own")
    stages = [
        ("layout model (pymupdf.layout: page raster, image features, its text page, graph network)", layout),
        ("table-structure model (TableGridExtractorV2)", tables),
        ("of those: ONNX inference", onnx),
        ("MuPDF text pages and their dicts, all callers", textpages),
        ("JSON written by pymupdf4llm and read back by chunkbench", json_trip),
        ("pymupdf4llm's own work (to_json less the models and JSON)", max(0.0, to_json - layout - tables
                                                                         - _stat(stats, "encoder.py:205(iterencode)", "own"))),
        ("chunkbench's own work (text blocks, margins, checks, Document)", own),
    ]
    rows = [Row(SECTION, f"default parser, one core, {pages} pages (unprofiled)", pages / wall, "pages/s",
                "MinerU 4 flash, one core" if mineru else "", pages / mineru if mineru else None,
                (mineru / wall) if mineru else None, target="≥ MinerU 4 flash on one core",
                met=(wall <= mineru) if mineru else None,
                note=f"{wall:.1f} s" + (f" vs {mineru:.1f} s" if mineru else "") + f", median of {runs}, uncached")]
    rows += [Row(SECTION, f"stage: {name}", seconds, "s", note=f"{seconds / total:.0%} of the profiled {total:.1f} s")
             for name, seconds in stages]
    notes = ["stages from one cProfile'd parse (profiling adds a few percent); the layout model's time includes its "
             "own text page and raster; 'all callers' counts the text pages of the layout model, pymupdf4llm and "
             "chunkbench together (a page's text is extracted about 3.6 times)"]
    return rows, notes
