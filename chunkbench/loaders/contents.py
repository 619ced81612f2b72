"""Tables of contents and back-of-book indexes, typed `toc` and `index` at parse.

A parser reads a contents page as a table ("| 1.1. Purpose 1 |") or as paragraphs, and an index as
tables under letter headings ("C", "D"). As content they become chunks of dot leaders and page
numbers that match any question about a section's title, and their letter headings become
sections of their own. Here each parsed block whose lines are contents or index entries
(`chunkbench.text.contents`), or that Docling labelled `document_index`, is typed `toc` or
`index`; so is:

* a block right after one (page furniture and an index's letter headings aside) whose lines are
  mostly entries, however few: the rest of a contents page on the next page ("| 7.6. Contributors
  43 |"), an index's letter of one entry ("J" | "| jpeg 80 |");
* a block right after a heading that names an index, whose lines mostly end in page numbers
  even without letters before them (an index of operators: "!= 10", "%*% 24");
* a heading whose next content is a contents block, when it names one ("Table of Contents",
  "Contents", "Concept index") or is an index's letter ("C", "Q": over an index block, or between
  two contents blocks), and so on back over headings.

The run takes the kind its heading names, else its blocks' most common kind. Strategies skip
both types unless told to keep them (`skip_contents`). Applied to every parser's Document (PDF,
MinerU, Docling, document.json) before tables are stitched; `attrs["reclassified"]` says why and
`raw_type` keeps the parser's class.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

from chunkbench.text.contents import CONTENTS_HEADING, INDEX, SHARE, TOC, contents_kind, page_reference
from chunkbench.types.document import Document, Element, is_noise, with_offsets

#: what a parse records in ParserInfo.options: how many elements were typed toc or index
OPTION = "contents_typed"
#: the element types this pass gives, and those it reads as blocks of entries
CONTENTS_TYPES = frozenset({TOC, INDEX})
_BLOCK_TYPES = frozenset({"table", "paragraph", "list"})
#: a heading this short over an index block is one of its letters ("C", "Q", "Symbols")
_LETTER_MAX = 3
WHY = {TOC: "a table of contents: its lines end in page numbers", INDEX: "an index: its entries end in page numbers"}


def mark_contents(doc: Document) -> Document:
    """`doc` with its tables of contents and indexes typed `toc` / `index`; `doc` itself when it has none."""
    pages = len(doc.pages)
    if pages < 3:
        return doc
    kinds = _kinds(doc.elements, pages)
    if not kinds:
        return doc
    elements = [_retyped(e, kinds[e.id]) if e.id in kinds else e for e in doc.elements]
    options = {**doc.parser.options, OPTION: len(kinds)}
    return dataclasses.replace(doc, elements=with_offsets(elements),
                               parser=dataclasses.replace(doc.parser, options=options))


def _kinds(elements: Sequence[Element], pages: int) -> dict[str, str]:
    """Element id → TOC or INDEX for every element of a table of contents or index."""
    content = [e for e in elements if not e.is_empty and not is_noise(e)]
    kind: dict[int, str] = {}
    for i, e in enumerate(content):
        if e.raw_type == "document_index":
            kind[i] = TOC
        elif e.type in _BLOCK_TYPES and not e.is_heading:
            found = contents_kind(e.text, pages)
            before = i - 1  # the block before, an index's letter headings passed over
            while before >= 0 and content[before].is_heading and len(content[before].text.strip()) <= _LETTER_MAX:
                before -= 1
            if found is None and before in kind and _mostly_entries(e.text, pages):
                found = kind[before]  # the rest of a contents page on the next page, an index's short letter
            heading_names = _names_contents(content[i - 1]) if i else None
            if found is None and heading_names is not None and _mostly_entries(e.text, pages, symbols=True):
                found = heading_names  # under "Function and variable index": "!= 10", "%*% 24"
            if found is not None:
                kind[i] = found
    if not kind:
        return {}
    named: dict[int, str] = {}  # the kind a heading over a run names
    for i in range(len(content) - 2, -1, -1):  # headings over a run, back from its first block
        e = content[i]
        if i + 1 in kind and i not in kind and e.is_heading and _heads_contents(e, kind[i + 1], i - 1 in kind):
            kind[i] = kind[i + 1]
            names = _names_contents(e)
            if names is not None:
                named[i] = names
    return {content[i].id: k for i, k in _by_run(kind, named).items()}


def _heads_contents(heading: Element, below: str, after_contents: bool) -> bool:
    """Whether `heading`, right over a contents or index block, names one or is an index letter
    (a short heading over an index block, or between two contents blocks)."""
    text = " ".join(heading.text.split())
    return bool(CONTENTS_HEADING.search(text)) or len(text) <= _LETTER_MAX and (below == INDEX or after_contents)


def _names_contents(e: Element) -> str | None:
    """TOC or INDEX when heading `e` names a table of contents or an index, else None."""
    text = " ".join(e.text.split())
    if not e.is_heading or not CONTENTS_HEADING.search(text):
        return None
    return INDEX if "index" in text.lower() else TOC


def _by_run(kind: dict[int, str], named: dict[int, str]) -> dict[int, str]:
    """Each run of consecutive contents elements given one kind: an index when a heading in it
    names one, a table of contents when its first heading names one, else the most common kind
    of its blocks."""
    out: dict[int, str] = {}
    run: list[int] = []
    for i in [*sorted(kind), -2]:
        if run and i != run[-1] + 1:
            names = [named[j] for j in run if j in named]
            chosen = INDEX if INDEX in names else names[0] if names else Counter(kind[j] for j in run).most_common(1)[0][0]
            out.update((j, chosen) for j in run)
            run = []
        run.append(i)
    return out


def _mostly_entries(text: str, pages: int, *, symbols: bool = False) -> bool:
    lines = [ln for ln in text.split("\n") if ln.strip() and not set(ln) <= set("|-: ")]
    return bool(lines) and sum(page_reference(ln, pages, symbols=symbols) is not None
                               for ln in lines) >= SHARE * len(lines)


def _retyped(e: Element, kind: str) -> Element:
    return dataclasses.replace(e, type=kind, text_level=None, attrs={**e.attrs, "reclassified": WHY[kind]})
