"""A table's title that the layout model read as a heading, made the table's caption.

The Federal Register sets each table's title in bold capitals centred over it ("ESTIMATED COSTS",
and "ESTIMATED COSTS—Continued" over its rest on the next page), and the model boxes the title as a
`section-header`. As a heading it takes level 1 (its type is the largest after the masthead's),
and everything after the table then sits under "ESTIMATED COSTS—Continued" in the section paths,
and between the two parts of the table it stops them being stitched. A heading is the title of
the table when:

* the table is the next content after it (furniture aside), on the same page, starting at most
  `GAP` points below it;
* it is centred over the table: the centres of the two boxes differ by at most `CENTRED` of the
  table's width;
* it is at most half as wide as the table (a section heading over a narrow table is not centred
  over it by chance);
* body text (a paragraph or list item of `BODY_MIN` characters or more) follows the table, past
  the table's continuations and their titles (which open with its title: "ESTIMATED
  COSTS—Continued"). A heading followed by its table and then another heading or a label
  ("Exhibit 2"), as each box of a reference card and each statement of an earnings release is,
  is that section's heading as much as the table's title, and stays one.

A section heading is set flush with its column, so it stays one too. The title becomes a caption
(`raw_type` keeps the model's class; `attrs["reclassified"]` says why). PDF loader only, before
heading levels are ranked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from chunkbench.text.words import page_text_key
from chunkbench.types.document import Element, is_noise

#: what a parse records in ParserInfo.options: how many headings became table captions
OPTION = "table_titles_from_headings"
#: points a title's bottom may lie above its table's top
GAP = 24.0
#: share of the table's width by which the centres of title and table may differ
CENTRED = 0.05
#: characters of a paragraph after the table that make it body text, not a label
BODY_MIN = 60
WHY = "a table's title, centred right above it"


def titles_from_headings(elements: Sequence[Element]) -> tuple[list[Element], int]:
    """`elements` with every heading that is the title of the table right under it retyped as a
    caption, and how many were."""
    content = [e for e in elements if not is_noise(e) and not e.is_empty]
    over = {k for k in range(len(content) - 1) if is_title_of(content[k], content[k + 1])}
    titles = {content[k].id for k in over if _body_after(content, k, over)}
    if not titles:
        return list(elements), 0
    return [dataclasses.replace(e, type="caption", text_level=None, attrs={**e.attrs, "reclassified": WHY})
            if e.id in titles else e for e in elements], len(titles)


def _body_after(content: Sequence[Element], k: int, over: set[int]) -> bool:
    """Whether body text follows the table under the heading `content[k]`, past the tables and
    the continuation titles over a table (`over`, by index) that come next."""
    title = page_text_key(content[k].text)
    k += 1
    while k < len(content) and (content[k].type == "table" or (
            k in over and page_text_key(content[k].text).startswith(title))):
        k += 1
    return (k < len(content) and content[k].type in ("paragraph", "list")
            and len(content[k].text.strip()) >= BODY_MIN)


def is_title_of(heading: Element, table: Element) -> bool:
    """Whether `heading` is the title of `table`, the next content after it (see the module docstring)."""
    if heading.type != "heading" or table.type != "table" or heading.page_idx != table.page_idx:
        return False
    if heading.bbox is None or table.bbox is None:
        return False
    hx0, _, hx1, hy1 = heading.bbox
    tx0, ty0, tx1, _ = table.bbox
    width = tx1 - tx0
    return (0 <= ty0 - hy1 <= GAP and hx1 - hx0 <= width / 2
            and abs((hx0 + hx1) / 2 - (tx0 + tx1) / 2) <= CENTRED * width)
