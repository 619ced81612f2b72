"""The files a sweep writes besides each point's: results.csv, results.parquet and summary.html,
each atomically."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .plots import (
    figure_png,
    plot_metric_by_strategy,
    plot_metric_vs_param,
    plot_pareto,
    plot_retrieval_systems,
)
from .results import best_settings


def write_results(df, out_dir: str | os.PathLike, grid_keys: Sequence[str] = ("strategy",), *,
                  rank_by: str | None = None, summary: bool = True) -> dict[str, Path]:
    """results.csv, results.parquet and (unless `summary` is false) summary.html, each written atomically."""
    from ..atomic import atomic_path, write_text

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
                png = figure_png(plot_metric_vs_param(df, key))
                parts += [f"<h2>Metrics vs {html.escape(key)}</h2>",
                          f"<img alt='metrics vs {html.escape(key)}' src='{png}'>"]
        if df["strategy"].nunique() > 1:
            parts += ["<h2>Metrics per strategy</h2>",
                      f"<img alt='metrics per strategy' src='{figure_png(plot_metric_by_strategy(df))}'>"]
        if "ret_chunks_mrr" in df.columns and df["ret_chunks_mrr"].notna().any():
            parts += ["<h2>Retrieval: chunks vs raw elements vs plain-text splitter</h2>",
                      "<p>BM25 over each; the baseline is LangChain's RecursiveCharacterTextSplitter at the chunks' "
                      "mean size (specs/2: search should improve over raw blocks).</p>",
                      f"<img alt='retrieval systems' src='{figure_png(plot_retrieval_systems(df))}'>"]
        parts += ["<h2>Pareto front: retrieval IoU vs chunk count</h2>",
                  f"<img alt='pareto' src='{figure_png(plot_pareto(df))}'>"]
    failed = df[df["status"] != "ok"] if len(df) else df
    if len(failed):
        cols = [c for c in ("document", *grid_keys, "error") if c in failed.columns]
        parts += ["<h2>Failed points</h2>", failed[cols].to_html(index=False, escape=True, na_rep="")]
    shown = [c for c in df.columns if c not in ("input", "point_dir", "notebook", "params")]
    parts += ["<h2>All results</h2>", df[shown].to_html(index=False, escape=True, na_rep=""), "</body></html>"]
    return "\n".join(parts)
