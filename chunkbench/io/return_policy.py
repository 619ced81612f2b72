"""Return policies: what a RAG pipeline sends for each hit of a retriever, separately from how
the text was chunked, within a budget of tokens. The measure (evaluate.retrieval.budget) and the
frameworks' wrappers (io.context) both run `returned`, the one implementation.

- `hits`: the hit alone;
- `window`: the hit, then the chunk after it, then the one before (fixed ±1);
- `section`: the hit, then the other chunks of its section, nearest first (the parent section);
- `grow`: the hit, then its neighbour on each side whose boundary with it is a size cut (a reason
  of types.chunk.SIZE_CUTS: the size limit cut inside what belongs together), never across a
  heading, a table, a page break or another section. Reason codes make this possible.
- `structure`: the hit, then the rest of its structural block (types.blocks: its list with the
  lead-in, its table, its term and description, its paragraph), nearest first, then the rest of
  its section when all of it fits in what is left of the budget and the ranking points at it (two
  of the first five hits lie in it): a whole answer where one fits, never the budget spent on the
  half of a section. The first three hits' blocks go before any section.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

K = TypeVar("K")

#: the return policies, each with what it sends per hit
POLICIES = {
    "hits": "the hit alone",
    "window": "the hit, then the chunk after it and the one before (±1)",
    "section": "the hit, then the rest of its section, nearest first",
    "grow": "the hit, then each neighbour across a size cut (not a heading, table, page or section boundary)",
    "structure": "the hit, then the rest of its list, table, definition or paragraph, then its whole section if it fits",
}
#: what the measure sends unless told otherwise: each hit alone, as a plain retriever returns it
DEFAULT_POLICY = "hits"
#: what the retrieval default is sent with, and the budget wrappers' default: the hit and the pieces
#: a size limit cut from it; the default's group index texts already rank a whole list or section
#: together when the question needs it (docs/context-budget.md)
RETRIEVAL_POLICY = "grow"


def check_policy(policy: str) -> str:
    if policy not in POLICIES:
        raise ValueError(f"return policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    return policy


class Neighbourhood(Protocol[K]):
    """What the return policies need to know around a unit, by its key: the units next to it, its
    section, whether the cut on each side is a size cut, and its structural block (None: unknown). Units in a list (IndexNeighbourhood)
    and chunks in a framework's store, read from their metadata (io.context), both answer it."""

    def after(self, key: K) -> K | None: ...
    def before(self, key: K) -> K | None: ...
    def section(self, key: K) -> Any: ...
    def cut_after(self, key: K) -> bool: ...
    def cut_before(self, key: K) -> bool: ...
    def block(self, key: K) -> Any: ...


Cost = Callable[[Any], int]
#: `structure` sends the blocks of this many hits before any hit's section: a wrong first hit's
#: section does not take the budget from a right second or third hit's block
FIRST_HITS = 3
#: `structure` sends a hit's whole section only when the section holds at least SECTION_VOTES of the
#: first SECTION_VOTERS hits: a question about a section finds several of its pieces, a question
#: about one definition or cell finds one piece in each of several places
SECTION_VOTERS, SECTION_VOTES = 5, 2


def _window(nb: Neighbourhood, hit: Any) -> Iterator[Any]:
    yield hit
    for key in (nb.after(hit), nb.before(hit)):
        if key is not None:
            yield key


def _nearest(nb: Neighbourhood, hit: Any, home: Callable[[Any], Any]) -> Iterator[Any]:
    """The units around `hit` with the same `home` value as it (its section, its block), nearest
    first, the one after before the one before; not `hit` itself."""
    mine = home(hit)
    lo = hi = hit
    while lo is not None or hi is not None:
        hi = nb.after(hi) if hi is not None else None
        hi = hi if hi is not None and home(hi) == mine else None
        if hi is not None:
            yield hi
        lo = nb.before(lo) if lo is not None else None
        lo = lo if lo is not None and home(lo) == mine else None
        if lo is not None:
            yield lo


def _section(nb: Neighbourhood, hit: Any) -> Iterator[Any]:
    yield hit
    yield from _nearest(nb, hit, nb.section)


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


def _structure(nb: Neighbourhood, ranking: Iterable[Any], cost: Cost, left: Callable[[], int],
               taken: set) -> Iterator[tuple[Any, Any]]:
    """(unit, the hit that brought it) of `structure`: the blocks of the first FIRST_HITS hits, then
    each of their sections that fits whole in what is left and that the ranking points at (it holds
    SECTION_VOTES of the first SECTION_VOTERS hits), then hit by hit, block then such a section."""

    def block(hit: Any) -> Iterator[tuple[Any, Any]]:
        yield hit, hit
        if nb.block(hit) is not None:
            yield from ((k, hit) for k in _nearest(nb, hit, nb.block))

    def section(hit: Any) -> Iterator[tuple[Any, Any]]:
        rest, spend, room = [], 0, left()
        for key in _nearest(nb, hit, nb.section):
            if key not in taken:
                spend += cost(key)
                if spend > room:
                    return  # the section does not fit whole: none of it
                rest.append(key)
        yield from ((k, hit) for k in rest)

    ranking = iter(ranking)
    first = list(itertools.islice(ranking, max(FIRST_HITS, SECTION_VOTERS)))
    votes = Counter(nb.section(hit) for hit in first[:SECTION_VOTERS])
    for hit in first[:FIRST_HITS]:
        yield from block(hit)
    for hit in first[:FIRST_HITS]:
        if votes[nb.section(hit)] >= SECTION_VOTES:
            yield from section(hit)
    for hit in itertools.chain(first[FIRST_HITS:], ranking):
        yield from block(hit)
        if votes[nb.section(hit)] >= SECTION_VOTES:
            yield from section(hit)


#: policies that plan over the whole ranking (they weigh what is left) rather than hit by hit
_PLANS = {"structure": _structure}


def returned(nb: Neighbourhood, ranking: Iterable[Any], cost: Callable[[Any], int], budget: int,
             policy: str = DEFAULT_POLICY) -> list[tuple[Any, int, Any]]:
    """(key, tokens taken, the hit that brought it) of what `policy` sends for `ranking` until
    `budget` tokens are filled, in the order sent: each unit once, the last one's tokens cut at the budget. The one implementation
    of a return policy: the measure (sent) and the frameworks' wrappers (io.context) both call it."""
    check_policy(policy)
    taken: set[Any] = set()
    out: list[tuple[Any, int, Any]] = []
    spent = 0

    def left() -> int:
        return budget - spent

    if policy in _PLANS:
        plan = _PLANS[policy](nb, ranking, cost, left, taken)
    else:
        extend = _EXTEND[policy]
        plan = ((key, hit) for hit in ranking for key in extend(nb, hit))
    for key, hit in plan:
        if key in taken:
            continue
        taken.add(key)
        take = min(cost(key), budget - spent)
        out.append((key, take, hit))
        spent += take
        if spent >= budget:
            return out
    return out


