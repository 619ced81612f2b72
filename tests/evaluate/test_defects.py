"""The defect detectors (chunkbench.evaluate.defects), the loader passes that avoid them
(contents typed, footnotes placed), and where the counts show up: stats, sweep metrics,
chunk_debug.md. Real PDFs where a behaviour needs one (the shared 10-K's tables of figures, the
Federal Register's footnotes); small documents where one rule is pinned."""

from __future__ import annotations

import dataclasses
import json

import pytest
from element_streams import element_documents
from hypothesis import given
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.evaluate.defects import DEFECT_DOCS, Defect, defect_counts, find_defects
from chunkbench.evaluate.edges import is_mid_sentence
from chunkbench.evaluate.metrics import all_metrics
from chunkbench.loaders.footnotes import place_footnotes
from chunkbench.loaders.settle import settle
from chunkbench.strategies import chunk
from chunkbench.text.contents import INDEX, TOC, contents_kind
from chunkbench.text.leadins import ends_open, introduces
from chunkbench.text.notes import cites, note_mark, trailing_mark
from chunkbench.types import Element, Reason
from chunkbench.ui.cli import main
from tests.support.documents import make_doc
from tests.support.paths import shared_pdf


def _codes(cs, *codes):
    return [(f.code.value, f.chunks) for f in find_defects(cs, codes or None)]


def _p(text, page=0, **kw):
    return {"type": "paragraph", "text": text, "page_idx": page, **kw}


LEAD = "The following commands are required in /bin:"
TABLE = {"type": "table", "text": "| Command | Description |\n|---|---|\n| cat | concatenate |\n| ls | list |"}


def test_a_lead_in_apart_from_its_table_is_found_and_kept_together_by_the_strategies():
    doc = make_doc([_p("There must be no subdirectories in /bin. " * 3), _p(LEAD), {**TABLE, "page_idx": 0}])
    apart = cb.inspect(doc, [doc.text[: doc.text.index(LEAD) + len(LEAD)], doc.text[doc.text.index("| Command"):]])
    assert _codes(apart, "lead_in_split") == [("lead_in_split", (0, 1))]
    finding = find_defects(apart, ["lead_in_split"])[0]
    assert finding.page == 1 and "introduces the table" in finding.detail
    for strategy in ("recursive", "sentences", "elements", "sections", "contract", "headers"):
        params = {"chunk_size": 150} if strategy == "recursive" else {"max_chars": 150} if strategy == "sentences" else {}
        cs = chunk(doc, strategy, **params)
        assert not find_defects(cs, ["lead_in_split"]), strategy
        holding = next(c for c in cs if LEAD in c.text)
        assert "| cat |" in holding.text, strategy
    cut = chunk(doc, "recursive", chunk_size=150)
    starts = next(c for c in cut if c.text.startswith(LEAD))
    assert starts.boundary.reason is Reason.LEAD_IN and "introducing the table" in starts.boundary.detail


def test_lead_ins_by_their_words():
    assert introduces(LEAD) and introduces("…must be in /etc if the corresponding subsystem is installed: 3")
    assert introduces("The results are as follows.") and introduces("They are listed below.")
    assert not introduces("…this list of conditions and the following disclaimer.")
    assert ends_open("To work with complex numbers, supply an explicit complex part. Thus")
    assert not ends_open("Col A\tCol B\n1\t2") and not ends_open("It ends here.")


def test_footnote_marks_citations_and_the_end_of_a_sentence_before_them():
    assert note_mark("1 Command binaries …") == "1" and note_mark("9Found at http://…") == "9"
    assert note_mark("* Includes …") == "*" and note_mark("In 2015 the …") is None
    assert cites("…used indirectly by scripts. 1", "1") and cites("…exists. 4 5", "5") and cites("dividends¹", "1")
    assert not cites("3.7.4. /etc/opt", "4") and not cites("version 3 of", "3")
    assert cites("…the XDG specification 9 and", "9", loosely=True)
    text = "commands that are used indirectly by scripts. 1"
    assert text[: trailing_mark(text)] == "commands that are used indirectly by scripts."
    doc = make_doc([_p("Commands that may be used by both the administrator and users, and indirectly by scripts. 1")])
    assert not is_mid_sentence(doc, chunk(doc, "recursive")[0])  # it was counted mid-sentence


def test_a_footnote_moves_next_to_its_citation_and_a_table_goes_on_over_it():
    els = [Element("p1-e1", "paragraph", "Binaries used by scripts. 1", page_idx=0),
           Element("p1-e2", "paragraph", LEAD, page_idx=0),
           Element("p1-e3", "table", TABLE["text"], page_idx=0),
           Element("p1-e4", "footnote", "1 Not essential enough for /bin.", page_idx=0),
           Element("p1-e5", "page_number", "5", page_idx=0),
           Element("p2-e1", "table", "| Command | Description |\n|---|---|\n| sed | stream editor |", page_idx=1)]
    placed, moved = place_footnotes(els)
    assert moved == 1 and [e.id for e in placed] == ["p1-e1", "p1-e4", "p1-e2", "p1-e3", "p1-e5", "p2-e1"]
    doc = make_doc([{"type": e.type, "text": e.text, "page_idx": e.page_idx} for e in els])
    settled = settle(doc)
    table = next(e for e in settled.elements if e.type == "table")
    assert table.page_numbers == (1, 2) and "| sed |" in table.text  # stitched over the footnote


def test_a_footnote_in_a_table_piece_and_furniture_between_body_parts_are_found():
    doc = make_doc([_p("Binaries used by scripts. 1"), {**TABLE}, {"type": "footnote", "text": "1 Not essential."},
                    {"type": "page_number", "text": "5"}, _p("More text after the page number.")])
    text = doc.text
    note, number = text.index("1 Not essential."), text.index("\n5\n") + 1
    pieces = cb.inspect(doc, [text[: text.index("| Command")], text[text.index("| Command"): number], text[number:]])
    (found,) = find_defects(pieces, ["furniture_inside"])
    assert found.chunks == (1,) and "in a piece of a table" in found.detail and found.start_char == note
    whole = cb.inspect(doc, [text])  # the note is cited in the chunk itself; the page number parts its text
    (found,) = find_defects(whole, ["furniture_inside"])
    assert found.detail.startswith("page number") and found.start_char == number


def test_contents_and_index_lines_are_told_from_tables_of_figures():
    toc = "| 1. Introduction 1 |\n|---|\n| 1.1. Purpose 1 |\n| 2. The Filesystem 2 |\n| 3. The Root Filesystem 3 |"
    assert contents_kind(toc, 50) == TOC
    index = "| c 8, 11, 27, 30 |\n|---|\n| cbind. 26 |\n| coef 58 |\n| hist 37, 70 |\n| contour 70 |"
    assert contents_kind(index, 113) == INDEX
    for figures in ("| State | Value |\n|---|---|\n| WithdrawnState | 0 |\n| NormalState | 1 |\n| IconicState | 3 |",
                    "| Fiscal Year Amount |\n|---|\n| Fiscal 2024 $ 61 |\n| Fiscal 2025 21 |\n| Fiscal 2026 21 |",
                    "| Asset Category | Useful Life |\n|---|---|\n| Buildings | 5-35 |\n| Leasehold improvements | 5-10 |"):
        assert contents_kind(figures, 75) is None, figures


def test_the_10k_s_contents_page_is_typed_and_its_tables_of_figures_are_not():
    doc = cb.load(shared_pdf("financial_bestbuy-2023-10k.pdf"))
    typed = [e for e in doc.elements if e.type in ("toc", "index")]
    assert [(e.page_numbers, e.type) for e in typed] == [((3,), "toc")] * 2  # "TABLE OF CONTENTS" and the table
    assert sum(e.type == "table" for e in doc.elements) >= 70  # every table of figures stays a table


def test_headings_alone_contents_chunks_and_sizes_are_found():
    doc = make_doc([{"type": "heading", "text": "1. Scope", "text_level": 1},
                    {"type": "heading", "text": "1.1 Purpose", "text_level": 2},
                    {"type": "toc", "text": "Introduction 1\nScope 2\nTerms 3"},
                    _p("The Contractor shall staff the desk. " * 5), _p("Tiny.")])
    text = doc.text
    cs = cb.inspect(doc, [text[: text.index("Introduction")], text[text.index("Introduction"): text.index("The Contractor")],
                          text[text.index("The Contractor"):]])
    assert _codes(cs, "heading_orphan", "toc_chunk") == [("heading_orphan", (0,)), ("toc_chunk", (1,))]
    small = chunk(doc, "recursive", chunk_size=40)
    assert {"tiny", "oversize"} >= {f.code.value for f in find_defects(small, ["tiny", "oversize"])}
    assert any(f.code is Defect.OVERSIZE for f in find_defects(chunk(doc, "elements", split_oversize=False,
                                                                     max_chunk_size=60)))


def test_a_short_section_kept_whole_is_not_tiny_but_a_short_piece_of_one_is():
    doc = make_doc([{"type": "heading", "text": "1. Term", "text_level": 1}, _p("Two years."),
                    {"type": "heading", "text": "2. Fees", "text_level": 1}, _p("The Client pays monthly. " * 12),
                    _p("Net 30.")])
    text = doc.text
    fees = text.index("2. Fees")
    tail = text.index("Net 30.")
    cs = cb.inspect(doc, [text[:fees], text[fees:tail], text[tail:]])
    # the same sizes as a setting of 1,000 characters judges them (tiny below 100)
    cs = dataclasses.replace(cs, strategy="recursive", params={"chunk_size": 1000, "unit": "chars", "min_chars": 100})
    assert _codes(cs, "tiny") == [("tiny", (2,))]  # "1. Term / Two years." is a whole section: not tiny


def test_cuts_mid_word_mid_sentence_dangling_and_inside_a_row():
    doc = make_doc([_p("The agreement starts today and it runs for two years. It renews each year."), {**TABLE}])
    text = doc.text
    a = text.index("runs") + 2  # "ru|ns"
    b = text.index("It renews")
    c = text.index("| cat") + 4  # inside a row
    cs = cb.inspect(doc, [text[:a], text[a:b], text[b:c], text[c:]])
    got: dict[str, list] = {}
    for f in find_defects(cs):
        got.setdefault(f.code.value, []).extend(f.chunks)
    assert got["mid_word"] == [0, 2] and "ru|ns" in find_defects(cs, ["mid_word"])[0].detail
    assert got["dangling_start"] == [2] and got["table_row_cut"] == [2]  # one cut, counted where it ends a chunk
    assert got["table_header_missing"] == [3]


def test_counts_are_per_100_chunks_and_every_code_is_documented():
    doc = make_doc([_p("Sentence one is here. " * 20)])
    cs = chunk(doc, "recursive", chunk_size=100)
    findings = find_defects(cs)
    counts = defect_counts(findings, len(cs))
    assert counts["defects_per_100"] == pytest.approx(100 * len(findings) / len(cs), abs=0.01)
    assert set(counts) == {"defects_per_100", *(f"defect_{c}" for c in DEFECT_DOCS)}
    assert defect_counts([], 0)["defects_per_100"] is None
    metrics = all_metrics(doc, cs)
    assert metrics["defects_per_100"] == counts["defects_per_100"] and "defect_lead_in_split" in metrics
    with pytest.raises(ValueError, match="not a defect code"):
        find_defects(cs, ["lead_in"])


@given(element_documents(max_elements=25), st.sampled_from(["recursive", "elements", "sentences", "tokens"]))
def test_defects_of_any_chunking_are_placed_in_the_document(doc, strategy):
    cs = chunk(doc, strategy)
    for f in find_defects(cs):
        assert f.chunks and all(0 <= i < len(cs) for i in f.chunks) and f.detail
        assert f.start_char is not None and 0 <= f.start_char <= len(doc.text)
        assert f.page is None or 1 <= f.page <= max(1, len(doc.pages))


def test_stats_and_the_debug_markdown_list_the_defects(tmp_path, capsys):
    pdf = tmp_path / "contract.pdf"
    pdf.write_bytes(shared_pdf("legal_ukgov-example-mutual-nda.pdf").read_bytes())
    out = tmp_path / "chunks.json"
    assert main(["chunk", str(pdf), "--strategy", "recursive", "--set", "chunk_size=200", "-o", str(out),
                 "--debug-md", str(tmp_path / "debug.md")]) == 0
    capsys.readouterr()
    assert main(["stats", str(out), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["defects"]["document"] == "contract.pdf" and stats["defects"]["per_100"] is not None
    debug = (tmp_path / "debug.md").read_text("utf-8")
    assert f"- **defects**: {stats['defects']['count']} (" in debug and "- **defect** `" in debug
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / "chunks.json").write_bytes(out.read_bytes())
    assert main(["stats", str(moved / "chunks.json")]) == 0
    assert "defects need the document: pass --doc INPUT" in capsys.readouterr().out
    assert main(["stats", str(moved / "chunks.json"), "--doc", str(pdf)]) == 0
    assert "per 100 chunks" in capsys.readouterr().out


def test_a_line_the_document_leaves_unstopped_before_a_heading_is_no_cut_mid_sentence():
    """A title page's subtitle or a line before a section has no full stop in the document itself:
    a chunk that ends with it, before a heading, was not cut mid-sentence; before prose it was."""
    subtitle = "Installation and Configuration Manual for the field data logger firmware revision D"
    for follower, counted in (({"type": "heading", "text": "1 Introduction", "text_level": 1}, False),
                              (_p("the logger records readings every ten seconds."), True)):
        doc = make_doc([_p(subtitle), follower, _p("The logger records readings every ten seconds.")])
        cut = doc.text.index(subtitle) + len(subtitle)
        cs = cb.inspect(doc, [doc.text[:cut], doc.text[cut:]])
        assert is_mid_sentence(doc, cs[0]) is counted
        assert ("mid_sentence" in {f.code.value for f in find_defects(cs)}) is counted
