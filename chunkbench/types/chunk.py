"""Chunk, Boundary and the boundary reason codes; `build_chunk` is the one place chunks are made.

Every strategy builds its chunks through `build_chunk`, which derives pages, bboxes, source blocks
and the token estimate from the chunk's source elements the same way for all strategies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from chunkbench.text.tokenizer import count_tokens

from .document import Document, Element


class DocumentedCode(str, Enum):
    """A set of codes, each declared once with a line of its meaning (`doc`): a code is its string
    in the files that write it, and the tables that list them are generated from the declaration."""

    doc: str

    def __new__(cls, value: str, doc: str) -> DocumentedCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.doc = doc
        return member

    @classmethod
    def of(cls, code: str) -> Any:
        """The member of a code as a file writes it; ValueError naming the known codes for another."""
        try:
            return cls._value2member_map_[code]
        except KeyError:
            raise ValueError(f"{code!r} is not a {cls.kind()}; known: {', '.join(m.value for m in cls)}") from None

    @classmethod
    def kind(cls) -> str:
        """What the codes are, for messages ("boundary reason code")."""
        return "code"


class Reason(DocumentedCode):
    """Why a chunk starts where it does. Each code is declared once, here, with its meaning: docs/guide.md
    table, the chunks.json schema's enum and the reports are generated from this list
    (`python -m chunkbench.ui.doctables`)."""

    @classmethod
    def kind(cls) -> str:
        return "boundary reason code"

    DOCUMENT_START = "document_start", "first chunk of the document"
    PAGE_BREAK = "page_break", "the page changed"
    HEADING = "heading", "a heading starts a new chunk"
    SECTION_CHANGE = ("section_change", "the section path changed (in the contract; no built-in strategy emits it, "
                      "since a section path changes only at a heading, which is a boundary of its own)")
    SIZE_LIMIT = "size_limit", "adding the next element would exceed the size limit"
    TABLE = "table", "a table starts (tables are chunks of their own)"
    AFTER_TABLE = "after_table", "the previous element was a table, which is a chunk of its own"
    LEAD_IN = ("lead_in", "a sentence that introduces the table, list or display after it starts a chunk, with what "
               "it introduces (the chunk before was full, or a page break or table boundary falls between them)")
    CLAUSE_CHANGE = "clause_change", "a new clause reference starts, or the clause numbering resets"
    LIST_LIMIT = "list_limit", "the list-item limit was reached; a long list is split at an item boundary"
    LIST_RUN = "list_run", "a run of list items begins"
    PARAGRAPH_SPLIT = ("paragraph_split", "an oversized section was split at a paragraph boundary (for another "
                       "chunker's chunks: the cut is at a paragraph's start or break)")
    SENTENCE_SPLIT = ("sentence_split", "an oversized paragraph was split at a sentence boundary (for another "
                      "chunker's chunks: the cut follows a sentence end)")
    WORD_SPLIT = "word_split", "a sentence longer than the size limit was cut at a line break or a space"
    TABLE_ROW_SPLIT = "table_row_split", "a table was cut between two of its rows"
    MID_SENTENCE = "mid_sentence", "another chunker cut inside a sentence (inferred by `cb.inspect`)"
    MID_WORD = "mid_word", "another chunker cut inside a word (inferred by `cb.inspect`)"
    UNLOCATED = "unlocated", "another chunker's chunk whose text was not found in this document"
    UNCERTAIN_PLACE = ("uncertain_place", "another chunker's chunk placed by some of its words only (fuzzy or partly "
                       "located): no reason for its start is read from a place that is not known")
    TOKEN_WINDOW = "token_window", "a fixed-size token window begins"
    TOPIC_SHIFT = ("topic_shift", "the next sentence's meaning moves away: its similarity to the sentence before "
                   "(all-MiniLM-L6-v2) fell below the document's threshold (`semantic`)")
    MERGED_SMALL = "merged_small", "sections below the minimum size were merged into this chunk"
    FALLBACK_PARAGRAPHS = "fallback_paragraphs", "no headings were found, so the text is chunked by paragraphs"
    REVIEWER_EDIT = ("reviewer_edit", "a reviewer merged, split or moved chunks here (the detail says who and when; "
                     "`chunkbench edit`, `cb.chunk(..., edits=\"apply\")`)")
    OVERSIZE_ELEMENT = ("oversize_element", "one element alone exceeds the size limit: `elements` cuts it into "
                        "pieces (this is the first), or keeps it whole with `split_oversize=false`")


#: code -> meaning, derived from Reason (for lookups by the string a chunks.json holds)
REASON_DOCS: dict[str, str] = {r.value: r.doc for r in Reason}

#: the reasons that say a size limit cut here, inside what belongs together (a paragraph, a list, a
#: section, a sentence): the cuts a return policy may reach across (evaluate.retrieval.budget); every
#: other reason is a structural boundary (a heading, a table, a page, a clause, a topic)
SIZE_CUTS: frozenset[Reason] = frozenset({
    Reason.SIZE_LIMIT, Reason.LIST_LIMIT, Reason.PARAGRAPH_SPLIT, Reason.SENTENCE_SPLIT, Reason.WORD_SPLIT,
    Reason.TABLE_ROW_SPLIT, Reason.MID_SENTENCE, Reason.MID_WORD, Reason.TOKEN_WINDOW, Reason.FALLBACK_PARAGRAPHS,
})


@dataclass(frozen=True)
class Boundary:
    """Why a chunk starts here: a reason code and a sentence a reviewer understands."""

    reason: Reason
    detail: str

    def to_dict(self) -> dict:
        return {"reason": self.reason.value, "detail": self.detail}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Boundary:
        return cls(Reason.of(d["reason"]), str(d["detail"]))


@dataclass(frozen=True)
class BBox:
    """A region on a page: 1-based `page`, PDF points, origin top-left."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float

    def to_dict(self) -> dict:
        return {"page": self.page, "x0": self.x0, "y0": self.y0, "x1": self.x1, "y1": self.y1}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BBox:
        return cls(int(d["page"]), d["x0"], d["y0"], d["x1"], d["y1"])


@dataclass(frozen=True)
class Chunk:
    """One chunk with its evidence (pages, bboxes, source elements) and its boundary reason.

    `extra` holds the fields a strategy's spec adds (clause_ref, header_path, tokens, ...); they
    are written as top-level fields in chunks.json.
    """

    chunk_id: str
    index: int
    type: str
    text: str
    tokens_est: int
    page_start: int | None
    page_end: int | None
    bbox: tuple[BBox, ...]
    source_blocks: tuple[str, ...]
    section_path: tuple[str, ...]
    heading: str | None
    boundary: Boundary
    start_char: int | None
    end_char: int | None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def char_len(self) -> int:
        return len(self.text)

    @property
    def span_text(self) -> str:
        """The text its span holds: `text` less the table header row and `|---|` line repeated on
        top of a later piece of a table (`extra.table_header_repeated`)."""
        if self.extra.get("table_header_repeated"):
            return self.text.split("\n", 2)[2]
        return self.text

    @property
    def pages(self) -> list[int]:
        """1-based pages the chunk touches."""
        if self.page_start is None:
            return []
        return list(range(self.page_start, (self.page_end or self.page_start) + 1))

    def to_dict(self) -> dict:
        d = {
            "chunk_id": self.chunk_id,
            "index": self.index,
            "type": self.type,
            "text": self.text,
            "char_len": self.char_len,
            "tokens_est": self.tokens_est,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "bbox": [b.to_dict() for b in self.bbox],
            "source_blocks": list(self.source_blocks),
            "section_path": list(self.section_path),
            "heading": self.heading,
            "boundary": self.boundary.to_dict(),
            "start_char": self.start_char,
            "end_char": self.end_char,
            "metadata": dict(self.metadata),
        }
        for key, value in self.extra.items():
            if key in d:
                raise ValueError(f"strategy field {key!r} collides with a common chunk field")
            d[key] = value
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Chunk:
        """The Chunk of a chunks.json chunk dict (`to_dict`'s inverse): fields beyond the common
        ones become `extra`; `char_len` is derived from the text."""
        return cls(
            chunk_id=str(d["chunk_id"]),
            index=int(d["index"]),
            type=str(d["type"]),
            text=str(d["text"]),
            tokens_est=int(d["tokens_est"]),
            page_start=d.get("page_start"),
            page_end=d.get("page_end"),
            bbox=tuple(BBox.from_dict(b) for b in d.get("bbox") or ()),
            source_blocks=tuple(d.get("source_blocks") or ()),
            section_path=tuple(d.get("section_path") or ()),
            heading=d.get("heading"),
            boundary=Boundary.from_dict(d["boundary"]),
            start_char=d.get("start_char"),
            end_char=d.get("end_char"),
            metadata=dict(d.get("metadata") or {}),
            extra={k: v for k, v in d.items() if k not in COMMON_FIELDS},
        )


#: the fields every chunk has in chunks.json (a strategy's own fields come beside them)
COMMON_FIELDS = (
    "chunk_id", "index", "type", "text", "char_len", "tokens_est", "page_start", "page_end", "bbox",
    "source_blocks", "section_path", "heading", "boundary", "start_char", "end_char", "metadata",
)


def element_pages(elements: Sequence[Element], start: int | None = None,
                  end: int | None = None) -> tuple[int | None, int | None]:
    """1-based first and last page of a run of elements (None when none has a page); with the
    chunk's canonical span [start, end), a table stitched across pages counts only the pages of
    the part the span covers."""
    elements = _parts_within(elements, start, end)
    first = [e.page_idx for e in elements if e.page_idx is not None]
    last = [e.last_page_idx for e in elements if e.last_page_idx is not None]
    if not first:
        return None, None
    return min(first) + 1, max(last) + 1


def _parts_within(elements: Sequence[Element], start: int | None, end: int | None) -> Sequence[Element]:
    """`elements`, a stitched table (Element.parts) replaced by its page parts that [start, end)
    overlaps (all of them without a span); unchanged when there is no stitched table."""
    if all(e.page_end_idx is None for e in elements):
        return elements
    out: list[Element] = []
    for e in elements:
        parts = e.parts
        if len(parts) > 1 and start is not None and end is not None:
            parts = tuple(p for p in parts if p.char_start < end and start < p.char_end) or parts
        out.extend(parts)
    return out


def _frozen(cls: type, **fields: Any) -> Any:
    """An instance of the frozen dataclass `cls` from ALL its field values, equal to `cls(**fields)`.

    The generated `__init__` sets each field through `object.__setattr__`; filling the instance
    dict directly costs a fraction of that, which matters for the tens of thousands of boxes and
    chunks a large document yields. Only for classes without `__post_init__` (checked below)."""
    obj: Any = object.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def element_bboxes(elements: Sequence[Element], start: int | None = None, end: int | None = None) -> tuple[BBox, ...]:
    """One BBox per source element that has one, in reading order; a table stitched across pages
    has one per page part (only those [start, end) covers, when given)."""
    out = []
    new = object.__new__
    for e in _parts_within(elements, start, end):
        if e.bbox is not None and e.page_idx is not None:
            x0, y0, x1, y1 = e.bbox
            box = new(BBox)  # `_frozen(BBox, ...)` inlined: this runs once per element
            box.__dict__.update(page=e.page_idx + 1, x0=x0, y0=y0, x1=x1, y1=y1)
            out.append(box)
    return tuple(out)


def build_chunk(
    doc: Document,
    *,
    index: int,
    chunk_id: str,
    type: str,
    text: str,
    elements: Sequence[Element],
    boundary: Boundary,
    section_path: Sequence[str] = (),
    heading: str | None = None,
    start_char: int | None = None,
    end_char: int | None = None,
    bbox: Sequence[BBox] | None = None,
    pages: tuple[int | None, int | None] | None = None,
    extra: Mapping[str, Any] | None = None,
    tokens_est: int | None = None,
    source_blocks: Sequence[str] | None = None,
) -> Chunk:
    """Make a Chunk from its source elements; pages, bboxes and offsets default to theirs.

    `tokens_est` defaults to the cl100k count of `text`; a strategy that has already tokenized the
    document (tokens) passes its own count instead of encoding the text a second time. Likewise
    `source_blocks` defaults to the elements' ids (tokens passes slices of one precomputed tuple)."""
    page_start, page_end = pages if pages is not None else element_pages(elements, start_char, end_char)
    if start_char is None and elements:
        start_char = elements[0].char_start
    if end_char is None and elements:
        end_char = elements[-1].char_end
    return _frozen(
        Chunk,
        chunk_id=chunk_id,
        index=index,
        type=type,
        text=text,
        tokens_est=count_tokens(text) if tokens_est is None else tokens_est,
        page_start=page_start,
        page_end=page_end,
        bbox=tuple(bbox) if bbox is not None else element_bboxes(elements, start_char, end_char),
        source_blocks=tuple(e.id for e in elements) if source_blocks is None else tuple(source_blocks),
        section_path=tuple(section_path),
        heading=heading,
        boundary=boundary,
        start_char=start_char,
        end_char=end_char,
        metadata=dict(doc.metadata),
        extra=dict(extra or {}),
    )


def with_section_paths(doc: Document, chunks: Sequence[Chunk]) -> tuple[Chunk, ...]:
    """`chunks`, each one without a section path given the headings above its start
    (`Document.section_paths`) and, as its heading, the innermost of them: what every chunk carries
    into chunks.json and the hand-offs, whichever chunker made it. Chunks with a path of their own
    (a strategy's own heading rules) keep it."""
    missing = [c for c in chunks if not c.section_path and c.start_char is not None]
    if not missing:
        return tuple(chunks)
    paths = dict(zip((c.start_char for c in missing), doc.section_paths(c.start_char for c in missing)))
    out = []
    for c in chunks:
        path = paths.get(c.start_char) if not c.section_path and c.start_char is not None else None
        if path:
            c = _frozen(Chunk, **{**c.__dict__, "section_path": path, "heading": c.heading or path[-1]})
        out.append(c)
    return tuple(out)


# `_frozen` skips `__init__`: it must stay equivalent (no __post_init__, every field given)
assert not hasattr(BBox, "__post_init__") and not hasattr(Chunk, "__post_init__")


def boundary_key(chunk: Chunk) -> str:
    """Identity of the boundary where `chunk` starts, independent of strategy parameters.

    The chunk's start offset in the canonical text plus its first source element, so review
    verdicts and boundary diffs recognise the same cut in another run."""
    first = chunk.source_blocks[0] if chunk.source_blocks else ""
    return f"{first}@{chunk.start_char if chunk.start_char is not None else ''}"


class ChunkedDocument(Protocol):
    """What serialisers (export, handoff) read from a ChunkSet: typed here so they depend on chunks
    only and chunkset imports them one way (no import cycle, not even for types)."""

    @property
    def doc(self) -> Document: ...
    @property
    def strategy(self) -> str: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def chunks(self) -> tuple[Chunk, ...]: ...
    @property
    def skipped(self) -> Mapping[str, str]: ...
    @property
    def params_hash(self) -> str: ...
    def __len__(self) -> int: ...
    def header(self, chunked_at: str | None = None) -> dict: ...
    def to_dict(self, chunked_at: str | None = None) -> dict: ...
