"""The gold blocks of a structured twin: what the HTML (or Markdown) a PDF was made from says the
document is, block by block, in order, with where each one was found in a parse of the PDF.

Leaf blocks are what is located: headings, paragraphs, list items, table rows, definition terms and
descriptions, code, footnotes, captions and admonition titles. Lists and tables are container
blocks over their items and rows; their place is that of their children."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from chunkbench.types.document import Document, Element

#: what a gold block is
KINDS = ("heading", "paragraph", "list", "item", "table", "row", "term", "description", "code", "footnote",
         "caption", "note_title")
#: each kind as a sentence names it
KIND_NAMES = {"heading": "a heading", "paragraph": "a paragraph", "list": "a list", "item": "a list item",
              "table": "a table", "row": "a table row", "term": "a defined term", "description": "a definition",
              "code": "code", "footnote": "a footnote", "caption": "a caption", "note_title": "an admonition's title"}
#: container kinds: located through their children
CONTAINERS = frozenset({"list", "table"})
#: a leaf block's place: found whole, found by its two ends, not found; `empty` has no letters or digits
STATUSES = ("exact", "anchored", "missing", "empty")
#: the statuses whose place scores may use
LOCATED = frozenset({"exact", "anchored"})


@dataclass(frozen=True)
class GoldBlock:
    """One block of the twin and, once aligned, its place in the parse's canonical text.

    `section` holds the ids of the gold headings open at the block (outermost first); `parent` the
    list or table of an item or row; `term` the term a description belongs to; `cells` a row's cells
    and `header` whether it is a header row; `admonition` the kind of box it sits in."""

    id: str
    kind: str
    text: str
    level: int | None = None
    section: tuple[str, ...] = ()
    parent: str | None = None
    term: str | None = None
    cells: tuple[str, ...] = ()
    header: bool = False
    admonition: str | None = None
    twin: str = ""
    status: str = "missing"
    start: int | None = None
    end: int | None = None
    similarity: float | None = None

    @property
    def located(self) -> bool:
        return self.status in LOCATED and self.start is not None and self.end is not None

    @property
    def span(self) -> tuple[int, int]:
        assert self.start is not None and self.end is not None, f"{self.id} is not located"
        return self.start, self.end

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "kind": self.kind, "text": self.text}
        for key in ("level", "parent", "term", "admonition", "start", "end", "similarity"):
            value = getattr(self, key)
            if value is not None:
                d[key] = value
        if self.section:
            d["section"] = list(self.section)
        if self.cells:
            d["cells"] = list(self.cells)
        if self.header:
            d["header"] = True
        d["twin"] = self.twin
        d["status"] = self.status
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GoldBlock:
        return cls(
            id=str(d["id"]), kind=str(d["kind"]), text=str(d.get("text", "")),
            level=_int_or_none(d.get("level")), section=tuple(str(s) for s in d.get("section", ())),
            parent=_str_or_none(d.get("parent")), term=_str_or_none(d.get("term")),
            cells=tuple(str(c) for c in d.get("cells", ())), header=bool(d.get("header", False)),
            admonition=_str_or_none(d.get("admonition")), twin=str(d.get("twin", "")),
            status=str(d.get("status", "missing")), start=_int_or_none(d.get("start")),
            end=_int_or_none(d.get("end")), similarity=d.get("similarity"),
        )


def _int_or_none(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number, got {value!r}")
    return value


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def twin_blocks(twins: Sequence[Document]) -> list[GoldBlock]:
    """The gold blocks of one or more twin Documents, in order (ids `g0`, `g1`, ...)."""
    out: list[GoldBlock] = []
    open_headings: list[tuple[int, str]] = []
    terms: dict[str, str] = {}  # twin element id -> gold id of its term
    for twin in twins:
        terms.clear()
        for element in twin.elements:
            for block in _blocks_of(element, len(out), tuple(h for _, h in open_headings), terms, twin.source):
                out.append(block)
                if block.kind == "heading" and block.level is not None:
                    while open_headings and open_headings[-1][0] >= block.level:
                        open_headings.pop()
                    open_headings.append((block.level, block.id))
    return out


def _blocks_of(e: Element, first: int, section: tuple[str, ...], terms: dict[str, str],
               twin: str) -> Iterable[GoldBlock]:
    """The gold blocks one twin element makes: itself, or a container and its items or rows."""
    gid = f"g{first}"
    common: dict[str, Any] = {"section": section, "admonition": e.attrs.get("admonition"), "twin": twin}
    if e.type == "heading" and e.text_level is not None:
        yield GoldBlock(gid, "heading", e.text, level=e.text_level, **common)
    elif e.type == "list":
        yield GoldBlock(gid, "list", "", **common)
        for n, item in enumerate(b["text"] for b in e.blocks if b.get("text", "").strip()):
            yield GoldBlock(f"g{first + 1 + n}", "item", item, parent=gid, **common)
    elif e.type == "table" and e.rows:
        yield GoldBlock(gid, "table", "", **common)
        header_rows = int(e.attrs.get("header_rows", 0) or 0)
        kept = [r for r in e.rows if any(c.strip() for c in r)]
        for n, row in enumerate(kept):
            yield GoldBlock(f"g{first + 1 + n}", "row", " ".join(c for c in row if c.strip()), parent=gid,
                            cells=tuple(row), header=n < header_rows, **common)
    elif e.attrs.get("admonition_title"):
        yield GoldBlock(gid, "note_title", e.text, **common)
    elif e.attrs.get("definition") == "term":
        terms[e.id] = gid
        yield GoldBlock(gid, "term", e.text, **common)
    elif e.attrs.get("definition") == "description":
        yield GoldBlock(gid, "description", e.text, term=terms.get(str(e.attrs.get("term"))), **common)
    elif e.type in ("code", "footnote", "caption"):
        yield GoldBlock(gid, e.type, e.text, **common)
    else:
        yield GoldBlock(gid, "paragraph", e.text, **common)
