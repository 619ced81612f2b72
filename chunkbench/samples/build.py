"""Render the sample PDFs in `sample_pdfs/` from the authored content in `sample_content`.

Run as `python -m chunkbench.samples sample_pdfs`. Each document is HTML + CSS laid out by
PyMuPDF's Story into body rectangles; running headers, footers with "Page N of M" and
footnotes are added afterwards on every page. Footnotes go at the foot of the page where their
marker lands, so the body is laid out again with room reserved there until that is stable.
Metadata is fixed and no document id is written, so the same PyMuPDF version gives
byte-identical files. Each PDF gets a `<name>.questions.json` whose evidence pages are found by
searching the rendered text, so they can never disagree with the PDF.
"""

from __future__ import annotations

import argparse
import html
import io
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pymupdf

from chunkbench.errors import ChunkbenchError, UsageError
from chunkbench.io.atomic import write_bytes, write_json

from .content import Question, Sample, all_samples

#: fixed PDF dates: a regenerated file must not differ from the committed one
FIXED_DATE = "D:20250601000000Z"
#: page margins in points: left, top, right, bottom of the body area
MARGINS = (64.0, 78.0, 64.0, 74.0)
#: header and footer baselines' distance from the top and bottom page edges
HEADER_TOP = 34.0
FOOTER_BOTTOM = 34.0
FURNITURE_HEIGHT = 16.0
#: space between the body and the rule above the footnotes
FOOTNOTE_GAP = 10.0
#: layout passes allowed for footnote space to settle before giving up
MAX_LAYOUT_PASSES = 6
#: get_text flags: like the default, but ligatures ("ﬁ") are expanded to plain letters
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP

BASE_CSS = """
body { font-size: 10pt; line-height: 1.3; }
h1 { font-size: 20pt; font-weight: bold; margin: 0 0 12pt 0; }
h2 { font-size: 14pt; font-weight: bold; margin: 14pt 0 6pt 0; }
h3 { font-size: 11.5pt; font-weight: bold; margin: 10pt 0 4pt 0; }
p { margin: 0 0 6pt 0; }
ul, ol { margin: 2pt 0 6pt 0; }
li { margin: 0 0 2pt 0; }
table { border-collapse: collapse; width: 100%; margin: 4pt 0 10pt 0; }
th, td { border: 0.6pt solid #555555; padding: 2pt 5pt; font-size: 9pt; vertical-align: top;
         text-align: left; }
th { background-color: #e4e4e4; font-weight: bold; text-align: left; }
td.num, th.num { text-align: right; }
pre { font-family: monospace; font-size: 8.5pt; line-height: 1.25; margin: 4pt 0 8pt 0;
      padding: 5pt; background-color: #f2f2f2; border: 0.5pt solid #bbbbbb; }
code { font-family: monospace; }
"""
FURNITURE_CSS = "* { font-family: sans-serif; font-size: 8pt; color: #555555; margin: 0; }"
FOOTNOTE_CSS = "p { font-size: 8pt; line-height: 1.2; margin: 0 0 2pt 0; }"


def build_pdf(sample: Sample) -> bytes:
    """The finished PDF of `sample`: laid-out body, page furniture, footnotes, fixed metadata."""
    mediabox = pymupdf.paper_rect(sample.paper)
    width = _body_rect(mediabox).width
    reserved: dict[int, float] = {}
    for _ in range(MAX_LAYOUT_PASSES):
        body, marker_pages = _layout_body(sample, mediabox, reserved)
        notes = _notes_by_page(sample.footnotes, marker_pages)
        needed = {page: _footnote_height(sample, texts, width) for page, texts in notes.items()}
        if all(reserved.get(page, 0.0) >= height for page, height in needed.items()):
            return _finish(sample, body, notes, needed)
        # Reservations only grow: a marker pushed to the next page by the space reserved for it
        # leaves that space behind, so the passes cannot oscillate between two layouts.
        reserved = {page: max(reserved.get(page, 0.0), needed.get(page, 0.0)) for page in reserved | needed}
    raise RuntimeError(f"{sample.name}: footnote placement did not settle after {MAX_LAYOUT_PASSES} passes")


def _body_rect(mediabox: pymupdf.Rect, reserved: float = 0.0) -> pymupdf.Rect:
    left, top, right, bottom = MARGINS
    return pymupdf.Rect(left, top, mediabox.width - right, mediabox.height - bottom - reserved)


def _layout_body(
    sample: Sample, mediabox: pymupdf.Rect, reserved: Mapping[int, float]
) -> tuple[bytes, dict[str, int]]:
    """Flow the body over as many pages as it needs; return the PDF and each marker's page."""
    buffer = io.BytesIO()
    writer = pymupdf.DocumentWriter(buffer)
    story = pymupdf.Story(sample.html, user_css=BASE_CSS + sample.css)
    marker_pages: dict[str, int] = {}

    def record(position) -> None:
        if position.id in sample.footnotes:
            marker_pages.setdefault(position.id, position.page)

    page, more = 0, True
    while more:
        device = writer.begin_page(mediabox)
        more, _ = story.place(_body_rect(mediabox, reserved.get(page, 0.0)))
        story.element_positions(record, {"page": page})
        story.draw(device)
        writer.end_page()
        page += 1
    writer.close()
    missing = sorted(set(sample.footnotes) - set(marker_pages))
    if missing:
        raise ValueError(f"{sample.name}: no marker in the text for footnotes {missing}")
    return buffer.getvalue(), marker_pages


def _notes_by_page(footnotes: Mapping[str, str], marker_pages: Mapping[str, int]) -> dict[int, list[str]]:
    notes: dict[int, list[str]] = {}
    for marker, text in footnotes.items():
        notes.setdefault(marker_pages[marker], []).append(text)
    return notes


def _footnote_html(texts: Sequence[str]) -> str:
    return "".join(f"<p>{html.escape(t)}</p>" for t in texts)


def _footnote_css(sample: Sample) -> str:
    """The sample's own styles (its body font) with the footnote size on top."""
    return BASE_CSS + sample.css + FOOTNOTE_CSS


def _footnote_height(sample: Sample, texts: Sequence[str], width: float) -> float:
    """Height the notes take when set at `width`, plus the gap and rule above them."""
    story = pymupdf.Story(_footnote_html(texts), user_css=_footnote_css(sample))
    _, filled = story.place(pymupdf.Rect(0, 0, width, 10_000))
    return round(pymupdf.Rect(filled).height + FOOTNOTE_GAP, 2)


def _finish(
    sample: Sample, body: bytes, notes: Mapping[int, list[str]], heights: Mapping[int, float]
) -> bytes:
    doc = pymupdf.open("pdf", body)
    count = doc.page_count
    for page in doc.pages():
        if page.number > 0 or sample.header_on_first_page:
            _put_header(page, sample)
        _put_footer(page, sample, f"Page {page.number + 1} of {count}")
        if page.number in notes:
            _put_footnotes(page, sample, notes[page.number], heights[page.number])
    doc.set_metadata({
        "title": sample.title,
        "author": "chunkbench sample documents",
        "subject": sample.subject,
        "keywords": "chunkbench, sample, original content, CC0",
        "creator": "chunkbench.samples",
        "producer": "PyMuPDF",
        "creationDate": FIXED_DATE,
        "modDate": FIXED_DATE,
    })
    return doc.tobytes(garbage=4, deflate=True, no_new_id=True)


def _put_text(page: pymupdf.Page, rect: pymupdf.Rect, text: str, align: str) -> None:
    html_text = f'<p style="text-align: {align}">{html.escape(text)}</p>'
    page.insert_htmlbox(rect, html_text, css=FURNITURE_CSS)


def _put_header(page: pymupdf.Page, sample: Sample) -> None:
    body = _body_rect(page.rect)
    rect = pymupdf.Rect(body.x0, HEADER_TOP, body.x1, HEADER_TOP + FURNITURE_HEIGHT)
    _put_text(page, rect, sample.header_left, "left")
    _put_text(page, rect, sample.header_right, "right")
    page.draw_line((body.x0, rect.y1 + 2), (body.x1, rect.y1 + 2), color=(0.6, 0.6, 0.6), width=0.5)


def _put_footer(page: pymupdf.Page, sample: Sample, page_label: str) -> None:
    body = _body_rect(page.rect)
    top = page.rect.height - FOOTER_BOTTOM - FURNITURE_HEIGHT
    rect = pymupdf.Rect(body.x0, top, body.x1, top + FURNITURE_HEIGHT)
    _put_text(page, rect, sample.footer_left, "left")
    _put_text(page, rect, page_label, "right")


def _put_footnotes(page: pymupdf.Page, sample: Sample, texts: Sequence[str], height: float) -> None:
    body = _body_rect(page.rect)
    top = body.y1 - height + FOOTNOTE_GAP
    page.draw_line((body.x0, top - 4), (body.x0 + 120, top - 4), color=(0.3, 0.3, 0.3), width=0.5)
    page.insert_htmlbox(pymupdf.Rect(body.x0, top, body.x1, body.y1), _footnote_html(texts), css=_footnote_css(sample))


def page_texts(pdf: bytes | str | Path) -> list[str]:
    """Each page's text with whitespace collapsed and ligatures expanded, for phrase look-ups."""
    with pymupdf.open(pdf) if not isinstance(pdf, bytes) else pymupdf.open("pdf", pdf) as doc:
        return [normalize_space(page.get_text("text", flags=TEXT_FLAGS)) for page in doc]


def normalize_space(text: str) -> str:
    """`text` with every run of whitespace turned into one space and the ends stripped."""
    return " ".join(text.split())


def evidence_page(texts: Sequence[str], question: Question) -> int:
    """The 1-based page whose text holds the question's evidence; ValueError unless exactly one."""
    phrase = normalize_space(question.evidence_text)
    pages = [n for n, text in enumerate(texts, 1) if phrase in text]
    if len(pages) != 1:
        where = f"on pages {pages}" if pages else "on no page"
        raise ValueError(f"question {question.id}: evidence {phrase!r} found {where}; it must be on one")
    return pages[0]


def question_records(sample: Sample, pdf: bytes) -> list[dict]:
    """The question file's content: each question with its evidence page and text."""
    texts = page_texts(pdf)
    return [
        {"id": q.id, "question": q.question, "evidence_page": evidence_page(texts, q),
         "evidence_text": q.evidence_text}
        for q in sample.questions
    ]


def write_samples(out_dir: str | Path, samples: Sequence[Sample] | None = None) -> list[Path]:
    """Render every sample into `out_dir` as `<name>.pdf` and `<name>.questions.json`."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UsageError("output path exists and is not a folder", out)
    written = []
    for sample in samples or all_samples():
        pdf = build_pdf(sample)
        questions = question_records(sample, pdf)
        written.append(write_bytes(out / f"{sample.name}.pdf", pdf))
        written.append(write_json(out / f"{sample.name}.questions.json", questions))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: `python -m chunkbench.samples OUT_DIR`."""
    parser = argparse.ArgumentParser(prog="python -m chunkbench.samples", description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", nargs="?", default="sample_pdfs", help="folder to write into")
    args = parser.parse_args(argv)
    try:
        for path in write_samples(args.out_dir):
            print(path)
    except ChunkbenchError as exc:
        print(f"chunkbench.samples: error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
