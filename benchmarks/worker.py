"""One parse measurement in a fresh process (so peak memory is its own); prints one JSON line.

    python -m benchmarks.worker chunkbench PDF [--workers N] [--cache-dir DIR] [--cpus N]
    python -m benchmarks.worker to_json PDF [--cpus N]
    python -m benchmarks.worker reload PDF --cache-dir DIR [--runs N]

Times cover the parse call only (imports excluded); `--cache-dir` stores the parse there.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="benchmarks.worker")
    ap.add_argument("mode", choices=("chunkbench", "to_json", "reload"))
    ap.add_argument("pdf")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--cache-dir")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--page-timeout", type=float, default=None,
                    help="chunkbench mode: 0 parses in this process (no worker process for the per-page limit)")
    ap.add_argument("--cpus", type=int, default=None, help="pin this process (and its threads and children) to N CPUs")
    args = ap.parse_args(argv)
    if args.cpus:  # before any import starts a thread pool (ONNX Runtime uses every core by default)
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[: args.cpus])
        # ONNX Runtime pins its own threads to every core whatever this process's affinity: one
        # core means one thread for the layout model, set before pymupdf's import opens its sessions
        from chunkbench.loaders.pdf_layout import limit_model_threads

        limit_model_threads(args.cpus)
    if args.cache_dir:
        os.environ["CHUNKBENCH_CACHE_DIR"] = args.cache_dir
    from chunkbench.loaders import pdf as pdf_loader
    from chunkbench.loaders import pdf_layout

    out: dict = {}
    if args.mode == "chunkbench":
        pdf_layout.layout_engine()  # imported before timing, as to_json's pymupdf4llm is below
        t0 = time.perf_counter()
        doc = pdf_loader.load_pdf(args.pdf, cache=bool(args.cache_dir), workers=args.workers, progress=False,
                                  page_timeout=args.page_timeout)
        out = {"seconds": time.perf_counter() - t0, "pages": len(doc.pages), "elements": len(doc.elements)}
    elif args.mode == "to_json":
        import pymupdf
        import pymupdf4llm

        options = pdf_layout.ocr_options(pdf_loader.ocr_available())  # the options chunkbench passes
        t0 = time.perf_counter()
        with pymupdf.open(args.pdf) as doc:
            raw = pymupdf4llm.to_json(doc, **options)
        out = {"seconds": time.perf_counter() - t0, "pages": len(json.loads(raw)["pages"])}
    else:
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            doc = pdf_loader.load_pdf(args.pdf, cache=True, progress=False)
            times.append(time.perf_counter() - t0)
        out = {"seconds": statistics.median(times), "runs": times, "pages": len(doc.pages)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
