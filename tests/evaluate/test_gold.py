"""Gold from a structured twin: blocks placed in a parse (exact, anchored, missing), every parse, cut
and answer score on small hand-made twins whose right answer is known, the gold file, the commands,
and the real pairs the benchmark tunes on."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.errors import InputError
from chunkbench.evaluate.benchmark import baseline
from chunkbench.evaluate.gold import Gold, make_gold
from chunkbench.evaluate.gold.align import align
from chunkbench.evaluate.gold.answers import gold_case, score_on_gold
from chunkbench.evaluate.gold.blocks import twin_blocks
from chunkbench.evaluate.gold.cuts import cut_scores
from chunkbench.evaluate.gold.disagree import disagreements
from chunkbench.evaluate.gold.parse import parse_scores
from chunkbench.evaluate.gold.questions import GoldQuestion, giveaway, make_questions
from chunkbench.evaluate.retrieval import RetrievalUnit
from chunkbench.loaders.htmldoc import load_html
from chunkbench.ui.cli import main as cli
from tests.support.documents import make_doc
from tests.support.extras import examples
from tests.support.paths import twin_pair
from tests.support.twins import TABLE_ROWS, twin_html, twin_pdf

#: a twin written by hand: four headings, a lead-in and its list, a table with a header row, a note,
#: a definition, a footnote and two paragraphs of one section
TWIN = """<html><body>
<h1>Guide</h1>
<h2>1 Setup</h2>
<p>Install the package before anything else happens on the machine.</p>
<p>You need the following:</p>
<ul><li>a compiler for the C language</li><li>the make build tool</li><li>two gigabytes of disk</li></ul>
<h3>1.1 Flags</h3>
<table><thead><tr><th>Flag</th><th>Meaning</th></tr></thead>
<tbody><tr><td>--fast</td><td>skips every check</td></tr><tr><td>--slow</td><td>runs each check twice</td></tr></tbody></table>
<div class="admonition note"><p class="admonition-title">Note</p><p>Flags can be combined freely.</p></div>
<h2>2 Usage</h2>
<dl><dt>build</dt><dd><p>compiles every source file of the whole project tree</p></dd></dl>
<p>Run the tool from the top folder of the project where its settings live.<sup>1</sup></p>
<p>The second paragraph of usage explains the output files and their names.</p>
<aside class="footnote-list"><aside class="footnote"><span class="label">1</span>
<p>The top folder holds the configuration file.</p></aside></aside>
</body></html>"""

#: a parse of the same document with known faults: the third item read as a paragraph, "1.1 Flags"
#: as a paragraph, the note's title as a heading, "2 Usage" one level too high, a cell's letters moved
#: into its neighbour, the two usage paragraphs swapped, page furniture in between
PARSE = [
    {"type": "header", "text": "Guide - draft"},
    {"type": "heading", "text": "Guide", "text_level": 1},
    {"type": "heading", "text": "1 Setup", "text_level": 2},
    {"type": "paragraph", "text": "Install the package before anything else happens on the machine."},
    {"type": "paragraph", "text": "You need the following:"},
    {"type": "list", "text": "• a compiler for the C language\n• the make build tool"},
    {"type": "paragraph", "text": "two gigabytes of disk"},
    {"type": "paragraph", "text": "1.1 Flags"},
    {"type": "table", "text": "| Flag | Meaning |\n|---|---|\n| --fast | skips every check |\n| --slo | w runs each check twice |",
     "rows": [["Flag", "Meaning"], ["--fast", "skips every check"], ["--slo", "w runs each check twice"]]},
    {"type": "page_number", "text": "1"},
    {"type": "heading", "text": "Note", "text_level": 3},
    {"type": "paragraph", "text": "Flags can be combined freely."},
    {"type": "heading", "text": "2 Usage", "text_level": 1},
    {"type": "paragraph", "text": "build compiles every source file of the whole project tree"},
    {"type": "paragraph", "text": "The second paragraph of usage explains the output files and their names."},
    {"type": "paragraph", "text": "Run the tool from the top folder of the project where its settings live. 1"},
    {"type": "footnote", "text": "1 The top folder holds the configuration file."},
]


@pytest.fixture(scope="module")
def twin(tmp_path_factory):
    path = tmp_path_factory.mktemp("twin") / "guide.html"
    path.write_text(TWIN, "utf-8")
    return load_html(path)


@pytest.fixture(scope="module")
def parsed():
    return make_doc(PARSE, source="guide.pdf")


@pytest.fixture(scope="module")
def gold(parsed, twin):
    return make_gold(parsed, [twin])


def block(gold, text):
    return next(b for b in gold.blocks if b.text == text)


def span_of(doc, text):
    at = doc.text.index(text)
    return at, at + len(text)


def test_every_block_of_the_hand_made_twin_is_placed_where_it_is(gold, parsed):
    assert gold.summary()["located"] == 1.0
    kinds = [b.kind for b in gold.blocks]
    assert kinds == ["heading", "heading", "paragraph", "paragraph", "list", "item", "item", "item", "heading",
                     "table", "row", "row", "row", "note_title", "paragraph", "heading", "term", "description",
                     "paragraph", "paragraph", "footnote"]
    for b in gold.leaves:
        assert b.status in ("exact", "anchored")
        if b.kind != "row":  # a row's cells are apart in the parse's pipe table
            placed = "".join(ch for ch in parsed.text[b.start:b.end].casefold() if ch.isalnum())
            assert placed == "".join(ch for ch in b.text.casefold() if ch.isalnum()), b
    assert block(gold, "1.1 Flags").section == (block(gold, "Guide").id, block(gold, "1 Setup").id)


def test_parse_scores_of_the_hand_made_twin(gold, parsed):
    s = parse_scores(parsed, gold)
    assert s["located"] == 1.0 and s["text_coverage"] == 1.0
    assert s["heading_recall"] == 0.75  # "1.1 Flags" is a paragraph: 3 of 4
    assert s["heading_precision"] == 0.75  # "Note" is no heading of the twin: 3 of the parse's 4
    assert s["note_titles_as_headings"] == 1.0
    # matched headings Guide(1) 1 Setup(2) 2 Usage(2) against 1, 2, 1: the second pair compares otherwise
    assert s["level_agreement"] == 0.5
    assert s["table_recall"] == 1.0 and s["table_precision"] == 1.0 and s["header_rows_kept"] == 1.0
    assert s["cell_accuracy"] == pytest.approx(4 / 6, abs=1e-4)  # "--slow" and its neighbour differ
    assert s["list_items"] == pytest.approx(2 / 3, abs=1e-4)  # the third item is a paragraph
    # 15 placed blocks in flow (footnote and rows aside), one pair swapped
    assert s["reading_order"] == pytest.approx(1 - 1 / (15 * 14 // 2), abs=1e-4)


def test_disagreements_name_each_fault_where_it_is(gold, parsed):
    found = {(d.code, parsed.text[d.start:d.end][:20]) for d in disagreements(parsed, gold)}
    assert found == {
        ("missed_heading", "1.1 Flags"), ("extra_heading", "Note"), ("wrong_level", "2 Usage"),
        ("cell_differs", "slo | w runs each ch"), ("out_of_order", "The second paragraph"),
    }


def unit(doc, start: int, end: int, section=()):
    return RetrievalUnit(doc.text[start:end], start, end, frozenset(), section=section)


def test_cut_scores_of_hand_made_cuts(gold, parsed):
    """Three chunks: [start, middle of the first paragraph), [there, start of the list), [list, end).
    The paragraph is cut, the lead-in is apart from its list, the last chunk runs over 1.1 and 2."""
    text = parsed.text
    install = span_of(parsed, "Install the package before anything else happens on the machine.")
    lst = span_of(parsed, "• a compiler")
    cut = install[0] + 20
    units = [unit(parsed, 0, cut, ("Guide", "1 Setup")), unit(parsed, cut, lst[0], ("Guide", "1 Setup")),
             unit(parsed, lst[0], len(text), ("Guide", "1 Setup"))]
    s = cut_scores(gold, text, units)
    paragraphs = 5  # Install, lead-in, Flags can be combined, Run, The second (the description and footnote too: 7)
    assert s["paragraphs_cut"] == pytest.approx(1 / (paragraphs + 2), abs=1e-4)
    assert s["items_cut"] == 0.0 and s["rows_cut"] == 0.0
    assert s["rows_without_header"] == 0.0  # the last chunk holds the table whole
    assert s["leadins_apart"] == 1.0
    # the first starts at the document's start: its "1 Setup" heading comes after "Guide"; the last holds 1.1 and 2
    assert s["chunks_crossing_sections"] == pytest.approx(2 / 3, abs=1e-4)
    # first chunk starts at "Guide" (twin: Guide): its path ends in 1 Setup; second's first block is in 1 Setup
    assert s["section_paths_agree"] == pytest.approx(2 / 3, abs=1e-4)
    whole = cut_scores(gold, text, [unit(parsed, 0, len(text))])
    assert whole["paragraphs_cut"] == 0.0 and whole["leadins_apart"] == 0.0 and whole["items_cut"] == 0.0


def test_a_table_row_apart_from_its_header_and_a_cut_row(gold, parsed):
    text = parsed.text
    row = span_of(parsed, "| --slo | w runs each check twice |")
    units = [unit(parsed, 0, row[0] + 5), unit(parsed, row[0] + 5, len(text))]
    s = cut_scores(gold, text, units)
    assert s["rows_cut"] == pytest.approx(1 / 3, abs=1e-4)
    assert s["rows_without_header"] == pytest.approx(0.0)  # the row starts in the chunk that holds the header
    units = [unit(parsed, 0, row[0]), unit(parsed, row[0], len(text))]
    assert cut_scores(gold, text, units)["rows_without_header"] == 0.5  # --slow's chunk lacks "Flag Meaning"


def test_questions_of_every_kind_with_their_evidence(gold):
    questions = make_questions(gold)
    by_kind = {}
    for q in questions:
        by_kind.setdefault(q.kind, []).append(q)
    assert sorted(by_kind) == ["definition", "footnote", "list_all", "passage", "section", "table_cell"]
    assert [q.question for q in by_kind["table_cell"]] == ["In the row for --fast, what is the Meaning?",
                                                           "In the row for --slow, what is the Meaning?"]
    assert [gold.block(i).text for i in by_kind["table_cell"][0].evidence] == ["Flag Meaning", "--fast skips every check"]
    assert [gold.block(i).kind for i in by_kind["list_all"][0].evidence] == ["item"] * 3
    assert by_kind["definition"][0].question == "What does build mean?"
    assert [gold.block(i).kind for i in by_kind["definition"][0].evidence] == ["term", "description"]
    heading_words, leadin_words = {"guide", "setup", "flags", "usage"}, {"need", "following"}
    for q in questions:
        words = set(q.question.casefold().replace("?", "").replace(",", "").split())
        if q.kind in ("list_all", "section", "passage", "footnote"):
            assert not heading_words & words, q
        if q.kind == "list_all":  # the lead-in above the list is no more a source of words than a heading
            assert not leadin_words & words, q
    assert giveaway(gold, questions) == 0.0
    assert make_questions(gold) == questions  # the same questions every run
    assert len({q.id for q in questions}) == len(questions)


def test_the_sentence_phrasing_asks_for_the_same_evidence_with_a_run_of_its_words(gold):
    """`sentence`: the same evidence as `keywords`, asked with consecutive words of one of its sentences
    (a person half remembering the passage), never the heading's; cells and definitions asked alike."""
    keywords = {q.id: q for q in make_questions(gold)}
    sentence = make_questions(gold, phrasing="sentence")
    assert sentence == make_questions(gold, phrasing="sentence")  # the same every run
    assert {q.kind for q in sentence} == {q.kind for q in keywords.values()}
    for q in sentence:
        if q.kind in ("table_cell", "definition"):
            assert q == keywords[q.id]
            continue
        run = re.fullmatch(r".*? (?:says|about) (.+)\?", q.question).group(1)
        assert 5 <= len(run.split()) <= 12, q
        assert any(run in " ".join(gold.block(i).text.split()) for i in q.evidence), q  # the evidence's own words, in order
        assert q.question != keywords.get(q.id, q).question
        assert not {"guide", "setup", "flags", "usage"} & set(run.casefold().split()), q
    with pytest.raises(ValueError, match="phrasing"):
        make_questions(gold, phrasing="poetry")


def test_giveaway_counts_questions_the_heading_words_alone_find(gold):
    usage = block(gold, "2 Usage")
    run = block(gold, "Run the tool from the top folder of the project where its settings live.1")
    assert run.section[-1] == usage.id
    assert giveaway(gold, [GoldQuestion("section", "What is said about usage?", (run.id,))]) == 1.0
    assert giveaway(gold, [GoldQuestion("section", "What is said about folder and settings?", (run.id,))]) == 0.0


def test_recall_per_kind_is_the_evidence_inside_what_is_sent(gold, parsed):
    case = gold_case(parsed, gold)
    one = score_on_gold(baseline(100_000), [case])  # the whole document as one unit
    assert one["units"] == 1
    assert all(one["recall"][kind]["500"] == 1.0 for kind, n in one["questions"].items() if n), one["recall"]


def test_gold_file_round_trip_and_bad_files(gold, parsed, tmp_path):
    path = gold.write(tmp_path / "gold.json")
    back = Gold.read(path)
    assert back == gold and back.fits(parsed) and back.for_document(parsed) is back
    data = json.loads(path.read_text("utf-8"))
    assert data["format"] == "chunkbench.gold/1" and data["summary"]["located"] == 1.0
    for bad, problem in [({"format": "other"}, "not a gold file"),
                         ({**data, "blocks": [{**data["blocks"][0], "status": "perhaps"}]}, "unknown status"),
                         ({**data, "blocks": [{**data["blocks"][1], "section": ["g99"]}]}, "does not come before"),
                         ({**data, "blocks": [{**data["blocks"][0], "start": "x"}]}, "malformed gold file")]:
        (tmp_path / "bad.json").write_text(json.dumps(bad), "utf-8")
        with pytest.raises(InputError, match=problem):
            Gold.read(tmp_path / "bad.json")


def test_gold_made_on_one_parse_is_placed_again_in_another(gold, parsed):
    other = make_doc([{"type": "paragraph", "text": "A preface the other parser kept."}, *PARSE[1:]], source="guide.pdf")
    moved = gold.for_document(other)
    assert moved is not gold and moved.fits(other) and moved.summary()["located"] == 1.0
    assert parse_scores(other, gold) == parse_scores(other, moved)


def test_a_twin_of_another_document_is_an_input_error_naming_both(parsed, tmp_path):
    path = tmp_path / "other.html"
    path.write_text("<p>" + " ".join(f"word{n}" for n in range(80)) + "</p><h2>Elsewhere</h2><p>Nothing alike.</p>")
    with pytest.raises(InputError, match=r"other.html is not a twin of guide.pdf: only 0% of its blocks"):
        cb.gold(parsed, path)


def test_a_table_split_over_two_pages(tmp_path):
    """The twin's table of a header and four rows, printed over two pages: the parse has two tables,
    the second without the header. The table is found, its cells right but for one, the header row is
    a header row; chunks cut at the page break leave the second page's rows without their header
    unless the chunker repeats it."""
    twin = twin_doc(tmp_path, "<h2>Limits</h2><p>The limits of every plan are listed below.</p><table><thead>"
                              "<tr><th>Plan</th><th>Users</th></tr></thead><tbody><tr><td>basic</td><td>5</td></tr>"
                              "<tr><td>team</td><td>50</td></tr><tr><td>business</td><td>500</td></tr>"
                              "<tr><td>enterprise</td><td>5000</td></tr></tbody></table>")
    first = [["Plan", "Users"], ["basic", "5"], ["team", "50"]]
    second = [["business", "500"], ["enter", "prise 5000"]]  # letters moved into the neighbouring cell
    doc = make_doc([
        {"type": "heading", "text": "Limits", "text_level": 2, "page_idx": 0},
        {"type": "paragraph", "text": "The limits of every plan are listed below.", "page_idx": 0},
        {"type": "table", "text": "| Plan | Users |\n|---|---|\n| basic | 5 |\n| team | 50 |", "rows": first, "page_idx": 0},
        {"type": "page_number", "text": "1", "page_idx": 0},
        {"type": "table", "text": "| business | 500 |\n|---|---|\n| enter | prise 5000 |", "rows": second, "page_idx": 1},
    ])
    gold = make_gold(doc, [twin])
    assert all(b.located for b in gold.leaves)
    s = parse_scores(doc, gold)
    assert s["table_recall"] == 1.0 and s["table_precision"] == 1.0 and s["header_rows_kept"] == 1.0
    assert s["cell_accuracy"] == pytest.approx(8 / 10)  # "enter | prise 5000": both cells of that row differ
    page_two = doc.text.index("| business")
    apart = cut_scores(gold, doc.text, [unit(doc, 0, page_two), unit(doc, page_two, len(doc.text))])
    assert apart["rows_without_header"] == 0.5 and apart["rows_cut"] == 0.0
    repeated = RetrievalUnit("Plan Users\n" + doc.text[page_two:], page_two, len(doc.text), frozenset())
    kept = cut_scores(gold, doc.text, [unit(doc, 0, page_two), repeated])
    assert kept["rows_without_header"] == 0.0  # a chunker that repeats the header keeps it with its rows
    assert kept["leadins_apart"] == 0.0


def test_gold_of_the_default_parse_scores_the_docling_document_docling_core_writes(frobnicator):
    """Gold made on one parse scores another parse of the same PDF: the DoclingDocument docling-core
    builds from it (io.docling_doc) and saves, loaded back by the Docling loader; its canonical text is
    the default parse's, so the places hold as they are; placed anew they are the same."""
    from chunkbench.io.docling_doc import to_docling

    pdf, html = frobnicator
    doc = cb.load(pdf)
    gold = cb.gold(doc, html)
    path = pdf.with_suffix(".docling.json")
    to_docling(doc).document.save_as_json(path)
    docling = cb.load(path, pdf=pdf)
    assert docling.parser.name == "docling" and gold.fits(docling) and gold.for_document(docling) is gold
    again = make_gold(docling, [cb.load(html)])
    assert [(b.status, b.start, b.end) for b in again.blocks] == [(b.status, b.start, b.end) for b in gold.blocks]
    assert parse_scores(docling, gold) == parse_scores(docling, again)


# --- placing: the cases print makes -----------------------------------------------------------------


def twin_doc(tmp_path, body: str):
    path = tmp_path / "t.html"
    path.write_text(f"<html><body>{body}</body></html>", "utf-8")
    return load_html(path)


def test_placed_despite_what_print_adds(tmp_path):
    twin = twin_doc(tmp_path, """<h2>2.1 Basic types</h2>
        <p>The easiest form of data to import is a simple text file, read by the scan function for problems of
        small or medium scale, as discussed in Spreadsheet-like data.</p>
        <p>A paragraph that the printed version never had at all, in any form whatsoever.</p>
        <p>Packages foreign and haven read the formats after which they are named, from other systems.</p>
        <table><tr><th>Flag</th><th>Meaning</th></tr><tr><td>--fast</td><td>skips every check</td></tr></table>
        <p>After the table comes the last paragraph of the section, quite long enough to be unique.</p>""")
    doc = make_doc([
        {"type": "heading", "text": "Basic types", "text_level": 2},  # numbers dropped in print
        {"type": "table", "text": "| Flag | Meaning |\n|---|---|\n| --fast | skips every check |"},  # floated up
        {"type": "paragraph", "text": "The easiest form of data to import is a simple text file, read by the "
                                      "scan function for problems of"},
        {"type": "header", "text": "R Data Import/Export"},  # a running header between the halves
        {"type": "paragraph", "text": "small or medium scale, as discussed in Chapter 2 [Spreadsheet-like data], "
                                      "page 8."},
        {"type": "paragraph", "text": "Packages foreign (https://CRAN.R-project.org/package=foreign) and haven "
                                      "read the formats after which they are named, from other systems."},
        {"type": "paragraph", "text": "After the table comes the last paragraph of the section, quite long "
                                      "enough to be unique."},
    ])
    placed = {b.text[:20]: b for b in align(doc, twin_blocks([twin]))}
    assert placed["2.1 Basic types"].status == "exact"
    assert placed["The easiest form of "].status == "anchored"  # its end differs: "Chapter 2 [...], page 8"
    assert placed["A paragraph that the"].status == "missing"
    assert placed["Packages foreign and"].status == "anchored" and placed["Packages foreign and"].similarity >= 0.8
    assert placed["Flag Meaning"].status == "exact" and placed["--fast skips every c"].status == "exact"
    assert placed["After the table come"].status == "exact"


def test_a_short_block_counts_only_where_it_starts_a_line(tmp_path):
    twin = twin_doc(tmp_path, '<div class="note"><p class="admonition-title">Note</p><p>Keep copies of the '
                              'configuration somewhere safe before upgrading.</p></div>')
    inside = make_doc([{"type": "paragraph", "text": "A Notebook of Keep copies of the configuration somewhere safe "
                                                     "before upgrading."}])
    title = next(b for b in align(inside, twin_blocks([twin])) if b.kind == "note_title")
    assert title.status == "missing"
    alone = make_doc([{"type": "heading", "text": "Note"},
                      {"type": "paragraph", "text": "Keep copies of the configuration somewhere safe before upgrading."}])
    assert next(b for b in align(alone, twin_blocks([twin])) if b.kind == "note_title").status == "exact"


_WORD = st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)


@settings(max_examples=examples(30))
@given(st.lists(st.lists(_WORD, min_size=6, max_size=30), min_size=1, max_size=12), st.data())
def test_a_parse_of_the_same_paragraphs_places_every_one(paragraphs, data):
    """However print wraps, hyphenates and capitalises the twin's paragraphs, and whatever page
    furniture falls between them, each is placed, in order, where its letters are."""
    from html import escape
    from tempfile import TemporaryDirectory

    texts = [" ".join(words) for words in paragraphs]
    elements = []
    for n, text in enumerate(texts):
        cut = data.draw(st.integers(0, len(text)))
        printed = text[:cut] + data.draw(st.sampled_from(["", "-\n", "\n", "  "])) + text[cut:]
        if data.draw(st.booleans()):
            printed = printed.upper()
        elements.append({"type": "paragraph", "text": printed})
        if data.draw(st.booleans()):
            elements.append({"type": "page_number", "text": str(n + 1)})
    doc = make_doc(elements)
    with TemporaryDirectory() as folder:
        path = Path(folder) / "t.html"
        path.write_text("<html><body>" + "".join(f"<p>{escape(t)}</p>" for t in texts) + "</body></html>", "utf-8")
        twin = load_html(path)
    blocks = align(doc, twin_blocks([twin]))
    assert all(b.located for b in blocks), [b for b in blocks if not b.located]
    starts = [b.start for b in blocks]
    assert starts == sorted(starts)
    for b in blocks:
        placed = "".join(ch for ch in doc.text[b.start:b.end].casefold() if ch.isalnum())
        assert placed == "".join(ch for ch in b.text if ch.isalnum())


# --- end to end: a PDF laid out from the twin, the commands, the real pairs ------------------------------


@pytest.fixture(scope="module")
def frobnicator(tmp_path_factory):
    folder = tmp_path_factory.mktemp("frob")
    return twin_pdf(folder / "frobnicator.pdf"), twin_html(folder / "frobnicator.html")


def test_a_pdf_laid_out_from_its_twin_is_placed_whole(frobnicator, tmp_path, capsys):
    """The default parse of a PDF laid out from the twin: every block placed, the table that runs over
    two pages found with its rows and header, questions of every kind, none given away."""
    pdf, html = frobnicator
    out = tmp_path / "gold.json"
    assert cli(["gold", str(pdf), str(html), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "100.0% placed" in printed and "heading_recall" in printed and f"wrote {out}" in printed
    gold = Gold.read(out)
    rows = [b for b in gold.blocks if b.kind == "row"]
    assert len(rows) == TABLE_ROWS + 1 and all(r.located for r in rows) and rows[0].header
    scores = parse_scores(cb.load(pdf), gold)
    assert scores["table_recall"] == 1.0 and scores["list_items"] == 1.0 and scores["reading_order"] == 1.0
    case = gold_case(cb.load(pdf), gold)
    assert {q.kind for q in case.questions} == {"table_cell", "list_all", "section", "definition", "footnote",
                                                 "passage"}
    assert case.giveaway < 0.1


def test_evaluate_render_and_sweep_take_the_gold(frobnicator, tmp_path, capsys):
    pdf, html = frobnicator
    gold_path = tmp_path / "gold.json"
    cb.gold(pdf, html).write(gold_path)
    assert cli(["evaluate", str(pdf), "--gold", str(gold_path), "--strategy", "sections", "-o", str(tmp_path / "ev")]) == 0
    out = capsys.readouterr().out
    assert "Parse against the twin" in out and "Recall at 1,000 tokens per question kind" in out
    assert "| sections |" in out and "langchain:RecursiveCharacterTextSplitter" in out
    saved = json.loads((tmp_path / "ev" / "gold_evaluation.json").read_text("utf-8"))
    assert saved["results"]["bm25"][0]["setting"] == "sections" and saved["giveaway"] < 0.1
    assert cli(["render", str(pdf), "--gold", str(gold_path), "--pages", "2", "-o", str(tmp_path / "r")]) == 0
    report = (tmp_path / "r" / "index.html").read_text("utf-8")
    assert "place(s) where the parse and the structured twin disagree" in report and "extra_heading" in report
    assert cli(["sweep", str(pdf), "--gold", str(gold_path), "--grid", "strategy=sections,recursive",
                "--notebooks", "none", "--jobs", "1", "--no-progress", "-o", str(tmp_path / "sw")]) == 0
    capsys.readouterr()
    import pandas as pd

    df = pd.read_csv(tmp_path / "sw" / "results.csv")
    assert {"gold_paragraphs_cut", "gold_section_recall_at_1000", "gold_list_all_recall_at_2000"} <= set(df.columns)
    assert df["gold_section_paths_agree"].notna().all()


def test_evaluate_gold_needs_one_gold_per_input(frobnicator, tmp_path, capsys):
    pdf, html = frobnicator
    gold_path = cb.gold(pdf, html).write(tmp_path / "gold.json")
    assert cli(["evaluate", str(pdf), str(pdf), "--gold", str(gold_path)]) == 2
    assert "one gold file per INPUT" in capsys.readouterr().err
    assert cli(["gold", str(pdf), str(pdf)]) == 2
    assert "a twin is the structured form" in capsys.readouterr().err


def test_a_real_manual_and_its_html(tmp_path):
    """R Data Import/Export (Texinfo): at least 95% of the twin's blocks placed in the default parse."""
    pdf, html = twin_pair("R-data")
    gold = cb.gold(pdf, html)
    assert gold.summary()["located"] >= 0.95
    scores = parse_scores(cb.load(pdf), gold)
    assert scores["reading_order"] >= 0.99 and scores["heading_recall"] >= 0.9
    assert gold_case(cb.load(pdf), gold).giveaway < 0.1
