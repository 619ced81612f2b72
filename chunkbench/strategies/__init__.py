"""The built-in chunking strategies, listed explicitly: each module declares its `STRATEGY`
(see base.py); importing a module registers nothing, and this list is the registry."""

from __future__ import annotations

from ..errors import ParamError
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
