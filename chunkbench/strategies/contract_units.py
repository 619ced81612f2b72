"""Elements → units for the `contract` strategy: headings with their section stack, tables,
list items (a list element split at its items) and other elements, each normalized.

A unit is what the walk in `contract.py` places into chunks; list-run and tail marks let it
apply the soft boundaries without looking ahead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from chunkbench.text.clauses import ClauseRef, clause_ref
from chunkbench.text.headings import HeadingStack
from chunkbench.text.segment import paragraph_spans, pipe_table
from chunkbench.types.document import Document, Element, lead_ins

from .contract_rules import heading_level, looks_like_heading, normalize
from .spans import PARAGRAPH, Packer, PackUnit

#: a heading whose box starts this far (points) right of the page's text margin is indented
INDENT_PT = 36.0
#: a line starting a list item in a list element that has no `blocks`: bullets, 1. a) (iv) ...
_ITEM_LINE = re.compile(r"^[ \t]*(?:[-*•▪◦‣·–]|\(?[a-zA-Z0-9]{1,4}[.)])[ \t]+\S", re.M)
HEADING, TABLE, ITEM, BODY, CAPTION = "heading", "table", "item", "body", "caption"
#: what opens the element right after it (types.document.lead_ins): a caption over its table, a
#: sentence introducing a table, list or display
TITLE = "title"


@dataclass
class ContractPiece:
    """One piece the walk places: a heading, a table, one list item or one other element."""

    kind: str
    el: Element
    a: int  # span inside el.text
    b: int
    text: str  # normalized
    path: tuple[str, ...]
    ref: ClauseRef | None = None
    level: int | None = None
    run: int = 0  # items: length of the list run this item begins (0 when it begins none)
    cont: bool = False  # items: continues the list items before it (not the first of its run)
    contained: bool = False  # items: in a list introduced by a lead-in ending with ":"
    tail: int = 0  # chars from this unit to the next heading or table (the next hard boundary)
    cut: str | None = None  # a later piece of an element cut because it exceeds max_chars: where (spans kind)
    parts: int = 1  # how many pieces its element was cut into
    moved: str = ""  # a later piece: why its cut is not where packing put it (spans.Packer.why_moved)
    opens: Element | None = None  # a lead-in: the element it opens
    leads_to: Element | None = None  # a lead-in: the element its chain of lead-ins ends in (a display's lead-in, the display, …)


def build_units(doc: Document, skipped: dict[str, str], params: dict) -> list[ContractPiece]:
    """Units in reading order with their section path; headings keep the section stack."""
    content = [e for e in doc.elements if e.id not in skipped]
    titles = lead_ins(content)
    # auto: headings are "missing" when the layout marks none, or only one (a title)
    infer = params["infer_headings"] == "always" or (
        params["infer_headings"] == "auto" and sum(_layout_heading(e) for e in content) < 2
    )
    margins = _left_margins(content)
    limit = params["max_chars"] if params["split_oversize"] else None
    stack = HeadingStack()
    units: list[ContractPiece] = []
    for e in content:
        if _layout_heading(e) or (infer and e.type == "paragraph" and looks_like_heading(e.text, params["heading_max_chars"])):
            title = " ".join(e.text.split())
            indented = e.bbox is not None and e.bbox[0] - margins.get(e.page_idx, e.bbox[0]) > INDENT_PT
            level = heading_level(title, e.text_level, indented=indented, open_levels=stack.levels)
            path = stack.push(level, title)
            units.append(ContractPiece(HEADING, e, 0, len(e.text), normalize(e.text), path, clause_ref(title), level))
            continue
        path = stack.path
        if e.type == "table":
            text = pipe_table(e.rows) if e.rows else normalize(e.text)
            units.append(ContractPiece(TABLE, e, 0, len(e.text), text or normalize(e.text), path))
        elif e.type == "list":
            for a, b in item_spans(e):
                units += _pieces(ITEM, e, a, b, path, limit)
            if e.id in titles:  # an item that introduces what follows ("5. … have disclosed …:")
                units[-1].opens = titles[e.id]
        else:
            kind = TITLE if e.id in titles else CAPTION if e.type == "caption" else BODY
            pieces = _pieces(kind, e, 0, len(e.text), path, limit)
            if kind == TITLE:
                pieces[-1].opens = titles[e.id]
            units += pieces
    _mark_list_runs(units, params["list_run_min_items"])
    _mark_tails(units)
    _mark_chains(units)
    return units


def _mark_chains(units: list[ContractPiece]) -> None:
    """Give each lead-in the element its chain ends in: "Syntax:" opens a display, which opens
    "where … has one of the following forms:", which opens a table: all three lead to the table."""
    for n in range(len(units) - 1, -1, -1):
        u = units[n]
        if u.opens is None:
            continue
        nxt = units[n + 1] if n + 1 < len(units) else None
        u.leads_to = (nxt.leads_to or nxt.el) if nxt is not None and nxt.el is u.opens and nxt.opens is not None else u.opens


def _pieces(kind: str, e: Element, a: int, b: int, path: tuple[str, ...], limit: int | None) -> list[ContractPiece]:
    """The span [a, b) of `e` as one unit, or, when its text exceeds `limit`, as pieces within the
    limit cut at paragraphs, then sentences, then line breaks or spaces (the shared spans.Packer).
    A footnote never carries a clause number: its leading "12" is a note mark, not clause 12."""
    text = normalize(e.text[a:b])
    ref = None if e.type == "footnote" else clause_ref(text)
    if limit is None or len(text) <= limit:
        return [ContractPiece(kind, e, a, b, text, path, ref)]
    packer = Packer(e.text, limit)
    spans = [PackUnit(a + x, a + y, PARAGRAPH) for x, y in paragraph_spans(e.text[a:b])]
    pieces = packer.pack(spans)
    out = []
    for k, piece in enumerate(pieces):
        x, y = piece[0].start, piece[-1].end
        out.append(ContractPiece(kind, e, x, y, normalize(e.text[x:y]), path, ref if k == 0 else None,
                        cut=piece[0].kind if k else None, parts=len(pieces), moved=packer.why_moved(x) if k else ""))
    return out


def _layout_heading(e: Element) -> bool:
    """The primary signal: a heading element, or a paragraph the layout gave a heading level."""
    return e.type == "heading" or (e.type == "paragraph" and e.text_level is not None)


def _left_margins(elements: Sequence[Element]) -> dict[int | None, float]:
    """Per page, the leftmost x0 of its content: where "far left" is."""
    out: dict[int | None, float] = {}
    for e in elements:
        if e.bbox is not None:
            out[e.page_idx] = min(out.get(e.page_idx, e.bbox[0]), e.bbox[0])
    return out


def item_spans(e: Element) -> list[tuple[int, int]]:
    """A list element's items as spans of its text that partition it (nothing between is lost).

    Items come from `blocks` when each block's text is found in order in the element text, else
    from lines that start with a bullet or a number/letter marker, else the element is one item.
    """
    text = e.text
    starts: list[int] = []
    pos = 0
    for block in e.blocks:
        t = str(block.get("text") or "").strip() if isinstance(block, dict) else ""
        if not t:
            continue
        i = text.find(t, pos)
        if i < 0:
            starts = []
            break
        starts.append(i)
        pos = i + len(t)
    if not starts:
        starts = [m.start() for m in _ITEM_LINE.finditer(text)]
    starts = [0] + [s for s in starts if s > 0]
    bounds = starts + [len(text)]
    spans = []
    for a, b in zip(bounds, bounds[1:]):
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            spans.append((a, b))
    return spans


def _mark_list_runs(units: list[ContractPiece], min_items: int) -> None:
    """Mark list runs: `run` on an item beginning at least `min_items` consecutive items, `cont`
    on items after the first, `contained` on the items of a list whose lead-in ends with ":"."""
    run = 0
    for i in range(len(units) - 1, -1, -1):
        run = run + 1 if units[i].kind == ITEM else 0
        begins = units[i].kind == ITEM and (i == 0 or units[i - 1].kind != ITEM)
        units[i].run = run if begins and run >= min_items else 0
    contained = False
    for i, u in enumerate(units):
        if u.kind != ITEM:
            contained = False
            continue
        u.cont = i > 0 and units[i - 1].kind == ITEM
        if not u.cont:
            contained = i > 0 and units[i - 1].text.endswith(":")
        u.contained = contained


def _mark_tails(units: list[ContractPiece]) -> None:
    """Set `tail`: the size of the run from each unit up to the next heading or table."""
    tail = 0
    for u in reversed(units):
        tail = 0 if u.kind in (HEADING, TABLE) else tail + 2 + len(u.text)
        u.tail = tail


def sep(prev: ContractPiece, u: ContractPiece) -> str:
    """Items of one list element are joined by a line break, a sentence cut by a page break by a
    space, everything else by a blank line."""
    if u.kind == ITEM and prev.kind == ITEM and prev.el.id == u.el.id:
        return "\n"
    return " " if continues(prev, u) else "\n\n"


def continues(prev: ContractPiece, u: ContractPiece) -> bool:
    """`u` carries on a sentence the parser cut at a page break: the text before ends in a word
    ("… accrued up to the date of") and `u`, on a later page, starts in lower case ("termination.")
    or with a parenthesis that is no clause reference ("(48) hours")."""
    return (
        prev.kind in (BODY, ITEM)
        and u.kind == BODY
        and prev.el.last_page_idx is not None
        and u.el.page_idx is not None
        and u.el.page_idx > prev.el.last_page_idx
        and (prev.text[-1:].isalnum() or prev.text.endswith(","))
        and (u.text[:1].islower() or (u.text.startswith("(") and u.ref is None))
    )
