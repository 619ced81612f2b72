"""Reviewer verdicts as the review app and notebooks use them: the record (`types.review`), its
storage (`store.verdicts`) and exports (`io.verdicts`) under one name, and `load_labels`, which
reads a document's verdicts and edits as labelled boundaries (`evaluate.labels`)."""

from __future__ import annotations

import os

from chunkbench.io.verdicts import summary, to_csv, to_dataframe, to_json
from chunkbench.store.verdicts import carried_over, for_chunkset, query, record, record_for_chunk, remove
from chunkbench.types.review import COLUMNS, VERDICT_LABELS, VERDICTS, Verdict

__all__ = ["COLUMNS", "VERDICTS", "VERDICT_LABELS", "Verdict", "carried_over", "for_chunkset", "load_labels", "query",
           "record", "record_for_chunk", "remove", "summary", "to_csv", "to_dataframe", "to_json"]


def load_labels(doc, workspace: str | os.PathLike | None = None):
    """The labelled boundaries of `doc` (evaluate.labels) from every verdict and boundary edit
    stored in the workspace, any strategy, parameters or reviewer; none when the workspace file
    does not exist."""
    from chunkbench.evaluate.labels import Labels, labels_from_verdicts
    from chunkbench.store.edits import query_document
    from chunkbench.store.workspace import open_workspace, workspace_path

    if not workspace_path(workspace).is_file():
        return Labels(doc.doc_id, ())
    with open_workspace(workspace) as conn:
        return labels_from_verdicts(doc, query(conn, doc_id=doc.doc_id), query_document(conn, doc.doc_id))
