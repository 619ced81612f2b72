"""The built-in chunking strategies, listed explicitly, and `chunk()`, the one entry point to them.

Each module declares its `STRATEGY` (see base.py); importing a module registers nothing, and the
list below is the registry: the CLI, the explorer, sweeps, the tests and the docs tables read it."""

from __future__ import annotations

import gc
from typing import Any

from chunkbench.errors import ParamError
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document

from . import contract, elements, headers, recursive, sections, sentences, tokens
from .base import Strategy

REGISTRY: dict[str, Strategy] = {
    s.name: s
    for s in (elements.STRATEGY, contract.STRATEGY, headers.STRATEGY, sections.STRATEGY, tokens.STRATEGY,
              recursive.STRATEGY, sentences.STRATEGY)
}


def get_strategy(name: str) -> Strategy:
    """The registered strategy `name`, or ParamError listing the registered names."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ParamError(f"unknown strategy {name!r}; available: {', '.join(sorted(REGISTRY))}") from None


def all_strategies() -> list[Strategy]:
    """Every registered strategy, by name."""
    return [REGISTRY[n] for n in sorted(REGISTRY)]


def chunk(doc: Document, strategy: str, **params: Any) -> ChunkSet:
    """Chunk `doc` with the named strategy; unknown names or bad values raise ParamError."""
    strat = get_strategy(strategy)
    resolved = strat.resolve(params)
    # Strategies allocate many small objects and no reference cycles; the cyclic collector's
    # passes over them made chunking grow faster than linearly (16x input, up to 21x time).
    paused = gc.isenabled()
    gc.disable()
    try:
        result = strat.func(doc, **resolved)
    finally:
        if paused:
            gc.enable()
    return ChunkSet(
        doc=doc,
        strategy=strat.name,
        params=resolved,
        chunks=tuple(result.chunks),
        ruleset=strat.ruleset,
        skipped=dict(result.skipped),
    )
