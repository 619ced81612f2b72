"""`chunkbench evaluate --recall-margin M`: the best setting must beat the baseline's token recall by
M standard errors of the paired difference, or M points (chunkbench.evaluate.margin), on the
project's public-domain corpus; and benchmarks/selection_rules.py's re-pooling of question parts."""

from __future__ import annotations

import json
import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.retrieval_public import grid
from benchmarks.selection_rules import part, split, subcases
from chunkbench.errors import UsageError
from chunkbench.evaluate.benchmark import (
    Setting,
    baseline,
    beats_baseline,
    compare_scored,
    compare_settings,
    find_cases,
    score_questions,
)
from chunkbench.evaluate.margin import RecallMargin, difference_se
from chunkbench.ui.cli import main
from tests.support.corpora import CORPUS

FACTBOOK = CORPUS / "factbook_iceland.txt"
APOLLO = CORPUS / "apollo13_air_to_ground.txt"
SIZES = [Setting("recursive", {"chunk_size": c, "index_context": 1}) for c in range(200, 420, 20)]


def test_margins_are_read_from_their_spelling_and_bad_ones_are_refused():
    assert RecallMargin.parse("1se") == RecallMargin(1.0, "se")
    assert RecallMargin.parse(" 0.5 SE ") == RecallMargin(0.5, "se")
    assert RecallMargin.parse("2pt") == RecallMargin(2.0, "pt")
    assert str(RecallMargin.parse("1.5se")) == "1.5 SE" and str(RecallMargin.parse("2pt")) == "2 pt"
    for bad in ("", "1", "se", "-1se", "1 points", "1sepp"):
        with pytest.raises(UsageError, match="--recall-margin"):
            RecallMargin.parse(bad)
    assert RecallMargin(2, "pt").needed(0.03) == pytest.approx(0.02)
    assert RecallMargin(1.5, "se").needed(0.02) == pytest.approx(0.03)
    assert RecallMargin(1, "se").needed(None) == 0.0


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=60), st.floats(-1, 1))
def test_the_standard_error_is_that_of_the_mean_paired_difference(pairs, shift):
    values, reference = [v for v, _ in pairs], [r for _, r in pairs]
    se = difference_se(values, reference)
    diffs = [v - r for v, r in pairs]
    assert se == pytest.approx(statistics.stdev(diffs) / math.sqrt(len(diffs)), abs=1e-6)
    # a constant added to every value moves the mean difference, not its spread
    assert difference_se([v + shift for v in values], reference) == pytest.approx(se, abs=2e-6)
    assert difference_se(values[:1], reference[:1]) is None


def _check_best(result, margin):
    """The best clears the margin, and every setting with more IoU that beats the baseline does not."""
    rows = {r["setting"]: r for r in result["rows"]}
    base = result["rows"][0]
    best = rows[result["best"]]
    assert best["token_recall"] - base["token_recall"] >= margin.needed(best["recall_diff_se"]) - 1e-9
    for r in result["rows"][1:]:
        if beats_baseline(r) and r["token_iou"] > best["token_iou"]:
            assert r["token_recall"] - base["token_recall"] < margin.needed(r["recall_diff_se"])


def test_a_margin_of_one_standard_error_passes_over_a_best_whose_recall_is_barely_the_baselines():
    cases = find_cases([FACTBOOK])
    plain = compare_settings(cases, SIZES, baseline(400))
    margin = RecallMargin(1, "se")
    strict = compare_settings(cases, SIZES, baseline(400), margin=margin)
    assert plain["best"] and strict["best"] and plain["best"] != strict["best"]
    _check_best(strict, margin)
    rows = {r["setting"]: r for r in strict["rows"]}
    # the plain best has the most IoU but too little recall to spare; the margin costs IoU
    assert rows[plain["best"]]["token_iou"] > rows[strict["best"]]["token_iou"]
    assert strict["recall_margin"] == {"amount": 1.0, "unit": "se"} and "recall_margin" not in plain
    # no margin and a margin of 0 choose alike; rows are marked alike either way
    zero = compare_settings(cases, SIZES, baseline(400), margin=RecallMargin(0, "pt"))
    assert zero["best"] == plain["best"] and zero["rows"] == plain["rows"] == strict["rows"]


def test_with_no_setting_clearing_the_margin_the_summary_says_none_wins_and_by_how_much_each_falls_short(capsys):
    args = ["evaluate", str(APOLLO), "--strategy", "recursive", "--grid", "chunk_size=" + ",".join(
        str(s.params["chunk_size"]) for s in SIZES), "--set", "index_context=1", "--baseline-size", "400",
        "--no-progress"]
    assert main(args) == 0
    assert "\nbest: recursive chunk_size=" in capsys.readouterr().out
    assert main([*args, "--recall-margin", "1se"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("no setting wins"))
    assert "by the margin of 1 SE" in line and " needed)" in line


def test_evaluate_names_the_margin_in_its_best_line_and_json(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["evaluate", str(FACTBOOK), "--strategy", "recursive", "--grid", "chunk_size=200,320",
                 "--set", "index_context=1", "--baseline-size", "400", "--recall-margin", "1se",
                 "--no-progress", "-o", str(out), "--misses", "none"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("best: "))
    assert line.startswith("best: recursive chunk_size=320 index_context=1") and "by the margin of 1 SE: +" in line
    saved = json.loads((out / "evaluation.json").read_text("utf-8"))
    assert saved["recall_margin"] == {"amount": 1.0, "unit": "se"} and saved["best"] == "recursive chunk_size=320 index_context=1"
    assert line in (out / "evaluation.md").read_text("utf-8")


def test_a_bad_margin_is_a_usage_error_before_any_work(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["evaluate", str(FACTBOOK), "--recall-margin", "1 percent", "-o", str(out)]) == 2
    assert "--recall-margin" in capsys.readouterr().err and not out.exists()


def test_parts_of_the_questions_are_pooled_as_an_evaluation_of_those_questions_alone():
    """benchmarks/selection_rules.py scores every question once and re-pools parts of them: the same
    rows, best and intervals as an evaluation run on those questions only."""
    cases = find_cases([FACTBOOK, APOLLO])
    settings = SIZES[:4]
    scored = [score_questions(s, cases, 5, "bm25", {}) for s in (baseline(400), *settings)]
    choose, held = split(cases, seed=3)
    assert split(cases, seed=3) == (choose, held) and split(cases, seed=4) != (choose, held)
    # the grids docs/evaluation.md counts: 69 settings, and 18 for dense retrieval, all distinct
    assert len({s.name for s in grid()}) == 69 and len({s.name for s in grid(small=True)}) == 18
    for picks in (choose, held):
        assert all(len(p) for p in picks)
        margin = RecallMargin(1, "se")
        parted = compare_scored([part(s, picks) for s in scored], subcases(cases, picks), 5, "bm25", margin)
        direct = compare_settings(subcases(cases, picks), settings, baseline(400), margin=margin)
        assert parted["rows"] == direct["rows"] and parted["best"] == direct["best"]
        assert parted["documents"] == direct["documents"]


def test_the_held_out_check_scores_the_best_the_margin_chose(capsys):
    args = ["evaluate", str(FACTBOOK), "--strategy", "recursive", "--grid", "chunk_size=" + ",".join(
        str(s.params["chunk_size"]) for s in SIZES), "--set", "index_context=1", "--baseline-size", "400",
        "--holdout", "0.3", "--no-progress", "--json"]
    picks = []
    for extra in ([], ["--recall-margin", "1se"]):
        assert main([*args, *extra]) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["holdout"] is not None and result["holdout"]["setting"] == result["best"]
        picks.append(result["best"])
    assert picks[0] != picks[1]


def test_the_grid_goes_under_every_splitter_of_the_goal(capsys):
    """`retrieval_public --grid`: the whole grid selection_rules chooses among, under each of issue
    19.5's four splitters (whether the goal can be met at all); not with --semantic, which also
    replaces the rows."""
    from benchmarks.retrieval_public import BLOCKS, grid_blocks
    from benchmarks.retrieval_public import main as public_main

    blocks = grid_blocks()
    assert [(label, base) for label, base, _ in blocks] == [(label, base) for label, base, _ in BLOCKS]
    assert all(rows == tuple(grid()) for _, _, rows in blocks)
    with pytest.raises(SystemExit) as stop:
        public_main(["--grid", "--semantic"])
    assert stop.value.code == 2 and "choose one" in capsys.readouterr().err
