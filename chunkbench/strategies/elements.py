"""Strategy `elements` (specs/1): MinerU element grouping by page break, h1/h2 heading and size.

Elements are walked in reading order and appended to the current chunk until a boundary:
the page changes, a heading with `text_level <= heading_level` starts (by default the level the
document's sections of text begin at in its outline, 2 at least: `cut_level`), a table starts
(`table_boundary`, on by default: the spec's worked example needs it), or the chunk plus the next
element would exceed `max_chunk_size` characters. A structural boundary wins over the size rule at
the same element. An element longer than the limit is a chunk of its own (`oversize_element`), cut
into pieces within it (`split_oversize`); with `join_headings` the headings before it open its
first piece rather than stand alone.
Chunk text is the element texts joined by the canonical separator, so sizes match `doc.text`.

A re-chunk of the same Document with another `max_chunk_size` walks again only what the new limit
can move: the walk starts afresh wherever a page break, top heading or table follows body text
(no rule looks back past those cuts), and each stretch between two of them keeps its chunks with
the range of limits under which every size comparison it made answers alike (`SizeLimit`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from chunkbench.text.headings import HeadingStack
from chunkbench.text.segment import one_line, paragraph_spans
from chunkbench.text.tokenizer import count_joined
from chunkbench.types.chunk import Boundary, Chunk, Reason, build_chunk
from chunkbench.types.document import CONTENTS_SKIPPED, CONTENTS_TYPES, SEPARATOR, Document, Element, is_noise

from .base import Param, StrategyResult, declare
from .kept import KeptState, kept_or_made
from .limits import KeptChunks, SizeLimit, Why
from .spans import HARD, HEADING, PARAGRAPH, PIECE_REASONS, SKIP_CONTENTS, TABLE, TITLE, Packer, PackUnit

#: Chunk type priority of specs/1 (heading first; paragraph is the default).
_TYPE_PRIORITY = ("table", "code", "list")


@dataclass
class _Open:
    """The chunk being built: its elements, joined length and the reason it started."""

    why: Why
    section_path: list[str]
    elements: list[Element] = field(default_factory=list)
    size: int = 0
    #: how many elements `titles_only` has looked at, and whether all of them were titles
    checked: int = 0
    only_titles: bool = True

    def added_size(self, element: Element) -> int:
        return self.size + (len(SEPARATOR) if self.elements else 0) + len(element.text)

    def add(self, element: Element) -> None:
        self.size = self.added_size(element)
        self.elements.append(element)

    def titles_only(self, titles: Mapping[str, Element]) -> bool:
        """Whether the chunk holds nothing but headings and lead-ins (`titles`: captions over their
        table, sentences introducing a block) so far, and
        page furniture (kept with `skip_noise` off) after one of them. Looks only at the elements
        added since it last looked (asked at every element, it was quadratic in a chunk's length)."""
        if self.only_titles:
            self.only_titles = all(e.is_heading or e.id in titles or is_noise(e) for e in self.elements[self.checked:])
            self.checked = len(self.elements)
        return self.only_titles and not is_noise(self.elements[0])


@dataclass(frozen=True)
class _Rules:
    """Every parameter but the size limit: one walk plan per Document and rules."""

    heading_level: int
    table_boundary: bool
    skip_noise: bool
    split_oversize: bool
    join_headings: bool
    skip_contents: bool


@dataclass(frozen=True)
class _Stretch:
    """The elements from one fresh start of the walk to the next: where no rule looks back past
    its first element (`_plan`)."""

    elements: tuple[Element, ...]
    start: Why
    #: the headings open before it, (level, title) outermost first
    headings: tuple[tuple[int, str], ...]


@dataclass
class _Walk:
    """A Document's stretches under one set of rules, and each one's last chunks."""

    titles: Mapping[str, Element]
    skipped: dict[str, str]
    stretches: list[_Stretch]
    chunked: dict[int, KeptChunks] = field(default_factory=dict)


def chunk_elements(
    doc: Document,
    *,
    kept: KeptState | None,
    max_chunk_size: int,
    heading_level: int,
    table_boundary: bool,
    skip_noise: bool,
    split_oversize: bool,
    join_headings: bool,
    skip_contents: bool,
) -> StrategyResult:
    """Group elements into chunks at page breaks, top headings, tables and the size limit."""
    rules = _Rules(heading_level or cut_level(doc), table_boundary, skip_noise, split_oversize, join_headings,
                   skip_contents)
    walk = kept_or_made(kept, "elements", doc, rules, lambda: _plan(doc, rules))
    chunks: list[Chunk] = []
    for k, stretch in enumerate(walk.stretches):
        done = walk.chunked.get(k)
        if done is None or not done.holds(max_chunk_size):
            done = walk.chunked[k] = _chunk_stretch(doc, stretch, rules, walk.titles, SizeLimit(max_chunk_size),
                                                    first=len(chunks))
        chunks += done.at(len(chunks), max_chunk_size)
    return StrategyResult(chunks=chunks, skipped=dict(walk.skipped))


def _plan(doc: Document, rules: _Rules) -> _Walk:
    """The elements kept, in stretches: a new one starts where a structural boundary (a page
    break, a top heading, a table: `_structural`) follows a body element (not a heading, lead-in
    or furniture). There every rule answers alike whatever the limit: the boundary starts a chunk,
    nothing before it joins or opens it, and the headings open there are known."""
    titles = doc.lead_ins_without(types=CONTENTS_TYPES if rules.skip_contents else ())
    skipped: dict[str, str] = {}
    stretches: list[_Stretch] = []
    current: list[Element] = []
    start = Why.of(Reason.DOCUMENT_START, "")
    headings: tuple[tuple[int, str], ...] = ()
    stack = HeadingStack()
    prev: Element | None = None
    for el in doc.elements:
        if el.is_empty:
            skipped[el.id] = "empty text"
            continue
        if rules.skip_noise and is_noise(el):
            skipped[el.id] = f"noise element ({el.raw_type or el.type})"
            continue
        if rules.skip_contents and el.type in CONTENTS_TYPES:
            skipped[el.id] = CONTENTS_SKIPPED
            continue
        if prev is None:
            start = Why.of(Reason.DOCUMENT_START, f"first element of the document ({el.type})")
        elif not (prev.is_heading or is_noise(prev) or prev.id in titles) and (
                cut := _structural(prev, el, rules.heading_level, rules.table_boundary)) is not None:
            stretches.append(_Stretch(tuple(current), start, headings))
            current, headings, start = [], stack.opened, cut
        if el.heading_level is not None:
            stack.push(el.heading_level, one_line(el.text, 200))
        current.append(el)
        prev = el
    if current:
        stretches.append(_Stretch(tuple(current), start, headings))
    return _Walk(titles, skipped, stretches)


def _chunk_stretch(doc: Document, stretch: _Stretch, rules: _Rules, titles: Mapping[str, Element],
                   lim: SizeLimit, first: int) -> KeptChunks:
    """The chunks of one stretch at `lim`'s limit, numbered from `first`, and the range of limits
    that gives the same."""
    limit, split_oversize = lim.value, rules.split_oversize
    groups = _groups(stretch, rules, titles, lim)
    chunks: list[Chunk] = []
    whys: list[Why | None] = []
    for g in groups:
        if split_oversize and not lim.fits(g.size):  # an oversize element, or one its headings and lead-ins open
            lim.pin()
            pieces = _split_element(doc, first + len(chunks), g, rules.heading_level, lim, titles)
            chunks += pieces
            whys += [None] * len(pieces)
        else:
            chunks.append(_make_chunk(doc, first + len(chunks), g, rules.heading_level, lim))
            whys.append(g.why)
    return KeptChunks(limit, lim.lo, lim.hi, tuple(chunks), tuple(whys))


def _groups(stretch: _Stretch, rules: _Rules, titles: Mapping[str, Element], lim: SizeLimit) -> list[_Open]:
    """The stretch's elements grouped into chunks (before an oversize one is cut into pieces)."""
    join_headings, split_oversize = rules.join_headings, rules.split_oversize
    groups: list[_Open] = []
    current: _Open | None = None
    stack = HeadingStack.of(stretch.headings)  # the headings above this point
    for el in stretch.elements:
        if el.heading_level is not None:
            stack.push(el.heading_level, one_line(el.text, 200))
        why: Why | None
        if current is None:
            why = stretch.start
        elif join_headings and current.titles_only(titles) and (
                lim.fits(current.added_size(el)) or (split_oversize and _opens_pieces(current, el, lim))):
            why = None  # headings are not left alone in a chunk: what follows joins them
            current.section_path = list(stack.path)
        else:
            why = _cut_before(current, el, rules, titles, lim)
        carried: list[Element] = []
        if why is not None and current is not None and join_headings and why.reason is not Reason.HEADING:
            carried = _openers_to_carry(current, el, titles, lim, split_oversize)
            if carried:
                names = ", ".join(f"'{one_line(h.text, 40)}'" for h in carried if not is_noise(h))
                why = why.then(f"; with {names} before it, which opens it")
        if why is not None:
            current = _Open(why, section_path=list(stack.path))
            groups.append(current)
        assert current is not None, "the first element always opens a chunk"
        for h in carried:
            current.add(h)
        current.add(el)
    return groups


def _cut_before(current: _Open, el: Element, rules: _Rules, titles: Mapping[str, Element], lim: SizeLimit) -> Why | None:
    """Why `el` starts a chunk after `current` (a boundary, or a lead-in that opens what it
    introduces), or None when it joins. Lead-ins keep what they introduce with `join_headings`;
    without, a caption still opens its table's chunk."""
    opens = titles if rules.join_headings else {}
    why = _boundary(current, el, lim, rules.heading_level, rules.table_boundary, opens)
    if why is None and el.id in titles and (rules.join_headings or el.type == "caption"):
        why = _lead_in(current, el, titles[el.id], lim, rules.table_boundary)
    return why


def cut_level(doc: Document) -> int:
    """The heading level `heading_level=0` (auto) cuts at: the spec's 2, or deeper when the
    document's sections of text begin deeper in its outline (`Document.body_heading_level`: the
    Filesystem Hierarchy Standard's numbered sections "3.7.4. /etc/opt" are level 3, under
    "3.7. /etc" and "Chapter 3")."""
    return max(SPEC_LEVEL, doc.body_heading_level or SPEC_LEVEL)


#: the heading level specs/1 cuts at (h1/h2)
SPEC_LEVEL = 2


def _opens_pieces(current: _Open, el: Element, lim: SizeLimit) -> bool:
    """Whether `el`, too long to join the headings and lead-ins of `current` whole, joins them cut
    into pieces, so that they open its first piece: they take at most half the limit, and nothing
    skipped (furniture) lies between them in the text, so the piece is one slice of it."""
    if not lim.fits(2 * (current.size + len(SEPARATOR))):  # over half the limit
        return False
    chain = [*current.elements, el]
    return all(b.char_start == a.char_end + len(SEPARATOR) for a, b in zip(chain, chain[1:]))


def _openers_to_carry(current: _Open, el: Element, titles: Mapping[str, Element], lim: SizeLimit,
                      split_oversize: bool) -> list[Element]:
    """What ends `current` and opens `el`, taken out of it to open the chunk `el` starts: the
    headings after its last body element, and the lead-ins that open the next in that chain up to
    `el` ("… Also" before the display "> y <- x[-(1:5)]" before `el`), furniture kept between
    them going along. A chunk then ends neither with a heading whose section starts in the next
    nor with a sentence the next goes on. None when `current` would keep no body, or they would
    not fit: beside `el` within `limit`, or as the opening of its pieces when `el` is cut
    (`split_oversize`: at most half the limit, nothing skipped between)."""
    k, after = len(current.elements), el
    while k > 0:
        e = current.elements[k - 1]
        if not (is_noise(e) or e.is_heading or titles.get(e.id) is after):
            break
        k -= 1
        after = after if is_noise(e) else e
    tail = current.elements[k:]
    while tail and is_noise(tail[0]):
        tail = tail[1:]
    if not tail or k == 0:
        return []
    size = sum(len(e.text) for e in tail) + len(SEPARATOR) * len(tail)
    if not lim.fits(size + len(el.text)):
        chain = [*tail, el]
        contiguous = all(b.char_start == a.char_end + len(SEPARATOR) for a, b in zip(chain, chain[1:]))
        if not (split_oversize and contiguous and lim.fits(2 * size)):  # at most half the limit
            return []
    del current.elements[len(current.elements) - len(tail):]
    current.checked, current.only_titles = 0, True
    current.size = sum(len(e.text) for e in current.elements) + len(SEPARATOR) * (len(current.elements) - 1)
    return tail


def _lead_in(current: _Open, el: Element, target: Element, lim: SizeLimit, table_boundary: bool) -> Why | None:
    """Why lead-in `el` (a caption over its table, a sentence introducing the block `target` after
    it) starts a chunk rather than end the open one: its table starts a chunk (`table_boundary`),
    `target` would not fit after it there, or lies on the next page (a page break would part them)."""
    if target.type == "table" and table_boundary:
        what = "caption" if el.type == "caption" else "sentence introducing it"
        return Why.of(Reason.TABLE if el.type == "caption" else Reason.LEAD_IN,
                       f"the {what}, '{one_line(el.text, 40)}', opens the chunk of the table after it")
    if not lim.fits(current.added_size(el) + len(SEPARATOR) + len(target.text)):
        return Why(Reason.LEAD_IN, (f"'{one_line(el.text, 40)}' opens a chunk with the {target.type} it introduces, "
                                     f"which would not fit after {current.size} chars (> ", ")"))
    if target.page_idx is not None and el.last_page_idx is not None and target.page_idx != el.last_page_idx:
        return Why.of(Reason.LEAD_IN, f"'{one_line(el.text, 40)}' opens a chunk with the {target.type} it introduces "
                                       f"on page {target.page_idx + 1}")
    return None


def _split_element(doc: Document, first: int, group: _Open, heading_level: int, lim: SizeLimit,
                   titles: Mapping[str, Element]) -> list[Chunk]:
    """The group's last element, longer than `limit`, cut into pieces within it: at paragraphs
    (blank lines), then sentences, then line breaks or spaces (a table at rows; spans.Packer),
    each piece an exact slice and its own chunk; the headings and captions before it (if any)
    open the first piece. The first piece keeps the group's boundary; the others say where they
    were cut."""
    *lead, el = group.elements
    limit, opened = lim.value, group.why.at(lim.value)
    packer = Packer(SEPARATOR.join(e.text for e in group.elements), limit, header_room=True)
    units, starts = [], []
    pos = 0
    for e in lead:
        starts.append(pos)
        units.append(PackUnit(pos, pos + len(e.text), TITLE if e.id in titles else HEADING))
        pos += len(e.text) + len(SEPARATOR)
    starts.append(pos)
    if el.type == "table":
        units += packer.lines(PackUnit(pos, pos + len(el.text), TABLE))
    else:
        units += [PackUnit(pos + a, pos + b, PARAGRAPH) for a, b in paragraph_spans(el.text)]
    pieces = packer.pack(units)
    size_note = f", {pos} before it that open it," if len(el.text) <= limit else ""
    out = []
    for k, piece in enumerate(pieces):
        a, b = piece[0].start, piece[-1].end
        held = [e for e, start in zip(group.elements, starts) if start < b and start + len(e.text) > a]
        if k == 0:
            boundary = Boundary(opened.reason, f"{opened.detail}: cut into {len(pieces)} pieces")
        else:
            kind = piece[0].kind
            boundary = Boundary(PIECE_REASONS.get(kind, Reason.SENTENCE_SPLIT),
                                f"element {el.id} ({len(el.text)} chars{size_note} > {limit}) continues: piece {k + 1} of "
                                f"{len(pieces)}, cut at a {'line break or space' if kind == HARD else kind}"
                                f"{packer.why_moved(a)}")
        out.append(_make_chunk(doc, first + k, group, heading_level, lim, span=(a, b), boundary=boundary,
                               elements=held))
    return out


def _boundary(current: _Open, el: Element, lim: SizeLimit, heading_level: int, table_boundary: bool,
              titles: Mapping[str, Element]) -> Why | None:
    """Why `el` starts a new chunk (structural reasons first, then size), or None to append it.
    What a lead-in introduces joins it while the two fit (a page break or table between them aside)."""
    prev = current.elements[-1]
    if titles.get(prev.id) is el and lim.fits(current.added_size(el)):
        return None
    structural = _structural(prev, el, heading_level, table_boundary)
    if structural is not None:
        return structural
    if not lim.fits(len(el.text)):
        return Why(Reason.OVERSIZE_ELEMENT, (f"element {el.id} alone is {len(el.text)} chars > ", ""))
    if not lim.fits(current.added_size(el)):
        added = current.added_size(el) - current.size
        return Why(Reason.SIZE_LIMIT, (f"{current.size} + {added} chars > ", ""))
    return None


def _structural(prev: Element, el: Element, heading_level: int, table_boundary: bool) -> Why | None:
    """The boundary between `prev` and `el` that no size decides: the page changes, a top heading
    or (`table_boundary`) a table starts."""
    prev_page = prev.last_page_idx
    if el.page_idx is not None and prev_page is not None and el.page_idx != prev_page:
        return Why.of(Reason.PAGE_BREAK, f"page {prev_page + 1} → {el.page_idx + 1}")
    if el.text_level is not None and el.text_level <= heading_level:
        return Why.of(Reason.HEADING, f"heading level {el.text_level} '{one_line(el.text)}'")
    if table_boundary and el.type == "table":
        return Why.of(Reason.TABLE, f"table '{one_line(el.text, 40)}' starts a chunk")
    return None


def chunk_type(elements: list[Element], heading_level: int = 2) -> str:
    """specs/1 priority: heading (a text_level <= 2 element), table, code, list, else paragraph."""
    if any(e.text_level is not None and e.text_level <= heading_level for e in elements):
        return "heading"
    types = {e.type for e in elements}
    for t in _TYPE_PRIORITY:
        if t in types:
            return t
    return "paragraph"


def _page_indices(elements: list[Element]) -> list[int]:
    """All 0-based pages the elements cover, ascending (multi-page elements contribute a range)."""
    pages: set[int] = set()
    for e in elements:
        if e.page_idx is not None:
            pages.update(range(e.page_idx, (e.last_page_idx or e.page_idx) + 1))
    return sorted(pages)


def _make_chunk(doc: Document, n: int, group: _Open, heading_level: int, lim: SizeLimit,
                span: tuple[int, int] | None = None, boundary: Boundary | None = None,
                elements: list[Element] | None = None) -> Chunk:
    """The chunk of `group`; with `span`, of that slice [a, b) of its joined text, which holds
    `elements`."""
    text = SEPARATOR.join(e.text for e in group.elements)
    start = end = None
    tokens = None
    if span is not None:
        text = text[span[0]:span[1]]
        if group.elements[0].char_start is not None:
            start, end = group.elements[0].char_start + span[0], group.elements[0].char_start + span[1]
    else:  # the elements' own counts, where adding them up is exact
        tokens = count_joined([e.text for e in group.elements], SEPARATOR)
    els = elements or group.elements
    ctype = chunk_type(els, heading_level)
    return build_chunk(
        doc,
        index=n,
        chunk_id=f"chunk_{n}",
        type=ctype,
        text=text,
        elements=els,
        boundary=boundary or group.why.at(lim.value),
        start_char=start,
        end_char=end,
        section_path=group.section_path,
        heading=group.section_path[-1] if group.section_path else None,
        tokens_est=tokens,
        extra={
            "content": text,
            "chunk_type": ctype,
            "page_idx": els[0].page_idx,
            "page_indices": _page_indices(els),
            "has_table": any(e.type == "table" for e in els),
            "oversize": not lim.fits(len(text)),
        },
    )


STRATEGY = declare(
    chunk_elements,
    "elements",
    uses_kept=True,
    small={"max_chunk_size": 300, "heading_level": 3, "table_boundary": False},
    params=[
        SKIP_CONTENTS,
        Param("max_chunk_size", int, 2000, "hard limit on chunk characters (joined element texts)",
              min=50, max=100_000, ui_step=100),
        Param("heading_level", int, 0, "headings with text_level <= this start a new chunk; 0: chosen from the "
              "document's outline, the level its sections of text begin at, 2 at least (specs/1: 2)", min=0, max=6,
              ui_step=1),
        Param("table_boundary", bool, True, "a table starts a new chunk (needed by the spec's worked example)"),
        Param("skip_noise", bool, True, "skip headers, footers, page numbers and MinerU 'discarded' items"),
        Param("join_headings", bool, True, "a heading is never a chunk alone: what follows it (a sub-heading, a table, "
              "the next page) joins it while the chunk fits, and an element too long to join it whole is cut, its "
              "first piece opening with it; headings ending a chunk move to the next when they open it; false keeps "
              "the spec's boundaries"),
        Param("split_oversize", bool, True, "cut an element longer than max_chunk_size at paragraphs, sentences, then "
              "line breaks or spaces (off: it is a chunk of its own, oversize_element, as specs/1 says)"),
    ],
    doc="MinerU element grouping: page break, h1/h2, 2000-char limit; chunk type by priority",
    spec="docs/specs/1-mineru-element-chunking.md",
    ruleset="elements/2026-12-05",
    offsets="slice_without_skipped",
    boundaries="page change, heading `text_level <= heading_level` (0: the level the document's sections of text begin at in its outline, 2 at least), a table (`table_boundary`, on by default), chunk + next element > `max_chunk_size` (2000); a structural boundary wins over size; a lead-in (a caption, a sentence introducing a table, list or display) opens the chunk of what it introduces, and the headings and lead-ins ending a chunk move to the next when they open it; an element longer than the limit is cut at paragraphs, sentences, then line breaks or spaces into exact slices within the limit (`split_oversize`, on; off keeps the spec's one oversize chunk); a heading is never a chunk alone: what follows joins it while it fits, cut into pieces the first of which opens with it when it does not (`join_headings`, on; off keeps the spec's boundaries); tables of contents and indexes skipped (`skip_contents`)",
    fields='`content`, `chunk_type`, `page_idx`, `page_indices`, `has_table`',
    size_limit=lambda p: (p["max_chunk_size"], "chars"),
    # not with the spec's boundaries alone (tables apart) or headings kept apart
    keeps_lead_ins=lambda p: bool(p["table_boundary"] and p["join_headings"]),
)
