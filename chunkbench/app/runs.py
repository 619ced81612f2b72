"""Saved runs as a person uses them (`cb.store`): the workspace's runs (save, runs, load, search,
... from db.catalog; where the workspace is, `workspace_path`, and whether it was made) and what is composed on them: `ensure` (the stored run when nothing changed,
else chunk and save) and `compare` (two saved runs' boundaries)."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

from chunkbench.db.catalog import (
    PAUSE_ENV,
    PAUSE_MARKER,
    Change,
    document_content_key,
    find_chunks,
    get_chunk,
    load,
    manifest,
    manifest_changes,
    run_manifest,
    runs,
    search,
    stored_manifests,
)
from chunkbench.db.workspace import workspace_exists, workspace_path
from chunkbench.evaluate.diff import diff
from chunkbench.strategies import chunk, get_strategy
from chunkbench.types.chunk import boundary_key
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document

from .versions import changes, lineage_of, save

__all__ = [
    "PAUSE_ENV", "PAUSE_MARKER", "BoundaryComparison", "Change", "Ensured", "compare", "document_content_key",
    "changes", "ensure", "find_chunks", "get_chunk", "lineage_of", "load", "manifest", "manifest_changes", "runs",
    "save", "search", "workspace_exists", "workspace_path",
]

log = logging.getLogger("chunkbench.store")


@dataclass(frozen=True)
class BoundaryComparison:
    """Boundaries (by `boundary_key`) only in run A, only in run B, and in both."""

    run_a: str
    run_b: str
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    common: tuple[str, ...]

    def summary(self) -> str:
        return (f"{self.run_a} vs {self.run_b}: {len(self.common)} shared boundaries, "
                f"{len(self.only_a)} only in A, {len(self.only_b)} only in B")


def compare(run_a: str, run_b: str, workspace: str | os.PathLike | None = None):
    """Compare two saved runs: a `chunkbench.evaluate.diff` BoundaryDiff when both runs chunk the same
    document; otherwise, e.g. two amendments, a BoundaryComparison of their `boundary_key` sets."""
    a, b = load(run_a, workspace), load(run_b, workspace)
    if a.doc.doc_id == b.doc.doc_id:
        return diff(a.doc, a, b)
    keys_a = list(dict.fromkeys(boundary_key(c) for c in a.chunks))
    keys_b = list(dict.fromkeys(boundary_key(c) for c in b.chunks))
    set_a, set_b = set(keys_a), set(keys_b)
    return BoundaryComparison(
        run_a, run_b,
        only_a=tuple(k for k in keys_a if k not in set_b),
        only_b=tuple(k for k in keys_b if k not in set_a),
        common=tuple(k for k in keys_a if k in set_b),
    )


@dataclass(frozen=True)
class Ensured:
    """What `ensure` did: the run (stored or new), whether it re-chunked, and why."""

    run_id: str
    chunks: ChunkSet
    rebuilt: bool
    #: manifest entries that differ from the document's most recent stored run (empty if reused)
    changes: tuple[Change, ...]
    reason: str


def ensure(doc: Document, strategy: str, *, workspace: str | os.PathLike | None = None,
           **params: Any) -> Ensured:
    """The stored run of `doc` under this strategy and params if its manifest matches exactly;
    otherwise chunk, save and return the new run, with the manifest keys that changed compared
    with the document's most recent run (specs/3 §8.8 rebuild on configuration change)."""
    strat = get_strategy(strategy)
    resolved = strat.resolve(params)
    want = run_manifest(doc, strat.name, resolved, strat.ruleset)
    stored = stored_manifests(doc.doc_id, workspace)
    for run_id, have in stored:
        if have == want:
            reason = f"manifest unchanged: reusing run {run_id}"
            log.info(reason)
            return Ensured(run_id, load(run_id, workspace), False, (), reason)
    if stored:
        latest_id, latest = stored[0]
        changes = manifest_changes(latest, want)
        reason = f"re-chunked: changed since run {latest_id}: " + "; ".join(map(str, changes))
    else:
        changes = ()
        reason = f"chunked: no stored run of {doc.source}"
    chunks = chunk(doc, strat.name, **resolved)
    run_id = save(chunks, workspace=workspace)
    log.info("%s (new run %s)", reason, run_id)
    return Ensured(run_id, chunks, True, changes, reason)
