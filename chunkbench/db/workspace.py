"""The workspace database: one SQLite file per workspace, opened safely and migrated on connect.

The store (runs, chunks, amendments) and the review app (verdicts) share this file. Connections
use WAL mode and a busy timeout so several processes can read and write at once; the schema is
versioned with `PRAGMA user_version` and migrated forward in one transaction. A file written by a
newer chunkbench (higher version) is refused rather than guessed at.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from chunkbench.errors import ChunkbenchError, InputError, UsageError

#: environment variable naming the workspace database (path or sqlite:/// URL)
ENV_VAR = "CHUNKBENCH_WORKSPACE"
DEFAULT_PATH = Path(".chunkbench") / "workspace.db"
#: how long a writer waits for another process's transaction before giving up (milliseconds)
BUSY_TIMEOUT_MS = 30_000

# Each migration is a list of statements run in order inside one transaction together with the
# `PRAGMA user_version` bump. Never edit a released migration: append a new one.
MIGRATIONS: list[list[str]] = [
    # 1: documents, runs, chunks, and the review app's verdicts
    [
        # doc_key: sha256 of the Document's JSON (one source file parsed two ways = two rows)
        """CREATE TABLE documents (
            doc_key TEXT PRIMARY KEY,
            doc_id TEXT NOT NULL,
            source TEXT NOT NULL,
            pages INTEGER NOT NULL,
            parser_name TEXT NOT NULL,
            parser_version TEXT NOT NULL DEFAULT '',
            document_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE runs (
            run_id TEXT PRIMARY KEY,
            doc_key TEXT NOT NULL REFERENCES documents(doc_key),
            doc_id TEXT NOT NULL,
            strategy TEXT NOT NULL,
            params TEXT NOT NULL,
            params_hash TEXT NOT NULL,
            chunkbench_version TEXT NOT NULL,
            parser_name TEXT NOT NULL,
            parser_version TEXT NOT NULL DEFAULT '',
            ruleset TEXT NOT NULL DEFAULT '',
            manifest TEXT NOT NULL,
            skipped TEXT NOT NULL DEFAULT '{}',
            n_chunks INTEGER NOT NULL,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX runs_doc ON runs (doc_id, strategy, params_hash)",
        """CREATE TABLE chunks (
            run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
            chunk_id TEXT NOT NULL,
            idx INTEGER NOT NULL,
            type TEXT NOT NULL,
            text TEXT NOT NULL,
            tokens_est INTEGER NOT NULL,
            page_start INTEGER,
            page_end INTEGER,
            section_path TEXT NOT NULL,
            heading TEXT,
            reason TEXT NOT NULL,
            reason_detail TEXT NOT NULL,
            start_char INTEGER,
            end_char INTEGER,
            boundary_key TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (run_id, chunk_id)
        )""",
        "CREATE INDEX chunks_id ON chunks (chunk_id)",
        """CREATE TABLE verdicts (doc_id TEXT NOT NULL, strategy TEXT NOT NULL, params_hash TEXT NOT NULL, boundary_key TEXT NOT NULL, reviewer TEXT NOT NULL DEFAULT '', verdict TEXT NOT NULL CHECK (verdict IN ('ok','should_merge','should_split_elsewhere','wrong_type')), comment TEXT NOT NULL DEFAULT '', chunk_index INTEGER, reason TEXT, updated_at TEXT NOT NULL, PRIMARY KEY (doc_id, strategy, params_hash, boundary_key, reviewer))""",
    ],
    # 2: amendment versions (specs/4 phase 3) and full-text search (FTS5, BM25 ranking)
    [
        "ALTER TABLE runs ADD COLUMN notice_key TEXT",
        "ALTER TABLE runs ADD COLUMN amendment_number INTEGER",
        "CREATE INDEX runs_notice ON runs (notice_key, amendment_number)",
        "ALTER TABLE chunks ADD COLUMN is_latest_version INTEGER NOT NULL DEFAULT 1",
        "CREATE INDEX chunks_latest ON chunks (is_latest_version)",
        """CREATE VIRTUAL TABLE chunks_fts USING fts5(
            text, content='chunks', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2'
        )""",
        """CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, text) VALUES (new.rowid, new.text);
        END""",
        """CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
        END""",
        """CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
            INSERT INTO chunks_fts(rowid, text) VALUES (new.rowid, new.text);
        END""",
        "INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')",
    ],
    # 3: reviewers' boundary edits, anchored to the text (db/edits.py)
    [
        """CREATE TABLE edits (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_id TEXT NOT NULL, strategy TEXT NOT NULL,
            reviewer TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL CHECK (kind IN ('merge','split','move')),
            at_anchor TEXT NOT NULL, to_anchor TEXT, comment TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL)""",
        "CREATE INDEX edits_doc ON edits (doc_id, strategy)",
    ],
    # 4: the parameters of the chunking an edit was made on (a sweep names the smallest change from them)
    ["ALTER TABLE edits ADD COLUMN params TEXT NOT NULL DEFAULT ''"],
    # 5: an amendment's lineage to the amendment before it (app/versions.py: what changed, what to re-embed)
    [
        """CREATE TABLE run_lineage (run_id TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
            previous_run_id TEXT NOT NULL, lineage TEXT NOT NULL)""",
    ],
]

#: the schema version this code writes and understands
SCHEMA_VERSION = len(MIGRATIONS)


def workspace_path(path: str | os.PathLike | None = None) -> Path:
    """Where the workspace database is: `path` > $CHUNKBENCH_WORKSPACE > ./.chunkbench/workspace.db.

    A `sqlite:///relative/or/absolute` URL is accepted wherever a path is."""
    value = os.fspath(path) if path is not None else os.environ.get(ENV_VAR) or None
    if value is None:
        return DEFAULT_PATH
    if value.startswith("sqlite:"):
        rest = value[len("sqlite:"):]
        if not rest.startswith("///"):
            raise InputError("a workspace URL must look like sqlite:///path/to/workspace.db", value)
        # sqlite:///rel.db → rel.db ; sqlite:////abs.db → /abs.db (SQLAlchemy convention)
        value = rest[3:]
        if not value:
            raise InputError("the workspace URL names no file", path)
    return Path(value)


def workspace_exists(path: str | os.PathLike | None = None) -> bool:
    """Whether the workspace database file exists: what readers ask before they open it, so that a
    listing of a workspace never stored in is empty and leaves no folder or file behind."""
    try:
        return workspace_path(path).is_file()
    except OSError:
        return False


def connect(path: str | os.PathLike | None = None, *, migrate: bool = True) -> sqlite3.Connection:
    """Open (creating if needed) the workspace database, migrated to SCHEMA_VERSION.

    The connection is in autocommit mode (use `transaction()` for atomic writes), returns
    `sqlite3.Row` rows, has foreign keys on, WAL journaling and a 30 s busy timeout.
    Raises InputError for a file that is not a database or comes from a newer chunkbench."""
    db = workspace_path(path)
    if db.exists() and db.is_dir():
        raise InputError("the workspace path is a folder, not a database file", db)
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the workspace folder: {exc.strerror or exc}", db.parent) from None
    try:
        conn = sqlite3.connect(os.fspath(db), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except sqlite3.Error as exc:
        raise InputError(f"cannot open the workspace database: {exc}", db) from None
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _retry_while_locked(lambda: _prepare(conn, db, migrate))
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise database_error(exc, db) from None
    except BaseException:
        conn.close()
        raise
    return conn


def _prepare(conn: sqlite3.Connection, db: Path, migrate: bool) -> None:
    """Foreign keys, WAL, the version check and the migrations: each step idempotent."""
    conn.execute("PRAGMA foreign_keys = ON")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise InputError(f"cannot switch the workspace database to WAL mode (got {mode})", db)
    conn.execute("PRAGMA synchronous = NORMAL")
    _check_version(conn, db)
    if migrate:
        _migrate(conn, db)


def _retry_while_locked(step, timeout_s: float = BUSY_TIMEOUT_MS / 1000) -> None:
    """Run `step`, again after a short wait when SQLite answers "database is locked" without waiting
    itself (seen once when two processes opened a new workspace at once); within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    pause = 0.02
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.5)


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in the database (0 for a new, empty file)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _check_version(conn: sqlite3.Connection, db: Path) -> int:
    version = schema_version(conn)
    if version > SCHEMA_VERSION:
        raise InputError(
            f"workspace schema version {version} is newer than this chunkbench understands "
            f"(version {SCHEMA_VERSION}); upgrade chunkbench or use another workspace",
            db,
        )
    return version


def _migrate(conn: sqlite3.Connection, db: Path) -> None:
    """Apply the missing migrations in one IMMEDIATE transaction (safe when processes race)."""
    if schema_version(conn) == SCHEMA_VERSION:
        return
    with transaction(conn):
        version = _check_version(conn, db)  # re-read under the write lock: another process may have won
        for number in range(version + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[number - 1]:
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any error: all of it lands or none of it does."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextlib.contextmanager
def open_workspace(path: str | os.PathLike | None = None, *, create: bool = True) -> Iterator[sqlite3.Connection]:
    """`with open_workspace(p) as conn:` — connect, and close when done; a database error on the way
    is the user's (database_error), said of the workspace file. A reader passes `create=False`: a
    workspace that does not exist is then an InputError, never made (with its folders) by a read."""
    if not create and not workspace_exists(path):
        raise InputError("no workspace database here: nothing has been stored in it "
                         "(`chunkbench store save` or a review makes one)", workspace_path(path))
    conn = connect(path)
    try:
        yield conn
    except sqlite3.DatabaseError as exc:
        raise database_error(exc, workspace_path(path)) from None
    finally:
        conn.close()


#: what SQLite says when the database cannot be written: a full disk, a read-only file or folder
_CANNOT_WRITE = ("full", "readonly", "read-only", "disk i/o", "unable to open")


def database_error(exc: sqlite3.DatabaseError, db: Path) -> ChunkbenchError:
    """The user's error a database error is: an output that cannot be written (UsageError, exit 2:
    a full disk, a read-only workspace) or a file that is not a usable workspace (InputError, exit 3:
    malformed, not a database)."""
    said = str(exc)
    if any(word in said.lower() for word in _CANNOT_WRITE):
        return UsageError(f"cannot write the workspace database: {said}", db)
    return InputError(f"not a usable workspace database: {said}", db)
