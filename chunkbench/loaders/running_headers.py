"""Running headers and footers that the layout model read as headings, made page furniture again.

The model boxes a page's running header as `page-header` on most pages, but on some it calls the
same line a `section-header` (a large bold header: pages 3 and 6 of a 6-page report). As a
heading it starts a chunk on those pages, takes heading level 1 from its font size, and stands
between the halves of a paragraph cut by the page break. A heading is furniture when either:

* the document has furniture (header or footer) of the same text, digits aside, on another
  page, at the same height: their vertical extents overlap; or
* the same text is a heading on at least `MIN_PAGES` pages, each time at the same height
  (within `TOLERANCE` points) and above (or below) all of its page's other content.

A page can also set a running header's parts out one by one at its top, as the masthead of a
Federal Register section's first page does ("Proposed Rules", "Federal Register", "Vol. 85,
No. 152", "Thursday, August 6, 2020", the running header of the next pages being those four
joined by " / "). Such parts, headings or paragraphs, are furniture when every part of a
running header of `MASTHEAD_MIN_PARTS` or more parts is there, once each, above (or below) all of
the page's other content: a chapter title page showing one part of its running header keeps it.

It becomes a header in the upper half of its page, a footer in the lower half, with
`attrs["reclassified"]` saying why; `raw_type` keeps the model's class. A title page's heading
that repeats the running header lower on the page stays a heading. PDF loader only.
"""

from __future__ import annotations

import dataclasses
import re
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
#: what separates the parts of a running header ("Federal Register / Vol. 85, No. 152 / …")
PART_SEPARATOR = re.compile(r"\s+[/|•·–—]\s+")
#: parts a running header needs before its parts set apart at a page's edge are a masthead
MASTHEAD_MIN_PARTS = 3


def _page_key(text: str) -> str:
    return page_text_key(text, fold_digits=True)  # a running header may carry its page number


def furniture_from_headings(elements: Sequence[Element], page_heights: Mapping[int, float]) -> tuple[list[Element], int]:
    """`elements` with every heading that is a running header or footer, and every part of a
    masthead, retyped as one, and how many were."""
    furniture = defaultdict(list)
    for e in elements:
        if e.type in ("header", "footer") and e.bbox is not None:
            furniture[_page_key(e.text)].append(e)
    headings = [e for e in elements if e.type == "heading" and e.bbox is not None and e.page_idx is not None]
    found = {h.id: "running header read as a heading" for h in headings
             if any(f.page_idx != h.page_idx and _same_height(f, h) for f in furniture.get(_page_key(h.text), ()))}
    found.update({h.id: "heading repeated at one height at the edge of every page it is on"
                  for h in _recurring_at_an_edge(elements, headings) if h.id not in found})
    found.update({e.id: "a running header's part, set apart at the edge of the page (a masthead)"
                  for e in _masthead_parts(elements, furniture) if e.id not in found})
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


def _masthead_parts(elements: Sequence[Element], furniture: Mapping[str, Sequence[Element]]) -> list[Element]:
    """Elements that set out every part of a running header (MASTHEAD_MIN_PARTS or more parts),
    one element a part, above (or below) all of their page's other content."""
    part_sets = {parts for key in furniture
                 if len(parts := frozenset(PART_SEPARATOR.split(key))) >= MASTHEAD_MIN_PARTS}
    if not part_sets:
        return []
    pages: defaultdict[int, list[tuple[Element, tuple[float, float, float, float]]]] = defaultdict(list)
    for e in elements:
        if e.bbox is not None and e.page_idx is not None and not is_noise(e) and not e.is_empty:
            pages[e.page_idx].append((e, e.bbox))
    out: list[Element] = []
    for content in pages.values():
        for parts in part_sets:
            found = [(e, box) for e, box in content if _page_key(e.text) in parts]
            if len(found) != len(parts) or {_page_key(e.text) for e, _ in found} != parts:
                continue
            ids = {e.id for e, _ in found}
            rest = [box for e, box in content if e.id not in ids]
            if not rest or max(b[3] for _, b in found) < min(b[1] for b in rest) \
                    or min(b[1] for _, b in found) > max(b[3] for b in rest):
                out.extend(e for e, _ in found)
    return out


def _as_furniture(e: Element, why: str, page_heights: Mapping[int, float]) -> Element:
    assert e.bbox is not None and e.page_idx is not None
    upper = (e.bbox[1] + e.bbox[3]) / 2 < page_heights.get(e.page_idx, float("inf")) / 2
    return dataclasses.replace(e, type="header" if upper else "footer", text_level=None,
                               attrs={**e.attrs, "reclassified": why})
