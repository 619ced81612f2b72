"""One verdict on a chunk set for the first screen: its size targets and its defects together.

The size targets alone reward a chopper (fixed 700-character slices meet all four while cutting
words and sentences), so every first screen (`chunk`'s line, `stats`, the demo's index, a sweep's
best line) says the worse of what the targets and what the defects per 100 chunks say."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: defects per 100 chunks up to which the defects read "good", then "fair"; above, "poor"
GOOD_DEFECTS = 10.0
FAIR_DEFECTS = 30.0
#: the verdict words, best first
WORDS = ("good", "fair", "poor")
#: how the verdict is reached, for every place that explains it
VERDICT_TEXT = (f"good: every size target met and at most {GOOD_DEFECTS:g} defects per 100 chunks; fair: one target "
                f"missed or at most {FAIR_DEFECTS:g} defects per 100; poor: worse")


@dataclass(frozen=True)
class Verdict:
    """good / fair / poor from the targets met and the defects per 100 chunks (None: not checked,
    the document was not at hand), with the most frequent defect codes per 100 chunks."""

    targets_passed: int
    targets_total: int
    defects_per_100: float | None
    top_defects: tuple[tuple[str, float], ...] = ()

    @property
    def word(self) -> str:
        missed = self.targets_total - self.targets_passed
        by_targets = min(missed, 2)
        if self.defects_per_100 is None:
            return WORDS[by_targets]
        by_defects = 0 if self.defects_per_100 <= GOOD_DEFECTS else 1 if self.defects_per_100 <= FAIR_DEFECTS else 2
        return WORDS[max(by_targets, by_defects)]

    @property
    def rank(self) -> tuple[int, float]:
        """Sorts better verdicts first: the word, then fewer defects."""
        return WORDS.index(self.word), self.defects_per_100 if self.defects_per_100 is not None else float("inf")

    def line(self) -> str:
        """"poor: targets 4/4, 129 defects per 100 chunks (mid_word 74, mid_sentence 55)"."""
        targets = f"targets {self.targets_passed}/{self.targets_total}"
        if self.defects_per_100 is None:
            return f"{self.word} by its targets alone: {targets}, defects not checked"
        top = ", ".join(f"{code} {value:g}" for code, value in self.top_defects)
        return f"{self.word}: {targets}, {self.defects_per_100:g} defects per 100 chunks" + (f" ({top})" if top else "")


def verdict_of(targets_passed: int, targets_total: int, defect_counts: Mapping[str, float | None] | None) -> Verdict:
    """The verdict from a count of targets met and `evaluate.defects.defect_counts` (None: not checked)."""
    per_100 = defect_counts.get("defects_per_100") if defect_counts is not None else None
    if defect_counts is None or per_100 is None:
        return Verdict(targets_passed, targets_total, None)
    codes = sorted(((key.removeprefix("defect_"), value) for key, value in defect_counts.items()
                    if key.startswith("defect_") and value), key=lambda kv: (-kv[1], kv[0]))
    return Verdict(targets_passed, targets_total, float(per_100), tuple(codes[:3]))


@dataclass(frozen=True)
class Assessment:
    """What a first screen says of a ChunkSet, found once: its sizes (`stats.size_summary`), its size
    targets, its defects (the findings and their counts per 100 chunks) and the verdict of both."""

    size: Any
    targets: tuple
    findings: tuple
    counts: Mapping[str, float | None]
    verdict: Verdict


def assess(chunkset) -> Assessment:
    """The sizes, targets, defects and verdict of `chunkset` (`chunk`'s line, the demo's table)."""
    from .defects import defect_counts, find_defects
    from .stats import quality_targets, size_summary

    targets = tuple(quality_targets(chunkset))
    findings = tuple(find_defects(chunkset))
    counts = defect_counts(list(findings), len(chunkset))
    return Assessment(size_summary(chunkset), targets, findings, counts,
                      verdict_of(sum(t.passed for t in targets), len(targets), counts))


def chunkset_verdict(chunkset) -> Verdict:
    """The verdict of a ChunkSet: its targets (`stats.quality_targets`) and its defects (`defects.find_defects`)."""
    return assess(chunkset).verdict


__all__ = ["FAIR_DEFECTS", "GOOD_DEFECTS", "VERDICT_TEXT", "Assessment", "Verdict", "assess", "chunkset_verdict",
           "verdict_of"]
