"""Figures (matplotlib): a chunking's size histogram; a sweep's metrics against a parameter, per
strategy, retrieval systems and the Pareto front; the sweep notebook's whole-grid section. The
numbers come from chunkbench.evaluate; only drawing happens here."""

from __future__ import annotations

import os
from collections.abc import Sequence

from chunkbench.evaluate import stats
from chunkbench.evaluate.metrics import size_histogram
from chunkbench.evaluate.sweep.results import grid_columns, grid_rows, pareto_front, swept_keys
from chunkbench.types.chunkset import ChunkSet

#: metrics plotted against each swept parameter in summary.html
PLOT_METRICS = (
    "chunks", "chars_median", "mid_sentence_share", "tables_split", "targets_passed",
    "ret_chunks_recall_at_5", "ret_chunks_mrr", "ret_chunks_token_iou",
)


def _file_backend() -> None:
    """Agg (no display needed) for figures drawn outside a notebook; a notebook's inline backend is
    kept, or its later plots (the grid, the size histogram) would no longer show."""
    import matplotlib

    if "inline" not in matplotlib.get_backend():
        matplotlib.use("Agg", force=False)


def figure_png(fig) -> str:
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
    _file_backend()
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
    fig.suptitle(averaged_over(ok, param), fontsize=8)
    fig.tight_layout()
    return fig


def averaged_over(ok, param: str) -> str:
    """What each plotted point averages, said on the figure: the inputs and other swept settings."""
    inputs = ok["document"].nunique() if "document" in ok.columns else 1
    others = [k for k in swept_keys(ok) if k not in (param, "strategy")]
    parts = [f"{inputs} inputs" if inputs > 1 else "1 input"] + [f"every {k}" for k in others]
    what = "mean over " if inputs > 1 or others else ""
    return f"each point: {what}{', '.join(parts)}"


def plot_metric_by_strategy(df, metrics: Sequence[str] = PLOT_METRICS):
    """Figure: each metric's mean over inputs and parameters, one bar per strategy."""
    _file_backend()
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
    _file_backend()
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
    _file_backend()
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


def show_grid(results_csv: str | os.PathLike | None, document: str) -> list:
    """The notebook's whole-grid section (`--notebooks all`): the table of the input's points, shown,
    and each metric against each swept parameter (the figures, returned). Without a results file
    (the default `--notebooks best`, or the notebook run alone) it says how to get one."""
    from IPython.display import Markdown, display

    if not results_csv:
        display(Markdown("*Not part of this run: the whole grid is shown for `chunkbench sweep ... --notebooks all` "
                         "(or pass `results_csv=` to this notebook); the sweep's summary.html has it too.*"))
        return []
    grid = grid_rows(results_csv, document)
    display(grid[grid_columns(grid)])
    return [plot_metric_vs_param(grid, key) for key in swept_keys(grid)]


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
