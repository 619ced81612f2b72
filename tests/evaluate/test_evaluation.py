"""`chunkbench evaluate`: settings vs a recursive splitter on documents with reference spans."""

from __future__ import annotations

import json

import pytest

from chunkbench.app.defaults import default_settings
from chunkbench.errors import InputError, UsageError
from chunkbench.evaluate.benchmark import (
    BASELINE,
    Setting,
    baseline,
    compare_settings,
    find_cases,
    format_table,
    grid_settings,
    score_setting,
    summary_line,
    units_for,
)
from chunkbench.ui.cli import main
from tests.support.corpora import CORPUS, PARAGRAPHS, make_corpus
from tests.support.documents import make_doc
from tests.support.paths import TEST_DATA, shared_pdf


def test_units_are_the_settings_chunks_or_the_baseline_pieces(tmp_path):
    (case,) = find_cases([make_corpus(tmp_path / "c")])
    paragraph_units = units_for(Setting("recursive", {"chunk_size": 120}), case.doc)
    assert [u.text for u in paragraph_units] == PARAGRAPHS  # one paragraph per chunk at this size
    assert all(case.doc.text[u.start:u.end] == u.text for u in paragraph_units)
    pieces = units_for(baseline(50), case.doc)
    assert all(len(u.text) <= 50 and case.doc.text[u.start:u.end] == u.text for u in pieces)


def test_scores_pool_every_question_and_follow_the_token_measure(tmp_path):
    (case,) = find_cases([make_corpus(tmp_path / "c")])
    row = score_setting(Setting("recursive", {"chunk_size": 120}), [case])
    # three units, each question's evidence is exactly one of them, and every question shares the
    # word "keeper" with all three: each retrieves all three (top 5), so recall is 1 and
    # precision = IoU = evidence length / the length of the text they span (the blank lines
    # between abutting retrieved units count as retrieved)
    total = sum(map(len, PARAGRAPHS)) + 2 * len("\n\n")
    expected_iou = sum(len(p) / total for p in PARAGRAPHS) / 3
    assert row["questions"] == 3 and row["units"] == 3
    assert row["token_recall"] == 1.0 and row["recall@5"] == 1.0
    assert row["token_iou"] == pytest.approx(expected_iou, abs=1e-4)
    assert row["token_precision"] == row["token_iou"]
    # with one unit per question scored, the first BM25 hit is the right paragraph: IoU 1
    assert score_setting(Setting("recursive", {"chunk_size": 120}), [case], token_k=1)["token_iou"] == 1.0


def test_compare_marks_gains_against_the_baseline_and_picks_the_best_with_enough_recall(tmp_path):
    cases = find_cases([make_corpus(tmp_path / "c")])
    settings = [Setting("recursive", {"chunk_size": 120}), Setting("tokens", {"chunk_size": 5, "overlap": 0})]
    result = compare_settings(cases, settings, baseline(200), token_k=1)
    rows = {r["setting"]: r for r in result["rows"]}
    base = rows[result["baseline"]]
    assert result["rows"][0] is base and base["strategy"] == BASELINE and base["iou_gain"] == 0.0
    for r in result["rows"]:
        assert r["recall_ok"] == (r["token_recall"] >= base["token_recall"])
        if base["token_iou"]:
            assert r["iou_gain"] == pytest.approx(r["token_iou"] / base["token_iou"] - 1, abs=1e-3)
    eligible = [r for r in result["rows"][1:] if r["recall_ok"] and r["token_iou"] > base["token_iou"]]
    assert eligible and result["best"] == max(eligible, key=lambda r: r["token_iou"])["setting"]
    table = format_table(result)
    assert f"{result['best']} *" in table and table.count("\n") == len(result["rows"]) + 1
    assert summary_line(result).startswith(f"best: {result['best']}: token IoU")


def test_no_best_when_no_setting_reaches_the_baseline_recall(tmp_path):
    cases = find_cases([make_corpus(tmp_path / "c")])
    tiny = Setting("tokens", {"chunk_size": 2, "overlap": 0})  # 2-token units cannot cover a paragraph
    result = compare_settings(cases, [tiny], baseline(400), token_k=1)
    line = summary_line(result)
    assert result["best"] is None and line.startswith("no setting wins: none reached")
    row, base = result["rows"][1], result["rows"][0]
    short = 100 * (row["token_recall"] - base["token_recall"])
    assert short < 0 and f"; closest: {tiny.name}, recall {100 * row['token_recall']:.1f}% ({short:+.1f} pt, 95% CI" in line

    # a shortfall too small for one decimal is shown with two, never as "-0.0 pt"
    barely = {**row, "token_recall": base["token_recall"] - 0.0003}
    line = summary_line({**result, "rows": [base, barely]})
    assert "(-0.03 pt, 95% CI" in line and "-0.0 pt" not in line

def test_no_best_when_no_setting_has_more_iou_than_the_baseline(tmp_path):
    """A setting at the baseline's recall but with less IoU is not named best (the old
    line read "best: recursive chunk_size=300: token IoU 12.7% vs 16.0% (-21%)"); the summary
    says plainly that no setting wins, and which came closest."""
    cases = find_cases([make_corpus(tmp_path / "c")])
    whole = Setting("recursive", {"chunk_size": 2000})  # the whole corpus in one unit: all recall, little IoU
    result = compare_settings(cases, [whole], baseline(120), token_k=1)
    row = result["rows"][1]
    assert row["recall_ok"] and row["iou_gain"] < 0 and result["best"] is None
    line = summary_line(result)
    assert line.startswith("no setting wins: none has more token IoU than the baseline") and whole.name in line


def test_the_baseline_cuts_at_sentence_ends_like_chromas_splitter():
    """The default baseline is the strongest common splitter: LangChain's recursive splitter with
    sentence ends among its separators (as Chroma's RecursiveTokenChunker), the stop kept at the
    end of its sentence; `separators="langchain"` is LangChain's own, which never cuts there."""
    from chunkbench.evaluate.retrieval import baseline_units

    speech = " ".join((CORPUS / "sotu_2024.txt").read_text(encoding="utf-8").split())[:6000]  # no line breaks
    doc = make_doc([{"type": "paragraph", "text": speech, "page_idx": 0}])
    strong = baseline_units(doc, 200, separators="sentences")
    plain = baseline_units(doc, 200, separators="langchain")
    assert baseline(200).params["separators"] == "sentences"
    assert all(doc.text[u.start:u.end] == u.text for u in strong + plain)
    ends = sum(u.text.rstrip().endswith((".", "?", "!")) for u in strong)
    assert ends > sum(u.text.rstrip().endswith((".", "?", "!")) for u in plain)
    assert not any(u.text.startswith((".", "?", "!")) for u in strong)


def test_grid_and_default_settings():
    grid = grid_settings("recursive", {"unit": "chars"}, {"chunk_size": ["100", "200"], "strategy": ["recursive", "tokens"]})
    assert [(s.strategy, dict(s.params)) for s in grid] == [
        ("recursive", {"unit": "chars", "chunk_size": "100"}), ("tokens", {"unit": "chars", "chunk_size": "100"}),
        ("recursive", {"unit": "chars", "chunk_size": "200"}), ("tokens", {"unit": "chars", "chunk_size": "200"}),
    ]
    names = [s.name for s in default_settings()]
    assert len(names) == len(set(names)) and {s.strategy for s in default_settings()} >= {"recursive", "tokens"}


def test_inputs_without_questions_or_with_unfound_evidence_are_named(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    with pytest.raises(InputError, match="no document with a <stem>.questions.json"):
        find_cases([folder])
    lone = tmp_path / "lone.txt"
    lone.write_text("text", encoding="utf-8")
    with pytest.raises(InputError, match="lone.questions.json") as err:
        find_cases([lone])
    assert "lone.txt" in str(err.value)
    bad = make_corpus(tmp_path / "bad", questions=[{"id": "x1", "question": "q?", "evidence_text": "not in the text at all"}])
    with pytest.raises(InputError, match="x1") as err:
        find_cases([bad])
    assert "keeper.questions.json" in str(err.value)
    two = make_corpus(tmp_path / "two")
    make_corpus(two, name="other")
    with pytest.raises(UsageError, match="--questions"):
        find_cases([two], questions=two / "keeper.questions.json")


def test_cli_writes_the_table_and_json_deterministically(tmp_path, capsys):
    corpus = make_corpus(tmp_path / "c")
    args = ["evaluate", str(corpus), "--grid", "chunk_size=100,150", "--top-k", "2"]
    assert main([*args, "-o", str(tmp_path / "o1")]) == 0
    out = capsys.readouterr().out
    assert "| setting |" in out and "best:" in out
    assert main([*args, "-o", str(tmp_path / "o2")]) == 0
    capsys.readouterr()
    one, two = (tmp_path / d / "evaluation.json" for d in ("o1", "o2"))
    assert one.read_bytes() == two.read_bytes()
    data = json.loads(one.read_text())
    assert [r["setting"] for r in data["rows"]][1:] == ["recursive chunk_size=100", "recursive chunk_size=150"]
    assert (tmp_path / "o1" / "evaluation.md").read_text().startswith(
        "## bm25 top 2: all documents\n\nProtocol: each question searched in its own document's units (exact search)."
        "\n\n| setting |")
    assert main([*args, "--json"]) == 0 and json.loads(capsys.readouterr().out)["token_k"] == 2
    assert data["rows"][0]["setting"].endswith("separators=sentences")  # the sentence splitter by default
    assert main([*args, "--json", "--baseline-separators", "langchain"]) == 0
    assert json.loads(capsys.readouterr().out)["baseline"].endswith("separators=langchain")


@pytest.mark.parametrize("extra, code, message", [
    (["--top-k", "0"], 2, "--top-k"),
    (["--baseline-size", "100", "--baseline-overlap", "100"], 2, "--baseline-overlap"),
    (["--set", "chunk_size=abc"], 2, "chunk_size"),
])
def test_cli_bad_options_exit_2_with_one_line(tmp_path, capsys, extra, code, message):
    corpus = make_corpus(tmp_path / "c")
    assert main(["evaluate", str(corpus), "--strategy", "recursive", *extra]) == code
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_cli_missing_input_and_file_as_output(tmp_path, capsys):
    assert main(["evaluate", str(tmp_path / "nope.txt")]) == 3
    assert "nope.txt" in capsys.readouterr().err
    corpus = make_corpus(tmp_path / "c")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["evaluate", str(corpus), "--strategy", "recursive", "-o", str(blocker)]) == 2
    assert blocker.read_text() == "x"


def test_the_corpus_references_are_exact_spans_of_their_documents():
    for qfile in sorted(CORPUS.glob("*.questions.json")):
        rows = json.loads(qfile.read_text("utf-8"))
        assert len(rows) >= 20 and len({r["id"] for r in rows}) == len(rows) == len({r["evidence_text"] for r in rows})
        text_file = CORPUS / f"{qfile.name.removesuffix('.questions.json')}.txt"
        if text_file.exists():
            text = text_file.read_text("utf-8")
            assert all(text.count(r["evidence_text"]) == 1 for r in rows), qfile.name


def test_on_the_public_domain_corpus_sentences_beat_the_200_char_splitter_at_equal_recall():
    """The evaluation's first target: the best setting gains >= 20% relative token IoU over LangChain's
    RecursiveCharacterTextSplitter(200) with a token recall at least the splitter's (BM25, top 5)."""
    # the first corpus: the speech and the FAA rule (the five documents came later; on
    # all seven the best gains +16% and `sentences` +7%: docs/evaluation.md)
    cases = find_cases([CORPUS / "sotu_2024.txt", shared_pdf("req_federal-register-2020-17221.pdf")],
                       questions_dir=CORPUS)
    assert sum(len(c.resolved) for c in cases) >= 50
    # that target is against LangChain's own separators; against the sentence splitter (the
    # default baseline since) the best is +10% (docs/evaluation.md)
    result = compare_settings(cases, default_settings(), baseline(200, separators="langchain"))
    rows = {r["setting"]: r for r in result["rows"]}
    best = rows[result["best"]]
    assert best["recall_ok"] and best["iou_gain"] >= 0.20, format_table(result)
    default = rows["sentences"]  # the strategy's defaults, not only a tuned variant
    assert default["recall_ok"] and default["iou_gain"] >= 0.20, format_table(result)
    assert rows["elements"]["iou_gain"] < 0 < default["iou_gain"]  # big chunks lose on IoU, as they should


def test_a_second_run_into_the_same_folder_says_what_it_replaces(tmp_path, capsys):
    """evaluate, render and diff into a folder holding an earlier run of theirs: one warning line
    (when, what is replaced); into a fresh folder, none."""
    corpus = make_corpus(tmp_path / "c")
    md = str(TEST_DATA / "markdown" / "deployment_guide.md")
    runs = {"evaluation": ["evaluate", str(corpus), "--strategy", "recursive", "-o", str(tmp_path / "e")],
            "report": ["render", md, "-o", str(tmp_path / "r")],
            "diff": ["diff", md, "--a", "strategy=elements", "--b", "strategy=recursive", "-o", str(tmp_path / "d")]}
    for name, args in runs.items():
        assert main(args) == 0
        assert "holds an earlier" not in capsys.readouterr().err, name
        assert main(args) == 0
        err = capsys.readouterr().err
        assert "holds an earlier" in err and "replaced" in err and err.count("\n") == 1, (name, err)


def test_every_setting_evaluate_prints_is_taken_as_written(tmp_path, capsys):
    """evaluate printed its baseline as `langchain-recursive chunk_size=200 ...` and `--strategy
    langchain-recursive` was an unknown strategy; `recursive ... index_context=1 index_groups=1000`
    was refused by chunk's --set. Each setting of evaluate's table, pasted as `--strategy NAME --set
    k=v ...`, is taken by chunk, evaluate and sweep."""
    from tests.support.paths import SAMPLE_PDFS

    pdf = SAMPLE_PDFS / "contract_services_agreement.pdf"
    assert main(["evaluate", str(pdf), "-o", str(tmp_path / "ev")]) == 0
    rows = [line.split(" | ")[0].lstrip("| ").rstrip(" *") for line in capsys.readouterr().out.splitlines()
            if line.startswith("| ") and not line.startswith("| setting") and not line.startswith("|---")]
    baseline = next(r for r in rows if r.startswith("langchain:RecursiveCharacterTextSplitter "))
    default = next(r for r in rows if "index_groups=1000" in r and r.startswith("recursive "))
    for setting in dict.fromkeys([baseline, default, rows[-1]]):
        name, *pairs = setting.split()
        sets = [arg for pair in pairs for arg in ("--set", pair)]
        assert main(["chunk", str(pdf), "--strategy", name, *sets, "-o", str(tmp_path / "c.json")]) == 0, setting
        assert main(["evaluate", str(pdf), "--strategy", name, *sets, "-o", str(tmp_path / "e")]) == 0, setting
        assert main(["sweep", str(pdf), "--strategy", name, *sets, "-o", str(tmp_path / "s"), "--notebooks", "none",
                     "--no-progress"]) == 0, setting
        capsys.readouterr()
