"""Like with like in `chunkbench evaluate`: an indexed setting is printed beside the
splitter indexed alike, and a corpus can be searched pooled, as Chroma's benchmark does."""

from __future__ import annotations

from chunkbench.app.defaults import RETRIEVAL_DEFAULT
from chunkbench.evaluate.benchmark import (
    PROTOCOLS,
    Setting,
    baseline,
    compare_settings,
    equally_indexed,
    find_cases,
    format_report,
    score_questions,
)
from chunkbench.ui.cli import main
from tests.support.paths import ROOT

CORPUS = ROOT / "tests" / "data" / "retrieval"
TWO = [CORPUS / "us_constitution.txt", CORPUS / "sotu_2024.txt"]


def test_every_indexed_setting_is_followed_by_the_splitter_indexed_alike_once():
    plain = Setting("recursive", {"chunk_size": 300})
    alone = Setting("recursive", {"chunk_size": 300, "index_context": 1, "index_alone": True})
    small = Setting("recursive", {"chunk_size": 150, "index_context": 1})
    out = equally_indexed([small, plain, alone, Setting("recursive", {"chunk_size": 200, "index_context": 1}),
                           RETRIEVAL_DEFAULT], baseline(200))
    names = [s.name for s in out]
    context = baseline(200, index_context=1).name
    assert names == [small.name, context, plain.name, alone.name,
                     baseline(200, index_context=1, index_alone=True).name, "recursive chunk_size=200 index_context=1",
                     RETRIEVAL_DEFAULT.name, baseline(200, index_context=1, index_groups=1000).name]
    assert names.count(context) == 1


def test_a_pooled_search_can_retrieve_other_documents_and_never_scores_them():
    cases = find_cases(TWO)
    own, own_rows = score_questions(RETRIEVAL_DEFAULT, cases, 5, "bm25", None)
    pooled, pooled_rows = score_questions(RETRIEVAL_DEFAULT, cases, 5, "bm25", None, pooled=True)
    assert len(own_rows) == len(pooled_rows) == sum(len(c.resolved) for c in cases)
    assert pooled["units"] == own["units"]
    # more candidates for every question: never more recall, and some question loses a chunk to the other document
    assert pooled["recall@5"] <= own["recall@5"] and pooled["token_iou"] <= own["token_iou"]
    assert any(p["retrieved"] != o["retrieved"] for p, o in zip(pooled_rows, own_rows))
    # one document alone: the pooled search is its own search
    alone = find_cases(TWO[:1])
    assert score_questions(RETRIEVAL_DEFAULT, alone, 5, "bm25", None, pooled=True)[0] == \
        score_questions(RETRIEVAL_DEFAULT, alone, 5, "bm25", None)[0]


def test_the_report_names_its_protocol_and_what_the_cut_adds(capsys):
    cases = find_cases(TWO)
    result = compare_settings(cases, equally_indexed([RETRIEVAL_DEFAULT], baseline()), pooled=True)
    report = format_report(result)
    assert f"Protocol: {PROTOCOLS['pooled']}." in report
    if result["best"] == RETRIEVAL_DEFAULT.name:
        assert "the splitter indexed alike (the recipe without the cut)" in report
    assert main(["evaluate", *map(str, TWO), "--strategy", "recursive", "--set", "chunk_size=150",
                 "--set", "index_context=1"]) == 0
    out = capsys.readouterr().out
    assert f"Protocol: {PROTOCOLS['own']}." in out and "index_context=1 separators=sentences" in out
