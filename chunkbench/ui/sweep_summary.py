"""summary.html of a sweep: counts, the best setting per input, figures, failures and all results,
in one self-contained page written beside results.csv."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from chunkbench.app.sweep.results import best_settings
from chunkbench.io.atomic import write_text

from .plots import metric_by_strategy_html, metric_vs_param_html, pareto_html, retrieval_systems_html


def write_summary(df, out_dir: str | os.PathLike, grid_keys: Sequence[str] | None = None,
                  rank_by: str | None = None) -> Path:
    """Write `out_dir/summary.html` atomically; return its path. The grid keys and ranking metric
    default to the ones `run_sweep` recorded in `df.attrs`."""
    keys = grid_keys if grid_keys is not None else df.attrs.get("grid_keys", ("strategy",))
    rank = rank_by if rank_by is not None else df.attrs.get("rank_by")
    return write_text(Path(out_dir) / "summary.html", summary_html(df, keys, rank))


def _legend(columns: list[str]) -> str:
    """What the metrics in `columns` mean (chunkbench.evaluate.glossary), under the table."""
    import html

    from chunkbench.evaluate.glossary import legend

    items = "".join(f"<dt><code>{html.escape(m)}</code></dt><dd>{html.escape(d)}</dd>" for m, d in legend(columns))
    return f"<details open class='note'><summary>What these columns mean</summary><dl>{items}</dl></details>" \
        if items else ""


def _wide(table_html: str) -> str:
    """A table that scrolls inside its own box, so the page keeps the window's width."""
    return f"<div class='wide'>{table_html}</div>"


def _without_questions_html(proxy: bool) -> str:
    """What a best chosen without questions rests on, and how to write a questions file (worked example)."""
    import html

    from chunkbench.evaluate.calibration import caveat

    said = (caveat() if proxy else
            "chosen by the size targets, then the fewest defects: the document is too short for queries of its own")
    return (
        "<h2>Chosen without questions</h2>"
        f"<p class='note'>{html.escape(said)}.</p>"
        "<p>A questions file about your own document is the better judge. Put <code>&lt;stem&gt;.questions.json</code> "
        "beside the PDF (or pass <code>--questions FILE</code>): a JSON list, one object per question, with the "
        "question as a user would ask it and the words of the document that answer it, copied exactly (and the "
        "1-based page, if you like). Twenty questions spread over the document already rank settings; ask about "
        "tables and lists too, and write the question in your users' words, not the document's. From "
        "<code>sample_pdfs/technical_manual.questions.json</code>:</p>"
        "<pre>[\n  {\"id\": \"man-01\",\n   \"question\": \"What baud rate does the TX-200 console use?\",\n"
        "   \"evidence_page\": 2,\n   \"evidence_text\": \"open it at 115200 baud with any terminal program\"}\n]</pre>"
        "<p>Then run the same sweep again: the best point is chosen on real questions (docs/proxy.md).</p>"
    )


def summary_html(df, grid_keys: Sequence[str] = ("strategy",), rank_by: str | None = None) -> str:
    """A self-contained HTML page: counts, best setting per input, plots, failures, all results."""
    import html

    ok = int((df["status"] == "ok").sum()) if len(df) else 0
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>chunkbench sweep</title>",
        "<style>body{font-family:sans-serif;margin:1.5em;max-width:100%}table{border-collapse:collapse;font-size:12px}"
        "td,th{border:1px solid #ccc;padding:2px 6px}img{max-width:100%}"
        ".wide{overflow-x:auto;max-width:100%;border:1px solid #eee}.note{color:#555;font-size:13px}"
        "</style></head><body>",
        "<h1>chunkbench sweep</h1>",
        f"<p>{len(df)} points, {ok} ok, {len(df) - ok} failed. Grid: {html.escape(', '.join(grid_keys))}.</p>",
    ]
    if ok:
        best = best_settings(df, rank_by)
        if "note" in best.columns and not best["note"].fillna("").astype(bool).any():
            best = best.drop(columns="note")  # no input missed its recall floor
        parts.append("<h2>Best setting per input</h2>")
        if df.attrs.get("recall_floor") and "recall_floor" in best.columns:
            parts.append("<p class='note'>Each input's best point: the highest objective among its points that keep "
                         f"the recall floor, {html.escape(df.attrs['recall_floor'])} (recall_floor below).</p>")
        parts += [_wide(best.to_html(index=False, escape=True, na_rep="")),
                  _legend([*best.columns, *best.get("objective", [])])]  # the ranking metric is a value there
        unlabelled = [str(o) for o in best.get("objective", []) if not str(o).startswith("ret_")]
        if unlabelled:
            parts.append(_without_questions_html(any(o.startswith("proxy_") for o in unlabelled)))
        held = df.attrs.get("holdout")
        if held:
            from chunkbench.evaluate.benchmark import holdout_line

            parts.append("<h2>Held-out check</h2><p class='note'>Each best point was chosen on the questions its "
                         "points were scored on; here it is scored against the splitter on the questions held out "
                         "of them (--holdout).</p><ul>" + "".join(
                             f"<li>{html.escape(doc)}: {html.escape(holdout_line(check))}</li>"
                             for doc, check in held.items()) + "</ul>")
        labels = df.attrs.get("labels") or {}
        if labels:
            parts.append("<p class='note'>Reviewer agreement (rev_boundary_*) rests on: " + "; ".join(
                f"{html.escape(name)}: {html.escape(what)}" for name, what in labels.items()) + ".</p>")
        changes = df.attrs.get("edit_changes") or []
        if changes:
            import pandas as pd

            table = pd.DataFrame(changes)[["document", "edit_id", "kind", "reviewer", "text", "points_reproducing",
                                           "smallest_change"]]
            parts += ["<h2>Reviewers' edits: the smallest change in this grid that reproduces each</h2>",
                      _wide(table.to_html(index=False, escape=True, na_rep=""))]
        for key in grid_keys:
            if key in df.columns and key != "strategy" and df[key].nunique(dropna=True) > 1:
                parts += [f"<h2>Metrics vs {html.escape(key)}</h2>",
                          "<p class='note'>Per-input values: results.csv and the table below. Hover a point for "
                          "its value.</p>", metric_vs_param_html(df, key)]
        if df["strategy"].nunique() > 1:
            parts += ["<h2>Metrics per strategy</h2>", metric_by_strategy_html(df)]
        if "ret_chunks_mrr" in df.columns and df["ret_chunks_mrr"].notna().any():
            parts += ["<h2>Retrieval: chunks vs raw elements vs plain-text splitter</h2>",
                      "<p>BM25 over each; the baseline is LangChain's RecursiveCharacterTextSplitter with sentence "
                      "ends among its separators, at the chunks' mean size (specs/2: search should improve over raw "
                      "blocks).</p>", retrieval_systems_html(df)]
        parts += ["<h2>Pareto front: retrieval IoU vs chunk count</h2>", pareto_html(df)]
    failed = df[df["status"] != "ok"] if len(df) else df
    if len(failed):
        cols = [c for c in ("document", *grid_keys, "error") if c in failed.columns]
        parts += ["<h2>Failed points</h2>", _wide(failed[cols].to_html(index=False, escape=True, na_rep=""))]
    shown = [c for c in df.columns if c not in ("input", "point_dir", "notebook", "params")]
    parts += ["<h2>All results</h2>",
              f"<p class='note'>{len(shown)} columns: the table scrolls sideways; results.csv has them all.</p>",
              _wide(df[shown].to_html(index=False, escape=True, na_rep="")), "</body></html>"]
    return "\n".join(parts)
