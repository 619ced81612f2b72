"""An uncached PDF shows the page in view first; the rest is parsed in the background,
the chunks follow as pages arrive, and what is provisional says so until the whole document is in
(loaders/progressive.py, `cb.explore`). Timing is measured in benchmarks (section 5), not here."""

from __future__ import annotations

import re
import threading
import time

import pymupdf
import pytest

import chunkbench as cb
from chunkbench.loaders import progressive
from chunkbench.loaders.pdf import is_cached
from chunkbench.loaders.progressive import load_progressively
from tests.support.paths import SAMPLE_PDFS


@pytest.fixture
def long_pdf(tmp_path, monkeypatch):
    """Two sample PDFs as one 13-page PDF, and a parse cache of this test's own."""
    monkeypatch.setenv("CHUNKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    out = pymupdf.open()
    for name in ("financial_annual_report.pdf", "contract_services_agreement.pdf"):
        with pymupdf.open(SAMPLE_PDFS / name) as part:
            out.insert_pdf(part)
    path = tmp_path / "long.pdf"
    out.save(path)
    out.close()
    return path


def _wait(condition, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the background parse did not finish"
        time.sleep(0.05)


def test_the_page_in_view_comes_first_and_the_final_document_is_loads(long_pdf, monkeypatch):
    monkeypatch.setattr(progressive, "UPDATE_SECONDS", 0.0)  # every range handed over
    updates: list = []
    begin = threading.Event()
    first = load_progressively(long_pdf, updates.append, first_page=9, begin=begin)
    assert first.parsed == (7, 8, 9) and first.page_count == 13 and not first.final
    assert {e.page_idx for e in first.doc.elements} <= {7, 8, 9} and first.doc.elements
    assert "provisional: 3 of 13 pages parsed" in first.describe()
    time.sleep(0.3)
    assert updates == []  # nothing parsed before `begin`
    begin.set()
    _wait(lambda: updates and updates[-1].final)
    sizes = [len(u.parsed) for u in updates]
    assert sizes == sorted(sizes) and len(updates) >= 2 and sizes[-1] == 13
    # nearest pages first: the second hand-over holds the pages next to 8-10
    assert set(updates[0].parsed) - {7, 8, 9} <= {3, 4, 5, 6, 10, 11, 12}
    final = updates[-1]
    assert final.describe() == "all 13 pages parsed"
    assert is_cached(long_pdf)  # stored: the next load parses nothing
    assert final.doc.to_dict() == cb.load(long_pdf).to_dict()  # heading levels over every page, tables joined
    again = load_progressively(long_pdf, updates.append)
    assert again.final and again.doc.to_dict() == final.doc.to_dict()


def test_the_explorer_shows_provisional_chunks_then_the_final_ones(long_pdf):
    ex = cb.explore(str(long_pdf), "elements")
    assert ex.state.n_pages == 13 and ex.page_w.max == 13
    assert ex.image is not None and ex.state.page == 1
    _wait(lambda: ex.progress is not None and ex.progress.final)
    assert ex.progress_w.value == ""
    expected = cb.chunk(cb.load(long_pdf), "elements")
    assert [c.text for c in ex.state.chunkset] == [c.text for c in expected]
    ex.state.go_to_page(12)
    assert ex.state.page == 12 and any(c.page_start == 12 for c in ex.state.chunkset)


def test_the_banner_says_provisional_until_the_rest_is_in(long_pdf, monkeypatch):
    from chunkbench.ui.explorer.widget import Explorer

    begin = threading.Event()
    first = load_progressively(long_pdf, lambda p: None, begin=begin)
    ex = Explorer(first.doc, "elements", page_count=first.page_count)
    ex.show_progress(first)
    assert "cb-provisional" in ex.progress_w.value and "2 of 13 pages" in ex.progress_w.value
    ex.state.go_to_page(13)  # a page not parsed yet: drawn bare, no chunk on it
    assert ex.state.page == 13 and ex.state.chunks_on_page() == []


def test_a_failure_in_the_background_is_shown(long_pdf, monkeypatch):
    from chunkbench.loaders import pdf_layout

    errors: list = []
    real = pdf_layout.parse_range

    def broken(path, password, first, stop, ocr):
        if first >= 8:
            raise RuntimeError("the rest is broken")
        return real(path, password, first, stop, ocr)

    monkeypatch.setattr(pdf_layout, "parse_range", broken)  # forked workers inherit it
    first = load_progressively(long_pdf, lambda p: None, on_error=errors.append)
    assert not first.final
    _wait(lambda: errors)
    assert "the rest is broken" in str(errors[0])
    assert not is_cached(long_pdf)


def test_an_uncached_pdf_opens_from_its_first_pages_and_anything_else_whole(long_pdf, tmp_path):
    """app.opening, which the explorer and `chunkbench review` open through: a PDF for the default
    parser that the cache lacks comes from its first pages, with review's own options; another
    parser, no cache, a Markdown file or a cached parse come whole, as a final Progress."""
    from chunkbench.app.opening import _arrives_by_page, open_as_it_arrives
    from chunkbench.ui.cli import build_parser, load_options

    def options(*extra):
        return load_options(build_parser().parse_args(["review", *extra]))

    waiting = threading.Event()  # never set: the rest is not parsed
    first = open_as_it_arrives(long_pdf, lambda p: None, begin=waiting, **options(str(long_pdf), "--strategy", "elements"))
    assert not first.final and len(first.parsed) < first.page_count == 13
    given = lambda *extra: {k: v for k, v in options(str(long_pdf), *extra).items() if v is not None}  # noqa: E731
    assert not _arrives_by_page(long_pdf, given("--no-cache"))
    assert not _arrives_by_page(long_pdf, given("--backend", "mineru"))
    md = tmp_path / "a.md"
    md.write_text("# T\n\ntext\n", encoding="utf-8")
    whole = open_as_it_arrives(md, lambda p: None, begin=waiting, **options(str(md)))
    assert whole.final and whole.page_count == len(whole.doc.pages) and whole.doc.elements[0].text == "T"
    cb.load(long_pdf)  # now cached: whole at once
    assert open_as_it_arrives(long_pdf, lambda p: None, begin=waiting, **options(str(long_pdf))).final


def test_the_first_pages_carry_the_document_id_as_a_whole_load_does(long_pdf):
    """`chunkbench review --document-id` on an uncached PDF: the first pages' chunks are named by
    the id, as those of the whole document and of a cached one are; a bad id is refused at once."""
    from chunkbench.errors import UsageError

    first = load_progressively(long_pdf, lambda p: None, begin=threading.Event(), document_id="report-2025")
    assert not first.final and first.doc.metadata["document_id"] == "report-2025"
    assert all(c.chunk_id.startswith("report-2025_") for c in cb.chunk(first.doc, "elements"))
    with pytest.raises(UsageError, match="document"):
        load_progressively(long_pdf, lambda p: None, begin=threading.Event(), document_id="no spaces/here")


def test_a_stuck_background_parse_is_reported_with_the_file_and_pages(long_pdf, monkeypatch):
    """The background parse's worker failures read as `load`'s do (pdf.worker_failure)."""
    from chunkbench.errors import InputError
    from chunkbench.loaders import parse_workers, pdf_layout

    real = pdf_layout.parse_range

    def stuck(path, password, first, stop, ocr):
        if first >= 4:
            time.sleep(3600)  # no CPU time: a stuck worker, not a slow one
        return real(path, password, first, stop, ocr)

    monkeypatch.setattr(parse_workers, "STALL_SECONDS", 1.0)
    monkeypatch.setattr(pdf_layout, "parse_range", stuck)  # forked workers inherit it
    errors: list = []
    load_progressively(long_pdf, lambda p: None, on_error=errors.append)
    _wait(lambda: errors)
    assert isinstance(errors[0], InputError)
    assert re.fullmatch(rf"{re.escape(str(long_pdf))}: the parser process stopped working on pages \d+-\d+ "
                        r"\(it used no CPU time for 1 s, and so did a second one; run it again\)", str(errors[0]))
