"""Running headers and footers that the layout model read as headings, made page furniture again.

The model boxes a page's running header as `page-header` on most pages, but on some it calls the
same line a `section-header` (a large bold header: pages 3 and 6 of a 6-page report). As a
heading it starts a chunk on those pages, takes heading level 1 from its font size, and stands
between the halves of a paragraph cut by the page break. A heading is furniture when either:

* the document has furniture (header or footer) of the same text, digits aside, on another
  page, at the same height: their vertical extents overlap; or
* the same text is a heading on at least `MIN_PAGES` pages, each time at the same height
  (within `TOLERANCE` points) and above (or below) all of its page's other content.

It becomes a header in the upper half of its page, a footer in the lower half, with
`attrs["reclassified"]` saying why; `raw_type` keeps the model's class. A title page's heading
that repeats the running header lower on the page stays a heading. PDF loader only.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence

from chunkbench.text.words import page_text_key
from chunkbench.types.document import Element, is_noise

#: what a parse records in ParserInfo.options: how many headings became furniture
OPTION = "running_headers_from_headings"
#: pages on which a heading with no furniture twin must recur, top-most or bottom-most, at one height
MIN_PAGES = 3
#: points two boxes' tops may differ by and still be "at the same height"
TOLERANCE = 3.0


def _page_key(text: str) -> str:
    return page_text_key(text, fold_digits=True)  # a running header may carry its page number


def furniture_from_headings(elements: Sequence[Element], page_heights: Mapping[int, float]) -> tuple[list[Element], int]:
    """`elements` with every heading that is a running header or footer retyped as one, and how
    many were."""
    headings = [e for e in elements if e.type == "heading" and e.bbox is not None and e.page_idx is not None]
    if not headings:
        return list(elements), 0
    furniture = defaultdict(list)
    for e in elements:
        if e.type in ("header", "footer") and e.bbox is not None:
            furniture[_page_key(e.text)].append(e)
    found = {h.id: "running header read as a heading" for h in headings
             if any(f.page_idx != h.page_idx and _same_height(f, h) for f in furniture.get(_page_key(h.text), ()))}
    found.update({h.id: "heading repeated at one height at the edge of every page it is on"
                  for h in _recurring_at_an_edge(elements, headings) if h.id not in found})
    if not found:
        return list(elements), 0
    return [_as_furniture(e, found[e.id], page_heights) if e.id in found else e for e in elements], len(found)


def _same_height(a: Element, b: Element) -> bool:
    assert a.bbox is not None and b.bbox is not None
    return a.bbox[1] < b.bbox[3] and b.bbox[1] < a.bbox[3]


def _recurring_at_an_edge(elements: Sequence[Element], headings: Sequence[Element]) -> list[Element]:
    """Headings whose text recurs as a heading on MIN_PAGES pages or more at one height, each the
    top-most or the bottom-most content of its page."""
    tops: dict[int, float] = {}
    bottoms: dict[int, float] = {}
    for e in elements:
        if e.bbox is None or e.page_idx is None or is_noise(e) or e.is_empty:
            continue
        tops[e.page_idx] = min(tops.get(e.page_idx, e.bbox[1]), e.bbox[1])
        bottoms[e.page_idx] = max(bottoms.get(e.page_idx, e.bbox[3]), e.bbox[3])
    groups = defaultdict(list)
    for h in headings:
        assert h.bbox is not None and h.page_idx is not None
        if h.bbox[1] <= tops[h.page_idx] or h.bbox[3] >= bottoms[h.page_idx]:
            groups[_page_key(h.text)].append(h)
    out = []
    for group in groups.values():
        pages = {h.page_idx for h in group}
        first = group[0].bbox
        assert first is not None
        if len(pages) >= MIN_PAGES and len(pages) == len(group) and all(
                h.bbox is not None and abs(h.bbox[1] - first[1]) <= TOLERANCE for h in group):
            out.extend(group)
    return out


def _as_furniture(e: Element, why: str, page_heights: Mapping[int, float]) -> Element:
    assert e.bbox is not None and e.page_idx is not None
    upper = (e.bbox[1] + e.bbox[3]) / 2 < page_heights.get(e.page_idx, float("inf")) / 2
    return dataclasses.replace(e, type="header" if upper else "footer", text_level=None,
                               attrs={**e.attrs, "reclassified": why})
