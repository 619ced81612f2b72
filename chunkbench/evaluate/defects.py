"""Defects a reviewer sees on the page at once, found in any ChunkSet: `find_defects(chunkset)`.

Each finding has a code (`Defect`, declared once here with its meaning), the chunk(s) it concerns,
where it is (page and box when the document has them, else canonical text offsets) and one line
saying what is wrong. They are counted per 100 chunks (`defect_counts`) in `chunkbench stats`,
every sweep point (`defect_<code>`, `defects_per_100`) and chunk_debug.md, and drawn on the page
as a layer of their own. Own strategies, peers' chunks and foreign chunks alike: the detectors
read only the chunks' spans, texts and source elements against the Document.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chunkbench.loaders.footnotes import citation
from chunkbench.text.notes import note_mark
from chunkbench.text.segment import one_line, skip_space
from chunkbench.text.sentences import depends_on_previous
from chunkbench.text.words import stands_in
from chunkbench.types.chunk import DocumentedCode
from chunkbench.types.document import NOISE_TYPES, Element, is_noise

from .edges import PROSE_TYPES, chunk_range, is_mid_sentence, opens_dependent

if TYPE_CHECKING:
    from chunkbench.types.chunk import Chunk
    from chunkbench.types.chunkset import ChunkSet
    from chunkbench.types.document import Document


class Defect(DocumentedCode):
    """What a reviewer objects to in a chunking. Each code is declared once, here, with its meaning."""

    @classmethod
    def kind(cls) -> str:
        return "defect code"

    LEAD_IN_SPLIT = ("lead_in_split", "a sentence that introduces a table, list or display (a colon, \"the following\", "
                     "\"as follows\", a sentence the display goes on) ends one chunk, what it introduces starts the next")
    CAPTION_SPLIT = "caption_split", "a caption in another chunk than the table or figure it names"
    HEADING_ORPHAN = ("heading_orphan", "a chunk of headings alone, or one that ends with a heading whose section "
                      "starts in the next chunk")
    FURNITURE_INSIDE = ("furniture_inside", "a running header, footer or page number between body parts of a chunk, "
                        "or a footnote in a chunk that does not cite it, amid its text or in a piece of a table")
    TOC_CHUNK = "toc_chunk", "a chunk of a table of contents (dot leaders, titles and page numbers)"
    INDEX_CHUNK = "index_chunk", "a chunk of a back-of-book index (entries and page numbers)"
    MID_SENTENCE = ("mid_sentence", "a chunk ends inside a sentence (a footnote mark, reference sign or list number "
                    "after a full stop is no such end)")
    MID_WORD = "mid_word", "a chunk ends inside a word"
    DANGLING_START = ("dangling_start", "a chunk opens with a word that needs the text before it (\"It\", \"This\", "
                      "\"However,\", \"These\"), which is in another chunk")
    TABLE_ROW_CUT = "table_row_cut", "a chunk boundary inside a table row"
    TABLE_HEADER_MISSING = ("table_header_missing", "a later piece of a table without the table's header row")
    TINY = "tiny", "a chunk below the setting's own minimum (or a tenth of its size limit)"
    OVERSIZE = "oversize", "a chunk above the setting's own size limit"


#: code -> meaning (for the documentation tables and the reports)
DEFECT_DOCS: dict[str, str] = {d.value: d.doc for d in Defect}
#: a chunk below this share of its setting's size limit is tiny, when the setting states no minimum
TINY_SHARE = 0.1
#: parameters that state a setting's minimum chunk size
_MINIMUMS = ("min_chars", "min_tokens", "min_chunk_chars")


@dataclass(frozen=True)
class Finding:
    """One defect: its code, the chunks (by index) it concerns, a line saying what is wrong, and
    where: a 1-based page and box in points when the document has them, canonical offsets always."""

    code: Defect
    chunks: tuple[int, ...]
    detail: str
    page: int | None = None
    box: tuple[float, float, float, float] | None = None
    start_char: int | None = None
    end_char: int | None = None

    @property
    def place(self) -> str:
        """Where, for people: "p. 12" or "chars 1200-1260"."""
        if self.page is not None:
            return f"p. {self.page}"
        if self.start_char is not None:
            return f"chars {self.start_char}-{self.end_char if self.end_char is not None else self.start_char}"
        return "no place"

    def to_dict(self) -> dict:
        return {"code": self.code.value, "chunks": list(self.chunks), "detail": self.detail, "page": self.page,
                "box": list(self.box) if self.box is not None else None, "start_char": self.start_char,
                "end_char": self.end_char}


def setting_size(chunkset: ChunkSet) -> tuple[int, int, str] | None:
    """(minimum, limit, unit) of the chunk size the chunkset's setting aims at: its strategy's size
    limit (own strategies, peers) and its stated minimum or TINY_SHARE of the limit; None when
    unknown (foreign chunks, a strategy without one)."""
    from chunkbench.errors import ParamError
    from chunkbench.strategies import get_strategy

    try:
        strategy = get_strategy(chunkset.strategy)
    except ParamError:
        return None
    if strategy.target_size is None:
        return None
    try:
        limit, unit = strategy.target_size(chunkset.params)
    except (KeyError, TypeError, ValueError):
        return None
    minimum = next((int(chunkset.params[k]) for k in _MINIMUMS if isinstance(chunkset.params.get(k), int)), None)
    return (minimum if minimum is not None else int(limit * TINY_SHARE)), int(limit), unit


def find_defects(chunkset: ChunkSet, codes: Iterable[str] | None = None) -> list[Finding]:
    """Every defect of `chunkset`, in reading order (by place, then code); only `codes` when given."""
    wanted = {Defect.of(c) for c in codes} if codes is not None else set(Defect)
    scan = _Scan(chunkset)
    found: list[Finding] = []
    for code, detector in _DETECTORS:
        if code & wanted:
            found += [f for f in detector(scan) if f.code in wanted]
    return sorted(found, key=lambda f: (f.start_char if f.start_char is not None else -1, f.chunks, f.code.value))


def defect_counts(findings: Sequence[Finding], chunks: int) -> dict[str, float | None]:
    """`defects_per_100` and `defect_<code>` per 100 chunks (None without chunks), every code listed."""
    counts = Counter(f.code for f in findings)
    per = (lambda n: round(100 * n / chunks, 2)) if chunks else (lambda n: None)
    return {"defects_per_100": per(len(findings)), **{f"defect_{d.value}": per(counts[d]) for d in Defect}}


def defect_metrics(chunkset: ChunkSet) -> dict[str, float | None]:
    """The defect counts of `chunkset`, as a sweep point and `chunkbench stats` report them."""
    return defect_counts(find_defects(chunkset), len(chunkset.chunks))


# --------------------------------------------------------------------------- the scan


class _Scan:
    """What the detectors share: chunk spans by position, the content elements in reading order."""

    def __init__(self, chunkset: ChunkSet):
        self.chunkset = chunkset
        self.doc: Document = chunkset.doc
        self.chunks = chunkset.chunks
        self.spans = [chunk_range(self.doc, c) for c in self.chunks]
        placed = sorted((s[0], s[1], i) for i, s in enumerate(self.spans) if s is not None and s[1] > s[0])
        self._starts = [a for a, _, _ in placed]
        self._placed = placed
        self._reach = _running_max(b for _, b, _ in placed)
        #: the elements chunked: text, no page furniture, none the strategy skipped (a table of contents)
        self.content = [e for e in self.doc.elements
                        if e.text.strip() and not is_noise(e) and e.id not in chunkset.skipped]
        self._by_id = {e.id: e for e in self.doc.elements}
        #: each content element's index in `content`, each element's in `doc.elements`
        self.position = {e.id: k for k, e in enumerate(self.content)}
        self.element_index = {e.id: k for k, e in enumerate(self.doc.elements)}

    def holders(self, pos: int) -> list[int]:
        """Indices of the chunks whose span holds canonical offset `pos`, in order."""
        j = bisect.bisect_right(self._starts, pos) - 1
        out = []
        while j >= 0 and self._reach[j] > pos:
            a, b, i = self._placed[j]
            if a <= pos < b:
                out.append(i)
            j -= 1
        return sorted(out)

    def together(self, a: int, b: int) -> bool:
        """Whether one chunk holds both canonical offsets `a` and `b` (a <= b)."""
        return any(self.spans[i][1] > b for i in self.holders(a))  # type: ignore[index]

    def elements_of(self, chunk: Chunk) -> list[Element]:
        """The chunk's source elements (those of this document), in reading order."""
        return [self._by_id[i] for i in chunk.source_blocks if i in self._by_id]

    def citation(self, note: Element) -> Element | None:
        """The block before footnote `note` that cites its mark (on its page or the one before)."""
        at = self.element_index.get(note.id)
        found = citation(self.doc.elements, at, note) if at is not None else None
        return self.doc.elements[found] if found is not None else None

    def at_element(self, code: Defect, chunks: Sequence[int], e: Element, detail: str) -> Finding:
        return Finding(code, tuple(dict.fromkeys(chunks)), detail, *_page_box(e), e.char_start, e.char_end)

    def at_chunk(self, code: Defect, i: int, detail: str, *, end: bool = False) -> Finding:
        """A finding placed at chunk i: its last box (`end`) or its first, and its span."""
        c, span = self.chunks[i], self.spans[i]
        box = (c.bbox[-1] if end else c.bbox[0]) if c.bbox else None
        return Finding(code, (i,), detail, box.page if box else c.page_start,
                       (box.x0, box.y0, box.x1, box.y1) if box else None,
                       span[0] if span else None, span[1] if span else None)


def _running_max(values: Iterable[int]) -> list[int]:
    out, top = [], -1
    for v in values:
        top = max(top, v)
        out.append(top)
    return out


def _page_box(e: Element) -> tuple[int | None, tuple[float, float, float, float] | None]:
    part = e.parts[-1] if e.parts else e
    if part.page_idx is None:
        return None, None
    return part.page_idx + 1, tuple(part.bbox) if part.bbox is not None else None  # type: ignore[return-value]


def _quote(text: str, n: int = 50) -> str:
    return f"\u201c{one_line(text, n)}\u201d"


# --------------------------------------------------------------------------- detectors


def _lead_ins_and_captions(scan: _Scan) -> Iterator[Finding]:
    """lead_in_split and caption_split: an element that opens the block after it (types.document.lead_ins),
    or a caption right under its table or figure, not in one chunk with it."""
    opens = scan.doc.lead_ins_without(ids=scan.chunkset.skipped)
    pairs = [(scan._by_id[i], target) for i, target in opens.items()]
    for before, after in zip(scan.content, scan.content[1:]):
        if after.type == "caption" and before.type in ("table", "image") and after.id not in opens \
                and before.page_idx == after.page_idx:
            pairs.append((after, before))  # a caption under what it names
    for lead, target in pairs:
        a, b = sorted((lead, target), key=lambda e: e.char_start)
        if not scan.holders(a.char_end - 1) or not scan.holders(b.char_start) or scan.together(a.char_end - 1, b.char_start):
            continue
        chunks = [*scan.holders(a.char_end - 1), *scan.holders(b.char_start)]
        if lead.type == "caption":
            yield scan.at_element(Defect.CAPTION_SPLIT, chunks, lead,
                                  f"caption {_quote(lead.text)} is in another chunk than its {target.type}")
        else:
            yield scan.at_element(Defect.LEAD_IN_SPLIT, chunks, lead,
                                  f"{_quote(lead.text[-60:])} introduces the {target.type} after it, "
                                  "which starts another chunk")


def _headings(scan: _Scan) -> Iterator[Finding]:
    """heading_orphan: chunks of headings alone, and chunks ending with a heading whose section
    starts in the next chunk."""
    following = {a.id: b for a, b in zip(scan.content, scan.content[1:])}
    for i, c in enumerate(scan.chunks):
        body = [e for e in scan.elements_of(c) if not is_noise(e)]
        if body and all(e.is_heading for e in body):
            yield scan.at_chunk(Defect.HEADING_ORPHAN, i, f"headings alone: {_quote(body[-1].text)}")
            continue
        span = scan.spans[i]
        if not body or span is None or not body[-1].is_heading or len(body) < 2:
            continue
        nxt = following.get(body[-1].id)
        if nxt is not None and not nxt.is_heading and span[1] <= nxt.char_start and scan.holders(nxt.char_start):
            yield scan.at_element(Defect.HEADING_ORPHAN, [i, *scan.holders(nxt.char_start)], body[-1],
                                  f"ends with the heading {_quote(body[-1].text)}; its section starts in the next chunk")


def _furniture(scan: _Scan) -> Iterator[Finding]:
    """furniture_inside: running headers, footers and page numbers between body parts of a chunk's
    text; a footnote the chunk does not cite between its body parts, or in a piece of a table
    when a block outside the chunk cites it (loaders.footnotes.citation: where it belongs)."""
    for i, c in enumerate(scan.chunks):
        els = scan.elements_of(c)
        body = [k for k, e in enumerate(els) if e.type not in NOISE_TYPES and e.type != "footnote"]
        if not body:
            continue
        citer: Element | None = None  # the block citing the note a footnote paragraph belongs to
        for k, e in enumerate(els):
            if e.type in NOISE_TYPES:
                if body[0] < k < body[-1] and stands_in(e.text, c.text):
                    yield scan.at_element(Defect.FURNITURE_INSIDE, [i], e,
                                          f"{e.type.replace('_', ' ')} {_quote(e.text, 30)} between body parts")
                continue
            if e.type != "footnote":
                continue
            if note_mark(e.text) is not None or not (k and els[k - 1].type == "footnote"):
                citer = scan.citation(e)  # an unmarked paragraph goes on the note before it
            if citer is not None and citer in els:
                continue
            if body[0] < k < body[-1]:
                yield scan.at_element(Defect.FURNITURE_INSIDE, [i], e,
                                      f"footnote {_quote(e.text, 40)} between body parts that do not cite it")
            elif citer is not None and any(els[j].type == "table" for j in body):
                yield scan.at_element(Defect.FURNITURE_INSIDE, [i], e,
                                      f"footnote {_quote(e.text, 40)} in a piece of a table; "
                                      f"{_quote(citer.text[-40:], 40)} cites it")


def _contents(scan: _Scan) -> Iterator[Finding]:
    """toc_chunk and index_chunk: chunks whose text is mostly a table of contents or an index."""
    for i, c in enumerate(scan.chunks):
        els = [e for e in scan.elements_of(c) if not is_noise(e)]
        total = sum(len(e.text) for e in els)
        for kind, code in (("toc", Defect.TOC_CHUNK), ("index", Defect.INDEX_CHUNK)):
            share = sum(len(e.text) for e in els if e.type == kind)
            if total and 2 * share >= total:
                what = "table of contents" if kind == "toc" else "index"
                yield scan.at_chunk(code, i, f"{round(100 * share / total)}% of it is the document's {what}")


def _cuts(scan: _Scan) -> Iterator[Finding]:
    """mid_word and mid_sentence at each chunk's end (the document's last chunk aside), dangling_start
    at each start, table_row_cut at a boundary inside a table row."""
    doc, text = scan.doc, scan.doc.text
    last = max((i for i, s in enumerate(scan.spans) if s is not None), key=lambda i: scan.spans[i][1], default=None)  # type: ignore[index]
    ends = {s[1] for s in scan.spans if s is not None}  # a cut that ends one chunk and starts the next counts once
    for i, c in enumerate(scan.chunks):
        span = scan.spans[i]
        if span is None:
            continue
        start, end = span
        if i != last and 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
            yield scan.at_chunk(Defect.MID_WORD, i, f"ends inside the word {_quote(_word_at(text, end), 30)}", end=True)
        elif i != last and is_mid_sentence(doc, c):
            yield scan.at_chunk(Defect.MID_SENTENCE, i, f"ends mid-sentence: {_quote(c.text.rstrip()[-50:])}", end=True)
        if i and _dangles(scan, c, start):
            yield scan.at_chunk(Defect.DANGLING_START, i, f"opens with {_quote(c.text.lstrip()[:40])}, "
                                                          "which needs the text before it")
        cut = _row_cut(doc, start if start not in ends else None, end, i == last)
        if cut:
            yield scan.at_chunk(Defect.TABLE_ROW_CUT, i, cut, end=not cut.startswith("starts"))


def _word_at(text: str, pos: int) -> str:
    a, b = pos, pos
    while a > 0 and text[a - 1].isalnum():
        a -= 1
    while b < len(text) and text[b].isalnum():
        b += 1
    return f"{text[a:pos]}|{text[pos:b]}"


def _dangles(scan: _Scan, chunk: Chunk, start: int) -> bool:
    """Whether the chunk opens with a sentence that refers back, whose antecedent (the prose just
    before it, in its section) is in another chunk."""
    if opens_dependent(scan.doc, chunk):
        return True
    text = scan.doc.text
    at = skip_space(text, start)
    element = scan.doc.element_at(at)
    if element is None or element.char_start != at or element.type not in PROSE_TYPES or element.is_heading:
        return False
    k = scan.position.get(element.id)
    before = scan.content[k - 1] if k else None
    return (before is not None and before.type in PROSE_TYPES | {"list"} and not before.is_heading
            and depends_on_previous(element.text[:60]))


def _row_cut(doc: Document, start: int | None, end: int, last: bool) -> str:
    """What a chunk's start (None: where the chunk before ends, counted there) or end cuts inside a
    table row, or "" when neither does."""
    text = doc.text
    for pos, what in ((start, "starts"), (end, "ends")):
        if pos is None or what == "ends" and last:
            continue
        e = doc.element_at(pos - 1 if what == "ends" else pos)
        if e is None or e.type != "table" or not e.char_start < pos < e.char_end:
            continue
        if text[pos - 1] != "\n" and text[pos] != "\n" and "\n" in e.text:
            line_start = text.rfind("\n", e.char_start, pos) + 1 or e.char_start
            return f"{what} inside the table row {_quote(text[line_start:pos + 20], 40)}"
    return ""


def _table_headers(scan: _Scan) -> Iterator[Finding]:
    """table_header_missing: a piece of a pipe table after its first without the table's header row."""
    for i, c in enumerate(scan.chunks):
        span = scan.spans[i]
        if span is None:
            continue
        for e in scan.elements_of(c):
            if e.type != "table" or not e.char_start < span[0] < e.char_end:
                continue
            lines = e.text.split("\n", 2)
            if len(lines) < 3 or not set(lines[1]) <= set("|-: ") or "-" not in lines[1]:
                continue
            if " ".join(lines[0].split()) not in " ".join(c.text.split()):
                yield scan.at_chunk(Defect.TABLE_HEADER_MISSING, i,
                                    f"continues the table {_quote(lines[0], 40)} without its header row")


def _sizes(scan: _Scan) -> Iterator[Finding]:
    """tiny and oversize against the setting's own size (none for chunks of an unknown setting); a
    chunk that is one whole section, from its heading to the next, is never tiny (a short section
    kept apart from its neighbours is the strategy's choice, not a fragment)."""
    size = setting_size(scan.chunkset)
    if size is None:
        return
    minimum, limit, unit = size
    for i, c in enumerate(scan.chunks):
        n = c.tokens_est if unit == "tokens" else c.char_len
        if n < minimum and not _whole_section(scan, c):
            yield scan.at_chunk(Defect.TINY, i, f"{n} {unit} < {minimum}, the setting's minimum")
        elif n > limit:
            yield scan.at_chunk(Defect.OVERSIZE, i, f"{n} {unit} > {limit}, the setting's limit")


def _whole_section(scan: _Scan, chunk: Chunk) -> bool:
    """Whether the chunk holds one section whole: it opens with a heading that has a body in the chunk,
    and the content after its last element is the next heading (or the document's end)."""
    body = [e for e in scan.elements_of(chunk) if scan.position.get(e.id) is not None]
    if len(body) < 2 or not body[0].is_heading or body[-1].is_heading:
        return False
    after = scan.position[body[-1].id] + 1
    return after == len(scan.content) or scan.content[after].is_heading


#: each detector with the codes it finds (a run skips those none of whose codes is wanted)
_DETECTORS = (
    ({Defect.LEAD_IN_SPLIT, Defect.CAPTION_SPLIT}, _lead_ins_and_captions),
    ({Defect.HEADING_ORPHAN}, _headings),
    ({Defect.FURNITURE_INSIDE}, _furniture),
    ({Defect.TOC_CHUNK, Defect.INDEX_CHUNK}, _contents),
    ({Defect.MID_WORD, Defect.MID_SENTENCE, Defect.DANGLING_START, Defect.TABLE_ROW_CUT}, _cuts),
    ({Defect.TABLE_HEADER_MISSING}, _table_headers),
    ({Defect.TINY, Defect.OVERSIZE}, _sizes),
)

__all__ = ["DEFECT_DOCS", "Defect", "Finding", "defect_counts", "defect_metrics", "find_defects", "setting_size"]
