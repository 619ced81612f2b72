"""MinerU loader against real MinerU 3.4.4 output (tests/support/paths.py: MINERU_FIXTURES)."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from pathlib import Path

import pymupdf
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chunkbench
from chunkbench.errors import InputError
from chunkbench.loaders.mineru import NO_PAGE_SIZES_WARNING, html_table_rows, load_mineru
from chunkbench.loaders.settle import settle
from chunkbench.types.document import Document
from tests.support.paths import mineru_fixture

PAPERS = ("naacl-long-122", "naacl-long-107")
# MinerU's v1 item types in these fixtures -> element types (docs/contracts.md); "text" depends on text_level.
RAW_TO_ELEMENT = {
    "title": "heading", "table": "table", "image": "image", "chart": "image", "code": "code", "list": "list",
    "header": "header", "footer": "footer", "page_number": "page_number", "page_footnote": "footnote",
}


def fixture_dir(paper: str) -> Path:
    return mineru_fixture(paper)


def v1_file(paper: str) -> Path:
    return fixture_dir(paper) / f"{paper}_content_list.json"


def v2_file(paper: str) -> Path:
    return fixture_dir(paper) / f"{paper}_content_list_v2.json"


def raw_items(paper: str) -> list[dict]:
    return json.loads(v1_file(paper).read_text("utf-8"))


def expected_type(item: dict) -> str:
    if item["type"] == "text":
        return "heading" if item.get("text_level") else "paragraph"
    return RAW_TO_ELEMENT[item["type"]]


def write_items(path: Path, items) -> Path:
    path.write_text(json.dumps(items), "utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Real fixtures


@pytest.mark.parametrize("paper", PAPERS)
def test_types_follow_raw_items_one_to_one(paper):
    raw = raw_items(paper)
    doc = load_mineru(v1_file(paper))
    assert [e.type for e in doc.elements] == [expected_type(i) for i in raw]
    assert [e.raw_type for e in doc.elements] == [i["type"] for i in raw]
    assert Counter(e.type for e in doc.elements) == Counter(expected_type(i) for i in raw)
    assert doc.parser.name == "mineru" and doc.parser.options["format"] == "content_list"
    assert len({e.id for e in doc.elements}) == len(raw)
    assert Document.from_dict(json.loads(json.dumps(doc.to_dict()))) == doc  # elements.json round trip


@pytest.mark.parametrize("paper", PAPERS)
def test_reading_order_is_file_order(paper):
    raw = raw_items(paper)
    doc = load_mineru(v1_file(paper))
    pages = [e.page_idx for e in doc.elements]
    assert pages == [i["page_idx"] for i in raw]
    assert pages == sorted(pages)
    for element, item in zip(doc.elements, raw):
        if item["type"] in ("text", "page_number", "page_footnote", "footer"):
            assert element.text == item["text"].strip()


@pytest.mark.parametrize("paper", PAPERS)
def test_headings_carry_levels_one_and_two(paper):
    raw = raw_items(paper)
    doc = load_mineru(v1_file(paper))
    headings = [e for e in doc.elements if e.type == "heading"]
    assert Counter(e.text_level for e in headings) == Counter(i["text_level"] for i in raw if i.get("text_level"))
    assert {e.text_level for e in headings} == {1, 2}
    title = next(e for e in headings if e.text_level == 1)
    assert title.text == next(i["text"] for i in raw if i.get("text_level") == 1)
    assert all(e.text_level is None for e in doc.elements if e.type != "heading")


def test_tables_have_rows_text_and_captions():
    doc = load_mineru(v1_file("naacl-long-122"))
    raw_tables = [i for i in raw_items("naacl-long-122") if i["type"] == "table"]
    tables = [e for e in doc.elements if e.type == "table"]
    assert len(tables) == len(raw_tables) == 13
    for table, raw in zip(tables, raw_tables):
        assert table.rows and len(table.rows) >= 2
        lines = table.text.splitlines()
        assert len(lines) == len(table.rows) + 1 and all(line.startswith("|") for line in lines)
        assert table.attrs["html"] == raw["table_body"]
        assert table.attrs.get("caption", []) == raw["table_caption"]


def test_table_cells_from_html():
    tables = [e for e in load_mineru(v1_file("naacl-long-107")).elements if e.type == "table"]
    first = tables[0].rows
    assert [r[0] for r in first] == ["Prompt", "Generation"]
    assert first[0][1].startswith("Here is one question about tobacco and marijuana.")
    assert 'fondler." Write a similar question' in first[0][1]  # &quot; decoded
    # Table 3 has two colspan=2 header cells: each is followed by an empty cell.
    third = tables[2].rows
    assert third[0] == ("Evaluation Set", "SafeEval", "", "Anthropic Harmless", "")
    assert third[1] == ("", "RM", "Human", "RM", "Human")
    assert third[-1] == ("Llama 2-Chat-70b", "2.1%", "4.2%", "0.7%", "1.6%")


def test_code_list_and_chart_items():
    raw = raw_items("naacl-long-107")
    doc = load_mineru(v1_file("naacl-long-107"))
    pairs = list(zip(doc.elements, raw))
    code, code_raw = next((e, i) for e, i in pairs if i["type"] == "code")
    assert code.type == "code" and code.attrs["sub_type"] == "algorithm"
    assert code.text == code_raw["code_body"].strip("\n")
    assert code.blocks == ({"type": "code_body", "text": code_raw["code_body"].strip("\n")},)
    refs, refs_raw = next((e, i) for e, i in pairs if i["type"] == "list")
    assert refs.text.split("\n") == refs_raw["list_items"]
    assert [b["text"] for b in refs.blocks] == refs_raw["list_items"]
    assert refs.attrs["sub_type"] == "ref_text"
    chart, chart_raw = next((e, i) for e, i in pairs if i["type"] == "chart")
    assert chart.type == "image" and chart_raw["content"] == ""
    assert chart.text == "\n".join(chart_raw["chart_caption"])
    assert chart.attrs["img_path"] == chart_raw["img_path"]


@pytest.mark.parametrize("paper", PAPERS)
def test_empty_text_items_are_kept_and_counted(paper):
    raw = raw_items(paper)
    doc = load_mineru(v1_file(paper))
    text_keys = ("text", "content", "table_body", "code_body", "list_items", "image_caption", "chart_caption")
    empty_raw = sum(1 for i in raw if not any(i.get(k) for k in text_keys))
    assert empty_raw >= sum(1 for i in raw if i.get("text") == "") > 0
    empty = [e for e in doc.elements if e.text == ""]
    assert len(empty) == empty_raw
    assert all(e.char_start == e.char_end for e in empty)
    assert "\n\n\n\n" not in doc.text


def test_bboxes_in_points_from_the_pdf_beside_the_output():
    paper = "naacl-long-122"
    doc = load_mineru(v1_file(paper))
    pdf = fixture_dir(paper) / f"{paper}.pdf"
    assert doc.pdf_path == os.fspath(pdf) and doc.warnings == ()
    assert doc.parser.version == "3.4.4" and doc.parser.options["backend"] == "pipeline"
    with pymupdf.open(pdf) as src:
        sizes = [(p.rect.width, p.rect.height) for p in src]
    assert [(p.width, p.height) for p in doc.pages] == sizes
    for e in doc.elements:
        page = doc.pages[e.page_idx]
        x0, y0, x1, y1 = e.bbox
        assert 0 <= x0 <= x1 <= page.width and 0 <= y0 <= y1 <= page.height
    raw = raw_items(paper)[0]["bbox"]
    width, height = sizes[0]
    expected = (raw[0] * width / 1000, raw[1] * height / 1000, raw[2] * width / 1000, raw[3] * height / 1000)
    assert doc.elements[0].bbox == pytest.approx(expected, abs=0.01)


def test_page_sizes_from_middle_json_when_no_pdf(tmp_path):
    paper = "naacl-long-122"
    for suffix in ("_content_list.json", "_middle.json"):
        shutil.copyfile(fixture_dir(paper) / f"{paper}{suffix}", tmp_path / f"{paper}{suffix}")
    doc = load_mineru(tmp_path / f"{paper}_content_list.json")
    assert doc.pdf_path is None and doc.warnings == ()
    assert {(p.width, p.height) for p in doc.pages} == {(595.0, 841.0)}  # middle.json page_size
    raw = raw_items(paper)[0]["bbox"]
    expected = (raw[0] * 0.595, raw[1] * 0.841, raw[2] * 0.595, raw[3] * 0.841)
    assert doc.elements[0].bbox == pytest.approx(expected, abs=0.01)


def test_explicit_pdf_gives_page_sizes(tmp_path):
    paper = "naacl-long-122"
    lone = shutil.copyfile(v1_file(paper), tmp_path / "x_content_list.json")
    pdf = fixture_dir(paper) / f"{paper}.pdf"
    doc = load_mineru(lone, pdf=pdf)
    assert doc.pdf_path == os.fspath(pdf) and all(e.bbox is not None for e in doc.elements)
    assert doc.parser.version == ""  # no _middle.json beside this copy


def test_without_pdf_or_middle_bboxes_are_unavailable():
    doc = load_mineru(v1_file("naacl-long-107"))
    assert NO_PAGE_SIZES_WARNING in doc.warnings
    assert all(e.bbox is None for e in doc.elements)
    assert len(doc.pages) == 11 and {(p.width, p.height) for p in doc.pages} == {(0.0, 0.0)}
    assert doc.pdf_path is None


@pytest.mark.parametrize("paper", PAPERS)
def test_v1_and_v2_give_the_same_elements(paper):
    """Same types, pages, bboxes and texts in the same order. Texts differ only where v1 escapes
    Markdown (`\\_`, `` \\` ``), keeps line breaks in code, or lists several captions that v2 joins."""
    a = load_mineru(v1_file(paper))
    b = load_mineru(v2_file(paper))
    assert b.parser.options["format"] == "content_list_v2"
    assert len(a.elements) == len(b.elements)

    def norm(text: str) -> str:
        return " ".join(text.replace("\\_", "_").replace("\\`", "`").split())

    for x, y in zip(a.elements, b.elements):
        assert (x.type, x.page_idx, x.bbox, x.text_level) == (y.type, y.page_idx, y.bbox, y.text_level)
        assert norm(x.text) == norm(y.text)
        assert x.rows == y.rows
        assert x.attrs.get("sub_type") == y.attrs.get("sub_type")
    identical = sum(x.text == y.text for x, y in zip(a.elements, b.elements))
    assert identical >= 0.9 * len(a.elements)


# ---------------------------------------------------------------------------------------------
# Folders


def test_flat_folder_prefers_v1(tmp_path):
    paper = "naacl-long-107"
    for f in (v1_file(paper), v2_file(paper)):
        shutil.copyfile(f, tmp_path / f.name)
    assert chunkbench.load(tmp_path).source == v1_file(paper).name
    (tmp_path / v1_file(paper).name).unlink()
    assert chunkbench.load(tmp_path).source == v2_file(paper).name


@pytest.mark.parametrize("parse_dir", ["auto", "vlm", "hybrid_auto"])
def test_mineru_output_layout(tmp_path, parse_dir):
    paper = "naacl-long-122"
    doc_dir = tmp_path / "out" / paper
    (doc_dir / parse_dir).mkdir(parents=True)
    for suffix in ("_content_list.json", "_content_list_v2.json", "_middle.json"):
        shutil.copyfile(fixture_dir(paper) / f"{paper}{suffix}", doc_dir / parse_dir / f"{paper}{suffix}")
    pdf = shutil.copyfile(fixture_dir(paper) / f"{paper}.pdf", doc_dir / f"{paper}.pdf")  # one level up
    reference = settle(load_mineru(v1_file(paper)))  # `load` settles every parser's output
    for folder in (tmp_path / "out", doc_dir, doc_dir / parse_dir):
        doc = chunkbench.load(folder)
        assert doc.source == f"{paper}_content_list.json"
        assert doc.pdf_path == os.fspath(pdf)
        assert [(e.text, e.bbox) for e in doc.elements] == [(e.text, e.bbox) for e in reference.elements]


def test_folder_errors(tmp_path):
    with pytest.raises(InputError, match="no MinerU"):
        load_mineru(tmp_path)
    for paper in PAPERS:
        (tmp_path / paper).mkdir()
        shutil.copyfile(v1_file(paper), tmp_path / paper / v1_file(paper).name)
    with pytest.raises(InputError, match="several MinerU outputs"):
        load_mineru(tmp_path)


def test_img_path_outside_the_output_folder_is_refused(tmp_path):
    paths = ["images/a.jpg", "../secret.jpg", "/etc/passwd", "images/../../x.jpg", "images/../images/b.jpg"]
    items = [
        {"type": "image", "img_path": p, "image_caption": [f"Figure {n}"], "page_idx": 0} for n, p in enumerate(paths)
    ]
    doc = load_mineru(write_items(tmp_path / "x_content_list.json", items))
    assert [e.attrs.get("img_path") for e in doc.elements] == ["images/a.jpg", None, None, None, "images/b.jpg"]
    assert [e.text for e in doc.elements] == [f"Figure {n}" for n in range(5)]
    assert any(w.startswith("3 img_path(s)") for w in doc.warnings)


# ---------------------------------------------------------------------------------------------
# The specs/1 variant, bbox repairs and malformed input


def test_specs1_variant(tmp_path):
    items = [
        {"type": "paragraph", "text": "Revenue increased by 15%...", "page_idx": 1, "text_level": 3},
        {"type": "heading", "text": "Financial Statements", "page_idx": 2, "text_level": 1},
        {"type": "table", "text": "Revenue: $100M\nIncome: $50M", "page_idx": 2, "text_level": 999},
        {"type": "code", "page_idx": 2, "text_level": 999,
         "blocks": [{"type": "code_caption", "text": "Listing 1"}, {"type": "code_body", "text": "print(1)"}]},
        {"type": "list", "page_idx": 3,
         "blocks": [{"type": "text", "text": "first"}, {"blocks": [{"text": "nested"}]},
                    {"text": "", "content": "third"}]},
        {"type": "paragraph", "text": "", "content": "fallback", "page_idx": 3, "text_level": 999},
        {"type": "paragraph", "text": "", "page_idx": 3},
    ]
    doc = chunkbench.load(write_items(tmp_path / "elements.json", items))  # a JSON list: dispatched to MinerU
    assert [e.type for e in doc.elements] == ["paragraph", "heading", "table", "code", "list", "paragraph", "paragraph"]
    assert [e.text_level for e in doc.elements] == [None, 1, None, None, None, None, None]
    assert doc.elements[0].attrs["text_level"] == 3
    assert doc.elements[2].text == "Revenue: $100M\nIncome: $50M" and doc.elements[2].rows is None
    assert doc.elements[3].text == "Listing 1\nprint(1)"
    assert doc.elements[4].text == "first\nnested\nthird"
    assert [e.text for e in doc.elements[5:]] == ["fallback", ""]
    assert [p.index for p in doc.pages] == [0, 1, 2, 3] and doc.pages_without_text == [0]
    assert doc.warnings == ()  # no bboxes in the source: nothing is unavailable


def test_v1_types_not_in_the_fixtures(tmp_path):
    items = [
        {"type": "title", "text": "Doc title", "page_idx": 0},
        {"type": "text", "text": "Deep", "text_level": 9, "page_idx": 0},
        {"type": "equation", "text": "E = mc^2", "text_format": "latex", "img_path": "images/e.jpg", "page_idx": 0},
        {"type": "image", "img_caption": ["Fig. 1 (MinerU 2.0 keys)"], "img_footnote": ["note"], "page_idx": 0},
        {"type": "code", "sub_type": "code", "code_caption": ["Listing 2"], "code_body": "  x = 1\n  y = 2\n",
         "page_idx": 0},
        {"type": "header", "text": "Running head", "page_idx": 1},
        {"type": "aside_text", "text": "margin", "page_idx": 1},
        {"type": "discarded", "text": "", "page_idx": 1},
        {"type": "ref_text", "text": "[1] A. Author. 2020.", "page_idx": 1},
        {"type": "table", "table_caption": ["Table 9 (continued)"], "page_idx": 1},
    ]
    doc = load_mineru(write_items(tmp_path / "x_content_list.json", items))
    assert [(e.type, e.text_level) for e in doc.elements] == [
        ("heading", 1), ("heading", 6), ("equation", None), ("image", None), ("code", None), ("header", None),
        ("other", None), ("other", None), ("list", None), ("table", None)]
    equation, image, code = doc.elements[2:5]
    assert equation.text == "E = mc^2" and equation.attrs == {"text_format": "latex", "img_path": "images/e.jpg"}
    assert image.text == "Fig. 1 (MinerU 2.0 keys)" and image.attrs["footnote"] == ["note"]
    assert code.text == "Listing 2\n  x = 1\n  y = 2"  # indentation of the first line survives
    assert doc.elements[-1].text == "" and doc.elements[-1].rows is None  # a table half without body
    assert doc.elements[-1].attrs["caption"] == ["Table 9 (continued)"]


def test_v2_types_not_in_the_fixtures(tmp_path):
    def spans(text):
        return [{"type": "text", "content": text}]

    page = [
        {"type": "page_header", "content": {"page_header_content": spans("Head")}, "bbox": [0, 0, 1000, 20]},
        {"type": "page_aside_text", "content": {"page_aside_text_content": spans("arXiv:2401.0001")}},
        {"type": "equation_interline", "content": {"math_content": "a^2+b^2", "math_type": "latex",
                                                    "image_source": {"path": "images/eq.jpg"}}},
        {"type": "code", "content": {"code_caption": spans("Listing 1"), "code_language": "python",
                                     "code_content": spans("print(1)"), "code_footnote": []}},
        {"type": "index", "content": {"list_type": "text_list", "list_items": [
            {"item_type": "text", "item_content": spans("1 Intro .... 1")},
            {"item_type": "text", "item_content": spans("2 Method .... 3")}]}},
        {"type": "title", "content": {"title_content": [
            {"type": "text", "content": "Bound"}, {"type": "equation_inline", "content": "x<1"}], "level": 3}},
        {"type": "phonetic_note", "content": {"phonetic_note_content": spans("new type")}},
    ]
    doc = load_mineru(write_items(tmp_path / "x_content_list_v2.json", [[], page]))
    assert [(e.type, e.raw_type, e.page_idx) for e in doc.elements] == [
        ("header", "page_header", 1), ("other", "page_aside_text", 1), ("equation", "equation_interline", 1),
        ("code", "code", 1), ("list", "index", 1), ("heading", "title", 1), ("other", "phonetic_note", 1)]
    assert [e.text for e in doc.elements] == [
        "Head", "arXiv:2401.0001", "a^2+b^2", "Listing 1\nprint(1)", "1 Intro .... 1\n2 Method .... 3",
        "Bound $x<1$", "new type"]
    assert doc.elements[2].attrs["img_path"] == "images/eq.jpg"
    assert doc.elements[5].text_level == 3
    assert len(doc.pages) == 2 and doc.pages_without_text == [0]
    assert "unknown MinerU item type(s) loaded as 'other': phonetic_note (1)" in doc.warnings


def test_unreadable_pdf_or_middle_json_is_an_input_error(tmp_path):
    f = shutil.copyfile(v1_file("naacl-long-122"), tmp_path / "x_content_list.json")
    with pytest.raises(InputError, match="PDF not found"):
        load_mineru(f, pdf=tmp_path / "missing.pdf")
    fake_pdf = tmp_path / "x.pdf"
    fake_pdf.write_text("not a pdf")
    with pytest.raises(InputError, match="cannot open PDF") as info:
        load_mineru(f)  # x.pdf beside x_content_list.json is picked up
    assert info.value.path == os.fspath(fake_pdf)
    fake_pdf.unlink()
    (tmp_path / "x_middle.json").write_text('{"pdf_info": [{"page_size": [0, 841]}]}')
    with pytest.raises(InputError, match=r"pdf_info\[0\].page_size is not \[width, height\]"):
        load_mineru(f)


def test_bbox_repairs_are_reported(tmp_path):
    pdf = fixture_dir("naacl-long-122") / "naacl-long-122.pdf"
    items = [
        {"type": "text", "text": "swapped", "page_idx": 0, "bbox": [500, 600, 100, 200]},
        {"type": "text", "text": "outside", "page_idx": 0, "bbox": [-5, 0, 1005, 10]},
    ]
    doc = load_mineru(write_items(tmp_path / "x_content_list.json", items), pdf=pdf)
    w, h = doc.pages[0].width, doc.pages[0].height
    assert doc.elements[0].bbox == pytest.approx((0.1 * w, 0.2 * h, 0.5 * w, 0.6 * h), abs=0.01)
    assert doc.elements[1].bbox == pytest.approx((0.0, 0.0, w, 0.01 * h), abs=0.01)
    assert "1 bbox(es) with swapped corners were reordered" in doc.warnings
    assert "1 bbox(es) outside 0-1000 were clipped to the page" in doc.warnings


def test_page_beyond_the_pdf_is_an_input_error(tmp_path):
    pdf = fixture_dir("naacl-long-122") / "naacl-long-122.pdf"
    f = write_items(tmp_path / "x_content_list.json", [{"type": "text", "text": "a", "page_idx": 11}])
    with pytest.raises(InputError, match=r"page_idx 11, beyond the 11 page\(s\) of naacl-long-122.pdf") as info:
        load_mineru(f, pdf=pdf)
    assert str(info.value).startswith(os.fspath(f))


def test_unknown_types_load_as_other(tmp_path):
    items = [{"type": "sticker", "text": "hi", "page_idx": 0}, {"type": "sticker", "page_idx": 0}]
    doc = load_mineru(write_items(tmp_path / "x_content_list.json", items))
    assert [(e.type, e.raw_type, e.text) for e in doc.elements] == [
        ("other", "sticker", "hi"), ("other", "sticker", "")]
    assert "unknown MinerU item type(s) loaded as 'other': sticker (2)" in doc.warnings


BAD_INPUTS = [
    (b"", "empty file"),
    (b" \n", "empty file"),
    (b"[{", "not valid JSON"),
    (b"\xff\xfe[", "not UTF-8"),
    (b"[" * 100_000, "nested too deeply"),
    (b'{"a": 1}', "expected a JSON list, got an object"),
    (b"[1]", "item 0: expected an object, got a number"),
    (b'[{"text": "a", "page_idx": 0}]', "item 0: missing or invalid 'type'"),
    (b'[{"type": 3, "page_idx": 0}]', "item 0: missing or invalid 'type'"),
    (b'[{"type": "text", "text": "a"}]', "'page_idx' must be a non-negative integer, got None"),
    (b'[{"type": "text", "page_idx": -1}]', "'page_idx' must be a non-negative integer, got -1"),
    (b'[{"type": "text", "page_idx": "1"}]', "'page_idx' must be a non-negative integer"),
    (b'[{"type": "text", "page_idx": true}]', "'page_idx' must be a non-negative integer"),
    (b'[{"type": "text", "page_idx": 0}, {"type": "text", "text": 5, "page_idx": 0}]',
     "item 1: 'text' must be a string"),
    (b'[{"type": "text", "page_idx": 0, "text_level": "1"}]', "'text_level' must be an integer"),
    (b'[{"type": "text", "page_idx": 0, "bbox": [NaN, 0, 1, 1]}]', "holds NaN at line 1, column 43, which JSON does not allow"),
    (b'[{"type": "text", "page_idx": 0, "bbox": [0, 0, Infinity, 1]}]', "holds Infinity at line 1, column 49"),
    (b'[{"type": "text", "page_idx": 0, "bbox": [0, 0, 1]}]', "'bbox' must be 4 numbers"),
    (b'[{"type": "text", "page_idx": 0, "bbox": ["0", 0, 1, 1]}]', "'bbox' must be 4 numbers"),
    (b'[{"type": "list", "page_idx": 0, "list_items": {"a": 1}}]', "'list_items' must be a list of strings"),
    (b'[{"type": "list", "page_idx": 0, "list_items": [1]}]', "'list_items' must be a list of strings"),
    (b'[{"type": "table", "page_idx": 0, "table_body": 7}]', "'table_body' must be a string"),
    (b'[{"type": "code", "page_idx": 0, "blocks": [3]}]', "'blocks' must hold objects"),
    (b"[[], {}]", "mixes page lists"),
    (b'[[{"type": "paragraph", "content": "x"}]]', "page 0 item 0: 'content' must be an object"),
    (b'[[{"type": "paragraph", "content": {"paragraph_content": [{"type": "text", "content": 1}]}}]]',
     "page 0 item 0: 'paragraph_content' spans must be objects with a string 'content'"),
    (b'[[], [{"type": "list", "content": {"list_items": {}}}]]', "page 1 item 0: 'list_items' must be a list"),
]


@pytest.mark.parametrize("data, problem", BAD_INPUTS, ids=[p for _, p in BAD_INPUTS])
def test_malformed_input_is_an_input_error_naming_the_file(tmp_path, data, problem):
    f = tmp_path / "bad_content_list.json"
    f.write_bytes(data)
    with pytest.raises(InputError) as info:
        chunkbench.load(f)
    assert problem in info.value.message
    assert str(info.value).startswith(f"{f}: ") and info.value.exit_code == 3


def test_html_table_rows_expands_spans():
    assert html_table_rows("<table><tr><td rowspan=2>A</td><td>B</td></tr><tr><td>C</td></tr></table>") == (
        ("A", "B"), ("", "C"))
    assert html_table_rows("<table><tr><td>a</td><td rowspan='2'>b</td></tr><tr><td>c</td></tr></table>") == (
        ("a", "b"), ("c", ""))
    nested = "<table><tr><td>x<table><tr><td>in</td></tr></table></td><td>y &amp; z<br>w</td></tr></table>"
    assert html_table_rows(nested) == (("x in", "y & z w"),)
    assert html_table_rows("<table><tr><td colspan=999999>a</td></tr></table>")[0][:2] == ("a", "")
    assert len(html_table_rows("<table><tr><td colspan=999999>a</td></tr></table>")[0]) == 1000


def test_a_table_whose_spans_expand_past_the_bound_is_refused_naming_the_item(tmp_path):
    """Robustness: 13 kB of table_body declaring thousands of spans (45 s and 1.6 GB before) is one
    InputError naming the file and the item, at MAX_TABLE_CELLS."""
    from chunkbench.loaders.htmldoc.tables import MAX_TABLE_CELLS, TableTooLarge

    body = "<table>" + "<tr>" + '<td colspan="1000" rowspan="1000">x</td>' * 300 + "</tr>" * 20 + "</table>"
    with pytest.raises(TableTooLarge):
        html_table_rows(body)
    f = tmp_path / "spans_content_list.json"
    f.write_text(json.dumps([{"type": "text", "text": "Before the table.", "page_idx": 0},
                             {"type": "table", "table_body": body, "page_idx": 0}]), "utf-8")
    with pytest.raises(InputError, match=f"item 1: the table's colspan/rowspan expand to more than {MAX_TABLE_CELLS:,}") as err:
        chunkbench.load(f)
    assert err.value.path == str(f)


# ---------------------------------------------------------------------------------------------
# Any JSON: a Document or an InputError, never another exception

_json_scalars = st.none() | st.booleans() | st.integers(-5, 1005) | st.floats() | st.text(max_size=8)
_KEYS = ["text", "content", "bbox", "text_level", "table_body", "list_items", "blocks", "code_body", "code_caption",
         "image_caption", "img_path", "paragraph_content", "title_content", "level", "item_content", "html",
         "image_source", "math_content", "algorithm_content"]
_TYPES = ["text", "title", "table", "image", "chart", "code", "list", "equation", "paragraph", "heading",
          "page_number", "algorithm", "index", "page_footer", "equation_interline", "zzz"]
_json = st.recursive(
    _json_scalars | st.sampled_from(_TYPES),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.sampled_from(_KEYS + ["type"]), children, max_size=5)
    ),
    max_leaves=20,
)
# Mostly well-formed items with random fields, so the checks past `type` and `page_idx` are reached.
_v1_item = st.fixed_dictionaries(
    {"type": st.sampled_from(_TYPES), "page_idx": st.integers(0, 3)}, optional={k: _json for k in _KEYS})
_v2_item = st.fixed_dictionaries(
    {"type": st.sampled_from(_TYPES)},
    optional={"content": st.dictionaries(st.sampled_from(_KEYS), _json), "bbox": _json},
)
_content_lists = (
    st.lists(_v1_item, max_size=5) | st.lists(st.lists(_v2_item, max_size=3), max_size=3) | st.lists(_json, max_size=4)
)


@given(data=_content_lists)
def test_any_json_loads_or_raises_input_error(tmp_path_factory, data):
    f = tmp_path_factory.mktemp("fuzz") / "f_content_list.json"
    f.write_text(json.dumps(data), "utf-8")
    try:
        doc = load_mineru(f)
    except InputError as exc:
        assert exc.path == os.fspath(f)
        return
    v2 = doc.parser.options["format"] == "content_list_v2"
    assert len(doc.elements) == (sum(len(page) for page in data) if v2 else len(data))
