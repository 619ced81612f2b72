"""`chunkbench evaluate` on any corpus: Chroma's questions CSV, per-document reports,
paired bootstrap intervals on every difference, corpus-health warnings, BM25 and dense in one run."""

from __future__ import annotations

import csv
import json
import re

import numpy as np
import pandas as pd
import pytest

from chunkbench.errors import InputError
from chunkbench.evaluate.benchmark import (
    Setting,
    baseline,
    compare_retrievers,
    compare_settings,
    find_cases,
    format_documents,
    format_report,
    summary_line,
)
from chunkbench.evaluate.intervals import PairedBootstrap, excludes_zero
from chunkbench.ui.cli import main
from tests.support.corpora import CORPUS, PARAGRAPHS, make_corpus
from tests.support.extras import dense_or_skip

#: the speech of Chroma's general benchmark and its 76 questions: its own questions_df.csv's rows for
#: that corpus, verbatim (tests/data/chroma/SOURCES.md)
CHROMA = CORPUS.parent / "chroma"


def write_chroma_csv(path, rows):
    """A questions file written the way Chroma's chunking_evaluation writes its own (a DataFrame of
    question, references as json.dumps of [{content, start_index, end_index}], corpus_id;
    `to_csv(index=False)`), for cases its real file (CHROMA) does not hold."""
    df = pd.DataFrame(rows, columns=["question", "references", "corpus_id"])
    df["references"] = df["references"].apply(json.dumps)
    df.to_csv(path, index=False)
    return path


def chroma_rows(text: str, questions, corpus_id: str):
    """Our questions (evidence_text spans) as Chroma rows with the spans' offsets in `text`."""
    rows = []
    for q in questions:
        start = text.index(q["evidence_text"])
        rows.append({"question": q["question"], "corpus_id": corpus_id, "references": [
            {"content": q["evidence_text"], "start_index": start, "end_index": start + len(q["evidence_text"])}]})
    return rows


def read_real_chroma_rows():
    """Chroma's file read with the standard library alone: [(question, [(start, end, content)…])]."""
    with open(CHROMA / "questions_df.csv", encoding="utf-8", newline="") as f:
        return [(row["question"], [(r["start_index"], r["end_index"], r["content"]) for r in json.loads(row["references"])])
                for row in csv.DictReader(f)]


def test_chromas_own_questions_file_resolves_every_reference_at_its_offsets():
    """The rows of Chroma's general benchmark for its speech: each question, with each of its
    references (one to several) at the offsets the file gives; the evidence text there is the
    reference's content."""
    rows = read_real_chroma_rows()
    (case,) = find_cases([CHROMA], questions=CHROMA / "questions_df.csv")
    assert case.name == "state_of_the_union.md" and len(case.resolved) == len(rows) == 76
    assert [r.question.question for r in case.resolved] == [q for q, _ in rows]
    assert max(len(refs) for _, refs in rows) > 1  # the file's multi-reference questions are among them
    for resolved, (_, refs) in zip(case.resolved, rows):
        assert sorted(resolved.spans) == sorted((a, b) for a, b, _ in refs)
        assert all(case.doc.text[a:b] == content for a, b, content in refs)
        assert resolved.located == 1.0
    assert case.resolved[0].question.id == "state_of_the_union:1"


def test_a_chroma_csv_gives_the_same_scores_as_the_projects_own_questions(tmp_path):
    """Our speech's 32 questions written as Chroma writes its CSV resolve to the same spans and score
    exactly as the questions.json does: the two formats are one corpus to evaluate."""
    speech = (CORPUS / "sotu_2024.txt").read_text("utf-8")
    questions = json.loads((CORPUS / "sotu_2024.questions.json").read_text("utf-8"))
    folder = tmp_path / "corpora"
    folder.mkdir()
    (folder / "sotu_2024.txt").write_text(speech, encoding="utf-8")
    csv_path = write_chroma_csv(tmp_path / "questions_df.csv", chroma_rows(speech, questions, "sotu_2024"))
    (ours,) = find_cases([CORPUS / "sotu_2024.txt"])
    (theirs,) = find_cases([folder], questions=csv_path)
    assert [r.spans for r in theirs.resolved] == [r.spans for r in ours.resolved]
    assert [r.question.question for r in theirs.resolved] == [q["question"] for q in questions]
    settings = [Setting("sentences", {}), Setting("recursive", {"chunk_size": 300})]
    a, b = (compare_settings([c], settings) for c in (ours, theirs))
    strip = ("source",)
    assert [{k: v for k, v in r.items() if k != "documents"} for r in a["rows"]] == \
           [{k: v for k, v in r.items() if k != "documents"} for r in b["rows"]]
    assert [{k: v for k, v in d.items() if k not in strip} for r in a["rows"] for d in r["documents"]] == \
           [{k: v for k, v in d.items() if k not in strip} for r in b["rows"] for d in r["documents"]]


def test_the_offset_picks_the_copy_meant_when_a_reference_occurs_twice(tmp_path):
    """A sentence repeated far apart: Chroma's start_index says which copy is the answer."""
    repeated = "The committee approved the budget without amendment."
    filler = " ".join(f"Filler sentence number {n} talks about nothing in particular." for n in range(200))
    text = f"{repeated}\n\n{filler}\n\n{repeated}\n"
    (tmp_path / "minutes.md").write_text(text, encoding="utf-8")
    second = text.rindex(repeated)
    csv = write_chroma_csv(tmp_path / "q.csv", [
        {"question": "What did the committee approve?", "corpus_id": "minutes",
         "references": [{"content": repeated, "start_index": second, "end_index": second + len(repeated)}]},
        {"question": "What was approved first?", "corpus_id": "minutes",
         "references": [{"content": repeated, "start_index": 0, "end_index": len(repeated)}]}])
    (case,) = find_cases([tmp_path], questions=csv)
    late, early = (r.spans[0] for r in case.resolved)
    assert case.doc.text[slice(*late)] == case.doc.text[slice(*early)] == repeated
    assert early[0] == 0 and late[0] > len(case.doc.text) // 2


def test_corpus_ids_as_paths_and_several_corpora_in_one_csv(tmp_path):
    """corpus_id may be the path Chroma's synthetic evaluation recorded (anywhere): only its file
    name is matched, among the files of the folders given; every corpus becomes one document."""
    folder = make_corpus(tmp_path / "c")
    (folder / "second.txt").write_text("\n\n".join(reversed(PARAGRAPHS)) + "\n", encoding="utf-8")
    rows = chroma_rows(PARAGRAPHS[0] + "\n\n" + PARAGRAPHS[1], [
        {"question": "When did the keeper light the lamp?", "evidence_text": PARAGRAPHS[0]}],
        "/home/someone/corpora/keeper.txt")
    rows += chroma_rows(PARAGRAPHS[2], [
        {"question": "What failed in 1902?", "evidence_text": PARAGRAPHS[2]}], "second")
    csv = write_chroma_csv(folder / "questions_df.csv", rows)
    cases = find_cases([folder], questions=csv)
    assert [c.name for c in cases] == ["keeper.txt", "second.txt"]
    assert [len(c.resolved) for c in cases] == [1, 1]


@pytest.mark.parametrize("content, message", [
    ("question,references\nq?,[]\n", "no column 'corpus_id'"),
    ('question,references,corpus_id\nq?,"[{""content"": ""x""",keeper\n', "row 1 (line 2): references is not valid JSON"),
    ("question,references,corpus_id\nq?,[],keeper\n", "row 1 (line 2): references must be a non-empty"),
    ('question,references,corpus_id\nq?,"[{""start_index"": 3}]",keeper\n', "reference 1 has no 'content'"),
    ('question,references,corpus_id\nq?,"[{""content"": ""The"", ""start_index"": -4}]",keeper\n',
     "start_index must be a character offset"),
    ('question,references,corpus_id\nq?,"[{""content"": ""lit the lamp""}]",nowhere\n', "corpus_id 'nowhere': no file"),
    ('question,references,corpus_id\nq?,"[{""content"": ""not in the text at all""}]",keeper\n',
     "not found in keeper.txt: keeper:1"),
])
def test_bad_chroma_csvs_are_input_errors_naming_file_and_row(tmp_path, capsys, content, message):
    folder = make_corpus(tmp_path / "c")
    csv = tmp_path / "bad.csv"
    csv.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(message)) as err:
        find_cases([folder], questions=csv)
    assert "bad.csv" in str(err.value)
    assert main(["evaluate", str(folder), "--questions", str(csv), "--strategy", "recursive"]) == 3
    out = capsys.readouterr().err
    assert message.split(":")[0] in out and "Traceback" not in out and out.count("\n") == 1


def test_paired_bootstrap_intervals():
    rng = np.random.default_rng(5)
    base = rng.uniform(0.1, 0.3, 200)
    boot = PairedBootstrap([0] * 120 + [1] * 80)
    assert boot.gain_interval(base, base) == (0.0, 0.0) and boot.difference_interval(base, base) == (0.0, 0.0)
    better = base * 1.3 + rng.normal(0, 0.02, 200)
    lo, hi = boot.gain_interval(better, base)
    point = better.mean() / base.mean() - 1
    assert lo < point < hi and excludes_zero((lo, hi)) and 0.2 < lo < hi < 0.4
    noisy = base + rng.normal(0, 0.2, 200)  # no real difference, a lot of noise
    assert not excludes_zero(boot.difference_interval(noisy, base))
    assert PairedBootstrap([0] * 120 + [1] * 80).gain_interval(better, base) == (lo, hi)  # seeded
    assert boot.gain_interval(base, np.zeros(200)) is None


def test_every_difference_has_an_interval_overall_and_per_document():
    """On the project's corpus: the intervals contain their point estimates, the big-chunk
    settings' IoU loss is beyond chance and the best setting's line states its interval."""
    cases = find_cases([CORPUS / "sotu_2024.txt"])
    result = compare_settings(cases, [Setting("sentences", {}), Setting("elements", {})],
                              baseline(200, separators="langchain"))
    base, sentences, elements = result["rows"]
    assert base["iou_gain_ci"] is None and base["recall_diff_ci"] is None
    for row in (sentences, elements, *sentences["documents"]):
        lo, hi = row["iou_gain_ci"]
        assert lo <= row["iou_gain"] <= hi
    assert elements["iou_gain_ci"][1] < 0  # 1,500-character units lose IoU beyond chance
    assert sentences["iou_gain_ci"][0] > 0  # sentence units gain IoU beyond chance on the speech ...
    assert sentences["recall_diff_ci"][0] < 0 < sentences["recall_diff_ci"][1]  # ... at a recall not told apart
    assert result["best"] is None and result["documents"][0]["best"] is None  # (its recall is 1.7 points lower)


def test_the_best_line_states_its_interval(tmp_path):
    cases = find_cases([make_corpus(tmp_path / "c")])
    result = compare_settings(cases, [Setting("recursive", {"chunk_size": 120})], baseline(200), token_k=1)
    best = result["rows"][1]
    assert result["best"] == best["setting"]
    lo, hi = best["iou_gain_ci"]
    assert f"95% CI {round(100 * lo):+d}% to {round(100 * hi):+d}%" in summary_line(result)


def test_per_document_tables_and_lines(tmp_path):
    one = make_corpus(tmp_path / "c")
    make_corpus(one, name="other", paragraphs=[p.replace("keeper", "warden") for p in PARAGRAPHS],
                questions=[{"id": "w1", "question": "What did the warden do when the fog horn failed?",
                            "evidence_text": PARAGRAPHS[2].replace("keeper", "warden")}])
    cases = find_cases([one])
    result = compare_settings(cases, [Setting("recursive", {"chunk_size": 120})], baseline(60), token_k=1)
    assert [d["source"] for d in result["documents"]] == ["keeper.txt", "other.txt"]
    assert [r["documents"][1]["questions"] for r in result["rows"]] == [1, 1]
    tables = format_documents(result)
    assert tables.count("### ") == 2 and "### other.txt (1 questions" in tables
    assert "Per document:\n- keeper.txt: " in format_report(result, per_document=False)


def test_health_warns_about_short_documents_and_indistinguishable_settings(tmp_path):
    cases = find_cases([make_corpus(tmp_path / "c")])
    result = compare_settings(cases, [Setting("recursive", {"chunk_size": 2000}), Setting("recursive", {"chunk_size": 120})])
    health = result["health"]
    assert any(w.startswith("settings can't be told apart") or w.startswith("only 3 questions") for w in health)
    short = [w for w in health if "is short for" in w]
    assert short and "recursive chunk_size=2000" in short[0] and "keeper.txt" in short[0]
    assert "Corpus health:" in format_report(result)
    # the real corpus: 58 questions, settings that differ beyond chance, no short documents
    cases = find_cases([CORPUS / "sotu_2024.txt"])
    clean = compare_settings(cases, [Setting("elements", {})])
    assert not any("told apart" in w or "is short for" in w for w in clean["health"])


def test_bm25_and_dense_in_one_run_cut_each_document_once(tmp_path, monkeypatch, capsys):
    pytest.importorskip("tokenizers")

    dense_or_skip()
    import chunkbench.evaluate.benchmark.scoring as benchmark  # where the settings are cut

    calls = []
    real = benchmark.units_for
    monkeypatch.setattr(benchmark, "units_for", lambda s, d: calls.append(s.name) or real(s, d))
    cases = find_cases([make_corpus(tmp_path / "c")])
    results = compare_retrievers(cases, [Setting("sentences", {})], baseline(120), retrievers=("bm25", "dense"))
    assert [r["retriever"] for r in results] == ["bm25", "dense"] and len(calls) == 2
    assert main(["evaluate", str(tmp_path / "c"), "--strategy", "sentences", "--retriever", "both",
                 "-o", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "## bm25 top 5" in out and "## dense top 5" in out
    data = json.loads((tmp_path / "o" / "evaluation.json").read_text())
    assert [r["retriever"] for r in data["results"]] == ["bm25", "dense"]


def test_cli_evaluates_chromas_own_corpus_folder(tmp_path, capsys):
    """`chunkbench evaluate <folder> --questions questions_df.csv` on Chroma's real file and corpus."""
    args = ["evaluate", str(CHROMA), "--questions", str(CHROMA / "questions_df.csv"), "--strategy", "sentences",
            "-o", str(tmp_path / "o")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "IoU 95% CI" in out and ("no setting wins" in out or "best: sentences" in out)
    assert (tmp_path / "o" / "evaluation.md").read_text().startswith("## bm25 top 5: all documents")
    data = json.loads((tmp_path / "o" / "evaluation.json").read_text())
    assert data["documents"][0]["source"] == "state_of_the_union.md" and data["documents"][0]["questions"] == 76

