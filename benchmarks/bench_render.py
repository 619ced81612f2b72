"""Benchmark 4: overlay rendering at 100 dpi vs pdfplumber's `page.to_image(resolution=100).draw_rects`.

Both sides draw the same boxes (every chunk bbox on the page) on every page of a sample PDF and a
multi-page real PDF, and return a finished image (chunkbench: the pixel array with labels blended
in; pdfplumber: its annotated PIL image). Rows: the full overlay with a cold page raster (the
target), the same with the page raster cached (what the explorer pays on a parameter change), and
chunkbench drawing exactly pdfplumber's boxes (same work on both sides).
"""

from __future__ import annotations

import contextlib
import cProfile
import os
import pstats
import statistics
import time
from collections.abc import Callable, Iterator

from chunkbench.strategies import chunk

from .common import BENCH_DIR, ROOT, SHARED_PDFS, Row, package_version

SECTION = "4. overlay rendering"
DPI = 100
STRATEGY = "elements"
PDFS = (
    os.path.join(ROOT, "sample_pdfs", "technical_manual.pdf"),
    os.path.join(SHARED_PDFS, "req_federal-register-2020-17221.pdf"),
)
PEER = "pdfplumber to_image + draw_rects"
#: pdfplumber's draw_rects defaults, used for the same-work row
RECT_STYLE = dict(stroke=(255, 0, 0), fill=(0, 0, 255, 50), width=1)

@contextlib.contextmanager
def cache_env(path: str) -> Iterator[str]:
    """Point chunkbench's parse cache at `path` for the duration (restoring the previous setting)."""
    old = os.environ.get("CHUNKBENCH_CACHE_DIR")
    os.environ["CHUNKBENCH_CACHE_DIR"] = path
    try:
        yield path
    finally:
        if old is None:
            os.environ.pop("CHUNKBENCH_CACHE_DIR", None)
        else:
            os.environ["CHUNKBENCH_CACHE_DIR"] = old


def profile_top(fn: Callable[[], object], package: str = "chunkbench", n: int = 8) -> tuple[float, list[str]]:
    """Run `fn` once under cProfile: total seconds and lines naming where the time goes, i.e. the
    `package` functions with the most cumulative time and the functions with the most own time."""
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    stats = pstats.Stats(prof).stats  # (file, line, name) -> (cc, nc, tottime, cumtime, callers)
    total = max((v[3] for v in stats.values()), default=0.0)  # the profiled call itself
    sep = os.sep + package + os.sep

    def where(key) -> str:
        file, line, func = key
        if sep in file:
            file = package + "/" + file.split(sep, 1)[1]
        elif file.startswith("~") or file == "":
            return func
        else:
            file = os.path.basename(file)
        return f"{file}:{line} {func}"

    own = sorted(stats.items(), key=lambda kv: -kv[1][2])[:n]
    cum = sorted(((k, v) for k, v in stats.items() if sep in k[0]), key=lambda kv: -kv[1][3])[:n]
    lines = [f"- cumulative {v[3] * 1000:.0f} ms ({v[3] / total:.0%}), {v[1]} calls: {where(k)}" for k, v in cum]
    lines += [f"- own time {v[2] * 1000:.0f} ms ({v[2] / total:.0%}), {v[1]} calls: {where(k)}" for k, v in own]
    return total, lines


def profile_note(title: str, total: float, lines: list[str]) -> str:
    """A `profile ...` note (written to results.md, not printed)."""
    return "\n".join([f"profile {title} (cProfile, one pass, {total * 1000:.0f} ms profiled):", "", *lines])


def interleaved(fns: dict[str, Callable[[], float | None]], runs: int) -> dict[str, float]:
    """Median seconds of each function over `runs` rounds that call them all in turn (after one
    warm-up round), so a change in the machine's load hits every side alike. A function that
    returns a float reports the seconds of its own timed part."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    for round_ in range(runs + 1):
        for key, fn in fns.items():
            t0 = time.perf_counter()
            own = fn()
            if round_:
                times[key].append(own if isinstance(own, float) else time.perf_counter() - t0)
    return {k: statistics.median(v) for k, v in times.items()}


def forget_pages() -> None:
    """Drop every page-level cache of the render module (open files, rasters or display lists,
    page words), so the next render of a page starts from the file, as when a page is first shown."""
    from chunkbench.loaders import pagewords
    from chunkbench.ui.render import pdfpages

    with pagewords.LOCK:
        for module in (pagewords, pdfpages):
            for name, value in vars(module).items():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
                elif isinstance(value, dict) and "CACHE" in name.upper():
                    value.clear()


def run(runs: int = 3) -> tuple[list[Row], list[str]]:
    import pdfplumber

    import chunkbench
    from chunkbench.ui.render import render_page

    passes = max(runs, 5)
    rows: list[Row] = []
    notes = [f"{STRATEGY} strategy, default parameters, {DPI} dpi, every page of each PDF; ms per page, median of "
             f"{passes} rounds after a warm-up, each round running every variant in turn; pdfplumber "
             f"{package_version('pdfplumber')} renders with pypdfium2 {package_version('pypdfium2')}, without "
             "anti-aliasing (its default), and re-opens the file on every to_image"]
    profiled = False
    for path in PDFS:
        if not os.path.exists(path):
            notes.append(f"{path} not found: skipped")
            continue
        name = os.path.basename(path)
        with cache_env(os.path.join(BENCH_DIR, "render-cache")):
            doc = chunkbench.load(path, progress=False)
        cs = chunk(doc, STRATEGY)
        pages = range(1, len(doc.pages) + 1)
        boxes = {p: [(b.x0, b.y0, b.x1, b.y1) for c in cs for b in c.bbox if b.page == p] for p in pages}
        n = len(pages)

        def overlay_cold() -> None:
            forget_pages()
            for p in pages:
                render_page(doc, cs, p, dpi=DPI).to_array()

        def overlay_warm() -> float:
            """Seconds spent re-rendering each page right after it was rendered (raster cached)."""
            spent = 0.0
            for p in pages:
                render_page(doc, cs, p, dpi=DPI).to_array()
                t0 = time.perf_counter()
                render_page(doc, cs, p, dpi=DPI).to_array()
                spent += time.perf_counter() - t0
            return spent

        def same_boxes() -> None:
            forget_pages()
            for p in pages:
                render_page(doc, None, p, dpi=DPI, show=()).draw_rects(boxes[p], **RECT_STYLE).to_array()

        def raster_only() -> None:
            import pymupdf

            with pymupdf.open(path) as pdf:
                for p in pages:
                    pdf[p - 1].get_pixmap(matrix=pymupdf.Matrix(DPI / 72, DPI / 72), alpha=False)

        with pdfplumber.open(path) as pdf:
            def plumber() -> None:
                for p in pages:
                    pdf.pages[p - 1].to_image(resolution=DPI).draw_rects(boxes[p]).annotated.load()

            t = interleaved({"peer": plumber, "cold": overlay_cold, "warm": overlay_warm, "same": same_boxes,
                             "raster": raster_only}, passes)
        t_peer, t_cold, warm, t_same, t_raster = (t[k] for k in ("peer", "cold", "warm", "same", "raster"))
        ms = 1000 / n
        label = f"{name} ({n} pages, {len(cs)} chunks)"
        rows.append(Row(SECTION, f"overlay, {label}", t_cold * ms, "ms/page", PEER, t_peer * ms, t_peer / t_cold,
                        "≥ 5×", t_peer / t_cold >= 5, "all layers, page rasterised each time"))
        rows.append(Row(SECTION, f"overlay, raster cached, {name}", warm * ms, "ms/page", PEER, t_peer * ms,
                        t_peer / warm, note="explorer re-render after a parameter change"))
        rows.append(Row(SECTION, f"same boxes via PageImage.draw_rects, {name}", t_same * ms, "ms/page", PEER,
                        t_peer * ms, t_peer / t_same, note="identical work: raster + the chunk bboxes"))
        rows.append(Row(SECTION, f"floor: page raster alone (PyMuPDF), {name}", t_raster * ms, "ms/page", PEER,
                        t_peer * ms, t_peer / t_raster, note="no drawing; the best any PyMuPDF overlay can do"))
        if not profiled:
            profiled = True
            total, lines = profile_top(overlay_cold)
            notes.append(profile_note(f"of a cold overlay pass over {name}", total, lines))
    return rows, notes
