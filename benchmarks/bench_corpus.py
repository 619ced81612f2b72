"""Benchmark 9: a corpus parsed on Dask workers (issue 22.5): 20 PDFs (3-page slices of real PDFs
from ../shared, or of the generated text PDF when those are absent) parsed with the parse cache
off, by one worker and by two (each a LocalCluster of single-threaded processes, start-up
included and reported apart), and one after another in this process. Target: 2 workers >= 1.7x
one worker."""

from __future__ import annotations

import os
import time

from .common import SHARED_PDFS, Row
from .pdfgen import long_pdf, pdf_slice

SECTION = "9. corpus on Dask"
FILES = 20
PAGES = 3
SOURCES = ("long_gnuplot-5.4.pdf", "req_federal-register-2020-17221.pdf", "financial_bestbuy-2023-10k.pdf")


def corpus_files() -> list[str]:
    """FILES slices of PAGES pages, spread over the source PDFs (written once, reused)."""
    import pymupdf

    sources = [os.path.join(SHARED_PDFS, s) for s in SOURCES if os.path.exists(os.path.join(SHARED_PDFS, s))]
    sources = sources or [long_pdf(200)]
    files = []
    for i in range(FILES):
        src = sources[i % len(sources)]
        with pymupdf.open(src) as d:
            n = d.page_count
        first = (i // len(sources)) * 7 % max(1, n - PAGES)
        files.append(pdf_slice(src, first, first + PAGES))
    return files


def _timed_parse(files: list[str], workers: int) -> tuple[float, float]:
    """(seconds end to end, seconds of the cluster's start) of parsing `files` on `workers`."""
    from distributed import Client, LocalCluster

    from chunkbench.loaders import corpus

    t0 = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("chunkbench.loaders.pdf"))  # imports are part of start-up
        started = time.perf_counter() - t0
        results = corpus.parse_corpus(files, None, dask=cluster.scheduler_address, progress=False,
                                      options={"cache": False})
    bad = [r for r in results if r.status != "ok"]
    if bad:
        raise RuntimeError(f"{len(bad)} files failed: {bad[0].error}")
    return time.perf_counter() - t0, started


def _in_process(files: list[str]) -> float:
    """Seconds to parse `files` one after another in this process (the model's default threads)."""
    from chunkbench.loaders.pdf import load_pdf

    load_pdf(files[0], cache=False, progress=False)  # imports, the model loaded
    t0 = time.perf_counter()
    for f in files:
        load_pdf(f, cache=False, progress=False)
    return time.perf_counter() - t0


def run(runs: int = 1) -> tuple[list[Row], list[str]]:
    files = corpus_files()
    alone = _in_process(files)
    one = min((_timed_parse(files, 1) for _ in range(runs)), key=lambda t: t[0])
    two = min((_timed_parse(files, 2) for _ in range(runs)), key=lambda t: t[0])
    work_one, work_two = one[0] - one[1], two[0] - two[1]
    speedup = work_one / work_two
    rows = [
        Row(SECTION, f"{FILES} PDFs × {PAGES} pages parsed on 2 Dask workers (cache off)", work_two, "s",
            "1 worker", work_one, speedup, target="≥ 1.7× one worker", met=speedup >= 1.7,
            note=f"after the cluster's start ({two[1]:.1f} s for 2 workers, {one[1]:.1f} s for 1); end to end "
                 f"{one[0] / two[0]:.2f}× ({two[0]:.1f} s vs {one[0]:.1f} s)"),
        Row(SECTION, f"{FILES} PDFs × {PAGES} pages on 2 Dask workers, end to end", two[0], "s",
            "one after another in one process", alone, alone / two[0],
            note="the process uses about 1.5 cores (the layout model's threads); each worker 1 (limit_model_threads)"),
    ]
    many = many_files_rows(MANY_FILES)
    return rows + many, [f"corpus: {FILES} slices of {', '.join(SOURCES)} ({FILES * PAGES} pages)",
                         f"many files: {MANY_FILES} one-page PDFs of corpus text (generated once in .cache/bench), "
                         "cache off, on 2 local workers; overhead per file = (wall × workers − the workers' own "
                         "parse seconds) / files; client RSS sampled as each Document arrives"]


#: the many-files measure: one-page PDFs (issue 60's thousand)
MANY_FILES = 1000


def many_pdfs(count: int) -> list[str]:
    """`count` distinct one-page PDFs cut from the generated text PDF (written once, reused)."""
    import pymupdf

    from .common import BENCH_DIR

    folder = os.path.join(BENCH_DIR, f"many-{count}")
    os.makedirs(folder, exist_ok=True)
    source = long_pdf(200)
    files = []
    with pymupdf.open(source) as src:
        for i in range(count):
            path = os.path.join(folder, f"p{i:05d}.pdf")
            if not os.path.exists(path):
                one = pymupdf.open()
                one.insert_pdf(src, from_page=i % src.page_count, to_page=i % src.page_count)
                one.set_metadata({"title": f"file {i}"})  # each file its own bytes: no two share a cache key
                one.save(path + ".tmp", no_new_id=True)
                one.close()
                os.replace(path + ".tmp", path)
            files.append(path)
    return files


def many_files_rows(count: int) -> list[Row]:
    """Client RSS at a tenth and at the end of the run, the scheduling overhead per file, and files/s."""

    import psutil

    from chunkbench.loaders import corpus

    files = many_pdfs(count)
    rss: list[int] = []
    work: list[float] = []

    client = psutil.Process()

    def arrived(_file, _doc):
        rss.append(client.memory_info().rss)  # this process alone: the workers are its children

    t0 = time.perf_counter()
    results = corpus.parse_corpus(files, None, workers=2, progress=False, options={"cache": False}, on_document=arrived)
    wall = time.perf_counter() - t0
    work = [r.seconds for r in results]
    bad = [r for r in results if r.status != "ok"]
    overhead = (wall * 2 - sum(work)) / count
    tenth, last = rss[max(0, count // 10 - 1)], rss[-1]
    return [
        Row(SECTION, f"{count} one-page PDFs on 2 local workers: client RSS, last file / at a tenth", last / tenth, "×",
            target="flat (≤ 1.2×)", met=last / tenth <= 1.2,
            note=f"{tenth / 1e6:.0f} MB at file {count // 10}, {last / 1e6:.0f} MB at file {count}; {len(bad)} failed"),
        Row(SECTION, f"{count} one-page PDFs: scheduling overhead per file", overhead * 1000, "ms",
            target="≤ 50 ms", met=overhead <= 0.05,
            note=f"{wall:.0f} s end to end (cluster start included), {count / wall:.1f} files/s; workers' own "
                 f"parse time {sum(work):.0f} s"),
    ]
