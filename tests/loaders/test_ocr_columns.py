"""OCR'd text in column order, each word once (loaders/ocr_columns): hand-made OCR lines whose
answer is known, then a real scan OCRed by PyMuPDF's Tesseract with Debian's English data (`make
tessdata`), laid out so the layout model boxes both columns as one."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from chunkbench.loaders.ocr_columns import in_column_order
from tests.support.paths import ROOT

TESSDATA = ROOT / ".cache" / "tessdata"


def span(text: str, x0: float, y: float, ocr: bool = True) -> dict:
    return {"text": text, "bbox": [x0, y, x0 + 5.0 * len(text), y + 10], "font": "GlyphLessFont" if ocr else "Times",
            "alpha": 0 if ocr else 255}


def line(*spans: dict) -> dict:
    return {"bbox": [spans[0]["bbox"][0], spans[0]["bbox"][1], spans[-1]["bbox"][2], spans[0]["bbox"][3]],
            "spans": list(spans)}


def is_ocr(s) -> bool:
    return s["font"] == "GlyphLessFont"


def two_columns(ocr: bool = True) -> dict:
    """Three lines, each "left words   right words" with a 40-point gutter at x 300."""
    rows = [("Recording a", "Moving around"), ("sequence is", "the song is"), ("simple to do", "quick to do")]
    lines = []
    for n, (left, right) in enumerate(rows):
        y = 100 + 14 * n
        spans, x = [], 100.0
        for word in left.split():
            spans.append(span(word, x, y, ocr))
            x += 5.0 * len(word) + 4
        x = 320.0
        for word in right.split():
            spans.append(span(word, x, y, ocr))
            x += 5.0 * len(word) + 4
        lines.append(line(*spans))
    return {"boxclass": "text", "x0": 100, "y0": 100, "x1": 400, "y1": 140, "textlines": lines}


def texts(box: dict) -> list[str]:
    return [" ".join(s["text"] for s in ln["spans"]) for ln in box["textlines"]]


def test_ocr_lines_across_a_gutter_become_two_columns_left_first():
    page = {"boxes": [two_columns()]}
    assert in_column_order(page, is_ocr) is False
    left, right = page["boxes"]
    assert texts(left) == ["Recording a", "sequence is", "simple to do"]
    assert texts(right) == ["Moving around", "the song is", "quick to do"]
    assert left["x1"] < 300 < right["x0"]


def test_text_that_is_not_ocr_is_left_alone():
    box = two_columns(ocr=False)
    page = {"boxes": [box]}
    assert in_column_order(page, is_ocr) is False and page["boxes"] == [box]


def test_a_word_read_twice_at_one_place_is_kept_once_and_a_repeated_word_elsewhere_stays():
    page = {"boxes": [{"boxclass": "text", "x0": 100, "y0": 100, "x1": 300, "y1": 110, "textlines": [
        line(span("One", 100, 100), span("way", 120, 100), span("way", 121, 100), span("to", 140, 100)),
        line(span("had", 100, 114), span("had", 120, 114), span("it", 140, 114)),
    ]}]}
    in_column_order(page, is_ocr)
    assert texts(page["boxes"][0]) == ["One way to", "had had it"]


def test_lines_that_cross_the_gutter_too_often_to_split_are_named():
    """Half of the lines have the gutter, the other half run across it: not split, but suspect."""
    box = two_columns()
    box["textlines"] += [line(span("a long line of running text", 100, 150 + 14 * n)) for n in range(3)]
    page = {"boxes": [box]}
    assert in_column_order(page, is_ocr) is True
    assert page["boxes"] == [box]


def narrow_two_column_scan(path: Path) -> Path:
    """A two-column page set 6 points apart, photographed at 200 dpi: an image-only PDF."""
    left = ("Recording a Sequence. To record a sequence, simply press RECORD and play the keyboard. "
            "The sequencer keeps every note you play, with its timing and its velocity, until you press STOP. ") * 4
    right = ("Moving Around. To move to another point of the song, simply use LOCATE, FAST FORWARD, or REWIND "
             "to reach the measure you want, then press PLAY to hear it from there. ") * 4
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(54, 72, 302, 720), left, fontsize=11, fontname="tiro")
    page.insert_textbox(pymupdf.Rect(308, 72, 558, 720), right, fontsize=11, fontname="tiro")
    pix = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    scan = pymupdf.open()
    scan.new_page(width=612, height=792).insert_image(pymupdf.Rect(0, 0, 612, 792), pixmap=pix)
    scan.save(path)
    return path


def test_a_real_scan_of_two_close_columns_is_read_column_by_column(tmp_path, monkeypatch):
    """OCR'd lines of a two-column scan interleaved ("... simply use LOCATE, FAST FORWARD,
    or REWIND to To record a sequence, simply press RECORD ..."). The layout model boxes both
    columns of this scan as one paragraph; the text comes out one column after the other."""
    if not (TESSDATA / "eng.traineddata").is_file():
        pytest.skip(f"{TESSDATA} has no Tesseract data (run `make tessdata`)")
    monkeypatch.setenv("TESSDATA_PREFIX", str(TESSDATA))
    from chunkbench.loaders.pdf import load_pdf

    doc = load_pdf(narrow_two_column_scan(tmp_path / "scan.pdf"), cache=False, page_timeout=0)
    assert doc.parser.options["ocr"] is True and doc.pages_without_text == [0]
    left, right = [e for e in doc.elements if "Recording" in e.text or "Moving" in e.text]
    assert left.text.startswith("Recording a Sequence. To record a sequence, simply press RECORD")
    assert "Moving" not in left.text and "LOCATE" not in left.text
    assert "Moving Around" in right.text[:20] and "Recording" not in right.text
    assert not any("two columns" in w for w in doc.warnings)


def test_a_real_scan_whose_ocr_still_runs_across_is_named_in_a_warning(monkeypatch):
    """Huckleberry Finn's page 29: a drawing beside the text, OCR reads the drawing's strokes as
    words on the text's lines ("(ae ae ; aaa i hy a) | WELL, I got a good going-over ..."), too
    crossed to split: the page is named."""
    if not (TESSDATA / "eng.traineddata").is_file():
        pytest.skip(f"{TESSDATA} has no Tesseract data (run `make tessdata`)")
    from tests.support.paths import shared_pdf

    path = shared_pdf("scan_huckfinn-c03-29.pdf")
    monkeypatch.setenv("TESSDATA_PREFIX", str(TESSDATA))
    from chunkbench.loaders.pdf import load_pdf

    doc = load_pdf(path, cache=False, page_timeout=0)
    assert "WELL, I got a good going-over in the morning" in doc.text
    assert any(w.startswith("OCR text on page(s) 1 may run across two columns") for w in doc.warnings)
