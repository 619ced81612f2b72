"""Retrieval check: evidence location, BM25 ranking, recall@k / MRR / token-level P, R, IoU by hand."""

from __future__ import annotations

import json

import pytest

import chunkbench as cb
from chunkbench.errors import InputError
from chunkbench.evaluate import retrieval as R
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS, shared_pdf


def test_token_scores_by_hand():
    # retrieved 0-10 and 20-30 (20 chars), evidence 5-25 (20 chars): 5 + 5 = 10 chars in common
    p, r, iou = R.token_scores([(0, 10), (20, 30)], [(5, 25)])
    assert (p, r) == (0.5, 0.5)
    assert iou == pytest.approx(10 / (20 + 10))
    # overlapping retrieved chunks are stored twice: precision counts both (Chroma's measure)
    p, r, iou = R.token_scores([(0, 10), (5, 15)], [(0, 10)])
    assert (p, r, iou) == (10 / 20, 1.0, 10 / 20)
    assert R.token_scores([], [(0, 5)]) == (0.0, 0.0, 0.0)
    assert R.token_scores([(0, 5)], [(0, 5)]) == (1.0, 1.0, 1.0)


def test_the_space_between_two_abutting_retrieved_chunks_is_not_missed_evidence():
    text = "First sentence here. Second one there.  Third!"
    first, second, third = (0, 20), (21, 38), (40, 46)  # chunks as the strategies cut them: no spaces at the ends
    evidence = [(0, 38)]
    # ranges alone (Chroma's measure): the space at 20 is evidence no retrieved range holds
    assert R.token_scores([first, second], evidence)[1] == pytest.approx(37 / 38)
    # with the text, whitespace between two retrieved ranges counts as retrieved, in precision too
    assert R.token_scores([first, second], evidence, text) == (1.0, 1.0, 1.0)
    p, r, iou = R.token_scores([first, second, third], evidence, text)
    assert (r, p) == (1.0, 38 / 46) and iou == pytest.approx(38 / 46)
    # a gap holding text stays a gap, and a space next to one retrieved chunk only is not filled
    assert R.token_scores([first, third], evidence, text)[1] == pytest.approx(20 / 38)
    assert R.token_scores([(21, 38)], [(20, 38)], text)[1] == pytest.approx(17 / 18)
    # overlapping chunks are still counted twice in precision
    assert R.token_scores([(0, 10), (5, 15)], [(0, 10)], "x" * 20)[0] == 10 / 20


TINY = [
    "Cats purr softly on warm windowsills.",
    "Dogs bark loudly at the postman every morning.",
    "Cats and dogs sometimes play together.",
    "Parrots repeat words they hear.",
]


def tiny_doc():
    return make_doc([{"type": "paragraph", "text": t, "page_idx": n} for n, t in enumerate(TINY)])


def test_ranking_recall_and_mrr_on_a_tiny_corpus_by_hand():
    doc = tiny_doc()
    units = R.element_units(doc)
    ranker = R.make_ranker("bm25", [u.text for u in units])
    # "bark" only in unit 1; "dogs" in 1 and 2 → 1 first, then 2; 0 and 3 share no term
    assert ranker.rank("Why do dogs bark?") == [1, 2]
    assert ranker.rank("the of and") == []  # only stopwords
    assert ranker.rank("zebras") == []
    questions = [
        R.Question("q1", "Why do dogs bark?", (R.Evidence(None, "bark loudly at the postman"),)),
        # relevant: unit 2 ("play together"); "cats" ranks unit 0 and 2, "play" only 2 → 2 first
        R.Question("q2", "Do cats play?", (R.Evidence(None, "play together"),)),
        # relevant: unit 3 on page 4 (no text evidence); query matches unit 0 and 2 only
        R.Question("q3", "cats", (R.Evidence(4, None),)),
    ]
    resolved = R.resolve(doc, questions)
    assert resolved[0].spans == ((doc.text.index("bark loudly"), doc.text.index("bark loudly") + 26),)
    assert resolved[2].spans == () and resolved[2].pages == {4}
    summary, rows = R.evaluate(units, resolved, ks=(1, 3), token_k=1, text=doc.text)
    assert [r["first_relevant_rank"] for r in rows] == [1, 1, None]
    assert summary["recall@1"] == round(2 / 3, 4) and summary["recall@3"] == round(2 / 3, 4)
    assert summary["mrr"] == round((1 + 1 + 0) / 3, 4)
    # token scores only for questions with text evidence, over the top-1 unit
    e1 = doc.element("e1")
    assert rows[0]["token_precision"] == pytest.approx(26 / len(e1.text))
    assert rows[0]["token_recall"] == 1.0
    assert "token_iou" not in rows[2]
    assert summary["questions_used"] == 3
    # a ranker built before gives the same rows; one of another retriever or other units is refused
    assert R.evaluate(units, resolved, ks=(1, 3), token_k=1, text=doc.text, ranker=ranker)[1] == rows
    with pytest.raises(ValueError, match="a bm25 ranker over 4 units was given to score dense retrieval"):
        R.evaluate(units, resolved, retriever="dense", text=doc.text, ranker=ranker)
    with pytest.raises(ValueError, match="over 4 units was given to score bm25 retrieval of 3 units"):
        R.evaluate(units[:3], resolved, text=doc.text, ranker=ranker)


def test_second_rank_gives_half_reciprocal_rank():
    doc = tiny_doc()
    units = R.element_units(doc)
    q = R.Question("q", "dogs", (R.Evidence(None, "sometimes play together"),))  # unit 2; "dogs" ties 1 and 2
    summary, rows = R.evaluate(units, R.resolve(doc, [q]), text=doc.text)
    order = R.make_ranker("bm25", [u.text for u in units]).rank("dogs")
    assert set(order) == {1, 2}
    assert rows[0]["mrr"] == (1.0 if order[0] == 2 else 0.5)
    assert summary["recall@3"] == 1.0


def test_locate_ignores_whitespace_case_quotes_and_table_pipes():
    doc = make_doc([
        {"type": "paragraph", "text": "giving not  less than\nsixty (60) days’ written notice to the other", "page_idx": 0},
        {"type": "table", "text": "| Revenue | $ 46,298 | $ 51,761 |\n|---|---|---|\n| Cost of sales | 36,386 | 40,121 |",
         "page_idx": 1},
    ])
    norm = R.normalized_text(doc.text)
    spans, share = R.locate(norm, "Not less than sixty (60) days' written notice")
    assert share == 1.0 and doc.text[spans[0][0]:spans[0][1]].startswith("not  less") and doc.text[spans[0][1] - 6:spans[0][1]] == "notice"
    spans, share = R.locate(norm, "Revenue\n$\n 46,298 \n \n$\n 51,761 \nCost of sales\n 36,386")
    assert share == 1.0 and len(spans) == 1
    spans, share = R.locate(norm, "nothing like this appears anywhere in it")
    assert spans == [] and share == 0.0


def test_locate_finds_fragments_when_the_whole_is_not_verbatim():
    doc = make_doc([{"type": "paragraph", "text": "The first sentence is here. Unrelated words. The third sentence is here.", "page_idx": 0}])
    norm = R.normalized_text(doc.text)
    spans, share = R.locate(norm, "The first sentence is here.\nSomething the parser never saw.\nThe third sentence is here.")
    assert len(spans) == 2 and 0.5 < share < 1.0


def test_evidence_on_its_page_wins_over_an_earlier_occurrence():
    doc = make_doc([
        {"type": "paragraph", "text": "Net sales increased by ten percent.", "page_idx": 0},
        {"type": "paragraph", "text": "Net sales increased by ten percent.", "page_idx": 2},
    ])
    r = R.resolve(doc, [R.Question("q", "net sales", (R.Evidence(3, "net sales increased by ten percent"),))])[0]
    assert r.spans[0][0] == doc.element("e1").char_start


def test_baseline_units_carry_exact_offsets_and_pages():
    doc = tiny_doc()
    units = R.baseline_units(doc, 60)
    assert len(units) >= 3
    for u in units:
        assert doc.text[u.start:u.end] == u.text
        assert u.pages  # every piece lies on some page
    assert units[0].pages == {1}


def test_load_sample_question_files_every_sample_has_eight_or_more_all_found_on_their_page():
    for qfile in sorted(SAMPLE_PDFS.glob("*.questions.json")):
        pdf = qfile.with_name(qfile.name.replace(".questions.json", ".pdf"))
        doc = cb.load(pdf)
        questions = R.load_questions(qfile, doc)
        assert len(questions) >= 8, qfile
        pages = R.page_ranges(doc)
        for r in R.resolve(doc, questions):
            assert r.located == 1.0, (qfile.name, r.question.id)
            (page,) = r.pages
            lo, hi = pages[page]
            assert lo <= r.spans[0][0] < hi, (qfile.name, r.question.id)


def test_default_questions_path_prefers_the_sample_file(tmp_path):
    assert R.default_questions_path(SAMPLE_PDFS / "technical_manual.pdf") == SAMPLE_PDFS / "technical_manual.questions.json"
    assert R.default_questions_path(tmp_path / "x.pdf") is None
    (tmp_path / R.FINANCEBENCH_FILE).write_text("")
    assert R.default_questions_path(tmp_path / "x.pdf") == tmp_path / R.FINANCEBENCH_FILE


def test_financebench_names_and_zero_based_pages():
    assert R.matches_doc_name("BESTBUY_2023_10K", "financial_bestbuy-2023-10k.pdf")
    assert R.matches_doc_name("ULTABEAUTY_2023Q4_EARNINGS", "financial_ulta-2023q4-earnings.pdf")
    assert not R.matches_doc_name("BESTBUY_2023_10K", "financial_ulta-2023q4-earnings.pdf")
    assert not R.matches_doc_name("ULTABEAUTY_2023Q4_EARNINGS", "financial_bestbuy-2023-10k.pdf")


@pytest.mark.parametrize(("pdf", "count"), [("financial_ulta-2023q4-earnings.pdf", 4), ("financial_bestbuy-2023-10k.pdf", 3)])
def test_financebench_rows_of_the_shared_pdfs_are_located(pdf, count):
    path = shared_pdf(pdf)
    doc = cb.load(path)
    qfile = R.default_questions_path(path)
    assert qfile is not None and qfile.name == R.FINANCEBENCH_FILE
    questions = R.load_questions(qfile, doc)
    assert len(questions) == count
    rows = [json.loads(line) for line in qfile.read_text().splitlines()]
    first = next(r for r in rows if R.matches_doc_name(r["doc_name"], doc.source))
    assert questions[0].evidence[0].page == first["evidence"][0]["evidence_page_num"] + 1
    pages = R.page_ranges(doc)
    for r in R.resolve(doc, questions):
        assert r.located > 0.8, r.question.id
        (page,) = r.pages
        lo, hi = pages[page]
        assert lo <= r.spans[0][0] < hi  # found on the (1-based) evidence page


def test_bad_question_files_name_the_file(tmp_path):
    bad = tmp_path / "bad.questions.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="bad.questions.json"):
        R.load_questions(bad)
    bad.write_text(json.dumps([{"question": "q?", "evidence_page": 0}]))
    with pytest.raises(InputError, match="1-based"):
        R.load_questions(bad)
    bad.write_text(json.dumps([{"question": "q?"}]))
    with pytest.raises(InputError, match="neither"):
        R.load_questions(bad)
    with pytest.raises(InputError, match="cannot read"):
        R.load_questions(tmp_path / "missing.json")


def test_chunks_retrieve_better_than_raw_elements_on_the_samples():
    """specs/2: search improves vs raw blocks — measured on the four sample PDFs."""
    better = []
    for pdf in sorted(SAMPLE_PDFS.glob("*.pdf")):
        doc = cb.load(pdf)
        questions = R.load_questions(R.default_questions_path(pdf), doc)
        flat, details = R.retrieval_metrics(doc, cb.chunk(doc, "contract"), questions)
        assert flat["ret_questions"] == len(questions) == len(details["chunks"])
        better.append(flat["ret_chunks_mrr"] > flat["ret_elements_mrr"])
    assert all(better)


def test_combining_marks_and_ligatures_are_found():
    doc = make_doc([{"type": "paragraph", "text": "The cafe\u0301 serves ﬁne coffee to the naïve.", "page_idx": 0}])
    norm = R.normalized_text(doc.text)
    spans, share = R.locate(norm, "Café serves fine coffee")  # composed é, plain fi
    assert share == 1.0 and doc.text[spans[0][0]:spans[0][1]] == "cafe\u0301 serves ﬁne coffee"
    spans, share = R.locate(norm, "cafe\u0301 serves ﬁne")  # the document's own characters
    assert share == 1.0 and doc.text[spans[0][0]:spans[0][1]] == "cafe\u0301 serves ﬁne"
