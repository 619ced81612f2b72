"""The recall floor of a sweep's best point: ranked by token IoU alone, the best point would be the
one with the smallest chunks (IoU rewards short retrieved text) however much evidence it misses,
so the best point is the highest IoU among the points that keep at least this token recall."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from chunkbench.errors import UsageError
from chunkbench.evaluate.margin import RecallMargin

if TYPE_CHECKING:
    from chunkbench.evaluate.benchmark import Case

#: what --recall-floor takes: the splitter (optionally at N characters), a share, or none
FLOOR_HELP = ("'splitter' (default: the token recall of LangChain's RecursiveCharacterTextSplitter with sentence "
              "ends among its separators at 200 characters, chunkbench evaluate's baseline, on the same "
              "questions), 'splitter:N' (at N characters), either with a margin in points ('splitter+1pt': "
              "at least 1 point more), a share such as 0.8, or 'none' (IoU alone)")

#: the objectives the floor guards: measures that grow as chunks shrink, whatever they miss
GUARDED = ("ret_chunks_token_iou", "ret_chunks_token_precision")
#: the label-free objectives (evaluate.proxy), each guarded the same way on the document's own
#: queries: (its recall column, the column with the 200-character splitter's recall on those queries)
PROXY_GUARDED = {"proxy_token_iou": ("proxy_token_recall", "proxy_baseline_token_recall"),
                 "proxy_token_precision": ("proxy_token_recall", "proxy_baseline_token_recall")}


@dataclass(frozen=True)
class RecallFloor:
    """The floor: the splitter's token recall at `splitter_chars` on each input's questions, or a fixed `share`."""

    splitter_chars: int | None = None
    share: float | None = None
    #: with a splitter floor: how much more recall than the splitter's is asked (a RecallMargin in points)
    margin: RecallMargin | None = None

    def describe(self) -> str:
        if self.splitter_chars is not None:
            plus = f" + {self.margin}" if self.margin else ""
            return f"the {self.splitter_chars}-character splitter's token recall{plus}"
        return "given"


def parse_recall_floor(text: str | None) -> RecallFloor | None:
    """`splitter`, `splitter:N` (either with `+Npt`), a share in (0, 1] or `none` (→ None) as a RecallFloor."""
    from chunkbench.evaluate.benchmark import BASELINE_SIZE

    value = (text or "none").strip().lower()
    if value == "none":
        return None
    match = re.fullmatch(r"splitter(?::(\d+))?(?:\s*\+(.*))?", value)
    if match and (match.group(1) is None or int(match.group(1)) >= 1):
        margin = None if match.group(2) is None else RecallMargin.parse(match.group(2), "--recall-floor")
        if margin is not None and margin.unit != "pt":
            raise UsageError("--recall-floor: a sweep's floor takes its margin in points (splitter+1pt); a margin in "
                             "standard errors needs each setting's per-question scores against the splitter: "
                             "chunkbench evaluate --recall-margin 1se")
        return RecallFloor(splitter_chars=int(match.group(1) or BASELINE_SIZE), margin=margin)
    try:
        share = float(value)
    except ValueError:
        share = -1.0
    if 0 < share <= 1:
        return RecallFloor(share=share)
    raise UsageError(f"--recall-floor must be {FLOOR_HELP}; got {text!r}")


def input_cases(input_path: str, questions: str, holdout: float | None = None) -> tuple[Case, Case | None]:
    """(the input with the questions its points are scored on, resolved; those held out, or None):
    every question without `holdout`, else the split `chunkbench evaluate --holdout` makes
    (holdout.split_cases). Unlike find_cases, a question not found in the document is kept (a sweep
    point scores it as missed)."""
    from chunkbench.evaluate.benchmark import Case
    from chunkbench.evaluate.holdout import split_cases
    from chunkbench.evaluate.retrieval import load_questions
    from chunkbench.evaluate.retrieval.locate import normalized_text, resolve
    from chunkbench.loaders import load

    doc = load(input_path)
    case = Case(doc, Path(questions), tuple(resolve(doc, load_questions(questions, doc), normalized_text(doc.text))))
    if not holdout or len(case.resolved) < 2:
        return case, None
    (choose,), (held,) = split_cases([case], holdout)
    return choose, held


def floor_values(floor: RecallFloor | None, cases: Mapping[str, Case | None], retriever: str = "bm25") -> dict[str, float]:
    """Input → its floor, for the inputs with questions (`cases`: input → input_cases' first; only
    a splitter floor reads them, a share needs the inputs alone). The splitter is scored by
    `retriever` on the same questions as every point."""
    if floor is None:
        return {}
    chars = floor.splitter_chars
    if chars is None:
        return {inp: floor.share for inp in cases if floor.share is not None}
    from chunkbench.evaluate.benchmark import baseline, score_setting

    out = {}
    for inp, case in cases.items():
        if case is None:
            continue
        recall = score_setting(baseline(chars), [case], retriever=retriever)["token_recall"]  # evaluate's baseline
        if recall is not None:
            out[inp] = min(1.0, recall + (floor.margin.needed(None) if floor.margin else 0.0))
    return out


def guarded(group, objective: str, recall: str = "ret_chunks_token_recall"):
    """(the rows of one input's points that may be its best, a note). Every row when the objective
    is not GUARDED (nor PROXY_GUARDED: then by the proxy's recall and the splitter's on the same
    queries) or there is no floor; else those at or above the floor, or, when none reaches it,
    the rows with the highest recall, and a note saying so."""
    floor_column = "recall_floor"
    if objective in PROXY_GUARDED:
        recall, floor_column = PROXY_GUARDED[objective]
    elif objective not in GUARDED:
        return group, ""
    if floor_column not in group.columns or recall not in group.columns:
        return group, ""
    floor = group[floor_column].dropna()
    if floor.empty:
        return group, ""
    level = float(floor.iloc[0])
    keep = group[group[recall] >= level - 1e-9]
    if len(keep):
        return keep, ""
    top = group[recall].max()
    return group[group[recall] >= top - 1e-9], (f"no point reached the recall floor ({level:.1%}); chosen among "
                                                 f"those with the highest recall ({top:.1%})")


def with_floor(rows: Sequence[dict], floors: Mapping[str, float]) -> list[dict]:
    """The rows with a `recall_floor` column: their input's floor, None where it has none."""
    return [{**row, "recall_floor": floors.get(row["input"])} for row in rows] if floors else list(rows)
