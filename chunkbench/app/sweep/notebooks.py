"""The sweep notebook: where it ships, how papermill runs it (this interpreter as the kernel), and
its one run per input for the input's best point."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from chunkbench.errors import ChunkbenchError

from .grid import Point
from .points import describe_error
from .results import best_settings

NOTEBOOK_NAME = "02_sweep.ipynb"


def notebook_path() -> Path:
    """The sweep notebook shipped inside the package (`chunkbench/notebooks/02_sweep.ipynb`)."""
    path = Path(__file__).resolve().parents[2] / "notebooks" / NOTEBOOK_NAME
    if not path.is_file():
        raise ChunkbenchError(f"sweep notebook missing from the package: {path}")
    return path


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


def run_notebooks(df, points: Sequence[Point], out_dir: str | os.PathLike, results_csv: str | os.PathLike | None, *,
                  rank_by: str | None = None, kernel_name: str = "python3", timeout: float | None = 600) -> None:
    """Execute the sweep notebook once per input for its best point (with `results_csv`, the
    notebook also shows the input's whole grid); the notebook path goes into the rows of that input
    (`df` is updated in place). An input without a successful point gets none; a notebook that
    fails is kept to look at and named on stderr."""
    best = best_settings(df, rank_by)
    by_document = {p.document: p for p in points}
    chunk_files = {(p.document, p.strategy): p.chunks_file for p in points if p.chunks_file}
    for _, choice in best.iterrows():
        rows = df.index[(df["document"] == choice["document"]) & (df["status"] == "ok")]
        winner = df.loc[rows[0]] if len(rows) else None
        match = [i for i in rows if df.at[i, "params"] == choice["params"] and df.at[i, "strategy"] == choice["strategy"]]
        if match:
            winner = df.loc[match[0]]
        if winner is None:
            continue
        point = by_document[choice["document"]]
        nb = (Path(out_dir) / "points" / choice["document"] / NOTEBOOK_NAME).resolve()  # the kernel runs beside it
        nb.parent.mkdir(parents=True, exist_ok=True)
        try:
            execute_notebook(notebook_path(), nb, {
                "input_path": winner["input"], "strategy": winner["strategy"], "params": json.loads(winner["params"]),
                "questions": point.questions or "", "out_dir": str(winner["point_dir"]), "overlay_page": 1,
                "results_csv": str(Path(results_csv).resolve()) if results_csv else "",
                "document": choice["document"], "rank_by": choice["objective"], "retriever": point.retriever,
                "holdout": point.holdout or 0.0,
                "chunks_file": chunk_files.get((choice["document"], winner["strategy"])) or "",
            }, cwd=nb.parent, kernel_name=kernel_name, timeout=timeout, kernel_log=nb.parent / "kernel.log")
        except Exception as exc:  # noqa: BLE001 - the results stand; the notebook is kept to look at
            print(f"chunkbench sweep: warning: notebook of {choice['document']} failed: {describe_error(exc)} ({nb})",
                  file=sys.stderr)
        df.loc[df["document"] == choice["document"], "notebook"] = str(nb)
