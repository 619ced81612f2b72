"""A Document as a DoclingDocument (docling-core's model), so Docling's own chunkers run on what
chunkbench parsed: `to_docling(doc)`.

Each element becomes one item, in reading order, with its page and box (top-left origin):
a level-1 heading is a title and a level-n heading a section header of level n-1 (the inverse of
the Docling loader's mapping), list elements list items (in one list group per
run of them; the element's marker stays in its text), tables tables of their rows (the first row
a column header), code, equations formulas, images pictures (their text a caption), captions and
footnotes their own labels, everything else text. Page furniture (header, footer, page number)
goes to the furniture layer, as Docling's parser puts it. Items are numbered by docling-core as
they are added; `refs` maps each item's reference back to the element it was made from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chunkbench.types.document import Document, Element, is_noise

#: deepest section-header level docling-core accepts
MAX_LEVEL = 100


@dataclass(frozen=True)
class DoclingConversion:
    """The DoclingDocument and, for each of its items' references (`#/texts/3`), the element id."""

    document: Any
    refs: Mapping[str, str]


def to_docling(doc: Document) -> DoclingConversion:
    """`doc` as a docling-core DoclingDocument (docling-core must be installed)."""
    from docling_core.types.doc import DoclingDocument, Size

    dl = DoclingDocument(name=doc.doc_id)
    for page in doc.pages:
        dl.add_page(page_no=page.index + 1, size=Size(width=page.width, height=page.height))
    writer = _Writer(dl)
    for element in doc.elements:
        writer.add(element)
    return DoclingConversion(dl, writer.refs)


class _Writer:
    """Adds elements to one DoclingDocument, keeping a list group open across consecutive list elements."""

    def __init__(self, dl: Any):
        self.dl = dl
        self.refs: dict[str, str] = {}
        self.list_group: Any = None

    def add(self, e: Element) -> None:
        from docling_core.types.doc import ContentLayer, DocItemLabel

        if e.type != "list":
            self.list_group = None
        prov = _provenance(e)
        if is_noise(e):
            label = DocItemLabel.PAGE_HEADER if e.type == "header" else DocItemLabel.PAGE_FOOTER
            item = self.dl.add_text(label=label, text=e.text, prov=prov, content_layer=ContentLayer.FURNITURE)
        elif e.type == "heading" and (e.text_level or 1) <= 1:
            item = self.dl.add_title(text=e.text, prov=prov)
        elif e.type == "heading":
            item = self.dl.add_heading(text=e.text, level=min((e.text_level or 2) - 1, MAX_LEVEL), prov=prov)
        elif e.type == "list":
            if self.list_group is None:
                self.list_group = self.dl.add_list_group()
            item = self.dl.add_list_item(text=e.text, marker="", enumerated=bool(e.attrs.get("enumerated")),
                                         prov=prov, parent=self.list_group)
        elif e.type == "table" and e.rows:
            item = self.dl.add_table(data=_table_data(e.rows), prov=prov)
        elif e.type == "code":
            item = self.dl.add_code(text=e.text, prov=prov)
        elif e.type == "equation":
            item = self.dl.add_formula(text=e.text, prov=prov)
        elif e.type == "image":
            caption = self.dl.add_text(label=DocItemLabel.CAPTION, text=e.text, prov=prov) if e.text else None
            item = self.dl.add_picture(caption=caption, prov=prov)
            if caption is not None:
                self.refs[caption.self_ref] = e.id
        else:
            label = {"caption": DocItemLabel.CAPTION, "footnote": DocItemLabel.FOOTNOTE}.get(e.type, DocItemLabel.TEXT)
            item = self.dl.add_text(label=label, text=e.text, prov=prov)
        self.refs[item.self_ref] = e.id


def _provenance(e: Element) -> Any:
    from docling_core.types.doc import BoundingBox, CoordOrigin, ProvenanceItem

    if e.page_idx is None or e.bbox is None:
        return None
    x0, y0, x1, y1 = e.bbox
    return ProvenanceItem(page_no=e.page_idx + 1, charspan=(0, len(e.text)),
                          bbox=BoundingBox(l=x0, t=y0, r=x1, b=y1, coord_origin=CoordOrigin.TOPLEFT))


def _table_data(rows: tuple[tuple[str, ...], ...]) -> Any:
    from docling_core.types.doc import TableCell, TableData

    width = max(len(r) for r in rows)
    cells = [TableCell(text=text, start_row_offset_idx=r, end_row_offset_idx=r + 1, start_col_offset_idx=c,
                       end_col_offset_idx=c + 1, column_header=r == 0)
             for r, row in enumerate(rows) for c, text in enumerate(row)]
    return TableData(num_rows=len(rows), num_cols=width, table_cells=cells)
