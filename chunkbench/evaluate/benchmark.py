"""Compare chunking settings on a retrieval benchmark: documents with questions and reference spans.

`chunkbench evaluate` answers "which setting retrieves the answer best on MY documents?": each
document comes with a questions file (`<stem>.questions.json`, reference spans as exact text),
every setting (a strategy with parameters, or the LangChain RecursiveCharacterTextSplitter
baseline) cuts every document, the units are ranked per question (BM25 by default) and the top
`token_k` are scored with the token-range precision / recall / IoU of retrieval.evaluate (Chroma's
chunking-evaluation measure) plus recall@k and MRR. Scores are pooled over all questions of all
documents (each question weighs the same). The best setting is the one with the highest IoU among
those whose token recall is at least the baseline's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError, UsageError
from chunkbench.types.document import Document

from .retrieval import (
    KS,
    TOKEN_K,
    NormalizedText,
    Resolved,
    Unit,
    baseline_units,
    chunk_units,
    default_questions_path,
    evaluate,
    load_questions,
    resolve,
)

#: name of the baseline system in tables
BASELINE = "langchain-recursive"
#: the baseline's chunk size in characters (the 200-character splitter of the Chroma study)
BASELINE_SIZE = 200
#: the baseline's separators: paragraph and line breaks, then sentence ends, then spaces
BASELINE_SEPARATORS = "sentences"
#: measures reported per setting, in table order
MEASURES = ("recall@1", "recall@5", "mrr", "token_precision", "token_recall", "token_iou")
#: settings compared when none are given: each strategy at a few sizes around the baseline's
DEFAULT_SETTINGS: tuple[tuple[str, Mapping[str, Any]], ...] = (
    ("recursive", {"chunk_size": 150}),
    ("recursive", {"chunk_size": 200}),
    ("recursive", {"chunk_size": 300}),
    ("recursive", {"chunk_size": 500}),
    ("recursive", {"chunk_size": 1000}),
    ("tokens", {"chunk_size": 50, "overlap": 0}),
    ("tokens", {"chunk_size": 100, "overlap": 0}),
    ("tokens", {"chunk_size": 200, "overlap": 0}),
    ("sentences", {}),
    ("sentences", {"min_chars": 60}),
    ("sentences", {"join_dependent": False}),
    ("elements", {}),
    ("headers", {}),
    ("sections", {}),
    ("contract", {}),
)


@dataclass(frozen=True)
class Setting:
    """One system to evaluate: a strategy with parameters, or the baseline splitter (strategy None)."""

    strategy: str | None
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        label = self.strategy or BASELINE
        args = " ".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        return f"{label} {args}".strip()


@dataclass(frozen=True)
class Case:
    """A document with its questions resolved to character ranges of `doc.text`."""

    doc: Document
    questions_path: Path
    resolved: tuple[Resolved, ...]


def baseline(size: int = BASELINE_SIZE, overlap: int = 0, separators: str = BASELINE_SEPARATORS) -> Setting:
    """The LangChain RecursiveCharacterTextSplitter at `size` characters, cutting at `separators`
    (a key of retrieval's SEPARATORS: with sentence ends by default, the strongest common splitter)."""
    return Setting(None, {"chunk_size": size, "chunk_overlap": overlap, "separators": separators})


def default_settings() -> list[Setting]:
    """The settings of DEFAULT_SETTINGS."""
    return [Setting(s, dict(p)) for s, p in DEFAULT_SETTINGS]


def grid_settings(strategy: str, fixed: Mapping[str, Any], grid: Mapping[str, Sequence[Any]]) -> list[Setting]:
    """Every combination of the grid's values (a `strategy` key overrides `strategy`), in grid order."""
    combos: list[dict[str, Any]] = [dict(fixed)]
    for key, values in grid.items():
        combos = [{**c, key: v} for c in combos for v in values]
    return [Setting(str(c.pop("strategy", strategy)), c) for c in combos]


def find_cases(inputs: Iterable[str | os.PathLike], questions: str | os.PathLike | None = None,
               questions_dir: str | os.PathLike | None = None) -> list[Case]:
    """Each input (a folder: every file in it with a `<stem>.questions.json` beside it) loaded
    with its questions resolved. `questions` names one file for a single input; `questions_dir`
    is searched for `<stem>.questions.json` before the input's own folder (questions kept apart
    from documents that may not be copied)."""
    from chunkbench.loaders import load

    pairs: list[tuple[Path, Path]] = []
    for raw in inputs:
        path = Path(raw)
        if path.is_dir():
            found = [(f, q) for f in sorted(path.iterdir())
                     if f.is_file() and not f.name.endswith(".questions.json")
                     and (q := f.with_name(f"{f.stem}.questions.json")).is_file()]
            if not found:
                raise InputError("no document with a <stem>.questions.json beside it in this folder", path)
            pairs.extend(found)
            continue
        kept = Path(questions_dir) / f"{path.stem}.questions.json" if questions_dir else None
        qpath = Path(questions) if questions else kept if kept is not None and kept.is_file() else default_questions_path(path)
        if qpath is None:
            raise InputError(f"no questions file: expected {path.stem}.questions.json beside it (or --questions)",
                             path)
        pairs.append((path, qpath))
    if questions and len(pairs) > 1:
        raise UsageError("--questions names the questions of one input; give one input, or put "
                         "<stem>.questions.json files beside several")
    cases = []
    for path, qpath in pairs:
        doc = load(path)
        qs = load_questions(qpath, doc)
        resolved = tuple(resolve(doc, qs, NormalizedText(doc.text)))
        missing = [r.question.id for r in resolved if not r.spans and not r.pages]
        if missing:
            raise InputError(f"reference text of {len(missing)} question(s) not found in {path.name}: "
                             f"{', '.join(missing[:5])}", qpath)
        cases.append(Case(doc, qpath, resolved))
    return cases


def units_for(setting: Setting, doc: Document) -> list[Unit]:
    """The retrievable units `setting` cuts `doc` into."""
    if setting.strategy is None:
        return baseline_units(doc, int(setting.params.get("chunk_size", BASELINE_SIZE)),
                              int(setting.params.get("chunk_overlap", 0)),
                              str(setting.params.get("separators", "langchain")))
    from chunkbench.strategies import chunk

    return chunk_units(chunk(doc, setting.strategy, **setting.params))


def score_setting(setting: Setting, cases: Sequence[Case], token_k: int = TOKEN_K,
                  retriever: str = "bm25") -> dict[str, Any]:
    """One table row: the setting's unit counts and its measures pooled over every question."""
    rows: list[dict] = []
    units_total = chars = 0
    for case in cases:
        units = units_for(setting, case.doc)
        units_total += len(units)
        chars += sum(len(u.text) for u in units)
        rows.extend(evaluate(units, case.resolved, KS, token_k, retriever)[1])
    out: dict[str, Any] = {"setting": setting.name, "strategy": setting.strategy or BASELINE,
                           "params": dict(setting.params), "units": units_total,
                           "mean_chars": round(chars / units_total, 1) if units_total else 0.0,
                           "questions": len(rows)}
    for key in MEASURES:
        values = [row[key] for row in rows if key in row]
        out[key] = round(sum(values) / len(values), 4) if values else None
    return out


def compare_settings(cases: Sequence[Case], settings: Sequence[Setting], base: Setting | None = None,
            token_k: int = TOKEN_K, retriever: str = "bm25") -> dict[str, Any]:
    """Score the baseline and every setting; mark each against the baseline and name the best.

    `iou_gain` is the relative IoU change over the baseline; `recall_ok` whether the token recall
    is at least the baseline's; `best` is the highest-IoU setting with recall_ok and more IoU than
    the baseline (None if none: then no setting wins, and the summary says so)."""
    from chunkbench.io.progress import progress

    base = base or baseline()
    rows = []
    with progress(len(settings) + 1, "evaluate", "setting", enabled=None if len(settings) > 1 else False) as bar:
        for setting in (base, *settings):
            rows.append(score_setting(setting, cases, token_k, retriever))
            bar.update(1)
    base_row = rows[0]
    for row in rows:
        row["iou_gain"] = _gain(row["token_iou"], base_row["token_iou"])
        row["recall_ok"] = (row["token_recall"] or 0) >= (base_row["token_recall"] or 0)
    eligible = [r for r in rows[1:] if r["recall_ok"] and (r["iou_gain"] or 0) > 0]
    best = max(eligible, key=lambda r: (r["token_iou"], r["token_recall"]), default=None)
    return {
        "documents": [{"source": c.doc.source, "questions": len(c.resolved), "chars": len(c.doc.text)} for c in cases],
        "token_k": token_k,
        "retriever": retriever,
        "baseline": base_row["setting"],
        "best": best["setting"] if best else None,
        "rows": rows,
    }


def _gain(value: float | None, reference: float | None) -> float | None:
    if value is None or not reference:
        return None
    return round(value / reference - 1.0, 4)


def format_table(result: Mapping[str, Any]) -> str:
    """The comparison as a Markdown table, the best setting marked with `*`."""
    head = ["setting", "units", "mean chars", *MEASURES, "IoU vs baseline"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in result["rows"]:
        mark = " *" if row["setting"] == result["best"] else ""
        cells = [row["setting"] + mark, str(row["units"]), f"{row['mean_chars']:.0f}",
                 *(_pct(row[k]) if k != "mrr" else _num(row[k]) for k in MEASURES),
                 "baseline" if row["setting"] == result["baseline"] else _signed(row["iou_gain"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary_line(result: Mapping[str, Any]) -> str:
    """One sentence: the best setting and its IoU gain, or plainly that none beats the baseline."""
    rows = {r["setting"]: r for r in result["rows"]}
    base = rows[result["baseline"]]
    if result["best"] is None:
        others = [r for r in result["rows"] if r["setting"] != result["baseline"] and r["token_iou"] is not None]
        near = max((r for r in others if r["recall_ok"]), key=lambda r: r["token_iou"], default=None)
        if near is None:
            return f"no setting wins: none reached the baseline's token recall ({_pct(base['token_recall'])})"
        return (f"no setting wins: none has more token IoU than the baseline ({_pct(base['token_iou'])}) at its "
                f"token recall ({_pct(base['token_recall'])}); closest: {near['setting']}, IoU "
                f"{_pct(near['token_iou'])} ({_signed(near['iou_gain'])}) at recall {_pct(near['token_recall'])}")
    best = rows[result["best"]]
    return (f"best: {best['setting']}: token IoU {_pct(best['token_iou'])} vs {_pct(base['token_iou'])} "
            f"({_signed(best['iou_gain'])}), token recall {_pct(best['token_recall'])} vs "
            f"{_pct(base['token_recall'])} ({len(result['documents'])} documents, "
            f"{best['questions']} questions, {result.get('retriever', 'bm25')} top {result['token_k']})")


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _signed(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:+.0f}%"
