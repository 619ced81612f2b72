"""Reviewers' verdicts as labelled boundaries; rev_boundary_precision/recall/f1 in
metrics and sweeps, and --rank-by rev_boundary_f1 picking the setting the reviewers agree with."""

from __future__ import annotations

import pytest

import chunkbench as cb
from chunkbench import metrics, sweep
from chunkbench.app.labels import load_labels
from chunkbench.db.verdicts import record, record_for_chunk
from chunkbench.db.workspace import open_workspace
from chunkbench.evaluate.labels import KEEPS, Labels, boundaries, boundary_scores, labels_from_verdicts
from chunkbench.types.chunk import boundary_key
from chunkbench.ui.cli import main
from tests.support.paths import SAMPLE_PDFS

PDF = SAMPLE_PDFS / "technical_manual.pdf"


@pytest.fixture
def reviewed(tmp_path):
    """A workspace where reviewers judged `recursive` at 300 chars: every cut it shares with the
    1,200-char setting ok, every other cut should merge (too fine), one cut tied between two."""
    doc = cb.load(PDF)
    fine = cb.chunk(doc, "recursive", chunk_size=300)
    coarse_cuts = boundaries(doc, cb.chunk(doc, "recursive", chunk_size=1200))
    db = tmp_path / "ws.db"
    verdicts = {}
    with open_workspace(db) as conn:
        for c in fine.chunks[1:]:
            verdict = "ok" if boundaries(doc, _one(fine, c.index)) <= coarse_cuts else "should_merge"
            verdicts[c.index] = verdict
            record_for_chunk(conn, fine, c.index, verdict, reviewer="ana")
        tie = fine.chunks[2]
        record_for_chunk(conn, fine, tie.index, "should_merge" if verdicts[tie.index] == "ok" else "ok", reviewer="ben")
        record(conn, doc_id=doc.doc_id, strategy="recursive", params_hash="x", boundary_key="p99-e1@5",
               verdict="ok", reviewer="ana")  # an element a re-parse no longer has
    return doc, fine, db, verdicts, tie.index


def _one(chunkset, index):
    """A ChunkSet view holding only the cut where chunk `index` starts (for `boundaries`)."""
    from dataclasses import replace

    return replace(chunkset, chunks=(chunkset.chunks[0], chunkset.chunks[index]))


def test_verdicts_become_one_label_per_place_majority_wins(reviewed):
    doc, fine, db, verdicts, tied = reviewed
    labels = load_labels(doc, db)
    expected = {i: v for i, v in verdicts.items() if i != tied}
    assert len(labels.labels) == len(expected) and labels.tied == 1 and labels.stale == 1
    assert labels.keep == sum(v == "ok" for v in expected.values()) > 0
    assert labels.remove == sum(v == "should_merge" for v in expected.values()) > 0
    assert labels.describe() == (f"{len(expected)} labels ({labels.keep} keep, {labels.remove} remove; "
                                 "1 tied, 1 stale left out)")
    assert {KEEPS[v] for v in ("ok", "wrong_type")} == {True} and not any(KEEPS[v] for v in ("should_merge",
                                                                                           "should_split_elsewhere"))


def test_the_judged_chunking_and_the_one_reviewers_want_score_as_their_labels_say(reviewed):
    doc, fine, db, verdicts, tied = reviewed
    labels = load_labels(doc, db)
    judged = boundary_scores(doc, fine, labels)  # cuts at every labelled place
    assert judged["rev_boundary_recall"] == 1.0 and judged["rev_labels"] == len(labels.labels)
    assert judged["rev_boundary_precision"] == round(labels.keep / len(labels.labels), 4)
    wanted = boundary_scores(doc, cb.chunk(doc, "recursive", chunk_size=1200), labels)
    assert wanted["rev_boundary_precision"] == 1.0  # it cuts at no place the reviewers rejected
    assert wanted["rev_boundary_f1"] > judged["rev_boundary_f1"]
    none = boundary_scores(doc, cb.chunk(doc, "recursive", chunk_size=100_000, respect_headings=False), labels)
    assert none["rev_boundary_recall"] == 0.0 and none["rev_boundary_precision"] is None
    values = metrics.all_metrics(doc, fine, labels=labels)
    assert values["rev_boundary_f1"] == judged["rev_boundary_f1"]
    assert "rev_boundary_f1" not in metrics.all_metrics(doc, fine, labels=Labels(doc.doc_id, ()))


def test_a_label_is_the_place_not_the_chunking(reviewed):
    """A verdict given under one strategy labels the same place for every other: `sentences`
    cutting where `recursive` did counts as agreeing."""
    doc, fine, db, verdicts, tied = reviewed
    labels = load_labels(doc, db)
    keep = {lab.position for lab in labels.labels if lab.keep}
    other = cb.chunk(doc, "sentences")
    shared = boundaries(doc, other) & keep
    assert shared and boundary_scores(doc, other, labels)["rev_boundary_recall"] == round(len(shared) / len(keep), 4)


def test_a_sweep_ranks_by_reviewer_agreement_and_says_what_it_rests_on(reviewed, tmp_path, capsys):
    doc, fine, db, verdicts, tied = reviewed
    grid = {"chunk_size": [300, 1200]}
    df = sweep.run([PDF], grid, tmp_path / "s", strategy="recursive", jobs=1, progress=False,
                         notebooks="none", rank_by="rev_boundary_f1", labels=db)
    by_size = {int(r["chunk_size"]): r for _, r in df.iterrows()}
    assert by_size[1200]["rev_boundary_f1"] > by_size[300]["rev_boundary_f1"]
    best = sweep.best_settings(df, "rev_boundary_f1")
    assert '"chunk_size": 1200' in best.iloc[0]["params"]
    assert main(["sweep", str(PDF), "--strategy", "recursive", "--grid", "chunk_size=300,1200", "-o",
                 str(tmp_path / "cli"), "--notebooks", "none", "--workspace", str(db), "--rank-by", "rev_boundary_f1",
                 "--questions", "none", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"rev_boundary_f1 of {PDF.name} rests on {load_labels(doc, db).describe()}" in out
    summary = (tmp_path / "cli" / "summary.html").read_text()
    assert f"Reviewer agreement (rev_boundary_*) rests on: {PDF.name}: {load_labels(doc, db).describe()}" in summary
    assert main(["sweep", str(PDF), "--strategy", "recursive", "--grid", "chunk_size=300", "-o", str(tmp_path / "x"),
                 "--notebooks", "none", "--workspace", str(tmp_path / "missing.db"), "--no-progress"]) == 2
    assert "no workspace database" in capsys.readouterr().err


def test_no_workspace_no_reviewer_metrics(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no ./.chunkbench/workspace.db here
    monkeypatch.delenv("CHUNKBENCH_WORKSPACE", raising=False)
    assert main(["sweep", str(PDF), "--strategy", "recursive", "--grid", "chunk_size=500", "-o", str(tmp_path / "s"),
                 "--notebooks", "none", "--questions", "none", "--no-progress"]) == 0
    assert "rev_boundary" not in capsys.readouterr().out
    assert "rev_boundary_f1" not in (tmp_path / "s" / "results.csv").read_text()


def test_malformed_keys_and_unknown_verdicts_are_no_labels():
    doc = cb.load(PDF)
    e = next(e for e in doc.elements if e.text)

    class V:
        def __init__(self, key, verdict):
            self.boundary_key, self.verdict = key, verdict

    first = boundary_key(cb.chunk(doc, "recursive", chunk_size=300).chunks[1])
    labels = labels_from_verdicts(doc, [V("no-at-sign", "ok"), V(f"{e.id}@x", "ok"), V(first, "maybe"),
                                        V(f"{e.id}@{e.char_end + 50}", "ok"), V(first, "should_merge")])
    assert len(labels.labels) == 1 and not labels.labels[0].keep and labels.stale == 1


def test_edits_are_labels_and_a_sweep_names_the_smallest_change_reproducing_each(tmp_path, capsys):
    """A merge labels its place "remove", a split "keep"; the sweep says for each edit
    which grid change from the setting it was made on reproduces it, or that none does."""
    import pandas as pd

    from chunkbench.app.chunking import add_edit as add

    doc = cb.load(PDF)
    fine = cb.chunk(doc, "recursive", chunk_size=300)
    cuts = {size: boundaries(doc, cb.chunk(doc, "recursive", chunk_size=size)) for size in (300, 600, 1200)}
    # a cut only the 300-char setting makes: merging it away is what 600 and 1200 do
    merged = next(c.index for c in fine.chunks[1:] if boundaries(doc, _one(fine, c.index)).isdisjoint(
        cuts[600] | cuts[1200]))
    db = tmp_path / "ws.db"
    merge = add(fine, "merge", merged, reviewer="ana", workspace=db)
    # a cut before the 4th word of some chunk, where no setting of the grid cuts
    target = next(c for c in fine.chunks if len(c.text.split()) > 8)
    split = add(fine, "split", target.index, word=4, reviewer="ben", workspace=db)
    labels = load_labels(doc, db)
    places = {lab.position: lab.keep for lab in labels.labels}
    from chunkbench.strategies.edits import resolve

    split_at = resolve(doc, split.at)
    assert places[boundaries(doc, _one(fine, merged)).pop()] is False and places[split_at] is True
    assert "2 of them from edits" in labels.describe()
    assert all(split_at not in c for c in cuts.values())
    assert main(["sweep", str(PDF), "--strategy", "recursive", "--grid", "chunk_size=300,600,1200", "-o",
                 str(tmp_path / "s"), "--notebooks", "none", "--workspace", str(db), "--questions", "none",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    rows = pd.read_csv(tmp_path / "s" / "edit_changes.csv").set_index("edit_id")
    assert rows.loc[merge.id, "smallest_change"] == "chunk_size 300 → 600"
    assert rows.loc[merge.id, "points_reproducing"] == 2 and rows.loc[merge.id, "kind"] == "merge"
    assert rows.loc[split.id, "smallest_change"] == "none in this grid" and rows.loc[split.id, "points_reproducing"] == 0
    assert f"edit {merge.id} (merge by ana" in out and "smallest change reproducing it: chunk_size 300 → 600" in out
    summary = (tmp_path / "s" / "summary.html").read_text()
    assert "the smallest change in this grid that reproduces each" in summary and "chunk_size 300 → 600" in summary
