"""Table cells from the PDF's words where the layout model's column lines disagree with them.

The layout model draws a table's grid from the picture of the page; its column lines can cut a
word ("setglobal | .XXX", "packag | e description"), split a column at an ordinary word space
("+ | - * / %% ^"), or miss a column that only white space sets apart (Texinfo's two-column
tables without rules: "Sys.getenv      OS environment variables" as one cell). The PDF's words say
where the text is, so the grid is corrected from them, per table:

- a column line that no line of the table needs (wherever words sit on both sides of it, they are
  no farther apart than the words of a line) is dropped: the two columns are one;
- a column whose lines mostly break at one x, with a gap of several spaces before a word that
  starts there with a letter, on at least MIN_SPLIT_LINES lines, is two columns;
- a word across a column line belongs to the cell holding most of it, unless the next cell holds
  nothing of its own on that row: then the text spans both cells (a header over several columns,
  "13 W | eeks End | ed" is "13 Weeks Ended" in the first, the others empty, as before).

No letter then crosses a cell boundary. Rows whose words fit the model's grid keep the model's text.
"""

from __future__ import annotations

import bisect
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

#: a word must run this far (points) past a column line to count as cut by it
STRADDLE = 1.0
#: a column line is needed where the words on its two sides are more than this many spaces apart
NEEDED_GAP_SPACES = 1.6
#: a gap of at least this many spaces before an aligned word may split a column
SPLIT_GAP_SPACES = 3.0
#: words after such gaps start within this many points of one x to count as one column edge
SPLIT_ALIGN = 2.0
#: ... on at least this many lines, and at least SPLIT_SHARE of the column's lines of two words or more
MIN_SPLIT_LINES = 3
SPLIT_SHARE = 2 / 3


@dataclass(frozen=True)
class Word:
    """One PDF word: its box (points) and text."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def yc(self) -> float:
        return (self.y0 + self.y1) / 2


def corrected_cells(
    cells: Sequence[Sequence[Sequence[float] | None]],
    extract: Sequence[Sequence[str | None]],
    words: Sequence[Word],
) -> list[list[str]] | None:
    """The table's cell texts with the grid corrected from `words` (the page's words inside the
    table), or None when the model's grid already fits them (nothing to change)."""
    lines = column_lines(cells)
    bands = _row_bands(cells)
    if not bands or len(bands) != len(extract):
        return None
    rows = _words_by_row(words, bands)
    space = _space_width(rows)
    if space is None:
        return None
    visual = [_visual_lines(row) for row in rows]
    kept = [x for c, x in enumerate(lines) if _needed(lines, c, visual, space)]
    splits = _splits(kept, visual, space, bands[0][2], bands[0][3])
    grid = sorted(kept + splits)
    regridded = len(kept) != len(lines) or bool(splits)
    out: list[list[str]] = []
    changed = regridded
    for r, row in enumerate(rows):
        if regridded or any(w.x0 < x - STRADDLE and w.x1 > x + STRADDLE for w in row for x in grid):
            out.append(_row_texts(row, grid, space))
            changed = True
        else:
            out.append([cell or "" for cell in extract[r]])
    return out if changed else None


def column_lines(cells: Sequence[Sequence[Sequence[float] | None]]) -> list[float]:
    """The x of each line between two columns: the median right edge of each column but the last."""
    width = max((len(row) for row in cells), default=0)
    lines = []
    for c in range(width - 1):
        edges = [box[2] for row in cells if c < len(row) and (box := row[c]) is not None]
        if edges:
            lines.append(statistics.median(edges))
    return sorted(lines)


def _row_bands(cells: Sequence[Sequence[Sequence[float] | None]]) -> list[tuple[float, float, float, float]]:
    """Each row's (y0, y1) and the table's (x0, x1), from the row's cells."""
    bands = []
    x0 = min((c[0] for row in cells for c in row if c is not None), default=0.0)
    x1 = max((c[2] for row in cells for c in row if c is not None), default=0.0)
    for row in cells:
        boxes = [c for c in row if c is not None]
        if not boxes:
            return []
        bands.append((min(c[1] for c in boxes), max(c[3] for c in boxes), x0, x1))
    return bands


def _words_by_row(words: Sequence[Word], bands: Sequence[tuple[float, float, float, float]]) -> list[list[Word]]:
    """The words of each row: those whose middle lies in its band (and inside the table)."""
    rows: list[list[Word]] = [[] for _ in bands]
    starts = [band[0] for band in bands]
    ordered = starts == sorted(starts)
    for w in words:
        yc = w.yc
        if ordered:  # the rows below the middle cannot hold it; of those above, the nearest two might
            r = bisect.bisect_right(starts, yc)
            candidates: Sequence[int] = range(max(0, r - 2), r)
        else:
            candidates = range(len(bands))
        for r in candidates:
            y0, y1, x0, x1 = bands[r]
            if y0 <= yc < y1 and w.x1 > x0 and w.x0 < x1:
                rows[r].append(w)
                break
    return rows


def _visual_lines(row: Sequence[Word]) -> list[list[Word]]:
    """A row's words as printed lines (middles within half a word's height), each left to right."""
    lines: list[list[Word]] = []
    for w in sorted(row, key=lambda w: (w.yc, w.x0)):
        if lines and abs(lines[-1][0].yc - w.yc) <= (w.y1 - w.y0) / 2:
            lines[-1].append(w)
        else:
            lines.append([w])
    return [sorted(line, key=lambda w: w.x0) for line in lines]


def _space_width(rows: Sequence[Sequence[Word]]) -> float | None:
    """The usual space between two words of a printed line in this table: the lower quartile of
    the gaps (so column gaps do not count), at most half the words' usual height (a table with
    few lines of two words has mostly column gaps); None for a table without words."""
    heights = sorted(w.y1 - w.y0 for row in rows for w in row)
    if not heights:
        return None
    cap = heights[len(heights) // 2] / 2
    gaps = sorted(b.x0 - a.x1 for row in rows for line in _visual_lines(row) for a, b in zip(line, line[1:])
                  if b.x0 - a.x1 > 0)
    return max(min(gaps[len(gaps) // 4], cap) if gaps else cap, 0.5)


def _needed(lines: Sequence[float], c: int, visual: Sequence[Sequence[Sequence[Word]]], space: float) -> bool:
    """Whether column line `c` sets apart words that a line prints apart: some printed line has
    words on both sides of it, in the two columns it parts, more than NEEDED_GAP_SPACES spaces
    apart, or fewer than two lines have them close (no evidence against the model)."""
    edges = [-float("inf"), *lines, float("inf")]
    lo, x, hi = edges[c], edges[c + 1], edges[c + 2]
    close = 0
    for row in visual:
        for line in row:
            if any(w.x0 < x - STRADDLE and w.x1 > x + STRADDLE for w in line):
                close += 1
                continue
            left = [w for w in line if lo - STRADDLE <= w.x0 and w.x1 <= x + STRADDLE]
            right = [w for w in line if x - STRADDLE <= w.x0 and w.x1 <= hi + STRADDLE]
            if not left or not right:
                continue
            if right[0].x0 - left[-1].x1 > NEEDED_GAP_SPACES * space:
                return True
            close += 1
    return close < 2


def _splits(lines: Sequence[float], visual: Sequence[Sequence[Sequence[Word]]], space: float,
            x0: float, x1: float) -> list[float]:
    """Column edges inside the columns between `lines` that the words show (see the module docstring)."""
    edges = [x0, *lines, x1]
    found = []
    for a, b in zip(edges, edges[1:]):
        candidates: list[float] = []
        multi = 0
        for row in visual:
            for line in row:
                inside = [w for w in line if w.x0 >= a - STRADDLE and w.x1 <= b + STRADDLE]
                if len(inside) < 2:
                    continue
                multi += 1
                for left, right in zip(inside, inside[1:]):
                    if right.x0 - left.x1 >= SPLIT_GAP_SPACES * space and right.text[:1].isalpha():
                        candidates.append(right.x0)
                        break
        if not candidates:
            continue
        anchor = statistics.median(candidates)
        support = sum(abs(c - anchor) <= SPLIT_ALIGN for c in candidates)
        if support >= MIN_SPLIT_LINES and support >= SPLIT_SHARE * multi:
            found.append(anchor - SPLIT_ALIGN)
    return found


def _row_texts(row: Sequence[Word], grid: Sequence[float], space: float) -> list[str]:
    """A row's cell texts from its words on the column lines `grid`: each word in the cell holding
    most of it; but where a phrase (a word cut by a line, or a line of running text) runs across a
    column line and the cell beyond holds no phrase of its own, the two cells are one, its text in
    the first and the other left empty (a header spanning columns, a sentence between two tables)."""
    edges = [-float("inf"), *grid, float("inf")]

    def most(w: Word) -> int:
        shares = [min(w.x1, edges[c + 1]) - max(w.x0, edges[c]) for c in range(len(edges) - 1)]
        return max(range(len(shares)), key=lambda c: (shares[c], -c))

    phrases = _phrases(row, space)
    spans = list(range(len(edges) - 1))  # the cell each column's text goes to
    for c in range(1, len(spans)):
        x = edges[c]
        across = any(a < x - STRADDLE and b > x + STRADDLE for a, b in phrases)
        own = any(a >= x - STRADDLE and b <= edges[c + 1] + STRADDLE for a, b in phrases)
        if across and not own:
            spans[c] = spans[c - 1]
    cells: list[list[Word]] = [[] for _ in spans]
    for w in row:
        cells[spans[most(w)]].append(w)
    return ["\n".join(" ".join(w.text for w in line) for line in _visual_lines(words)) for words in cells]


def _phrases(row: Sequence[Word], space: float) -> list[tuple[float, float]]:
    """The x extents of the row's phrases: runs of words on one printed line no farther apart than
    NEEDED_GAP_SPACES spaces (a line of running text is one phrase; a column gap ends one, and so
    does a word printed over the one before it, a cell's text running into the next cell's)."""
    out = []
    for line in _visual_lines(row):
        start, end = line[0].x0, line[0].x1
        for w in line[1:]:
            if not -STRADDLE <= w.x0 - end <= NEEDED_GAP_SPACES * space:  # a column gap, or printed over
                out.append((start, end))
                start = w.x0
            end = max(end, w.x1)
        out.append((start, end))
    return out
