"""Chunking runs saved in the workspace database: what `cb.store` (chunkbench.app.runs) keeps.

- `save` / `runs` / `load`: keep yesterday's runs and today's side by side.
- Amendments (specs/4 phase 3): runs saved under a notice key form versions 0, 1, 2, …; only the
  chunks of a key's latest amendment have `is_latest_version` true, and `search`, `find_chunks`
  and `get_chunk` return latest-version chunks unless asked for all.
- Rebuild on change (specs/3 §8.8): every run records a manifest (document, strategy, params,
  ruleset, parser and chunkbench versions); `stored_manifests` lists them for `app.runs.ensure`,
  which re-chunks (and saves) when anything in one changed.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import os
import sqlite3
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chunkbench.errors import InputError, UsageError
from chunkbench.runtime import env_number
from chunkbench.types.chunk import Chunk, boundary_key
from chunkbench.types.chunkset import ChunkSet, jsonable_params, restore_params
from chunkbench.types.document import Document
from chunkbench.version import __version__

from .workspace import open_workspace, transaction, workspace_exists, workspace_path

log = logging.getLogger("chunkbench.store")

#: test hook: seconds to sleep inside the save transaction after half the chunks are written, so a
#: test can kill the process mid-transaction (announced on stderr with PAUSE_MARKER)
PAUSE_ENV = "CHUNKBENCH_TEST_PAUSE_IN_SAVE"
PAUSE_MARKER = "chunkbench-test: paused inside save transaction"


# ---------------------------------------------------------------------------------------------
# (de)serialization


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def document_content_key(doc: Document) -> str:
    """sha256 of the Document's JSON without `pdf_path`: one source parsed two ways = two keys."""
    d = doc.to_dict()
    d.pop("pdf_path", None)
    return hashlib.sha256(_canonical(d).encode("utf-8")).hexdigest()


def manifest(chunks: ChunkSet, doc_key: str | None = None) -> dict:
    """What a run was made from (specs/3 §8.8): if any of it changes, the chunks may change.
    `doc_key`: the document's `document_content_key` when already computed."""
    return run_manifest(chunks.doc, chunks.strategy, chunks.params, chunks.ruleset, doc_key)


def run_manifest(doc: Document, strategy: str, params: Mapping[str, Any], ruleset: str,
                 doc_key: str | None = None) -> dict:
    """The manifest a run of `doc` under this strategy, resolved params and ruleset records."""
    return {
        "doc_id": doc.doc_id,
        "document": doc_key or document_content_key(doc),
        "strategy": strategy,
        "params": jsonable_params(params),
        "ruleset": ruleset,
        "parser": {"name": doc.parser.name, "version": doc.parser.version,
                   "options": jsonable_params(doc.parser.options)},
        "chunkbench_version": __version__,
    }


def _flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in d.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


@dataclass(frozen=True)
class Change:
    """One manifest entry that differs from the stored run's (`old` is None when it was missing)."""

    key: str
    old: Any
    new: Any

    def __str__(self) -> str:
        return f"{self.key}: {_short(self.old)} → {_short(self.new)}"


def _short(value: Any) -> str:
    text = "(missing)" if value is None else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:16] + "…" + text[-8:]


def manifest_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[Change, ...]:
    """The dotted keys whose values differ between two manifests, sorted by key."""
    a, b = _flatten(old), _flatten(new)
    return tuple(Change(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k))


# ---------------------------------------------------------------------------------------------
# save


def save(chunks: ChunkSet, *, notice_id: str | None = None, amendment: int | None = None,
         workspace: str | os.PathLike | None = None) -> str:
    """Save a ChunkSet as a new run in one transaction; return its run_id.

    With `notice_id`, the run is amendment `amendment` of that notice (default: one more than the
    highest saved, 0 for the first); afterwards only the chunks of the notice's latest amendment
    (highest number, most recently saved on a tie) have `is_latest_version` true. When neither is
    given and the strategy itself has a non-empty `notice_id` parameter (sections), its
    `notice_id` / `amendment_number` parameters are used."""
    if notice_id is None and amendment is None and str(chunks.params.get("notice_id") or "").strip():
        notice_id = str(chunks.params["notice_id"])
        amendment = chunks.params.get("amendment_number")
    if amendment is not None:
        if notice_id is None:
            raise UsageError("an amendment number needs a notice id (notice_id= / --notice-id)")
        if isinstance(amendment, bool) or not isinstance(amendment, int) or amendment < 0:
            raise UsageError(f"amendment must be a whole number ≥ 0, got {amendment!r}")
    notice = None if notice_id is None else str(notice_id)
    if notice is not None and not notice.strip():
        raise UsageError("the notice id must not be empty")

    doc = chunks.doc
    try:  # everything stored is JSON: fail before the transaction, saying what is wrong
        doc_json = _canonical(doc.to_dict())
        doc_key = document_content_key(doc)
        man = _canonical(manifest(chunks, doc_key))
        rows = [_chunk_row(c) for c in chunks.chunks]
    except (TypeError, ValueError) as exc:
        raise UsageError(f"cannot store {doc.source}: metadata and params must be plain JSON values ({exc})") from None
    run_id = f"{chunks.strategy}-{_dt.datetime.now(_dt.UTC):%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:8]}"
    created = _now()
    pause = env_number(PAUSE_ENV, 0, unit=" (seconds)")

    with open_workspace(workspace) as conn, transaction(conn):
        conn.execute(
            "INSERT INTO documents (doc_key, doc_id, source, pages, parser_name, parser_version, "
            "document_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(doc_key) DO UPDATE SET document_json = excluded.document_json",
            (doc_key, doc.doc_id, doc.source, len(doc.pages), doc.parser.name, doc.parser.version,
             doc_json, created),
        )
        if notice is not None and amendment is None:
            top = conn.execute("SELECT MAX(amendment_number) FROM runs WHERE notice_key = ?", (notice,)).fetchone()[0]
            amendment = 0 if top is None else int(top) + 1
        conn.execute(
            "INSERT INTO runs (run_id, doc_key, doc_id, strategy, params, params_hash, chunkbench_version, "
            "parser_name, parser_version, ruleset, manifest, skipped, n_chunks, created_at, notice_key, "
            "amendment_number) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, doc_key, doc.doc_id, chunks.strategy, _canonical(jsonable_params(chunks.params)),
             chunks.params_hash, __version__, doc.parser.name, doc.parser.version, chunks.ruleset,
             man, _canonical(dict(chunks.skipped)), len(rows), created, notice, amendment),
        )
        insert = (
            "INSERT INTO chunks (run_id, chunk_id, idx, type, text, tokens_est, page_start, page_end, "
            "section_path, heading, reason, reason_detail, start_char, end_char, boundary_key, data, "
            "is_latest_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)"
        )
        half = len(rows) // 2
        conn.executemany(insert, ((run_id, *row) for row in rows[:half]))
        if pause:
            print(PAUSE_MARKER, file=sys.stderr, flush=True)
            time.sleep(pause)
        conn.executemany(insert, ((run_id, *row) for row in rows[half:]))
        if notice is not None:
            _relabel_latest(conn, notice)
    log.info("saved run %s (%d chunks) to %s", run_id, len(rows), workspace_path(workspace))
    return run_id


def _chunk_row(c: Chunk) -> tuple:
    return (
        c.chunk_id, c.index, c.type, c.text, c.tokens_est, c.page_start, c.page_end,
        _canonical(list(c.section_path)), c.heading, c.boundary.reason.value, c.boundary.detail,
        c.start_char, c.end_char, boundary_key(c), _canonical(_without_text(c.to_dict())),
    )


def _without_text(d: dict) -> dict:
    """The chunk dict minus its text, which has a column of its own (not stored twice)."""
    d.pop("text", None)
    return d


def _relabel_latest(conn: sqlite3.Connection, notice: str) -> None:
    """Mark the chunks of the notice's latest run latest and every other run's chunks not."""
    latest = conn.execute(
        "SELECT run_id FROM runs WHERE notice_key = ? ORDER BY amendment_number DESC, rowid DESC LIMIT 1",
        (notice,),
    ).fetchone()[0]
    conn.execute(
        "UPDATE chunks SET is_latest_version = (run_id = ?) "
        "WHERE run_id IN (SELECT run_id FROM runs WHERE notice_key = ?) "
        "AND is_latest_version != (run_id = ?)",
        (latest, notice, latest),
    )


# ---------------------------------------------------------------------------------------------
# read


def runs(workspace: str | os.PathLike | None = None, *, notice_id: str | None = None):
    """A DataFrame of saved runs, oldest first (one row per run)."""
    import pandas as pd

    sql = (
        "SELECT r.run_id, r.created_at, d.source, r.doc_id, r.strategy, r.params, r.params_hash, "
        "r.n_chunks, r.notice_key, r.amendment_number, "
        "COALESCE((SELECT MAX(c.is_latest_version) FROM chunks c WHERE c.run_id = r.run_id), 1) AS latest, "
        "r.ruleset, r.parser_name, r.parser_version, r.chunkbench_version "
        "FROM runs r JOIN documents d ON d.doc_key = r.doc_key"
    )
    args: tuple = ()
    if notice_id is not None:
        sql += " WHERE r.notice_key = ?"
        args = (str(notice_id),)
    rows = _rows(workspace, sql + " ORDER BY r.rowid", args)
    columns = ["run_id", "created_at", "source", "doc_id", "strategy", "params", "params_hash", "n_chunks",
               "notice_key", "amendment_number", "latest", "ruleset", "parser_name", "parser_version",
               "chunkbench_version"]
    for row in rows:
        row["params"] = json.loads(row["params"])
        row["latest"] = bool(row["latest"])
    return _nullable_ints(pd.DataFrame(rows, columns=columns), "n_chunks", "amendment_number")


def _nullable_ints(df, *columns: str):
    """Integer columns that may hold None as pandas' nullable Int64 (not float with NaN)."""
    return df.astype({c: "Int64" for c in columns})


def _run_row(conn: sqlite3.Connection, run_id: str, workspace) -> sqlite3.Row:
    row = conn.execute(
        "SELECT r.*, d.document_json FROM runs r JOIN documents d ON d.doc_key = r.doc_key WHERE r.run_id = ?",
        (run_id,),
    ).fetchone()
    if row is None:
        raise InputError(f"no run {run_id!r} in this workspace (see `chunkbench store runs`)",
                         workspace_path(workspace))
    return row


def load(run_id: str, workspace: str | os.PathLike | None = None) -> ChunkSet:
    """The ChunkSet of a saved run, with its Document, ready for render, diff and export.

    Chunks carry the stored `amendment_number` / `is_latest_version` when their strategy has them."""
    with open_workspace(workspace, create=False) as conn:
        return _load(conn, run_id, workspace)


def _load(conn: sqlite3.Connection, run_id: str, workspace) -> ChunkSet:
    row = _run_row(conn, run_id, workspace)
    chunk_rows = conn.execute(
        "SELECT data, text, is_latest_version FROM chunks WHERE run_id = ? ORDER BY idx", (run_id,)
    ).fetchall()
    doc = Document.from_dict(json.loads(row["document_json"]))
    out = []
    for cr in chunk_rows:
        d = {**json.loads(cr["data"]), "text": cr["text"]}
        if "is_latest_version" in d:
            d["is_latest_version"] = bool(cr["is_latest_version"])
        if "amendment_number" in d and row["amendment_number"] is not None:
            d["amendment_number"] = row["amendment_number"]
        out.append(Chunk.from_dict(d))
    params = json.loads(row["params"])
    return ChunkSet(doc=doc, strategy=row["strategy"], params=restore_params(params),
                    chunks=tuple(out), ruleset=row["ruleset"], skipped=json.loads(row["skipped"]))


def get_chunk(chunk_id: str, *, run_id: str | None = None, all_versions: bool = False,
              workspace: str | os.PathLike | None = None) -> dict:
    """The full stored chunk (chunks.json fields plus run_id, notice_key, amendment_number,
    is_latest_version). Chunk ids repeat across runs of the same input: the latest-version row of
    the most recent run wins unless `run_id` says which; `all_versions` allows non-latest rows."""
    sql = ("SELECT c.data, c.text, c.run_id, c.is_latest_version, r.notice_key, r.amendment_number "
           "FROM chunks c JOIN runs r ON r.run_id = c.run_id WHERE c.chunk_id = ?")
    args: list = [chunk_id]
    if run_id is not None:
        sql += " AND c.run_id = ?"
        args.append(run_id)
    elif not all_versions:
        sql += " AND c.is_latest_version = 1"
    sql += " ORDER BY c.is_latest_version DESC, r.rowid DESC LIMIT 1"
    with open_workspace(workspace, create=False) as conn:
        row = conn.execute(sql, args).fetchone()
    if row is None:
        which = f" in run {run_id!r}" if run_id else ("" if all_versions else " among latest-version chunks")
        raise InputError(f"no chunk {chunk_id!r}{which}", workspace_path(workspace))
    d = {**json.loads(row["data"]), "text": row["text"]}
    d.update(run_id=row["run_id"], notice_key=row["notice_key"], amendment_number=row["amendment_number"],
             is_latest_version=bool(row["is_latest_version"]))
    return d


def search(text: str, k: int = 10, *, all_versions: bool = False, notice_id: str | None = None,
           strategy: str | None = None, run_id: str | None = None,
           workspace: str | os.PathLike | None = None):
    """BM25 search (SQLite FTS5) over stored chunk text: a DataFrame of the best `k` chunks.

    Any word of `text` may match (words are OR-ed); ranking is FTS5's bm25() with ties broken by
    run age and chunk index, so results are deterministic. Latest-version chunks only unless
    `all_versions`; fetch full text with `get_chunk(chunk_id, run_id=...)`."""
    import re

    import pandas as pd

    words = re.findall(r"\w+", text.lower())
    if not words:
        raise UsageError(f"search text {text!r} has no words to look for")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise UsageError(f"k must be a whole number ≥ 1, got {k!r}")
    query = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
    sql = (
        "SELECT c.chunk_id, c.run_id, -bm25(chunks_fts) AS score, d.source, r.strategy, r.notice_key, "
        "r.amendment_number, c.is_latest_version, c.page_start, c.page_end, c.section_path, c.heading, "
        "c.type, snippet(chunks_fts, 0, '[', ']', '…', 16) AS snippet "
        "FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
        "JOIN runs r ON r.run_id = c.run_id JOIN documents d ON d.doc_key = r.doc_key "
        "WHERE chunks_fts MATCH ?"
    )
    where, args = _chunk_filters(all_versions, notice_id, strategy, run_id)
    sql += where + " ORDER BY bm25(chunks_fts), r.rowid, c.idx LIMIT ?"
    args = [query, *args, k]
    rows = _rows(workspace, sql, args)
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
        row["section_path"] = json.loads(row["section_path"])
        row["is_latest_version"] = bool(row["is_latest_version"])
    columns = ["rank", "score", "chunk_id", "run_id", "source", "strategy", "notice_key", "amendment_number",
               "is_latest_version", "page_start", "page_end", "type", "heading", "section_path", "snippet"]
    return _nullable_ints(pd.DataFrame(rows, columns=columns), "rank", "amendment_number", "page_start", "page_end")


def _chunk_filters(all_versions: bool, notice_id, strategy, run_id) -> tuple[str, list]:
    """SQL `AND …` conditions on chunks `c` / runs `r`: latest versions only unless asked."""
    where, args = "", []
    if not all_versions and run_id is None:
        where += " AND c.is_latest_version = 1"
    for column, value in (("r.notice_key", notice_id), ("r.strategy", strategy), ("c.run_id", run_id)):
        if value is not None:
            where += f" AND {column} = ?"
            args.append(str(value))
    return where, args


def find_chunks(*, notice_id: str | None = None, strategy: str | None = None, run_id: str | None = None,
                all_versions: bool = False, workspace: str | os.PathLike | None = None):
    """Stored chunks as a DataFrame (one row per chunk, with text), oldest run first, in reading
    order. Latest-version chunks only unless `all_versions` or a `run_id` is given."""
    import pandas as pd

    where, args = _chunk_filters(all_versions, notice_id, strategy, run_id)
    sql = (
        "SELECT c.run_id, c.chunk_id, c.idx AS \"index\", d.source, r.strategy, r.notice_key, r.amendment_number, "
        "c.is_latest_version, c.type, c.page_start, c.page_end, c.section_path, c.heading, c.reason, "
        "c.reason_detail, c.start_char, c.end_char, c.tokens_est, c.text "
        "FROM chunks c JOIN runs r ON r.run_id = c.run_id JOIN documents d ON d.doc_key = r.doc_key "
        "WHERE 1" + where + " ORDER BY r.rowid, c.idx"
    )
    rows = _rows(workspace, sql, args)
    for row in rows:
        row["section_path"] = json.loads(row["section_path"])
        row["is_latest_version"] = bool(row["is_latest_version"])
    columns = ["run_id", "chunk_id", "index", "source", "strategy", "notice_key", "amendment_number",
               "is_latest_version", "type", "page_start", "page_end", "section_path", "heading", "reason",
               "reason_detail", "start_char", "end_char", "tokens_est", "text"]
    return _nullable_ints(pd.DataFrame(rows, columns=columns), "amendment_number", "page_start", "page_end",
                          "start_char", "end_char")


def _rows(workspace: str | os.PathLike | None, sql: str, args) -> list[dict]:
    """The rows of a read-only query as dicts; none when the workspace does not exist (a listing of
    a workspace nothing was stored in is empty, and leaves no folder or file behind)."""
    if not workspace_exists(workspace):
        return []
    with open_workspace(workspace, create=False) as conn:
        return [dict(r) for r in conn.execute(sql, args)]


def stored_manifests(doc_id: str, workspace: str | os.PathLike | None = None) -> list[tuple[str, dict]]:
    """(run_id, manifest) of every stored run of document `doc_id`, newest first."""
    rows = _rows(workspace, "SELECT run_id, manifest FROM runs WHERE doc_id = ? ORDER BY rowid DESC", (doc_id,))
    return [(row["run_id"], json.loads(row["manifest"])) for row in rows]
