"""Strategy `contract` (specs/2): contract-aware chunks with section paths and clause references.

Walks the elements in reading order (Rule 1), skips noise (Rule 2, `contract_noise`), keeps a
section stack from the headings, and merges consecutive blocks into chunks until a hard boundary
(heading, table, page break near the size limit), a merge-rule stop (size, list items, new
clause) or a soft boundary (numbering restart, new sub-clause, list run) once the chunk is big
enough. Tables are chunks of their own; long lists are split at item boundaries. The decisions
the spec leaves open are listed in docs/strategy-contract.md.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from chunkbench.errors import ParamError
from chunkbench.text.clauses import ClauseRef, is_descendant, is_sibling, numbering_restarts, within
from chunkbench.text.segment import one_line
from chunkbench.types.chunk import Boundary, Chunk, Reason, build_chunk
from chunkbench.types.document import CONTENTS_SKIPPED, CONTENTS_TYPES, ELEMENT_TYPES, Document, Element, is_noise

from .base import Param, StrategyResult, always, declare
from .contract_noise import find_noise
from .contract_rules import defined_term, in_definitions_section, in_schedule
from .contract_units import CAPTION, HEADING, ITEM, TABLE, TITLE, ContractPiece, build_units, continues, sep
from .spans import HARD, PIECE_REASONS, SKIP_CONTENTS

#: element types whose text is prose; a chunk with none of them (images, equations, kept page
#: furniture, other) is typed `unknown`
TEXT_TYPES = frozenset({"paragraph", "list", "footnote", "caption", "code", "heading", "table"})

#: `logging.getLogger("chunkbench.strategies.contract").setLevel("DEBUG")` prints every boundary
log = logging.getLogger(__name__)


@dataclass
class _Open:
    """The chunk being filled."""

    boundary: Boundary
    path: tuple[str, ...]
    units: list[ContractPiece] = field(default_factory=list)
    length: int = 0
    items: int = 0
    clause: ClauseRef | None = None
    clause_source: str | None = None
    cur: ClauseRef | None = None  # the most recent clause seen in the chunk (merge-rule context)
    has_body: bool = False  # holds anything but headings
    is_table: bool = False  # holds a table

    def sep(self, u: ContractPiece) -> str:
        return sep(self.units[-1], u) if self.units else ""


def _check(params: dict) -> None:
    if params["soft_min_chars"] > params["max_chars"]:
        raise ParamError(
            f"strategy 'contract': soft_min_chars ({params['soft_min_chars']}) must be <= max_chars "
            f"({params['max_chars']})"
        )


PARAMS = [
    SKIP_CONTENTS,
    Param("max_chars", int, 2000, "merge rule: a chunk never grows past this many characters", min=100, max=100_000, ui_step=100),
    Param("max_list_items", int, 12, "merge rule: at most this many list items per chunk; longer lists split at an item", min=1, max=10_000, ui_step=1),
    Param("soft_min_chars", int, 800, "soft boundaries (numbering restart, new sub-clause, list run) cut only once the chunk has this many characters", min=0, max=100_000, ui_step=50),
    Param("page_break_ratio", float, 0.8, "a page break is a hard boundary only when the chunk is at least this share of max_chars", min=0.0, max=1.0, ui_step=0.05),
    Param("clause_split_level", int, 1, "merge rule: a new clause starts a chunk when its number differs in the first N segments (1: 4.x → 5.x; 2: also 4.1 → 4.2)", min=1, max=6, ui_step=1),
    Param("list_run_min_items", int, 2, "consecutive list items that make a list run (soft boundary)", min=2, max=1000, ui_step=1),
    Param("infer_headings", str, "auto", "fallback heading heuristics for paragraphs: auto (when the document has fewer than 2 heading elements), always, never", choices=("auto", "always", "never")),
    Param("heading_max_chars", int, 120, "fallback heuristics: a paragraph this long or longer is never a heading", min=10, max=1000, ui_step=10),
    Param("noise_types", tuple, ("header", "footer", "page_number"), "element types skipped as page furniture (kept in the document)",
          choices=ELEMENT_TYPES),
    Param("keep_identifiers", bool, True, "keep one header/footer that carries an identifier (e.g. an agreement number) the body never states"),
    Param("join_headings", bool, True, "a heading directly after headings joins them: no chunk of headings alone; "
          "false keeps the spec's hard boundary at every heading"),
    Param("split_oversize", bool, True, "cut an element (or list item) longer than max_chars at paragraphs, sentences, "
          "then line breaks or spaces; false keeps the spec's one oversize chunk"),
    Param("watermark_min_pages", int, 3, "a short text repeated on at least this many pages (and half of them) is a watermark and skipped", min=2, max=10_000, ui_step=1),
]


def contract(doc: Document, **params) -> StrategyResult:
    """Chunk a contract by the rules of specs/2 (see the module docstring)."""
    skipped = find_noise(
        doc,
        noise_types=params["noise_types"],
        keep_identifiers=params["keep_identifiers"],
        watermark_min_pages=params["watermark_min_pages"],
    )
    if params["skip_contents"]:
        skipped.update((e.id, CONTENTS_SKIPPED) for e in doc.elements if e.type in CONTENTS_TYPES and e.id not in skipped)
    units = build_units(doc, skipped, params)
    opens = _Walker(params).walk(units)
    chunks = [_finish(doc, i, o, params["max_chars"]) for i, o in enumerate(opens)]
    if log.isEnabledFor(logging.DEBUG):
        for c in chunks:
            log.debug("%s chunk %d (%s, %d chars) %s: %s", doc.source, c.index, c.type, c.char_len,
                      c.boundary.reason.value, c.boundary.detail)
    return StrategyResult(chunks=chunks, skipped=skipped)


# --- units → chunks -----------------------------------------------------------------------------


#: what `_Walker._by_kind` returns when what a unit is decides nothing (None means: it joins)
_UNDECIDED = object()


class _Walker:
    """Places units into chunks by the hard boundaries, merge rules and soft boundaries."""

    def __init__(self, params: dict):
        self.max = params["max_chars"]
        self.max_items = params["max_list_items"]
        self.soft_min = params["soft_min_chars"]
        self.page_ratio = params["page_break_ratio"]
        self.split_level = params["clause_split_level"]
        self.join_headings = params["join_headings"]
        self.chunks: list[_Open] = []
        self.open: _Open | None = None
        self.context: ClauseRef | None = None  # the numeric clause the walk is in

    def walk(self, units: list[ContractPiece]) -> list[_Open]:
        for n, u in enumerate(units):
            ref = within(u.ref, self.context) if u.ref is not None else None
            u.ref = ref
            if u.contained and ref is not None and ref.numeric and self._continues_numbering(ref):
                u.contained = False  # "6.3" typed as a list item after "6.2 ...: (a) (b)"
            boundary = self._boundary(u)
            if boundary is None and u.opens is not None and n + 1 < len(units):
                boundary = self._lead_in(u, units[n + 1:])
            if boundary is not None:
                self._start(u, boundary)
            self._add(u)
            if u.kind == HEADING:
                self.context = ref if ref is not None and ref.numeric else None
            elif ref is not None and ref.numeric and not u.contained:
                self.context = ref
        if self.open is not None:
            self.chunks.append(self.open)
        return self.chunks

    def _continues_numbering(self, ref: ClauseRef) -> bool:
        """A numbered list item that carries on the clause numbering (6.3 after 6.2) rather than
        numbering items inside the clause (1. 2. 3. under 2.3, or under no numbered clause)."""
        c = self.context
        return c is not None and len(ref.segments) >= len(c.segments) and not is_descendant(ref, c)

    def _start(self, u: ContractPiece, boundary: Boundary) -> None:
        if self.open is not None:
            self.chunks.append(self.open)
        o = _Open(boundary, u.path)
        in_list = u.contained or (u.cont and u.ref is not None and u.ref.kind == "lettered")
        if u.ref is not None and not (in_list and self.context is not None):
            o.clause, o.clause_source = u.ref, "text"
        elif u.kind != HEADING and self.context is not None:
            o.clause, o.clause_source = self.context, "inherited"
        o.cur = o.clause
        self.open = o

    def _add(self, u: ContractPiece) -> None:
        o = self.open
        assert o is not None, "_start opened a chunk before anything is added"
        o.length += len(o.sep(u)) + len(u.text)
        o.units.append(u)
        o.items += u.kind == ITEM
        o.has_body = o.has_body or u.kind != HEADING
        o.is_table = o.is_table or u.kind == TABLE
        if u.ref is not None and not u.contained:
            o.cur = u.ref

    def _boundary(self, u: ContractPiece) -> Boundary | None:
        """Why `u` starts a new chunk, or None when it joins the open one: by what `u` is (a heading,
        a table, what follows a table, a lead-in), else by size, list length, clause and page."""
        o = self.open
        if o is None:
            return Boundary(Reason.DOCUMENT_START, f"first chunk of the document, starting at {_what(u)}")
        by_kind = self._by_kind(u, o)
        if by_kind is _UNDECIDED:
            return self._by_size(u, o)
        assert by_kind is None or isinstance(by_kind, Boundary)
        return by_kind

    def _by_kind(self, u: ContractPiece, o: _Open) -> Boundary | None | object:
        """The boundary (or None: joins) that what `u` is decides, else _UNDECIDED."""
        if u.kind == HEADING:
            if self.join_headings and not o.has_body and o.length + len(o.sep(u)) + len(u.text) <= self.max:
                self._title(u, o)
                return None
            return Boundary(Reason.HEADING, f"heading level {u.level} {_quote(u.text)}")
        if u.kind == TABLE:
            if not o.is_table and all(x.kind in (HEADING, CAPTION, TITLE) or is_noise(x.el) for x in o.units):
                # the heading (or caption) just before the table titles it, furniture kept for its
                # identifier between them aside: one chunk
                o.boundary = Boundary(o.boundary.reason, f"{o.boundary.detail}, titling table {u.el.id} ({_rows(u.el)})")
                return None
            return Boundary(Reason.TABLE, f"table {u.el.id} ({_rows(u.el)}) is a chunk of its own")
        if o.is_table:
            if u.kind == CAPTION and o.units[-1].kind == TABLE:
                return None  # the caption right after a table belongs to it
            last = next(x for x in reversed(o.units) if x.kind == TABLE)
            return Boundary(Reason.AFTER_TABLE, f"after table {last.el.id}, which stands alone")
        if u.kind == TITLE and u.cut is None and u.leads_to is not None and u.leads_to.type == "table" \
                and o.units[-1].opens is not u.el and any(x.kind not in (HEADING, CAPTION) for x in o.units):
            if u.el.type == "caption":
                return Boundary(Reason.TABLE, f"caption {_quote(u.text)} opens the chunk of the table it titles")
            return Boundary(Reason.LEAD_IN, f"{_quote(u.text)} opens the chunk of the table it introduces")
        last = o.units[-1]
        if last.opens is not None and last.opens is u.el and u.cut is None and o.length + len(o.sep(u)) + len(u.text) <= self.max:
            return None  # what a lead-in introduces stays with it while they fit
        return _UNDECIDED

    def _by_size(self, u: ContractPiece, o: _Open) -> Boundary | None:
        """The boundary an element cut into pieces, the size limit, the list limit or a new clause
        makes before `u`, else a page break or a soft cut."""
        added = len(o.sep(u)) + len(u.text)
        if u.cut is not None:
            how = "a line break or space" if u.cut == HARD else f"a {u.cut} boundary"
            return Boundary(PIECE_REASONS.get(u.cut, Reason.SENTENCE_SPLIT),
                            f"{_what(u)} ({len(u.el.text)} chars > {self.max}) continues: cut into {u.parts} "
                            f"pieces at {how}{u.moved}")
        if len(u.text) > self.max:
            if not o.has_body:
                return None  # a heading keeps its body even when the body alone is oversize
            return Boundary(Reason.OVERSIZE_ELEMENT, f"{_what(u)} alone is {len(u.text)} chars > {self.max}")
        if o.length + added > self.max:
            return Boundary(Reason.SIZE_LIMIT, f"{o.length} + {added} chars > {self.max}")
        if u.kind == ITEM and o.items + 1 > self.max_items:
            return Boundary(Reason.LIST_LIMIT, f"list item {o.items + 1} > max_list_items {self.max_items}; split at an item boundary")
        # a heading titles what follows it, even a clause numbered unlike it ("2.2 Mounting" then "1. Choose")
        hard = None if u.contained or (self.join_headings and not o.has_body) else self._new_clause(u.ref, o)
        if hard:
            return Boundary(Reason.CLAUSE_CHANGE, hard)
        return self._page_or_soft(u, o)

    def _page_or_soft(self, u: ContractPiece, o: _Open) -> Boundary | None:
        """A page break with the chunk past its page share, else a soft cut where the rest up to the
        next hard boundary does not fit."""
        page, last_page = u.el.page_idx, o.units[-1].el.last_page_idx
        if (
            page is not None
            and last_page is not None
            and page > last_page
            and o.length >= self.page_ratio * self.max
            and not continues(o.units[-1], u)
        ):
            return Boundary(
                Reason.PAGE_BREAK,
                f"page {last_page + 1} → {page + 1} with the chunk at {o.length} chars "
                f"(≥ {self.page_ratio:.0%} of {self.max})",
            )
        if not o.has_body or o.length + u.tail <= self.max:
            return None  # everything up to the next hard boundary fits: no soft cut needed
        if u.ref is not None and u.ref.numeric and o.cur is None and not u.contained:
            return Boundary(Reason.CLAUSE_CHANGE, f"clause {u.ref.display} begins after unnumbered text")
        if o.length >= self.soft_min:
            return self._soft(u, o)
        return None

    def _lead_in(self, u: ContractPiece, following: list[ContractPiece]) -> Boundary | None:
        """Why lead-in `u`, about to join the open chunk, starts a chunk instead: what it introduces
        (with the chain of lead-ins after it: "… Also" | a display | "creates an object …") would
        not fit beside it there (like a heading, it then stands alone when it does not fit beside
        it anywhere), or starts a new page with the chunk past
        its page-break share; None when it joins (as when it goes on a chain that opened before it)."""
        o = self.open
        if o is None or not any(x.kind not in (HEADING, CAPTION) for x in o.units) or o.units[-1].opens is u.el:
            return None
        chain, length, at = u, len(u.text), 0
        while at < len(following) and following[at].el is chain.opens:
            length += len(o.sep(following[at])) + len(following[at].text)
            chain, at = following[at], at + 1
            if chain.opens is None or chain.cut is not None:
                break
        if at == 0:
            return None
        nxt = following[0]
        page, last_page = nxt.el.page_idx, u.el.last_page_idx
        why = None
        if o.length + len(o.sep(u)) + length > self.max:
            why = f"the {nxt.el.type} it introduces would not fit after {o.length} chars (> {self.max})"
        elif page is not None and last_page is not None and page > last_page and o.length >= self.page_ratio * self.max:
            why = f"the {nxt.el.type} it introduces is on page {page + 1}, with the chunk at {o.length} chars"
        return Boundary(Reason.LEAD_IN, f"{_quote(u.text)} opens a chunk: {why}") if why else None

    @staticmethod
    def _title(u: ContractPiece, o: _Open) -> None:
        """A heading directly after headings joins them (no chunk of headings alone): the
        chunk takes its section path and, when it has one, its clause number."""
        o.boundary = Boundary(o.boundary.reason, f"{o.boundary.detail}, with heading {_quote(u.text)} right after it")
        o.path = u.path
        if u.ref is not None:
            o.clause, o.clause_source, o.cur = u.ref, "text", u.ref

    def _new_clause(self, ref: ClauseRef | None, o: _Open) -> str | None:
        """Merge rule: a new clause begins and the chunk already has one (compared on the first
        `clause_split_level` segments; sub-clauses of the chunk's clause stay)."""
        cur = o.cur
        if ref is None or cur is None or not cur.numeric or (ref.kind == "lettered" and len(ref.segments) < 2):
            return None
        n = self.split_level
        if is_descendant(ref, cur) or ref.segments[:n] == cur.segments[:n]:
            return None
        return f"clause {ref.display} after {cur.display}"

    def _soft(self, u: ContractPiece, o: _Open) -> Boundary | None:
        """Soft boundaries: preferred cut points, taken only once the chunk has soft_min_chars
        and when the text up to the next hard boundary would not fit in the chunk anyway."""
        size = f"(chunk at {o.length} chars ≥ {self.soft_min})"
        ref, cur = (None if u.contained else u.ref), o.cur
        if ref is not None and cur is not None and numbering_restarts(ref, cur):
            return Boundary(Reason.CLAUSE_CHANGE, f"clause numbering restarts: {ref.display} after {cur.display} {size}")
        if ref is not None and cur is not None and is_sibling(ref, cur):
            return Boundary(Reason.CLAUSE_CHANGE, f"new sub-clause {ref.display} after {cur.display} {size}")
        if u.run and not o.units[-1].text.endswith(":"):
            return Boundary(Reason.LIST_RUN, f"a run of {u.run} list items begins {size}")
        return None


def _what(u: ContractPiece) -> str:
    if u.kind == HEADING:
        return f"heading {_quote(u.text)}"
    if u.kind == ITEM:
        return f"list item {_quote(u.text)} of {u.el.id}"
    return f"{u.el.type} {u.el.id}"


def _quote(text: str) -> str:
    return "'" + one_line(text, 70) + "'"


def _rows(e: Element) -> str:
    return f"{len(e.rows)} rows" if e.rows is not None else "no row data"


# --- chunk assembly -----------------------------------------------------------------------------


def _finish(doc: Document, index: int, o: _Open, max_chars: int) -> Chunk:
    """The Chunk for an open chunk: text, type, clause fields and evidence."""
    text = o.units[0].text + "".join(sep(p, u) + u.text for p, u in zip(o.units, o.units[1:]))
    elements: list[Element] = []
    for u in o.units:
        if not elements or elements[-1].id != u.el.id:
            elements.append(u.el)
    first, last = o.units[0], o.units[-1]
    start, end = first.el.char_start + first.a, last.el.char_start + last.b
    body = [u for u in o.units if u.kind != HEADING]
    terms = [t for t in (defined_term(u.text) for u in body) if t]
    table = next((u for u in o.units if u.kind == TABLE), None)
    clause = o.clause
    extra = {
        "clause_ref": clause.display if clause else None,
        "clause_level": clause.level if clause else None,
        "clause_ref_source": o.clause_source if clause else None,
        "list_items": o.items,
        "defined_terms": terms,
        "oversize": len(text) > max_chars,
        "table_rows": [list(r) for r in table.el.rows] if table is not None and table.el.rows is not None else None,
    }
    return build_chunk(
        doc,
        index=index,
        chunk_id=f"chunk_{index}",
        type=_chunk_type(o, body, terms),
        text=text,
        elements=elements,
        boundary=o.boundary,
        section_path=o.path,
        heading=o.path[-1] if o.path else None,
        start_char=start,
        end_char=end,
        extra=extra,
    )


def _chunk_type(o: _Open, body: Sequence[ContractPiece], terms: Sequence[str]) -> str:
    """table > heading (no body) > definition > schedule > clause > paragraph; `unknown` when no
    body element is prose (unless it starts with a clause number)."""
    if o.is_table:
        return "table"
    if not body:
        return "heading"
    if terms and (in_definitions_section(o.path) or 2 * len(terms) >= len(body)):
        return "definition"
    if in_schedule(o.path):
        return "schedule"
    prose = any(u.el.type in TEXT_TYPES for u in body)
    if o.clause is not None and (prose or o.clause_source == "text"):
        return "clause"
    return "paragraph" if prose else "unknown"


STRATEGY = declare(
    contract,
    "contract",
    small={"max_chars": 400, "soft_min_chars": 150, "max_list_items": 4, "infer_headings": "always"},
    params=PARAMS,
    doc="section stack, clause refs, hard/soft boundaries, tables alone, lists split by item",
    spec="docs/specs/2-contract-chunking.md",
    ruleset="contract/2026-12-05",
    offsets="rewritten",  # specs/2 text normalization (hyphenated line breaks joined, ...)
    check=_check,
    boundaries='headings (section stack), tables (one table = one chunk, pipe text, rows kept, preceding heading linked), page break only near `max_chars`, clause numbering reset / new sub-clause / list run (soft), `max_chars` 2000, `max_list_items` 12, new clause ref; an element over `max_chars` is cut at paragraphs, sentences, then spaces (`split_oversize`); a heading right after a heading joins it (`join_headings`); footnotes carry no clause number',
    fields='`clause_ref`, `clause_level`, `list_items`, `defined_terms`, `table_rows`; types heading/definition/clause/schedule/table/paragraph/unknown',
    target_size=lambda p: (p["max_chars"], "chars"),
    uuid_ids=True,  # spec 2: "chunk_id": "<uuid>"
    keeps_lead_ins=always,
)
