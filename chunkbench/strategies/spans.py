"""Size-bounded packing of text spans, the one packer every strategy that bounds chunk sizes uses
(elements, headers, sections, recursive, sentences, semantic, contract's units).

`Packer` fills chunks from `PackUnit`s (a table row, a paragraph, a sentence, a heading) in order,
up to a size limit, and cuts an oversized unit at paragraph, then sentence, then line or
whitespace boundaries, evening out the cuts inside a paragraph so that no piece is left a scrap.
`ContentText` is the texts of the elements being chunked (page furniture left out) joined by the
canonical separator, with a map back to canonical offsets; `content_chunk` makes a Chunk of a span
of it, and `repeat_table_header` gives a table's later pieces its header row. Sizes are measured
by a caller-supplied function (characters or cl100k tokens) of a span; each cut carries the
reason (`HEADING`, `PARAGRAPH`, `SENTENCE`, `ROW`, `HARD`, ...) it was made for.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from chunkbench.text.segment import _strip_span, is_rule_line, paragraph_spans
from chunkbench.text.sentences import depends_on_previous, sentence_spans
from chunkbench.text.tokenizer import count_tokens
from chunkbench.types.chunk import Boundary, Chunk, Reason, build_chunk
from chunkbench.types.document import CONTENTS_SKIPPED, CONTENTS_TYPES, SEPARATOR, Document, Element, is_noise, lead_ins

from .base import Param

#: unit kinds, coarsest first; a unit that does not fit is refined into the next finer kind
HEADING, PARAGRAPH, TABLE, SENTENCE, ROW, HARD = "heading", "paragraph", "table", "sentence", "row", "hard"
#: what opens the element right after it (types.document.lead_ins: a caption over its table, a
#: sentence introducing a table, list or display): kept with it as a heading is with what it
#: heads, but it opens no section
TITLE = "title"
#: the kinds that are not left alone in a piece nor at its end: headings and tables' titles
TITLES = (HEADING, TITLE)

SizeFn = Callable[[int, int], int]


@dataclass(frozen=True)
class PackUnit:
    """A span [start, end) of a ContentText and what kind of boundary starts it."""

    start: int
    end: int
    kind: str


class ContentText:
    """The chunked elements' texts joined by SEPARATOR, mapped back to canonical offsets.

    Strategies skip page furniture, whose text sits between content elements in `doc.text`;
    packing on this text keeps it out of chunk texts while offsets still point into `doc.text`.
    """

    def __init__(self, elements: Sequence[Element]):
        self.elements = list(elements)
        self.offsets: list[int] = []
        pos = 0
        for e in self.elements:
            self.offsets.append(pos)
            pos += len(e.text) + len(SEPARATOR)
        self.text = SEPARATOR.join(e.text for e in self.elements)
        #: ids of the elements that open the element right after them, with that element
        self.titles = lead_ins(self.elements)

    @classmethod
    def of(cls, doc: Document, *, skip_contents: bool = True) -> tuple[ContentText, dict[str, str]]:
        """The content of `doc` (no empty elements, no page furniture, no table of contents or
        index unless `skip_contents` is off) and the skipped ids → why."""
        skipped: dict[str, str] = {}
        content: list[Element] = []
        for el in doc.elements:
            if el.is_empty:
                skipped[el.id] = "empty text"
            elif is_noise(el):
                skipped[el.id] = f"noise element ({el.raw_type or el.type})"
            elif skip_contents and el.type in CONTENTS_TYPES:
                skipped[el.id] = CONTENTS_SKIPPED
            else:
                content.append(el)
        return cls(content), skipped

    def index_at(self, pos: int, *, end: bool = False) -> int:
        """Index of the element holding offset `pos` (for an exclusive end: holding pos - 1)."""
        return max(0, bisect.bisect_right(self.offsets, pos - 1 if end else pos) - 1)

    def canonical(self, pos: int, *, end: bool = False) -> int:
        """The canonical (`doc.text`) offset of content offset `pos`."""
        i = self.index_at(pos, end=end)
        return self.elements[i].char_start + min(pos - self.offsets[i], len(self.elements[i].text))

    def source_offset(self, pos: int, *, end: bool = False) -> int | None:
        """Offset in the original source file when the loader kept element spans (`src_start`)."""
        i = self.index_at(pos, end=end)
        src = self.elements[i].attrs.get("src_start")
        if src is None:
            return None
        return int(src) + min(pos - self.offsets[i], len(self.elements[i].text))

    def elements_in(self, start: int, end: int) -> list[Element]:
        """The elements a span [start, end) touches, in reading order.

        A span starting in the separator after an element (an overlap cut there) does not touch it."""
        first = self.index_at(start)
        if end <= start:
            return [self.elements[first]]
        if start - self.offsets[first] >= len(self.elements[first].text) and first + 1 < len(self.elements):
            first += 1
        return self.elements[first : self.index_at(end, end=True) + 1]

    def kind(self, i: int) -> str:
        """The kind element i packs as: a heading, a lead-in (what opens the element after it), a
        table, else paragraphs."""
        el = self.elements[i]
        return HEADING if el.is_heading else TITLE if el.id in self.titles else TABLE if el.type == "table" else PARAGRAPH

    def lead_in_boundary(self, pos: int, why: str) -> Boundary:
        """The boundary of a piece that starts at the lead-in holding content offset `pos`: a
        caption opens its table (`table`), a sentence what it introduces (`lead_in`); `why` says
        why the chunk before ends there."""
        el = self.elements[self.index_at(pos)]
        target = self.titles.get(el.id)
        what = target.type if target is not None else "block"
        if el.type == "caption":
            return Boundary(Reason.TABLE, f"a table's caption starts here, with its table: {why}")
        return Boundary(Reason.LEAD_IN, f"the sentence introducing the {what} after it starts here, with it: {why}")

    def element_units(self, i: int, kind: str = PARAGRAPH) -> list[PackUnit]:
        """Element i as units: its paragraphs (blank-line separated), or one unit of `kind`."""
        base = self.offsets[i]
        text = self.elements[i].text
        if kind != PARAGRAPH:
            a, b = _strip_span(text, 0, len(text))
            return [PackUnit(base + a, base + b, kind)] if b > a else []
        return [PackUnit(base + a, base + b, PARAGRAPH) for a, b in paragraph_spans(text)]


#: the reason of a chunk that opens with a unit of this kind, when it opens there because the one
#: before was full (`recursive`, `sentences`: each says why in its own words)
OPENING_REASONS = {HEADING: Reason.HEADING, PARAGRAPH: Reason.PARAGRAPH_SPLIT, SENTENCE: Reason.SENTENCE_SPLIT,
                   TABLE: Reason.TABLE, ROW: Reason.TABLE_ROW_SPLIT, HARD: Reason.WORD_SPLIT}

#: why a later piece of a cut span starts where it does, by the kind of unit the Packer cut at
PIECE_REASONS = {PARAGRAPH: Reason.PARAGRAPH_SPLIT, TABLE: Reason.PARAGRAPH_SPLIT, TITLE: Reason.TABLE, ROW: Reason.TABLE_ROW_SPLIT,
                 SENTENCE: Reason.SENTENCE_SPLIT, HARD: Reason.WORD_SPLIT}


def char_size(start: int, end: int) -> int:
    return end - start


class Packer:
    """Greedy packing of units into pieces whose `size` is at most `limit`.

    Units are taken in order while the piece still fits; a unit too big on its own is refined:
    a paragraph (or heading) into sentences, a table into rows, a sentence or row into hard cuts
    at a line break, else whitespace, else any character that does not separate a combining mark.
    A piece holding only headings refines the next paragraph (or table) into sentences (rows),
    a sentence into hard cuts, instead of ending there: a heading is not left alone when what
    follows is just too big. A table's title (TITLE) counts as a heading here, and a piece never
    ends with one: it opens the next piece, with its table.

    No scraps: a sentence cut in two is cut near its middle (`_even_cut`); a paragraph cut at
    sentences has its sentences moved across the cut while that evens the two pieces out
    (`_even_out`); a sentence too big for any piece fills a piece less than half full before it.
    A cut before a sentence that refers back ("This …", "But …") then moves where one fits
    (`_keep_dependents`).
    """

    def __init__(self, text: str, limit: int, size: SizeFn = char_size, chars_per_unit: int = 1,
                 header_room: bool = False, keep_dependents: bool = True):
        self.text = text
        #: whether a cut before a sentence that refers back moves where it can (`_keep_dependents`)
        self.keep_dependents = keep_dependents
        self.limit = limit
        self.size = size
        #: upper bound of characters per size unit (1 for characters, 128 for cl100k tokens): a
        #: longer span cannot fit, so huge spans are never measured whole
        self.max_chars = limit * chars_per_unit
        #: whether pieces of a table cut at rows leave room for its header (repeat_table_header)
        self.header_room = header_room
        #: the start of each table row below a header → the room its piece leaves for that header
        self._room: dict[int, int] = {}
        #: the start of each piece whose cut moved off a sentence that refers back → that sentence
        self._moved: dict[int, int] = {}

    def fits(self, start: int, end: int, origin: int | None = None) -> bool:
        """Whether [origin or start, end) is within the limit, less the room for a repeated table
        header when the span starts at a row below one."""
        a = start if origin is None else origin
        room = self._room.get(a, 0) if self._room else 0
        return end - a + room <= self.max_chars and self.size(a, end) + room <= self.limit

    def pack(self, units: Sequence[PackUnit]) -> list[list[PackUnit]]:
        queue = deque(units)
        pieces: list[list[PackUnit]] = []
        cur: list[PackUnit] = []
        while queue:
            u = queue.popleft()
            if not cur:
                if self.fits(u.start, u.end):
                    cur = [u]
                else:
                    queue.extendleft(reversed(self.refine(u)))
                continue
            if self.fits(cur[0].start, u.end):
                cur.append(u)
                cur += [queue.popleft() for _ in range(self._more_that_fit(cur[0].start, queue))]
                continue
            if all(c.kind in TITLES for c in cur) and u.kind in (PARAGRAPH, SENTENCE, TABLE):
                # fill the heading's piece: a paragraph by its sentences, a table by its rows (cut
                # finer only when too big on its own), a sentence (or a one-sentence paragraph) at a
                # space; hard cuts and rows are not cut again, so this ends
                fitting_table = u.kind == TABLE and self.fits(u.start, u.end)
                finer = self.lines(u) if fitting_table else self.refine(u, anchor=cur[0].start)
                if len(finer) > 1:
                    queue.extendleft(reversed(finer))
                    continue
            if (u.kind == SENTENCE and cur[-1].kind == SENTENCE and self._one_paragraph(cur[-1], u)
                    and 2 * self.size(cur[0].start, cur[-1].end) < self.limit and not self.fits(u.start, u.end)):
                # a sentence too big for any piece, after a piece less than half full: its first
                # words fill that piece, rather than leave the sentences before it a scrap
                queue.extendleft(reversed(self.hard_split(u.start, u.end, anchor=cur[0].start)))
                continue
            queue.appendleft(u)
            if cur[-1].kind == TITLE and any(c.kind not in TITLES for c in cur):
                while cur[-1].kind in TITLES:  # the table's title (and the headings over it) go with it
                    queue.appendleft(cur.pop())
            pieces.append(cur)
            cur = []
        if cur:
            pieces.append(cur)
        pieces = self._even_out(pieces)
        return self._keep_dependents(pieces) if self.keep_dependents else pieces

    def _even_out(self, pieces: list[list[PackUnit]]) -> list[list[PackUnit]]:
        """Where a paragraph is cut at sentences, move its sentences across the cut, last first,
        while that makes the two pieces more even and both fit: greedy filling left scraps ("not
        be questioned in any other Place.") when what follows did not fit beside them. Repeated
        until no sentence moves (each move is rightwards, so this ends); a piece keeps something
        besides headings; pieces stay as many."""
        moved = True
        while moved:
            moved = False
            for a, b in zip(pieces, pieces[1:]):
                while self._evener_if_moved(a, b):
                    b.insert(0, a.pop())
                    moved = True
        return pieces

    def _evener_if_moved(self, a: list[PackUnit], b: list[PackUnit]) -> bool:
        """Whether the last sentence of piece `a` may move to the start of piece `b`, the two being
        one paragraph cut at a sentence, and the move makes the larger of the two smaller."""
        if not (a[-1].kind == SENTENCE and b[0].kind == SENTENCE and any(x.kind not in TITLES for x in a[:-1])
                and self._one_paragraph(a[-1], b[0]) and self.fits(a[-1].start, b[-1].end)):
            return False
        uneven = max(self.size(a[0].start, a[-1].end), self.size(b[0].start, b[-1].end))
        return max(self.size(a[0].start, a[-2].end), self.size(a[-1].start, b[-1].end)) < uneven

    def _keep_dependents(self, pieces: list[list[PackUnit]]) -> list[list[PackUnit]]:
        """Where a paragraph is cut before a sentence that refers back ("This is especially true of
        NFS."), move the cut to the nearest sentence, either way, that does not refer back, crossing
        only sentences of that paragraph and leaving both pieces fitting and the first with more
        than headings (the more even pair on a tie); else leave it. Pieces stay as many.

        Repeated while a cut moves: moving one cut can make room for its neighbour's, and a cut
        once moved is before a sentence that does not refer back, so it never moves again."""
        leaning = [n for n in range(len(pieces) - 1) if self._leans_back(pieces[n + 1][0])]
        while leaning:
            for n in leaning:
                units, cut = pieces[n] + pieces[n + 1], len(pieces[n])
                moves = [c for c in (self._next_cut(units, cut, -1), self._next_cut(units, cut, 1)) if c is not None]
                if moves:
                    new = min(moves, key=lambda c: (abs(c - cut), self._larger_piece(units, c)))
                    pieces[n], pieces[n + 1] = units[:new], units[new:]
                    self._moved[units[new].start] = units[cut].start
            still = [n for n in leaning if self._leans_back(pieces[n + 1][0])]
            leaning = still if len(still) < len(leaning) else []
        return pieces

    def why_moved(self, start: int) -> str:
        """For a boundary detail: why the piece starting at `start` does not start where packing
        cut, or "" when it does."""
        if start not in self._moved:
            return ""
        at = self._moved[start]
        referring = self.text[at : at + 200].split(maxsplit=5)[:5]  # a window: never copy the text's rest
        return f"; moved off \u201c{' '.join(referring)} …\u201d, which refers back to the sentence before it"

    def _next_cut(self, units: list[PackUnit], cut: int, step: int) -> int | None:
        """The nearest index from `cut` in direction `step` where `units` may be cut instead: the
        walk crosses only sentences of the paragraph cut at `cut` and stops once a piece outgrows
        the limit or the first piece would hold only headings."""
        new = cut
        while True:
            crossed = units[new] if step > 0 else units[new - 1]
            if crossed.kind != SENTENCE or not self._one_paragraph(units[new - 1], units[new]):
                return None  # the cut between units[new - 1] and units[new] is the one stepped over
            new += step
            if not 0 < new < len(units):
                return None
            if step < 0 and all(u.kind in TITLES for u in units[:new]):
                return None
            if not (self.fits(units[0].start, units[new - 1].end) and self.fits(units[new].start, units[-1].end)):
                return None
            if not self._leans_back(units[new]):
                return new

    def _larger_piece(self, units: list[PackUnit], cut: int) -> int:
        """The size of the larger of the two pieces `units` makes when cut at index `cut`."""
        return max(self.size(units[0].start, units[cut - 1].end), self.size(units[cut].start, units[-1].end))

    def _leans_back(self, u: PackUnit) -> bool:
        """Whether `u` is a sentence opening with a word that refers to the one before it."""
        return u.kind == SENTENCE and depends_on_previous(self.text[u.start : min(u.end, u.start + 40)])

    def _one_paragraph(self, a: PackUnit, b: PackUnit) -> bool:
        """Whether units `a` and then `b` lie in one paragraph (no blank line between them)."""
        return SEPARATOR not in self.text[a.end : b.start]

    def _more_that_fit(self, start: int, queue: deque[PackUnit]) -> int:
        """How many of the next queued units still fit in the piece from `start`: galloping then
        binary search, so a piece of P small units (table rows, list items) is measured O(log P)
        times rather than once per unit, each measure at most a piece long. Sizes grow with the
        span, so this is the count unit-by-unit packing would reach."""
        n = len(queue)
        good, bad = 0, 1
        while bad <= n and self.fits(start, queue[bad - 1].end):
            good, bad = bad, bad * 2
        bad = min(bad, n + 1)
        while bad - good > 1:
            mid = (good + bad) // 2
            if self.fits(start, queue[mid - 1].end):
                good = mid
            else:
                bad = mid
        return good

    def rebalance(self, pieces: list[list[PackUnit]], minimum: int) -> list[list[PackUnit]]:
        """Move whole units from the second-last piece into a last piece smaller than `minimum`,
        as long as the second-last stays at or above `minimum` and the last within the limit; a
        unit takes the headings and lead-ins right before it along."""
        if len(pieces) < 2 or minimum <= 0:
            return pieces
        prev, last = list(pieces[-2]), list(pieces[-1])
        while self.size(last[0].start, last[-1].end) < minimum and len(prev) > 1:
            take = 1  # a unit moves with the headings and lead-ins right before it: none ends a piece
            while take < len(prev) and prev[-take - 1].kind in TITLES:
                take += 1
            if take >= len(prev) or self.size(prev[0].start, prev[-take - 1].end) < minimum \
                    or not self.fits(prev[-take].start, last[-1].end):
                break
            last[:0] = prev[-take:]
            del prev[-take:]
        return pieces[:-2] + [prev, last]

    def refine(self, u: PackUnit, anchor: int | None = None) -> list[PackUnit]:
        """Finer units covering `u`; each hard cut fits the limit, so packing always progresses.
        With `anchor`, the first hard cut fits together with the text from `anchor` on."""
        if u.kind in (PARAGRAPH, HEADING, TITLE):
            sentences = self._sentences(u)
            if len(sentences) > 1:
                if u.kind == TITLE:  # its last sentence is the one that leads into what follows
                    sentences[-1] = replace(sentences[-1], kind=TITLE)
                return sentences
        elif u.kind == TABLE:
            rows = self.lines(u)
            if len(rows) > 1:
                return rows
        return self.hard_split(u.start, u.end, anchor)

    def _sentences(self, u: PackUnit) -> list[PackUnit]:
        return [PackUnit(u.start + a, u.start + b, SENTENCE) for a, b in sentence_spans(self.text[u.start : u.end])]

    def lines(self, u: PackUnit) -> list[PackUnit]:
        """A table's rows (its lines) as units, the first of kind TABLE. With `header_room`, a row
        below a pipe table's header and `|---|` line gets room for them when they take at most HEADER_SHARE of the
        limit (a bigger header is not repeated: room for it would leave rows no space)."""
        out: list[PackUnit] = []
        pos = u.start
        for line in self.text[u.start : u.end].split("\n"):
            a, b = _strip_span(self.text, pos, pos + len(line))
            if b > a:  # the first line starts the table (a piece from it says `table`), the others are rows
                out.append(PackUnit(a, b, ROW if out or u.kind == ROW else TABLE))
            pos += len(line) + 1
        if self.header_room and len(out) > 2 and is_rule_line(self.text[out[1].start:out[1].end]):
            room = self.size(out[0].start, out[1].end) + 1
            if room <= self.limit * HEADER_SHARE:
                self._room.update((row.start, room) for row in out[2:])
        return out

    def hard_split(self, start: int, end: int, anchor: int | None = None) -> list[PackUnit]:
        """Cut [start, end) into pieces within the limit, preferring line breaks, then spaces;
        the first piece measured from `anchor` when given (it joins the text before it)."""
        out: list[PackUnit] = []
        pos = start
        while pos < end:
            origin = anchor if anchor is not None and not out else pos
            fit = self._longest_fit(origin, pos, end)
            if fit == end:
                out.append(PackUnit(pos, end, HARD))
                break
            cut = self._cut_point(origin, pos, fit)
            if self.fits(cut, end):  # the next piece is the last: share the text evenly with it
                cut = self._even_cut(origin, pos, cut, end)
            a, b = _strip_span(self.text, pos, cut)
            if b > a:
                out.append(PackUnit(a, b, HARD))
            pos = cut
            while pos < end and self.text[pos].isspace():
                pos += 1
        return out

    def _longest_fit(self, origin: int, pos: int, end: int) -> int:
        """The largest c in (pos, end] with size(origin, c) <= limit (at least pos + 1).

        Galloping then binary search, so the cost is proportional to the piece, not to `end`."""
        good, step = pos + 1, max(1, self.limit)
        bad = min(end, pos + step)
        while self.fits(pos, bad, origin):
            good = bad
            if bad == end:
                return end
            step *= 2
            bad = min(end, pos + step)
        lo, hi = good, bad - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.fits(pos, mid, origin):
                lo = mid
            else:
                hi = mid - 1
        return lo

    def _even_cut(self, origin: int, pos: int, cut: int, end: int) -> int:
        """Where to cut [pos, end) into two pieces that both fit, so the second is not a scrap
        ("not be a Law." after 270 characters): near the middle of [origin, end), at a line break
        within a quarter of the span from it, else after a `,` `;` or `:` within an eighth, else at
        the nearest space; `cut` (the greedy cut, which fits) when no such place fits."""
        text, middle, span = self.text, origin + (end - origin) // 2, end - origin
        if cut <= middle:
            return cut
        candidates = []
        for m in _SPACE_RUN.finditer(text, pos + 1, cut):
            at, off = m.end(), abs(m.end() - middle)
            if at >= cut:
                continue
            tier = (0 if "\n" in m.group() and off <= span // 4 else
                    1 if text[m.start() - 1] in ",;:" and off <= span // 8 else 2)
            candidates.append((tier, off, at))
        return next((at for *_, at in sorted(candidates) if self.fits(at, end)), cut)

    def _cut_point(self, origin: int, pos: int, fit: int) -> int:
        """Where to cut within (pos, fit]: after the last line break or whitespace in the second
        half of the piece [origin, fit) (origin before pos when the piece joins text before it),
        else at `fit` moved back off a combining mark."""
        text = self.text
        half = max(pos, origin + (fit - origin) // 2)
        nl = text.rfind("\n", half, fit)
        if nl > pos:
            return nl + 1
        for i in range(fit - 1, half, -1):
            if text[i].isspace():
                return i + 1
        cut = fit
        while cut - 1 > pos and cut < len(text) and unicodedata.combining(text[cut]):
            cut -= 1
        return cut


def overlap_start(text: str, lo: int, start: int) -> int:
    """Where an overlap reaching back from `start` to `lo` begins: `lo`, or the next word start
    when `lo` falls mid-word (kept when the whole overlap is one word); past whitespace at `lo`, so
    `start` (no overlap) when only whitespace lies between. Shared by the strategies whose overlap is the
    previous chunk's text in place (headers, recursive)."""
    if lo >= start:
        return lo
    mid_word = lo > 0 and not text[lo - 1].isspace()
    i = lo
    while mid_word and i < start and not text[i].isspace():
        i += 1
    j = i
    while j < start and text[j].isspace():
        j += 1
    return lo if mid_word and i > lo and j == start else j


#: a run of whitespace, where a hard cut may fall
_SPACE_RUN = re.compile(r"\s+")

#: the largest share of a chunk's size limit a repeated table header may take
HEADER_SHARE = 1 / 3

#: the parameter of every strategy but `tokens` that leaves tables of contents and indexes out
SKIP_CONTENTS = Param("skip_contents", bool, True, "leave out the table of contents and the index (elements typed "
                      "toc / index at parse; listed as skipped and drawn so); false chunks them as text")


def repeat_table_header(doc: Document, chunk: Chunk, limit: int, unit: str) -> Chunk:
    """`chunk` with its table's header row and `|---|` line on top when it starts at a row of a pipe
    table below them and the result stays within `limit` (`unit`: chars or tokens), as docling-core's
    `repeat_table_header` does: each piece of a table cut at rows reads as a table, the last one too
    when text after the table joins it. What follows the header is still the chunk's span;
    `extra.table_header_repeated` says so."""
    if not chunk.source_blocks or chunk.start_char is None:
        return chunk
    e = doc.element(chunk.source_blocks[0])
    lines = e.text.split("\n", 2)
    if e.type != "table" or len(lines) < 3 or not is_rule_line(lines[1]):
        return chunk
    header = f"{lines[0]}\n{lines[1]}"
    at = chunk.start_char - e.char_start  # where in the table the chunk starts: a row below the header
    if at <= len(header) or at > len(e.text) or e.text[at - 1] != "\n":
        return chunk
    text = f"{header}\n{chunk.text}"
    tokens = count_tokens(text)
    if (tokens if unit == "tokens" else len(text)) > limit:
        return chunk
    return replace(chunk, text=text, tokens_est=tokens, extra={**chunk.extra, "table_header_repeated": True})


def content_chunk(doc: Document, ct: ContentText, index: int, start: int, end: int, boundary: Boundary,
                  extra: dict) -> Chunk:
    """The chunk of content span [start, end): its exact text, the elements it touches, canonical
    offsets, id `<document key>_chunk_<index>`, type `table` when it is all table, else `text`."""
    elements = ct.elements_in(start, end)
    return build_chunk(
        doc, index=index, chunk_id=f"chunk_{index}",
        type="table" if all(e.type == "table" for e in elements) else "text", text=ct.text[start:end],
        elements=elements, boundary=boundary, start_char=ct.canonical(start), end_char=ct.canonical(end, end=True),
        extra=extra,
    )

