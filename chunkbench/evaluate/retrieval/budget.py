"""Recall at a context budget: what a RAG pipeline pays for is the context it sends the
model, a budget of tokens. The ranked units are sent in order until B cl100k tokens are filled (the
last one cut at the budget, in proportion to its characters), and recall@B is the share of the
reference span inside what was sent. Several budgets cut one ranking: no second retrieval.

A return policy (io.return_policy: `hits`, `window`, `section`, `grow`) says what is sent for each
hit, separately from how the text was chunked; neighbours' tokens count against the budget like
the hits'."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunkbench.io.return_policy import DEFAULT_POLICY, check_policy, returned
from chunkbench.text.ranges import Span
from chunkbench.text.tokenizer import count_tokens

if TYPE_CHECKING:
    from .units import RetrievalUnit

#: the budgets (cl100k tokens) recall is measured at unless told otherwise
BUDGETS = (500, 1000, 2000)


@dataclass(frozen=True)
class BudgetSpec:
    """The budgets recall is measured at and the return policy that fills them (`evaluate --budgets
    --return-policy`), carried through the benchmark's scoring as one value."""

    budgets: tuple[int, ...] = BUDGETS
    policy: str = DEFAULT_POLICY

    def __post_init__(self) -> None:
        check_policy(self.policy)
        if any(b < 1 for b in self.budgets):
            raise ValueError(f"every budget must be at least 1 token, got {list(self.budgets)}")

    @classmethod
    def parse(cls, budgets: str | None, policy: str | None = None) -> BudgetSpec:
        """From the CLI's "500,1000,2000" (None: the defaults; "none": no budget) and a policy name."""
        values: tuple[int, ...]
        if budgets is None:
            values = BUDGETS
        elif budgets.strip().lower() == "none":
            values = ()
        else:
            try:
                values = tuple(sorted({int(b) for b in budgets.split(",") if b.strip()}))
            except ValueError:
                raise ValueError(f"--budgets takes whole numbers of tokens like 500,1000,2000, got {budgets!r}") from None
        return cls(values, policy or DEFAULT_POLICY)


def unit_tokens(units: Sequence[RetrievalUnit]) -> list[int]:
    """The cl100k tokens of each unit's own text: what sending it costs."""
    return [count_tokens(u.text) for u in units]


def budget_keys(budgets: Sequence[int]) -> list[str]:
    """The per-question keys `evaluate` adds for `budgets`: recall and tokens sent at each."""
    return [f"budget_{what}@{b}" for b in budgets for what in ("recall", "tokens")]


def budget_measures(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The budget keys the question rows hold, in budget order (what pooled tables average)."""
    keys = {k for row in rows for k in row if k.startswith("budget_") and "@" in k}
    return sorted(keys, key=lambda k: (int(k.rpartition("@")[2]), k))


class IndexNeighbourhood:
    """The neighbourhood of units in document order, keyed by their index."""

    def __init__(self, units: Sequence[RetrievalUnit]):
        self.units = units

    def after(self, key: int) -> int | None:
        return key + 1 if key + 1 < len(self.units) else None

    def before(self, key: int) -> int | None:
        return key - 1 if key > 0 else None

    def section(self, key: int) -> tuple[str, ...]:
        return self.units[key].section

    def cut_after(self, key: int) -> bool:
        return self.units[key].cut_after

    def block(self, key: int) -> str | None:
        return self.units[key].block

    def cut_before(self, key: int) -> bool:
        return self.units[key].cut_before


def sent(units: Sequence[RetrievalUnit], tokens: Sequence[int], ranking: Sequence[int], budget: int,
         policy: str = DEFAULT_POLICY) -> tuple[list[Span], int]:
    """The character ranges sent for one question's `ranking` under `policy` until `budget` tokens
    are filled, and the tokens sent; the last unit's range is cut in proportion to its tokens taken."""
    ranges: list[Span] = []
    spent = 0
    for i, take, _ in returned(IndexNeighbourhood(units), ranking, tokens.__getitem__, budget, policy):
        u, t = units[i], tokens[i]
        if u.start is not None and u.end is not None and take > 0:
            ranges.append((u.start, u.end if take == t else u.start + (u.end - u.start) * take // max(t, 1)))
        spent += take
    return ranges, spent
