"""The retrieval corpora the evaluation tests share: a three-paragraph corpus written on demand,
the labelled public-domain corpus in tests/data/retrieval and its documents."""

from __future__ import annotations

import json

from tests.support.paths import ROOT

CORPUS = ROOT / "tests" / "data" / "retrieval"

PUBLIC = ("us_constitution.txt", "fomc_minutes_2019_07.txt", "apollo13_air_to_ground.txt",
          "factbook_iceland.txt", "sqlite_how_to_corrupt.md")


PARAGRAPHS = [
    "The lighthouse keeper lit the lamp at dusk every evening of the year. He trimmed the wick twice a night.",
    "Supply boats came to the keeper from the mainland on the first Monday of each month, weather permitting.",
    "In the winter of 1902 the fog horn failed and the keeper rang the bell by hand for three days.",
]


def make_corpus(folder, name="keeper", paragraphs=PARAGRAPHS, questions=None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.txt").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    questions = questions or [
        {"id": "q1", "question": "When did the keeper light the lamp?", "evidence_text": paragraphs[0]},
        {"id": "q2", "question": "How often did supply boats come to the keeper?", "evidence_text": paragraphs[1]},
        {"id": "q3", "question": "What did the keeper do when the fog horn failed?", "evidence_text": paragraphs[2]},
    ]
    (folder / f"{name}.questions.json").write_text(json.dumps(questions), encoding="utf-8")
    return folder
