"""The results table of a sweep: rows to a DataFrame, the best point per input, the exit status,
the columns a terminal or notebook shows."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

#: the default objective of "best setting per input", in order of preference: real questions' token
#: IoU, then without questions the label-free proxy's (evaluate.proxy), then the size targets
OBJECTIVES = ("ret_chunks_token_iou", "ret_chunks_mrr", "proxy_token_iou", "targets_passed")


#: the columns that hold file paths or names
_NAMES = ("input", "document", "point_dir", "notebook")
#: exit code of the CLI when every point failed with this error type
_EXIT_CODES = {"ParamError": 2, "UsageError": 2, "InputError": 3, "ExternalToolError": 4}


def results_frame(rows: Sequence[Mapping], grid_keys: Sequence[str] = ()):
    """Rows → DataFrame: input, document, strategy, the grid columns, status, then every metric."""
    import pandas as pd

    from chunkbench.text.terminal import name_as_text

    # paths and names as text every table file can hold (a file name that is not UTF-8)
    rows = [{**r, **{k: name_as_text(r[k]) for k in _NAMES if isinstance(r.get(k), str)}} for r in rows]
    df = pd.DataFrame(rows)
    head = ["input", "document", "strategy", *[k for k in grid_keys if k != "strategy"],
            "status", "error", "seconds", "params", "point_dir", "notebook"]
    ordered = [c for c in dict.fromkeys(head) if c in df.columns]
    df = df[ordered + [c for c in df.columns if c not in ordered]]
    for col in df.columns:  # counts stay integers when failed rows leave holes (nullable Int64)
        values = [r[col] for r in rows if r.get(col) is not None]
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values) and len(values) < len(df):
            df[col] = df[col].astype("Int64")
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

    The objective is the first of OBJECTIVES with a value for that input, unless given. Token IoU
    and precision are ranked among the points at or above the input's `recall_floor` (floor.py)
    only; `note` says when no point reached it."""
    import pandas as pd

    from .floor import GUARDED, PROXY_GUARDED, guarded

    ok = df[df["status"] == "ok"] if "status" in df.columns else df
    rows = []
    for inp, group in ok.groupby("document", sort=False):
        metric = objective or next((m for m in OBJECTIVES if m in group.columns and group[m].notna().any()), None)
        if metric is None:
            continue
        candidates, note = guarded(group[group[metric].notna()], metric)
        if candidates.empty:
            continue
        # by the size targets alone, the fewer defects win among the points that meet as many
        # (a chopper meets them all: evaluate.verdict)
        by = [metric, "defects_per_100", "chunks"] if metric == "targets_passed" and "defects_per_100" in candidates \
            else [metric, "chunks"]
        g = candidates.sort_values(by, ascending=[False, *[True] * (len(by) - 1)], kind="stable", na_position="last")
        row = g.iloc[0]
        best = {"document": inp, "objective": metric, "value": row[metric], "strategy": row.get("strategy"),
                "params": row.get("params"), "chunks": row.get("chunks"), "verdict": row.get("verdict"),
                "targets_passed": row.get("targets_passed"), "targets_total": row.get("targets_total"),
                "defects_per_100": row.get("defects_per_100")}
        if metric in GUARDED and "recall_floor" in group.columns and group["recall_floor"].notna().any():
            best.update({"ret_chunks_token_recall": row.get("ret_chunks_token_recall"), "recall_floor": row.get("recall_floor"),
                         "note": note})
        if metric in PROXY_GUARDED:
            recall, floor = PROXY_GUARDED[metric]
            best.update({"proxy_token_recall": row.get(recall), "proxy_floor": row.get(floor), "note": note})
        rows.append(best)
    return pd.DataFrame(rows)


#: said under a best chosen by the size targets alone (no questions, no proxy score)
TARGETS_ONLY = ("chosen by the size targets, then the fewest defects (no questions file, and no proxy score: the "
                "document is too short for its own queries): a check of the cuts, not a retrieval result")


def row_setting(row):
    """The setting (benchmark.Setting: strategy and parameters, index parameters among them) of a
    results row or a best_settings row, whose `params` is the JSON results.csv holds."""
    import json

    from chunkbench.evaluate.benchmark import Setting

    return Setting(row["strategy"], json.loads(row["params"] or "{}"))


def best_lines(df) -> list[str]:
    """One line per input naming its best point (best_settings), for a terminal: the objective's
    value and, under a recall floor, the point's token recall against it; after it, with a held-out
    check (run_sweep's holdout), that check's sentence."""
    import pandas as pd

    from chunkbench.evaluate.benchmark import holdout_line
    from chunkbench.evaluate.calibration import caveat

    lines = []
    for _, best in best_settings(df, df.attrs.get("rank_by")).iterrows():
        name = row_setting(best).name  # "recursive chunk_size=200"
        value = f"{best['value']:.1%}" if str(best["objective"]).startswith(("ret_chunks_token", "proxy_token")) \
            else f"{best['value']:g}"
        line = f"best for {best['document']}: {name}: {best['objective']} {value}"
        if "recall_floor" in best and not pd.isna(best["recall_floor"]):
            line += f" at token recall {best['ret_chunks_token_recall']:.1%} (floor {best['recall_floor']:.1%}"
            line += f": {df.attrs['recall_floor']})" if df.attrs.get("recall_floor") else ")"
            if isinstance(best["note"], str) and best["note"]:
                line += f"; {best['note']}"
        if str(best["objective"]).startswith("proxy_"):
            line += f" at proxy token recall {best['proxy_token_recall']:.1%} (the splitter's: {best['proxy_floor']:.1%})"
            if isinstance(best["note"], str) and best["note"]:
                line += f"; {best['note']}"
            line += f"\n  {caveat()}"
        elif best["objective"] == "targets_passed":
            line += f"\n  {TARGETS_ONLY}"
        lines.append(line)
        if isinstance(best.get("verdict"), str):  # the chosen point's targets and defects in one word
            lines.append(f"  verdict {best['verdict']}: targets {best['targets_passed']}/{best['targets_total']}, "
                         f"{best['defects_per_100']:g} defects per 100 chunks")
        if best["document"] in (df.attrs.get("holdout") or {}):
            lines.append(f"  {holdout_line(df.attrs['holdout'][best['document']])}")
    return lines


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
              "dependent_start_share", "tables_split", "targets_passed", "ret_chunks_mrr", "ret_elements_mrr",
              "ret_baseline_mrr", "ret_chunks_token_iou", "ret_chunks_token_recall", "proxy_token_iou", "proxy_token_recall",
              "defects_per_100", "verdict", "rev_boundary_f1", "rev_labels"]
    return [c for c in dict.fromkeys(wanted) if c in df.columns]


def grid_rows(results_csv: str | os.PathLike, document: str):
    """The rows of one input in a sweep's results.csv (what the notebook shows with --notebooks all)."""
    import pandas as pd

    df = pd.read_csv(results_csv)
    return df[df["document"] == document].reset_index(drop=True)


def format_results(df) -> str:
    """The results table for a terminal: document, strategy, swept parameters, status, key metrics,
    and a line on token IoU when it is shown (its small values read as broken otherwise)."""
    from chunkbench.evaluate.glossary import explain

    columns = grid_columns(df)
    table = df[columns].to_string(index=False, na_rep="-")
    if "ret_chunks_token_iou" in columns:
        table += f"\nret_chunks_token_iou: {explain('ret_chunks_token_iou')}."
    if "proxy_token_iou" in columns:
        table += f"\nproxy_token_iou: {explain('proxy_token_iou')}."
    for name, rests_on in (df.attrs.get("labels") or {}).items():
        table += f"\nrev_boundary_f1 of {name} rests on {rests_on} from reviewers' verdicts."
    return table
