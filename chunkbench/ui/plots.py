"""Figures: a chunking's size histogram (matplotlib, in notebooks); a sweep's metrics against a
parameter, per strategy, retrieval systems and the Pareto front as SVG panels the browser draws
(svgcharts: summary.html and the sweep notebook); the sweep notebook's whole-grid section. The
numbers come from chunkbench.evaluate; only drawing happens here."""

from __future__ import annotations

import os
from collections.abc import Sequence

from chunkbench.app.sweep.results import grid_columns, grid_rows, pareto_front, swept_keys
from chunkbench.evaluate import stats
from chunkbench.evaluate.metrics import size_histogram
from chunkbench.types.chunkset import ChunkSet

from .svgcharts import Panel, Series, panels_html

#: metrics plotted against each swept parameter in summary.html
PLOT_METRICS = (
    "chunks", "chars_median", "mid_sentence_share", "tables_split", "targets_passed",
    "ret_chunks_recall_at_5", "ret_chunks_mrr", "ret_chunks_token_iou",
)


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


def metric_vs_param_html(df, param: str, metrics: Sequence[str] = PLOT_METRICS) -> str:
    """Each metric (mean over inputs and other parameters) against `param`, a line per strategy,
    as SVG panels (the browser draws them) with what each point averages said above them."""
    import pandas as pd

    ok = df[(df["status"] == "ok") & df[param].notna()].copy()
    metrics = [m for m in metrics if m in ok.columns and ok[m].notna().any()]
    numeric = _numeric(ok[param])
    if numeric:
        ok[param] = pd.to_numeric(ok[param])
    panels = []
    for metric in metrics:
        note = flat_note(ok[metric])
        series = [] if note else [
            Series(str(strat), [x if numeric else str(x) for x in means.index], [_value(v) for v in means.values])
            for strat, g in ok.groupby("strategy", sort=True)
            for means in [g.groupby(param, sort=True)[metric].mean(numeric_only=False)]]
        panels.append(Panel(metric, series, x_label=param, note=note or ""))
    return panels_html(panels, averaged_over(ok, param))


def averaged_over(ok, param: str) -> str:
    """What each plotted point averages, said on the figure: the inputs and other swept settings."""
    inputs = ok["document"].nunique() if "document" in ok.columns else 1
    others = [k for k in swept_keys(ok) if k not in (param, "strategy")]
    parts = [f"{inputs} inputs" if inputs > 1 else "1 input"] + [f"every {k}" for k in others]
    what = "mean over " if inputs > 1 or others else ""
    return f"each point: {what}{', '.join(parts)}"


def _value(v) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if f != f else f


def metric_by_strategy_html(df, metrics: Sequence[str] = PLOT_METRICS) -> str:
    """Each metric's mean over inputs and parameters, one bar per strategy (SVG panels)."""
    ok = df[df["status"] == "ok"]
    metrics = [m for m in metrics if m in ok.columns and ok[m].notna().any()]
    panels = []
    for metric in metrics:
        note = flat_note(ok[metric])
        means = ok.groupby("strategy", sort=True)[metric].mean()
        series = [] if note else [Series("mean over inputs and parameters", [str(x) for x in means.index],
                                         [_value(v) for v in means.values], kind="bar")]
        panels.append(Panel(metric, series, note=note or ""))
    return panels_html(panels)


def retrieval_systems_html(df, measures: Sequence[str] = ("recall_at_1", "recall_at_5", "mrr", "token_iou")) -> str:
    """Chunks vs raw elements vs the plain-text baseline (mean per strategy), a panel per measure."""
    ok = df[df["status"] == "ok"]
    systems = ("chunks", "elements", "baseline")
    measures = [m for m in measures if f"ret_chunks_{m}" in ok.columns and ok[f"ret_chunks_{m}"].notna().any()]
    strategies = sorted(str(s) for s in ok["strategy"].unique())
    panels = []
    for measure in measures:
        note = flat_note(v for system in systems for v in ok[f"ret_{system}_{measure}"])
        series = [] if note else [
            Series(system, strategies, [_value(v) for v in
                                        ok.groupby("strategy")[f"ret_{system}_{measure}"].mean().reindex(strategies)],
                   kind="bar")
            for system in systems]
        panels.append(Panel(measure, series, note=f"{note}, for every system" if note else ""))
    return panels_html(panels)


def pareto_html(df, x: str = "chunks", y: str = "ret_chunks_token_iou") -> str:
    """`y` against `x` per input, every point coloured by strategy, the Pareto front joined (black)."""
    ok = df[(df["status"] == "ok")]
    ok = ok[ok[y].notna()] if y in ok.columns else ok.iloc[0:0]
    docs = list(dict.fromkeys(ok["document"])) if len(ok) else []
    panels = []
    for doc in docs:
        g = ok[ok["document"] == doc]
        note = flat_note(g[y])
        if note:
            panels.append(Panel(str(doc), note=f"{y}: {note}"))
            continue
        series = [Series(str(strat), [float(v) for v in s[x]], [_value(v) for v in s[y]], kind="scatter")
                  for strat, s in g.groupby("strategy", sort=True)]
        pts = list(zip(g[x].astype(float), g[y].astype(float)))
        front = sorted(pts[i] for i in pareto_front(pts))
        series.append(Series("Pareto front", [p[0] for p in front], [p[1] for p in front], kind="path", color="#000000"))
        panels.append(Panel(str(doc), series, x_label=x, y_label=y))
    if not docs:
        panels.append(Panel("Pareto front", note=f"no point has {y} (no questions?)"))
    return panels_html(panels)


def show_grid(results_csv: str | os.PathLike | None, document: str) -> list:
    """The notebook's whole-grid section (`--notebooks all`): the table of the input's points, shown,
    and each metric against each swept parameter (SVG charts, shown and returned). Without a results file
    (the default `--notebooks best`, or the notebook run alone) it says how to get one."""
    from IPython.display import Markdown, display

    if not results_csv:
        display(Markdown("*Not part of this run: the whole grid is shown for `chunkbench sweep ... --notebooks all` "
                         "(or pass `results_csv=` to this notebook); the sweep's summary.html has it too.*"))
        return []
    from IPython.display import HTML

    grid = grid_rows(results_csv, document)
    display(HTML(grid_table_html(grid)))
    charts = [metric_vs_param_html(grid, key) for key in swept_keys(grid)]
    for chart in charts:
        display(HTML(chart))
    return charts


#: grid points up to which the notebook's grid table turns metrics into rows (it then fits beside
#: JupyterLab's file browser at 1,280 px: 848 px for the output)
POINTS_AS_COLUMNS = 8


def grid_table_html(grid) -> str:
    """One input's grid points as an HTML table that fits a notebook: a metric per row and a point
    per column (named by its swept values) up to POINTS_AS_COLUMNS points, else a point per row in
    a box that scrolls sideways; columns that hold one value at every point (the document, an
    unswept key) are said once above it."""
    import html

    columns = grid_columns(grid)
    same = [c for c in columns if grid[c].nunique(dropna=False) == 1 and c in ("document", "strategy", "status")]
    said = "; ".join(f"{c} {html.escape(str(grid[c].iloc[0]))}" for c in same)
    table = grid[[c for c in columns if c not in same]]
    swept = swept_keys(grid) or [k for k in ("strategy",) if k in table.columns]
    if 0 < len(table) <= POINTS_AS_COLUMNS and swept:
        names = [", ".join(f"{k}={row[k]}" for k in swept) for _, row in table.iterrows()]
        body = table.drop(columns=[k for k in swept if k in table.columns]).T
        body.columns = names
        shown = body.to_html(escape=True, na_rep="-", float_format=lambda v: f"{v:.4g}")
    else:
        shown = table.to_html(index=False, escape=True, na_rep="-", float_format=lambda v: f"{v:.4g}")
    return (f"<p>{said}</p>" if said else "") + f"<div style='overflow-x:auto;max-width:100%'>{shown}</div>"


def plot_size_histogram(chunkset: ChunkSet, unit: str = "chars", bins: int = 20, ax=None):
    """Bar chart of `size_histogram` with the seed-2 median range shaded; returns the Axes."""
    import matplotlib.pyplot as plt

    hist = size_histogram(chunkset, unit, bins)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3))
    edges, counts = hist["edges"], hist["counts"]
    widths = [b - a for a, b in zip(edges, edges[1:])]
    ax.bar(edges[:-1], counts, width=widths, align="edge", edgecolor="white")
    if unit == "chars":
        lo, hi = stats.MEDIAN_CHARS_RANGE
        ax.axvspan(lo, hi, color="tab:green", alpha=0.12, label=f"target median {lo}–{hi}")
        ax.axvline(stats.P95_CHARS_LIMIT, color="tab:red", linestyle="--", linewidth=1,
                   label=f"95% below {stats.P95_CHARS_LIMIT}")
        ax.legend(loc="upper right", fontsize=8)
    ax.set_xlabel(f"chunk size ({unit})")
    ax.set_ylabel("chunks")
    ax.set_title(f"{chunkset.doc.source} · {chunkset.strategy} · {len(chunkset)} chunks", fontsize=9)
    return ax
