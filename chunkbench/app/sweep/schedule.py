"""Running a sweep: the points in this process, in worker processes or on a Dask cluster, then the
results files and the notebooks; and the small sweep `make demo` ends with."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from chunkbench.errors import ChunkbenchError, UsageError
from chunkbench.strategies import DEFAULT_STRATEGY

from .edit_changes import edit_changes, write_edit_changes
from .floor import floor_values, input_cases, parse_recall_floor, with_floor
from .grid import Point, make_points
from .heldout import check_best_points
from .notebooks import run_notebooks
from .output import write_results
from .points import compute_point, describe_error
from .results import OBJECTIVES, results_frame

#: what `notebooks=` accepts: the input's notebook with its best point and the whole grid, the best point only, none
NOTEBOOK_MODES = ("all", "best", "none")


#: estimated seconds to start worker processes (spawn, import chunkbench): points are computed in
#: this process unless the remaining work is expected to take longer than this
POOL_STARTUP_SECONDS = 3.0


def run_sweep(inputs: Sequence[str | os.PathLike], grid: Mapping[str, Sequence[Any]], out_dir: str | os.PathLike,
              *, strategy: str = DEFAULT_STRATEGY, fixed: Mapping[str, Any] | None = None,
              questions: str | os.PathLike | None = "auto", jobs: int | None = None, dask: str | None = None,
              progress: bool = True, kernel_name: str = "python3", timeout: float | None = 600,
              notebooks: str = "best", rank_by: str | None = None, retriever: str = "bm25",
              labels: str | os.PathLike | None = None, recall_floor: str | None = "splitter",
              holdout: float | None = None, chunks: tuple[str, str] | None = None,
              baseline: str | None = None, max_points: int | None = None,
              gold: Sequence[str | os.PathLike] = ()):
    """Run every input × grid point and return the results DataFrame (also written to `out_dir` as
    results.csv and results.parquet; `chunkbench.ui.sweep_summary.write_summary(df, out_dir)` adds summary.html).

    `grid`: parameter → values (strings are coerced by the strategy), may include `strategy`.
    `jobs`: at most this many worker processes (default: the core count; 1: all in this process);
    `dask`: a scheduler address to run the points on an existing dask.distributed cluster instead.
    `notebooks`: one of NOTEBOOK_MODES; `rank_by`: the metric that picks each input's best point
    (default: the first of OBJECTIVES the input has); `retriever`: how the retrieval check ranks
    (bm25, or dense with the optional extra: checked before any point runs); `labels`: the workspace
    whose reviewers' verdicts and edits label each input's boundaries (app.labels.load_labels),
    scored per point as rev_boundary_*; `recall_floor`: the token recall the best
    point by token IoU must keep (floor.parse_recall_floor: "splitter", "splitter:N", a share, or
    None), recorded per input in the `recall_floor` column; `holdout`: the share of each input's
    questions the points are not scored on, on which each best point is then checked against the
    splitter (df.attrs["holdout"]: document → holdout.score_held; evaluate --holdout's split and check);
    `baseline`: another version of the one input, or a setting, for the `stability` column (Point.baseline);
    `max_points`: the bound on the grid's points (grid.MAX_POINTS by default); `gold`: gold.json files of
    inputs (`chunkbench gold`), whose points get the gold_* columns (cuts, recall per question kind)."""
    if not inputs:
        raise UsageError("sweep needs at least one input")
    if notebooks not in NOTEBOOK_MODES:
        raise UsageError(f"notebooks must be one of {', '.join(NOTEBOOK_MODES)}, got {notebooks!r}")
    from chunkbench.evaluate.retrieval import RETRIEVERS, dense_model

    if retriever not in RETRIEVERS:
        raise UsageError(f"retriever must be one of {', '.join(RETRIEVERS)}, got {retriever!r}")
    if retriever == "dense":
        dense_model()  # a missing extra is one clear error, not one per point
    floor = parse_recall_floor(recall_floor)
    if holdout is not None:
        from chunkbench.evaluate.holdout import check_fraction

        check_fraction(holdout)
    out = Path(out_dir)
    points = make_points(inputs, grid, out, strategy=strategy, fixed=fixed, questions=questions, retriever=retriever,
                         holdout=holdout, chunks=chunks, baseline=baseline, max_points=max_points, gold=gold)
    out.mkdir(parents=True, exist_ok=True)  # after every check the points make: a failed start writes nothing
    failed_inputs, labelled = preparse(list(dict.fromkeys(p.input for p in points)), labels,
                                       workers=jobs or os.cpu_count() or 1, dask=dask, progress=progress)
    points = [p if p.input not in failed_inputs or p.error else _with_error(p, failed_inputs[p.input]) for p in points]
    points = [replace(p, labels=labelled[p.input]) if labelled.get(p.input) else p for p in points]
    started = time.monotonic()
    if dask:
        rows = _run_dask(points, dask, progress=progress)
    else:
        rows = _run_local(points, jobs or os.cpu_count() or 1, progress=progress)
    measured = {row["input"] for row in rows if row["status"] == "ok"}
    asked = {p.input: p.questions for p in points if p.input in measured and p.questions}
    needed = holdout is not None or (floor is not None and floor.splitter_chars is not None)
    cases = {inp: input_cases(inp, q, holdout) if needed else (None, None) for inp, q in asked.items()}  # (scored on, held out)
    rows = with_floor(rows, floor_values(floor, {inp: c for inp, (c, _) in cases.items()}, retriever))
    timing = {"points_s": time.monotonic() - started}  # the floor's splitter included
    grid_keys = ["strategy", *[k for k in grid if k != "strategy"]]
    df = results_frame(rows, grid_keys)
    if rank_by is not None and rank_by not in df.columns:
        raise UsageError(f"--rank-by {rank_by!r} is not a metric of this sweep; e.g. {', '.join(OBJECTIVES)}")
    if notebooks != "none":  # the table first: the notebooks read it
        started = time.monotonic()
        paths = write_results(df, out)
        run_notebooks(df, points, out, paths["csv"] if notebooks == "all" else None, rank_by=rank_by,
                      kernel_name=kernel_name, timeout=timeout)
        timing["notebooks_s"] = time.monotonic() - started
    if holdout is not None:
        from chunkbench.evaluate.benchmark import BASELINE_SIZE

        started = time.monotonic()
        splitter = floor.splitter_chars if floor and floor.splitter_chars else BASELINE_SIZE
        df.attrs["holdout"] = check_best_points(df, {i: h for i, (_, h) in cases.items() if h is not None}, splitter,
                                                rank_by, retriever)
        timing["holdout_s"] = time.monotonic() - started
    started = time.monotonic()
    write_results(df, out)
    changes = edit_changes(df, labelled)
    write_edit_changes(changes, out)
    timing["results_s"] = time.monotonic() - started
    df.attrs["timing"] = {k: round(v, 3) for k, v in timing.items()}  # where the time went (benchmarks, CLI)
    df.attrs["recall_floor"] = floor.describe() if floor else None  # what the recall_floor column holds
    df.attrs["grid_keys"], df.attrs["rank_by"] = grid_keys, rank_by  # for summary.html (chunkbench.ui.sweep_summary)
    df.attrs["labels"] = {Path(inp).name: ls.describe() for inp, ls in labelled.items() if ls.labels}
    df.attrs["edit_changes"] = changes  # per reviewer edit: the smallest grid change reproducing it
    return df


def _with_error(point: Point, error: str) -> Point:
    return replace(point, error=error)


def preparse(inputs: Sequence[str], labels: str | os.PathLike | None = None, *, workers: int = 1,
             dask: str | None = None, progress: bool = False) -> tuple[dict[str, str], dict]:
    """Load each input once so the parse cache is warm; returns (input → error for those that
    fail, input → its labelled boundaries from the workspace `labels`, see run_sweep). PDFs not in the cache are parsed first on
    the Dask cluster at `dask`, or on up to `workers` local processes when two or more need it
    (loaders.corpus.warm_cache)."""
    from chunkbench.app.labels import load_labels
    from chunkbench.loaders import load
    from chunkbench.loaders.corpus import warm_cache
    from chunkbench.loaders.pdf import is_cached

    uncached = [i for i in inputs if i.lower().endswith(".pdf") and os.path.isfile(i) and not is_cached(i)]
    if dask is not None or (workers > 1 and len(uncached) > 1):
        warm_cache(uncached, workers=workers, dask=dask, progress=progress)

    failed, labelled = {}, {}
    for inp in inputs:
        try:
            doc = load(inp)
        except ChunkbenchError as exc:
            failed[inp] = f"{type(exc).__name__}: {exc}"
            continue
        if labels is not None:
            labelled[inp] = load_labels(doc, labels)
    return failed, labelled


def _progress(total: int, enabled: bool):
    from chunkbench.io.progress import progress

    return progress(total, "sweep", "point", enabled=None if enabled else False)


def _run_local(points: Sequence[Point], jobs: int, *, progress: bool) -> list[dict]:
    """Rows in point order. Points are computed in this process; when `jobs` > 1 and the points
    left would take longer than starting workers (POOL_STARTUP_SECONDS, judged by the second point
    computed: the first pays for imports and loading), the rest go to at most `jobs` workers."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from chunkbench.strategies.kept import KeptState

    kept = KeptState()  # what the points of an input computed here keep for the next (not the workers')

    rows: list[dict | None] = [None] * len(points)
    todo = [i for i, p in enumerate(points) if not p.error]
    for i, p in enumerate(points):
        if p.error:
            rows[i] = compute_point(p)
    with _progress(len(points), progress) as bar:
        bar.update(len(points) - len(todo))
        for i in todo[:2]:  # the second one's time estimates the rest
            rows[i] = compute_point(points[i], kept)
            bar.update(1)
        rest = todo[2:]
        per_point = (rows[todo[1]] or {}).get("seconds", 0.0) if len(todo) > 1 else 0.0
        if jobs <= 1 or len(rest) <= 1 or per_point * len(rest) < POOL_STARTUP_SECONDS:
            for i in rest:
                rows[i] = compute_point(points[i], kept)
                bar.update(1)
        else:
            ctx = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=min(jobs, len(rest)), mp_context=ctx) as pool:
                futures = {pool.submit(compute_point, points[i]): i for i in rest}
                for fut in as_completed(futures):
                    i = futures[fut]
                    rows[i] = _result_or_failure(fut, points[i])
                    bar.update(1)
    return [r for r in rows if r is not None]


def _result_or_failure(fut, point: Point) -> dict:
    """A worker's row, or a failed row when the worker itself died."""
    try:
        return fut.result()
    except Exception as exc:  # noqa: BLE001 - a dead worker fails its point only
        return compute_point(_with_error(point, f"worker failed: {describe_error(exc)}"))


def _run_dask(points: Sequence[Point], address: str, *, progress: bool) -> list[dict]:
    """The same points as tasks on an existing dask.distributed cluster, rows in point order."""
    from distributed import Client, as_completed

    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot connect to the Dask scheduler at {address}: {exc}") from None
    try:
        rows: list[dict | None] = [None] * len(points)
        futures = {}
        for i, p in enumerate(points):
            if p.error:
                rows[i] = compute_point(p)
            else:
                fut = client.submit(compute_point, p, pure=False, key=f"chunkbench-sweep-{i}-{time.time_ns()}")
                futures[fut] = i
        with _progress(len(points), progress) as bar:
            bar.update(len(points) - len(futures))
            for fut in as_completed(list(futures)):
                rows[futures[fut]] = _result_or_failure(fut, points[futures[fut]])
                bar.update(1)
        return [r for r in rows if r is not None]
    finally:
        client.close()
