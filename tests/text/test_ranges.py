"""chunkbench.text.ranges: the one home of range math, checked against brute force."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chunkbench.text.ranges import RangeIndex, blank_gaps, merge_ranges, overlap_length

SPANS = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)).map(lambda t: (min(t), max(t))), max_size=12)


def _points(spans) -> set[int]:
    return {i for a, b in spans for i in range(a, b)}


def test_merge_ranges_by_hand():
    assert merge_ranges([(5, 7), (0, 3), (3, 4), (6, 9), (10, 10)]) == [(0, 4), (5, 9)]


@given(SPANS)
def test_merge_is_the_sorted_disjoint_union(spans):
    merged = merge_ranges(spans)
    assert _points(merged) == _points(spans)
    assert all(a < b for a, b in merged)
    assert all(prev[1] < nxt[0] for prev, nxt in zip(merged, merged[1:])), "sorted, not touching"


@given(SPANS, SPANS)
def test_overlap_length_is_the_size_of_the_intersection(a, b):
    assert overlap_length(merge_ranges(a), merge_ranges(b)) == len(_points(a) & _points(b))


@given(SPANS, st.integers(0, 60), st.integers(1, 20))
def test_touching_and_splits_match_brute_force(spans, a, width):
    b = a + width
    index = RangeIndex(spans)
    expected = sorted(r for r in spans if r[1] > a and r[0] < b)
    assert sorted(index.touching(a, b)) == expected
    assert index.splits(a, b) == (len(expected) >= 2 and not any(lo <= a and hi >= b for lo, hi in expected))


@given(SPANS, st.text(alphabet=" \nab", min_size=60, max_size=60))
def test_blank_gaps_are_the_whitespace_only_holes_between_merged_ranges(spans, text):
    merged = merge_ranges(spans)
    gaps = blank_gaps(merged, text)
    holes = list(zip((b for _, b in merged), (a for a, _ in merged[1:])))
    assert gaps == [(a, b) for a, b in holes if not text[a:b].strip()]
    assert not _points(gaps) & _points(merged)  # never inside a range, never before the first or after the last
