"""document.json loader (specs/2 block format) against a realistic three-page contract."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import pytest

import chunkbench
from chunkbench.errors import InputError
from chunkbench.loaders import load_elements_json
from chunkbench.loaders.docjson import load_document_json
from chunkbench.types.document import Page
from tests.support.paths import TEST_DATA

CONTRACT = TEST_DATA / "docjson" / "document.json"
# block type in the file -> element type (docs/contracts.md), written out independently of the loader
EXPECTED_TYPE = {
    "header": "header", "page_header": "header", "footer": "footer", "page_footer": "footer",
    "page_number": "page_number", "title": "heading", "heading": "heading",
    "section_header": "heading", "paragraph": "paragraph", "text": "paragraph",
    "list_item": "list", "table": "table", "caption": "caption", "picture": "image",
    "signature_block": "other",
}


@pytest.fixture(scope="module")
def raw() -> dict:
    return json.loads(CONTRACT.read_text("utf-8"))


@pytest.fixture(scope="module")
def doc():
    return load_document_json(CONTRACT)


def write(tmp_path: Path, data, name: str = "document.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), "utf-8")
    return path


def test_blocks_become_elements_in_order_with_their_ids_and_types(doc, raw):
    assert [e.id for e in doc.elements] == [b["block_id"] for b in raw["blocks"]]
    assert [e.type for e in doc.elements] == [EXPECTED_TYPE[b["type"]] for b in raw["blocks"]]
    assert [e.raw_type for e in doc.elements] == [b["type"] for b in raw["blocks"]]
    assert {e.source for e in doc.elements} == {"document_json"}
    assert doc.doc_id == hashlib.sha256(CONTRACT.read_bytes()).hexdigest()
    assert doc.source == "document.json"
    assert doc.parser.name == "document_json"


def test_heading_levels_come_from_level(doc):
    levels = {e.id: e.text_level for e in doc.elements if e.type == "heading"}
    assert levels == {
        "b-0001": None,  # the title has no level
        "b-0003": 1, "b-0010": 1, "b-0017": 1,
        "b-0011": 2, "b-0015": 2, "b-0018": 2,
    }
    assert all(e.text_level is None for e in doc.elements if e.type != "heading")


def test_pages_are_one_based_in_the_file_and_zero_based_in_elements(doc, raw):
    assert doc.pages == (Page(0, 612.0, 792.0), Page(1, 612.0, 792.0), Page(2, 612.0, 792.0))
    for e, b in zip(doc.elements, raw["blocks"]):
        assert e.page_idx == b["page_start"] - 1
        assert e.last_page_idx == b["page_end"] - 1
    spanning = [e.id for e in doc.elements if e.page_end_idx is not None]
    assert spanning == ["b-0009"]
    assert doc.element("b-0009").page_end_idx == 1


def test_bboxes_in_points_top_left_origin_inside_their_page(doc):
    for e in doc.elements:
        x0, y0, x1, y1 = e.bbox
        page = doc.page(e.page_idx)
        assert 0 <= x0 < x1 <= page.width and 0 <= y0 < y1 <= page.height, e.id
    assert doc.element("b-0003").bbox == (72.0, 176.0, 171.2, 190.1)  # [x0, y0, x1, y1]
    assert doc.element("b-0009").bbox == (72.0, 690.2, 540.0, 744.6)  # {x0, y0, x1, y1}
    assert doc.element("b-0015").bbox == (72.0, 330.0, 190.4, 342.6)  # {l, t, r, b}
    # page 3's number is given bottom-left; flipped it sits where pages 1 and 2 have theirs
    assert doc.element("p3-num").bbox == doc.element("p1-num").bbox == (300.0, 766.0, 312.0, 776.0)
    # page furniture sits in the margins
    assert all(e.bbox[3] < 72 for e in doc.elements if e.type == "header")
    assert all(e.bbox[1] > 720 for e in doc.elements if e.type in ("footer", "page_number"))


def test_tables_keep_rows_and_get_a_pipe_table_when_text_is_empty(doc, raw):
    fees = doc.element("b-0013")
    assert fees.rows[0] == ("Service", "Unit", "Fee (USD)")
    assert fees.rows[-1] == ("Travel", "at cost", "")  # null cell
    assert len(fees.rows) == 5
    lines = fees.text.splitlines()
    assert lines[0] == "| Service | Unit | Fee (USD) |"
    assert lines[2] == "| Implementation | fixed | 45,000 |"
    assert len(lines) == 6  # header, separator, four rows
    notice = doc.element("b-0020")  # rows under table.rows, text given
    assert notice.text == next(b["text"] for b in raw["blocks"] if b["block_id"] == "b-0020")
    assert notice.rows == (
        ("Notice type", "Period"), ("Non-renewal", "90 days"), ("Termination for breach", "30 days")
    )
    assert all(e.rows is None for e in doc.elements if e.type != "table")


def test_unknown_types_empty_texts_and_a_missing_named_pdf_are_reported(doc):
    assert doc.element("b-0021").type == "other"
    assert doc.element("b-0022").text == ""  # a picture without text is kept
    assert any("signature_block (1)" in w for w in doc.warnings)
    assert any("msa_acme_globex.pdf" in w for w in doc.warnings)
    assert doc.pdf_path is None


def test_canonical_text_holds_every_element(doc):
    for e in doc.elements:
        assert doc.text[e.char_start : e.char_end] == e.text


def test_load_dispatches_document_json(doc):
    assert chunkbench.load(CONTRACT) == doc


def test_elements_json_round_trip(doc, tmp_path):
    path = write(tmp_path, doc.to_dict(), "elements.json")
    assert load_elements_json(path) == doc
    assert chunkbench.load(path) == doc


@pytest.mark.parametrize(
    "pages",
    [
        [{"index": i, "width": 612, "height": 792} for i in (0, 1, 2)],
        [{"number": n, "size": {"width": 612, "height": 792}} for n in (3, 1, 2)],  # any order
        {str(n): {"page_no": n, "size": {"width": 612.0, "height": 792.0}} for n in (1, 2, 3)},  # Docling
        [{"width": 612, "height": 792}] * 3,  # numbered by position
    ],
    ids=["index", "number-size", "docling-dict", "positional"],
)
def test_page_variants(tmp_path, raw, doc, pages):
    loaded = load_document_json(write(tmp_path, {**raw, "pages": pages}))
    assert loaded.pages == doc.pages
    assert loaded.elements == doc.elements


def test_without_pages_sizes_are_unknown(tmp_path, raw):
    data = {k: v for k, v in raw.items() if k != "pages"}
    data["blocks"] = [b for b in raw["blocks"] if b["block_id"] != "p3-num"]  # needs a page height
    loaded = load_document_json(write(tmp_path, data))
    assert loaded.pages == ()
    assert loaded.element("b-0017").page_idx == 2
    assert any("page sizes unknown" in w for w in loaded.warnings)


def test_pdf_named_in_the_file_is_found_beside_it(tmp_path):
    shutil.copy(CONTRACT, tmp_path / "document.json")
    (tmp_path / "msa_acme_globex.pdf").write_bytes(b"%PDF-1.7\n")
    loaded = load_document_json(tmp_path / "document.json")
    assert Path(loaded.pdf_path) == (tmp_path / "msa_acme_globex.pdf").resolve()
    assert not any("PDF" in w for w in loaded.warnings)


def test_pdf_beside_the_file_is_used_when_none_is_named(tmp_path, raw):
    data = {k: v for k, v in raw.items() if k != "source_pdf"}
    path = write(tmp_path, data)
    assert load_document_json(path).pdf_path is None
    (tmp_path / "contract.pdf").write_bytes(b"%PDF-1.7\n")
    assert Path(load_document_json(path).pdf_path).name == "contract.pdf"  # the only PDF there
    (tmp_path / "other.pdf").write_bytes(b"%PDF-1.7\n")
    assert load_document_json(path).pdf_path is None  # two candidates: ambiguous
    (tmp_path / "document.pdf").write_bytes(b"%PDF-1.7\n")
    assert Path(load_document_json(path).pdf_path).name == "document.pdf"  # {stem}.pdf wins


@pytest.mark.parametrize("named", ["../outside.pdf", "ABSOLUTE", "link.pdf"])
def test_pdf_paths_leading_outside_the_folder_are_not_followed(tmp_path, raw, named):
    outside = tmp_path / "outside.pdf"
    outside.write_bytes(b"%PDF-1.7\n")
    folder = tmp_path / "doc"
    folder.mkdir()
    (folder / "link.pdf").symlink_to(outside)
    name = str(outside) if named == "ABSOLUTE" else named
    loaded = load_document_json(write(folder, {**raw, "source_pdf": name}))
    assert loaded.pdf_path is None
    assert any("PDF named in the file ignored" in w for w in loaded.warnings)


def test_explicit_pdf_argument(tmp_path):
    pdf = tmp_path / "given.pdf"
    pdf.write_bytes(b"%PDF-1.7\n")
    assert load_document_json(CONTRACT, pdf=pdf).pdf_path == str(pdf)
    with pytest.raises(InputError, match="PDF not found"):
        load_document_json(CONTRACT, pdf=tmp_path / "missing.pdf")


def _with_block(raw: dict, n: int, **changes) -> dict:
    blocks = [dict(b) for b in raw["blocks"]]
    blocks[n].update(changes)
    for key in [k for k, v in changes.items() if v is _DROP]:
        del blocks[n][key]
    return {**raw, "blocks": blocks}


_DROP = object()
BAD_INPUTS = {
    "not an object": (lambda raw: raw["blocks"], "expected a JSON object, got a list"),
    "no blocks": (lambda raw: {"pages": raw["pages"]}, "unrecognised JSON object (keys: pages)"),
    "blocks not a list": (lambda raw: {**raw, "blocks": {"a": 1}}, "'blocks' must be a list, got an object"),
    "block not an object": (lambda raw: {**raw, "blocks": ["text"]}, "block 0: expected an object"),
    "no block_id": (lambda raw: _with_block(raw, 3, block_id=_DROP), "block 3: 'block_id' must be"),
    "no type": (lambda raw: _with_block(raw, 3, type=_DROP), "block 3 ('b-0003'): 'type' must be"),
    "text not a string": (lambda raw: _with_block(raw, 4, text=42), "'text' must be a string, got a number"),
    "duplicate id": (lambda raw: _with_block(raw, 5, block_id="b-0004"), "duplicate block_id 'b-0004'"),
    "start after end": (
        lambda raw: _with_block(raw, 9, page_start=2, page_end=1), "page_start 2 is after page_end 1"
    ),
    "page 0": (lambda raw: _with_block(raw, 2, page_start=0), "'page_start' must be a 1-based page number"),
    "page not in pages": (lambda raw: _with_block(raw, 2, page_end=4), "'page_end' 4 is not a page"),
    "page not an int": (lambda raw: _with_block(raw, 2, page_start="1"), "'page_start' must be"),
    "nan bbox": (lambda raw: _with_block(raw, 2, bbox=[72, math.nan, 540, 100]), "holds NaN at line"),
    "short bbox": (lambda raw: _with_block(raw, 2, bbox=[72, 10, 540]), "'bbox' must be 4 numbers"),
    "bbox keys": (lambda raw: _with_block(raw, 2, bbox={"x": 1}), "'bbox' object needs"),
    "level string": (lambda raw: _with_block(raw, 3, level="1"), "'level' must be a positive integer"),
    "rows not lists": (lambda raw: _with_block(raw, 16, rows=["a", "b"]), "'rows' must be a list of lists"),
    "cell object": (lambda raw: _with_block(raw, 16, rows=[[{"text": "a"}]]), "table cells must be"),
    "bad page size": (lambda raw: {**raw, "pages": [{"page_no": 1, "width": -1, "height": 792}]}, "pages[0]"),
    "page twice": (lambda raw: {**raw, "pages": [raw["pages"][0]] * 2}, "page 1 is listed twice"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_names_the_file_and_the_problem(tmp_path, raw, case):
    make, problem = BAD_INPUTS[case]
    path = write(tmp_path, make(raw), "bad_contract.json")
    with pytest.raises(InputError) as info:
        load_document_json(path)
    assert "bad_contract.json" in str(info.value)
    assert problem in str(info.value)
    assert info.value.exit_code == 3


@pytest.mark.parametrize(
    "content, problem", [(b"", "empty file"), (b"{blocks: []", "not valid JSON"), (b"\xff{}", "not UTF-8")]
)
def test_unreadable_json(tmp_path, content, problem):
    path = tmp_path / "document.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=problem) as info:
        load_document_json(path)
    assert "document.json" in str(info.value)
