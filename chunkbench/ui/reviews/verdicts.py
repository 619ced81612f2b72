"""Reviewer verdicts as the review app and notebooks use them: the record (`types.review`), its
storage (`db.verdicts`), exports (`io.verdicts`) and `load_labels` (app.labels) under one name."""

from __future__ import annotations

from chunkbench.app.labels import load_labels
from chunkbench.db.verdicts import carried_over, for_chunkset, query, record, record_for_chunk, remove
from chunkbench.io.verdicts import summary, to_csv, to_dataframe, to_json, write_verdicts
from chunkbench.types.review import COLUMNS, VERDICT_LABELS, VERDICTS, Verdict

__all__ = ["COLUMNS", "VERDICTS", "VERDICT_LABELS", "Verdict", "carried_over", "for_chunkset", "load_labels", "query",
           "record", "record_for_chunk", "remove", "summary", "to_csv", "to_dataframe", "to_json", "write_verdicts"]
