"""The workspace of saved runs (`cb.store`): save a ChunkSet, list, load, search and compare runs.

`workspace` holds the SQLite database (schema, migrations, connections); `catalog` the runs API on
top of it, re-exported here so that `cb.store.save(chunks)` reads as it always did."""

from .catalog import (
    PAUSE_ENV,
    PAUSE_MARKER,
    BoundaryComparison,
    Change,
    Ensured,
    compare,
    document_content_key,
    ensure,
    find_chunks,
    get_chunk,
    load,
    manifest,
    manifest_changes,
    runs,
    save,
    search,
)

__all__ = [
    "PAUSE_ENV", "PAUSE_MARKER", "BoundaryComparison", "Change", "Ensured", "compare", "document_content_key",
    "ensure", "find_chunks", "get_chunk", "load", "manifest", "manifest_changes", "runs", "save", "search",
]
