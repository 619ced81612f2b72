"""Footnotes the layout model boxed as paragraphs (loaders/footnotes.py), on real PDFs."""

from __future__ import annotations

import re

import chunkbench as cb
from chunkbench.evaluate.edges import is_mid_sentence
from chunkbench.loaders.dehyphenate import OPTION_DROPPED, OPTION_KEPT
from chunkbench.loaders.footnotes import OPTION, WHY, citation, footnotes_from_paragraphs
from chunkbench.loaders.summary import format_summary
from chunkbench.types.document import Element, is_noise
from tests.support.paths import mineru_fixture, shared_pdf

FAA = "req_federal-register-2020-17221.pdf"


def test_footnotes_at_a_columns_foot_are_footnotes_and_the_body_joins_over_them():
    """The Federal Register sets its footnotes in 7 pt at the foot of each 9 pt column; the model
    calls them `text`. Page 2's left column ends "… airspeed disagree alert, and", then footnotes
    1–4; the middle column goes on "altitude disagree alert, 5 and may affect …"."""
    doc = cb.load(shared_pdf(FAA))
    notes = [e for e in doc.elements if e.type == "footnote"]
    marks = [int(m.group()) for e in notes if (m := re.match(r"\d+(?= )", e.text))]
    # every note of pages 2-3 and nothing else numbered; each follows the paragraph that cites it
    # (loaders.footnotes.place_footnotes), so note 8, cited in "(MCAS) 8 can command", comes before 7
    assert sorted(marks) == list(range(1, 16)) and marks.index(8) < marks.index(7)
    for note in notes:  # a note whose citation is found on its page or the one before follows it
        at = doc.elements.index(note)
        cited = citation(doc.elements, at, note)
        if cited is not None:
            assert all(e.type == "footnote" or is_noise(e) for e in doc.elements[cited + 1 : at]), note.id
    assert sum(citation(doc.elements, doc.elements.index(n), n) is not None for n in notes) >= 5  # 6 found
    assert all(e.raw_type == "text" and e.attrs["reclassified"] == WHY for e in notes if e.page_idx in (1, 2))
    assert doc.parser.options[OPTION] == 16  # 15 notes and the rest of note 12 in the next column
    body = doc.element_at(doc.text.index("airspeed disagree alert, and altitude disagree alert, 5 and may affect"))
    assert body.type == "paragraph" and [p.page_idx for p in body.parts] == [1, 1]
    # p. 3: "… the magnitude of any MCAS" | notes 10-12 | "command …" in the middle column; the
    # note's rest at the foot of the middle column joins note 12, not the body
    body = doc.element_at(doc.text.index("limit 12 the magnitude of any MCAS command"))
    assert body.type == "paragraph"
    note = doc.element_at(doc.text.index("12 The magnitude of the command varies"))
    assert note.type == "footnote" and "such as the airplane’s altitude and airspeed" in note.text
    assert [p.bbox[0] > 200 for p in note.parts] == [False, True]
    # what it changes for a chunker: no chunk of the recursive default ends mid-sentence on pages 2-3
    assert not [c.text[-40:] for c in cb.chunk(doc, "recursive") if c.page_start in (2, 3) and is_mid_sentence(doc, c)]
    summary = format_summary(doc)
    assert f"{doc.parser.options[OPTION]} paragraph(s) at a column's foot in small type made footnotes" in summary
    # no hyphen was dropped, so the kept ones say what they are
    assert OPTION_DROPPED not in doc.parser.options and f", {doc.parser.options[OPTION_KEPT]} line-end hyphen(s) kept" in summary


def test_small_type_that_is_no_footnote_stays_a_paragraph():
    # pages of other PDFs: the model's own footnotes keep their class, no paragraph becomes one
    for path in (shared_pdf("paper_hotos17-baumann.pdf"), shared_pdf("financial_ulta-2023q4-earnings.pdf"),
                 mineru_fixture("naacl-long-122", "naacl-long-122.pdf")):
        doc = cb.load(path)
        assert OPTION not in doc.parser.options, path.name
    # a 10-K's one note under its exhibit index (page 66: "* Management contracts …") is a footnote
    tenk = cb.load(shared_pdf("financial_bestbuy-2023-10k.pdf"))
    (note,) = [e for e in tenk.elements if e.attrs.get("reclassified") == WHY]
    assert note.page_idx == 65 and note.text.startswith("* Management contracts")


def test_each_condition_is_needed():
    body = [Element(id=f"b{i}", type="paragraph", text="Body text that runs on. " * 8, page_idx=0,
                    bbox=(50, 60 + 100 * i, 250, 150 + 100 * i)) for i in range(3)]
    note = Element(id="n", type="paragraph", text="1 A note under the body.", page_idx=0, bbox=(50, 400, 250, 420))
    sizes = {"b0": 10.0, "b1": 10.0, "b2": 10.0, "n": 8.0}
    assert footnotes_from_paragraphs([*body, note], sizes)[1] == 1
    assert footnotes_from_paragraphs([*body, note], {**sizes, "n": 9.5})[1] == 0  # not small enough
    unmarked = Element(id="n", type="paragraph", text="A note under the body.", page_idx=0, bbox=(50, 400, 250, 420))
    assert footnotes_from_paragraphs([*body, unmarked], sizes)[1] == 0  # no note mark
    under = Element(id="u", type="paragraph", text="More body. " * 8, page_idx=0, bbox=(60, 430, 240, 500))
    assert footnotes_from_paragraphs([*body, note, under], {**sizes, "u": 10.0})[1] == 0  # body below it
    beside = [Element(id=f"b{i}", type="paragraph", text=b.text, page_idx=0, bbox=(300, b.bbox[1], 500, b.bbox[3]))
              for i, b in enumerate(body)]
    assert footnotes_from_paragraphs([*beside, note], sizes)[1] == 0  # no body above it in its column
