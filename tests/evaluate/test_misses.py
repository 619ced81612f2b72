"""A retrieval miss points at the cut that caused it (evaluate/misses.py, ui/misses.py)."""

from __future__ import annotations

import json

import pytest

import chunkbench as cb
from chunkbench.evaluate.misses import NOT_SPLIT, cause_table, find_misses
from chunkbench.evaluate.retrieval import Evidence, Question
from chunkbench.ui.cli import main
from chunkbench.ui.misses import MissesView
from tests.support.browser import CHROMIUM, chromium
from tests.support.corpora import CORPUS
from tests.support.documents import make_doc
from tests.support.paths import shared_pdf

SENTENCES = ["The pump must be primed before the first start.", "Open the vent screw until water runs out.",
             "Then close it firmly by hand."]


def _doc():
    return make_doc([{"type": "paragraph", "text": " ".join(SENTENCES)},
                     {"type": "paragraph", "text": "Warranty claims go to the dealer who sold the pump."}])


QUESTION = Question("q1", "How do I prime the pump vent screw before the first start?",
                    (Evidence(None, " ".join(SENTENCES[:2])),))


def test_a_cut_inside_the_evidence_is_the_cause_of_the_miss():
    doc = _doc()
    cut = cb.chunk(doc, "sentences", join_dependent=False, min_chars=0)  # one chunk per sentence
    (miss,) = find_misses(cut, [QUESTION], token_k=1)
    assert miss.token_recall < 1 and miss.cause == "sentence_split"
    (c,) = miss.cuts
    assert doc.text[c.position:].startswith(SENTENCES[1]) and cut.chunks[c.chunk_index].start_char == c.position
    assert len(miss.retrieved) == 1 and set(miss.holding) == {0, 1}
    assert cause_table([miss]) == [{"cause": "sentence_split", "misses": 1, "share": 1.0}]
    whole = cb.chunk(doc, "recursive", chunk_size=1000)  # the evidence in one chunk, retrieved first
    assert find_misses(whole, [QUESTION], token_k=1) == []


def test_evidence_in_one_chunk_ranked_too_low_is_a_ranking_miss():
    doc = make_doc([{"type": "paragraph", "text": " ".join(SENTENCES), "page_idx": 0},
                    {"type": "paragraph", "text": "Warranty claims go to the dealer who sold the pump.", "page_idx": 1}])
    cs = cb.chunk(doc, "elements")  # a chunk per page
    q = Question("q2", "Where do warranty claims go?", (Evidence(None, SENTENCES[2]),))  # shares no word
    (miss,) = find_misses(cs, [q], token_k=1)
    assert miss.cause == NOT_SPLIT and not miss.cuts and miss.holding == (0,) and miss.retrieved == (1,)


def test_the_real_corpus_misses_are_explained_by_cuts_inside_their_evidence():
    cases = {"sotu": (cb.load(CORPUS / "sotu_2024.txt"), CORPUS / "sotu_2024.questions.json")}
    doc, questions = cases["sotu"]
    cs = cb.chunk(doc, "recursive", chunk_size=150)
    misses = find_misses(cs, questions)
    assert misses
    for m in misses:
        assert all(any(a < c.position < b for a, b in m.spans) for c in m.cuts)
        assert all(m.cuts[i].position < m.cuts[i + 1].position for i in range(len(m.cuts) - 1))
        assert len(m.retrieved) <= 5 and m.holding and m.token_recall < 1  # BM25 may retrieve nothing
        assert m.cause == (m.cuts[0].reason if m.cuts else NOT_SPLIT)
    assert sum(r["misses"] for r in cause_table(misses)) == len(misses)
    view = MissesView(cs, questions, limit=2)
    page = view._repr_html_()
    assert page.count('<section class="miss"') == 2 and f"{len(misses)} of 32 questions missed" in page
    assert list(view.table()["misses"]) == [r["misses"] for r in cause_table(misses)]


def test_evaluate_writes_the_misses_report_and_counts_causes(tmp_path, capsys):
    pdf = shared_pdf("req_federal-register-2020-17221.pdf")
    out = tmp_path / "ev"
    assert main(["evaluate", str(pdf), "--questions-dir", str(CORPUS), "--strategy", "recursive",
                 "--set", "chunk_size=200", "-o", str(out)]) == 0
    stdout = capsys.readouterr().out
    data = json.loads((out / "evaluation.json").read_text())
    misses = data["misses"]
    assert misses["setting"] == "recursive chunk_size=200" and misses["judged"] == 26 and misses["missed"] > 0
    assert f"misses: recursive chunk_size=200 misses {misses['missed']} of 26 questions" in stdout
    page = (out / "misses" / "index.html").read_text()
    assert page.count('<section class="miss"') == misses["missed"] and page.count("<img ") >= misses["missed"]
    for cause in misses["causes"]:
        assert f"<code>{cause['cause']}</code></td><td>{cause['misses']}</td>" in page
    assert len(list((out / "misses").glob("*.png"))) >= misses["missed"]
    assert main(["evaluate", str(pdf), "--questions-dir", str(CORPUS), "--strategy", "recursive", "-o",
                 str(tmp_path / "x"), "--misses", "nope"]) == 2
    assert "--misses 'nope' is not a setting" in capsys.readouterr().err


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed (make browser)")
def test_the_misses_report_in_a_browser(tmp_path):
    """The page pictures load, the evidence is marked in the text with each cut, and a question's
    text that looks like markup stays text."""
    pdf = shared_pdf("req_federal-register-2020-17221.pdf")
    rows = json.loads((CORPUS / "req_federal-register-2020-17221.questions.json").read_text())
    rows[1]["question"] = "<img src=x onerror=alert(1)> " + rows[1]["question"]
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps(rows))
    out = tmp_path / "ev"
    assert main(["evaluate", str(pdf), "--questions", str(qfile), "--strategy", "recursive", "--set",
                 "chunk_size=200", "-o", str(out)]) == 0
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto((out / "misses" / "index.html").as_uri())
        pics = page.locator(".miss .pages img")
        assert pics.count() > 0
        pics.first.scroll_into_view_if_needed()
        page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=pics.first.element_handle())
        assert page.locator(".evidence .cut").count() > 0 and page.locator("table.causes tr").count() >= 2
        page.screenshot(path=str(tmp_path / "misses.png"))
    assert dialogs == []


def test_the_misses_of_an_evaluation_reuse_its_ranking_and_equal_a_ranking_done_again(monkeypatch):
    from chunkbench.evaluate import benchmark
    from chunkbench.evaluate.benchmark import Setting, baseline, compare_retrievers, find_cases, misses_of

    cases = find_cases([CORPUS / "sqlite_how_to_corrupt.md", CORPUS / "sotu_2024.txt"])
    setting = Setting("recursive", {"chunk_size": 200, "index_context": 1, "index_headings": True})
    scored: dict = {}
    compare_retrievers(cases, [setting], baseline(), questions_out=scored)
    kept = misses_of(setting, cases, scored=scored["bm25"][setting.name])
    again = misses_of(setting, cases)
    assert [ms for _, ms, _ in kept] == [ms for _, ms, _ in again] and all(ms for _, ms, _ in kept)
    ranked = []
    monkeypatch.setattr("chunkbench.evaluate.misses.evaluate", lambda *a, **k: ranked.append(1) or benchmark.evaluate(*a, **k))
    misses_of(setting, cases, scored=scored["bm25"][setting.name])
    assert not ranked  # the rows were enough: nothing was ranked again
    misses_of(setting, cases)
    assert len(ranked) == len(cases)
