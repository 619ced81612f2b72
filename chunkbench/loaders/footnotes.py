"""Footnotes that the layout model boxed as paragraphs, typed footnote.

The model often calls a page's footnotes `text` (the Federal Register: "2 The flight control
system …" in 7 pt at the foot of each 9 pt column). As paragraphs they stand between a paragraph
and its continuation in the next column, so the join of the two halves fails ("… airspeed
disagree alert, and" | footnotes 1–4 | "altitude disagree alert, …") or takes a footnote for the
paragraph it continues. A run of paragraphs, one after another in reading order on one page, is
footnotes when:

* each is set smaller than the body text: its most common font size is at most `SMALLER` × the
  size most of the document's paragraph characters are set in;
* each is at the foot of its column: below it in the column (content that overlaps it
  horizontally, lower on the page) lies nothing but furniture, footnotes and the run itself;
* body text lies above the run in its column (a page set in small type throughout is no foot);
* at least one opens with a note mark ("2 The", "* Includes", "†"), and the first opens with
  one or in lower case (the rest of a note begun at the foot of the previous column).

A footnote keeps `raw_type` `text`; `attrs["reclassified"]` says why. PDF loader only, before
the paragraph joins, which pass over footnotes (`paragraphs`).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence

from chunkbench.types.document import Element, is_noise

#: what a parse records in ParserInfo.options: how many paragraphs became footnotes
OPTION = "footnotes_from_paragraphs"
#: a footnote's type is at most this fraction of the body text's size
SMALLER = 0.9
#: a note's mark as a note opens with it: a number and a space, or a note sign ("2 The", "*Includes")
NOTE_MARK = r"(?:\d{1,3}\s|[*†‡§¶]\s?)"
_MARK = re.compile(rf"{NOTE_MARK}\S")
#: points by which boxes must overlap horizontally to share a column, or differ in height to be "below"
_TOLERANCE = 2.0
WHY = "small type under the body text at a column's foot, opening with a note mark"


def heaviest_size(weight: Mapping[float, int]) -> float | None:
    """The font size with the most characters set in it (the larger on a tie); None when no
    size has any. Used for a box's own size and for the document's body size."""
    return max(weight, key=lambda s: (weight[s], s)) if any(weight.values()) else None


def body_size(elements: Sequence[Element], sizes: Mapping[str, float]) -> float | None:
    """The font size most of the paragraphs' characters are set in (None when none is known)."""
    weight: Counter[float] = Counter()
    for e in elements:
        if e.type == "paragraph" and sizes.get(e.id):
            weight[sizes[e.id]] += len(e.text)
    return heaviest_size(weight)


def footnotes_from_paragraphs(elements: Sequence[Element], sizes: Mapping[str, float]) -> tuple[list[Element], int]:
    """`elements` with every paragraph that is a footnote (see the module docstring) retyped as
    one, and how many were; `sizes` is each paragraph's most common font size, by element id."""
    body = body_size(elements, sizes)
    if body is None:
        return list(elements), 0
    small = {e.id for e in elements if e.type == "paragraph" and 0 < sizes.get(e.id, 0) <= SMALLER * body}
    if not small:
        return list(elements), 0
    by_page: dict[int, list[Element]] = defaultdict(list)
    for e in elements:
        if e.page_idx is not None and e.bbox is not None and not is_noise(e) and not e.is_empty:
            by_page[e.page_idx].append(e)
    found: set[str] = set()
    for page in by_page.values():
        found.update(e.id for run in _foot_runs(page, small) if _is_notes(run, page, small) for e in run)
    if not found:
        return list(elements), 0
    return [dataclasses.replace(e, type="footnote", attrs={**e.attrs, "reclassified": WHY})
            if e.id in found else e for e in elements], len(found)


def _foot_runs(page: Sequence[Element], small: set[str]) -> list[list[Element]]:
    """Runs of consecutive small paragraphs of one page, each of which has only footnotes and
    small paragraphs below it in its column."""
    runs: list[list[Element]] = []
    run: list[Element] = []
    blockers = [o for o in page if o.id not in small and o.type != "footnote"]  # few on a page of small type
    for e in page:
        if e.id in small and not _column(e, blockers, below=True):
            run.append(e)
            continue
        if run:
            runs.append(run)
        run = []
    if run:
        runs.append(run)
    return runs


def _is_notes(run: Sequence[Element], page: Sequence[Element], small: set[str]) -> bool:
    """Whether a run of small paragraphs at a column's foot reads as notes under body text."""
    first = run[0]
    return ((bool(_MARK.match(first.text)) or first.text[:1].islower())
            and any(_MARK.match(e.text) for e in run) and _under_body(first, page, small))


def _column(e: Element, page: Sequence[Element], *, below: bool) -> list[Element]:
    """The content of `page` in `e`'s column (overlapping it horizontally) that lies lower than
    `e` (`below`) or higher."""
    assert e.bbox is not None
    x0, y0, x1, _ = e.bbox
    return [o for o in page if o is not e and o.bbox is not None
            and (o.bbox[1] > y0 + _TOLERANCE if below else o.bbox[1] < y0 - _TOLERANCE)
            and min(x1, o.bbox[2]) - max(x0, o.bbox[0]) > _TOLERANCE]


def _under_body(first: Element, page: Sequence[Element], small: set[str]) -> bool:
    """Whether body text (content that is no small paragraph) lies above `first` in its column."""
    return any(o.id not in small for o in _column(first, page, below=False))
