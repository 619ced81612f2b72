"""Return policies: what a RAG pipeline sends for each hit of a retriever, separately from how
the text was chunked, within a budget of tokens. The measure (evaluate.retrieval.budget) and the
frameworks' wrappers (io.context) both run `returned`, the one implementation.

- `hits`: the hit alone;
- `window`: the hit, then the chunk after it, then the one before (fixed ±1);
- `section`: the hit, then the other chunks of its section, nearest first (the parent section);
- `grow`: the hit, then its neighbour on each side whose boundary with it is a size cut (a reason
  of types.chunk.SIZE_CUTS: the size limit cut inside what belongs together), never across a
  heading, a table, a page break or another section. Reason codes make this possible.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

K = TypeVar("K")

#: the return policies, each with what it sends per hit
POLICIES = {
    "hits": "the hit alone",
    "window": "the hit, then the chunk after it and the one before (±1)",
    "section": "the hit, then the rest of its section, nearest first",
    "grow": "the hit, then each neighbour across a size cut (not a heading, table, page or section boundary)",
}
DEFAULT_POLICY = "hits"


def check_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise ValueError(f"return policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    return policy


class Neighbourhood(Protocol[K]):
    """What the return policies need to know around a unit, by its key: the units next to it, its
    section, and whether the cut on each side is a size cut. Units in a list (IndexNeighbourhood)
    and chunks in a framework's store, read from their metadata (io.context), both answer it."""

    def after(self, key: K) -> K | None: ...
    def before(self, key: K) -> K | None: ...
    def section(self, key: K) -> Any: ...
    def cut_after(self, key: K) -> bool: ...
    def cut_before(self, key: K) -> bool: ...


def _window(nb: Neighbourhood, hit: Any) -> Iterator[Any]:
    yield hit
    for key in (nb.after(hit), nb.before(hit)):
        if key is not None:
            yield key


def _section(nb: Neighbourhood, hit: Any) -> Iterator[Any]:
    yield hit
    home = nb.section(hit)
    lo = hi = hit
    while lo is not None or hi is not None:
        hi = nb.after(hi) if hi is not None else None
        hi = hi if hi is not None and nb.section(hi) == home else None
        if hi is not None:
            yield hi
        lo = nb.before(lo) if lo is not None else None
        lo = lo if lo is not None and nb.section(lo) == home else None
        if lo is not None:
            yield lo


def _grow(nb: Neighbourhood, hit: Any) -> Iterator[Any]:
    yield hit
    home = nb.section(hit)
    after, before = nb.after(hit), nb.before(hit)
    if after is not None and nb.cut_after(hit) and nb.section(after) == home:
        yield after
    if before is not None and nb.cut_before(hit) and nb.section(before) == home:
        yield before


_EXTEND: dict[str, Callable[[Neighbourhood, Any], Iterator[Any]]] = {
    "hits": lambda nb, hit: iter((hit,)), "window": _window, "section": _section, "grow": _grow,
}


def returned(nb: Neighbourhood, ranking: Iterable[Any], cost: Callable[[Any], int], budget: int,
             policy: str = DEFAULT_POLICY) -> list[tuple[Any, int, Any]]:
    """(key, tokens taken, the hit that brought it) of what `policy` sends for `ranking` until
    `budget` tokens are filled, in the order sent: each unit once, the last one's tokens cut at the budget. The one implementation
    of a return policy: the measure (sent) and the frameworks' wrappers (io.context) both call it."""
    extend = _EXTEND[check_policy(policy)]
    taken: set[Any] = set()
    out: list[tuple[Any, int, Any]] = []
    spent = 0
    for hit in ranking:
        for key in extend(nb, hit):
            if key in taken:
                continue
            taken.add(key)
            take = min(cost(key), budget - spent)
            out.append((key, take, hit))
            spent += take
            if spent >= budget:
                return out
    return out


