"""A document's labelled boundaries from what its reviewers stored: every verdict and boundary
edit in the workspace (db), read as evaluate.labels.Labels for sweeps and evaluations."""

from __future__ import annotations

import os

from chunkbench.db.edits import query_document
from chunkbench.db.verdicts import query
from chunkbench.db.workspace import open_workspace, workspace_path
from chunkbench.evaluate.labels import Labels, labels_from_verdicts
from chunkbench.types.document import Document

__all__ = ["load_labels"]


def load_labels(doc: Document, workspace: str | os.PathLike | None = None) -> Labels:
    """The labelled boundaries of `doc` from every verdict and boundary edit stored in the
    workspace, any strategy, parameters or reviewer; none when the workspace file does not exist."""
    if not workspace_path(workspace).is_file():
        return Labels(doc.doc_id, ())
    with open_workspace(workspace) as conn:
        return labels_from_verdicts(doc, query(conn, doc_id=doc.doc_id), query_document(conn, doc.doc_id))
