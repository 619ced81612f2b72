"""Native DoclingDocument JSON: documents that docling-core itself builds and saves (its own API and
`save_as_json`), in several shapes, and malformed ones."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import chunkbench
from chunkbench.errors import InputError
from chunkbench.foreign import _item_spans
from tests.support.paths import SAMPLE_PDFS, shared_pdf

pytest.importorskip("docling_core", reason="docling-core (a dev dependency) is not installed")
from docling_core.types.doc import (  # noqa: E402
    BoundingBox,
    CoordOrigin,
    DocItemLabel,
    DoclingDocument,
    ProvenanceItem,
    Size,
    TableCell,
    TableData,
)
from docling_core.types.doc.document import ContentLayer  # noqa: E402

CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"
HEIGHT = 792.0


def prov(page: int, box: tuple[float, float, float, float], text: str = "", origin=CoordOrigin.BOTTOMLEFT):
    """Provenance for a top-left (x0, y0, x1, y1) box, written in `origin` coordinates as Docling does."""
    x0, y0, x1, y1 = box
    if origin == CoordOrigin.BOTTOMLEFT:
        bbox = BoundingBox(l=x0, t=HEIGHT - y0, r=x1, b=HEIGHT - y1, coord_origin=origin)
    else:
        bbox = BoundingBox(l=x0, t=y0, r=x1, b=y1, coord_origin=origin)
    return ProvenanceItem(page_no=page, bbox=bbox, charspan=(0, len(text)))


def cell(text, r0, r1, c0, c1, header=False):
    return TableCell(text=text, start_row_offset_idx=r0, end_row_offset_idx=r1, start_col_offset_idx=c0,
                     end_col_offset_idx=c1, row_span=r1 - r0, col_span=c1 - c0, column_header=header)


def rich_document(origin=CoordOrigin.BOTTOMLEFT) -> DoclingDocument:
    """Two pages with every structure a Docling conversion produces."""
    doc = DoclingDocument(name="rich")
    for n in (1, 2):
        doc.add_page(page_no=n, size=Size(width=612, height=HEIGHT))
    for n in (1, 2):
        doc.add_text(label=DocItemLabel.PAGE_HEADER, text=f"Header {n}", content_layer=ContentLayer.FURNITURE,
                     prov=prov(n, (72, 20, 300, 32), origin=origin))
        doc.add_text(label=DocItemLabel.PAGE_FOOTER, text=f"Page {n} of 2", content_layer=ContentLayer.FURNITURE,
                     prov=prov(n, (72, 760, 300, 772), origin=origin))
    doc.add_title(text="Services Agreement", prov=prov(1, (72, 50, 400, 70), origin=origin))
    doc.add_heading(text="1. Definitions", level=1, prov=prov(1, (72, 80, 300, 94), origin=origin))
    doc.add_text(label=DocItemLabel.TEXT, text="Words have the meanings below.",
                 prov=prov(1, (72, 100, 500, 114), origin=origin))
    doc.add_heading(text="1.1 Scope", level=2, prov=prov(1, (72, 120, 300, 134), origin=origin))
    outer = doc.add_list_group()
    first = doc.add_list_item(text="first item", parent=outer, marker="-", prov=prov(1, (80, 140, 300, 152), origin=origin))
    inner = doc.add_list_group(parent=first)
    doc.add_list_item(text="nested item", parent=inner, enumerated=True, marker="1.",
                      prov=prov(1, (90, 154, 300, 166), origin=origin))
    doc.add_list_item(text="last item", parent=outer, marker="-", prov=prov(1, (80, 168, 300, 180), origin=origin))
    doc.add_code(text="print('hi')", prov=prov(1, (72, 190, 300, 204), origin=origin))
    doc.add_formula(text="E = mc^2", prov=prov(1, (72, 210, 300, 224), origin=origin))
    caption = doc.add_text(label=DocItemLabel.CAPTION, text="Table 1: Fees", prov=prov(2, (72, 40, 300, 52), origin=origin))
    table = TableData(num_rows=3, num_cols=2, table_cells=[
        cell("Item", 0, 1, 0, 1, True), cell("GBP", 0, 1, 1, 2, True),
        cell("Hosting", 1, 3, 0, 1), cell("10", 1, 2, 1, 2), cell("20", 2, 3, 1, 2),
    ])
    doc.add_table(data=table, caption=caption, prov=prov(2, (72, 56, 500, 150), origin=origin))
    fig_caption = doc.add_text(label=DocItemLabel.CAPTION, text="Figure 1: Flow",
                               prov=prov(2, (72, 380, 300, 392), origin=origin))
    doc.add_picture(caption=fig_caption, prov=prov(2, (72, 200, 400, 370), origin=origin))
    doc.add_text(label=DocItemLabel.FOOTNOTE, text="1 A footnote.", prov=prov(2, (72, 700, 300, 712), origin=origin))
    return doc


def save(doc: DoclingDocument, tmp_path: Path, name: str = "doc.json") -> Path:
    path = tmp_path / name
    doc.save_as_json(path)
    return path


@pytest.mark.parametrize("origin", [CoordOrigin.BOTTOMLEFT, CoordOrigin.TOPLEFT])
def test_rich_document_in_reading_order(tmp_path, origin):
    doc = chunkbench.load(save(rich_document(origin), tmp_path))
    assert doc.parser.name == "docling" and doc.parser.version.startswith("1.")
    got = [(e.type, e.text, e.page_idx, e.text_level) for e in doc.elements]
    assert got == [
        ("header", "Header 1", 0, None),
        ("heading", "Services Agreement", 0, 1),
        ("heading", "1. Definitions", 0, 2),
        ("paragraph", "Words have the meanings below.", 0, None),
        ("heading", "1.1 Scope", 0, 3),
        ("list", "first item", 0, None),
        ("list", "nested item", 0, None),
        ("list", "last item", 0, None),
        ("code", "print('hi')", 0, None),
        ("equation", "E = mc^2", 0, None),
        ("footer", "Page 1 of 2", 0, None),
        ("header", "Header 2", 1, None),
        ("caption", "Table 1: Fees", 1, None),
        ("table", "| Item | GBP |\n|---|---|\n| Hosting | 10 |\n| Hosting | 20 |", 1, None),
        ("caption", "Figure 1: Flow", 1, None),
        ("image", "", 1, None),
        ("footnote", "1 A footnote.", 1, None),
        ("footer", "Page 2 of 2", 1, None),
    ]
    by_text = {e.text: e for e in doc.elements}
    assert by_text["Words have the meanings below."].bbox == (72, 100, 500, 114)  # top-left points either way
    table = next(e for e in doc.elements if e.type == "table")
    assert table.rows == (("Item", "GBP"), ("Hosting", "10"), ("Hosting", "20"))
    assert table.attrs["caption"] == ["Table 1: Fees"]
    assert next(e for e in doc.elements if e.type == "image").attrs["caption"] == ["Figure 1: Flow"]
    assert by_text["nested item"].attrs == {"marker": "1.", "enumerated": True}
    assert [(p.width, p.height) for p in doc.pages] == [(612, HEIGHT)] * 2
    text = doc.text
    for e in doc.elements:  # canonical offsets are exact
        assert text[e.char_start:e.char_end] == e.text


def test_real_document_round_trip(tmp_path):
    """The sample contract's own parse written as a DoclingDocument (as Docling lays it out) reads back
    with the same texts, types, pages and bboxes."""
    parsed = chunkbench.load(CONTRACT)
    kinds = {"heading": DocItemLabel.SECTION_HEADER, "paragraph": DocItemLabel.TEXT,
             "caption": DocItemLabel.CAPTION, "footnote": DocItemLabel.FOOTNOTE}
    dl = DoclingDocument(name=CONTRACT.stem)
    for page in parsed.pages:
        dl.add_page(page_no=page.index + 1, size=Size(width=page.width, height=page.height))
    kept = []
    for e in parsed.elements:
        if e.type not in kinds or not e.text or e.bbox is None:
            continue
        height = parsed.pages[e.page_idx].height
        x0, y0, x1, y1 = e.bbox
        p = ProvenanceItem(page_no=e.page_idx + 1, charspan=(0, len(e.text)),
                           bbox=BoundingBox(l=x0, t=height - y0, r=x1, b=height - y1, coord_origin=CoordOrigin.BOTTOMLEFT))
        if e.type == "heading":
            dl.add_heading(text=e.text, level=max(1, (e.text_level or 2) - 1), prov=p)
        else:
            dl.add_text(label=kinds[e.type], text=e.text, prov=p)
        kept.append(e)
    path = save(dl, tmp_path, "contract.json")
    shutil.copyfile(CONTRACT, tmp_path / "contract.pdf")
    doc = chunkbench.load(path)
    assert doc.pdf_path and Path(doc.pdf_path).name == "contract.pdf"  # {stem}.pdf beside the file
    assert [e.text for e in doc.elements] == [e.text for e in kept]
    assert [e.type for e in doc.elements] == [e.type for e in kept]
    for got, want in zip(doc.elements, kept):
        assert got.page_idx == want.page_idx
        assert got.bbox == pytest.approx(want.bbox, abs=0.01)
    chunks = chunkbench.chunk(doc, "sections")
    assert chunks.chunks and all(c.pages for c in chunks.chunks)


def test_paragraphs_broken_by_columns_are_joined(tmp_path):
    """The Federal Register's two-column pages laid out as Docling lays them out, one text item per
    column part of a paragraph (the PyMuPDF parse's parts, real geometry), written by docling-core:
    the Docling loader joins the parts into the paragraphs the PDF loader made."""
    parsed = chunkbench.load(shared_pdf("req_federal-register-2020-17221.pdf"))
    labels = {"heading": DocItemLabel.SECTION_HEADER, "paragraph": DocItemLabel.TEXT, "caption": DocItemLabel.CAPTION,
              "footnote": DocItemLabel.FOOTNOTE, "header": DocItemLabel.PAGE_HEADER,
              "footer": DocItemLabel.PAGE_FOOTER, "page_number": DocItemLabel.PAGE_FOOTER}
    dl = DoclingDocument(name="faa")
    for page in parsed.pages:
        dl.add_page(page_no=page.index + 1, size=Size(width=page.width, height=page.height))
    for e in parsed.elements:
        if e.type not in labels or e.bbox is None:
            continue
        layer = ContentLayer.FURNITURE if e.type in ("header", "footer", "page_number") else ContentLayer.BODY
        for part in e.parts:
            x0, y0, x1, y1 = part.bbox
            height = parsed.pages[part.page_idx].height
            p = ProvenanceItem(page_no=part.page_idx + 1, charspan=(0, len(part.text)),
                               bbox=BoundingBox(l=x0, t=height - y0, r=x1, b=height - y1,
                                                coord_origin=CoordOrigin.BOTTOMLEFT))
            if e.type == "heading":
                dl.add_heading(text=part.text.strip(), level=1, prov=p)
            else:
                dl.add_text(label=labels[e.type], text=part.text.strip(), prov=p, content_layer=layer)
    doc = chunkbench.load(save(dl, tmp_path, "faa.json"))
    joined = [e for e in parsed.elements if e.type == "paragraph" and len(e.parts) > 1]
    assert len(joined) >= 10 and doc.parser.options["joined_paragraphs"] >= len(joined)

    def letters(text: str) -> str:
        return "".join(ch for ch in text if ch.isalnum())  # the PDF loader also drops line-end hyphens

    got = {letters(e.text): e for e in doc.elements if e.type == "paragraph"}
    for e in joined:
        again = got[letters(e.text)]
        assert [p.page_idx for p in again.parts] == [p.page_idx for p in e.parts]
        for mine, theirs in zip(again.parts, e.parts):
            assert mine.bbox == pytest.approx(theirs.bbox, abs=0.01)
    # a Docling chunk names the items it came from: each item joined to the one before it is found
    # at its own text (the first keeps its id, which names the whole paragraph)
    spans = _item_spans(doc)
    ids = {e.id for e in doc.elements}
    parts = [item for item in dl.texts if item.self_ref.removeprefix("#/") not in ids]
    assert len(parts) >= len(joined)
    for item in parts:
        start, end = spans[item.self_ref.removeprefix("#/")]
        assert letters(doc.text[start:end]) == letters(item.text), item.self_ref


def test_item_on_two_pages_and_missing_pages(tmp_path):
    dl = DoclingDocument(name="gaps")
    dl.add_page(page_no=1, size=Size(width=600, height=800))
    dl.add_page(page_no=3, size=Size(width=500, height=700))
    item = dl.add_text(label=DocItemLabel.TEXT, text="spans pages", prov=prov(1, (10, 700, 500, 790), "spans pages",
                                                                              origin=CoordOrigin.TOPLEFT))
    item.prov.append(prov(3, (10, 10, 400, 40), origin=CoordOrigin.TOPLEFT))
    dl.add_text(label=DocItemLabel.TEXT, text="no provenance")
    doc = chunkbench.load(save(dl, tmp_path))
    assert [(p.width, p.height) for p in doc.pages] == [(600, 800), (0, 0), (500, 700)]
    first, second = doc.elements
    assert (first.page_idx, first.page_end_idx) == (0, 2)
    assert second.page_idx is None and second.bbox is None
    assert any("without provenance" in w for w in doc.warnings)


def test_empty_document(tmp_path):
    doc = chunkbench.load(save(DoclingDocument(name="empty"), tmp_path))
    assert doc.elements == () and doc.pages == ()


def _raw(tmp_path) -> dict:
    return json.loads(save(rich_document(), tmp_path, "src.json").read_text())


def _mutated(raw: dict, fn) -> dict:
    data = copy.deepcopy(raw)
    fn(data)
    return data


BAD = {
    "another major version": (lambda d: d.update(version="2.0.0"), "DoclingDocument version '2.0.0' is not supported"),
    "no version": (lambda d: d.pop("version"), "DoclingDocument version None is not supported"),
    "bad ref": (lambda d: d["body"]["children"].append({"$ref": "#/nowhere/0"}), "a child must be"),
    "ref beyond": (lambda d: d["body"]["children"].append({"$ref": "#/texts/999"}), "texts/999: reference beyond"),
    "texts not a list": (lambda d: d.update(texts={}), "texts: must be a list, got an object"),
    "label not a string": (lambda d: d["texts"][0].update(label=3), "'label' must be a string"),
    "page beyond": (lambda d: d["texts"][2]["prov"][0].update(page_no=9), "prov page_no must be one of"),
    "bad bbox": (lambda d: d["texts"][2]["prov"][0].update(bbox={"l": "x"}), "bbox must be {l, t, r, b}"),
    "bad origin": (lambda d: d["texts"][2]["prov"][0]["bbox"].update(coord_origin="MIDDLE"),
                   "coord_origin must be TOPLEFT or BOTTOMLEFT"),
    "bad page size": (lambda d: d["pages"]["1"].update(size={"width": -1, "height": 5}), "size must be a positive"),
    "page number absurd": (lambda d: d["pages"].update({"999999999": {"page_no": 999999999, "size": {
        "width": 1, "height": 1}}}), "page_no must be between 1 and 100,000, got 999999999"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_documents_are_one_input_error(tmp_path, name):
    fn, needle = BAD[name]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_mutated(_raw(tmp_path), fn)))
    with pytest.raises(InputError) as info:
        chunkbench.load(path)
    assert needle in str(info.value) and os.fspath(path) in str(info.value)


def test_cycles_and_shared_children_are_read_once(tmp_path):
    raw = _raw(tmp_path)
    data = _mutated(raw, lambda d: d["groups"][0]["children"].append({"$ref": "#/groups/0"}))
    data["body"]["children"].append({"$ref": "#/texts/2"})  # already read: not twice
    path = tmp_path / "cycle.json"
    path.write_text(json.dumps(data))
    doc = chunkbench.load(path)
    assert len(doc.elements) == len(chunkbench.load(save(rich_document(), tmp_path, "ok.json")).elements)


def test_deep_trees_are_refused(tmp_path):
    data = _raw(tmp_path)
    groups = [{"self_ref": f"#/groups/{i}", "label": "unspecified", "name": "g",
               "children": [{"$ref": f"#/groups/{i + 1}"}]} for i in range(300)]
    groups.append({"self_ref": "#/groups/300", "label": "unspecified", "name": "g", "children": []})
    data["groups"] = groups
    data["body"]["children"] = [{"$ref": "#/groups/0"}]
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="tree nested deeper than 256 levels"):
        chunkbench.load(path)


def test_cli_exit_3_one_line_nothing_written(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_mutated(_raw(tmp_path), lambda d: d.update(version="9.0.0"))))
    out = tmp_path / "chunks.json"
    done = subprocess.run([sys.executable, "-m", "chunkbench", "chunk", os.fspath(path), "-o", os.fspath(out)],
                          capture_output=True, text=True)
    assert done.returncode == 3
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and os.fspath(path) in lines[0] and "'9.0.0'" in lines[0] and "supported: 1.x" in lines[0]
    assert not out.exists()


def test_the_blocks_document_json_still_loads(tmp_path):
    """The Docling-style `blocks` reader (specs/2) is kept beside the native one."""
    path = tmp_path / "document.json"
    path.write_text(json.dumps({"pages": [{"page_no": 1, "width": 600, "height": 800}], "blocks": [
        {"block_id": "b1", "type": "heading", "text": "Title", "level": 1, "page_start": 1}]}))
    doc = chunkbench.load(path)
    assert doc.parser.name == "document_json" and doc.elements[0].text == "Title"


def test_a_table_whose_cells_cover_its_grid_many_times_over_is_refused_at_once(tmp_path):
    """Robustness: a hostile table (cells each spanning the whole grid: 30,000 of them over 547 x 547
    ran for ever) is an InputError naming the table, before the cells are laid out."""
    path = save(rich_document(), tmp_path)
    data = json.loads(path.read_text("utf-8"))
    table = data["tables"][0]["data"]
    table.update(num_rows=50, num_cols=50, table_cells=[
        {**table["table_cells"][0], "start_row_offset_idx": 0, "end_row_offset_idx": 50,
         "start_col_offset_idx": 0, "end_col_offset_idx": 50} for _ in range(250)])
    table.pop("grid", None)
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(InputError, match="cover its 50 x 50 grid more than 4 times over") as err:
        chunkbench.load(path)
    assert err.value.path == str(path)
