"""Reviewers' boundary edits in the workspace, per document + strategy + reviewer: record, query,
remove. The edits themselves are types.review; how they apply, strategies.edits; chunking with
them applied, app.chunking."""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
from typing import Any

from chunkbench.types.document import Document
from chunkbench.types.review import Anchor, Edit

from .workspace import open_workspace, workspace_path

_COLUMNS = "id, kind, at_anchor, to_anchor, reviewer, created_at, comment, params, strategy"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def record(conn: sqlite3.Connection, doc_id: str, strategy: str, edit: Edit) -> Edit:
    """Save an edit at once; returns it with its id and time."""
    when = edit.created_at or _now()
    cur = conn.execute(
        "INSERT INTO edits (doc_id, strategy, reviewer, kind, at_anchor, to_anchor, comment, created_at, params)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        (doc_id, strategy, edit.reviewer or "", edit.kind, json.dumps(edit.at.to_dict()),
         json.dumps(edit.to.to_dict()) if edit.to else None, edit.comment or "", when, edit.params or ""))
    if conn.in_transaction:
        conn.commit()
    return Edit(edit.kind, edit.at, edit.to, edit.reviewer or "", when, edit.comment or "", cur.lastrowid,
                edit.params or "")


def query(conn: sqlite3.Connection, doc_id: str, strategy: str, reviewer: str | None = None) -> list[Edit]:
    """The edits of a document under a strategy (one reviewer's, or everyone's), oldest first."""
    return [e for _s, e in _select(conn, doc_id, strategy, reviewer)]


def query_document(conn: sqlite3.Connection, doc_id: str) -> list[tuple[str, Edit]]:
    """Every edit of a document, under any strategy: (strategy, edit), oldest first."""
    return _select(conn, doc_id, None, None)


def _select(conn: sqlite3.Connection, doc_id: str, strategy: str | None, reviewer: str | None) -> list[tuple[str, Edit]]:
    sql = f"SELECT {_COLUMNS} FROM edits WHERE doc_id = ?"
    args: list[Any] = [doc_id]
    if strategy is not None:
        sql += " AND strategy = ?"
        args.append(strategy)
    if reviewer is not None:
        sql += " AND reviewer = ?"
        args.append(reviewer)
    rows = conn.execute(sql + " ORDER BY created_at, id", args).fetchall()
    return [(strategy_, Edit(kind, Anchor.from_dict(json.loads(at)), Anchor.from_dict(json.loads(to)) if to else None,
                             reviewer_, created, comment, id_, params or ""))
            for id_, kind, at, to, reviewer_, created, comment, params, strategy_ in rows]


def remove(conn: sqlite3.Connection, edit_id: int) -> bool:
    """Withdraw one edit; True when there was one."""
    cur = conn.execute("DELETE FROM edits WHERE id = ?", (edit_id,))
    if conn.in_transaction:
        conn.commit()
    return cur.rowcount > 0


def edits_of(doc: Document, strategy: str, workspace: str | os.PathLike | None = None,
             reviewer: str | None = None) -> list[Edit]:
    """The stored edits of `doc` under `strategy` (none when the workspace does not exist)."""
    if not workspace_path(workspace).is_file():
        return []
    with open_workspace(workspace) as conn:
        return query(conn, doc.doc_id, strategy, reviewer)
