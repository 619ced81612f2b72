"""The label-free proxy score (evaluate.proxy), its calibration helpers (evaluate.calibration), and
evaluate / sweep without a questions file, on the project's public-domain retrieval corpus."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkbench.app import sweep
from chunkbench.evaluate.benchmark import Setting, units_for
from chunkbench.evaluate.calibration import CALIBRATION, caveat, kendall_tau, pick, regret
from chunkbench.evaluate.proxy import (
    MIN_QUERIES,
    TooShort,
    body_sentences,
    make_queries,
    masked_units,
    proxy_metrics,
)
from chunkbench.loaders import load
from chunkbench.strategies import chunk
from chunkbench.text.context import Indexing
from chunkbench.ui.cli import main
from tests.support.paths import ROOT

CORPUS = ROOT / "tests" / "data" / "retrieval"
CONSTITUTION = CORPUS / "us_constitution.txt"


@pytest.fixture(scope="module")
def constitution():
    return load(CONSTITUTION)


@pytest.mark.parametrize("method", ["keywords", "cloze"])
def test_queries_are_deterministic_spread_and_their_evidence_is_the_passage_around(constitution, method):
    a, b = make_queries(constitution, method, seed=0), make_queries(constitution, method, seed=0)
    assert a == b
    assert make_queries(constitution, method, seed=1).resolved != a.resolved
    assert len(a.resolved) >= MIN_QUERIES
    starts = {s.start: n for n, s in enumerate(body_sentences(constitution))}
    text = constitution.text
    for r in a.resolved:
        (lo, hi), = r.spans
        assert 0 <= lo < hi <= len(text) and lo in starts
        if method == "cloze":
            assert r.question.question in text[lo:hi] and r.question.question != text[lo:hi]
        else:
            words = r.question.question.split()
            assert len(words) == 6 and all(w in text[lo:hi].casefold() for w in words)
    positions = sorted(p for fold in a.folds for p in fold)
    assert positions == list(range(len(a.resolved)))


def test_cloze_takes_each_query_sentence_out_of_every_indexed_text_and_no_neighbour(constitution):
    queries = make_queries(constitution, "cloze")
    units = units_for(Setting("recursive", {"chunk_size": 300}), constitution)
    for fold, masked in zip(queries.folds, queries.masked):
        indexed = masked_units(units, masked, constitution, Indexing(context=1, headings=True))
        every = "\n".join(t for u in indexed for t in u.ranked_texts)
        for p in fold:
            sentence = queries.resolved[p].question.question
            assert sentence not in every
        assert [(u.start, u.end, u.text) for u in indexed] == [(u.start, u.end, u.text) for u in units]
    # the evidence around a query is never another query's sentence taken out with it
    for masked in queries.masked:
        cut = set(masked)
        for lo, hi in masked:
            assert not any(a < lo and lo - a < 3 and b > hi for a, b in cut)


def test_proxy_ranks_short_chunks_above_whole_sections_and_scores_the_splitter_floor(constitution):
    small = chunk(constitution, "recursive", chunk_size=200)
    whole = chunk(constitution, "sections")
    a, details = proxy_metrics(constitution, small)
    b, _ = proxy_metrics(constitution, whole)
    assert a["proxy_queries"] == b["proxy_queries"] >= MIN_QUERIES and a["proxy_method"] == "keywords"
    assert a["proxy_token_iou"] > b["proxy_token_iou"] and b["proxy_token_recall"] >= a["proxy_token_recall"]
    assert a["proxy_baseline_token_recall"] == b["proxy_baseline_token_recall"]
    assert 0 <= a["proxy_token_iou"] <= a["proxy_token_recall"] <= 1
    assert len(details["proxy"]["queries"]) == a["proxy_queries"]


def test_the_queries_are_made_once_for_their_owner_and_every_time_without_one(constitution, monkeypatch):
    """A sweep's points of one input share its queries (their owner's KeptState); a score asked
    with no owner keeps nothing between calls."""
    from chunkbench.evaluate import proxy
    from chunkbench.strategies.kept import KeptState

    made = []
    real = proxy.make_queries
    monkeypatch.setattr(proxy, "make_queries", lambda *a, **k: made.append(1) or real(*a, **k))
    cs = chunk(constitution, "recursive", chunk_size=300)
    owner = KeptState()
    first, _ = proxy_metrics(constitution, cs, kept=owner)
    again, _ = proxy_metrics(constitution, cs, kept=owner)
    assert len(made) == 1 and first == again
    proxy_metrics(constitution, cs)
    proxy_metrics(constitution, cs)
    assert len(made) == 3


def test_a_document_too_short_for_its_own_queries_gets_no_score_and_says_why(tmp_path):
    short = tmp_path / "note.txt"
    short.write_text("A short note. It has three sentences in all. Nothing more is said here.\n")
    doc = load(short)
    with pytest.raises(TooShort, match="note.txt: .*too short to score without questions"):
        make_queries(doc)
    flat, details = proxy_metrics(doc, chunk(doc, "recursive"))
    assert flat["proxy_queries"] == 0 and "too short" in flat["proxy_note"] and "proxy_token_iou" not in flat


@given(st.lists(st.integers(-5, 5), min_size=2, max_size=12))
def test_kendall_tau_is_one_with_itself_minus_one_reversed_and_symmetric(xs):
    ys = [x * 3 + 1 for x in xs]
    tau = kendall_tau(xs, ys)
    if len(set(xs)) < 2:
        assert tau is None
        return
    assert tau == pytest.approx(1.0)
    assert kendall_tau(xs, [-y for y in ys]) == pytest.approx(-1.0)
    zs = list(reversed(xs))
    assert kendall_tau(xs, zs) == kendall_tau(zs, xs)


def test_kendall_tau_matches_a_hand_count():
    # pairs: (1,2) c, (1,3) c, (2,3) d -> (2 - 1) / 3
    assert kendall_tau([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)


def test_the_pick_keeps_the_floor_and_regret_is_what_the_real_best_has_more():
    rows = [{"token_iou": 0.5, "token_recall": 0.6}, {"token_iou": 0.3, "token_recall": 0.9},
            {"token_iou": 0.2, "token_recall": 0.95}]
    assert pick(rows, "token_iou", "token_recall", None) == 0
    assert pick(rows, "token_iou", "token_recall", 0.8) == 1
    assert pick(rows, "token_iou", "token_recall", 0.99) == 2  # none keeps it: the highest recall
    proxy = [{"token_iou": 0.9, "token_recall": 0.99}, {"token_iou": 0.5, "token_recall": 0.99},
             {"token_iou": 0.1, "token_recall": 0.99}]
    r = regret("d", ["a", "b", "c"], rows, proxy, 0.8, 0.9)
    assert (r.label_free, r.question_picked) == ("a", "b")
    # the pick has more IoU than the real best (no loss) but 30 points less recall; both rank alike
    assert r.iou_loss == 0.0 and r.recall_loss == pytest.approx(30.0) and r.tau == pytest.approx(1.0)


def test_the_caveat_quotes_the_published_calibration():
    line = caveat()
    assert line.startswith("picked without questions")
    assert f"{CALIBRATION['iou_loss']:.0%} token IoU" in line and f"tau = {CALIBRATION['tau']:.2f}" in line


def test_evaluate_without_a_questions_file_scores_the_documents_own_queries(tmp_path, capsys):
    doc = tmp_path / "us_constitution.txt"
    shutil.copy(CONSTITUTION, doc)
    assert main(["evaluate", str(doc), "--strategy", "recursive", "--grid", "chunk_size=150,300"]) == 0
    out = capsys.readouterr().out
    assert "No questions file for us_constitution.txt: scored on queries each document makes of itself" in out
    assert "picked without questions" in out or "no setting wins" in out
    short = tmp_path / "note.txt"
    short.write_text("A short note. Nothing more.\n")
    assert main(["evaluate", str(short)]) == 3
    err = capsys.readouterr().err
    assert "note.txt" in err and "too short to score without questions" in err and "Traceback" not in err


def test_a_sweep_without_questions_ranks_by_the_proxy_and_says_so(tmp_path):
    doc = tmp_path / "fomc_minutes_2019_07.txt"
    shutil.copy(CORPUS / doc.name, doc)
    df = sweep.run_sweep([doc], {"chunk_size": [150, 400, 1200]}, tmp_path / "out", strategy="recursive",
                         progress=False, notebooks="none")
    assert df["proxy_token_iou"].notna().all() and "ret_chunks_token_iou" not in df.columns
    best = sweep.best_settings(df).iloc[0]
    assert best["objective"] == "proxy_token_iou"
    kept = df[df["proxy_token_recall"] >= df["proxy_baseline_token_recall"]]
    assert best["value"] == kept["proxy_token_iou"].max()
    lines = sweep.best_lines(df)
    assert lines[0].startswith(f"best for fomc_minutes_2019_07: recursive chunk_size={json.loads(best['params'])['chunk_size']}: "
                               "proxy_token_iou")
    assert caveat() in lines[0]
    from chunkbench.ui.sweep_summary import summary_html

    page = summary_html(df, df.attrs["grid_keys"])
    assert "Chosen without questions" in page and "technical_manual.questions.json" in page
