"""The chunking strategies, listed explicitly, and `chunk()`, the one entry point to them.

Each built-in module declares its `STRATEGY` (see base.py); importing a module registers nothing,
and REGISTRY below is the list of built-ins. Other libraries' chunkers (`peers.PEERS`, named
`library:Class`) join when their library is installed, on first use of a `library:` name or of
`all_strategies()`: the CLI, the explorer, sweeps and the tests read that one list."""

from __future__ import annotations

import functools
from typing import Any

from chunkbench.errors import ParamError
from chunkbench.runtime import paused_gc
from chunkbench.types.chunk import with_section_paths
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document
from chunkbench.types.ids import document_key, with_stable_ids

from . import contract, elements, headers, recursive, sections, semantic, sentences, tokens
from .base import Strategy
from .kept import KeptState
from .spans import repeat_table_header

#: the strategy a command, the explorer or a sweep uses when none is named
DEFAULT_STRATEGY = "elements"

REGISTRY: dict[str, Strategy] = {
    s.name: s
    for s in (elements.STRATEGY, contract.STRATEGY, headers.STRATEGY, sections.STRATEGY, tokens.STRATEGY,
              recursive.STRATEGY, sentences.STRATEGY, semantic.STRATEGY)
}


_PEERS: dict[str, Strategy] | None = None


def peer_strategies() -> dict[str, Strategy]:
    """The installed peers' strategies, discovered once (importing their libraries takes a moment)."""
    global _PEERS
    if _PEERS is None:
        from .peers import installed_peers

        _PEERS = {s.name: s for s in installed_peers()}
    return _PEERS


def get_strategy(name: str) -> Strategy:
    """The strategy `name` (built-in, or an installed peer's `library:Class`), or ParamError listing them.
    Only the named peer's library is imported (all of them took 3.5 s: `stats` of another chunker's
    chunks asked for its name)."""
    if name in REGISTRY:
        return REGISTRY[name]
    found = peer_strategies().get(name) if _PEERS is not None else _one_peer(name)
    if found is not None:
        return found
    hint = ""
    if ":" in name:
        from .peers import PEERS

        known = {p.name: p.module for p in PEERS}
        hint = (f" ({known[name]} is not installed)" if name in known
                else f"; peers chunkbench knows: {', '.join(known)}")
    raise ParamError(f"unknown strategy {name!r}{hint}; available: {', '.join(strategy_names(slow=True))}")


@functools.cache
def _one_peer(name: str) -> Strategy | None:
    """The installed peer `name`, its library imported; None when there is none by that name, or it
    does not load (installed but broken)."""
    from .peers import PEERS, declare_peer

    peer = next((p for p in PEERS if p.name == name and p.installed), None)
    try:
        return declare_peer(peer) if peer is not None else None
    except (ImportError, AttributeError):
        return None


def all_strategies(*, peers: bool = True, slow: bool = False) -> list[Strategy]:
    """Every strategy, built-ins by name, then the installed peers by name (`peers=False`: built-ins
    only). Slow ones (an embedder run on every sentence: `Strategy.slow`) only with `slow=True`: what
    a user picks from (the CLI's list, the explorer) has them, loops over every strategy (tests) do not."""
    builtin = [REGISTRY[n] for n in sorted(REGISTRY)]
    found = [s for _, s in sorted(peer_strategies().items())] if peers else []
    return [s for s in builtin + found if slow or not s.slow]


def strategy_names(*, slow: bool = False) -> list[str]:
    """The names `all_strategies` lists, without importing the peers' libraries (seconds): what a
    picker shows before anyone picks (the explorer); a peer that is installed but broken fails
    when picked, with its error."""
    from .peers import PEERS

    builtin = [n for n in sorted(REGISTRY) if slow or not REGISTRY[n].slow]
    return builtin + sorted(p.name for p in PEERS if p.installed and (slow or not p.slow))


def chunk(doc: Document, strategy: str, *, kept: KeptState | None = None, **params: Any) -> ChunkSet:
    """Chunk `doc` with the named strategy; unknown names or bad values raise ParamError. `kept`:
    the re-chunking owner's KeptState (the explorer's, a sweep's), whose kept work a strategy reuses
    (the same chunks, sooner); without it nothing is kept."""
    strat = get_strategy(strategy)
    if kept is not None and not isinstance(kept, KeptState):  # `--set kept=...` from a user
        strat.resolve({"kept": kept})  # the ParamError naming the parameters it has
    resolved = strat.resolve(params)
    with paused_gc():
        result = strat.func(doc, kept=kept, **resolved) if strat.uses_kept else strat.func(doc, **resolved)
        chunks = with_section_paths(doc, result.chunks)  # every chunk says which section it is in
        prefix = strat.id_prefix(doc, resolved) if strat.id_prefix is not None else document_key(doc)
        chunks = with_stable_ids(chunks, prefix, as_uuid=strat.uuid_ids)  # ids that survive change
        if strat.size_limit is not None:  # pieces of a table cut at rows repeat its header
            limit, unit = strat.size_limit(resolved)
            chunks = tuple(repeat_table_header(doc, c, limit, unit) for c in chunks)
    return ChunkSet(
        doc=doc,
        strategy=strat.name,
        params=resolved,
        chunks=chunks,
        ruleset=strat.ruleset,
        skipped=dict(result.skipped),
    )


