"""The first-screen verdict says the worse of what the size targets and the defects say: a chopper
that meets every size target is not called good (evaluate.verdict)."""

from __future__ import annotations

import json

import pytest

import chunkbench as cb
from chunkbench.evaluate.defects import defect_metrics
from chunkbench.evaluate.stats import quality_targets
from chunkbench.evaluate.verdict import FAIR_DEFECTS, GOOD_DEFECTS, chunkset_verdict, verdict_of
from chunkbench.foreign import inspect
from chunkbench.ui.cli import main
from tests.support.paths import SAMPLE_PDFS

MANUAL = SAMPLE_PDFS / "technical_manual.pdf"


def slices(text: str, size: int) -> list[str]:
    """Fixed slices of `size` characters, cut wherever they fall: what LangChain's CharacterTextSplitter
    makes with no separator (the chopper of the rule)."""
    from langchain_text_splitters import CharacterTextSplitter

    return CharacterTextSplitter(separator="", chunk_size=size, chunk_overlap=0, strip_whitespace=False).split_text(text)


@pytest.fixture(scope="module")
def manual():
    return cb.load(MANUAL)


def test_a_chopper_that_meets_every_size_target_is_poor_and_the_default_is_better(manual):
    chopped = inspect(manual, slices(manual.text, 900), name="langchain:CharacterTextSplitter")
    targets = quality_targets(chopped)
    assert all(t.passed for t in targets)  # the size targets alone would call it good
    verdict = chunkset_verdict(chopped)
    assert verdict.word == "poor" and verdict.defects_per_100 > FAIR_DEFECTS
    assert dict(verdict.top_defects)["mid_word"] > 0
    default = chunkset_verdict(cb.chunk(manual))
    assert default.rank < verdict.rank


@pytest.mark.parametrize(("passed", "per_100", "word"), [
    (4, 0.0, "good"), (4, GOOD_DEFECTS, "good"), (4, GOOD_DEFECTS + 0.01, "fair"), (3, 0.0, "fair"),
    (4, FAIR_DEFECTS, "fair"), (4, FAIR_DEFECTS + 0.01, "poor"), (2, 0.0, "poor"), (3, FAIR_DEFECTS + 1, "poor"),
])
def test_the_verdict_is_the_worse_of_targets_and_defects(passed, per_100, word):
    verdict = verdict_of(passed, 4, {"defects_per_100": per_100, "defect_mid_word": per_100})
    assert verdict.word == word
    assert verdict.line().startswith(f"{word}: targets {passed}/4, {per_100:g} defects per 100 chunks")


def test_without_the_document_the_verdict_says_the_defects_were_not_checked():
    verdict = verdict_of(4, 4, None)
    assert verdict.line() == "good by its targets alone: targets 4/4, defects not checked"


def test_chunk_and_stats_print_the_verdict_of_the_defects_they_count(manual, tmp_path, capsys):
    out = tmp_path / "chunks.json"
    assert main(["chunk", str(MANUAL), "-o", str(out)]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    chunkset = cb.chunk(manual)
    expected = chunkset_verdict(chunkset)
    assert f"; {expected.line()} (`chunkbench stats` lists them)" in line
    assert main(["stats", str(out), "--doc", str(MANUAL), "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["verdict"] == {"word": expected.word, "line": expected.line()}
    assert stats["defects"]["per_100"] == defect_metrics(chunkset)["defects_per_100"]
    assert main(["stats", str(out), "--doc", str(MANUAL)]) == 0
    assert f"verdict  {expected.line()}" in capsys.readouterr().out


def test_a_sweep_without_questions_chooses_fewer_defects_among_points_meeting_as_many_targets():
    import pandas as pd

    from chunkbench.app.sweep.results import best_lines, best_settings

    rows = pd.DataFrame([
        {"document": "d", "strategy": "tokens", "params": "{}", "status": "ok", "chunks": 10, "targets_passed": 4,
         "targets_total": 4, "defects_per_100": 50.0, "verdict": "poor"},
        {"document": "d", "strategy": "sections", "params": "{}", "status": "ok", "chunks": 12, "targets_passed": 4,
         "targets_total": 4, "defects_per_100": 5.0, "verdict": "good"},
        {"document": "d", "strategy": "elements", "params": "{}", "status": "ok", "chunks": 9, "targets_passed": 3,
         "targets_total": 4, "defects_per_100": 0.0, "verdict": "fair"},
    ])
    best = best_settings(rows)
    assert best.loc[0, "strategy"] == "sections"
    lines = best_lines(rows)
    assert lines[0].startswith("best for d: sections: targets_passed 4\n  chosen by the size targets, then the fewest")
    assert lines[1] == "  verdict good: targets 4/4, 5 defects per 100 chunks"
