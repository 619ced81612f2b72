"""A setting: the system a benchmark scores, a strategy with its parameters or the baseline splitter,
each indexed as its index parameters say. Apart from the benchmark itself so that naming a
setting (the retrieval default, `chunkbench chunk --for-retrieval`) loads no scoring code."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .retrieval.scoring import Indexing, split_indexing

#: the key of the baseline system's rows (their `strategy`)
BASELINE = "langchain-recursive"
#: how the baseline is named in every table and line: the strategy `chunk`, `evaluate` and `sweep`
#: take, so a printed setting can be pasted back (`--strategy NAME --set k=v ...`)
BASELINE_STRATEGY = "langchain:RecursiveCharacterTextSplitter"


@dataclass(frozen=True)
class Setting:
    """One system to evaluate: a strategy with parameters, or the baseline splitter (strategy None)."""

    strategy: str | None
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.indexing  # noqa: B018 (checked once made: a bad value is a usage error before any work)

    @property
    def indexing(self) -> Indexing:
        """How each unit is indexed (INDEX_PARAMS: neighbours each side, also alone, also by pieces of its sentences)."""
        return split_indexing(self.params, self.strategy or BASELINE)[0]

    @property
    def strategy_params(self) -> dict[str, Any]:
        """The parameters the strategy (or the baseline splitter) is called with: all but the indexing ones."""
        return split_indexing(self.params, self.strategy or BASELINE)[1]

    @property
    def name(self) -> str:
        label = self.strategy or BASELINE_STRATEGY
        args = " ".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{label} {args}".strip()
