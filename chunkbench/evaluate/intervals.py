"""Paired bootstrap confidence intervals for the difference between two settings scored on the same
questions: is a setting's gain over the baseline more than the luck of which questions were asked?

Questions are resampled with replacement within each group (document), so every resample keeps the
corpus's mix of documents; both settings are scored on the same resampled questions (paired), which
is what makes small differences on a shared question set measurable. Seeded: the same scores give
the same intervals."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: resamples per interval: 1,000 puts the 2.5/97.5 percentiles within about 0.3 points of their limit
RESAMPLES = 1000
#: two-sided confidence level of every interval
LEVEL = 0.95
#: the seed of the resampling (fixed: the same scores give byte-identical intervals)
SEED = 0


class PairedBootstrap:
    """One set of resampled question indices, shared by every comparison against the baseline."""

    def __init__(self, groups: Sequence[int], resamples: int = RESAMPLES, seed: int = SEED):
        rng = np.random.default_rng(seed)
        group_of = np.asarray(groups, dtype=np.int64)
        self.size = len(group_of)
        columns = []
        for g in sorted(set(group_of.tolist())):
            members = np.flatnonzero(group_of == g)
            columns.append(members[rng.integers(0, len(members), size=(resamples, len(members)))])
        self._index = np.concatenate(columns, axis=1) if columns else np.zeros((resamples, 0), dtype=np.int64)

    def means(self, values: Sequence[float] | np.ndarray) -> np.ndarray:
        """The mean of `values` (one per question) in every resample."""
        v = np.asarray(values, dtype=np.float64)
        if len(v) != self.size:
            raise ValueError(f"{len(v)} values for {self.size} questions")
        return v[self._index].mean(axis=1) if self.size else np.zeros(len(self._index))

    def gain_interval(self, values: Sequence[float], reference: Sequence[float]) -> tuple[float, float] | None:
        """Interval of the relative gain mean(values) / mean(reference) - 1 (None when the
        reference's mean is 0 in every resample)."""
        ref = self.means(reference)
        ok = ref > 0
        if not ok.any():
            return None
        return _percentiles(self.means(values)[ok] / ref[ok] - 1.0)

    def difference_interval(self, values: Sequence[float], reference: Sequence[float]) -> tuple[float, float]:
        """Interval of the difference of means, mean(values) - mean(reference)."""
        return _percentiles(self.means(np.asarray(values, dtype=np.float64) - np.asarray(reference, dtype=np.float64)))


def _percentiles(samples: np.ndarray) -> tuple[float, float]:
    tail = 100 * (1 - LEVEL) / 2
    lo, hi = np.percentile(samples, [tail, 100 - tail])
    return round(float(lo), 4), round(float(hi), 4)


def excludes_zero(interval: Sequence[float] | None) -> bool:
    """Whether an interval lies wholly above or below 0: a difference beyond chance at LEVEL."""
    return interval is not None and (interval[0] > 0 or interval[1] < 0)
