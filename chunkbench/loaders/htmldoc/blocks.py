"""The blocks of an HTML body in reading order, as Elements: headings with their levels,
paragraphs, lists with their items, tables with rows and header rows, definition terms and
descriptions, footnotes, code, captions; admonitions' paragraphs flagged, their titles never
headings. Chrome is removed first (`chrome.strip_chrome`).

Text outside any block (a `<div>` holding bare text, as some generators write) is read as the
paragraphs CSS would draw: each run of text and inline elements between two blocks is one."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from lxml import etree

from chunkbench.text.segment import pipe_table
from chunkbench.types.document import Element

from .chrome import admonition_kind, classes, is_admonition_title, is_footnotes
from .tables import own_rows, table_grid
from .text import BLOCK_TAGS, flat_text, run_text

SOURCE = "html"
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
#: containers read for the blocks inside them
_CONTAINERS = frozenset({
    "html", "body", "div", "section", "article", "main", "aside", "header", "blockquote", "figure", "center",
    "details", "summary", "fieldset", "hgroup", "address", "dialog", "li", "dd", "dt", "td", "th", "tr",
    "tbody", "thead", "tfoot", "menu", "dir",
})
#: class tokens of headings that are lines of a title page, not sections (DocBook-XSL's authors)
_TITLE_PAGE_LINES = frozenset({"author", "othercredit", "editor", "corpauthor", "subtitle", "contrib", "date"})
#: class tokens of a DocBook-XSL block whose `p.title` is its caption ("Table 3. ...")
_TITLED = frozenset({"table", "figure", "example", "equation", "procedure", "informaltable", "informalfigure"})


@dataclass(frozen=True)
class _Context:
    """What the blocks being read are inside: an admonition, a definition's description, a page file."""

    admonition: str | None = None
    term: str | None = None  # the element id of the term a description belongs to
    file: str | None = None


#: the method that reads a block of each of these tags
_READERS = {"p": "_paragraph", "ul": "_list", "ol": "_list", "dl": "_definitions", "table": "_table"}


class BlockReader:
    """Reads the bodies of one or more pages into Elements with ids `e0`, `e1`, ... in order."""

    def __init__(self) -> None:
        self.elements: list[Element] = []

    def read(self, body: etree._Element, file: str | None = None) -> None:
        """Every block of `body` (chrome already stripped) appended to `elements`."""
        self._container(body, _Context(file=file))

    # -- dispatch ---------------------------------------------------------------------------------

    def _block(self, el: etree._Element, ctx: _Context) -> None:
        tag = el.tag
        if is_footnotes(el):
            self._footnotes(el, ctx)
            return
        kind = admonition_kind(el)
        if kind is not None and ctx.admonition is None:
            self._admonition(el, kind, ctx)
            return
        if tag in _HEADINGS:
            self._heading(el, ctx)
        elif tag in ("pre", "listing", "xmp", "plaintext"):
            self._emit("code", _code_text(el), ctx, raw_type=tag)
        elif tag in ("caption", "figcaption"):
            self._emit("caption", flat_text(el, lines=False), ctx, raw_type=tag)
        elif tag in _READERS:
            getattr(self, _READERS[tag])(el, ctx)
        elif tag != "hr":  # a container, or an unknown element standing as a block: the blocks inside it
            self._container(el, ctx)

    def _heading(self, el: etree._Element, ctx: _Context) -> None:
        """A heading; in an admonition its title, on DocBook's title page a line of it: paragraphs."""
        tag = el.tag
        if ctx.admonition is not None:  # an admonition's title written as a heading (DocBook's h3.title)
            self._emit("paragraph", flat_text(el, lines=False), ctx, raw_type=tag, admonition_title=True)
        elif classes(el) & _TITLE_PAGE_LINES:  # DocBook's title page: authors, credits, subtitle
            self._emit("paragraph", flat_text(el, lines=False), ctx, raw_type=f"{tag}.{el.get('class')}")
        else:
            self._emit("heading", flat_text(el, lines=False), ctx, raw_type=tag, level=_level(el),
                       document_title=_is_document_title(el))

    def _container(self, el: etree._Element, ctx: _Context) -> None:
        """The blocks inside `el`, each run of text and inline elements between them a paragraph."""
        run: list[Any] = [el.text] if el.text else []
        for child in el:
            if not isinstance(child.tag, str):
                if child.tail:
                    run.append(child.tail)
                continue
            if child.tag in BLOCK_TAGS or child.tag in _CONTAINERS:
                self._flush(run, ctx, el)
                run = []
                self._block(child, ctx)
                if child.tail:
                    run.append(child.tail)
            else:
                run.append(child)
        self._flush(run, ctx, el)

    def _flush(self, run: list[Any], ctx: _Context, parent: etree._Element) -> None:
        """A run of text and inline elements (each with its tail) as one paragraph; nothing when blank."""
        text = run_text(run, lines=False)
        if text:
            self._emit("paragraph", text, ctx, raw_type=f"{parent.tag}-text")

    # -- blocks -----------------------------------------------------------------------------------

    def _paragraph(self, el: etree._Element, ctx: _Context) -> None:
        text = flat_text(el)
        if ctx.admonition is not None and is_admonition_title(el):
            self._emit("paragraph", text, ctx, raw_type="p", admonition_title=True)
        elif "title" in classes(el) and _titled_parent(el):
            self._emit("caption", text, ctx, raw_type="p.title")
        else:
            self._emit("paragraph", text, ctx, raw_type="p")

    def _list(self, el: etree._Element, ctx: _Context) -> None:
        items = [flat_text(li) for li in el if li.tag == "li"]
        items = [t for t in items if t]
        if not items:
            return
        blocks = tuple({"type": "list_item", "text": t} for t in items)
        self._emit("list", "\n".join(items), ctx, raw_type=el.tag, blocks=blocks,
                   ordered=el.tag == "ol")

    def _definitions(self, el: etree._Element, ctx: _Context) -> None:
        """Each term a paragraph marked `definition: term`; what its description holds, blocks marked
        `definition: description` with the term's id (a description before any term is read plainly)."""
        term_id = None
        for child in _dl_children(el):
            if child.tag == "dt":
                text = flat_text(child, lines=False)
                if text:
                    term_id = self._emit("paragraph", text, ctx, raw_type="dt", definition="term")
            elif child.tag == "dd":
                self._container(child, replace(ctx, term=term_id) if term_id else ctx)

    def _table(self, el: etree._Element, ctx: _Context) -> None:
        """A data table as one element (rows, header rows), after its caption; a table laid out around
        blocks (one cell, or a cell holding paragraphs of an admonition) read for those blocks."""
        rows = own_rows(el)
        cells = [c for r in rows for c in r if isinstance(c.tag, str) and c.tag in ("td", "th")]
        if len(cells) <= 1:
            for cell in cells:
                self._container(cell, ctx)
            return
        for caption in el.findall("caption"):
            self._emit("caption", flat_text(caption, lines=False), ctx, raw_type="caption")
        grid = table_grid(el)
        if not any(any(c for c in r) for r in grid.rows):
            return
        self._emit("table", pipe_table(grid.rows), ctx, raw_type="table", rows=grid.rows,
                   header_rows=grid.header_rows)

    def _admonition(self, el: etree._Element, kind: str, ctx: _Context) -> None:
        """An admonition's blocks with `admonition: kind`; its title a paragraph marked
        `admonition_title`. DocBook-XSL's layout table (an icon cell, a `<th>` title, a cell of
        paragraphs) is read as the title and the paragraphs."""
        inner = replace(ctx, admonition=kind)
        layout = [t for t in el if t.tag == "table"]
        if layout and len(layout) == len([c for c in el if isinstance(c.tag, str)]):
            for table in layout:
                for row in own_rows(table):
                    for cell in row:
                        if cell.tag == "th":
                            self._emit("paragraph", flat_text(cell, lines=False), inner, raw_type="th",
                                       admonition_title=True)
                        elif cell.tag == "td":
                            self._container(cell, inner)
            return
        self._container(el, inner)

    def _footnotes(self, el: etree._Element, ctx: _Context) -> None:
        """Each footnote one element of type footnote, its mark in `attrs["mark"]` and out of its text.

        A block of notes holds them as nested footnote blocks (Sphinx, DocBook), as list items
        (pandoc), or one after another after a heading each (Texinfo's `<h5>(1)</h5><p>...`)."""
        nested = [c for c in el if isinstance(c.tag, str) and is_footnotes(c)]
        if nested:
            for child in nested:
                self._footnotes(child, ctx)
            return
        lists = [c for c in el if c.tag in ("ol", "ul")]
        for lst in lists:
            for n, li in enumerate((li for li in lst if li.tag == "li"), 1):
                self._footnote(flat_text(li), str(n), ctx)
        if not lists:
            self._footnotes_under_marks(el, ctx)

    def _footnotes_under_marks(self, el: etree._Element, ctx: _Context) -> None:
        """Notes one after another, each after its mark: a heading ("(1)") or a label."""
        mark: str | None = None
        texts: list[str] = []
        for child in el:
            if not isinstance(child.tag, str):
                continue
            if child.tag in _HEADINGS:
                label = flat_text(child, lines=False)
                if texts:
                    self._footnote("\n".join(texts), mark, ctx)
                    texts = []
                mark = label.strip("()[] ") or None
                if mark and not any(ch.isdigit() for ch in mark) and len(mark) > 3:
                    mark = None  # "Footnotes": the block's own heading
            elif classes(child) & {"label"}:
                mark = flat_text(child, lines=False).strip("()[] ")
            else:
                text = flat_text(child)
                if text:
                    texts.append(text)
        if el.text and el.text.strip():
            texts.insert(0, " ".join(el.text.split()))
        if texts:
            self._footnote("\n".join(texts), mark, ctx)

    def _footnote(self, text: str, mark: str | None, ctx: _Context) -> None:
        """One footnote; a leading mark ("[1]", "1") is taken out of its text into `mark`."""
        head, _, rest = text.partition(" ")
        bare = head.strip("[]()")
        if rest and bare.isdigit() and (mark is None or mark == bare):
            mark, text = bare, rest
        self._emit("footnote", text, ctx, raw_type="footnote", mark=mark)

    # -- output -----------------------------------------------------------------------------------

    def _emit(self, etype: str, text: str, ctx: _Context, *, raw_type: str, level: int | None = None,
              blocks: tuple = (), rows: tuple | None = None, **attrs: Any) -> str | None:
        """Append one element (none for blank text); its id."""
        text = text.strip("\n")
        if not text.strip():
            return None
        last = self.elements[-1] if self.elements else None
        if etype == "heading" and last is not None and last.type == "heading" and last.text == text \
                and last.text_level == level:
            return last.id  # a title written twice in a row (Texinfo's page title and its Top node's)
        if ctx.admonition is not None:
            attrs["admonition"] = ctx.admonition
        if ctx.term is not None and etype != "heading":
            attrs.setdefault("definition", "description")
            attrs["term"] = ctx.term
        if ctx.file is not None:
            attrs["file"] = ctx.file
        element_id = f"e{len(self.elements)}"
        self.elements.append(Element(
            id=element_id, type=etype, text=text, text_level=level, blocks=blocks, rows=rows, source=SOURCE,
            raw_type=raw_type, attrs={k: v for k, v in attrs.items() if v not in (None, False)},
        ))
        return element_id


def _code_text(element: etree._Element) -> str:
    """A code display's text as written: line breaks and indentation kept, blank lines around it dropped."""
    text = "".join(element.itertext())
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(line.rstrip() for line in lines)


def _dl_children(dl: etree._Element) -> Iterator[etree._Element]:
    """A definition list's terms and descriptions in order (HTML5 allows each pair in a `<div>`)."""
    for child in dl:
        if child.tag == "div":
            yield from (c for c in child if c.tag in ("dt", "dd"))
        elif child.tag in ("dt", "dd"):
            yield child


#: Texinfo's heading classes and the level each stands for (texi2any writes a subsubsection as an
#: `<h4>`, like a subsection: the class tells them apart)
_TEXINFO_LEVELS = {
    "settitle": 1, "top": 1,
    "chapter": 2, "unnumbered": 2, "appendix": 2, "chapheading": 2, "majorheading": 2,
    "section": 3, "unnumberedsec": 3, "appendixsec": 3, "appendixsection": 3, "heading": 3,
    "subsection": 4, "unnumberedsubsec": 4, "appendixsubsec": 4, "subheading": 4,
    "subsubsection": 5, "unnumberedsubsubsec": 5, "appendixsubsubsec": 5, "subsubheading": 5,
}


def _level(el: etree._Element) -> int:
    """A heading's level: its Texinfo class's when it has one, else its tag's number."""
    for token in classes(el):
        if token in _TEXINFO_LEVELS:
            return _TEXINFO_LEVELS[token]
    return _HEADINGS[el.tag]


def _is_document_title(el: etree._Element) -> bool:
    """The document's own title: Texinfo's `h1.settitle`, pandoc's title block, DocBook's article or
    book title page (not a section's: DocBook gives every section a `div.titlepage`)."""
    tokens = classes(el)
    if "settitle" in tokens:
        return True
    if "title" not in tokens:
        return False
    parent = el.getparent()
    while parent is not None and parent.tag not in ("body", "html"):
        if parent.tag == "header" and parent.get("id") == "title-block-header":
            return True
        if "titlepage" in classes(parent):
            holder = parent.getparent()
            return holder is not None and bool(classes(holder) & {"article", "book", "set"})
        parent = parent.getparent()
    return False


def below_title(elements: list[Element]) -> list[Element]:
    """The document's title above the headings after it when the generator wrote them at its level
    or above it: the title moves up to the level above them (DocBook's article title, an `<h2>` like
    its sections), or when it cannot (pandoc's `# 1 Installing` under its `<h1>` title) the headings
    move down a level. The title heads the document, as it does in print."""
    title = next((n for n, e in enumerate(elements) if e.attrs.get("document_title")), None)
    level = elements[title].text_level if title is not None else None
    if title is None or level is None:
        return elements
    later = [e.text_level for e in elements[title + 1:] if e.type == "heading" and e.text_level is not None]
    if not later or min(later) > level:
        return elements
    if min(later) > 1:
        return [*elements[:title], replace(elements[title], text_level=min(later) - 1), *elements[title + 1:]]
    shift = level - min(later) + 1
    return [*elements[:title + 1], *(replace(e, text_level=min(6, e.text_level + shift))
                                       if e.type == "heading" and e.text_level is not None else e
                                       for e in elements[title + 1:])]


def _titled_parent(el: etree._Element) -> bool:
    parent = el.getparent()
    return parent is not None and bool(classes(parent) & _TITLED)
