"""Tables that continue on the next page, stitched into one table element.

A PDF table that runs over a page break is parsed as two tables, one per page, and a chunker then
cuts between them as if they were unrelated (a page break, a new table). Two tables are one when
the second is the next content after the first (page furniture, footnotes and a title that says
it is continued, "ESTIMATED COSTS—Continued", aside: no other heading, no text between), starts on the
page after the first ends, has as many columns, and its first row is
either the first table's header repeated (dropped) or not a header at all: a row with an empty
cell where the header has text, as a continuation's section label ("Non-current liabilities | |").
Two tables with headers of their own stay two tables. A "continued" title between the two parts
is page furniture once they are one table (a header, `attrs["reclassified"]` saying why), as the
repeated header row is dropped: it only repeats the title the stitched table already has.

The stitched element keeps the first table's id, header and box, spans both pages
(`page_end_idx`), and lists each page's part in `attrs["segments"]` (`Element.parts` reads them),
so chunk boxes and overlays mark the table on every page it lies on, and `attrs["stitched"]` names
the elements it was made of.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from chunkbench.text.segment import is_rule_line
from chunkbench.types.document import Document, Element, is_noise, with_offsets

#: what a stitched table records in ParserInfo.options (how many continuations were joined)
OPTION = "stitched_tables"
#: a table's title on the page it continues on: "ESTIMATED COSTS—Continued", "Table 3 (continued)"
_CONTINUED = re.compile(r"(?:[—–-]\s*|\(\s*)(?:continued|cont'd|cont\.)\s*\)?\s*$", re.IGNORECASE)


def stitch_tables(doc: Document) -> Document:
    """`doc` with every table that continues on the next page joined to the table it continues
    (chains across several pages too); `doc` itself when there is none."""
    keep, joined = join_continuations(doc.elements, "table", continues, join, between=_furniture_or_continued_title,
                                      passed=_repeated_title_as_furniture)
    if not joined:
        return doc
    options = {**doc.parser.options, OPTION: joined}
    return dataclasses.replace(doc, elements=with_offsets(keep),
                               parser=dataclasses.replace(doc.parser, options=options))


def _furniture_or_continued_title(e: Element) -> bool:
    """What may lie between a table and its continuation: page furniture, a footnote (the page's
    notes stand between its last row and the next page; `settle` then moves them to their
    citation), and a caption or heading that says the table is continued."""
    return is_noise(e) or e.type == "footnote" or _is_continued_title(e)


def _is_continued_title(e: Element) -> bool:
    return e.type in ("caption", "heading") and _CONTINUED.search(e.text) is not None


#: why a "continued" title between the parts of a stitched table is furniture
REPEATED_TITLE = "a table's title repeated where the table continues"


def _repeated_title_as_furniture(e: Element) -> Element:
    """A "continued" title passed over by a join, as the page furniture it now is (anything else
    passed over stays as it is)."""
    if not _is_continued_title(e):
        return e
    return dataclasses.replace(e, type="header", text_level=None, attrs={**e.attrs, "reclassified": REPEATED_TITLE})


def join_continuations(elements: Sequence[Element], kind: str, continues: Callable[[Element, Element], bool],
                       join: Callable[[Element, Element], Element],
                       between: Callable[[Element], bool] = is_noise,
                       passed: Callable[[Element], Element] | None = None) -> tuple[list[Element], int]:
    """`elements` with each element of type `kind` that `continues` the previous content element
    of that type joined to it (chains too), passing over empty elements and those `between`
    (page furniture) that lie between them, each of those a join passed over replaced by
    `passed(e)` when given; and how many were joined."""
    keep: list[Element] = []
    joined = 0
    head: int | None = None  # index in `keep` of the last content element, when of type `kind`
    since_head: list[int] = []  # indices in `keep` of the elements passed over since `head`
    for e in elements:
        if e.is_empty or between(e):
            since_head.append(len(keep))
            keep.append(e)
            continue
        if head is not None and continues(keep[head], e):
            keep[head] = join(keep[head], e)
            joined += 1
            if passed is not None:
                for i in since_head:
                    keep[i] = passed(keep[i])
            since_head = []
            continue
        keep.append(e)
        head = len(keep) - 1 if e.type == kind else None
        since_head = []
    return keep, joined


def _cells(line: str) -> list[str]:
    """The cells of one pipe-table line."""
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _lines(e: Element) -> list[str] | None:
    """A pipe table's lines (header, rule, rows), or None when `e` is not one."""
    lines = e.text.split("\n")
    if len(lines) < 2 or not is_rule_line(lines[1]):
        return None
    return lines


def continues(first: Element, second: Element) -> bool:
    """Whether table `second`, the content right after table `first`, is its continuation."""
    if second.type != "table" or first.type != "table" or first.last_page_idx is None:
        return False
    if second.page_idx != first.last_page_idx + 1 or second.page_end_idx not in (None, second.page_idx):
        return False
    if first.page_end_idx is not None and len(first.parts) < 2:
        return False  # a loader's multi-page table: its page parts are unknown
    a, b = _lines(first), _lines(second)
    if a is None or b is None:
        return False
    header, top = _cells(a[0]), _cells(b[0])
    if len(header) != len(top) or len(header) < 2:
        return False
    if _same(header, top):
        return True
    return any(not t and h for h, t in zip(header, top))  # a label row, not a header


def _same(a: Sequence[str], b: Sequence[str]) -> bool:
    return [" ".join(c.split()).casefold() for c in a] == [" ".join(c.split()).casefold() for c in b]


def join(first: Element, second: Element) -> Element:
    """`first` with the rows of its continuation `second` appended (a repeated header dropped)."""
    a, b = _lines(first), _lines(second)
    assert a is not None and b is not None
    repeated = _same(_cells(a[0]), _cells(b[0]))
    rows_text = b[2:] if repeated else [b[0], *b[2:]]
    text = first.text + ("\n" + "\n".join(rows_text) if rows_text else "")
    rows = None
    if first.rows is not None and second.rows is not None:
        rows = (*first.rows, *(second.rows[1:] if repeated else second.rows))
    attrs = stitched_attrs(first, second, (len(first.text) + 1, len(text)) if rows_text else None)
    return dataclasses.replace(first, text=text, rows=rows, page_end_idx=second.page_idx, attrs=attrs)


def stitched_attrs(first: Element, second: Element, span: tuple[int, int] | None) -> dict:
    """`first`'s attrs once `second` is joined to it: its parts (`segments`, `second`'s at `span`
    of the joined text, when it added text) and the ids it was made of (`stitched`)."""
    segments = list(first.attrs.get("segments") or [segment(first, 0, len(first.text))])
    if span is not None:
        segments.append(segment(second, *span))
    return {**first.attrs, "segments": segments, "stitched": [*(first.attrs.get("stitched") or [first.id]), second.id]}


def segment(e: Element, start: int, end: int) -> dict:
    """One part of a stitched element (a page of a table, a column of a paragraph): offsets in
    its text, its page and box, the element it was."""
    return {"id": e.id, "page_idx": e.page_idx, "bbox": list(e.bbox) if e.bbox is not None else None,
            "start": start, "end": end}
