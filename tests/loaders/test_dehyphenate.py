"""Words hyphenated at a line end: joined where the document or the English word list says so,
kept where the hyphen belongs to the word, and drawn where both pieces are on the page; and
paragraphs a column or page break cut in two, joined."""

from __future__ import annotations

import dataclasses
import re

import pymupdf
import pytest

import chunkbench as cb
from chunkbench.loaders.dehyphenate import ATTR, OPTION_DROPPED, OPTION_KEPT, dehyphenate, english_word
from chunkbench.loaders.paragraphs import OPTION as OPTION_JOINED
from chunkbench.loaders.paragraphs import join_broken_paragraphs
from chunkbench.loaders.pdf_layout import flow_text_and_hyphens
from chunkbench.loaders.regions import span_regions
from chunkbench.types.document import Element
from tests.support.builders import line
from tests.support.paths import mineru_fixture, shared_pdf

HOTOS = "paper_hotos17-baumann.pdf"  # two columns, set by LaTeX: 130-odd words hyphenated at line ends


def _element(text: str, n: int = 1) -> Element:
    hyphens = [m.start() for m in re.finditer(r"(?<=\w)-(?=\w)", text) if "|" not in text]
    return Element(id=f"e{n}", type="paragraph", text=text.replace("|", ""), attrs={ATTR: hyphens} if hyphens else {})


def _texts(*texts: str) -> list[str]:
    """Each text an element; a hyphen between letters is a line-end hyphen unless the text holds
    a '|' (then it was written mid-line)."""
    out, dropped, kept = dehyphenate([_element(t, i) for i, t in enumerate(texts)])
    assert dropped + kept == sum(len(e.attrs.get(ATTR, ())) for e in [_element(t) for t in texts])
    assert not any(ATTR in e.attrs for e in out)
    return [e.text for e in out]


def test_flow_text_records_where_it_kept_a_line_end_hyphen():
    lines = [line("a", "non-"), line("normal"), line("for", "docu\u00ad"), line("ments", "acceler-"), line("ating.")]
    text, hyphens = flow_text_and_hyphens(lines)
    assert text == "a non-normal for documents acceler-ating."
    assert [text[i] for i in hyphens] == ["-", "-"]
    assert hyphens == [text.index("-normal"), text.index("-ating")]
    assert flow_text_and_hyphens([line("Part", "A-"), line("Section")]) == ("Part A- Section", [])


def test_the_document_decides_first_then_the_word_list():
    assert _texts(
        "the pick-up window",  # written mid-line elsewhere ('|' below): the document's own compound
        "in-store pick-up| service",
        "an isosur-face plot",  # not an English word, but the document writes it joined
        "draw the isosurface| of",
        "only acceler-ating",  # an English word
        "closely-related work",  # neither: the hyphen stays
        "state-of-the-art results",  # only the part around the hyphen is looked up: "theart"
        "In-deed, Neverthe-less",  # case does not matter
    ) == [
        "the pick-up window", "in-store pick-up service", "an isosurface plot", "draw the isosurface of",
        "only accelerating", "closely-related work", "state-of-the-art results", "Indeed, Nevertheless",
    ]


def test_a_word_seen_only_at_line_ends_is_decided_by_the_word_list():
    # both elements hyphenate the same compound at a line end: neither counts as "seen"
    assert _texts("remote-working staff", "remote-working rules") == ["remote-working staff", "remote-working rules"]
    assert english_word("Accelerating") and not english_word("remoteworking")


def test_a_latex_paper_loses_its_line_break_hyphens_and_keeps_its_compounds():
    path = shared_pdf(HOTOS)
    doc = cb.load(path)
    raw = "\n".join(page.get_text() for page in pymupdf.open(path))
    breaks = re.findall(r"\b([A-Za-z]+)-\n([a-z]+)\b", raw)
    mid_line = set(re.findall(r"[A-Za-z]+(?:-[A-Za-z]+)+", re.sub(r"[A-Za-z]+-\n[a-z]+", " ", raw)))
    joined = [(a, b) for a, b in breaks if english_word(a + b) and f"{a}-{b}" not in mid_line]
    compounds = [(a, b) for a, b in breaks if not english_word(a + b) and (a + b).lower() not in raw.lower()]
    assert len(joined) > 80 and len(compounds) >= 3
    words = set(re.findall(r"[^\W\d_]+(?:-[^\W\d_]+)*", doc.text))
    assert [f"{a}-{b}" for a, b in joined if f"{a}-{b}" in words] == []
    assert [a + b for a, b in joined if a + b not in words] == []
    assert [f"{a}-{b}" for a, b in compounds if not re.search(rf"\b{a}-{b}\b", doc.text)] == []
    assert doc.parser.options[OPTION_DROPPED] >= len(joined)
    assert doc.parser.options[OPTION_KEPT] >= len(compounds)
    assert not any(ATTR in e.attrs for e in doc.elements)


def test_a_filing_keeps_the_compounds_it_writes_with_a_hyphen():
    doc = cb.load(shared_pdf("financial_bestbuy-2023-10k.pdf"))
    # "pickup" is an English word, but the filing writes "pick-up" mid-line too
    assert re.search(r"\bpick-up\b", doc.text) and not re.search(r"\bpickup\b", doc.text)
    assert re.search(r"\bin-home\b", doc.text)
    assert OPTION_DROPPED not in doc.parser.options and doc.parser.options[OPTION_KEPT] >= 5  # counts of 0 are left out


def test_both_pieces_of_a_joined_word_are_drawn_in_its_box():
    path = shared_pdf(HOTOS)
    doc = cb.load(path)
    pdf = pymupdf.open(path)
    checked = 0
    for page in pdf:
        words = page.get_text("words")
        for first, second in zip(words, words[1:]):
            if not (first[4].endswith("-") and first[5:7] != second[5:7] and second[4][:1].islower()):
                continue
            word = first[4][:-1] + re.match(r"[^\W\d_]+", second[4]).group()
            at = [m.start() for m in re.finditer(rf"\b{word}\b", doc.text)]
            boxes = [b for start in at for b in span_regions(doc, start, start + len(word)) if b.page == page.number + 1]
            if not at or not boxes:
                continue  # kept with its hyphen, or the word sits in a figure
            for piece in (first, second):
                centre = ((piece[0] + piece[2]) / 2, (piece[1] + piece[3]) / 2)
                assert any(b.x0 <= centre[0] <= b.x1 and b.y0 <= centre[1] <= b.y1 for b in boxes), (word, piece[4])
            checked += 1
    assert checked > 80


@pytest.mark.parametrize("text", ["", "no hyphens here", "a-b", "x-"])
def test_elements_without_line_end_hyphens_come_back_unchanged(text):
    e = Element(id="e", type="paragraph", text=text)
    assert dehyphenate([e]) == ([e], 0, 0)


# --- paragraphs a column or page break cut in two ----------------------------------------------


def test_a_paragraph_cut_by_a_column_break_is_one_paragraph_and_drawn_in_both_columns():
    doc = cb.load(shared_pdf(HOTOS))
    assert doc.parser.options[OPTION_JOINED] >= 5
    # "re-" ends the left column of page 2 and "cent 2015–2016 jump" starts the right one
    assert re.search(r"\band recent 2015–2016 jump\b", doc.text)
    e = doc.element_at(doc.text.index("recent 2015–2016 jump"))
    assert e.type == "paragraph" and len(e.attrs["stitched"]) == 2
    left, right = e.parts
    assert left.page_idx == right.page_idx == 1 and right.bbox[0] > left.bbox[2]  # two columns
    assert left.text.endswith("and re") and right.text.startswith("cent 2015")
    assert doc.text[left.char_start:left.char_end] == left.text and doc.text[right.char_start:right.char_end] == right.text
    word = doc.text.index("recent 2015–2016")
    boxes = span_regions(doc, word, word + len("recent"))
    assert len(boxes) == 2 and {(b.x0 < 300) for b in boxes} == {True, False}  # "re-" left, "cent" right
    # every chunker now keeps "recent" whole: no chunk starts inside a word
    for strategy in ("elements", "sentences", "recursive"):
        chunks = cb.chunk(doc, strategy)
        assert not [c.text[:20] for c in chunks if c.start_char and doc.text[c.start_char - 1].isalpha()
                    and doc.text[c.start_char].isalpha()], strategy


def test_paragraphs_across_a_page_break_join_over_the_furniture_between():
    doc = cb.load(shared_pdf("req_federal-register-2020-17221.pdf"))
    e = doc.element_at(doc.text.index("of this AD may be done by inserting a copy"))
    pages = [p.page_idx for p in e.parts]
    assert pages == [5, 6] and e.page_numbers == (6, 7)
    # the next page's running header and page number follow the joined paragraph
    after = doc.elements[doc.elements.index(e) + 1:doc.elements.index(e) + 3]
    assert {a.type for a in after} <= {"header", "footer", "page_number"}



def test_a_bold_run_in_heading_opens_a_paragraph_that_continues_after_a_page_of_tables():
    """naacl-long-122 (two columns, LaTeX): page 5's right column ends in a paragraph with a bold
    run-in heading ("Task information … improvements." then "Random with Con-" in italics), which
    the model boxed as a section header; page 6 is a table and its caption, page 7 opens with a
    table, a caption and then "text imposes …"."""
    doc = cb.load(mineru_fixture("naacl-long-122", "naacl-long-122.pdf"))
    e = doc.element_at(doc.text.index("Task information in separator generation"))
    assert e.type == "paragraph" and e.raw_type == "section-header"
    assert e.attrs["reclassified"] == "paragraph opened by a bold run-in heading"
    assert "slight improvements. Random with Context imposes task-relevance constraints" in e.text
    assert [p.page_idx + 1 for p in e.parts] == [5, 7]
    # the tables and captions between follow the joined paragraph, in their order
    after = doc.elements[doc.elements.index(e) + 1:]
    assert [a.type for a in after[:6]] == ["page_number", "table", "paragraph", "page_number", "table", "caption"]
    assert after[2].text.startswith("Table 6:")
    # a heading of two bold sentences stays a heading (a 10-K's risk factors)
    tenk = cb.load(shared_pdf("financial_bestbuy-2023-10k.pdf"))
    risk = tenk.element_at(tenk.text.index("If we fail to attract, retain and engage appropriately qualified"))
    assert risk.type == "heading" and "In addition, changes in market compensation rates" in risk.text


def test_a_paragraph_continues_past_a_figure_but_not_into_a_tables_note_across_both_columns():
    doc = cb.load(shared_pdf(HOTOS))
    e = doc.element_at(doc.text.index("and exhibit complex interactions"))
    assert [(p.page_idx, p.bbox[0] > 300) for p in e.parts] == [(0, False), (0, True)]  # past the figure
    # page 1 ends "… designers could, for the most"; page 2 opens with Table 1, whose note
    # ("a TSX launched with …") spans both columns under it: the note is passed over as its table
    # is, and the paragraph goes on with "part, ignore such changes" in the left column
    note = doc.element_at(doc.text.index("a TSX launched with"))
    assert note.type == "paragraph" and "stitched" not in note.attrs
    e = doc.element_at(doc.text.index("designers could, for the most"))
    assert "for the most part, ignore such changes" in e.text and "a TSX launched" not in e.text
    assert [p.page_idx for p in e.parts] == [0, 1] and doc.elements.index(note) > doc.elements.index(e)
    # a box wider than the column it would continue is never its continuation
    first = Element(id="a", type="paragraph", text="runs on into the", page_idx=0, bbox=(311, 600, 540, 692))
    wide = Element(id="b", type="paragraph", text="next words here", page_idx=1, bbox=(72, 75, 540, 90))
    assert join_broken_paragraphs([first, wide]) == ([first, wide], 0)
    assert join_broken_paragraphs([first, dataclasses.replace(wide, bbox=(72, 75, 301, 90))])[1] == 1


def test_a_paragraph_stopping_on_a_function_word_goes_on_on_the_next_line_whatever_its_case():
    """Best Buy's 10-K p. 31: the model boxed the last line of a paragraph apart, 0.8 pt under it,
    and that line opens with a capital ("… Note 13, Contingencies and" | "Commitments, of the
    Notes …"); it is one paragraph, with both boxes. It is the only such join in the 17 PDFs."""
    doc = cb.load(shared_pdf("financial_bestbuy-2023-10k.pdf"))
    e = doc.element_at(doc.text.index("For additional information regarding the nature of contractual obligations"))
    assert "Note 13, Contingencies and Commitments, of the Notes" in e.text
    assert [(p.page_idx, p.text.split()[-1]) for p in e.parts] == [(30, "and"), (30, "10-K.")]
    # a capital a column or a page away is no continuation: a parser's reading order may have
    # put other text there (the first ends on "the", the other column opens "Right")
    first = Element(id="a", type="paragraph", text="refers to the", page_idx=0, bbox=(72, 600, 300, 700))
    other_column = Element(id="b", type="paragraph", text="Right of way", page_idx=0, bbox=(311, 72, 540, 90))
    assert join_broken_paragraphs([first, other_column]) == ([first, other_column], 0)
    assert join_broken_paragraphs([first, dataclasses.replace(other_column, bbox=(72, 701, 300, 712))])[1] == 1


def test_closed_paragraphs_and_paragraphs_in_one_column_stay_apart():
    doc = cb.load(shared_pdf(HOTOS), cache=True)
    for a, b in zip(doc.elements, doc.elements[1:]):
        if a.type == b.type == "paragraph" and a.page_idx == b.page_idx and b.bbox[1] > a.bbox[3]:
            assert not (b.text[:1].islower() and a.text.rstrip()[-1:].isalpha()), (a.id, b.id)
    # a paragraph closed by a full stop is never continued, whatever follows it
    first = Element(id="a", type="paragraph", text="It ends here.", page_idx=0, bbox=(0, 600, 250, 700))
    second = Element(id="b", type="paragraph", text="and this starts", page_idx=1, bbox=(0, 50, 250, 80))
    assert join_broken_paragraphs([first, second]) == ([first, second], 0)
    open_first = dataclasses.replace(first, text="It runs on into the")
    (joined,), n = join_broken_paragraphs([open_first, second])
    assert n == 1 and joined.text == "It runs on into the and this starts" and joined.page_numbers == (1, 2)


def test_info_says_what_the_loader_put_back_together(capsys):
    from chunkbench.ui.cli import main

    path = shared_pdf(HOTOS)
    options = cb.load(path).parser.options
    assert main(["info", str(path)]) == 0
    repaired = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("  repaired "))
    assert repaired == (f"  repaired {options[OPTION_JOINED]} paragraph(s) split by a column or page break (or by the parser) joined, "
                        f"{options[OPTION_DROPPED]} line-end hyphen(s) dropped, {options[OPTION_KEPT]} kept")
