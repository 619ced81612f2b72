"""Reviewer verdicts on chunk boundaries: pure functions over a workspace SQLite connection.

A verdict is keyed by doc_id + strategy + params_hash + boundary_key + reviewer and saved with an
upsert the moment it is given. `boundary_key` does not depend on the parameters, so a verdict on
a boundary that a run with other parameters still has is found by `carried_over`.
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
from collections.abc import Iterable

from chunkbench.errors import UsageError
from chunkbench.types.chunk import boundary_key
from chunkbench.types.review import COLUMNS, VERDICTS, Verdict


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def record(
    conn: sqlite3.Connection,
    *,
    doc_id: str,
    strategy: str,
    params_hash: str,
    boundary_key: str,
    verdict: str,
    reviewer: str = "",
    comment: str = "",
    chunk_index: int | None = None,
    reason: str | None = None,
    updated_at: str | None = None,
) -> Verdict:
    """Save (insert or replace) one verdict and commit at once; returns what was stored."""
    if verdict not in VERDICTS:
        raise UsageError(f"unknown verdict {verdict!r}; choose one of {', '.join(VERDICTS)}")
    v = Verdict(doc_id, strategy, params_hash, boundary_key, reviewer or "", verdict, comment or "",
                chunk_index, reason, updated_at or _now())
    # the workspace connection autocommits: one statement, saved the moment it is given
    conn.execute(
        "INSERT INTO verdicts (doc_id, strategy, params_hash, boundary_key, reviewer, verdict, comment,"
        " chunk_index, reason, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT (doc_id, strategy, params_hash, boundary_key, reviewer) DO UPDATE SET"
        " verdict=excluded.verdict, comment=excluded.comment, chunk_index=excluded.chunk_index,"
        " reason=excluded.reason, updated_at=excluded.updated_at",
        tuple(getattr(v, c) for c in COLUMNS),
    )
    if conn.in_transaction:  # a caller's connection that is not in autocommit mode
        conn.commit()
    return v


def record_for_chunk(conn: sqlite3.Connection, chunkset, index: int, verdict: str, *,
                     reviewer: str = "", comment: str = "") -> Verdict:
    """Save a verdict on the boundary where chunk `index` of `chunkset` starts."""
    c = chunkset.chunks[index]
    return record(
        conn, doc_id=chunkset.doc.doc_id, strategy=chunkset.strategy, params_hash=chunkset.params_hash,
        boundary_key=boundary_key(c), verdict=verdict, reviewer=reviewer, comment=comment,
        chunk_index=c.index, reason=c.boundary.reason.value,
    )


def remove(conn: sqlite3.Connection, *, doc_id: str, strategy: str, params_hash: str,
           boundary_key: str, reviewer: str = "") -> bool:
    """Withdraw one verdict; True when there was one."""
    cur = conn.execute(
        "DELETE FROM verdicts WHERE doc_id=? AND strategy=? AND params_hash=? AND boundary_key=?"
        " AND reviewer=?",
        (doc_id, strategy, params_hash, boundary_key, reviewer or ""),
    )
    if conn.in_transaction:
        conn.commit()
    return cur.rowcount > 0


def query(
    conn: sqlite3.Connection,
    *,
    doc_id: str | None = None,
    strategy: str | None = None,
    params_hash: str | None = None,
    reviewer: str | None = None,
    boundary_keys: Iterable[str] | None = None,
) -> list[Verdict]:
    """Verdicts matching every given filter, in a stable order (document, chunking, chunk)."""
    where, args = [], []
    for col, value in (("doc_id", doc_id), ("strategy", strategy), ("params_hash", params_hash),
                       ("reviewer", reviewer)):
        if value is not None:
            where.append(f"{col} = ?")
            args.append(value)
    sql = f"SELECT {', '.join(COLUMNS)} FROM verdicts"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY doc_id, strategy, params_hash, chunk_index, boundary_key, reviewer"
    rows = [Verdict(*r) for r in conn.execute(sql, args)]
    if boundary_keys is not None:
        keys = set(boundary_keys)
        rows = [v for v in rows if v.boundary_key in keys]
    return rows


def for_chunkset(conn: sqlite3.Connection, chunkset, reviewer: str | None = None) -> dict[str, list[Verdict]]:
    """boundary_key → verdicts given on exactly this chunking (all reviewers unless one is named)."""
    out: dict[str, list[Verdict]] = {}
    for v in query(conn, doc_id=chunkset.doc.doc_id, strategy=chunkset.strategy,
                   params_hash=chunkset.params_hash, reviewer=reviewer):
        out.setdefault(v.boundary_key, []).append(v)
    return out


def carried_over(conn: sqlite3.Connection, chunkset, reviewer: str | None = None) -> dict[str, list[Verdict]]:
    """boundary_key → verdicts given under OTHER parameters of the same strategy on the same
    document, for boundaries this chunking still has (unchanged cuts keep their verdicts)."""
    keys = {boundary_key(c) for c in chunkset.chunks}
    out: dict[str, list[Verdict]] = {}
    for v in query(conn, doc_id=chunkset.doc.doc_id, strategy=chunkset.strategy, reviewer=reviewer):
        if v.params_hash != chunkset.params_hash and v.boundary_key in keys:
            out.setdefault(v.boundary_key, []).append(v)
    for vs in out.values():
        vs.sort(key=lambda v: v.updated_at, reverse=True)  # newest first
    return out
