"""Core data model: Document, Page and Element (what loaders produce), see docs/contracts.md.

Everything here is a frozen dataclass. A Document's canonical text is the element texts joined by
"\\n\\n" in reading order; each Element knows its span in it (`char_start`, `char_end`).
Elements with empty text are kept (and counted) but take no room in the canonical text.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import hashlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar

from chunkbench.text.headings import HeadingStack
from chunkbench.text.leadins import ends_open, introduces
from chunkbench.text.segment import one_line
from chunkbench.text.terminal import name_as_text

SEPARATOR = "\n\n"
#: the format an elements.json (Document.to_dict) names; a file of any other is refused on read
ELEMENTS_FORMAT = "chunkbench.elements/1"


class ElementType(str, Enum):
    """Normalized element types (docs/contracts.md)."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    TABLE = "table"
    LIST = "list"
    CODE = "code"
    EQUATION = "equation"
    IMAGE = "image"
    CAPTION = "caption"
    HEADER = "header"
    FOOTER = "footer"
    PAGE_NUMBER = "page_number"
    FOOTNOTE = "footnote"
    #: a table of contents and a back-of-book index (typed at parse: loaders.contents)
    TOC = "toc"
    INDEX = "index"
    OTHER = "other"


ELEMENT_TYPES = tuple(t.value for t in ElementType)
#: Page furniture that structure-aware strategies skip by default (kept in the Document).
NOISE_TYPES = frozenset({"header", "footer", "page_number"})
#: A table of contents and an index: strategies skip them unless told to keep them (`skip_contents`)
CONTENTS_TYPES = frozenset({"toc", "index"})
#: why a strategy left a table of contents or index out
CONTENTS_SKIPPED = "a table of contents or index (skip_contents=false keeps it)"

BBoxTuple = tuple[float, float, float, float]


def as_bbox(values: Iterable[Any]) -> BBoxTuple:
    """(x0, y0, x1, y1) as floats; ValueError unless there are exactly four numbers."""
    x0, y0, x1, y1 = (float(v) for v in values)
    return x0, y0, x1, y1


@dataclass(frozen=True)
class Page:
    """One page: 0-based `index`, size in PDF points, and whether it has a text layer."""

    index: int
    width: float
    height: float
    has_text: bool = True

    def to_dict(self) -> dict:
        return {"index": self.index, "width": self.width, "height": self.height, "has_text": self.has_text}

    @classmethod
    def from_dict(cls, d: Mapping) -> Page:
        return cls(int(d["index"]), float(d["width"]), float(d["height"]), bool(d.get("has_text", True)))


@dataclass(frozen=True)
class Element:
    """One layout element in reading order (a superset of MinerU's content_list item)."""

    id: str
    type: str
    text: str
    page_idx: int | None = None
    bbox: BBoxTuple | None = None
    text_level: int | None = None
    blocks: tuple = ()
    rows: tuple[tuple[str, ...], ...] | None = None
    source: str = ""
    raw_type: str = ""
    char_start: int = 0
    char_end: int = 0
    #: last page (0-based) for elements spanning pages (document.json blocks); None = page_idx
    page_end_idx: int | None = None
    #: loader-specific extras (caption, html, img_path, ...); JSON-serializable values only
    attrs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def last_page_idx(self) -> int | None:
        return self.page_end_idx if self.page_end_idx is not None else self.page_idx

    @property
    def is_empty(self) -> bool:
        return not self.text.strip()

    @property
    def page_numbers(self) -> tuple[int, ...]:
        """1-based pages the element lies on (several when it spans pages; none without a page)."""
        first, last = self.page_idx, self.last_page_idx
        return tuple(range(first + 1, last + 2)) if first is not None and last is not None else ()

    @functools.cached_property
    def parts(self) -> tuple[Element, ...]:
        """The element as it lies on each page: itself, or for a table stitched across pages
        (`attrs["segments"]`, written by loaders.stitch) one view per page with that page's box,
        text slice and canonical offsets. Boxes, pages and overlays of chunks are drawn from these.
        Malformed segments (a hand-edited elements.json) count as none."""
        if self.page_end_idx is None or not self.attrs.get("segments"):
            return (self,)
        views = []
        try:
            for seg in self.attrs["segments"]:
                start, end, page = seg["start"], seg["end"], seg["page_idx"]
                if not (isinstance(start, int) and isinstance(end, int) and isinstance(page, int)
                        and 0 <= start <= end <= len(self.text) and page >= 0):
                    return (self,)
                bbox = as_bbox(seg["bbox"]) if seg.get("bbox") is not None else None
                views.append(Element(id=self.id, type=self.type, text=self.text[start:end], page_idx=page, bbox=bbox,
                                     source=self.source, raw_type=self.raw_type, char_start=self.char_start + start,
                                     char_end=self.char_start + end))
        except (KeyError, TypeError, ValueError):
            return (self,)
        return tuple(views) or (self,)

    @property
    def heading_level(self) -> int | None:
        """The text level when it is a heading's, 1-6 (MinerU's 999 means "not a heading"); else None.
        What opens a section in a section path."""
        return self.text_level if self.text_level is not None and 1 <= self.text_level <= 6 else None

    @property
    def is_heading(self) -> bool:
        """A heading: layout type heading, or a heading level. The one rule every strategy and metric uses."""
        return self.type == "heading" or self.heading_level is not None

    def to_dict(self) -> dict:
        d: dict[str, Any] = {
            "id": self.id,
            "type": self.type,
            "text": self.text,
            "page_idx": self.page_idx,
            "bbox": list(self.bbox) if self.bbox is not None else None,
            "text_level": self.text_level,
            "source": self.source,
            "raw_type": self.raw_type,
            "char_start": self.char_start,
            "char_end": self.char_end,
        }
        if self.blocks:
            d["blocks"] = [dict(b) for b in self.blocks]
        if self.rows is not None:
            d["rows"] = [list(r) for r in self.rows]
        if self.page_end_idx is not None:
            d["page_end_idx"] = self.page_end_idx
        if self.attrs:
            d["attrs"] = dict(self.attrs)
        return d

    @classmethod
    def from_dict(cls, d: Mapping) -> Element:
        bbox = d.get("bbox")
        rows = d.get("rows")
        return cls(
            id=str(d["id"]),
            type=str(d["type"]),
            text=str(d.get("text") or ""),
            page_idx=d.get("page_idx"),
            bbox=as_bbox(bbox) if bbox is not None else None,
            text_level=d.get("text_level"),
            blocks=tuple(d.get("blocks") or ()),
            rows=tuple(tuple(str(c) for c in r) for r in rows) if rows is not None else None,
            source=str(d.get("source", "")),
            raw_type=str(d.get("raw_type", "")),
            char_start=int(d.get("char_start", 0)),
            char_end=int(d.get("char_end", 0)),
            page_end_idx=d.get("page_end_idx"),
            attrs=dict(d.get("attrs") or {}),
        )


def is_noise(element: Element) -> bool:
    """Page furniture (header, footer, page number) or an item MinerU itself marked discarded:
    what strategies skip."""
    return element.type in NOISE_TYPES or element.raw_type == "discarded"


def lead_ins(content: Sequence[Element]) -> dict[str, Element]:
    """The elements of `content` (in reading order) that open the element right after them, by id,
    with that element: strategies keep the two together as a heading is kept with what it heads, and
    the defect detectors count where they are apart. Empty elements and page furniture are passed over.

    * a caption right above the table it titles (on the same page; above it when both have boxes);
    * a paragraph (or list item) that introduces the table or list after it (`text.leadins.introduces`:
      a colon, "the following", "as follows"), or a table, list or display of code or an equation
      its sentence goes on in (`ends_open`: "… supply an explicit complex part. Thus");
    * a display of code or an equation whose sentence goes on in the paragraph after it, in lower
      case ("sqrt(-17)" | "will give NaN and a warning, but")."""
    content = [e for e in content if not e.is_empty and not is_noise(e)]
    out: dict[str, Element] = {}
    for a, b in zip(content, content[1:]):
        if a.is_heading or b.is_heading:
            continue
        if a.type == "caption":
            titles = b.type == "table" and a.page_idx == b.page_idx and (a.bbox is None or b.bbox is None
                                                                        or a.bbox[1] < b.bbox[1])
        elif a.type in _LEADING_TYPES:
            titles = b.type in _INTRODUCED and (introduces(a.text) or a.type != "list" and ends_open(a.text))
        elif a.type in _DISPLAYS:
            titles = b.type == "paragraph" and b.text.lstrip()[:1].islower()
        else:
            titles = False
        if titles:
            out[a.id] = b
    return out


V = TypeVar("V")

#: lead-in sets a Document keeps (Document.lead_ins_without): one per set of skipped elements
LEAD_INS_KEPT = 4

#: what may introduce the block after it, what it may introduce, and displays a sentence goes on in
_LEADING_TYPES = frozenset({"paragraph", "other", "list"})
_INTRODUCED = frozenset({"table", "list", "code", "equation"})
_DISPLAYS = frozenset({"code", "equation"})


@dataclass(frozen=True)
class ParserInfo:
    """Which loader produced a Document, its version and the options that change its output."""

    name: str
    version: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, "version": self.version, "options": dict(self.options)}

    @property
    def label(self) -> str:
        """Name and version for people: "mineru 4.0.12"; the version alone when it starts with the
        name ("pymupdf 2.0; pymupdf4llm 2.0", not "pymupdf pymupdf 2.0")."""
        if not self.version:
            return self.name
        return self.version if self.version.startswith(self.name) else f"{self.name} {self.version}"

    @classmethod
    def from_dict(cls, d: Mapping) -> ParserInfo:
        return cls(str(d["name"]), str(d.get("version", "")), dict(d.get("options") or {}))


@dataclass(frozen=True)
class Document:
    """A loaded input: pages plus ordered elements, identified by the sha256 of the source bytes."""

    doc_id: str
    source: str
    pages: tuple[Page, ...]
    elements: tuple[Element, ...]
    parser: ParserInfo
    #: path of the PDF the elements came from, when there is one (for rendering); not serialized
    #: into the identity of the document
    pdf_path: str | None = None
    #: loader notes a user should see (pages without text, bboxes unavailable, ...)
    warnings: tuple[str, ...] = ()
    #: pass-through document metadata (user_id, company, fiscal_year, ...)
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # a file name that is not UTF-8 (os.fsdecode holds its bytes as lone surrogates) is named by
        # text every output can hold; the source is a name to show, never a path opened again
        object.__setattr__(self, "source", name_as_text(self.source))

    def __repr__(self) -> str:
        return (f"Document(source={self.source!r}, doc_id={self.doc_id[:12]!r}…, pages={len(self.pages)}, "
                f"elements={len(self.elements)}, parser={self.parser.name!r})")

    @functools.cached_property
    def text(self) -> str:
        """The canonical text: non-empty element texts joined by SEPARATOR in reading order."""
        return SEPARATOR.join(e.text for e in self.elements if e.text)

    def lead_ins_without(self, ids: Iterable[str] = (), types: Iterable[str] = ()) -> Mapping[str, Element]:
        """`lead_ins` of this document's elements less those with these ids or types (read-only),
        found once per (ids, types) and kept with the Document: every re-chunk and defect scan of
        one Document asks again (the explorer's slider), and the answer depends on neither."""
        key = (frozenset(ids), frozenset(types))
        cache = self._lead_ins_cache
        found = cache.get(key)
        if found is None:
            while len(cache) >= LEAD_INS_KEPT:
                cache.pop(next(iter(cache)))
            found = cache[key] = MappingProxyType(
                lead_ins([e for e in self.elements if e.id not in key[0] and e.type not in key[1]]))
        return found

    @functools.cached_property
    def _lead_ins_cache(self) -> dict[tuple[frozenset, frozenset], Mapping[str, Element]]:
        return {}

    def derived(self, name: str, make: Callable[[], V]) -> V:
        """The value `make()` derives from this Document alone, made once and kept with it (cite's
        Locator: a pass over the text, asked again at every quote). The Document never changes, so
        the value never goes stale, and it goes when the Document does. What depends on settings
        too (a strategy's walks at a slider's values) is kept by whoever re-chunks: strategies.kept."""
        kept = self._derived
        if name not in kept:
            kept[name] = make()
        return kept[name]

    @functools.cached_property
    def _derived(self) -> dict[str, Any]:
        return {}

    @property
    def pages_without_text(self) -> list[int]:
        """0-based indices of pages that have no text layer."""
        return [p.index for p in self.pages if not p.has_text]

    def page(self, index: int) -> Page | None:
        for p in self.pages:
            if p.index == index:
                return p
        return None

    def element(self, element_id: str) -> Element:
        return self._by_id[element_id]

    def element_at(self, char: int) -> Element | None:
        """The non-empty element containing canonical offset `char`, or the next one when `char`
        falls on a separator; None past the end (binary search)."""
        starts, els = self._text_elements
        i = max(bisect.bisect_right(starts, char) - 1, 0)
        if i < len(els) and els[i].char_end <= char:
            i += 1
        return els[i] if i < len(els) else None

    def elements_overlapping(self, start: int, end: int) -> list[Element]:
        """Non-empty elements whose span intersects [start, end), in reading order (binary search)."""
        starts, els = self._text_elements
        i = max(bisect.bisect_right(starts, start) - 1, 0)
        out = []
        while i < len(els) and els[i].char_start < end:
            if els[i].char_end > start:
                out.append(els[i])
            i += 1
        return out

    def section_paths(self, offsets: Iterable[int | None]) -> list[tuple[str, ...]]:
        """The headings open at each canonical offset, outermost first (HeadingStack): every heading
        with a text level 1-6 that starts at or before it and is not closed by a later one of its
        level or higher; () before the first heading or for an offset of None (binary search)."""
        starts, paths = self._sections
        out: list[tuple[str, ...]] = []
        for offset in offsets:
            i = bisect.bisect_right(starts, offset) - 1 if offset is not None else -1
            out.append(paths[i] if i >= 0 else ())
        return out

    @functools.cached_property
    def body_heading_level(self) -> int | None:
        """The shallowest heading level whose headings mostly head body text directly (the next
        content after them is no heading): where the document's sections of text begin in its
        outline ("3.4.1. Purpose" under "3.4. /bin" under "Chapter 3"); levels above it head only
        other headings. None without headings of any level."""
        content = [e for e in self.elements if e.text.strip() and not is_noise(e)]
        heads: dict[int, list[bool]] = {}
        for a, b in zip(content, content[1:]):
            if a.heading_level is not None:
                heads.setdefault(a.heading_level, []).append(not b.is_heading)
        body = [level for level, follows in sorted(heads.items()) if 2 * sum(follows) > len(follows)]
        return body[0] if body else (min(heads) if heads else None)

    @functools.cached_property
    def _sections(self) -> tuple[list[int], list[tuple[str, ...]]]:
        """Where each heading with a text level starts, and the section path from it on."""
        stack = HeadingStack()
        starts, paths = [], []
        for e in self.elements:
            if e.text.strip() and e.heading_level is not None:
                starts.append(e.char_start)
                paths.append(stack.push(e.heading_level, one_line(e.text, 200)))
        return starts, paths

    @functools.cached_property
    def _text_elements(self) -> tuple[list[int], list[Element]]:
        els = [e for e in self.elements if e.text]
        return [e.char_start for e in els], els

    @functools.cached_property
    def _by_id(self) -> dict[str, Element]:
        return {e.id: e for e in self.elements}

    def to_dict(self) -> dict:
        return {
            "format": ELEMENTS_FORMAT,
            "doc_id": self.doc_id,
            "source": self.source,
            "parser": self.parser.to_dict(),
            "pdf_path": name_as_text(self.pdf_path) if self.pdf_path is not None else None,
            "warnings": list(self.warnings),
            "metadata": dict(self.metadata),
            "pages": [p.to_dict() for p in self.pages],
            "elements": [e.to_dict() for e in self.elements],
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> Document:
        written = d.get("format", ELEMENTS_FORMAT)
        if written != ELEMENTS_FORMAT:  # a newer chunkbench's file read as if it were this one's is wrong in silence
            raise ValueError(f"format {str(written)[:60]!r}: this chunkbench reads {ELEMENTS_FORMAT} "
                             "(parse the source again with this version)")
        return cls(
            doc_id=str(d["doc_id"]),
            source=str(d["source"]),
            pages=tuple(Page.from_dict(p) for p in d.get("pages", ())),
            elements=tuple(Element.from_dict(e) for e in d.get("elements", ())),
            parser=ParserInfo.from_dict(d["parser"]),
            pdf_path=d.get("pdf_path"),
            warnings=tuple(d.get("warnings", ())),
            metadata=dict(d.get("metadata") or {}),
        )

    def with_metadata(self, **metadata: Any) -> Document:
        """A copy with extra pass-through metadata (user_id, company, fiscal_year, ...)."""
        return dataclasses.replace(self, metadata={**self.metadata, **metadata})


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file's bytes: the doc_id of anything loaded from it."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def with_offsets(elements: Iterable[Element]) -> tuple[Element, ...]:
    """Return the elements with char_start/char_end set for the canonical text (linear time)."""
    out = []
    pos = 0
    first = True
    for e in elements:
        if e.text:
            if not first:
                pos += len(SEPARATOR)
            first = False
            out.append(dataclasses.replace(e, char_start=pos, char_end=pos + len(e.text)))
            pos += len(e.text)
        else:
            nxt = pos + (0 if first else len(SEPARATOR))
            out.append(dataclasses.replace(e, char_start=nxt, char_end=nxt))
    return tuple(out)


def make_document(
    path: str | os.PathLike,
    elements: Sequence[Element],
    pages: Sequence[Page],
    parser: ParserInfo,
    *,
    pdf_path: str | os.PathLike | None = None,
    warnings: Sequence[str] = (),
    doc_id: str | None = None,
) -> Document:
    """Build a Document from loader output: computes doc_id and canonical-text offsets."""
    return Document(
        doc_id=doc_id or sha256_file(path),
        source=Path(path).name,
        pages=tuple(pages),
        elements=with_offsets(elements),
        parser=parser,
        pdf_path=os.fspath(pdf_path) if pdf_path is not None else None,
        warnings=tuple(warnings),
    )
