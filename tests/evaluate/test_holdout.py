"""`chunkbench evaluate --holdout F`: the best setting chosen on part of the questions and checked
on the rest (chunkbench.evaluate.holdout), on the project's public-domain corpus."""

from __future__ import annotations

import json

from chunkbench.evaluate.benchmark import Setting, baseline, compare_settings, find_cases
from chunkbench.evaluate.holdout import check_best, split_cases
from chunkbench.ui.cli import main
from tests.support.corpora import CORPUS, make_corpus

CONSTITUTION = CORPUS / "us_constitution.txt"
SETTINGS = [Setting("recursive", {"chunk_size": 150, "index_context": 1}), Setting("recursive", {"chunk_size": 350})]


def _ids(cases) -> list[str]:
    return [r.question.id for case in cases for r in case.resolved]


def test_the_split_holds_out_a_fixed_share_of_each_documents_questions():
    cases = find_cases([CONSTITUTION, CORPUS / "sotu_2024.txt"])
    choose, held = split_cases(cases, 0.3)
    assert [len(c.resolved) for c in held] == [round(0.3 * len(c.resolved)) for c in cases]
    assert sorted(_ids(choose) + _ids(held)) == sorted(_ids(cases)) and not set(_ids(choose)) & set(_ids(held))
    # not the first or last questions of a file: spread by a hash of the id, the same every run
    positions = [n for n, r in enumerate(cases[0].resolved) if r.question.id in set(_ids(held[:1]))]
    assert positions != list(range(len(positions))) and positions[-1] > len(cases[0].resolved) // 2
    assert split_cases(cases, 0.3) == (choose, held)


def test_the_check_is_the_best_setting_scored_on_the_held_out_questions_alone(tmp_path):
    cases = find_cases([CONSTITUTION])
    choose, held = split_cases(cases, 0.4)
    result = compare_settings(choose, SETTINGS, baseline())
    check = check_best(result, SETTINGS, held, baseline())
    assert check is not None and check["setting"] == result["best"]
    assert (check["chosen_on"], check["questions"]) == (len(_ids(choose)), len(_ids(held)))
    # the same numbers as an evaluation whose questions file holds only the held-out questions
    kept = set(_ids(held))
    rows = [q for q in json.loads(CONSTITUTION.with_name("us_constitution.questions.json").read_text("utf-8"))
            if q["id"] in kept]
    only = tmp_path / "held.questions.json"
    only.write_text(json.dumps(rows), encoding="utf-8")
    best = next(s for s in SETTINGS if s.name == check["setting"])
    base_row, row = compare_settings(find_cases([CONSTITUTION], questions=only), [best], baseline())["rows"]
    assert (check["token_iou"], check["baseline_token_iou"]) == (row["token_iou"], base_row["token_iou"])
    assert (check["iou_gain_ci"], check["recall_diff_ci"]) == (row["iou_gain_ci"], row["recall_diff_ci"])
    assert check["holds"] == (row["recall_ok"] and row["iou_gain"] > 0)


def test_evaluate_prints_and_writes_the_held_out_check(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["evaluate", str(CONSTITUTION), "--strategy", "recursive", "--grid", "chunk_size=150,350",
                 "--grid", "index_context=0,1", "--holdout", "0.3", "--no-progress", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    line = next(x for x in printed.splitlines() if x.startswith("held-out check: "))
    saved = json.loads((out / "evaluation.json").read_text("utf-8"))
    check = saved["holdout"]
    assert check["chosen_on"] + check["questions"] == 47 and check["questions"] == 14
    assert f"chosen on {check['chosen_on']} questions, on the 14 held out" in line
    assert line.endswith("the win holds" if check["holds"] else "than the baseline")
    assert line in (out / "evaluation.md").read_text("utf-8")
    # the table above it is of the questions the choice was made on, and says so
    assert saved["rows"][0]["questions"] == check["chosen_on"]
    assert "## bm25 top 5: all documents, the questions not held out" in printed


def test_a_holdout_without_a_winner_or_outside_0_1_says_so(tmp_path, capsys):
    corpus = make_corpus(tmp_path / "c")
    assert main(["evaluate", str(corpus), "--strategy", "recursive", "--set", "chunk_size=2000", "--holdout", "0.5",
                 "--no-progress"]) == 0
    assert "held-out check: no setting won on the questions the choice was made on" in capsys.readouterr().out
    for bad in ("0", "1", "1.5"):
        assert main(["evaluate", str(corpus), "--holdout", bad, "--no-progress"]) == 2
        assert "--holdout must be a fraction between 0 and 1" in capsys.readouterr().err
    lone = make_corpus(tmp_path / "one", questions=[{"id": "q", "question": "When was the lamp lit?",
                                                      "evidence_text": "lamp"}])
    assert main(["evaluate", str(lone), "--holdout", "0.5", "--no-progress"]) == 2
    assert "at least two questions" in capsys.readouterr().err
