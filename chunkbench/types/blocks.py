"""Structural blocks: the smallest units of a document an answer needs whole. A list with the
sentence that introduces it, a table (continued across pages) with its caption or lead-in, a
display of code with its lead-in, a definition's term with its description, else one element.
The retrieval default ranks each chunk by its block's text too (`index_groups`: text.context), and
the `structure` return policy (io.return_policy) sends a hit's block before its section; each
element gets the id of its block's first element (`block_ids`), and a canonical offset the id of
the block holding it (`blocks_at`)."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

from chunkbench.types.document import Document, Element, is_noise, lead_ins

#: element types whose consecutive elements are one block (a list's items, a table's pages, a listing's lines)
_RUNS = frozenset({"list", "table", "code"})
#: what may follow a term as its description
_DESCRIPTIONS = frozenset({"paragraph", "list", "code"})
#: a term on a line of its own is at most this long ("DBI (https://CRAN.R-project.org/package=DBI):")
_TERM_CHARS = 100


def blocks_at(doc: Document, offsets: Iterable[int | None]) -> list[str | None]:
    """The structural block holding each canonical offset of `doc`, by its first element's id;
    None for an offset of None or past the end (a binary search each)."""
    starts, ids = doc.derived("blocks.starts", lambda: _starts_and_ids(doc))  # kept with the Document
    out: list[str | None] = []
    for char in offsets:
        if char is None or not ids or char >= len(doc.text):
            out.append(None)
            continue
        out.append(ids[max(bisect.bisect_right(starts, char) - 1, 0)])
    return out


def _starts_and_ids(doc: Document) -> tuple[list[int], list[str]]:
    ids = block_ids(doc.elements)
    starts, els = doc._text_elements
    return starts, [ids.get(e.id, e.id) for e in els]


def block_ids(elements: Sequence[Element]) -> dict[str, str]:
    """The block id (its first element's id) of every non-empty element of `elements`, in reading
    order; page furniture and headings are blocks of their own and never split a block (a list
    running over a page break stays one). Linear in the elements."""
    content = [e for e in elements if not e.is_empty]
    opens = lead_ins(content)
    out: dict[str, str] = {}
    previous: Element | None = None
    for e in content:
        if is_noise(e):
            out[e.id] = e.id
            continue
        joined = previous is not None and not e.is_heading and not previous.is_heading and (
            opens.get(previous.id) is e
            or (previous.type == e.type and e.type in _RUNS)
            or (_is_term(previous) and e.type in _DESCRIPTIONS))
        out[e.id] = out[previous.id] if joined and previous is not None else e.id
        previous = e
    return out


def _is_term(e: Element) -> bool:
    """A definition's term: marked so at parse, or one short line ending in a colon."""
    if e.attrs.get("definition") == "term":
        return True
    text = e.text.strip()
    return "\n" not in text and len(text) <= _TERM_CHARS and text.endswith(":")
