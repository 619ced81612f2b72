"""A running page header that the layout model reads as a heading on some pages.

The issue's own PDF (a 12-page government summary) is not here, and none of ../shared's PDFs shows
the class, so the PDF is made here: a 6-page report with a large bold running header, on which
PyMuPDF's real layout model calls the header a `section-header` on two pages and a `page-header`
on the other four (checked first, so a new model that reads it right fails loudly)."""

from __future__ import annotations

import random

import pymupdf
import pytest

import chunkbench
from chunkbench.loaders.running_headers import OPTION, furniture_from_headings
from chunkbench.loaders.title_page import WHY as TITLE_PAGE
from chunkbench.types.document import Element
from tests.support.paths import shared_pdf

HEADER = "Regional Water Plan"
_WORDS = ["water", "supply", "demand", "region", "plan", "district", "storage", "reservoir", "groundwater", "recharge", "drought", "policy", "funding", "project", "county", "agency", "report", "summary", "capacity", "delivery", "conservation"]


def _write_report(path) -> None:
    """Eight numbered sections of plain paragraphs (PyMuPDF's Story), then on every page a 15 pt
    Helvetica Bold running header and a page number."""
    rng = random.Random(1)
    html = ""
    for n in range(1, 9):
        html += f"<h2>{n}. Section heading number {n}</h2>"
        for _ in range(4):
            html += "<p>" + " ".join(rng.choice(_WORDS) for _ in range(rng.randint(40, 90))).capitalize() + ".</p>"
    story = pymupdf.Story(html=html, user_css="body{font-family:serif;font-size:10.5pt} h2{font-size:13pt}")
    width, height = pymupdf.paper_size("letter")
    body = path.with_suffix(".body.pdf")
    writer = pymupdf.DocumentWriter(str(body))
    more = 1
    while more:
        device = writer.begin_page(pymupdf.Rect(0, 0, width, height))
        more, _ = story.place(pymupdf.Rect(72, 90, width - 72, height - 72))
        story.draw(device)
        writer.end_page()
    writer.close()
    with pymupdf.open(body) as doc:
        for page in doc:
            page.insert_text((72, 52), HEADER, fontname="hebo", fontsize=15)
            page.insert_text((width / 2 - 10, height - 40), str(page.number + 1), fontname="helv", fontsize=9)
        doc.save(path)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("running-header") / "report.pdf"
    _write_report(path)
    return chunkbench.load(path, cache=False)


def test_a_running_header_the_model_read_as_a_heading_is_a_header_on_every_page(report):
    lines = [e for e in report.elements if e.text == HEADER]
    assert len(lines) == len(report.pages) == 6
    misread = [e for e in lines if e.raw_type == "section-header"]
    assert misread and len(misread) < len(lines)  # the model: a heading on some pages, a header on others
    assert all(e.type == "header" for e in lines) and report.parser.options[OPTION] == len(misread)
    assert all(e.attrs["reclassified"] == "running header read as a heading" and e.text_level is None
               for e in misread)
    # the eight section headings now rank first by font size (the 15 pt header took level 1 before)
    headings = [e for e in report.elements if e.type == "heading"]
    assert [e.text for e in headings] == [f"{n}. Section heading number {n}" for n in range(1, 9)]
    assert {e.text_level for e in headings} == {1}
    # and no chunk starts at, or holds, the header: it is furniture
    for strategy in ("elements", "headers", "recursive"):
        assert not [c for c in chunkbench.chunk(report, strategy) if HEADER in c.text], strategy


def test_a_title_page_heading_that_repeats_the_running_header_lower_down_is_no_furniture():
    """The title "Licenses" is no running header (it is not made furniture); as a line of the title
    page it is a paragraph, not a level-1 heading over every section (loaders.title_page)."""
    doc = chunkbench.load(shared_pdf("legal_xorg-licenses.pdf"))
    title, *running = [e for e in doc.elements if e.text == "Licenses"]
    assert title.page_idx == 0 and title.type == "paragraph" and title.attrs["reclassified"] == TITLE_PAGE
    assert running and {e.type for e in running} == {"header"}
    assert OPTION not in doc.parser.options


def _heading(page: int, top: float, text: str = "Annual Report 2024") -> Element:
    return Element(id=f"h{page}-{top}", type="heading", text=text, page_idx=page, bbox=(72, top, 300, top + 14))


def _body(page: int) -> Element:
    return Element(id=f"p{page}", type="paragraph", text="Body text.", page_idx=page, bbox=(72, 90, 540, 700))


@pytest.mark.parametrize("pages, tops, furniture", [
    ((0, 1, 2), (40, 41, 40), 3),  # on 3 pages, top-most, at one height: a running header
    ((0, 1), (40, 40), 0),  # on 2 pages only: could be a repeated section title
    ((0, 1, 2), (40, 60, 40), 0),  # not at one height
])
def test_a_heading_recurring_at_the_top_of_pages_is_furniture_only_on_enough_pages_at_one_height(pages, tops, furniture):
    elements = [x for page, top in zip(pages, tops) for x in (_heading(page, top), _body(page))]
    out, n = furniture_from_headings(elements, {p: 792.0 for p in pages})
    assert n == furniture and sum(e.type == "header" for e in out) == furniture
    assert [e.id for e in out] == [e.id for e in elements]


def test_a_heading_below_its_page_content_recurring_at_one_height_is_a_footer():
    elements = [x for page in (0, 1, 2) for x in (_body(page), _heading(page, 740, "Confidential draft"))]
    out, n = furniture_from_headings(elements, dict.fromkeys((0, 1, 2), 792.0))
    assert n == 3 and {e.type for e in out if e.text == "Confidential draft"} == {"footer"}


def test_info_says_how_many_headings_became_furniture(report, capsys):
    from chunkbench.ui.cli import main

    assert main(["info", report.pdf_path]) == 0
    repaired = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("  repaired "))
    assert repaired.startswith(f"  repaired {report.parser.options[OPTION]} running header(s) read as a heading (or set apart as a masthead) made furniture")


def test_the_federal_registers_first_page_masthead_is_furniture():
    """Page 1 of a Federal Register section sets the running header's four parts apart at its top
    ("Proposed Rules" as a 16 pt heading, which took level 1 and opened every section path of the
    rule); the later pages join them with " / "."""
    doc = chunkbench.load(shared_pdf("req_federal-register-2020-17221.pdf"))
    masthead = [e for e in doc.elements if e.page_idx == 0 and e.type == "header"]
    assert [e.text for e in masthead] == ["Proposed Rules", "Federal Register", "Vol. 85, No. 152", "Thursday, August 6, 2020"]
    assert {e.raw_type for e in masthead} == {"section-header", "text"}  # the model: two headings, two paragraphs
    assert all("masthead" in e.attrs["reclassified"] for e in masthead)
    assert doc.parser.options[OPTION] == 4
    headings = [e for e in doc.elements if e.type == "heading"]
    assert headings[0].text == "DEPARTMENT OF TRANSPORTATION" and headings[0].text_level == 1
    assert not any("Proposed Rules" in " > ".join(p) for p in doc.section_paths(e.char_start for e in doc.elements))
    # the boilerplate paragraph right under the masthead is body text still
    assert any(e.type == "paragraph" and e.text.startswith("This section of the FEDERAL REGISTER") for e in doc.elements)


def _line(page: int, top: float, text: str, kind: str = "heading") -> Element:
    return Element(id=f"{kind}{page}-{top}", type=kind, text=text, page_idx=page, bbox=(72, top, 400, top + 12))


@pytest.mark.parametrize("top, parts, furniture", [
    (60, ("Annual Review", "Volume 12", "Spring 2024"), 3),  # every part, above the body: a masthead
    (60, ("Annual Review", "Volume 12"), 0),  # a part missing
    (200, ("Annual Review", "Volume 12", "Spring 2024"), 0),  # beside body text, neither above nor below it
])
def test_a_masthead_is_every_part_of_a_running_header_above_the_page(top, parts, furniture):
    running = [_line(p, 30, "Annual Review | Volume 12 | Spring 2024", "header") for p in (1, 2)]
    page = [_line(0, top + 14 * i, text, "heading" if i == 0 else "paragraph") for i, text in enumerate(parts)]
    body = [Element(id="b0", type="paragraph", text="Body text.", page_idx=0, bbox=(72, 120, 540, 280))]
    out, n = furniture_from_headings([*page, *body, *running], dict.fromkeys((0, 1, 2), 792.0))
    assert n == furniture and sum(e.type == "header" and e.page_idx == 0 for e in out) == furniture


def test_a_chapter_title_that_is_one_part_of_the_running_header_stays_a_heading():
    running = [_line(p, 30, "Chapter 3 / Water Rights", "header") for p in (1, 2)]
    title = [_line(0, 60, "Chapter 3"), _line(0, 74, "Water Rights")]
    out, n = furniture_from_headings([*title, *running], dict.fromkeys((0, 1, 2), 792.0))
    assert n == 0 and [e.type for e in out[:2]] == ["heading", "heading"]  # a header of two parts is no masthead
