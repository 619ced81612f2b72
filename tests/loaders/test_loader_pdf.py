"""The default PDF loader (PyMuPDF layout model) on real PDFs: structure, geometry, errors, OCR."""

from __future__ import annotations

import json
import multiprocessing
import re
import shutil

import pymupdf
import pymupdf4llm
import pytest
from pymupdf4llm.ocr import OCRMode

import chunkbench
from chunkbench.errors import InputError
from chunkbench.loaders import load_elements_json, pdf_layout
from chunkbench.loaders import pdf as pdf_loader
from chunkbench.loaders.paragraphs import join_broken_paragraphs
from chunkbench.loaders.pdf import heading_levels, load_pdf, page_list
from chunkbench.loaders.pdf_layout import code_text, flow_text, table_rows
from chunkbench.loaders.settle import settle
from chunkbench.types.document import Document, Element, is_noise, sha256_file
from tests.support.builders import line
from tests.support.paths import SAMPLE_PDFS, shared_pdf

NDA = "legal_ukgov-example-mutual-nda.pdf"
STAT_ABSTRACT = "table_us-stat-abstract-12s0324.pdf"
ULTA = "financial_ulta-2023q4-earnings.pdf"
FEDERAL_REGISTER = "req_federal-register-2020-17221.pdf"
SCAN = "scan_huckfinn-c03-29.pdf"
GNUPLOT = "long_gnuplot-5.4.pdf"


def load_shared(name: str) -> Document:
    return chunkbench.load(shared_pdf(name))


def tables(doc: Document):
    return [e for e in doc.elements if e.type == "table"]


# --- structure on real PDFs ------------------------------------------------------------------


def test_nda_title_is_a_level_1_heading_and_clauses_are_list_items():
    doc = load_shared(NDA)
    headings = [e for e in doc.elements if e.type == "heading"]
    assert "Mutual Non-Disclosure Agreement" in headings[0].text
    assert headings[0].text_level == 1
    assert all(h.text_level in range(2, 7) for h in headings[1:])
    clauses = [e.text for e in doc.elements if e.type == "list"]
    for n in range(1, 11):  # the agreement has clauses 1. to 10.
        assert any(text.startswith(f"{n}. ") for text in clauses), n


def test_wrapped_lines_are_joined_into_one_paragraph():
    doc = load_shared(NDA)
    clause_1 = next(e.text for e in doc.elements if e.text.startswith("1. Each of the parties"))
    assert "\n" not in clause_1 and "  " not in clause_1
    assert "disclose information (the Confidential Information) to the other party" in clause_1


def test_stat_abstract_tables_have_rows_and_a_pipe_table_text():
    doc = load_shared(STAT_ABSTRACT)
    found = tables(doc)
    assert len(found) == 2  # Table 324 (by sex and age) and Table 325 (by race)
    for table in found:
        assert table.rows and len(table.rows) > 20
        assert table.text.splitlines()[1].startswith("|---|")
    by_label = {row[0]: row for row in found[0].rows}
    # The caption says "11,062.6 represents 11,062,600": the total, with dot leaders removed.
    assert by_label["Total"][1] == "11,062.6"
    assert by_label["Robbery"][1:4] == ("102.1", "25.5", "76.6")
    assert [e.type for e in doc.elements].count("heading") == 2
    assert doc.elements[0].text == "Table 324. Arrests by Sex and Age: 2009"


def test_ulta_outlook_table_pairs_labels_with_values():
    doc = load_shared(ULTA)
    rows = {row for table in tables(doc) for row in table.rows}
    assert ("Net sales", "$10.95 billion to $11.05 billion") in rows
    assert ("Diluted earnings per share", "$24.70 to $25.40") in rows
    assert len(tables(doc)) >= 5  # summary, outlook and the exhibits' financial statements


def test_every_bbox_lies_inside_its_page():
    for name in (NDA, STAT_ABSTRACT, ULTA, FEDERAL_REGISTER):
        doc = load_shared(name)
        for e in doc.elements:
            page = doc.page(e.page_idx)
            x0, y0, x1, y1 = e.bbox
            assert 0 <= x0 <= x1 <= page.width and 0 <= y0 <= y1 <= page.height, (name, e.id)


def test_ids_name_the_page_and_position():
    doc = load_shared(ULTA)
    assert len({e.id for e in doc.elements}) == len(doc.elements)
    for e in doc.elements:
        page, n = re.fullmatch(r"p(\d+)-e(\d+)", e.id).groups()
        assert int(page) == e.page_idx + 1
    firsts = [e for e in doc.elements if e.id.endswith("-e1")]
    assert [e.page_idx for e in firsts] == list(range(len(doc.pages)))


def test_three_column_federal_register_is_read_column_by_column():
    doc = load_shared(FEDERAL_REGISTER)
    body_top = 110  # below the running header, and below the masthead that spans page 1
    for page in doc.pages:
        column_items = [
            e for e in doc.elements
            if e.page_idx == page.index and e.bbox[1] > body_top and e.bbox[2] - e.bbox[0] < page.width / 3
            and not e.attrs.get("unboxed")  # margin furniture comes last on its page (see below)
        ]
        columns = [int(e.bbox[0] // (page.width / 3)) for e in column_items]
        assert columns == sorted(columns), f"page {page.index + 1}: {columns}"
    # a sentence cut by a column break continues in the next element
    text = doc.text
    assert "Boeing Model 737–8 airplane operated by Lion Air (Lion Air Flight 610)" in text


def test_federal_register_page_numbers_and_running_headers():
    doc = load_shared(FEDERAL_REGISTER)
    numbers = {e.page_idx: e.text for e in doc.elements if e.type == "page_number"}
    assert len(numbers) >= 14  # on page 8 the model merges the number into the running header
    assert all(text == str(47698 + page_idx) for page_idx, text in numbers.items())  # as printed
    headers = [e for e in doc.elements if e.type == "header" and "reclassified" not in e.attrs]  # the masthead: test_running_headers
    assert headers and all(h.text.startswith("Federal Register / Vol. 85, No. 152") for h in headers)


def test_margin_text_outside_every_box_is_page_furniture():
    """The layout model puts the Federal Register's production stamp (bottom margin)
    and its vertical gutter note in no box, so they were not in the Document, while PyMuPDF's
    and pypdf's own text (what other chunkers chunk) have them. They are footers now, marked
    unboxed, last on their page, and skipped by the strategies like any furniture."""
    doc = load_shared(FEDERAL_REGISTER)
    unboxed = [e for e in doc.elements if e.attrs.get("unboxed")]
    assert {e.page_idx for e in unboxed if e.text.startswith("VerDate Sep<11>2014")} == set(range(len(doc.pages)))
    assert {e.page_idx for e in unboxed if e.text == "jbell on DSKJLSW7X2PROD with PROPOSALS"} == set(range(len(doc.pages)))
    assert all(e.type == "footer" and e.raw_type == "page-footer" and is_noise(e) for e in unboxed)
    for page in doc.pages:
        on_page = [e for e in doc.elements if e.page_idx == page.index]
        n = sum(1 for e in on_page if e.attrs.get("unboxed"))
        assert all(e.attrs.get("unboxed") for e in on_page[len(on_page) - n:])
        assert all(e.bbox[3] > page.height / 2 for e in on_page[len(on_page) - n:])  # in the lower half
    assert not any("VerDate" in c.text or "jbell" in c.text for c in chunkbench.chunk(doc, "elements"))


@pytest.mark.parametrize("path", sorted(SAMPLE_PDFS.glob("*.pdf")), ids=lambda p: p.stem)
def test_the_model_boxes_all_text_of_the_sample_pdfs(path):
    assert not [e.text for e in chunkbench.load(path).elements if e.attrs.get("unboxed")]


def test_superscript_footnote_numbers_are_set_off_from_words():
    doc = load_shared(FEDERAL_REGISTER)
    assert "altitude disagree alert, 5 and may affect" in doc.text
    assert "alert,5and" not in doc.text


def test_elements_json_round_trip(tmp_path):
    doc = load_shared(ULTA)
    assert Document.from_dict(json.loads(json.dumps(doc.to_dict()))) == doc
    out = tmp_path / "elements.json"
    out.write_text(json.dumps(doc.to_dict()), "utf-8")
    assert load_elements_json(out) == doc


def test_document_identity_and_parser_info():
    path = shared_pdf(NDA)
    doc = load_shared(NDA)
    assert doc.doc_id == sha256_file(path)
    assert doc.source == NDA and doc.pdf_path == str(path)
    assert doc.parser.name == "pymupdf"
    assert f"pymupdf4llm {pymupdf4llm.__version__}" in doc.parser.version
    assert doc.parser.options["ocr"] is False  # Tesseract is not installed in the test environment


# --- pages without a text layer, OCR ------------------------------------------------------------


def test_scanned_page_is_reported_as_having_no_text():
    doc = load_shared(SCAN)
    assert [p.has_text for p in doc.pages] == [False]
    assert doc.pages_without_text == [0]
    assert doc.warnings == (
        "1 page(s) have no text layer: 1; nothing on them can be chunked until they are OCRed: "
        "install Tesseract (Debian: apt-get install tesseract-ocr) and load the file again",
    )
    assert not any(e.text for e in doc.elements)


def test_text_pages_are_not_reported():
    doc = load_shared(NDA)
    assert all(p.has_text for p in doc.pages) and doc.warnings == ()


def test_an_ocr_text_layer_is_running_text_not_letter_spaced_code():
    """Tesseract's invisible layer is set in GlyphLessFont, which declares a fixed pitch: the box
    was typed code and its words spread over the page width ("tec   old   Miss   Wation,")."""
    path = SAMPLE_PDFS.parent / "tests" / "data" / "ocr" / "huckfinn_tesseract.pdf"
    spans = [s for b in pymupdf.open(path)[0].get_text("dict")["blocks"] for line in b.get("lines", ())
             for s in line["spans"] if s["text"].strip()]
    assert spans and all(s["font"].endswith("GlyphLessFont") and s["flags"] & pymupdf.TEXT_FONT_MONOSPACED for s in spans)
    doc = chunkbench.load(path, cache=False)
    text_elements = [e for e in doc.elements if e.text]
    assert text_elements and {e.type for e in text_elements} == {"paragraph"}
    assert "Then Miss Watson she took me in the closet and prayed" in doc.text
    assert "I thought I would behave a while" in doc.text  # "be-" | "have": a line-end hyphen
    assert "  " not in doc.text.replace("\n\n", "")
    # a box of visible monospaced spans is still code
    mono = pymupdf.TEXT_FONT_MONOSPACED
    visible = [{"spans": [{"text": "x = 1", "flags": mono, "alpha": 255, "font": "Courier"}]}]
    invisible = [{"spans": [{"text": "x = 1", "flags": mono, "alpha": 0, "font": "Courier"}]}]
    assert pdf_layout._is_monospaced(visible) and not pdf_layout._is_monospaced(invisible)


def test_one_absurd_glyph_run_does_not_swallow_its_page(tmp_path):
    """A word set at 5,000 pt made the layout model draw one box over the whole page,
    read as one footer: 0 chunks. The page is read from its text blocks, the run left out and named."""
    doc = pymupdf.open()
    page = doc.new_page()
    for i in range(6):
        page.insert_textbox(pymupdf.Rect(72, 72 + 70 * i, 540, 132 + 70 * i),
                            f"Paragraph {i} says something ordinary about the contract in plain words. " * 2, fontsize=10)
    page.insert_text((100, 700), "HUGE", fontsize=5000)
    path = tmp_path / "huge.pdf"
    doc.save(path)
    loaded = load_pdf(path, cache=False, page_timeout=0)
    assert [e.type for e in loaded.elements] == ["paragraph"] * 6
    assert all(f"Paragraph {i} says" in loaded.elements[i].text for i in range(6))
    assert all(e.attrs.get("read_without_layout") for e in loaded.elements) and "HUGE" not in loaded.text
    assert any(w.startswith("page(s) 1: 1 line(s) of text set far beyond the page") for w in loaded.warnings)
    assert len(chunkbench.chunk(loaded, "recursive")) >= 1


def test_blank_pages_skip_the_layout_model_and_are_told_apart_from_scans(tmp_path, monkeypatch):
    """A PDF of 5,000 empty pages took 30-40 minutes to give 0 chunks. A page with no
    text, image or drawing (a page-sized white background aside) is not given to the layout model;
    the Document has every page, and the warning says OCR would read nothing there (no advice to
    install Tesseract); a page with only a scan on it still goes to the model."""
    doc = pymupdf.open()
    for n in range(6):
        page = doc.new_page(width=400, height=500)
        if n == 1:
            page.insert_text((72, 100), "A page of text between blank ones.", fontsize=12)
        if n == 3:
            page.draw_rect(page.rect, color=None, fill=(1, 1, 1))  # a white background is still blank
        if n == 4:
            scan = pymupdf.open(shared_pdf(SCAN))
            page.show_pdf_page(page.rect, scan, 0)  # the scan's image
    path = tmp_path / "blanks.pdf"
    doc.save(path)
    seen = []
    real_to_json = pymupdf4llm.to_json

    def spy(*args, **kwargs):
        seen.extend(kwargs["pages"])
        return real_to_json(*args, **kwargs)

    monkeypatch.setattr(pymupdf4llm, "to_json", spy)
    loaded = load_pdf(path, cache=False, page_timeout=0)
    assert sorted(seen) == [1, 4]
    assert [p.index for p in loaded.pages] == list(range(6)) and loaded.pages[0].width == 400
    assert "A page of text between blank ones." in loaded.text
    assert any(w.startswith("4 page(s) have no text layer: 1, 3-4, 6; OCR would read nothing") for w in loaded.warnings)
    assert any(w.startswith("1 page(s) have no text layer: 5; nothing on them can be chunked until they are OCRed")
               for w in loaded.warnings)


@pytest.mark.skipif(shutil.which("tesseract") is not None, reason="Tesseract is installed")
def test_ocr_is_not_attempted_without_tesseract(fresh_cache, monkeypatch):
    calls = []
    real_to_json = pymupdf4llm.to_json

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real_to_json(*args, **kwargs)

    monkeypatch.setattr(pymupdf4llm, "to_json", spy)
    assert pdf_loader.ocr_available() is False
    load_pdf(shared_pdf(SCAN), page_timeout=0)  # 0: parsed in this process, where the spy is
    assert calls and all(c["use_ocr"] == OCRMode.NEVER and "ocr_function" not in c for c in calls)


def test_ocr_runs_on_pages_without_text_when_available_and_stays_off_stdout(fresh_cache, monkeypatch, capfd):
    """Simulates an installed OCR engine (a noisy one that prints) that recognises one line:
    pymupdf4llm must pick the scanned page for OCR, and none of its messages may reach stdout."""
    ocr_calls = []

    def fake_ocr(page, **kwargs):
        print("noisy OCR engine output")
        ocr_calls.append(page.number)
        page.insert_text((50, 60), "Huckleberry Finn, chapter III")

    monkeypatch.setattr(pdf_loader, "ocr_available", lambda: True)
    monkeypatch.setattr(
        pdf_layout, "ocr_options", lambda ocr: {"use_ocr": OCRMode.SELECT_KEEP_OLD, "ocr_function": fake_ocr}
    )
    doc = load_pdf(shared_pdf(SCAN), page_timeout=0)  # 0: parsed in this process, where ocr_calls is
    assert capfd.readouterr().out == ""
    assert ocr_calls == [0]
    assert doc.parser.options["ocr"] is True
    assert "Huckleberry Finn, chapter III" in doc.text
    assert doc.pages_without_text == [0]  # the PDF itself still has no text layer
    assert doc.warnings == ("1 page(s) have no text layer: 1; their text comes from OCR (Tesseract)",)


def test_ocr_that_finds_nothing_is_reported(fresh_cache, monkeypatch):
    monkeypatch.setattr(pdf_loader, "ocr_available", lambda: True)
    monkeypatch.setattr(
        pdf_layout, "ocr_options", lambda ocr: {"use_ocr": OCRMode.SELECT_KEEP_OLD, "ocr_function": lambda page, **kw: None}
    )
    doc = load_pdf(shared_pdf(SCAN))
    assert doc.warnings[-1] == "OCR found no text on page(s): 1"


# --- workers and progress -----------------------------------------------------------------------


def test_two_workers_give_the_same_document_as_one():
    path = shared_pdf(FEDERAL_REGISTER)
    serial = chunkbench.load(path, stitch_tables=False)  # 15 pages: parsed in one process
    assert len(serial.pages) == 15
    parallel = load_pdf(path, cache=False, workers=2, parallel_min_pages=5, progress=False)
    assert settle(parallel, stitch_tables=False) == serial


def test_a_daemon_process_parses_without_a_pool_of_its_own(monkeypatch):
    """Inside someone else's worker (daemonic) starting processes is not allowed: parse serially."""
    parsed = []

    def no_pool(*args, **kwargs):
        raise AssertionError("a daemon process must not start a pool")

    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True)
    monkeypatch.setattr(pdf_loader.parse_workers, "run_tasks", no_pool)
    monkeypatch.setattr(pdf_layout, "parse_range", lambda path, pw, first, stop, ocr: parsed.append(first) or ())
    pdf_loader._parse_pages(shared_pdf(ULTA), None, 9, False, False, 2, 5, page_timeout=60)
    assert parsed == [0, 4, 8]


def test_progress_bar_goes_to_stderr_only_when_asked(fresh_cache, capfd):
    path = shared_pdf(NDA)
    load_pdf(path, cache=False, progress=False)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    load_pdf(path, cache=False, progress=True)
    out, err = capfd.readouterr()
    assert out == "" and "2/2" in err and NDA in err


# --- errors -------------------------------------------------------------------------------------

ZERO_PAGE_PDF = b"""%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj
trailer << /Root 1 0 R >>
%%EOF
"""


@pytest.mark.parametrize(
    "content, problem",
    [
        (bytes(range(256)) * 40, "not a PDF"),
        (b"", "empty file"),
        (b"%PDF-1.4\n%%EOF\n", "not a PDF"),
        (ZERO_PAGE_PDF, "no pages"),
        ("truncated", "no pages"),
    ],
    ids=["garbage", "empty", "header-only", "zero-pages", "truncated"],
)
def test_bad_files_raise_input_error_naming_file_and_problem(tmp_path, content, problem):
    if content == "truncated":
        data = shared_pdf(NDA).read_bytes()
        content = data[: len(data) // 3]
    path = tmp_path / "bad.pdf"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        chunkbench.load(path, cache=False)
    assert problem in str(info.value) and str(path) in str(info.value)
    assert info.value.exit_code == 3


def test_missing_file_raises_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_pdf(tmp_path / "missing.pdf")


@pytest.fixture
def encrypted_nda(tmp_path):
    doc = pymupdf.open(shared_pdf(NDA))
    path = tmp_path / "secret.pdf"
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="s3cret", owner_pw="owner")
    return path


def test_encrypted_pdf_needs_the_right_password(fresh_cache, encrypted_nda):
    with pytest.raises(InputError, match="a password is needed") as info:
        chunkbench.load(encrypted_nda)
    assert str(encrypted_nda) in str(info.value)
    with pytest.raises(InputError, match="wrong password"):
        chunkbench.load(encrypted_nda, password="guess")
    doc = chunkbench.load(encrypted_nda, password="s3cret")
    assert doc.doc_id == sha256_file(encrypted_nda)
    assert "Mutual Non-Disclosure Agreement" in doc.elements[0].text
    # the parse is cached now, but the cache must not let anyone read it without the password
    with pytest.raises(InputError, match="a password is needed"):
        chunkbench.load(encrypted_nda)


def test_owner_password_only_pdf_opens_without_password(fresh_cache, tmp_path):
    path = tmp_path / "restricted.pdf"
    pymupdf.open(shared_pdf(NDA)).save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", permissions=0)
    assert chunkbench.load(path).elements[0].type == "heading"


# --- the mapping rules, on small inputs ---------------------------------------------------------


def test_flow_text_joins_lines_and_keeps_real_hyphens():
    lines = [line("a", "non-"), line("normal  procedure"), line("for", "docu\u00ad"), line("ments")]
    assert flow_text(lines) == "a non-normal procedure for documents"
    assert flow_text([line("Part", "A-"), line("Section", "2")]) == "Part A- Section 2"


def test_flow_text_restores_spaces_from_gaps_but_not_inside_words():
    assert flow_text([line("three", "spaced", "words")]) == "three spaced words"
    assert flow_text([line('"', "canvas", '"', gap=0.0)]) == '"canvas"'  # style change, no gap


def test_flow_text_sets_superscript_footnote_numbers_apart():
    sup = pymupdf.TEXT_FONT_SUPERSCRIPT
    assert flow_text([line("alert,", ("5", sup), "and", gap=0.0)]) == "alert, 5 and"
    assert flow_text([line("x", ("th", sup), gap=0.0)]) == "xth"  # only numbers are footnote marks


def test_code_keeps_line_breaks_and_rebuilds_indentation():
    lines = [line("plot", "sin(x)", "\\", x=72.0, gap=5.0), line("with", "lines", x=92.0, gap=10.0)]
    assert code_text(lines) == "plot sin(x) \\\n    with  lines"


def test_table_rows_drop_leaders_and_empty_rows():
    extract = [["Total . . . . . .\n  . . .", "11,062 .6\n ."], [". . . .", None], ["U.S.", "1.0"]]
    assert table_rows(extract) == (("Total", "11,062.6"), ("U.S.", "1.0"))


def test_table_header_words_cut_by_column_lines_are_whole_again():
    """The Ulta earnings tables head their columns "13 Weeks Ended" across three columns; the
    layout model cut it to "13 W | eeks End | ed". Words the PDF has apart stay apart."""
    doc = load_shared(ULTA)
    tables = [e for e in doc.elements if e.type == "table" and e.rows]
    headers = [cell for e in tables for row in e.rows[:3] for cell in row]
    assert headers.count("13 Weeks Ended") >= 2 and headers.count("52 Weeks Ended") >= 3
    assert "(Unaudited)" in headers
    cut = [cell for cell in headers if cell in {"13 W", "eeks End", "ed", "(Unaudi", "ted)", "52 Wee"}]
    assert cut == []
    first = next(e for e in tables if "13 Weeks Ended" in e.rows[0])
    assert first.rows[0] == ("", "13 Weeks Ended", "", "", "52 Weeks Ended", "", "")
    assert "| 13 Weeks Ended |" in first.text
    assert all(len(row) == len(first.rows[0]) for row in first.rows)  # still a rectangular grid


def test_heading_levels_rank_font_sizes_over_the_whole_document():
    sizes = {"a": 20, "b": 12, "c": 12, "d": 8, "e": 0}
    assert heading_levels(sizes) == {"a": 1, "b": 2, "c": 2, "d": 3, "e": 2}
    many = {str(s): s for s in range(30, 22, -1)}  # 8 distinct sizes
    assert [heading_levels(many)[str(s)] for s in range(30, 22, -1)] == [1, 2, 3, 4, 5, 6, 6, 6]


def test_a_text_only_picture_becomes_a_paragraph_but_a_figure_stays_an_image():
    """The layout model's `picture` boxes: one with 200+ characters of text and nothing drawn in
    it is a misread paragraph; one with a chart path in it, or with little text, stays an image."""
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=800)
    page.draw_rect(page.rect, color=None, fill=(1, 1, 1))  # a page background does not count
    page.draw_rect(pymupdf.Rect(320, 420, 380, 480), color=(0, 0, 0))  # a chart's frame
    words = ("lorem ipsum dolor " * 5).split()
    text_lines = [line(*words, x=72.0)] * 3  # about 250 characters
    def box(x0, y0, x1, y1, lines):
        return {"boxclass": "picture", "x0": x0, "y0": y0, "x1": x1, "y1": y1, "textlines": lines}
    raw_page = {"page_number": 1, "width": 600, "height": 800, "boxes": [
        box(72, 72, 500, 200, text_lines),  # text only
        box(300, 400, 500, 500, text_lines),  # the chart with many labels
        box(72, 600, 200, 700, [line("Figure", "label")]),  # little text
    ]}
    pdf_layout._mark_text_pictures(page, raw_page)
    text_block, chart, small = pdf_layout._parse_page(raw_page, True).elements
    assert text_block.type == "paragraph" and text_block.raw_type == "picture"
    assert text_block.text == flow_text(text_lines) and len(text_block.text) >= pdf_layout.PICTURE_TEXT_MIN
    assert text_block.attrs == {"reclassified": "picture without image or drawing"}
    for image in (chart, small):
        assert image.type == "image" and image.text == "" and image.attrs["image_text"]
        assert "reclassified" not in image.attrs


def test_pages_of_unmapped_glyphs_are_warned_about():
    def element(page, text, **attrs):
        return Element(id=f"p{page + 1}-e1", type="paragraph", text=text, page_idx=page, attrs=attrs)
    readable = "An ordinary page of text with a \ue000 icon glyph."
    elements = [
        element(0, readable),
        element(1, "\ufffd" * 20 + " readable words here"),  # half unmapped
        element(2, "Figure", image_text="\uf0b7\uf0a7 " * 20),  # private use, in a picture
        element(3, "\ufffd" * 5),  # too few characters to judge
        element(4, "\ufffd" * 10 + "x" * 30),  # a quarter: below the 30 % share
        element(5, "\x01\x02\x03\x04\x05 \x1c\x1d" * 5),  # a Type 3 font's glyph numbers
        element(6, "• An item\twith a tab,\r\na line end " * 3),  # whitespace is no glyph code
    ]
    assert pdf_loader._garbled_text_warnings(elements) == [
        "page(s) 2-3, 6: text has no Unicode mapping (garbled); OCR would be needed"
    ]
    assert pdf_loader._garbled_text_warnings(elements[:1]) == []


def test_page_list_collapses_runs():
    assert page_list([0, 2, 3, 4, 8]) == "1, 3-5, 9"


# --- the project's sample PDFs and the long manual ----------------------------------------------

SAMPLES = sorted(SAMPLE_PDFS.glob("*.pdf"))


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_sample_pdfs_load_with_headings_and_a_table(path):
    doc = chunkbench.load(path)
    assert any(e.type == "heading" and e.text_level for e in doc.elements)
    assert any(e.type == "table" and e.rows for e in doc.elements)


LATEX_PDFS = SAMPLE_PDFS.parent / "tests" / "data" / "latex"


def test_a_line_of_tex_source_boxed_as_a_heading_is_code():
    """(a LaTeX source comment taken for a heading): the LaTeX Project Public License
    shows the line a distribution should carry, "% This work consists of all files listed in
    manifest.txt.", set apart in typewriter type; the model boxes it as a section header, so it
    took level 3 and opened a section of its own mid-paragraph."""
    doc = chunkbench.load(LATEX_PDFS / "lppl.pdf", cache=False)
    shown, line = [e for e in doc.elements if e.text.startswith("% This work consists")]
    assert (shown.type, shown.raw_type, shown.page_idx + 1) == ("code", "text", 7)  # the same line on page 7, boxed as text
    assert (line.type, line.raw_type, line.page_idx + 1) == ("code", "section-header", 8)
    assert line.attrs["reclassified"] == pdf_layout.SOURCE_LINE and line.text_level is None
    after = doc.elements[doc.elements.index(line) + 1]
    assert after.text.startswith("in that place.")
    assert doc.section_paths([after.char_start])[0][-1] == "Important Recommendations"
    assert not [e for e in doc.elements if e.type == "heading" and "%" in e.text]


def test_tex_source_in_a_typewriter_font_that_does_not_declare_its_pitch_is_code():
    """The AMS document classes' documentation (Acrobat Distiller) embeds CMTT without the
    fixed-pitch flag: its listing lines "%\\else" and "1675 \\@ifundefined{cite }{%" were headings
    (level 5), its comment lines list items and its verbatim blocks paragraphs. Typewriter fonts
    are known by name too; a listing's line number, in a roman font, is passed over."""
    path = LATEX_PDFS / "amsclass.pdf"
    spans = [s for b in pymupdf.open(path)[18].get_text("dict")["blocks"] for line in b.get("lines", ())
             for s in line["spans"] if s["text"].startswith("%\\else")]
    assert spans and all(s["font"].endswith("CMTT9") and not s["flags"] & pymupdf.TEXT_FONT_MONOSPACED for s in spans)
    doc = chunkbench.load(path, cache=False)
    lines = {" ".join(e.text.split()): e for e in doc.elements if e.attrs.get("reclassified") == pdf_layout.SOURCE_LINE}
    assert {(lines[t].page_idx + 1, lines[t].raw_type) for t in ("%\\else", "1675 \\@ifundefined{cite }{%")} \
        == {(19, "section-header"), (60, "section-header")}
    assert lines["% \\def\\@obsolete@fontswitch#1#2#3{%"].raw_type == "list-item"
    assert all(e.type == "code" for e in lines.values())
    assert not [e for e in doc.elements if e.type == "heading" and pdf_layout._SOURCE_LINE.fullmatch(e.text)]
    assert "2.6 Top matter" in {e.text for e in doc.elements if e.type == "heading"}
    # what reads as a name in a monospaced font stays a heading
    mono = [{"spans": [{"text": t, "flags": 0, "alpha": 255, "font": "CMTT10"}]} for t in ("chunkbench.chunk()", "\\implies")]
    assert not any(pdf_layout._is_source_line(line["spans"][0]["text"], [line]) for line in mono)


def test_monospaced_command_lines_and_terms_boxed_as_headings_are_code_and_terms():
    """R Installation and Administration sets `make check-devel`, `./configure VAR=value` and
    `CXX=clang++` as `@item`s of a `@table @code`, and `SHLIB_CFLAGS` or `‘fullrefman’` as terms
    over their descriptions; the model boxed them as headings (19 of R-admin's 126, heading
    precision 84.9% against its HTML twin). What reads as a name stays a heading."""
    mono = [{"spans": [{"text": t, "flags": 0, "alpha": 255, "font": "CMTT10"}]}
            for t in ("make check-devel", "./configure --prefix=/opt/R", "CXX=clang++", "ls -l")]
    assert all(pdf_layout._is_source_line(line["spans"][0]["text"], [line]) for line in mono)
    for name in ("chunkbench.chunk()", "set xrange", "plot", "R CMD INSTALL"):
        assert not pdf_layout._COMMAND_LINE.fullmatch(name) and not pdf_layout._TERM.fullmatch(name)
    from tests.support.paths import twin_pair

    pdf, _ = twin_pair("R-admin")
    (parsed,) = pdf_layout.parse_range(str(pdf), None, 63, 64, False)  # p. 64: the SHLIB_CFLAGS table
    terms = {e.text: e for e in parsed.elements if e.attrs.get("reclassified") == pdf_layout.MONOSPACED_TERM}
    assert terms and all(e.type == "paragraph" and e.attrs["definition"] == "term" for e in terms.values())
    assert not [e for e in parsed.elements if e.type == "heading" and pdf_layout._TERM.fullmatch(e.text)]


@pytest.fixture(scope="module")
def gnuplot():
    return load_shared(GNUPLOT)


@pytest.mark.xdist_group("gnuplot")  # one worker parses the 311 pages once (minutes cold)
def test_long_manual_parses_completely(gnuplot):
    assert len(gnuplot.pages) == 311
    assert {p.index for p in gnuplot.pages} == set(range(311))
    assert len({e.id for e in gnuplot.elements}) == len(gnuplot.elements)
    assert {e.text_level for e in gnuplot.elements if e.type == "heading"} >= {1, 2, 3}
    assert any(e.type == "code" for e in gnuplot.elements)
    for e in gnuplot.elements:
        page = gnuplot.page(e.page_idx)
        assert e.bbox[2] <= page.width and e.bbox[3] <= page.height


def test_a_comment_line_of_an_example_boxed_as_a_list_item_is_code(gnuplot):
    """The gnuplot manual's examples open with "# …" comments that the model boxes as list items."""
    (e,) = [e for e in gnuplot.elements if e.text.startswith("# Use the third column of data")]
    assert (e.type, e.raw_type, e.page_idx + 1) == ("code", "list-item", 51)
    assert "\n" in e.text  # code keeps its lines


def test_a_bullet_from_a_bitmap_font_with_no_unicode_map_is_a_bullet_in_latex3_news():
    """(bullets extracted as a wrong character), on a PDF in the repository: LaTeX3 News
    issue 3 of LaTeX3 News sets its itemize bullets in a Type 3 (bitmap) TS1 font that PyMuPDF reads as U+0088."""
    path = LATEX_PDFS / "l3news03.pdf"
    page = pymupdf.open(path)[0]
    assert any(f[2] == "Type3" for f in page.get_fonts(full=True))
    raw = [ln["spans"][0]["text"] for b in page.get_text("dict")["blocks"] for ln in b.get("lines", ())]
    assert raw.count("\x88") == 2  # what the PDF gives
    doc = chunkbench.load(path, cache=False)
    items = [e.text for e in doc.elements if e.type == "list"]
    assert "• A revised version of xparse; and" in items
    assert any(t.startswith("• The new package xtemplate") for t in items)
    assert not any("\x88" in e.text for e in doc.elements)
    # and the chunks hold the bullet too
    chunks = chunkbench.chunk(doc, "elements")
    assert any("• A revised version of xparse" in c.text for c in chunks)


@pytest.mark.xdist_group("gnuplot")  # one worker parses the 311 pages once (minutes cold)
def test_a_bullet_drawn_from_a_font_with_no_unicode_map_is_a_bullet(gnuplot):
    """(bullets extracted as a wrong character): the gnuplot manual's itemize bullets
    are TS1 \\textbullet from a bitmap (Type 3) font with no Unicode map, which PyMuPDF reads
    as the control character U+0088."""
    page = pymupdf.open(shared_pdf(GNUPLOT))[22]
    raw = [ln["spans"] for b in page.get_text("dict")["blocks"] for ln in b.get("lines", ())]
    assert sum(spans[0]["text"] == "\x88" for spans in raw) >= 4  # what the PDF gives
    items = [e for e in gnuplot.elements if e.page_idx == 22 and e.type == "list"]
    assert "• All evaluation of expressions and functions uses 64-integer arithmetic" in items[0].text
    assert sum(e.text.startswith("• ") for e in gnuplot.elements) >= 130  # 132 in the manual
    control = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
    assert not [e.text for e in gnuplot.elements if control.search(e.text)]


def test_a_lone_lower_case_connective_is_no_heading_but_a_capitalised_command_is(gnuplot):
    """(parse quality): the layout model boxes the "or" between two syntax lines of the
    gnuplot manual as a section header on some pages; headings named after commands stay."""
    ors = [e for e in gnuplot.elements if e.text == "or"]
    reclassified = [e for e in ors if e.raw_type == "section-header"]
    assert {e.page_idx + 1 for e in reclassified} >= {49, 178, 215}
    assert all(e.type == "paragraph" and e.attrs["reclassified"] == "heading that is a lone function word"
               for e in reclassified)
    assert not [e for e in gnuplot.elements if e.type == "heading" and e.text.strip() == "or"]
    headings = {e.text for e in gnuplot.elements if e.type == "heading"}
    assert {"If", "For", "Every", "With"} <= headings  # the `if`, `for`, `every`, `with` sections


def test_a_sentence_typed_as_a_heading_at_a_page_head_continues_the_paragraph_before_it(gnuplot):
    """Page 96 of the gnuplot manual opens with the end of page 95's last sentence ("… than
    others. That" | "may affect the final values of the parameters."), which the model calls a
    heading: it is joined to that paragraph, which both pages then mark."""
    e = next(e for e in gnuplot.elements if "may affect the final values" in e.text)
    assert e.type == "paragraph" and "than others. That may affect the final values of the parameters." in e.text
    assert [p.page_idx + 1 for p in e.parts] == [95, 96] and len(e.attrs["stitched"]) == 2
    # lower-case headings that do not end like a sentence (command lines) stay headings
    assert any(e.type == "heading" and e.text.startswith("set term eepic") for e in gnuplot.elements)
    heading = Element(id="h", type="heading", text="set xtics", page_idx=1, bbox=(72, 86, 200, 95))
    open_end = Element(id="p", type="paragraph", text="as shown by", page_idx=0, bbox=(72, 700, 540, 733))
    assert join_broken_paragraphs([open_end, heading]) == ([open_end, heading], 0)
