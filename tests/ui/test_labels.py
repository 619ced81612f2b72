"""Overlay labels readable at the size they are shown, never on the page's text,
with enough contrast; the HTML report's page follows the window width."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

import chunkbench as cb
from chunkbench.ui.render.overlay import LABEL_SIZE
from chunkbench.ui.render.palette import (
    CHUNK_PALETTE,
    ELEMENT_COLORS,
    NOISE_GREY,
    contrast_ratio,
    label_color,
    readable_on_white,
)
from chunkbench.ui.report import write_report
from tests.support.browser import CHROMIUM, chromium
from tests.support.paths import SAMPLE_PDFS, shared_pdf

WHITE = (255, 255, 255)


def test_every_label_colour_pair_meets_wcag_aa():
    """Label text on every palette colour, and coloured text on the white page, >= 4.5:1."""
    for color in CHUNK_PALETTE:
        assert contrast_ratio(label_color(color), color) >= 4.5, color
    for color in (*ELEMENT_COLORS.values(), NOISE_GREY, *CHUNK_PALETTE):
        assert contrast_ratio(readable_on_white(color), WHITE) >= 4.5, color
    assert contrast_ratio((0, 0, 0), WHITE) == pytest.approx(21.0)
    assert label_color((60, 200, 220)) == (0, 0, 0)  # the light cyan the issue saw white text on


def _label_boxes(img) -> list[tuple[float, float, float, float]]:
    """Label regions of a rendered page, in PDF points."""
    boxes = []
    for r in img.regions:
        if r.kind == "chunk" and r.label == "label":
            (x0, y0), (x1, y1) = img.to_points(r.x0, r.y0), img.to_points(r.x1, r.y1)
            boxes.append((x0, y0, x1, y1))
    return boxes


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("path, strategy", [
    (SAMPLE_PDFS / "contract_services_agreement.pdf", "contract"),
    (SAMPLE_PDFS / "financial_annual_report.pdf", "elements"),
    ("paper_hotos17-baumann.pdf", "elements"),  # two columns and a table
])
def test_labels_sit_beside_the_page_and_cover_no_word(path, strategy):
    path = Path(path) if Path(path).is_absolute() else shared_pdf(str(path))
    doc = cb.load(path)
    chunks = cb.chunk(doc, strategy)
    pdf = pymupdf.open(path)
    seen = 0
    for page in range(1, min(len(doc.pages), 4) + 1):
        img = cb.render_page(doc, chunks, page=page)
        width = pdf[page - 1].rect.width
        words = [w[:4] for w in pdf[page - 1].get_text("words")]
        labels = _label_boxes(img)
        seen += len(labels)
        for box in labels:
            assert box[2] <= 0.5 or box[0] >= width - 0.5, (page, box)  # in a gutter, off the page
            assert not any(_overlaps(box, w) for w in words), (page, box)
        for i, a in enumerate(labels):
            assert not any(_overlaps(a, b) for b in labels[i + 1:]), (page, a)  # stacked, not piled
        assert img.width >= round(width * img.scale)  # the page itself is whole
    assert seen >= 4


def test_a_page_without_chunks_has_no_gutter():
    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    bare = cb.render_page(doc, None, page=1)
    assert bare.clip == (0.0, 0.0, doc.pages[0].width, doc.pages[0].height)


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed (make browser)")
def test_report_labels_are_readable_in_a_1280_px_window(tmp_path):
    """The report's page image follows the window (no fixed 620 px), so the labels show at
    >= 11 CSS px; the screenshot is what a reviewer sees."""
    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    index = write_report(doc, cb.chunk(doc, "contract"), tmp_path / "report", pages=[1, 2])
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(index.as_uri())
        img = page.locator("figure img").first
        img.wait_for()
        page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle())  # lazy
        shown, natural = img.evaluate("i => [i.clientWidth, i.naturalWidth]")
        page.screenshot(path=str(tmp_path / "report.png"))
    dpi = 100  # write_report's default
    label_px = LABEL_SIZE * dpi / 72 * shown / natural
    assert label_px >= 11, (shown, natural, label_px)
