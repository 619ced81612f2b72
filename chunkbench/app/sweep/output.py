"""The table files a sweep writes besides each point's: results.csv and results.parquet, each
atomically (summary.html, with its figures, is drawn by chunkbench.ui.sweep_summary)."""

from __future__ import annotations

import os
from pathlib import Path

from chunkbench.io.atomic import atomic_path


def write_results(df, out_dir: str | os.PathLike) -> dict[str, Path]:
    """results.csv and results.parquet, each written atomically."""

    out = Path(out_dir)
    paths = {"csv": out / "results.csv", "parquet": out / "results.parquet"}
    with atomic_path(paths["csv"]) as tmp:
        df.to_csv(tmp, index=False)
    with atomic_path(paths["parquet"]) as tmp, open(tmp, "wb") as fh:  # pyarrow takes only UTF-8 path names
        _parquet_safe(df).to_parquet(fh, index=False)
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
