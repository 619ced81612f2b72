"""Half-open character ranges [a, b): union, intersection length, and "which ranges touch [a, b)".

The one home of range math for metrics (coverage, split spans), retrieval scoring (token IoU) and
anything else that compares spans of `doc.text`.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence

Span = tuple[int, int]


def merge_ranges(ranges: Iterable[Span]) -> list[Span]:
    """Union of half-open ranges, sorted, touching ranges joined; empty ranges dropped."""
    out: list[Span] = []
    for a, b in sorted(r for r in ranges if r[1] > r[0]):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


_VISIBLE = re.compile(r"\S")


def blank_gaps(merged: Sequence[Span], text: str) -> list[Span]:
    """The gaps between consecutive merged ranges that hold only whitespace of `text` (the space
    between two chunks that abut, which neither holds). Each gap is scanned only up to its first
    visible character, not copied: far-apart ranges cost nothing."""
    return [(a, b) for (_, a), (b, _) in zip(merged, merged[1:]) if not _VISIBLE.search(text, a, b)]


def overlap_length(a: Sequence[Span], b: Sequence[Span]) -> int:
    """Length of the intersection of two merged range lists (linear merge)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


class RangeIndex:
    """Ranges sorted by start, answering "which ranges touch [a, b)" in about O(answer) time."""

    def __init__(self, ranges: Iterable[Span | None]):
        self.ranges = sorted(r for r in ranges if r is not None)
        self.starts = [a for a, _ in self.ranges]
        self.max_end = list(itertools.accumulate((b for _, b in self.ranges), max))

    def touching(self, a: int, b: int) -> list[Span]:
        out = []
        j = bisect.bisect_left(self.starts, b) - 1
        while j >= 0 and self.max_end[j] > a:
            lo, hi = self.ranges[j]
            if hi > a and lo < b:
                out.append((lo, hi))
            j -= 1
        return out

    def splits(self, a: int, b: int) -> bool:
        """Whether [a, b) is split: two or more ranges touch it and none contains all of it."""
        touching = self.touching(a, b)
        return len(touching) >= 2 and not any(lo <= a and hi >= b for lo, hi in touching)
