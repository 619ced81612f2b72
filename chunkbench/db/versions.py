"""Versions in the store: the lineage of each amendment of a notice to the amendment before it
(issue 56.6). `save` records it in the same transaction as the run; `changes` lists what changed
from version to version and what to re-embed; `lineage_of` gives one run's links."""

from __future__ import annotations

import json
import os
import sqlite3

from chunkbench.errors import InputError
from chunkbench.evaluate.lineage import Lineage, lineage
from chunkbench.types.chunkset import ChunkSet

from .workspace import open_workspace, workspace_path

#: the columns of `changes`, each kind's count among them
CHANGE_COLUMNS = ("amendment_number", "run_id", "previous_amendment", "previous_run_id", "unchanged", "moved",
                  "split", "merged", "edited", "removed", "added", "to_embed", "to_delete", "summary")


def record(conn: sqlite3.Connection, run_id: str, notice: str, amendment: int, chunks: ChunkSet,
           load_run) -> Lineage | None:
    """Store the lineage from the notice's amendment just below `amendment` (None when it is the
    first); `load_run(conn, run_id)` reads a stored run. Versions that share no text are recorded
    all removed / all added: the store keeps what happened."""
    previous = conn.execute(
        "SELECT run_id FROM runs WHERE notice_key = ? AND amendment_number < ? AND run_id != ? "
        "ORDER BY amendment_number DESC, rowid DESC LIMIT 1", (notice, amendment, run_id)).fetchone()
    if previous is None:
        return None
    result = lineage(load_run(conn, previous[0]), chunks, force=True)
    conn.execute("INSERT OR REPLACE INTO run_lineage (run_id, previous_run_id, lineage) VALUES (?, ?, ?)",
                 (run_id, previous[0], json.dumps(result.to_dict(), sort_keys=True, ensure_ascii=False)))
    return result


def changes(notice_id: str, workspace: str | os.PathLike | None = None):
    """A DataFrame, one row per saved amendment of `notice_id` that has one before it: the counts of
    each lineage kind, how many chunks to embed and to delete, and the summary line."""
    import pandas as pd

    with open_workspace(workspace) as conn:
        known = conn.execute("SELECT COUNT(*) FROM runs WHERE notice_key = ?", (str(notice_id),)).fetchone()[0]
        if not known:
            raise InputError(f"no saved run of notice {notice_id!r} (see `chunkbench store runs`)",
                             workspace_path(workspace))
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
    with open_workspace(workspace) as conn:
        row = conn.execute("SELECT lineage FROM run_lineage WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        raise InputError(f"run {run_id!r} has no lineage: it is not an amendment with an earlier one saved",
                         workspace_path(workspace))
    return Lineage.from_dict(json.loads(row[0]))
