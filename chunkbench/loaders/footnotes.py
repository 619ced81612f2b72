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

from chunkbench.text.leadins import introduces
from chunkbench.text.notes import cites, note_mark
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


#: what a load records in ParserInfo.options: how many footnotes were moved next to their citation
OPTION_PLACED = "footnotes_placed"
#: what a footnote's citation may be in: body text, not a heading's numbering
_CITERS = frozenset({"paragraph", "list", "table", "caption", "code", "other"})
#: the blocks a lead-in introduces, which a footnote never comes between
_INTRODUCED = frozenset({"table", "list"})


def place_footnotes(elements: Sequence[Element]) -> tuple[list[Element], int]:
    """`elements` with each footnote (and the unmarked paragraphs of a note that goes on) moved
    out of the text it interrupts: right after the block that cites its mark (`text.notes`) on its
    page or the page before, past the table or list that block introduces; a footnote whose
    citation is not found goes to its section's end on its page (before the next heading). A parser sets footnotes where the page ends, so in reading order they stand between a
    table and its continuation, or a lead-in and its table, and chunks take them in there.
    Returns the elements and how many footnotes moved."""
    rest: list[Element] = []
    notes: list[tuple[int, list[Element]]] = []  # (index in `rest` they stood before, the note's elements)
    for e in elements:
        if e.type == "footnote" and not e.is_empty:
            if notes and notes[-1][0] == len(rest) and note_mark(e.text) is None:
                notes[-1][1].append(e)  # a note's next paragraph
            else:
                notes.append((len(rest), [e]))
        else:
            rest.append(e)
    if not notes:
        return list(elements), 0
    after: dict[int, list[Element]] = defaultdict(list)  # index in `rest` → notes to put after it
    moved = 0
    for at, note in notes:
        target = citation(rest, at, note[0])
        if target is None:
            target = _past_flow(rest, at, note[0].page_idx)
        else:
            target = _past_introduced(rest, target)
        moved += target != at - 1
        after[target].extend(note)
    out = list(after.get(-1, ()))
    for i, e in enumerate(rest):
        out.append(e)
        out.extend(after.get(i, ()))
    return out, moved


def citation(elements: Sequence[Element], at: int, note: Element) -> int | None:
    """Index in `elements` of the last block before `at` that cites `note`'s mark, on the note's
    page or the page before, else of the one block of its page that cites it loosely (after a
    word and a space); None when none does or the note has no mark. Where a footnote goes
    (`place_footnotes`), and whether one in a chunk belongs elsewhere (the defect detectors)."""
    mark = note_mark(note.text)
    if mark is None or note.page_idx is None:
        return None
    loose: list[int] = []  # blocks of the note's page that cite it only loosely ("specification 9 and")
    for i in range(at - 1, -1, -1):
        e = elements[i]
        if e.page_idx is not None and e.page_idx < note.page_idx - 1:
            break
        if e.type not in _CITERS or e.is_heading or is_noise(e):
            continue
        if cites(e.text, mark):
            return i
        if e.page_idx == note.page_idx and cites(e.text, mark, loosely=True):
            loose.append(i)
    return loose[0] if len(loose) == 1 else None


def _next_content(rest: Sequence[Element], i: int) -> int | None:
    """Index of the first content element after `i` (furniture and empty elements aside)."""
    for j in range(i + 1, len(rest)):
        if not rest[j].is_empty and not is_noise(rest[j]):
            return j
    return None


def _past_introduced(rest: Sequence[Element], i: int) -> int:
    """`i`, or when block `i` introduces a table or list right after it, the index of that run's last element."""
    j = _next_content(rest, i)
    if j is None or rest[j].type not in _INTRODUCED or not introduces(rest[i].text):
        return i
    return _run_end(rest, j)


def _run_end(rest: Sequence[Element], j: int) -> int:
    """Index of the last element of the run of tables or list items of `rest[j]`'s type from `j`."""
    kind, last = rest[j].type, j
    while (k := _next_content(rest, last)) is not None and rest[k].type == kind:
        last = k
    return last


def _past_flow(rest: Sequence[Element], at: int, page: int | None) -> int:
    """Where a note of page `page` that stood before `rest[at]` goes when no block cites it: after
    the table or list it stands in, at its section's end (before the next heading) at the latest,
    and on its own page, so that reading order stays page by page."""
    last = at - 1
    for j in range(at, len(rest)):
        e = rest[j]
        if e.is_heading or (page is not None and e.page_idx is not None and e.page_idx > page):
            break
        if not e.is_empty and not is_noise(e):
            last = j
    return last
