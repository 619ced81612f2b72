"""The parse a reader would accept, each repair checked against the twin: admonition
titles are no headings, heading levels follow the PDF's outline, a chapter's label opens no section."""

from __future__ import annotations

import pymupdf
import pytest

import chunkbench as cb
from chunkbench.evaluate.gold.parse import parse_scores
from chunkbench.loaders.admonitions import admonition_kind, admonition_titles
from chunkbench.loaders.outline import chapter_labels, outline_levels
from chunkbench.samples.build import build_pdf
from chunkbench.samples.content import Sample
from tests.support import twins
from tests.support.documents import make_doc


@pytest.mark.parametrize("text, kind", [
    ("Note", "note"), ("NOTE:", "note"), ("⚠ Warning", "warning"), ("Important", "important"), ("Tip", "tip"),
    ("8.2 warning", None), ("note", None), ("Notes", None), ("Note 13 – Contingencies", None), ("See also", None),
    ("Noteworthy changes", None),
])
def test_which_headings_are_admonition_titles(text, kind):
    assert admonition_kind(text) == kind


def test_admonition_titles_become_labelled_paragraphs_and_end_no_section_path():
    doc = admonition_titles(make_doc([
        {"type": "heading", "text": "2 Setup", "text_level": 2},
        {"type": "heading", "text": "Warning", "text_level": 3},
        {"type": "paragraph", "text": "Back up the configuration first."},
        {"type": "heading", "text": "2.1 Notes", "text_level": 3},
    ]))
    warning = doc.elements[1]
    assert (warning.type, warning.text_level, warning.attrs["admonition"], warning.attrs["admonition_title"]) == (
        "paragraph", None, "warning", True)
    assert doc.parser.options["admonition_titles"] == 1
    assert doc.section_paths([doc.elements[2].char_start]) == [("2 Setup",)]
    chunks = cb.chunk(doc, "sections")
    assert all(not c.section_path or c.section_path[-1] != "Warning" for c in chunks)


def test_the_twins_note_is_no_heading_in_the_parse(tmp_path):
    """The hand-made twin's note, laid out with a bold title: the layout model reads "Note" as a
    heading; the parse has it as the note's label (gold: admonitions read as headings 0)."""
    pdf, html = twins.twin_pdf(tmp_path / "f.pdf"), twins.twin_html(tmp_path / "f.html")
    doc = cb.load(pdf)
    assert parse_scores(doc, cb.gold(doc, html))["note_titles_as_headings"] == 0.0
    note = next(e for e in doc.elements if e.text == "Note")
    assert note.attrs.get("admonition_title") and note.raw_type == "section-header"


def test_a_chapters_label_above_its_title_opens_no_section():
    doc = chapter_labels(make_doc([
        {"type": "heading", "text": "CHAPTER FOUR", "text_level": 2},
        {"type": "heading", "text": "RESOURCES FOR DEBIAN MEMBERS", "text_level": 3},
        {"type": "paragraph", "text": "Text of the chapter."},
        {"type": "heading", "text": "Chapter 5", "text_level": 2},  # no heading after it: a title of its own
        {"type": "paragraph", "text": "More text."},
    ]))
    assert [(e.type, e.text_level) for e in doc.elements] == [
        ("header", None), ("heading", 3), ("paragraph", None), ("heading", 2), ("paragraph", None)]
    assert doc.parser.options["chapter_labels"] == 1


def test_levels_from_the_outline_keep_each_heading_consistent():
    """Chapters and sections set in one size (font-rank level 2 both) under a title (level 1): the
    outline's levels for the matched ones, the title above them, an unmatched deeper heading below."""
    doc = make_doc([
        {"type": "heading", "text": "Handbook", "text_level": 1, "page_idx": 0},
        {"type": "heading", "text": "1 Installing", "text_level": 2, "page_idx": 0},
        {"type": "heading", "text": "1.1 Options", "text_level": 2, "page_idx": 0},
        {"type": "heading", "text": "Details", "text_level": 3, "page_idx": 1},
        {"type": "heading", "text": "2 Running", "text_level": 2, "page_idx": 1},
    ])
    entries = [(1, "1 Installing", 1), (2, "Options", 1), (1, "2 Running", 2)]
    leveled = outline_levels(doc, entries)
    assert [e.text_level for e in leveled.elements] == [1, 2, 3, 3, 2]
    assert leveled.parser.options["outline_levels"] == 1  # "1.1 Options" alone moves
    assert outline_levels(doc, [(1, "Another book", 1), (1, "Its chapter", 2), (2, "Its section", 2)]) is doc
    assert outline_levels(doc, entries[:2]) is doc  # fewer than three entries: too little to go by


def test_a_pdf_whose_chapters_and_sections_share_a_size_gets_its_levels_from_its_outline(tmp_path):
    """The hand-made twin laid out with chapters (h2) and sections (h3) in one size: the layout model
    ranks them alike; with the outline LaTeX would write, the parse's levels agree with the twin's."""
    body = twins.BODY.replace("{mark}", '<sup id="fn-1">1</sup>')
    sample = Sample(name="flat", title="t", subject="s", paper="a4", css="h2, h3 { font-size: 13pt; }", html=body,
                    header_left="Frobnicator Handbook", header_right="draft", footer_left="flat", questions=(),
                    footnotes={"fn-1": f"1 {twins.FOOTNOTE}"})
    flat = tmp_path / "flat.pdf"
    flat.write_bytes(build_pdf(sample))
    html = twins.twin_html(tmp_path / "f.html")
    without = cb.load(flat)
    assert parse_scores(without, cb.gold(without, html))["level_agreement"] < 1.0
    with pymupdf.open(flat) as pdf:
        pdf.set_toc([[1, "1 Installing the frobnicator", 1], [2, "1.1 Options of the installer", 1],
                     [1, "2 Running it", 2]])
        pdf.save(tmp_path / "outlined.pdf")
    outlined = cb.load(tmp_path / "outlined.pdf")
    assert parse_scores(outlined, cb.gold(outlined, html))["level_agreement"] == 1.0
