"""The grid of a sweep: parsing `--grid`, the points (input × strategy × parameter values), the
questions file of each input, and where each point's files go."""

from __future__ import annotations

import itertools
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunkbench.errors import InputError, UsageError
from chunkbench.strategies import DEFAULT_STRATEGY

if TYPE_CHECKING:
    from chunkbench.evaluate.labels import Labels


@dataclass(frozen=True)
class Point:
    """One notebook run: an input, a strategy with parameters, where its files go."""

    input: str
    strategy: str
    params: Mapping[str, Any]
    #: the swept values of this point (grid key → value as given), for the results table
    grid_values: Mapping[str, Any]
    questions: str | None
    out_dir: str
    #: set when the point is known to fail before running (bad parameter value)
    error: str | None = None
    #: the input's short name in results and under points/ (its stem, numbered if two share one)
    document: str = ""
    #: how the retrieval check ranks units: bm25 or dense (retrieval.RETRIEVERS)
    retriever: str = "bm25"
    #: reviewers' labelled boundaries of the input (read once in the client), for rev_boundary_*
    labels: Labels | None = None
    #: the share of the input's questions held out of the retrieval columns (sweep --holdout), or None
    holdout: float | None = None
    #: another chunker's chunks file measured at this point instead of a strategy (sweep --chunks);
    #: `strategy` is then the chunker's name
    chunks_file: str | None = None
    #: what the `stability` column compares the point's chunks with (sweep --stability-against): another
    #: version of the input (a file, chunked with the point's setting) or a setting ('strategy=...,k=v')
    baseline: str | None = None
    #: the input's gold.json (sweep --gold): the point gets the gold_* columns (evaluate.gold.answers.gold_columns)
    gold: str | None = None


#: the most points a sweep runs unless told otherwise (--max-points): a grid of a million is a typo
MAX_POINTS = 10_000


def parse_grid(items: Sequence[str]) -> dict[str, list[str]]:
    """`["chunk_size=256,512", "overlap=0,50"]` → `{"chunk_size": ["256", "512"], ...}`."""
    grid: dict[str, list[str]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip()
        vals = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not key or not vals:
            raise UsageError(f"--grid expects KEY=V1,V2,..., got {item!r}")
        if key in grid:
            raise UsageError(f"--grid {key} given twice")
        grid[key] = vals
    return grid


def slug(value: Any) -> str:
    """`value` as a file-name-safe word (letters, digits, . _ -)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", str(value)).strip("-") or "x"


def make_points(inputs: Sequence[str | os.PathLike], grid: Mapping[str, Sequence[Any]], out_dir: str | os.PathLike,
                *, strategy: str = DEFAULT_STRATEGY, fixed: Mapping[str, Any] | None = None,
                questions: str | os.PathLike | None = "auto", retriever: str = "bm25",
                holdout: float | None = None, chunks: tuple[str, str] | None = None,
                baseline: str | None = None, max_points: int | None = None,
                gold: Sequence[str | os.PathLike] = ()) -> list[Point]:
    """Every input × grid point, in input order then grid order (last key varies fastest).

    `grid` may hold `strategy`, and the indexing parameters every strategy takes (INDEX_PARAMS:
    `index_context`, `index_alone`, `index_windows`). With several strategies, a key one of them
    does not have is not applied to it (and the duplicate points that leaves collapse); a key no
    strategy has is a UsageError. A value a strategy rejects makes that point fail without running.
    `holdout`: the share of each input's questions its points are not scored on (Point.holdout).
    `chunks`: (file, chunker name) of another chunker's chunks of the one input, one more point
    (indexed as the fixed indexing parameters say). `baseline`: Point.baseline (checked here).
    A grid of more than `max_points` points (default MAX_POINTS) is refused before anything runs.
    `gold`: gold.json files, each given to the points of the input it names (Point.gold)."""
    from chunkbench.evaluate.retrieval.scoring import INDEX_PARAMS, indexing_params, split_indexing
    from chunkbench.strategies import get_strategy

    grid = {k: list(v) for k, v in grid.items()}
    if any(not v for v in grid.values()):
        raise UsageError("every --grid key needs at least one value")
    strategies = [str(s) for s in grid.pop("strategy", [strategy])]
    fixed = dict(fixed or {})
    known = {s: {p.name for p in (*get_strategy(s).params, *INDEX_PARAMS)} for s in dict.fromkeys(strategies)}
    for key in list(grid) + list(fixed):
        if not any(key in names for names in known.values()):
            allowed = sorted(set().union(*known.values()))
            raise UsageError(f"no swept strategy has a parameter {key!r}; allowed: {', '.join(allowed) or 'none'}")
    keys = list(grid)
    count = len(inputs) * len(strategies) * math.prod(len(v) for v in grid.values())
    limit = MAX_POINTS if max_points is None else max_points
    if count > limit:
        raise UsageError(f"the grid makes {count:,} points ({len(inputs)} inputs × {len(strategies)} strategies × "
                         f"{' × '.join(str(len(v)) for v in grid.values()) or '1'} values), above the bound of "
                         f"{limit:,}: narrow it, or raise the bound with --max-points")
    if chunks is not None and len(set(map(str, inputs))) != 1:
        raise UsageError("--chunks is one document's chunks: give exactly one INPUT with it")
    baseline = _checked_baseline(baseline, inputs)
    golds = gold_for_inputs(inputs, gold)
    points: list[Point] = []
    seen: set = set()
    folders = _input_folders([str(Path(i).resolve()) for i in inputs])
    for inp, folder in folders.items():
        qfile = questions_for(inp, questions)
        for strat in strategies:
            for combo in itertools.product(*(grid[k] for k in keys)):
                values = {k: v for k, v in zip(keys, combo) if k in known[strat]}
                params = {**{k: v for k, v in fixed.items() if k in known[strat]}, **values}
                ident = (inp, strat, tuple(sorted((k, str(v)) for k, v in params.items())))
                if ident in seen:
                    continue
                seen.add(ident)
                error = None
                try:
                    indexing, strategy_params = split_indexing(params, strat)
                    resolved = {**get_strategy(strat).resolve(strategy_params), **indexing_params(indexing)}
                    params = {k: resolved[k] for k in params}
                    values = {k: resolved[k] for k in values}
                except UsageError as exc:
                    error = f"{type(exc).__name__}: {exc}"
                name = "__".join([slug(strat)] + [f"{slug(k)}={slug(v)}" for k, v in values.items()])
                point_dir = Path(out_dir) / "points" / folder / name
                points.append(Point(inp, strat, params, {"strategy": strat, **values}, qfile,
                                    str(point_dir.resolve()), error, folder, retriever, holdout=holdout,
                                    baseline=baseline, gold=golds.get(inp)))
        if chunks is not None:
            points.append(_chunks_point(inp, folder, chunks, fixed, qfile, out_dir, retriever, holdout))
    return points


def gold_for_inputs(inputs: Sequence[str | os.PathLike], golds: Sequence[str | os.PathLike]) -> dict[str, str]:
    """Input (resolved path) -> the gold.json that names it as its document (by file name); a gold
    file that names no input is a usage error, an unreadable one an input error."""
    from chunkbench.evaluate.gold import Gold

    by_name = {Path(i).name: str(Path(i).resolve()) for i in inputs}
    out: dict[str, str] = {}
    for path in golds:
        source = Gold.read(os.fspath(path)).source
        if source not in by_name:
            raise UsageError(f"--gold {os.fspath(path)} is the gold of {source}, which is not among the inputs")
        out[by_name[source]] = str(Path(path).resolve())
    return out


def _checked_baseline(baseline: str | None, inputs: Sequence[str | os.PathLike]) -> str | None:
    """`baseline` as the points hold it: a version file's absolute path (one INPUT only), or a
    setting whose strategy and values are checked now, before any point runs."""
    if baseline is None:
        return None
    if Path(baseline).is_file():
        if len(set(map(str, inputs))) != 1:
            raise UsageError("--stability-against FILE is another version of one document: give exactly one INPUT")
        return str(Path(baseline).resolve())
    from chunkbench.evaluate.diff import parse_spec
    from chunkbench.strategies import get_strategy

    strategy, params = parse_spec(baseline)
    get_strategy(strategy).resolve(params)
    return baseline


def _chunks_point(inp: str, folder: str, chunks: tuple[str, str], fixed: Mapping[str, Any], qfile: str | None,
                  out_dir: str | os.PathLike, retriever: str, holdout: float | None) -> Point:
    """The point of another chunker's chunks file: named by the chunker, indexed as `fixed` says."""
    from chunkbench.evaluate.retrieval.scoring import INDEX_PARAMS

    file, chunker = chunks
    if not Path(file).is_file():
        raise InputError("chunks file not found", file)
    params = {k: v for k, v in fixed.items() if k in {p.name for p in INDEX_PARAMS}}
    point_dir = Path(out_dir) / "points" / folder / f"chunks__{slug(chunker)}"
    return Point(inp, chunker, params, {"strategy": chunker}, qfile, str(point_dir.resolve()), None, folder, retriever,
                 holdout=holdout, chunks_file=str(Path(file).resolve()))


def _input_folders(inputs: Sequence[str]) -> dict[str, str]:
    """input → its folder name under points/: the file stem, numbered when two inputs share one."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for inp in dict.fromkeys(inputs):
        base = slug(Path(inp).stem)
        name, n = base, 1
        while name in used:
            n += 1
            name = f"{base}-{n}"
        used.add(name)
        out[inp] = name
    return out


def questions_for(input_path: str | os.PathLike, questions: str | os.PathLike | None = "auto") -> str | None:
    """The questions file of an input: `"auto"` → `<stem>.questions.json` (or a FinanceBench
    file) beside it when present; None or "" → none; anything else is that file."""
    from chunkbench.evaluate.retrieval import default_questions_path

    if questions in (None, ""):
        return None
    if str(questions) == "auto":
        found = default_questions_path(input_path)
        return str(found) if found else None
    path = Path(questions)
    if not path.is_file():
        raise InputError("questions file not found", path)
    return str(path.resolve())


def collect_params(strategy: str, params: Mapping[str, Any] | None, namespace: Mapping[str, Any]) -> dict:
    """The notebook's strategy parameters: the `params` dict plus any variable in `namespace` named
    like a parameter of `strategy` (so `papermill -p max_chunk_size 1200` works); the variable wins."""
    from chunkbench.strategies import get_strategy

    out = dict(params or {})
    for p in get_strategy(strategy).params:
        if p.name in namespace:
            out[p.name] = namespace[p.name]
    return out
