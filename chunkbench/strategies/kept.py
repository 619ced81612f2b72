"""What strategies keep between re-chunks of one Document, owned by whoever re-chunks it.

Moving a slider in the explorer re-chunks the same Document many times: the elements strategy keeps
its walk (the stretches between structural boundaries, each chunked once per size), the tokens
strategy its element layout and the text's tokens (and evaluate.proxy a document's queries). That
state belongs to whoever re-chunks (the explorer's state, a sweep run's in-process points) and dies with it:
`chunk(doc, name, kept=KeptState())`. A chunking without one keeps nothing, so a strategy is a
function of (document, parameters, kept state)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from chunkbench.runtime import KeptWhileAlive

V = TypeVar("V")


class KeptState:
    """Per kind of work (a strategy's name; "proxy" for evaluate.proxy's queries of a document), the
    values made from the `size` Documents it most recently did (not kept alive by them). Safe to
    share between the threads of one owner."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._by_strategy: dict[str, KeptWhileAlive[Any]] = {}
        self._lock = threading.Lock()

    def get(self, strategy: str, doc: Any, key: Hashable, make: Callable[[], V]) -> V:
        """What `strategy` (or another kind of work) keeps for (`doc`, `key`), made by `make()` the first time."""
        with self._lock:
            kept = self._by_strategy.setdefault(strategy, KeptWhileAlive(self.size))
        return kept.get(doc, key, make)


def kept_or_made(kept: KeptState | None, strategy: str, doc: Any, key: Hashable, make: Callable[[], V]) -> V:
    """`kept`'s value for (strategy, doc, key), or `make()`'s, not kept, when there is no owner."""
    return make() if kept is None else kept.get(strategy, doc, key, make)


__all__ = ["KeptState", "kept_or_made"]
