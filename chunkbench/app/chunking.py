"""The one `chunk()`: a strategy on a document, with the reviewers' boundary edits applied when
asked and the index texts a retrieval recipe wants; and recording a reviewer's edit. The CLI, the
facade, the explorer and the review app all chunk through here."""

from __future__ import annotations

import os
import warnings
from typing import Any

from chunkbench.db.edits import edits_of, record, remove
from chunkbench.db.workspace import open_workspace
from chunkbench.errors import EditWarning, UsageError
from chunkbench.strategies import DEFAULT_STRATEGY
from chunkbench.strategies import chunk as run_strategy
from chunkbench.strategies.edits import apply_edits, make_edit, make_edit_at
from chunkbench.text.context import Indexing
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document
from chunkbench.types.review import Edit, EditOutcome

__all__ = ["add_edit", "chunk", "chunk_with_edits", "remove_edit", "stored_edits", "with_edits"]


def chunk(doc: Document, strategy: str = DEFAULT_STRATEGY, *, edits: Any = None,
          workspace: str | os.PathLike | None = None, reviewer: str | None = None,
          indexing: Indexing | None = None, **params: Any) -> ChunkSet:
    """Chunk `doc` with the named strategy; unknown names or bad values raise ParamError.

    `edits="apply"` applies the reviewers' boundary edits stored in the workspace (`workspace`,
    default $CHUNKBENCH_WORKSPACE or ./.chunkbench/workspace.db) for this document and strategy,
    everyone's or `reviewer`'s; a list of `Edit`s applies those. Each edit that cannot be applied
    is an EditWarning, never dropped silently. `indexing` adds the texts a retrieval index embeds
    (ChunkSet.with_index_texts)."""
    outcome = chunk_with_edits(doc, strategy, edits=edits, workspace=workspace, reviewer=reviewer, **params)
    for message in outcome.messages():
        warnings.warn(message, EditWarning, stacklevel=2)
    return outcome.chunkset if indexing is None else outcome.chunkset.with_index_texts(indexing)


def chunk_with_edits(doc: Document, strategy: str = DEFAULT_STRATEGY, *, edits: Any = "apply",
                     workspace: str | os.PathLike | None = None, reviewer: str | None = None,
                     **params: Any) -> EditOutcome:
    """Chunk `doc`, then apply `edits` ("apply": the stored ones of `strategy`, every reviewer's
    or one's; a list of Edits; None or "none": none) and say what could not be applied."""
    chunkset = run_strategy(doc, strategy, **params)
    if edits is None or edits == "none":
        return apply_edits(chunkset, ())
    if edits == "apply":
        return with_edits(chunkset, workspace, reviewer)
    if isinstance(edits, str):
        raise UsageError(f"edits must be 'apply', 'none' or a list of edits, got {edits!r}")
    return apply_edits(chunkset, edits)


def with_edits(chunkset: ChunkSet, workspace: str | os.PathLike | None = None,
               reviewer: str | None = None) -> EditOutcome:
    """`chunkset` with the stored edits of its document and strategy applied (every reviewer's,
    or one's): what the review app and the explorer show."""
    return apply_edits(chunkset, edits_of(chunkset.doc, chunkset.strategy, workspace, reviewer))


def add_edit(chunkset: ChunkSet, kind: str, index: int, *, word: int = 0, at: int | None = None,
             reviewer: str = "", comment: str = "", workspace: str | os.PathLike | None = None) -> Edit:
    """Record an edit of chunk `index` of `chunkset` in the workspace: by a word number
    (strategies.edits.make_edit), or at canonical offset `at`, the word a reviewer clicked
    (make_edit_at). Returns it with its id and time."""
    if at is None:
        edit = make_edit(chunkset, kind, index, word=word, reviewer=reviewer, comment=comment)
    else:
        edit = make_edit_at(chunkset, kind, index, at, reviewer=reviewer, comment=comment)
    with open_workspace(workspace) as conn:
        return record(conn, chunkset.doc.doc_id, chunkset.strategy, edit)


def stored_edits(doc: Document, strategy: str, workspace: str | os.PathLike | None = None,
                 reviewer: str | None = None) -> list[Edit]:
    """The boundary edits stored for `doc` under `strategy` (everyone's, or `reviewer`'s), oldest
    first; none when the workspace was never made."""
    return edits_of(doc, strategy, workspace, reviewer)


def remove_edit(edit_id: int, workspace: str | os.PathLike | None = None) -> None:
    """Withdraw stored edit `edit_id`; a UsageError when there is none (an InputError when the
    workspace was never made: a removal makes none)."""
    with open_workspace(workspace, create=False) as conn:
        if not remove(conn, edit_id):
            raise UsageError(f"there is no edit {edit_id}")
