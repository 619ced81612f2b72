"""Parameter sweeps: every input × grid point computed in-process, the notebook once per input.

`run_sweep(inputs, grid, out_dir)` parses each input once (filling the parse cache), computes
every point with `measure_point` (chunk, every metric, chunks.json and metrics.json) in this
process, in worker processes when the work outweighs starting them, or as tasks on a Dask
cluster, and collects one row per input × point into `results.csv`, `results.parquet` and a
self-contained `summary.html` (drawn by `chunkbench.ui.sweep_summary`). A point that fails records its error in the row; the sweep goes on.
Then the papermill notebook `02_sweep.ipynb` (which calls the same `measure_point`) runs once per
input: `notebooks="best"` for the input's best point, `"all"` with the whole grid's table and
plots as well, `"none"` not at all. A point costs milliseconds; a notebook, seconds of kernel start.

Modules: `grid` (the points), `points` (one point, in-process), `schedule` (run_sweep: this
process, workers or Dask), `results` (the table, best point, exit status), `floor` (the recall the best point by IoU keeps), `heldout` (the best points checked on held-out
questions), `output` (results.csv and .parquet),
`notebooks` (papermill, once per input). The figures and summary.html are drawn in the ui floor
(`chunkbench.ui.plots`, `chunkbench.ui.sweep_summary`): nothing here imports a plotting library.

Layout of `out_dir`:
    results.csv, results.parquet, summary.html
    points/<input stem>/02_sweep.ipynb                  the input's notebook (best point, grid)
    points/<input stem>/<strategy>__<key>=<value>.../   chunks.json, metrics.json
"""

from .grid import Point, collect_params, make_points, parse_grid, questions_for
from .notebooks import NOTEBOOK_NAME, execute_notebook, kernel_manager_class, notebook_path, run_notebooks
from .output import write_results
from .points import compute_point, describe_error, measure_point, write_point
from .results import (
    OBJECTIVES,
    best_lines,
    best_settings,
    exit_status,
    format_results,
    grid_columns,
    grid_rows,
    pareto_front,
    results_frame,
    swept_keys,
)
from .schedule import NOTEBOOK_MODES, POOL_STARTUP_SECONDS, preparse, run_sweep

__all__ = [
    "NOTEBOOK_MODES", "NOTEBOOK_NAME", "OBJECTIVES", "POOL_STARTUP_SECONDS", "Point",
    "best_lines", "best_settings", "collect_params", "compute_point", "describe_error", "execute_notebook",
    "exit_status", "format_results", "grid_columns", "grid_rows", "kernel_manager_class",
    "make_points", "measure_point", "notebook_path", "pareto_front", "parse_grid",
    "preparse", "questions_for", "results_frame",
    "run_notebooks", "run_sweep", "swept_keys", "write_point", "write_results",
]
