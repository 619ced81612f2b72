"""A recall margin for choosing the best setting (`chunkbench evaluate --recall-margin`): the best
must beat the baseline's token recall by some standard errors of the difference, or by some points,
not merely match it. A best chosen at a recall just above the baseline's often loses to it on new
questions (benchmarks/selection_rules.py measures how often, docs/evaluation.md reports it)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from chunkbench.errors import UsageError

#: units of a margin: standard errors of the paired recall difference, or percentage points
UNITS = ("se", "pt")
_SPEC = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(se|pt)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class RecallMargin:
    """How much more token recall than the baseline's the best setting needs: `amount` standard
    errors of its paired recall difference ("se") or `amount` percentage points ("pt")."""

    amount: float
    unit: str

    def __post_init__(self) -> None:
        if self.unit not in UNITS or not self.amount >= 0:
            raise ValueError(f"a recall margin is an amount >= 0 in {UNITS}, got {self.amount} {self.unit}")

    @classmethod
    def parse(cls, text: str, option: str = "--recall-margin") -> RecallMargin:
        """"1se", "0.5 se", "2pt": a UsageError naming the `option` and the text otherwise."""
        m = _SPEC.fullmatch(text or "")
        if m is None:
            raise UsageError(f"{option}: expected a number followed by se (standard errors) or pt "
                             f"(percentage points), e.g. 1se or 2pt; got {text!r}")
        return cls(float(m.group(1)), m.group(2).lower())

    def needed(self, recall_diff_se: float | None) -> float:
        """The recall (a fraction) a setting needs above the baseline's, given the standard error of
        its paired recall difference (None when there is no question to take it from: 0)."""
        if self.unit == "pt":
            return self.amount / 100
        return self.amount * (recall_diff_se or 0.0)

    def __str__(self) -> str:
        return f"{self.amount:g} {'SE' if self.unit == 'se' else 'pt'}"


def difference_se(values: Sequence[float], reference: Sequence[float]) -> float | None:
    """Standard error of the mean paired difference values[i] - reference[i] (sample standard
    deviation over the square root of the count); None for fewer than two pairs."""
    n = len(values)
    if n != len(reference):
        raise ValueError(f"{n} values for {len(reference)} reference values")
    if n < 2:
        return None
    diffs = [v - r for v, r in zip(values, reference)]
    mean = sum(diffs) / n
    return round(math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n), 6)
