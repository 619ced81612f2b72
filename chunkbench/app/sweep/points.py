"""One sweep point computed in this process: `measure_point` (the sweep and the notebook both call
it: one implementation of the numbers) and `compute_point` (a results row that never raises)."""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chunkbench.io.atomic import write_json

from .grid import Point


def measure_point(input_path: str | os.PathLike, strategy: str, params: Mapping[str, Any] | None,
                  questions: str | os.PathLike | None, out_dir: str | os.PathLike, doc=None,
                  retriever: str = "bm25", labels=None, holdout: float | None = None,
                  chunks_file: str | os.PathLike | None = None, baseline: str | None = None,
                  gold: str | os.PathLike | None = None, kept=None):
    """One sweep point: load (or take) the document, chunk it, compute every metric (the retrieval
    check ranked by `retriever`, each chunk indexed as the point's INDEX_PARAMS say: then its
    chunks.json has the `index_text` or `index_texts` of each chunk; with `holdout`, on the
    questions that share does not hold out: holdout.questions_not_held_out), write chunks.json and
    metrics.json to `out_dir`. With `chunks_file`, the point is that file's chunks (another
    chunker's, named `strategy`) located in the document, not a strategy's. With `baseline`
    (Point.baseline), the `stability` value: the share of its chunks keeping a baseline chunk's id
    and text (evaluate.lineage.stability). With `gold` (a gold.json of the document), the gold_*
    columns: cut scores and recall per question kind (evaluate.gold.answers.gold_columns).
    Returns (doc, chunkset, metrics, details). The sweep and the notebook both call this: one implementation."""
    from chunkbench.evaluate import metrics
    from chunkbench.evaluate.retrieval.scoring import split_indexing
    from chunkbench.loaders import load
    from chunkbench.strategies import chunk

    doc = doc if doc is not None else load(input_path)
    indexing, strategy_params = split_indexing(params or {}, strategy)
    if chunks_file:
        from chunkbench.foreign import inspect, require_located

        chunkset = inspect(doc, chunks_file, name=strategy, params={"chunks_file": os.path.basename(chunks_file)})
        require_located(chunkset, chunks_file)
    else:
        chunkset = chunk(doc, strategy, kept=kept, **strategy_params)
    chunkset = chunkset.with_index_texts(indexing)
    extra_values: dict[str, Any] = {}
    if baseline and not chunks_file:
        from chunkbench.evaluate.diff import as_chunkset
        from chunkbench.evaluate.lineage import stability

        if os.path.isfile(baseline):
            before = chunk(_document(baseline, os.stat(baseline).st_mtime_ns), strategy, **strategy_params)
        else:
            before = as_chunkset(doc, baseline)
        extra_values["stability"] = round(stability(chunkset, before), 4)
    asked = None
    if questions and holdout:
        from chunkbench.evaluate.holdout import questions_not_held_out
        from chunkbench.evaluate.retrieval import load_questions

        every = load_questions(questions, doc)
        asked = questions_not_held_out(every, holdout)
    values, details = metrics.measure(doc, chunkset, asked if asked is not None else questions or None,
                                      retriever=retriever, labels=labels, indexing=indexing, kept=kept)
    if gold:
        from chunkbench.evaluate.gold.answers import gold_columns
        from chunkbench.evaluate.retrieval import chunk_units, indexed_units

        units = indexed_units(chunk_units(chunkset), indexing, doc)
        extra_values.update(gold_columns(_gold_case(os.fspath(gold), doc), units, retriever))
    values = {**values, **extra_values}
    if asked is not None:
        details["holdout"] = {"fraction": holdout, "held_out": len(every) - len(asked), "scored": len(asked)}
    write_point(out_dir, chunkset, values, details)
    return doc, chunkset, values, details


@functools.lru_cache(maxsize=4)
def _document(input_path: str, mtime_ns: int):
    """The loaded input, kept while its points are computed (the file's mtime is part of the key)."""
    from chunkbench.loaders import load

    return load(input_path)


def _gold_case(path: str, doc):
    """The gold case of `doc` from the gold.json at `path`, made once per (file, document) in this process."""
    key = (path, os.stat(path).st_mtime_ns, doc.doc_id, doc.parser.label, len(doc.text))
    found = _GOLD_CASES.get(key)
    if found is None:
        from chunkbench.evaluate.gold import Gold
        from chunkbench.evaluate.gold.answers import gold_case

        _GOLD_CASES.clear()  # one document's gold at a time: points come input by input
        found = _GOLD_CASES[key] = gold_case(doc, Gold.read(path), path)
    return found


_GOLD_CASES: dict = {}


def compute_point(point: Point, kept=None) -> dict:
    """Compute one point in this process; never raises: a failure goes into the row. `kept`: the
    run's strategies.kept.KeptState, so the points of one input re-chunk what the last one kept."""
    started = time.monotonic()
    row: dict[str, Any] = {
        "input": point.input, "document": point.document or Path(point.input).stem, **point.grid_values,
        "status": "failed", "error": point.error, "seconds": 0.0, "point_dir": point.out_dir,
        "notebook": None, "params": json.dumps(_jsonable(point.params), sort_keys=True),
    }
    if point.error:
        return row
    try:
        doc = _document(point.input, os.stat(point.input).st_mtime_ns)
        _, _, values, details = measure_point(point.input, point.strategy, point.params, point.questions,
                                              point.out_dir, doc=doc, retriever=point.retriever, labels=point.labels,
                                              holdout=point.holdout, chunks_file=point.chunks_file,
                                              baseline=point.baseline, gold=point.gold, kept=kept)
        row.update(values)
        if "edits_reproduced" in details:  # ids of the reviewers' edits this point reproduces (edit_changes)
            row["edits_reproduced"] = " ".join(str(i) for i in details["edits_reproduced"])
        row["status"] = "ok"
        row["error"] = None
    except Exception as exc:  # noqa: BLE001 - a failed point is recorded, the sweep goes on
        row["error"] = describe_error(exc)
    row["seconds"] = round(time.monotonic() - started, 4)
    return row


def write_point(out_dir: str | os.PathLike, chunkset, metrics: Mapping, details: Mapping) -> Path:
    """Write `chunks.json` and `metrics.json` of one point (what the notebook calls); returns the folder."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    chunkset.to_json(out / "chunks.json")
    from chunkbench.version import __version__

    write_json(out / "metrics.json", {
        "input": chunkset.doc.source,
        "doc_id": chunkset.doc.doc_id,
        "strategy": chunkset.strategy,
        "params": _jsonable(chunkset.params),
        "metrics": dict(metrics),
        "details": dict(details),
        "python": sys.executable,
        "chunkbench": __version__,
    })
    return out


def _jsonable(params: Mapping) -> dict:
    from chunkbench.types.chunkset import jsonable_params

    return jsonable_params(params)


def describe_error(exc: BaseException) -> str:
    """`ErrorType: message` of an exception; for a failed notebook cell, the cell's own error."""
    ename = getattr(exc, "ename", None)
    if ename:
        return f"{ename}: {getattr(exc, 'evalue', '')}"
    return f"{type(exc).__name__}: {exc}"
