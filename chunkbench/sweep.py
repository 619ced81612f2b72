"""Parameter sweeps: every input × grid point computed in-process, the notebook once per input.

`run_sweep(inputs, grid, out_dir)` parses each input once (filling the parse cache), computes
every point with `measure_point` (chunk, every metric, chunks.json and metrics.json) in this
process, in worker processes when the work outweighs starting them, or as tasks on a Dask
cluster, and collects one row per input × point into `results.csv`, `results.parquet` and a
self-contained `summary.html`. A point that fails records its error in the row; the sweep goes on.
Then the papermill notebook `02_sweep.ipynb` (which calls the same `measure_point`) runs once per
input: `notebooks="best"` for the input's best point, `"all"` with the whole grid's table and
plots as well, `"none"` not at all. A point costs milliseconds; a notebook, seconds of kernel start.

Layout of `out_dir`:
    results.csv, results.parquet, summary.html
    points/<input stem>/02_sweep.ipynb                  the input's notebook (best point, grid)
    points/<input stem>/<strategy>__<key>=<value>.../   chunks.json, metrics.json
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .atomic import write_json
from .errors import ChunkbenchError, InputError, UsageError

NOTEBOOK_NAME = "02_sweep.ipynb"
#: the default objective of "best setting per input", in order of preference
OBJECTIVES = ("ret_chunks_token_iou", "ret_chunks_mrr", "targets_passed")
#: metrics plotted against each swept parameter in summary.html
PLOT_METRICS = (
    "chunks", "chars_median", "mid_sentence_share", "tables_split", "targets_passed",
    "ret_chunks_recall_at_5", "ret_chunks_mrr", "ret_chunks_token_iou",
)
#: exit code of the CLI when every point failed with this error type
_EXIT_CODES = {"ParamError": 2, "UsageError": 2, "InputError": 3, "ExternalToolError": 4}


def notebook_path() -> Path:
    """The sweep notebook shipped inside the package (`chunkbench/notebooks/02_sweep.ipynb`)."""
    path = Path(__file__).resolve().parent / "notebooks" / NOTEBOOK_NAME
    if not path.is_file():
        raise ChunkbenchError(f"sweep notebook missing from the package: {path}")
    return path


# --------------------------------------------------------------------------- points


@dataclass(frozen=True)
class Point:
    """One notebook run: an input, a strategy with parameters, where its files go."""

    input: str
    strategy: str
    params: Mapping[str, Any]
    #: the swept values of this point (grid key → value as given), for the results table
    grid_values: Mapping[str, Any]
    questions: str | None
    out_dir: str
    #: set when the point is known to fail before running (bad parameter value)
    error: str | None = None
    #: the input's short name in results and under points/ (its stem, numbered if two share one)
    document: str = ""


def parse_grid(items: Sequence[str]) -> dict[str, list[str]]:
    """`["chunk_size=256,512", "overlap=0,50"]` → `{"chunk_size": ["256", "512"], ...}`."""
    grid: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip()
        vals = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not key or not vals:
            raise UsageError(f"--grid expects KEY=V1,V2,..., got {item!r}")
        if key in grid:
            raise UsageError(f"--grid {key} given twice")
        grid[key] = vals
    return grid


def _slug(value: Any) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(value)).strip("-") or "x"


def make_points(inputs: Sequence[str | os.PathLike], grid: Mapping[str, Sequence[Any]], out_dir: str | os.PathLike,
                *, strategy: str = "elements", fixed: Mapping[str, Any] | None = None,
                questions: str | os.PathLike | None = "auto") -> list[Point]:
    """Every input × grid point, in input order then grid order (last key varies fastest).

    `grid` may hold `strategy`. With several strategies, a key one of them does not have is not
    applied to it (and the duplicate points that leaves collapse); a key no strategy has is a
    UsageError. A value a strategy rejects makes that point fail without running."""
    from .strategies import get_strategy

    grid = {k: list(v) for k, v in grid.items()}
    if any(not v for v in grid.values()):
        raise UsageError("every --grid key needs at least one value")
    strategies = [str(s) for s in grid.pop("strategy", [strategy])]
    fixed = dict(fixed or {})
    known = {s: {p.name for p in get_strategy(s).params} for s in dict.fromkeys(strategies)}
    for key in list(grid) + list(fixed):
        if not any(key in names for names in known.values()):
            allowed = sorted(set().union(*known.values()))
            raise UsageError(f"no swept strategy has a parameter {key!r}; allowed: {', '.join(allowed) or 'none'}")
    keys = list(grid)
    points: list[Point] = []
    seen: set = set()
    folders = _input_folders([str(Path(i).resolve()) for i in inputs])
    for inp, folder in folders.items():
        qfile = questions_for(inp, questions)
        for strat in strategies:
            for combo in itertools.product(*(grid[k] for k in keys)):
                values = {k: v for k, v in zip(keys, combo) if k in known[strat]}
                params = {**{k: v for k, v in fixed.items() if k in known[strat]}, **values}
                ident = (inp, strat, tuple(sorted((k, str(v)) for k, v in params.items())))
                if ident in seen:
                    continue
                seen.add(ident)
                error = None
                try:
                    resolved = get_strategy(strat).resolve(params)
                    params = {k: resolved[k] for k in params}
                    values = {k: resolved[k] for k in values}
                except UsageError as exc:
                    error = f"{type(exc).__name__}: {exc}"
                name = "__".join([_slug(strat)] + [f"{_slug(k)}={_slug(v)}" for k, v in values.items()])
                point_dir = Path(out_dir) / "points" / folder / name
                points.append(Point(inp, strat, params, {"strategy": strat, **values}, qfile,
                                    str(point_dir.resolve()), error, folder))
    return points


def _input_folders(inputs: Sequence[str]) -> dict[str, str]:
    """input → its folder name under points/: the file stem, numbered when two inputs share one."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for inp in dict.fromkeys(inputs):
        base = _slug(Path(inp).stem)
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}-{n}"
        used.add(name)
        out[inp] = name
    return out


def questions_for(input_path: str | os.PathLike, questions: str | os.PathLike | None = "auto") -> str | None:
    """The questions file of an input: `"auto"` → `<stem>.questions.json` (or a FinanceBench
    file) beside it when present; None or "" → none; anything else is that file."""
    from .retrieval import default_questions_path

    if questions in (None, ""):
        return None
    if str(questions) == "auto":
        found = default_questions_path(input_path)
        return str(found) if found else None
    path = Path(questions)
    if not path.is_file():
        raise InputError("questions file not found", path)
    return str(path.resolve())


# --------------------------------------------------------------------------- one point


def collect_params(strategy: str, params: Mapping[str, Any] | None, namespace: Mapping[str, Any]) -> dict:
    """The notebook's strategy parameters: the `params` dict plus any variable in `namespace` named
    like a parameter of `strategy` (so `papermill -p max_chunk_size 1200` works); the variable wins."""
    from .strategies import get_strategy

    out = dict(params or {})
    for p in get_strategy(strategy).params:
        if p.name in namespace:
            out[p.name] = namespace[p.name]
    return out


def write_point(out_dir: str | os.PathLike, chunkset, metrics: Mapping, details: Mapping) -> Path:
    """Write `chunks.json` and `metrics.json` of one point (what the notebook calls); returns the folder."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chunkset.to_json(out / "chunks.json")
    from . import __version__

    write_json(out / "metrics.json", {
        "input": chunkset.doc.source,
        "doc_id": chunkset.doc.doc_id,
        "strategy": chunkset.strategy,
        "params": _jsonable(chunkset.params),
        "metrics": dict(metrics),
        "details": dict(details),
        "python": sys.executable,
        "chunkbench": __version__,
    })
    return out


def overlay(doc, chunkset, page: int = 1):
    """What the notebook shows for one page: the PDF page with the chunk overlay (page clamped to
    the document), or the coloured text view for inputs without a PDF (Markdown, document.json)."""
    from .render import render_page, render_text_view

    if doc.pdf_path and os.path.exists(doc.pdf_path):
        last = max(1, len(doc.pages))
        return render_page(doc, chunkset, page=min(max(1, int(page)), last))
    view = render_text_view(doc, chunkset)
    try:
        from IPython.display import HTML
    except ImportError:  # outside Jupyter: the HTML text itself
        return view
    return HTML(view)


def _jsonable(params: Mapping) -> dict:
    from .strategies.base import jsonable_params

    return jsonable_params(params)


@functools.lru_cache(maxsize=1)
def _kernel_manager_base():
    """AsyncKernelManager that logs the kernel's own stdout/stderr to a file and whose `python3`
    kernel is always this interpreter (`sys.executable`), whatever kernel specs are installed."""
    from ipykernel.kernelspec import RESOURCES, get_kernel_dict
    from jupyter_client import AsyncKernelManager
    from jupyter_client.kernelspec import KernelSpec

    class QuietKernelManager(AsyncKernelManager):
        log_path: str | None = None

        @property
        def kernel_spec(self):  # noqa: D102
            if self._kernel_spec is None and self.kernel_name == "python3":
                self._kernel_spec = KernelSpec(resource_dir=RESOURCES, **get_kernel_dict())
            return super().kernel_spec

        async def _async_launch_kernel(self, kernel_cmd, **kw):
            if not self.log_path:
                return await super()._async_launch_kernel(kernel_cmd, **kw)
            with open(self.log_path, "ab") as log:
                kw.setdefault("stdout", log)
                kw.setdefault("stderr", log)
                return await super()._async_launch_kernel(kernel_cmd, **kw)

    return QuietKernelManager


def kernel_manager_class(log_path: str | os.PathLike | None = None):
    """The kernel manager papermill uses for sweep points (see `_kernel_manager_base`)."""
    base = _kernel_manager_base()
    return type("SweepKernelManager", (base,), {"log_path": os.fspath(log_path) if log_path else None})


def execute_notebook(notebook: str | os.PathLike, output: str | os.PathLike, parameters: Mapping[str, Any], *,
                     cwd: str | os.PathLike | None = None, kernel_name: str = "python3",
                     timeout: float | None = None, kernel_log: str | os.PathLike | None = None) -> None:
    """Run a notebook with papermill; the executed copy is renamed into place when done (even on failure).

    The kernel's own console output goes to `kernel_log` (a cell's output stays in the notebook)."""
    import papermill as pm

    output = Path(output)
    partial = output.with_name(f".{output.stem}.partial.ipynb")
    try:
        pm.execute_notebook(
            str(notebook), str(partial), parameters=dict(parameters), kernel_name=kernel_name,
            cwd=str(cwd) if cwd else None, progress_bar=False, log_output=False,
            execution_timeout=timeout, kernel_manager_class=kernel_manager_class(kernel_log),
        )
    finally:
        if partial.exists():
            os.replace(partial, output)


def measure_point(input_path: str | os.PathLike, strategy: str, params: Mapping[str, Any] | None,
                  questions: str | os.PathLike | None, out_dir: str | os.PathLike, doc=None):
    """One sweep point: load (or take) the document, chunk it, compute every metric, write
    chunks.json and metrics.json to `out_dir`. Returns (doc, chunkset, metrics, details). The
    sweep and the notebook both call this: the numbers are computed in one place."""
    from . import metrics
    from .chunkset import chunk
    from .loaders import load

    doc = doc if doc is not None else load(input_path)
    chunkset = chunk(doc, strategy, **dict(params or {}))
    values, details = metrics.evaluate(doc, chunkset, questions or None)
    write_point(out_dir, chunkset, values, details)
    return doc, chunkset, values, details


@functools.lru_cache(maxsize=4)
def _document(input_path: str, mtime_ns: int):
    """The loaded input, kept while its points are computed (the file's mtime is part of the key)."""
    from .loaders import load

    return load(input_path)


def compute_point(point: Point) -> dict:
    """Compute one point in this process; never raises: a failure goes into the row."""
    started = time.monotonic()
    row: dict[str, Any] = {
        "input": point.input, "document": point.document or Path(point.input).stem, **point.grid_values,
        "status": "failed", "error": point.error, "seconds": 0.0, "point_dir": point.out_dir,
        "notebook": None, "params": json.dumps(_jsonable(point.params), sort_keys=True),
    }
    if point.error:
        return row
    try:
        doc = _document(point.input, os.stat(point.input).st_mtime_ns)
        _, _, values, _ = measure_point(point.input, point.strategy, point.params, point.questions,
                                        point.out_dir, doc=doc)
        row.update(values)
        row["status"] = "ok"
        row["error"] = None
    except Exception as exc:  # noqa: BLE001 - a failed point is recorded, the sweep goes on
        row["error"] = _describe(exc)
    row["seconds"] = round(time.monotonic() - started, 4)
    return row


def _describe(exc: BaseException) -> str:
    """`ErrorType: message` of an exception; for a failed notebook cell, the cell's own error."""
    ename = getattr(exc, "ename", None)
    if ename:
        return f"{ename}: {getattr(exc, 'evalue', '')}"
    return f"{type(exc).__name__}: {exc}"


# --------------------------------------------------------------------------- the sweep


#: what `notebooks=` accepts: the input's notebook with its best point and the whole grid, the best point only, none
NOTEBOOK_MODES = ("all", "best", "none")
#: estimated seconds to start worker processes (spawn, import chunkbench): points are computed in
#: this process unless the remaining work is expected to take longer than this
POOL_STARTUP_SECONDS = 3.0


def run_sweep(inputs: Sequence[str | os.PathLike], grid: Mapping[str, Sequence[Any]], out_dir: str | os.PathLike,
              *, strategy: str = "elements", fixed: Mapping[str, Any] | None = None,
              questions: str | os.PathLike | None = "auto", jobs: int | None = None, dask: str | None = None,
              progress: bool = True, kernel_name: str = "python3", timeout: float | None = 600,
              notebooks: str = "best", rank_by: str | None = None):
    """Run every input × grid point and return the results DataFrame (also written to `out_dir`).

    `grid`: parameter → values (strings are coerced by the strategy), may include `strategy`.
    `jobs`: at most this many worker processes (default: the core count; 1: all in this process);
    `dask`: a scheduler address to run the points on an existing dask.distributed cluster instead.
    `notebooks`: one of NOTEBOOK_MODES; `rank_by`: the metric that picks each input's best point
    (default: the first of OBJECTIVES the input has)."""
    if not inputs:
        raise UsageError("sweep needs at least one input")
    if notebooks not in NOTEBOOK_MODES:
        raise UsageError(f"notebooks must be one of {', '.join(NOTEBOOK_MODES)}, got {notebooks!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    points = make_points(inputs, grid, out, strategy=strategy, fixed=fixed, questions=questions)
    failed_inputs = preparse(dict.fromkeys(p.input for p in points))
    points = [p if p.input not in failed_inputs or p.error else _with_error(p, failed_inputs[p.input]) for p in points]
    started = time.monotonic()
    if dask:
        rows = _run_dask(points, dask, progress=progress)
    else:
        rows = _run_local(points, jobs or os.cpu_count() or 1, progress=progress)
    timing = {"points_s": time.monotonic() - started}
    grid_keys = ["strategy", *[k for k in grid if k != "strategy"]]
    df = results_frame(rows, grid_keys)
    if rank_by is not None and rank_by not in df.columns:
        raise UsageError(f"--rank-by {rank_by!r} is not a metric of this sweep; e.g. {', '.join(OBJECTIVES)}")
    if notebooks != "none":  # the table first: the notebooks read it
        started = time.monotonic()
        paths = write_results(df, out, grid_keys=grid_keys, rank_by=rank_by, summary=False)
        run_notebooks(df, points, out, paths["csv"] if notebooks == "all" else None, rank_by=rank_by,
                      kernel_name=kernel_name, timeout=timeout)
        timing["notebooks_s"] = time.monotonic() - started
    started = time.monotonic()
    write_results(df, out, grid_keys=grid_keys, rank_by=rank_by)
    timing["results_s"] = time.monotonic() - started
    df.attrs["timing"] = {k: round(v, 3) for k, v in timing.items()}  # where the time went (benchmarks, CLI)
    return df


def run_notebooks(df, points: Sequence[Point], out_dir: str | os.PathLike, results_csv: str | os.PathLike | None, *,
                  rank_by: str | None = None, kernel_name: str = "python3", timeout: float | None = 600) -> None:
    """Execute the sweep notebook once per input for its best point (with `results_csv`, the
    notebook also shows the input's whole grid); the notebook path goes into the rows of that input
    (`df` is updated in place). An input without a successful point gets none; a notebook that
    fails is kept to look at and named on stderr."""
    best = best_settings(df, rank_by)
    by_document = {p.document: p for p in points}
    for _, choice in best.iterrows():
        rows = df.index[(df["document"] == choice["document"]) & (df["status"] == "ok")]
        winner = df.loc[rows[0]] if len(rows) else None
        match = [i for i in rows if df.at[i, "params"] == choice["params"] and df.at[i, "strategy"] == choice["strategy"]]
        if match:
            winner = df.loc[match[0]]
        if winner is None:
            continue
        point = by_document[choice["document"]]
        nb = Path(out_dir) / "points" / choice["document"] / NOTEBOOK_NAME
        nb.parent.mkdir(parents=True, exist_ok=True)
        try:
            execute_notebook(notebook_path(), nb, {
                "input_path": winner["input"], "strategy": winner["strategy"], "params": json.loads(winner["params"]),
                "questions": point.questions or "", "out_dir": str(winner["point_dir"]), "overlay_page": 1,
                "results_csv": str(Path(results_csv).resolve()) if results_csv else "",
                "document": choice["document"], "rank_by": choice["objective"],
            }, cwd=nb.parent, kernel_name=kernel_name, timeout=timeout, kernel_log=nb.parent / "kernel.log")
        except Exception as exc:  # noqa: BLE001 - the results stand; the notebook is kept to look at
            print(f"chunkbench sweep: warning: notebook of {choice['document']} failed: {_describe(exc)} ({nb})",
                  file=sys.stderr)
        df.loc[df["document"] == choice["document"], "notebook"] = str(nb)


def _with_error(point: Point, error: str) -> Point:
    from dataclasses import replace

    return replace(point, error=error)


def preparse(inputs: Sequence[str]) -> dict[str, str]:
    """Load each input once so the parse cache is warm; returns input → error for those that fail."""
    from .loaders import load

    failed = {}
    for inp in inputs:
        try:
            load(inp)
        except ChunkbenchError as exc:
            failed[inp] = f"{type(exc).__name__}: {exc}"
    return failed


def _progress(total: int, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="sweep", unit="point", disable=not enabled, file=sys.stderr)


def _run_local(points: Sequence[Point], jobs: int, *, progress: bool) -> list[dict]:
    """Rows in point order. Points are computed in this process; when `jobs` > 1 and the points
    left would take longer than starting workers (POOL_STARTUP_SECONDS, judged by the second point
    computed: the first pays for imports and loading), the rest go to at most `jobs` workers."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    rows: list[dict | None] = [None] * len(points)
    todo = [i for i, p in enumerate(points) if not p.error]
    for i, p in enumerate(points):
        if p.error:
            rows[i] = compute_point(p)
    with _progress(len(points), progress) as bar:
        bar.update(len(points) - len(todo))
        for i in todo[:2]:  # the second one's time estimates the rest
            rows[i] = compute_point(points[i])
            bar.update(1)
        rest = todo[2:]
        per_point = (rows[todo[1]] or {}).get("seconds", 0.0) if len(todo) > 1 else 0.0
        if jobs <= 1 or len(rest) <= 1 or per_point * len(rest) < POOL_STARTUP_SECONDS:
            for i in rest:
                rows[i] = compute_point(points[i])
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
        return compute_point(_with_error(point, f"worker failed: {_describe(exc)}"))


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


# --------------------------------------------------------------------------- results


def results_frame(rows: Sequence[Mapping], grid_keys: Sequence[str] = ()):
    """Rows → DataFrame: input, document, strategy, the grid columns, status, then every metric."""
    import pandas as pd

    df = pd.DataFrame(list(rows))
    head = ["input", "document", "strategy", *[k for k in grid_keys if k != "strategy"],
            "status", "error", "seconds", "params", "point_dir", "notebook"]
    ordered = [c for c in dict.fromkeys(head) if c in df.columns]
    df = df[ordered + [c for c in df.columns if c not in ordered]]
    for col in df.columns:  # counts stay integers when failed rows leave holes (nullable Int64)
        values = [r[col] for r in rows if r.get(col) is not None]
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values) and len(values) < len(df):
            df[col] = df[col].astype("Int64")
    return df


def write_results(df, out_dir: str | os.PathLike, grid_keys: Sequence[str] = ("strategy",), *,
                  rank_by: str | None = None, summary: bool = True) -> dict[str, Path]:
    """results.csv, results.parquet and (unless `summary` is false) summary.html, each written atomically."""
    from .atomic import atomic_path, write_text

    out = Path(out_dir)
    paths = {"csv": out / "results.csv", "parquet": out / "results.parquet", "html": out / "summary.html"}
    with atomic_path(paths["csv"]) as tmp:
        df.to_csv(tmp, index=False)
    with atomic_path(paths["parquet"]) as tmp:
        _parquet_safe(df).to_parquet(tmp, index=False)
    if summary:
        write_text(paths["html"], summary_html(df, grid_keys, rank_by))
    return paths


def _parquet_safe(df):
    """Grid columns can mix numbers and text across strategies: store such columns as text."""
    import pandas as pd

    df = df.copy()
    for col in df.columns:
        if df[col].dtype != object:
            continue
        kinds = {type(v) for v in df[col] if not pd.isna(v)}
        if len(kinds) > 1 and not kinds <= {int, float, bool}:
            df[col] = [None if pd.isna(v) else str(v) for v in df[col]]
    return df


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of points not dominated when fewer `x` (chunks) and higher `y` (IoU) are better."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    front, best = [], float("-inf")
    for i in order:
        if points[i][1] > best:
            front.append(i)
            best = points[i][1]
    return front


def best_settings(df, objective: str | None = None):
    """One row per input: the successful point with the highest objective (ties: fewer chunks).

    The objective is the first of OBJECTIVES with a value for that input, unless given."""
    import pandas as pd

    ok = df[df["status"] == "ok"] if "status" in df.columns else df
    rows = []
    for inp, group in ok.groupby("document", sort=False):
        metric = objective or next((m for m in OBJECTIVES if m in group.columns and group[m].notna().any()), None)
        if metric is None:
            continue
        g = group[group[metric].notna()].sort_values([metric, "chunks"], ascending=[False, True], kind="stable")
        row = g.iloc[0]
        rows.append({"document": inp, "objective": metric, "value": row[metric], "strategy": row.get("strategy"),
                     "params": row.get("params"), "chunks": row.get("chunks")})
    return pd.DataFrame(rows)


def _figure_png(fig) -> str:
    import base64
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)  # tight_layout already fits it; a tight bbox would draw it twice
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _numeric(series) -> bool:
    import pandas as pd

    return pd.to_numeric(series, errors="coerce").notna().all()


def flat_note(values) -> str | None:
    """What to say instead of drawing `values` when a chart of them would be empty: all missing,
    or 0 at every point (a line on the axis reads as "no data"); None when there is something to draw."""
    import pandas as pd

    numbers = pd.to_numeric(pd.Series(list(values), dtype=object), errors="coerce").dropna()
    if numbers.empty:
        return "no value at any point"
    if (numbers == 0).all():
        return "0 at every point"
    return None


def _say_instead(ax, title: str, note: str) -> None:
    """An empty panel that says why it holds no chart."""
    ax.set_title(title, fontsize=9)
    ax.text(0.5, 0.5, note, ha="center", va="center", fontsize=9, transform=ax.transAxes, wrap=True)
    ax.set_xticks([])
    ax.set_yticks([])


def plot_metric_vs_param(df, param: str, metrics: Sequence[str] = PLOT_METRICS):
    """Figure: each metric (mean over inputs and other parameters) against `param`, a line per strategy."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import pandas as pd

    ok = df[(df["status"] == "ok") & df[param].notna()].copy()
    metrics = [m for m in metrics if m in ok.columns and ok[m].notna().any()]
    cols = 4
    nrows = max(1, -(-len(metrics) // cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(3.2 * cols, 2.6 * nrows), squeeze=False)
    numeric = _numeric(ok[param])
    if numeric:
        ok[param] = pd.to_numeric(ok[param])
    for ax, metric in zip(axes.flat, metrics):
        note = flat_note(ok[metric])
        if note:
            _say_instead(ax, metric, note)
            continue
        for strat, g in ok.groupby("strategy", sort=True):
            series = g.groupby(param, sort=True)[metric].mean(numeric_only=False)
            ax.plot([str(x) for x in series.index] if not numeric else series.index, series.values,
                    marker="o", label=str(strat))
        ax.set_title(metric, fontsize=9)
        ax.set_xlabel(param, fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(metrics):]:
        ax.axis("off")
    drawn = [ax for ax, metric in zip(axes.flat, metrics) if not flat_note(ok[metric])]
    if drawn:
        drawn[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_metric_by_strategy(df, metrics: Sequence[str] = PLOT_METRICS):
    """Figure: each metric's mean over inputs and parameters, one bar per strategy."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ok = df[df["status"] == "ok"]
    metrics = [m for m in metrics if m in ok.columns and ok[m].notna().any()]
    cols = 4
    nrows = max(1, -(-len(metrics) // cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(3.2 * cols, 2.6 * nrows), squeeze=False)
    for ax, metric in zip(axes.flat, metrics):
        note = flat_note(ok[metric])
        if note:
            _say_instead(ax, metric, note)
            continue
        means = ok.groupby("strategy", sort=True)[metric].mean()
        ax.bar([str(s) for s in means.index], means.values, color="tab:blue")
        ax.set_title(metric, fontsize=9)
        ax.tick_params(labelsize=7)
    for ax in list(axes.flat)[len(metrics):]:
        ax.axis("off")
    fig.tight_layout()
    return fig


def plot_retrieval_systems(df, measures: Sequence[str] = ("recall_at_1", "recall_at_5", "mrr", "token_iou")):
    """Figure: chunks vs raw elements vs the plain-text baseline (mean per strategy), one panel per measure."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import numpy as np

    ok = df[df["status"] == "ok"]
    systems = ("chunks", "elements", "baseline")
    measures = [m for m in measures if f"ret_chunks_{m}" in ok.columns and ok[f"ret_chunks_{m}"].notna().any()]
    fig, axes = plt.subplots(1, max(1, len(measures)), figsize=(3.4 * max(1, len(measures)), 2.8), squeeze=False)
    strategies = sorted(ok["strategy"].unique())
    x = np.arange(len(strategies))
    for ax, measure in zip(axes.flat, measures):
        note = flat_note(v for system in systems for v in ok[f"ret_{system}_{measure}"])
        if note:
            _say_instead(ax, measure, f"{note}, for every system")
            continue
        for n, system in enumerate(systems):
            means = ok.groupby("strategy")[f"ret_{system}_{measure}"].mean().reindex(strategies)
            ax.bar(x + (n - 1) * 0.27, means.values, width=0.27, label=system)
        ax.set_xticks(x, strategies, fontsize=7)
        ax.set_title(measure, fontsize=9)
    drawn = [ax for ax in axes.flat if ax.containers]
    if drawn:
        drawn[0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def plot_pareto(df, x: str = "chunks", y: str = "ret_chunks_token_iou"):
    """Figure: `y` vs `x` per input, every point coloured by strategy, the Pareto front joined."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    ok = df[(df["status"] == "ok")]
    ok = ok[ok[y].notna()] if y in ok.columns else ok.iloc[0:0]
    docs = list(dict.fromkeys(ok["document"])) if len(ok) else []
    cols = min(3, max(1, len(docs)))
    nrows = max(1, -(-len(docs) // cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3.2 * nrows), squeeze=False)
    for ax, doc in zip(axes.flat, docs):
        g = ok[ok["document"] == doc]
        note = flat_note(g[y])
        if note:
            _say_instead(ax, doc, f"{y}: {note}")
            continue
        for strat, s in g.groupby("strategy", sort=True):
            ax.scatter(s[x], s[y], label=str(strat), s=22)
        pts = list(zip(g[x].astype(float), g[y].astype(float)))
        front = sorted(pts[i] for i in pareto_front(pts))
        ax.plot([p[0] for p in front], [p[1] for p in front], color="black", linewidth=1, label="Pareto front")
        ax.set_title(doc, fontsize=9)
        ax.set_xlabel(x, fontsize=8)
        ax.set_ylabel(y, fontsize=8)
        ax.legend(fontsize=7)
    if not docs:
        axes.flat[0].text(0.5, 0.5, f"no point has {y} (no questions?)", ha="center", va="center")
        axes.flat[0].axis("off")
    for ax in list(axes.flat)[len(docs):] if docs else []:
        ax.axis("off")
    fig.tight_layout()
    return fig


def summary_html(df, grid_keys: Sequence[str] = ("strategy",), rank_by: str | None = None) -> str:
    """A self-contained HTML page: counts, best setting per input, plots, failures, all results."""
    import html

    ok = int((df["status"] == "ok").sum()) if len(df) else 0
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>chunkbench sweep</title>",
        "<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}</style></head><body>",
        "<h1>chunkbench sweep</h1>",
        f"<p>{len(df)} points, {ok} ok, {len(df) - ok} failed. Grid: {html.escape(', '.join(grid_keys))}.</p>",
    ]
    if ok:
        best = best_settings(df, rank_by)
        parts += ["<h2>Best setting per input</h2>", best.to_html(index=False, escape=True, na_rep="")]
        for key in grid_keys:
            if key in df.columns and key != "strategy" and df[key].nunique(dropna=True) > 1:
                png = _figure_png(plot_metric_vs_param(df, key))
                parts += [f"<h2>Metrics vs {html.escape(key)}</h2>",
                          f"<img alt='metrics vs {html.escape(key)}' src='{png}'>"]
        if df["strategy"].nunique() > 1:
            parts += ["<h2>Metrics per strategy</h2>",
                      f"<img alt='metrics per strategy' src='{_figure_png(plot_metric_by_strategy(df))}'>"]
        if "ret_chunks_mrr" in df.columns and df["ret_chunks_mrr"].notna().any():
            parts += ["<h2>Retrieval: chunks vs raw elements vs plain-text splitter</h2>",
                      "<p>BM25 over each; the baseline is LangChain's RecursiveCharacterTextSplitter at the chunks' "
                      "mean size (specs/2: search should improve over raw blocks).</p>",
                      f"<img alt='retrieval systems' src='{_figure_png(plot_retrieval_systems(df))}'>"]
        parts += ["<h2>Pareto front: retrieval IoU vs chunk count</h2>",
                  f"<img alt='pareto' src='{_figure_png(plot_pareto(df))}'>"]
    failed = df[df["status"] != "ok"] if len(df) else df
    if len(failed):
        cols = [c for c in ("document", *grid_keys, "error") if c in failed.columns]
        parts += ["<h2>Failed points</h2>", failed[cols].to_html(index=False, escape=True, na_rep="")]
    shown = [c for c in df.columns if c not in ("input", "point_dir", "notebook", "params")]
    parts += ["<h2>All results</h2>", df[shown].to_html(index=False, escape=True, na_rep=""), "</body></html>"]
    return "\n".join(parts)


def exit_status(df) -> tuple[int, str | None]:
    """(exit code, warning or error line) of a finished sweep: 0 when any point succeeded.

    When every point failed the code is that of the common error type (2 parameters, 3 input,
    4 external tool), else 1."""
    failed = df[df["status"] != "ok"]
    if not len(failed):
        return 0, None
    if len(failed) < len(df):
        return 0, f"warning: {len(failed)} of {len(df)} sweep points failed (see the 'error' column of results.csv)"
    names = {str(e).split(":", 1)[0] for e in failed["error"]}
    code = _EXIT_CODES.get(names.pop(), 1) if len(names) == 1 else 1
    return code, f"all {len(df)} sweep points failed; first error: {failed['error'].iloc[0]}"


def _grid_keys(df) -> list[str]:
    """The swept parameter columns of a results table (between `strategy` and `status`)."""
    cols = list(df.columns)
    return cols[cols.index("strategy") + 1 : cols.index("status")] if {"strategy", "status"} <= set(cols) else []


def swept_keys(df) -> list[str]:
    """The grid keys that take more than one value in `df` (what a metric is plotted against)."""
    return [k for k in _grid_keys(df) if df[k].nunique(dropna=True) > 1]


def grid_columns(df) -> list[str]:
    """Document, strategy, swept parameters, status and the key metrics: the columns shown."""
    wanted = ["document", "strategy", *_grid_keys(df), "status", "chunks", "chars_median", "mid_sentence_share",
              "tables_split", "targets_passed", "ret_chunks_mrr", "ret_elements_mrr", "ret_baseline_mrr",
              "ret_chunks_token_iou"]
    return [c for c in dict.fromkeys(wanted) if c in df.columns]


def grid_rows(results_csv: str | os.PathLike, document: str):
    """The rows of one input in a sweep's results.csv (what the notebook shows with --notebooks all)."""
    import pandas as pd

    df = pd.read_csv(results_csv)
    return df[df["document"] == document].reset_index(drop=True)


def show_grid(results_csv: str | os.PathLike, document: str) -> list:
    """The notebook's whole-grid section (`--notebooks all`): the table of the input's points, shown,
    and each metric against each swept parameter (the figures, returned)."""
    from IPython.display import display

    grid = grid_rows(results_csv, document)
    display(grid[grid_columns(grid)])
    return [plot_metric_vs_param(grid, key) for key in swept_keys(grid)]


def format_results(df) -> str:
    """The results table for a terminal: document, strategy, swept parameters, status, key metrics."""
    return df[grid_columns(df)].to_string(index=False, na_rep="-")


#: the small grid `make demo` ends with: two strategies over every sample PDF (8 points, 4 notebooks)
DEMO_GRID = {"strategy": ["elements", "contract"]}


def demo_sweep(inputs: Sequence[str | os.PathLike], out_dir: str | os.PathLike,
               grid: Mapping[str, Sequence[Any]] = DEMO_GRID, jobs: int | None = None):
    """Run a small sweep, print its results table and where the files and plots are; return the DataFrame."""
    df = run_sweep(inputs, grid, out_dir, jobs=jobs)
    print(format_results(df))
    out = Path(out_dir)
    print(f"sweep results: {out / 'results.csv'} (and results.parquet); each input's notebook (its best point) "
          f"under {out / 'points'}")
    print(f"sweep plots:   {out / 'summary.html'}")
    message = exit_status(df)[1]
    if message:
        print(f"chunkbench sweep: {message}", file=sys.stderr)
    return df

