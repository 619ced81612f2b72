"""The diff report and the sweep summary in Debian's chromium at 1,280 px: no page wider
than the window, text columns with room for words, diff labels readable, averaged plots labelled."""

from __future__ import annotations

import pytest

import chunkbench as cb
from chunkbench.app import sweep
from chunkbench.ui.render.overlay import LABEL_SIZE
from chunkbench.ui.report import write_diff_report
from chunkbench.ui.sweep_summary import write_summary
from tests.support.browser import CHROMIUM, chromium
from tests.support.paths import SAMPLE_PDFS, without_page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed (make browser)"),
]
WINDOW = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_diff_page_fits_the_window_with_readable_labels(browser, tmp_path):
    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    d = cb.diff(doc, "strategy=tokens,chunk_size=512", "strategy=tokens,chunk_size=256")
    index = write_diff_report(d, tmp_path / "diff", dpi=100)
    page = browser.new_page(viewport=WINDOW)
    page.goto(index.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= WINDOW["width"]
    img = page.locator("section.diff figure img").first
    page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle())  # loads lazily
    shown, natural = img.evaluate("i => [i.clientWidth, i.naturalWidth]")
    assert LABEL_SIZE * 100 / 72 * shown / natural >= 11
    widths = page.evaluate("() => [...document.querySelectorAll('td.wrap')].filter(t => t.innerText.trim())"
                           ".map(t => t.clientWidth)")
    assert widths and min(widths) >= 150  # a detail is a phrase on a line or two, not a word per line
    page.close()


def test_sweep_summary_fits_the_window_and_says_what_is_averaged(browser, tmp_path):
    inputs = [SAMPLE_PDFS / "technical_manual.pdf", SAMPLE_PDFS / "financial_annual_report.pdf"]
    df = sweep.run_sweep(inputs, {"max_chunk_size": [800, 1600]}, tmp_path / "sweep", jobs=1, progress=False,
                         notebooks="none")  # the sample questions beside the PDFs
    index = write_summary(df, tmp_path / "sweep")
    page = browser.new_page(viewport=WINDOW)
    page.goto(index.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= WINDOW["width"]
    widest = page.evaluate("Math.max(...[...document.querySelectorAll('.wide')].map(w => w.scrollWidth))")
    assert widest > WINDOW["width"]  # the all-results table is wider than the window: it scrolls in its box
    text = page.inner_text("body")
    assert "each point: mean over 2 inputs" in text
    assert "the table scrolls sideways" in text
    assert "What these columns mean" in text and "number of chunks" in text
    assert "Small by design" in text  # the ranking metric (a value of the objective column) is explained too
    page.close()


def test_lineage_page_shows_both_versions_side_by_side_with_readable_tags(browser, tmp_path):
    """The lineage page at 1,280 px: the old and the new version's pages side by side,
    nothing wider than the window, the kind tags at 11 CSS px or more."""
    from chunkbench.ui.lineage_report import write_lineage_report
    from chunkbench.ui.render.lineagepages import TAG_SIZE

    v1 = SAMPLE_PDFS / "contract_services_agreement.pdf"
    v2 = without_page(v1, 3, tmp_path / "v2")
    old, new = cb.chunk(cb.load(v1), "elements"), cb.chunk(cb.load(v2), "elements")
    index = write_lineage_report(cb.lineage(old, new), old, new, tmp_path / "lineage", dpi=80)
    page = browser.new_page(viewport=WINDOW)
    page.goto(index.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= WINDOW["width"]
    old_img, new_img = page.locator("img[alt^='old page']").first, page.locator("img[alt^='new page']").first
    for img in (old_img, new_img):
        page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle())
    a, b = old_img.bounding_box(), new_img.bounding_box()
    assert a["x"] + a["width"] <= b["x"] and abs(a["y"] - b["y"]) < 1, (a, b)  # side by side
    shown, natural = old_img.evaluate("i => [i.clientWidth, i.naturalWidth]")
    assert TAG_SIZE * 80 / 72 * shown / natural >= 11
