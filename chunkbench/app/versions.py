"""Versions in the store: the lineage of each amendment of a notice to the amendment before it.
`save` (cb.store.save) saves the run, then records its lineage; `changes` lists what changed from
version to version and what to re-embed, recording any lineage a save did not (a process killed
between the two); `lineage_of` gives one run's links."""

from __future__ import annotations

import json
import os
import sqlite3

from chunkbench.db import catalog
from chunkbench.db.workspace import open_workspace, transaction, workspace_path
from chunkbench.errors import InputError
from chunkbench.evaluate.lineage import Lineage, lineage
from chunkbench.types.chunkset import ChunkSet

#: the columns of `changes`, each kind's count among them
CHANGE_COLUMNS = ("amendment_number", "run_id", "previous_amendment", "previous_run_id", "unchanged", "moved",
                  "split", "merged", "edited", "removed", "added", "to_embed", "to_delete", "summary")


def save(chunks: ChunkSet, *, notice_id: str | None = None, amendment: int | None = None,
         workspace: str | os.PathLike | None = None) -> str:
    """db.catalog.save (its documentation holds), then, for an amendment with one below it saved,
    its lineage to that one recorded: `changes`, `lineage_of`."""
    run_id = catalog.save(chunks, notice_id=notice_id, amendment=amendment, workspace=workspace)
    with open_workspace(workspace) as conn:
        _record(conn, run_id, chunks, workspace)
    return run_id


def _previous(conn: sqlite3.Connection, run_id: str) -> tuple[str, str] | None:
    """(notice, the run of the amendment just below `run_id`'s), or None (no notice, the first one)."""
    row = conn.execute("SELECT notice_key, amendment_number FROM runs WHERE run_id = ?", (run_id,)).fetchone()
    if row is None or row[0] is None:
        return None
    previous = conn.execute(
        "SELECT run_id FROM runs WHERE notice_key = ? AND amendment_number < ? AND run_id != ? "
        "ORDER BY amendment_number DESC, rowid DESC LIMIT 1", (row[0], row[1], run_id)).fetchone()
    return (row[0], previous[0]) if previous is not None else None


def _record(conn: sqlite3.Connection, run_id: str, chunks: ChunkSet | None, workspace) -> None:
    """Store the lineage of `run_id` from the amendment below it (versions that share no text are
    recorded all removed / all added: the store keeps what happened)."""
    found = _previous(conn, run_id)
    if found is None:
        return
    new = chunks if chunks is not None else catalog.load(run_id, workspace)
    result = lineage(catalog.load(found[1], workspace), new, force=True)
    with transaction(conn):
        conn.execute("INSERT OR REPLACE INTO run_lineage (run_id, previous_run_id, lineage) VALUES (?, ?, ?)",
                     (run_id, found[1], json.dumps(result.to_dict(), sort_keys=True, ensure_ascii=False)))
def changes(notice_id: str, workspace: str | os.PathLike | None = None):
    """A DataFrame, one row per saved amendment of `notice_id` that has one before it: the counts of
    each lineage kind, how many chunks to embed and to delete, and the summary line."""
    import pandas as pd

    with open_workspace(workspace, create=False) as conn:
        known = conn.execute("SELECT COUNT(*) FROM runs WHERE notice_key = ?", (str(notice_id),)).fetchone()[0]
        if not known:
            raise InputError(f"no saved run of notice {notice_id!r} (see `chunkbench store runs`)",
                             workspace_path(workspace))
        missing = conn.execute("SELECT run_id FROM runs WHERE notice_key = ? AND run_id NOT IN "
                               "(SELECT run_id FROM run_lineage)", (str(notice_id),)).fetchall()
        for (run_id,) in missing:
            _record(conn, run_id, None, workspace)
        rows = conn.execute(
            "SELECT r.amendment_number, r.run_id, p.amendment_number AS previous_amendment, l.previous_run_id, "
            "l.lineage FROM run_lineage l JOIN runs r ON r.run_id = l.run_id "
            "JOIN runs p ON p.run_id = l.previous_run_id WHERE r.notice_key = ? "
            "ORDER BY r.amendment_number, r.rowid", (str(notice_id),)).fetchall()
    out = []
    for row in rows:
        result = Lineage.from_dict(json.loads(row["lineage"]))
        out.append({"amendment_number": row["amendment_number"], "run_id": row["run_id"],
                    "previous_amendment": row["previous_amendment"], "previous_run_id": row["previous_run_id"],
                    **result.counts(), "to_embed": len(result.to_embed), "to_delete": len(result.to_delete),
                    "summary": result.summary()})
    return pd.DataFrame(out, columns=list(CHANGE_COLUMNS))


def lineage_of(run_id: str, workspace: str | os.PathLike | None = None) -> Lineage:
    """The stored lineage of a run to the amendment before it."""
    with open_workspace(workspace, create=False) as conn:
        row = conn.execute("SELECT lineage FROM run_lineage WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        raise InputError(f"run {run_id!r} has no lineage: it is not an amendment with an earlier one saved",
                         workspace_path(workspace))
    return Lineage.from_dict(json.loads(row[0]))
