"""The documents of a benchmark with their questions (Case): found beside each input, in a questions folder, or in a Chroma chunking-evaluation CSV."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from chunkbench.errors import InputError, UsageError
from chunkbench.types.document import Document

from ..retrieval import (
    Resolved,
    default_questions_path,
    load_questions,
    normalized_text,
    resolve,
)
from ..retrieval.questions import Question, load_chroma_csv


@dataclass(frozen=True)
class Case:
    """A document with its questions resolved to character ranges of `doc.text`."""

    doc: Document
    questions_path: Path
    resolved: tuple[Resolved, ...]
    #: the questions are the document's own (evaluate.proxy), made for want of a questions file
    proxy: bool = False

    @property
    def name(self) -> str:
        """The document's file name, as tables and warnings show it."""
        return Path(self.doc.source).name

    def keeping(self, positions: Iterable[int]) -> Case:
        """The same document with only the questions at `positions` (a held-out split's side)."""
        return Case(self.doc, self.questions_path, tuple(self.resolved[i] for i in positions), self.proxy)


def find_cases(inputs: Iterable[str | os.PathLike], questions: str | os.PathLike | None = None,
               questions_dir: str | os.PathLike | Sequence[str | os.PathLike] | None = None,
               proxy: bool = False) -> list[Case]:
    """Each input (a folder: every file in it with questions) loaded with its questions resolved.
    `questions` names one file for a single input; `questions_dir` (one folder or several) is
    searched before the document's own folder (questions kept apart from documents that may not be
    copied): the `<stem>.questions.json` of every folder given that has one are pooled, each
    question id once; only when none has one are the questions beside the document used. With
    `proxy`, an input without questions (a folder without any: each of its documents) asks its own
    (evaluate.proxy's queries: `Case.proxy`); a document too short for them is an input error."""
    if questions is not None and Path(questions).suffix.lower() == ".csv":
        return _chroma_cases(inputs, Path(questions))
    dirs = [] if questions_dir is None else [questions_dir] if isinstance(questions_dir, (str, os.PathLike)) \
        else list(questions_dir)
    for d in dirs:
        if not Path(d).is_dir():
            raise InputError("questions folder not found (--questions-dir)", Path(d))
    pairs: list[tuple[Path, list[Path]]] = []
    for raw in inputs:
        path = Path(raw)
        if path.is_dir():
            found = [(f, qs) for f in sorted(path.iterdir()) if f.is_file() and not f.name.endswith(".questions.json")
                     and (qs := _questions_files(f, dirs, f.with_name(f"{f.stem}.questions.json")))]
            if not found and proxy:
                found = [(f, []) for f in sorted(path.iterdir()) if f.is_file() and f.suffix.lower() in DOCUMENT_SUFFIXES]
            if not found:
                where = " or in --questions-dir" if dirs else ""
                raise InputError(f"no document with a <stem>.questions.json beside it{where} in this folder", path)
            pairs.extend(found)
            continue
        qpaths = [Path(questions)] if questions else _questions_files(path, dirs, default_questions_path(path))
        if not qpaths and proxy:
            pairs.append((path, []))
            continue
        if not qpaths:
            raise InputError(f"no questions file: expected {path.stem}.questions.json beside it (or --questions)",
                             path)
        pairs.append((path, qpaths))
    if questions and len(pairs) > 1:
        raise UsageError("--questions names the questions of one input; give one input, or put "
                         "<stem>.questions.json files beside several")
    from chunkbench.loaders import load

    cases = []
    for path, qpaths in pairs:
        doc = load(path)
        if not qpaths:
            cases.append(_proxy_case(path, doc))
            continue
        parts = [_case(path, doc, q, load_questions(q, doc)) for q in qpaths]
        _check_unique_ids(parts)
        cases.append(Case(doc, qpaths[0], tuple(r for part in parts for r in part.resolved)))
    return cases


#: the documents a folder without questions is scored on in proxy mode (what loaders.load reads)
DOCUMENT_SUFFIXES = (".pdf", ".md", ".markdown", ".txt")


def _proxy_case(path: Path, doc: Document) -> Case:
    """`doc` with the queries it makes of itself (evaluate.proxy), or an input error saying it is too short."""
    from ..proxy import TooShort, make_queries

    try:
        queries = make_queries(doc)
    except TooShort as exc:
        raise InputError(f"no questions file, and {str(exc).split(': ', 1)[-1]}", path) from None
    return Case(doc, path, queries.resolved, proxy=True)


def _questions_files(document: Path, dirs: Sequence[str | os.PathLike], beside: Path | None) -> list[Path]:
    """The questions files of a document: its `<stem>.questions.json` in every folder of `dirs`
    that has one, else `beside` when it exists."""
    kept = [q for d in dirs if (q := Path(d) / f"{document.stem}.questions.json").is_file()]
    return kept or ([beside] if beside is not None and beside.is_file() else [])


def _check_unique_ids(parts: Sequence[Case]) -> None:
    """Pooled questions files must not share a question id (held-out splits and misses key on it)."""
    seen: dict[str, Path] = {}
    for part in parts:
        for r in part.resolved:
            first = seen.setdefault(r.question.id, part.questions_path)
            if first != part.questions_path:
                raise InputError(f"question id {r.question.id!r} is also in {first}: pooled questions files "
                                 f"need distinct ids", part.questions_path)


def _case(path: Path, doc: Document, qpath: Path, questions: Sequence[Question],
          source_chars: int | None = None) -> Case:
    """`doc` with `questions` resolved; a reference text not found in it is an error naming them."""
    resolved = tuple(resolve(doc, questions, normalized_text(doc.text), source_chars))
    missing = [r.question.id for r in resolved if not r.spans and not r.pages]
    if missing:
        raise InputError(f"reference text of {len(missing)} question(s) not found in {path.name}: "
                         f"{', '.join(missing[:5])}", qpath)
    return Case(doc, qpath, resolved)


def _chroma_cases(inputs: Iterable[str | os.PathLike], qpath: Path) -> list[Case]:
    """One case per corpus of a Chroma questions CSV, its file found among `inputs` (files, or the
    files of folders) by the corpus_id's file name, else its stem. The corpus_id itself is never
    opened as a path: a CSV cannot point chunkbench outside the folders it was given."""
    from chunkbench.loaders import load

    by_corpus = load_chroma_csv(qpath)
    files: list[Path] = []
    for raw in inputs:
        path = Path(raw)
        files.extend(sorted(f for f in path.iterdir() if f.is_file()) if path.is_dir() else [path])
    files = [f for f in files if f.resolve() != qpath.resolve()]
    cases = []
    for corpus, questions in by_corpus.items():
        name = Path(corpus.replace("\\", "/")).name
        found = [f for f in files if f.name == name] or [f for f in files if f.stem == Path(name).stem]
        if len(found) != 1:
            where = ", ".join(str(Path(i)) for i in inputs)
            problem = "no file" if not found else f"{len(found)} files ({', '.join(f.name for f in found)})"
            raise InputError(f"corpus_id {corpus!r}: {problem} named {name} or with stem {Path(name).stem!r} "
                             f"in {where}", qpath)
        path = found[0]
        try:
            source_chars = len(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            source_chars = None
        cases.append(_case(path, load(path), qpath, questions, source_chars))
    return cases
