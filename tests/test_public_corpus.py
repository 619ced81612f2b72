"""The public-domain retrieval corpus (issue 19.4): five documents of different kinds (a statute, a
monetary-policy record with no line breaks, a transcript, a reference text without blank lines, a
technical manual) with 233 hand-written questions, besides the speech and the FAA rule; and the
splitter baseline counted in cl100k tokens (issue 19.5's "200 tokens" size)."""

from __future__ import annotations

import json
import re

import pytest

from chunkbench.errors import UsageError
from chunkbench.evaluate.benchmark import Setting, baseline, compare_settings, find_cases, units_for
from chunkbench.loaders import load
from chunkbench.text.tokenizer import count_tokens
from chunkbench.ui.cli import main
from tests.test_evaluation import CORPUS

PUBLIC = ("us_constitution.txt", "fomc_minutes_2019_07.txt", "apollo13_air_to_ground.txt",
          "factbook_iceland.txt", "sqlite_how_to_corrupt.md")


def questions_of(name: str) -> list[dict]:
    return json.loads((CORPUS / f"{name.rsplit('.', 1)[0]}.questions.json").read_text("utf-8"))


@pytest.mark.parametrize("name", PUBLIC + ("sotu_2024.txt",))
def test_every_reference_span_is_in_its_document_exactly_once(name):
    text = (CORPUS / name).read_text("utf-8")
    questions = questions_of(name)
    assert len({q["id"] for q in questions}) == len(questions)
    for q in questions:
        assert q["question"].strip().endswith("?"), q["id"]
        assert text.count(q["evidence_text"]) == 1, q["id"]


def test_the_public_corpus_is_five_documents_with_over_200_questions_and_a_source_each():
    counts = {name: len(questions_of(name)) for name in PUBLIC}
    assert sum(counts.values()) >= 200 and min(counts.values()) >= 40, counts
    sources = (CORPUS / "SOURCES.md").read_text("utf-8")
    for name in PUBLIC:  # each file has its origin, commit and public-domain basis
        row = next(line for line in sources.splitlines() if line.startswith(f"| `{name}`"))
        assert re.search(r"[0-9a-f]{7,40}|Debian package", row), name


def test_every_question_is_located_in_the_loaded_documents():
    """The loaders change markup (Markdown headings and list markers, the one-line FOMC text); every
    reference span must still be found whole in the loaded text."""
    cases = find_cases([CORPUS / name for name in PUBLIC])
    assert [c.name for c in cases] == list(PUBLIC)
    for case in cases:
        assert len(case.resolved) == len(questions_of(case.name))
        for r in case.resolved:
            assert r.spans and r.located == 1.0, (case.name, r.question.id)


def test_bm25_reports_each_document_of_the_public_corpus_and_is_deterministic():
    cases = find_cases([CORPUS / name for name in PUBLIC])
    settings = [Setting("recursive", {"chunk_size": 350}), Setting("sentences", {"max_chars": 250})]
    first = compare_settings(cases, settings, baseline(400))
    assert first == compare_settings(cases, settings, baseline(400))
    assert [d["source"] for d in first["rows"][0]["documents"]] == list(PUBLIC)
    for row in first["rows"]:
        assert row["questions"] == 233
        assert 0 < row["token_iou"] < row["token_recall"] <= 1


def test_the_token_baseline_cuts_pieces_of_at_most_n_cl100k_tokens_in_order():
    doc = load(CORPUS / "sqlite_how_to_corrupt.md")
    setting = baseline(120, unit="tokens")
    assert setting.name.endswith("unit=tokens") and "unit" not in baseline(120).name
    units = units_for(setting, doc)
    assert all(count_tokens(u.text) <= 120 for u in units)
    assert max(count_tokens(u.text) for u in units) > 100  # packed up to the size, not per sentence
    assert all(a.end <= b.start for a, b in zip(units, units[1:]))
    assert all(doc.text[u.start:u.end] == u.text for u in units)
    chars = units_for(baseline(120), doc)
    assert len(chars) > 2 * len(units)  # 120 characters are far fewer than 120 tokens
    with pytest.raises(UsageError, match="unit must be one of chars, tokens"):
        baseline(120, unit="words")


def test_evaluate_takes_a_token_sized_baseline_on_the_command_line(capsys):
    rc = main(["evaluate", str(CORPUS / "us_constitution.txt"), "--strategy", "recursive", "--set", "chunk_size=500",
               "--baseline-size", "200", "--baseline-unit", "tokens", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "chunk_size=200 separators=sentences unit=tokens" in out


def test_the_public_corpus_table_has_a_block_per_splitter_size_and_a_line_per_document(tmp_path):
    """`python -m benchmarks.retrieval_public` (docs/evaluation.md's tables), BM25 only."""
    from benchmarks.retrieval_public import BLOCKS, inputs
    from benchmarks.retrieval_public import main as table

    out = tmp_path / "table.md"
    assert table(["--retriever", "bm25", "-o", str(out)]) == 0
    text = out.read_text("utf-8")
    assert text.count("#### ") == 0 and text.count("### bm25: splitter at") == len(BLOCKS) == 4
    for name in PUBLIC:
        assert text.count(f"- {name} (") == len(BLOCKS)
    assert f"on {len(inputs())} documents" in text
    assert re.search(r"\| recursive chunk_size=500 \| \d+ \| [\d.]+% \| [\d.]+% \| \d\.\d\d× \(\d\.\d\d–\d\.\d\d\) \|", text)
