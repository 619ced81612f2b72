"""Workspace database and store: migrations, save/load, amendments, search, ensure, concurrency, crashes."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import chunkbench as cb
from chunkbench.app import runs as store
from chunkbench.db import workspace
from chunkbench.db.workspace import SCHEMA_VERSION, connect, workspace_path
from chunkbench.errors import InputError, UsageError
from chunkbench.io.atomic import write_json
from chunkbench.types.chunk import boundary_key
from tests.support.documents import make_doc
from tests.support.paths import ROOT, TEST_DATA

V1_FIXTURE = TEST_DATA / "workspace_v1.db"


def notice_doc(deadline: str, *, source: str = "notice.json", extra: str = ""):
    """A small two-page tender notice; `deadline` changes between amendments."""
    return make_doc([
        {"type": "heading", "text": "Scope of Work", "text_level": 1, "bbox": [72, 72, 300, 90]},
        {"type": "paragraph", "text": "The contractor supplies and installs three wind turbines." + extra,
         "bbox": [72, 100, 500, 130]},
        {"type": "heading", "text": "Submission", "text_level": 1, "page_idx": 1, "bbox": [72, 72, 300, 90]},
        {"type": "paragraph", "text": f"Bids must arrive before the deadline of {deadline}.", "page_idx": 1,
         "bbox": [72, 100, 500, 130]},
    ], source=source)


@pytest.fixture
def ws(tmp_path):
    return tmp_path / "ws" / "workspace.db"


def run_cli(*args: str, env=None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chunkbench", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, **kw)


# --- workspace -------------------------------------------------------------------------------


def test_workspace_path_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv(workspace.ENV_VAR, raising=False)
    assert workspace_path() == Path(".chunkbench/workspace.db")
    monkeypatch.setenv(workspace.ENV_VAR, str(tmp_path / "env.db"))
    assert workspace_path() == tmp_path / "env.db"
    assert workspace_path(tmp_path / "arg.db") == tmp_path / "arg.db"
    assert workspace_path("sqlite:///rel/w.db") == Path("rel/w.db")
    assert workspace_path("sqlite:////abs/w.db") == Path("/abs/w.db")
    with pytest.raises(InputError):
        workspace_path("sqlite://host/w.db")


def test_connect_creates_and_configures(ws):
    conn = connect(ws)
    try:
        assert ws.exists()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 10_000
        assert workspace.schema_version(conn) == SCHEMA_VERSION
        tables = {r["name"] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"documents", "runs", "chunks", "verdicts", "chunks_fts"} <= tables
    finally:
        conn.close()
    connect(ws).close()  # reconnecting an up-to-date database is a no-op


def test_newer_schema_is_refused(ws):
    connect(ws).close()
    raw = sqlite3.connect(ws)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    with pytest.raises(InputError, match=r"newer than this chunkbench") as err:
        connect(ws)
    assert str(ws) in str(err.value)
    result = run_cli("store", "runs", "--workspace", str(ws))
    assert result.returncode == 3 and "newer" in result.stderr and result.stderr.count("\n") == 1


def test_not_a_database_is_refused(tmp_path):
    bad = tmp_path / "junk.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(InputError, match="not a usable workspace database"):
        connect(bad)


def test_migrates_version_1_fixture(tmp_path):
    db = tmp_path / "old.db"
    shutil.copy(V1_FIXTURE, db)
    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "notice_key" not in {r[1] for r in raw.execute("PRAGMA table_info(runs)")}
    raw.close()

    conn = connect(db)
    assert workspace.schema_version(conn) == SCHEMA_VERSION
    assert {"notice_key", "amendment_number"} <= {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
    verdict = conn.execute("SELECT verdict, comment FROM verdicts").fetchone()
    assert tuple(verdict) == ("should_merge", "penalties belong with delivery")
    conn.close()

    df = store.runs(db)
    assert list(df["run_id"]) == ["elements-20260101T000000-v1fixture"]
    assert df["latest"].tolist() == [True] and df["notice_key"].isna().all()
    hits = store.search("turbines", workspace=db)  # the full-text index was built from old rows
    assert hits["chunk_id"].tolist() == ["v1fixture_chunk_0"]
    loaded = store.load("elements-20260101T000000-v1fixture", db)
    assert [c.boundary.reason.value for c in loaded] == ["document_start", "page_break"]
    assert loaded.doc.text.startswith("Delivery Schedule") and len(loaded.doc.pages) == 2
    # new runs land beside the migrated one
    store.save(cb.chunk(notice_doc("1 May"), "elements"), notice_id="T-1", workspace=db)
    assert len(store.runs(db)) == 2


# --- save / load -----------------------------------------------------------------------------


def test_save_load_round_trip(ws):
    chunks = cb.chunk(notice_doc("1 May").with_metadata(company="Acme"), "elements", max_chunk_size=60)
    assert cb.store.save is store.save  # the public namespace
    run_id = cb.store.save(chunks, workspace=ws)
    loaded = store.load(run_id, ws)
    assert loaded.to_dict("t") == chunks.to_dict("t")
    assert loaded.doc == chunks.doc and loaded.params == chunks.params
    assert loaded.params_hash == chunks.params_hash and loaded.skipped == chunks.skipped
    df = store.runs(ws)
    assert df.loc[0, "run_id"] == run_id and df.loc[0, "n_chunks"] == len(chunks)
    assert df.loc[0, "params"]["max_chunk_size"] == 60
    full = store.get_chunk(chunks[1].chunk_id, workspace=ws)
    assert full["text"] == chunks[1].text and full["run_id"] == run_id


def test_unknown_run_and_chunk(ws):
    connect(ws).close()  # a workspace that exists, without that run
    with pytest.raises(InputError, match="no run 'nope'"):
        store.load("nope", ws)
    with pytest.raises(InputError, match="no chunk 'nope'"):
        store.get_chunk("nope", workspace=ws)


def test_bad_save_and_search_arguments(ws):
    chunks = cb.chunk(notice_doc("1 May"), "elements")
    with pytest.raises(UsageError, match="needs a notice id"):
        store.save(chunks, amendment=1, workspace=ws)
    with pytest.raises(UsageError, match="amendment"):
        store.save(chunks, notice_id="T", amendment=-1, workspace=ws)
    with pytest.raises(UsageError, match="plain JSON values"):
        store.save(cb.chunk(notice_doc("1 May").with_metadata(when=object()), "elements"), workspace=ws)
    with pytest.raises(UsageError, match="no words"):
        store.search("  ?! ", workspace=ws)
    assert store.runs(ws).empty  # nothing half-saved by the refusals


# --- amendments ------------------------------------------------------------------------------


def test_amendment_sequence_latest_only(ws):
    deadlines = ["1 May", "15 May", "30 May"]
    run_ids = []
    for number, deadline in enumerate(deadlines):
        doc = notice_doc(deadline, source=f"notice_a{number}.json")
        run_ids.append(store.save(cb.chunk(doc, "elements"), notice_id="T-77", amendment=number, workspace=ws))

        hits = store.search("deadline bids", workspace=ws)
        assert set(hits["run_id"]) == {run_ids[-1]}, f"after amendment {number}"
        assert hits["is_latest_version"].all() and (hits["amendment_number"] == number).all()
        assert deadline in store.get_chunk(hits.loc[0, "chunk_id"], workspace=ws)["text"]

        every = store.search("deadline bids", all_versions=True, workspace=ws)
        assert set(every["run_id"]) == set(run_ids)
        assert every.loc[~every["is_latest_version"], "run_id"].isin(run_ids[:-1]).all()

    latest = store.find_chunks(notice_id="T-77", workspace=ws)
    assert set(latest["run_id"]) == {run_ids[-1]} and "30 May" in "".join(latest["text"])
    everything = store.find_chunks(notice_id="T-77", all_versions=True, workspace=ws)
    assert everything["run_id"].drop_duplicates().tolist() == run_ids
    assert len(store.find_chunks(run_id=run_ids[0], workspace=ws)) == store.runs(ws).loc[0, "n_chunks"]

    df = store.runs(ws, notice_id="T-77")
    assert df["amendment_number"].tolist() == [0, 1, 2]
    assert df["latest"].tolist() == [False, False, True]
    # a superseded chunk is still fetchable by id, but only when asked for
    old = cb.chunk(notice_doc("1 May", source="notice_a0.json"), "elements")[1].chunk_id
    with pytest.raises(InputError):
        store.get_chunk(old, workspace=ws)
    assert "1 May" in store.get_chunk(old, all_versions=True, workspace=ws)["text"]

    # saving an older amendment late does not take "latest" away from amendment 2
    store.save(cb.chunk(notice_doc("9 May"), "elements"), notice_id="T-77", amendment=1, workspace=ws)
    assert set(store.search("deadline", workspace=ws)["run_id"]) == {run_ids[-1]}
    # without a number the next one is taken
    next_run = store.save(cb.chunk(notice_doc("2 June"), "elements"), notice_id="T-77", workspace=ws)
    df = store.runs(ws, notice_id="T-77").set_index("run_id")
    assert df.loc[next_run, "amendment_number"] == 3 and df["latest"].sum() == 1 and df.loc[next_run, "latest"]


def test_notices_do_not_affect_each_other(ws):
    store.save(cb.chunk(notice_doc("1 May", source="a.json"), "elements"), notice_id="A", workspace=ws)
    store.save(cb.chunk(notice_doc("2 May", source="b.json"), "elements"), notice_id="B", workspace=ws)
    store.save(cb.chunk(notice_doc("3 May", source="b.json"), "elements"), notice_id="B", workspace=ws)
    hits = store.search("deadline", workspace=ws)
    assert sorted(hits["notice_key"]) == ["A", "B"]
    assert store.search("deadline", notice_id="A", workspace=ws)["notice_key"].tolist() == ["A"]


def test_search_ranks_by_bm25_deterministically(ws):
    doc = make_doc([
        {"type": "paragraph", "text": "Turbine blades turbine hub turbine tower."},
        {"type": "paragraph", "text": "A single turbine is mentioned here, among many other words about roads."},
        {"type": "paragraph", "text": "Nothing relevant at all."},
    ])
    chunks = cb.chunk(doc, "elements", max_chunk_size=80)
    store.save(chunks, workspace=ws)
    hits = store.search("turbine", k=5, workspace=ws)
    assert hits["chunk_id"].tolist() == [chunks[0].chunk_id, chunks[1].chunk_id]
    assert hits["score"].is_monotonic_decreasing and hits["rank"].tolist() == [1, 2]
    assert "[Turbine]" in hits.loc[0, "snippet"]
    assert store.search("turbine", k=1, workspace=ws)["chunk_id"].tolist() == [chunks[0].chunk_id]
    assert hits.equals(store.search("turbine", k=5, workspace=ws))


# --- ensure (rebuild on manifest change) -----------------------------------------------------


def test_ensure_rechunks_only_when_manifest_changes(ws, caplog):
    doc = notice_doc("1 May")
    first = store.ensure(doc, "elements", workspace=ws)
    assert first.rebuilt and "no stored run" in first.reason

    again = store.ensure(doc, "elements", workspace=ws)
    assert not again.rebuilt and again.run_id == first.run_id and again.changes == ()
    assert again.chunks.to_dict("t") == first.chunks.to_dict("t")
    assert len(store.runs(ws)) == 1

    with caplog.at_level("INFO", logger="chunkbench.store"):
        changed = store.ensure(doc, "elements", max_chunk_size=60, workspace=ws)
    assert changed.rebuilt and [c.key for c in changed.changes] == ["params.max_chunk_size"]
    assert "params.max_chunk_size: 2000 → 60" in changed.reason and changed.reason in caplog.text
    assert len(changed.chunks) > len(first.chunks) and len(store.runs(ws)) == 2

    new_parser = dataclasses.replace(doc, parser=dataclasses.replace(doc.parser, version="9.9"))
    parsed = store.ensure(new_parser, "elements", max_chunk_size=60, workspace=ws)
    assert parsed.rebuilt and {c.key for c in parsed.changes} >= {"parser.version"}

    edited = notice_doc("1 May", extra=" Delivery is free.")
    edited = dataclasses.replace(edited, doc_id=doc.doc_id)  # same file name and id, new content
    redo = store.ensure(edited, "elements", max_chunk_size=60, workspace=ws)
    assert redo.rebuilt and "document" in {c.key for c in redo.changes}

    # the earlier configuration is still stored: going back reuses it
    back = store.ensure(doc, "elements", workspace=ws)
    assert not back.rebuilt and back.run_id == first.run_id


def test_manifest_missing_keys_count_as_changed():
    old = {"strategy": "elements", "params": {"max_chunk_size": 2000}}
    new = {"strategy": "elements", "params": {"max_chunk_size": 2000}, "parser": {"name": "pymupdf"}}
    changes = store.manifest_changes(old, new)
    assert [(c.key, c.old, c.new) for c in changes] == [("parser.name", None, "pymupdf")]
    assert "(missing)" in str(changes[0])


# --- compare ----------------------------------------------------------------------------------


def test_compare_two_documents_by_boundary_keys(ws):
    a = store.save(cb.chunk(notice_doc("1 May"), "elements"), workspace=ws)
    b = store.save(cb.chunk(notice_doc("2 May", source="other.json"), "elements", max_chunk_size=60), workspace=ws)
    result = store.compare(a, b, ws)
    assert isinstance(result, store.BoundaryComparison)
    assert result.only_b
    assert set(result.common) | set(result.only_b) == {boundary_key(c) for c in store.load(b, ws)}
    assert set(result.common) | set(result.only_a) == {boundary_key(c) for c in store.load(a, ws)}


def test_compare_uses_boundary_diff_for_one_document(ws):
    pytest.importorskip("chunkbench.evaluate.diff")
    doc = notice_doc("1 May")
    a = store.save(cb.chunk(doc, "elements"), workspace=ws)
    b = store.save(cb.chunk(doc, "elements", max_chunk_size=60), workspace=ws)
    result = store.compare(a, b, ws)
    assert type(result).__name__ == "BoundaryDiff"
    assert result.counts["vanished"] == 0 and result.counts["appeared"] == 1
    other = store.save(cb.chunk(notice_doc("2 May", source="other.json"), "elements"), workspace=ws)
    assert isinstance(store.compare(a, other, ws), store.BoundaryComparison)  # amendments: different docs


# --- CLI, concurrency and crashes (subprocesses) ------------------------------------------------


@pytest.fixture
def elements_json(tmp_path):
    path = tmp_path / "notice.elements.json"
    write_json(path, notice_doc("1 May").to_dict())
    return path


def test_cli_save_runs_search(ws, elements_json, capsys):
    from chunkbench.ui.cli import main

    assert main(["store", "save", str(elements_json), "--strategy", "elements", "--set", "max_chunk_size=60",
                 "--notice-id", "T-9", "--amendment", "0", "--workspace", str(ws)]) == 0
    run_id = capsys.readouterr().out.strip()
    assert store.runs(ws)["run_id"].tolist() == [run_id]
    assert main(["store", "runs", "--workspace", str(ws)]) == 0
    out = capsys.readouterr().out
    assert run_id in out and "max_chunk_size=60" in out and "T-9" in out
    assert main(["store", "search", "deadline", "-k", "1", "--workspace", str(ws)]) == 0
    out = capsys.readouterr().out
    assert "[deadline]" in out and run_id in out
    assert main(["store", "show", run_id, "--workspace", str(ws)]) == 0
    assert "document_start" in capsys.readouterr().out
    assert main(["store", "save", str(elements_json), "--amendment", "1", "--workspace", str(ws)]) == 2
    assert "--notice-id" in capsys.readouterr().err
    assert main(["store", "save", str(elements_json), "--workspace", str(ws)]) == 0  # no notice key
    capsys.readouterr()
    assert main(["store", "runs", "--json", "--workspace", str(ws)]) == 0
    lines = [json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
             for line in capsys.readouterr().out.splitlines()]
    assert [(r["notice_key"], r["amendment_number"]) for r in lines] == [("T-9", 0), (None, None)]


def test_two_processes_saving_at_once_both_land(ws, elements_json):
    """Process A holds the write lock mid-save; B starts then and must wait, not fail."""
    connect(ws).close()
    a = subprocess.Popen(
        [sys.executable, "-m", "chunkbench", "store", "save", str(elements_json), "--workspace", str(ws)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, store.PAUSE_ENV: "3"},
    )
    assert a.stderr.readline().strip() == store.PAUSE_MARKER  # A is inside its transaction now
    b = run_cli("store", "save", str(elements_json), "--set", "max_chunk_size=60", "--workspace", str(ws))
    out_a, err_a = a.communicate(timeout=60)
    assert a.returncode == 0, err_a
    assert b.returncode == 0, b.stderr
    df = store.runs(ws)
    assert sorted(df["run_id"]) == sorted([out_a.strip(), b.stdout.strip()])
    for run_id, n in zip(df["run_id"], df["n_chunks"]):
        assert len(store.load(run_id, ws)) == n


def test_kill_during_save_leaves_previous_state(ws, elements_json):
    before = run_cli("store", "save", str(elements_json), "--notice-id", "K", "--workspace", str(ws))
    assert before.returncode == 0, before.stderr
    victim = subprocess.Popen(
        [sys.executable, "-m", "chunkbench", "store", "save", str(elements_json), "--set", "max_chunk_size=60",
         "--notice-id", "K", "--workspace", str(ws)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, store.PAUSE_ENV: "120"},
    )
    try:
        assert victim.stderr.readline().strip() == store.PAUSE_MARKER
    finally:
        victim.send_signal(signal.SIGKILL)
        victim.communicate(timeout=30)
    assert victim.returncode == -signal.SIGKILL

    conn = connect(ws)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
        orphans = conn.execute("SELECT COUNT(*) FROM chunks WHERE run_id NOT IN (SELECT run_id FROM runs)")
        assert orphans.fetchone()[0] == 0
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')")
    finally:
        conn.close()
    df = store.runs(ws)
    assert df["run_id"].tolist() == [before.stdout.strip()] and df["latest"].tolist() == [True]
    assert set(store.search("deadline", workspace=ws)["run_id"]) == {before.stdout.strip()}
    after = run_cli("store", "save", str(elements_json), "--notice-id", "K", "--workspace", str(ws))
    assert after.returncode == 0, after.stderr
    assert store.runs(ws)["amendment_number"].tolist() == [0, 1]


def test_sections_strategy_amendment_params_are_used(ws):
    """specs/4: a sections run chunked with notice_id/amendment_number is stored as that amendment."""
    if "sections" not in {s.name for s in cb.all_strategies()}:
        pytest.skip("sections strategy not registered yet")
    for number, deadline in enumerate(["1 May", "15 May", "30 May"]):
        chunks = cb.chunk(notice_doc(deadline), "sections", notice_id="RFP-3", amendment_number=number)
        store.save(chunks, workspace=ws)
    df = store.runs(ws)
    assert df["notice_key"].tolist() == ["RFP-3"] * 3 and df["amendment_number"].tolist() == [0, 1, 2]
    hits = store.search("deadline", workspace=ws)
    assert hits["amendment_number"].tolist() == [2]
    assert "30 May" in store.get_chunk(hits.loc[0, "chunk_id"], workspace=ws)["text"]
    first = store.load(df.loc[0, "run_id"], ws)  # the strategy's own fields follow the store
    assert {c.extra["is_latest_version"] for c in first} == {False}
    assert {c.extra["is_latest_version"] for c in store.load(df.loc[2, "run_id"], ws)} == {True}


def test_parallel_writers_on_a_fresh_database(tmp_path, elements_json):
    """Two processes create, migrate and write one notice at once: every save lands, the amendment
    numbers they take are distinct, and exactly one run ends up latest."""
    ws = tmp_path / "fresh" / "w.db"
    script = (
        "import sys, chunkbench as cb\n"
        "doc = cb.load(sys.argv[1])\n"
        "for i in range(5):\n"
        "    cb.store.save(cb.chunk(doc, 'elements', max_chunk_size=60 + i), notice_id='P', workspace=sys.argv[2])\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(elements_json), str(ws)], cwd=ROOT,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    df = store.runs(ws)
    assert len(df) == 10 and sorted(df["amendment_number"]) == list(range(10))
    assert df["latest"].sum() == 1 and df.loc[df["amendment_number"].idxmax(), "latest"]
    assert len(store.search("deadline", k=50, workspace=ws)) == 1


def test_workspace_under_a_file_is_an_input_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="cannot create the workspace folder"):
        connect(blocker / "sub" / "w.db")
    with pytest.raises(InputError, match="folder, not a database"):
        connect(tmp_path)


def test_opening_retries_a_locked_database_within_the_busy_timeout(tmp_path, monkeypatch):
    """SQLite may answer "database is locked" at once while another process creates the workspace;
    the idempotent setup is tried again (seen once under load in test_parallel_writers_on_a_fresh_database)."""
    from chunkbench.db import workspace

    real, calls = workspace._prepare, []

    def locked_twice(conn, db, migrate):
        calls.append(1)
        if len(calls) <= 2:
            raise sqlite3.OperationalError("database is locked")
        real(conn, db, migrate)

    monkeypatch.setattr(workspace, "_prepare", locked_twice)
    conn = workspace.connect(tmp_path / "w.db")
    assert len(calls) == 3 and workspace.schema_version(conn) == workspace.SCHEMA_VERSION
    conn.close()
    with pytest.raises(sqlite3.OperationalError, match="no such table"):  # other errors are not retried
        workspace._retry_while_locked(lambda: (_ for _ in ()).throw(sqlite3.OperationalError("no such table: x")))
    with pytest.raises(sqlite3.OperationalError, match="locked"):  # nor retried past the timeout
        workspace._retry_while_locked(lambda: (_ for _ in ()).throw(sqlite3.OperationalError("database is locked")),
                                      timeout_s=0.1)


def test_each_amendment_records_its_lineage_and_store_changes_lists_it(ws, tmp_path, capsys):
    """Saving amendment N records its lineage to N-1; `store changes` lists what changed
    and what to re-embed per amendment, and writes one amendment's lineage.jsonl; latest-only
    retrieval is as before."""
    from chunkbench.ui.cli import main

    extra = " Each turbine is rated at three megawatts."
    versions = [notice_doc("1 May"), notice_doc("15 May"), notice_doc("15 May", extra=extra)]
    chunksets = [cb.chunk(doc, "sentences") for doc in versions]
    run_ids = [store.save(cs, notice_id="T-9", workspace=ws) for cs in chunksets]
    df = store.changes("T-9", workspace=ws)
    assert df["amendment_number"].tolist() == [1, 2] and df["previous_run_id"].tolist() == run_ids[:2]
    for (_, row), before, after in zip(df.iterrows(), chunksets, chunksets[1:]):
        expected = cb.lineage(before, after)
        assert row["summary"] == expected.summary() and row["to_embed"] == len(expected.to_embed) >= 1
        assert store.lineage_of(row["run_id"], workspace=ws) == expected
    assert df.loc[0, "edited"] == 1 and df.loc[0, "unchanged"] == len(chunksets[1]) - 1
    assert set(store.search("turbine", workspace=ws)["run_id"]) == {run_ids[-1]}  # latest only, as before
    with pytest.raises(InputError, match="no lineage"):
        store.lineage_of(run_ids[0], workspace=ws)
    out = tmp_path / "changes.jsonl"
    assert main(["store", "changes", "T-9", "--amendment", "1", "-o", str(out), "--workspace", str(ws)]) == 0
    printed = capsys.readouterr().out
    assert df.loc[1, "summary"] in printed and f"wrote {out}" in printed
    assert out.read_text("utf-8") == store.lineage_of(run_ids[1], workspace=ws).to_jsonl()
    assert main(["store", "changes", "NOPE", "--workspace", str(ws)]) == 3
    assert "no saved run of notice 'NOPE'" in capsys.readouterr().err
    assert main(["store", "save", str(ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"),
                 "--notice-id", "G", "--workspace", str(ws)]) == 0
    assert main(["store", "save", str(ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"),
                 "--notice-id", "G", "--workspace", str(ws)]) == 0
    assert "changes from amendment 0: " in capsys.readouterr().out


def _long_doc():
    """Eight sections of two paragraphs: `elements` at 200 characters cuts between every paragraph."""
    elements = []
    for k in range(8):
        elements.append({"type": "heading", "text": f"Section {k}", "text_level": 1})
        for p in range(2):
            elements.append({"type": "paragraph", "text": f"Paragraph {p} of section {k}: " + "words that fill it. " * 6})
    return make_doc(elements, source="long.json")


def _saver(ws: str, n: int) -> None:
    doc = _long_doc()
    for i in range(3):
        store.save(cb.chunk(doc, "elements", max_chunk_size=300 + 10 * n + i), notice_id="C", workspace=ws)


def _editor(ws: str, n: int) -> None:
    """Merges as a reviewer in the review app does: on the chunking with everyone's edits applied
    (what they see), the chunk found by its text; the edit is anchored to that text."""
    from chunkbench.app.chunking import add_edit, with_edits

    doc = _long_doc()
    for k in (n, n + 4):
        seen = with_edits(cb.chunk(doc, "elements", max_chunk_size=200), ws).chunkset
        index = next(c.index for c in seen if c.text.startswith(f"Paragraph 1 of section {k}"))
        add_edit(seen, "merge", index, reviewer=f"r{n}", workspace=ws)


def _judge(ws: str, n: int) -> None:
    from chunkbench.db import verdicts
    from chunkbench.db.workspace import open_workspace

    chunks = cb.chunk(_long_doc(), "elements", max_chunk_size=200)
    for index in range(1, 5):
        with open_workspace(ws) as conn:
            verdicts.record_for_chunk(conn, chunks, index, "ok", reviewer=f"j{n}")


def test_savers_editors_and_reviewers_at_once_lose_nothing(tmp_path):
    """Three processes saving runs, four adding edits on the view with the others' edits applied and
    two recording verdicts, at once on a fresh workspace, twice over: every run, edit and verdict
    lands (an outside run once lost 8 of 16 edits so), and each merge joins the paragraphs its
    reviewer saw."""
    import multiprocessing

    from chunkbench.app.chunking import with_edits
    from chunkbench.db import edits as stored
    from chunkbench.db import verdicts
    from chunkbench.db.workspace import open_workspace

    context = multiprocessing.get_context("fork")  # chunkbench is imported already: no start-up per process
    for attempt in range(2):
        ws = str(tmp_path / f"round{attempt}" / "w.db")
        jobs = ([context.Process(target=_saver, args=(ws, n)) for n in range(3)]
                + [context.Process(target=_editor, args=(ws, n)) for n in range(4)]
                + [context.Process(target=_judge, args=(ws, n)) for n in range(2)])
        for job in jobs:
            job.start()
        for job in jobs:
            job.join(120)
        assert [job.exitcode for job in jobs] == [0] * len(jobs)
        assert len(store.runs(ws)) == 9 and store.runs(ws)["latest"].sum() == 1
        doc = _long_doc()
        with open_workspace(ws) as conn:
            assert len(stored.query(conn, doc.doc_id, "elements")) == 8
            plain = cb.chunk(doc, "elements", max_chunk_size=200)
            assert sum(len(v) for v in verdicts.for_chunkset(conn, plain).values()) == 8
        merged = with_edits(plain, ws).chunkset
        assert len(merged) == len(plain) - 8
        for k in range(8):
            assert any(f"Paragraph 0 of section {k}" in c.text and f"Paragraph 1 of section {k}" in c.text
                       for c in merged), k


def test_reading_a_workspace_never_stored_in_makes_nothing(tmp_path, capsys):
    """`store runs` on a workspace path nothing was saved to made its folders and an empty database;
    listings now answer "(none: no workspace database at …)", a run or chunk asked for by its id is
    exit 3 naming the path, and nothing is created either way."""
    from chunkbench.ui.cli import main

    ws = tmp_path / "never" / "made" / "ws.db"
    for argv, code in ((["store", "runs"], 0), (["store", "search", "notice"], 0), (["store", "show", "run-1"], 3),
                       (["store", "chunk", "c1"], 3), (["store", "changes", "n1"], 3)):
        assert main([*argv, "--workspace", str(ws)]) == code, argv
        out, err = capsys.readouterr()
        if code == 0:
            assert f"(none: no workspace database at {ws} yet)" in out
        else:
            assert err.count("\n") == 1 and f"{ws}: no workspace database here" in err, err
    assert not (tmp_path / "never").exists()
    assert store.runs(ws).empty and store.search("x", workspace=ws).empty and store.find_chunks(workspace=ws).empty
    assert not (tmp_path / "never").exists()
