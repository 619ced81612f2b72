"""Question sets other tools write, read as question files: a Ragas test set (its
`Testset.to_jsonl`) and MTCB's generated questions (its `GeneratedSample`, one JSON a line), both
written by the libraries themselves (tests/data/questions/make_foreign_questions.py) from the
sample contract's own questions, so each must give what the native file gives."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from chunkbench.errors import InputError
from chunkbench.evaluate.retrieval.questions import load_questions
from chunkbench.ui.cli import main
from tests.support.paths import ROOT, SAMPLE_PDFS

CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"
NATIVE = SAMPLE_PDFS / "contract_services_agreement.questions.json"
WRITTEN = ROOT / "tests" / "data" / "questions"
FORMATS = ["contract.ragas.jsonl", "contract.mtcb.jsonl"]


def _texts(questions):
    return [(q.question, tuple(e.text for e in q.evidence)) for q in questions]


@pytest.mark.parametrize("name", FORMATS)
def test_each_format_reads_as_the_native_questions(name):
    assert _texts(load_questions(WRITTEN / name)) == _texts(load_questions(NATIVE))


def test_mtcb_parquet_with_its_dataset_column_name(tmp_path):
    """MTCB's Hugging Face question sets name the evidence `chunk-must-contain` and ship as Parquet."""
    rows = [json.loads(line) for line in (WRITTEN / "contract.mtcb.jsonl").read_text("utf-8").splitlines()]
    path = tmp_path / "questions.parquet"
    pd.DataFrame([{"question": r["question"], "answer": r["answer"], "chunk-must-contain": r["chunk_must_contain"]}
                  for r in rows]).to_parquet(path)
    assert _texts(load_questions(path)) == _texts(load_questions(NATIVE))


@pytest.mark.parametrize("name", FORMATS)
def test_evaluate_scores_them_as_the_native_file(name, capsys):
    """The text evidence is the same, so every score is (the native file's pages add nothing a
    located span does not already give)."""
    def scores(questions):
        assert main(["evaluate", str(CONTRACT), "--questions", str(questions), "--strategy", "recursive",
                     "--top-k", "3", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["rows"] and all(r["questions"] == 12 for r in data["rows"]), "every question used"
        return [{k: v for k, v in row.items() if k != "setting"} for row in data["rows"]]

    assert scores(WRITTEN / name) == scores(NATIVE)


@pytest.mark.parametrize("row, message", [
    ({"user_input": "What?", "reference_contexts": "a text, not a list"}, "reference_contexts must be a non-empty list"),
    ({"user_input": "", "reference_contexts": ["x"]}, "no question text"),
    ({"question": "What?", "chunk-must-contain": 3}, "chunk-must-contain must be a text"),
    ({"question": "What?", "evidence_text": ["a list"]}, "evidence_text must be a text"),
    ({"question": "What?", "evidence_page": "abc"}, "evidence_page must be a 1-based page number"),
])
def test_a_malformed_row_names_the_file_and_the_row(tmp_path, row, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"question": "Fine?", "evidence_text": "x"}) + "\n" + json.dumps(row) + "\n", "utf-8")
    with pytest.raises(InputError, match=message) as err:
        load_questions(path)
    assert "question 1" in str(err.value) and "bad.jsonl" in str(err.value)
