"""Reviewer verdicts out of the workspace: a DataFrame, CSV or JSON (written atomically), counts."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence

from chunkbench.types.review import COLUMNS, VERDICTS, Verdict

from .atomic import dumps_json, write_text


def to_dataframe(verdicts: Sequence[Verdict]):
    """A pandas DataFrame, one row per verdict, columns as in the workspace table."""
    import pandas as pd

    return pd.DataFrame([v.to_dict() for v in verdicts], columns=list(COLUMNS))


def to_csv(verdicts: Sequence[Verdict], path: str | os.PathLike | None = None) -> str:
    """CSV text (header + one row per verdict); written atomically when `path` is given."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for v in verdicts:
        w.writerow(["" if getattr(v, c) is None else getattr(v, c) for c in COLUMNS])
    text = buf.getvalue()
    if path is not None:
        write_text(path, text)
    return text


def to_json(verdicts: Sequence[Verdict], path: str | os.PathLike | None = None) -> str:
    """JSON list of verdict objects; written atomically when `path` is given."""
    text = dumps_json([v.to_dict() for v in verdicts])
    if path is not None:
        write_text(path, text)
    return text


def write_verdicts(verdicts: Sequence[Verdict], path: str | os.PathLike) -> str:
    """Write `verdicts` to `path` atomically: JSON for a .json name, CSV otherwise; returns the text."""
    write = to_json if os.fspath(path).lower().endswith(".json") else to_csv
    return write(verdicts, path)


def summary(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """Count per verdict code (every code present, zero when unused)."""
    counts = {k: 0 for k in VERDICTS}
    for v in verdicts:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    return counts
