"""For each reviewer edit, the smallest parameter change in a sweep's grid that reproduces it:
the tuning that would have made the reviewer's cut (or removed it) without the edit.

A point reproduces an edit when its chunking has a cut everywhere the edit adds one and none where
it removes one (evaluate.labels.EditTarget). The change is counted from the setting the edit was
made on (its strategy and full parameters; the strategy's defaults when the edit predates their
recording): fewest parameters changed first, then the smallest relative step (a change of
strategy counts as one parameter), then grid order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: the columns of edit_changes.csv
COLUMNS = ("document", "edit_id", "kind", "reviewer", "text", "edited_with", "points_reproducing",
           "smallest_change", "setting")


def _full(strategy: str, params: Mapping[str, Any]) -> dict[str, Any] | None:
    from chunkbench.errors import ChunkbenchError
    from chunkbench.strategies import get_strategy

    try:
        return {"strategy": strategy, **get_strategy(strategy).resolve(dict(params))}
    except (ChunkbenchError, KeyError, ValueError):
        return None


def _step(old: Any, new: Any) -> float:
    """How far a parameter moved: |log ratio| for positive numbers, else 1."""
    if isinstance(old, (int, float)) and isinstance(new, (int, float)) and not isinstance(old, bool) \
            and not isinstance(new, bool) and old > 0 and new > 0:
        return abs(math.log(new / old))
    return 1.0


def _describe(changes: Mapping[str, tuple[Any, Any]]) -> str:
    if not changes:
        return "none: the setting it was made on already cuts so"
    return ", ".join(f"{k} {old} → {new}" for k, (old, new) in changes.items())


def edit_changes(df, labelled: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per reviewer edit of the swept inputs (`labelled`: input → evaluate.labels.Labels):
    how many points reproduce it and the smallest change to one of them (COLUMNS)."""
    if "edits_reproduced" not in getattr(df, "columns", ()):
        return []
    out = []
    for inp, labels in labelled.items():
        rows = df[(df["input"] == inp) & (df["status"] == "ok")]
        if rows.empty:
            continue
        document = str(rows["document"].iloc[0])
        candidates = []
        for _, row in rows.iterrows():
            ids = {int(i) for i in str(row.get("edits_reproduced") or "").split() if i.lstrip("-").isdigit()}
            full = _full(str(row["strategy"]), json.loads(row["params"] or "{}"))
            if full is not None:
                candidates.append((ids, full))
        for target in labels.edits:
            try:
                made_on = json.loads(target.params) if target.params else {}
            except ValueError:
                made_on = {}
            ref = _full(target.strategy, made_on) or {"strategy": target.strategy}
            best = None
            hits = 0
            for order, (ids, full) in enumerate(candidates):
                if target.edit_id not in ids:
                    continue
                hits += 1
                changes = {k: (ref.get(k), v) for k, v in full.items() if ref.get(k) != v}
                if full["strategy"] != ref["strategy"]:  # another strategy's parameters are one change
                    changes = {"strategy": (ref["strategy"], full["strategy"])}
                rank = (len(changes), sum(_step(a, b) for a, b in changes.values()), order)
                if best is None or rank < best[0]:
                    best = (rank, changes, full)
            out.append({
                "document": document, "edit_id": target.edit_id, "kind": target.kind, "reviewer": target.reviewer,
                "text": target.text, "edited_with": json.dumps(ref, sort_keys=True, default=list),
                "points_reproducing": hits,
                "smallest_change": _describe(best[1]) if best else "none in this grid",
                "setting": json.dumps(best[2], sort_keys=True, default=list) if best else "",
            })
    return out


def write_edit_changes(rows: list[dict[str, Any]], out_dir: str | Path) -> Path | None:
    """edit_changes.csv (atomically) when there are edits; None otherwise."""
    if not rows:
        return None
    import pandas as pd

    from chunkbench.io.atomic import atomic_path

    path = Path(out_dir) / "edit_changes.csv"
    with atomic_path(path) as tmp:
        pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(tmp, index=False)
    return path
