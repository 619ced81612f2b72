"""Questions with evidence: `*.questions.json` lists, FinanceBench rows matched to a document,
Ragas test sets and MTCB question sets (JSON, JSONL or, for MTCB's Hugging Face files, Parquet),
and Chroma's chunking-evaluation CSV (`question`, `references`, `corpus_id`) grouped by corpus."""

from __future__ import annotations

import csv
import io
import json
import numbers
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from chunkbench.errors import InputError
from chunkbench.io.inputs import check_input_file
from chunkbench.loaders.jsonread import loads_checked

if TYPE_CHECKING:
    from chunkbench.types.document import Document


#: FinanceBench questions file searched beside an input that has no <stem>.questions.json
FINANCEBENCH_FILE = "financebench_qa_subset.jsonl"


#: the columns of Chroma's chunking-evaluation questions file (its questions_df.csv)
CHROMA_COLUMNS = ("question", "references", "corpus_id")


@dataclass(frozen=True)
class Evidence:
    """Where an answer is: a 1-based page and/or a text span (either may be missing); `offset`,
    the span's character offset in the source file (Chroma's start_index), picks among repeats."""

    page: int | None
    text: str | None
    offset: int | None = None


@dataclass(frozen=True)
class Question:
    """A question with its evidence items (FinanceBench rows may have several)."""

    id: str
    question: str
    evidence: tuple[Evidence, ...]


def load_questions(path: str | os.PathLike[str], doc: Document | None = None) -> list[Question]:
    """Questions from a JSON list, a JSONL file or a Parquet file, in any of the formats of
    `row_questions`; FinanceBench rows are kept for `doc` only.

    FinanceBench pages (`evidence_page_num`) are 0-based and become 1-based here; its rows are
    matched to `doc` by the document name (`BESTBUY_2023_10K` ~ `financial_bestbuy-2023-10k.pdf`)."""
    path = check_input_file(path)
    if path.suffix == ".parquet":
        return _rows_questions(_parquet_rows(path), doc, path)
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read questions file: {getattr(exc, 'strerror', None) or exc}", path) from None
    try:
        if path.suffix == ".jsonl":
            return _rows_questions([loads_checked(line, path) for line in raw.splitlines() if line.strip()], doc, path)
        data = loads_checked(raw, path)
    except json.JSONDecodeError as exc:
        raise InputError(f"questions file is not valid JSON: {exc}", path) from None
    if isinstance(data, Mapping):
        data = data.get("questions")
    if not isinstance(data, list):
        raise InputError("questions file must be a JSON list of {question, evidence_page, evidence_text} "
                         "(or of Ragas or MTCB rows)", path)
    return _rows_questions(data, doc, path)


def _parquet_rows(path: Path) -> list:
    import pandas as pd

    try:
        frame = pd.read_parquet(path)
    except (OSError, ValueError, ImportError) as exc:
        raise InputError(f"cannot read questions file as Parquet: {exc}", path) from None
    return [{k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in row.items()}
            for row in frame.to_dict("records")]


def _rows_questions(rows: list, doc: Document | None, path: Path) -> list[Question]:
    if rows and isinstance(rows[0], Mapping) and ("financebench_id" in rows[0] or "doc_name" in rows[0]):
        return _financebench(rows, doc, path)
    questions = [row_question(row, n, path) for n, row in enumerate(rows)]
    if not questions:
        raise InputError("the questions file has no questions", path)
    return questions


#: MTCB's name for the text a chunk must contain (its Hugging Face datasets; its own model: chunk_must_contain)
MTCB_EVIDENCE = ("chunk-must-contain", "chunk_must_contain")


def row_question(row: object, n: int, path: Path) -> Question:
    """One question from a row in chunkbench's format ({question, evidence_page, evidence_text}),
    Ragas's (a test set's `user_input` with its `reference_contexts`) or MTCB's (`question` with
    `chunk-must-contain`); anything else is an InputError naming the row."""
    where = f"question {n}"
    if not isinstance(row, Mapping):
        raise InputError(f"{where} is not an object", path)
    if "user_input" in row or "reference_contexts" in row:  # Ragas (SingleTurnSample.model_dump)
        text, contexts = row.get("user_input"), row.get("reference_contexts")
        if not isinstance(contexts, list) or not contexts or not all(isinstance(c, str) and c.strip() for c in contexts):
            raise InputError(f"{where}: reference_contexts must be a non-empty list of texts (a Ragas test set)", path)
        evidence = tuple(Evidence(None, c) for c in contexts)
    elif any(k in row for k in MTCB_EVIDENCE):
        text = row.get("question")
        must = next(row[k] for k in MTCB_EVIDENCE if k in row)
        if not isinstance(must, str) or not must.strip():
            raise InputError(f"{where}: chunk-must-contain must be a text (an MTCB question)", path)
        evidence = (Evidence(None, must),)
    else:
        text = row.get("question")
        page, found = row.get("evidence_page"), row.get("evidence_text")
        if page is None and not found:
            raise InputError(f"{where} has neither evidence_page nor evidence_text", path)
        if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
            raise InputError(f"{where}: evidence_page must be a 1-based page number, got {page!r}", path)
        if found is not None and not isinstance(found, str):
            raise InputError(f"{where}: evidence_text must be a text, got {type(found).__name__}", path)
        evidence = (Evidence(page, found or None),)
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"{where} has no question text ('question', or a Ragas 'user_input')", path)
    ident = row.get("id")
    return Question(str(ident) if isinstance(ident, (str, int)) and not isinstance(ident, bool) else f"q{n + 1}",
                    text, evidence)


def _name_tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9]+", name.lower()) if t]


def matches_doc_name(doc_name: str, source: str) -> bool:
    """Whether a FinanceBench `doc_name` names the file `source`.

    Every token of the doc name must share a prefix with a token of the file stem (`ULTABEAUTY`
    ~ `ulta`, `2023Q4` ~ `2023q4`), so `BESTBUY_2023_10K` matches `financial_bestbuy-2023-10k.pdf`."""
    have = _name_tokens(Path(source).stem)
    want = _name_tokens(doc_name)
    return bool(want) and all(any(w.startswith(h) or h.startswith(w) for h in have if len(h) >= 3 or h == w)
                              for w in want)


def _financebench(rows: list, doc: Document | None, path: Path) -> list[Question]:
    """FinanceBench rows whose doc_name matches `doc` (all rows when no doc is given)."""
    out = []
    for n, row in enumerate(rows):
        if not isinstance(row, Mapping) or "question" not in row:
            raise InputError(f"line {n + 1} is not a FinanceBench row", path)
        if doc is not None and not matches_doc_name(str(row.get("doc_name", "")), doc.source):
            continue
        evidence = _financebench_evidence(row.get("evidence"), f"line {n + 1}", path)
        if evidence:
            out.append(Question(str(row.get("financebench_id") or f"fb{n + 1}"), str(row["question"]), evidence))
    return out


def _financebench_evidence(items: object, where: str, path: Path) -> tuple[Evidence, ...]:
    """A FinanceBench row's evidence list ({evidence_page_num: 0-based int, evidence_text}), each
    item checked: a wrong type is an InputError naming the row, never a crash."""
    if items is None:
        return ()
    if not isinstance(items, list):
        raise InputError(f"{where}: evidence must be a list of {{evidence_page_num, evidence_text}}, "
                         f"got {type(items).__name__}", path)
    out = []
    for k, ev in enumerate(items, 1):
        if not isinstance(ev, Mapping):
            raise InputError(f"{where}, evidence {k} is not an object", path)
        page, text = ev.get("evidence_page_num"), ev.get("evidence_text")
        if page is not None and (isinstance(page, bool) or not isinstance(page, numbers.Integral) or page < 0):
            raise InputError(f"{where}, evidence {k}: evidence_page_num must be a 0-based page number, "
                             f"got {page!r}", path)
        if text is not None and not isinstance(text, str):
            raise InputError(f"{where}, evidence {k}: evidence_text must be a text, got {type(text).__name__}", path)
        out.append(Evidence(int(page) + 1 if page is not None else None, text or None))
    return tuple(out)


def default_questions_path(input_path: str | os.PathLike[str]) -> Path | None:
    """`<stem>.questions.json` beside the input, else a FinanceBench file there, else None."""
    p = Path(input_path)
    for candidate in (p.with_name(f"{p.stem}.questions.json"), p.with_name(FINANCEBENCH_FILE)):
        if candidate.is_file():
            return candidate
    return None


def load_chroma_csv(path: str | os.PathLike[str]) -> dict[str, list[Question]]:
    """Questions of a Chroma chunking-evaluation CSV by corpus_id, in file order.

    Each row has `question`, `references` (a JSON list of {content, start_index, end_index}: the
    reference spans, offsets into the corpus file) and `corpus_id` (the corpus file's name or path,
    or its stem). Question ids are `<corpus stem>:<row>` (1-based data row), stable across runs."""
    path = check_input_file(path)
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read questions file: {getattr(exc, 'strerror', None) or exc}", path) from None
    reader = csv.DictReader(io.StringIO(raw, newline=""))
    missing = [c for c in CHROMA_COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise InputError(f"not a Chroma questions CSV: no column {', '.join(map(repr, missing))} "
                         f"(expected {', '.join(CHROMA_COLUMNS)})", path)
    out: dict[str, list[Question]] = {}
    try:
        for n, row in enumerate(reader, 1):
            where = f"row {n} (line {reader.line_num})"
            question, corpus = (row.get("question") or "").strip(), (row.get("corpus_id") or "").strip()
            if not question or not corpus:
                raise InputError(f"{where} has no question or no corpus_id", path)
            try:
                refs = loads_checked(row.get("references") or "", path)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: references is not valid JSON: {exc}", path) from None
            if not isinstance(refs, list) or not refs:
                raise InputError(f"{where}: references must be a non-empty JSON list of "
                                 "{content, start_index, end_index}", path)
            evidence = tuple(_chroma_reference(ref, f"{where}, reference {k}", path) for k, ref in enumerate(refs, 1))
            out.setdefault(corpus, []).append(Question(f"{Path(corpus).stem}:{n}", question, evidence))
    except csv.Error as exc:
        raise InputError(f"malformed CSV near line {reader.line_num}: {exc}", path) from None
    if not out:
        raise InputError("the questions CSV has no rows", path)
    return out


def _chroma_reference(ref: object, where: str, path: Path) -> Evidence:
    """One {content, start_index, end_index} reference as evidence text with its offset hint."""
    if not isinstance(ref, Mapping) or not str(ref.get("content") or "").strip():
        raise InputError(f"{where} has no 'content' text", path)
    start = ref.get("start_index")
    if start is not None and (isinstance(start, bool) or not isinstance(start, int) or start < 0):
        raise InputError(f"{where}: start_index must be a character offset, got {start!r}", path)
    return Evidence(None, str(ref["content"]), start)
