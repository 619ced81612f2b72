"""Compare chunking settings on a retrieval benchmark: documents with questions and reference spans.

`chunkbench evaluate` answers "which setting retrieves the answer best on MY documents?": each
document comes with a questions file (`<stem>.questions.json`, reference spans as exact text),
every setting (a strategy with parameters, or the LangChain RecursiveCharacterTextSplitter
baseline) cuts every document, the units are ranked per question (BM25 by default) and the top
`token_k` are scored with the token-range precision / recall / IoU of retrieval.evaluate (Chroma's
chunking-evaluation measure) plus recall@k and MRR. Scores are pooled over all questions of all
documents (each question weighs the same), and per document (a corpus, in Chroma's terms), each
difference from the baseline with a paired bootstrap 95% interval (`intervals`). The best setting
is the one with the highest IoU among those whose token recall is at least the baseline's (plus a
margin, when one is asked for: `margin`).
Questions come as `<stem>.questions.json` per document or as one Chroma chunking-evaluation CSV
(`question`, `references`, `corpus_id`) for a folder of corpus files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError, UsageError
from chunkbench.types.document import Document

from .calibration import caveat
from .intervals import PairedBootstrap, excludes_zero
from .margin import RecallMargin, difference_se
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
    indexed_units,
    load_questions,
    resolve,
)
from .retrieval.questions import Question, load_chroma_csv
from .retrieval.scoring import (
    BASELINE_UNITS,
    DEFAULT_SEPARATORS,
    INDEX_ALONE,
    INDEX_CONTEXT,
    INDEX_HEADINGS,
    INDEX_WINDOWS,
    unit_ranker,
)
from .settings import BASELINE, Setting

#: the baseline's chunk size in characters (the 200-character splitter of the Chroma study)
BASELINE_SIZE = 200
#: measures reported per setting, in table order
MEASURES = ("recall@1", "recall@5", "mrr", "token_precision", "token_recall", "token_iou")
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


def baseline(size: int = BASELINE_SIZE, overlap: int = 0, separators: str = DEFAULT_SEPARATORS,
             unit: str = "chars", index_context: int = 0, index_alone: bool = False,
             index_windows: int = 0, index_headings: bool = False) -> Setting:
    """The LangChain RecursiveCharacterTextSplitter at `size` characters (or cl100k tokens: `unit`),
    cutting at `separators` (a key of retrieval's SEPARATORS: with sentence ends by default, the
    strongest common splitter), each piece indexed as a setting's INDEX_PARAMS say (with
    `index_context` neighbours each side, also alone, also by windows of its sentences, after the
    headings above it)."""
    if unit not in BASELINE_UNITS:
        raise UsageError(f"the baseline's unit must be one of {', '.join(BASELINE_UNITS)}, got {unit!r}")
    params: dict[str, Any] = {"chunk_size": size, "chunk_overlap": overlap, "separators": separators}
    if unit != "chars":
        params["unit"] = unit
    indexing = {INDEX_CONTEXT: index_context, INDEX_ALONE: index_alone, INDEX_WINDOWS: index_windows,
                INDEX_HEADINGS: index_headings}
    params.update({k: v for k, v in indexing.items() if v})
    return Setting(None, params)


def equally_indexed(settings: Sequence[Setting], base: Setting) -> list[Setting]:
    """`settings` with, after each one that uses index parameters, the baseline splitter (at its
    size) given the same index parameters, once: a gain that comes from the index recipe, not the
    cut, shows beside it (the splitter's pieces indexed alike do about as well: docs/evaluation.md)."""
    out: list[Setting] = []
    seen = {s.name for s in settings} | {base.name}
    for s in settings:
        out.append(s)
        if s.strategy is None or s.indexing.own_text_only:
            continue
        p = base.strategy_params
        alike = baseline(int(p.get("chunk_size", BASELINE_SIZE)), int(p.get("chunk_overlap", 0)),
                         str(p.get("separators", DEFAULT_SEPARATORS)), str(p.get("unit", "chars")),
                         s.indexing.context, s.indexing.alone, s.indexing.windows, s.indexing.headings)
        if alike.name not in seen:
            seen.add(alike.name)
            out.append(alike)
    return out



def grid_settings(strategy: str, fixed: Mapping[str, Any], grid: Mapping[str, Sequence[Any]]) -> list[Setting]:
    """Every combination of the grid's values (a `strategy` key overrides `strategy`), in grid order."""
    combos: list[dict[str, Any]] = [dict(fixed)]
    for key, values in grid.items():
        combos = [{**c, key: v} for c in combos for v in values]
    return [Setting(str(c.pop("strategy", strategy)), c) for c in combos]


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
    from .proxy import TooShort, make_queries

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
    resolved = tuple(resolve(doc, questions, NormalizedText(doc.text), source_chars))
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


def units_for(setting: Setting, doc: Document) -> list[Unit]:
    """The retrievable units `setting` cuts `doc` into, each with the texts its indexing ranks it by."""
    params = setting.strategy_params
    if setting.strategy is None:
        units = baseline_units(doc, int(params.get("chunk_size", BASELINE_SIZE)), int(params.get("chunk_overlap", 0)),
                               str(params.get("separators", DEFAULT_SEPARATORS)), str(params.get("unit", "chars")))
    else:
        from chunkbench.strategies import chunk

        units = chunk_units(chunk(doc, setting.strategy, **params))
    return indexed_units(units, setting.indexing, doc)


#: how each question was searched, as a report says it (compare_settings' `protocol`)
PROTOCOLS = {"own": "each question searched in its own document's units (exact search)",
             "pooled": "each question searched in the units of every document at once, as Chroma's benchmark "
                       "does (exact search)"}


#: the measures whose differences from the baseline get bootstrap intervals, per question
PAIRED = ("token_iou", "token_recall")


def score_setting(setting: Setting, cases: Sequence[Case], token_k: int = TOKEN_K,
                  retriever: str = "bm25", units_cache: dict | None = None) -> dict[str, Any]:
    """One table row: the setting's unit counts and its measures pooled over every question, with
    the same per document under `documents`."""
    return score_questions(setting, cases, token_k, retriever, units_cache)[0]


def score_questions(setting: Setting, cases: Sequence[Case], token_k: int, retriever: str,
                    units_cache: dict | None, rankers: dict | None = None,
                    pooled: bool = False) -> tuple[dict[str, Any], list[dict]]:
    """The row of score_setting and every question's scores (with `case`, its case's index).

    Each question is searched in its own document's units, or with `pooled` in the units of every
    document at once (Chroma's protocol: a unit of another document is retrieved length that holds
    no evidence). Both searches are exact and deterministic (BM25 scores every unit; dense, every
    embedding). `units_cache` (keyed by setting and document) lets a second retriever rank the same
    units without cutting every document again; `rankers` (keyed by those and the retriever) lets
    other questions of the same documents be ranked without indexing them again (a dense index
    embeds every unit)."""
    per_case = []
    for case in cases:
        key = (setting.name, case.doc.source)
        units = units_cache.get(key) if units_cache is not None else None
        if units is None:
            units = units_for(setting, case.doc)
            if units_cache is not None:
                units_cache[key] = units
        per_case.append(units)
    rows_of = _pooled_rows(setting, cases, per_case, token_k, retriever, rankers) if pooled and len(cases) > 1 else [
        _own_rows(setting, case, units, token_k, retriever, rankers) for case, units in zip(cases, per_case)]
    questions: list[dict] = []
    documents = []
    for n, (case, units, rows) in enumerate(zip(cases, per_case, rows_of)):
        questions.extend({**row, "case": n} for row in rows)
        documents.append({"source": case.name, **pooled_measures(rows, len(units), sum(len(u.text) for u in units))})
    out: dict[str, Any] = {"setting": setting.name, "strategy": setting.strategy or BASELINE,
                           "params": dict(setting.params),
                           **pooled_measures(questions, sum(d["units"] for d in documents),
                                       sum(d["units"] * d["mean_chars"] for d in documents)),
                           "documents": documents}
    return out, questions


def _own_rows(setting: Setting, case: Case, units: Sequence[Unit], token_k: int, retriever: str,
              rankers: dict | None) -> list[dict]:
    """Each question of `case` searched in its own document's units."""
    key = (setting.name, case.doc.source, retriever)
    ranker = rankers.get(key) if rankers is not None else None
    if ranker is None:
        ranker = unit_ranker(retriever, units)
        if rankers is not None:
            rankers[key] = ranker
    return evaluate(units, case.resolved, KS, token_k, retriever, text=case.doc.text, ranker=ranker)[1]


#: a page number far above any document's: page n of the k-th pooled document becomes k * this + n
_POOLED_PAGES = 1_000_000


def _pooled_rows(setting: Setting, cases: Sequence[Case], per_case: Sequence[Sequence[Unit]], token_k: int,
                 retriever: str, rankers: dict | None) -> list[list[dict]]:
    """Every question searched in the units of all documents at once: the documents' texts laid end
    to end (a blank line between), each unit's range, pages and evidence moved to its document's place,
    so a unit of another document can be retrieved but never holds the evidence. Rows per case."""
    offsets, at = [], 0
    for case in cases:
        offsets.append(at)
        at += len(case.doc.text) + 2
    joined = "\n\n".join(case.doc.text for case in cases)

    def moved(u: Unit, n: int) -> Unit:
        shift = offsets[n]
        return replace(u, start=None if u.start is None else u.start + shift, end=None if u.end is None else u.end + shift,
                       pages=frozenset(p + n * _POOLED_PAGES for p in u.pages))

    units = [moved(u, n) for n, us in enumerate(per_case) for u in us]
    key = (setting.name, "pooled:" + "|".join(c.doc.source for c in cases), retriever)
    ranker = rankers.get(key) if rankers is not None else None
    if ranker is None:
        ranker = unit_ranker(retriever, units)
        if rankers is not None:
            rankers[key] = ranker
    out = []
    for n, case in enumerate(cases):
        resolved = [replace(r, spans=tuple((a + offsets[n], b + offsets[n]) for a, b in r.spans),
                            pages=frozenset(p + n * _POOLED_PAGES for p in r.pages)) for r in case.resolved]
        out.append(evaluate(units, resolved, KS, token_k, retriever, text=joined, ranker=ranker)[1])
    return out


def pooled_measures(rows: Sequence[Mapping[str, Any]], units: int, chars: float) -> dict[str, Any]:
    """Unit count, mean unit length and every measure averaged over question rows (the one place
    rows are pooled: per document, overall, and in benchmarks/retrieval_public.py)."""
    out: dict[str, Any] = {"units": units, "mean_chars": round(chars / units, 1) if units else 0.0,
                           "questions": len(rows)}
    for key in MEASURES:
        values = [row[key] for row in rows if key in row]
        out[key] = round(sum(values) / len(values), 4) if values else None
    return out


def compare_settings(cases: Sequence[Case], settings: Sequence[Setting], base: Setting | None = None,
            token_k: int = TOKEN_K, retriever: str = "bm25", units_cache: dict | None = None,
            rankers: dict | None = None, margin: RecallMargin | None = None,
            questions_out: dict | None = None, pooled: bool = False) -> dict[str, Any]:
    """Score the baseline and every setting; mark each against the baseline, overall and per
    document, and name the best.

    `iou_gain` is the relative IoU change over the baseline and `iou_gain_ci` its paired bootstrap
    95% interval; `recall_diff_ci` the interval of the token recall difference and `recall_diff_se`
    its standard error; `recall_ok` whether the token recall is at least the baseline's; `best` is
    the highest-IoU setting with recall_ok (and the recall `margin`, if given) and more IoU than the
    baseline (None if none: then no setting wins, and the summary says so).
    `health` lists what makes the corpus unable to tell settings apart. `units_cache` and `rankers`
    (dicts the caller keeps) share cut documents and built indexes with other calls (score_questions);
    `questions_out` receives each setting's per-question rows by its name (misses_of can reuse them);
    `pooled`: each question searched in every document's units at once (score_questions), said in
    the result's `protocol`."""
    from chunkbench.io.progress import progress

    base = base or baseline()
    scored = []
    with progress(len(settings) + 1, "evaluate", "setting", enabled=None if len(settings) > 1 else False) as bar:
        for setting in (base, *settings):
            scored.append(score_questions(setting, cases, token_k, retriever, units_cache, rankers, pooled))
            bar.update(1)
    if questions_out is not None:
        questions_out.update((s.name, questions) for s, (_, questions) in zip((base, *settings), scored))
    result = compare_scored(scored, cases, token_k, retriever, margin)
    result["protocol"] = PROTOCOLS["pooled" if pooled and len(cases) > 1 else "own"]
    return result


def compare_scored(scored: Sequence[tuple[dict[str, Any], list[dict]]], cases: Sequence[Case], token_k: int,
                   retriever: str, margin: RecallMargin | None = None) -> dict[str, Any]:
    """compare_settings from settings already scored (score_questions; the baseline first): the
    rows marked against the baseline, the best named, the corpus's health checked. Also what
    benchmarks/selection_rules.py calls on parts of the questions."""
    rows = [dict(row, documents=[dict(d) for d in row["documents"]]) for row, _ in scored]
    _mark_against_baseline(rows, [[q for q in qs if "token_iou" in q] for _, qs in scored], len(cases))
    best = _best(rows, margin)
    documents = [{"source": c.name, "questions": len(c.resolved), "chars": len(c.doc.text),
                  "best": _best([r["documents"][n] | {"setting": r["setting"], "strategy": r["strategy"]}
                                 for r in rows], margin)}
                 for n, c in enumerate(cases)]
    result: dict[str, Any] = {
        "documents": documents,
        "token_k": token_k,
        "retriever": retriever,
        "baseline": rows[0]["setting"],
        "best": best,
        "rows": rows,
    }
    if margin is not None:
        result["recall_margin"] = {"amount": margin.amount, "unit": margin.unit}
    if any(c.proxy for c in cases):
        result["proxy"] = [c.name for c in cases if c.proxy]
    result["health"] = corpus_health(result)
    return result


def _mark_against_baseline(rows: list[dict], spanned: list[list[dict]], n_cases: int) -> None:
    """Gains, recall checks and paired bootstrap intervals against rows[0], pooled and per document
    (`spanned[i]`: row i's question scores that have token measures, in the same question order)."""
    groups = [q["case"] for q in spanned[0]]
    pooled = PairedBootstrap(groups)
    picks = [[i for i, g in enumerate(groups) if g == n] for n in range(n_cases)]  # each case's questions
    per_case = [PairedBootstrap([0] * len(pick)) for pick in picks]
    base_q = {key: [q[key] for q in spanned[0]] for key in PAIRED}
    for row, qs in zip(rows, spanned):
        values = {key: [q[key] for q in qs] for key in PAIRED}
        _mark(row, rows[0], pooled, values, base_q, row is rows[0])
        for n, (doc, pick) in enumerate(zip(row["documents"], picks)):
            _mark(doc, rows[0]["documents"][n], per_case[n], {k: [v[i] for i in pick] for k, v in values.items()},
                  {k: [v[i] for i in pick] for k, v in base_q.items()}, row is rows[0])


def _mark(row: dict, base: Mapping[str, Any], boot: PairedBootstrap, values: Mapping[str, list],
          reference: Mapping[str, list], is_base: bool) -> None:
    row["iou_gain"] = _gain(row["token_iou"], base["token_iou"])
    row["recall_ok"] = (row["token_recall"] or 0) >= (base["token_recall"] or 0)
    gain = recall = se = None
    if not is_base and boot.size:
        gain = boot.gain_interval(values["token_iou"], reference["token_iou"])
        recall = boot.difference_interval(values["token_recall"], reference["token_recall"])
        se = difference_se(values["token_recall"], reference["token_recall"])
    row["iou_gain_ci"] = list(gain) if gain else None
    row["recall_diff_ci"] = list(recall) if recall else None
    row["recall_diff_se"] = se


def beats_baseline(row: Mapping[str, Any], by: float = 0.0) -> bool:
    """Whether a marked row (pooled, or one document's) wins against its baseline: token recall at
    least the baseline's and more token IoU, by at least `by` as a relative gain (e.g. 0.2)."""
    gain = row["iou_gain"] or 0.0
    return bool(row["recall_ok"]) and gain > 0 and gain >= by - 1e-9


def clears_margin(row: Mapping[str, Any], base: Mapping[str, Any], margin: RecallMargin | None) -> bool:
    """Whether a marked row's token recall is above the baseline's by `margin` (always, without one)."""
    return margin is None or _short_of(row, base, margin) >= -1e-9


def _best(rows: Sequence[Mapping[str, Any]], margin: RecallMargin | None = None) -> str | None:
    """The highest-IoU chunkbench row after the first (the baseline) that beats it, by the recall
    `margin` when given; another splitter row (the baseline indexed differently, a reference) is
    never the best."""
    eligible = [r for r in candidates(rows[1:]) if beats_baseline(r) and clears_margin(r, rows[0], margin)]
    best = max(eligible, key=lambda r: (r["token_iou"], r["token_recall"]), default=None)
    return best["setting"] if best else None


def candidates(rows: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows of chunkbench settings: those that can be named best or closest."""
    return [r for r in rows if r.get("strategy") != BASELINE]


def compare_retrievers(cases: Sequence[Case], settings: Sequence[Setting], base: Setting | None = None,
                       token_k: int = TOKEN_K, retrievers: Sequence[str] = ("bm25",),
                       units_cache: dict | None = None, margin: RecallMargin | None = None,
                       questions_out: dict | None = None, pooled: bool = False) -> list[dict[str, Any]]:
    """compare_settings once per retriever, every document cut once per setting (`units_cache`,
    when given, keeps the cut documents for the caller's later calls; `questions_out`, each
    setting's per-question rows by retriever, then setting name)."""
    cache: dict = {} if units_cache is None else units_cache
    return [compare_settings(cases, settings, base, token_k, r, cache, margin=margin,
                             questions_out=questions_out.setdefault(r, {}) if questions_out is not None else None,
                             pooled=pooled)
            for r in retrievers]


def miss_setting(result: Mapping[str, Any], settings: Sequence[Setting], wanted: str = "best") -> Setting | None:
    """The setting whose retrieval misses to explain: `wanted` by its name in the table, or "best"
    (the best setting, else the one with the most token IoU). The baseline has no chunk
    boundaries to blame, so it is never chosen; an unknown name is a usage error listing the names."""
    by_name = {s.name: s for s in settings if s.strategy is not None}
    if wanted != "best":
        if wanted not in by_name:
            raise UsageError(f"--misses {wanted!r} is not a setting of this evaluation; one of: "
                             f"{', '.join(by_name) or 'none'}")
        return by_name[wanted]
    rows = [r for r in candidates(result["rows"][1:]) if r["token_iou"] is not None]
    closest = max(rows, key=lambda r: r["token_iou"], default=None)
    name = result["best"] or (closest["setting"] if closest else None)
    return by_name.get(name) if name else None


def misses_of(setting: Setting, cases: Sequence[Case], retriever: str = "bm25", token_k: int = TOKEN_K,
              scored: Sequence[Mapping[str, Any]] | None = None) -> list:
    """For each case: (the setting's ChunkSet, its retrieval misses, how many questions were judged).
    `scored`, the setting's per-question rows of the same cases as score_questions gave them (with
    `case`), spares ranking every question again (a dense index embeds every chunk)."""
    from chunkbench.strategies import chunk

    from .misses import find_misses, judged

    by_case: list[list[Mapping[str, Any]]] = [[] for _ in cases]
    for row in scored or ():
        by_case[row["case"]].append(row)
    out = []
    for case, rows in zip(cases, by_case):
        cs = chunk(case.doc, str(setting.strategy), **setting.strategy_params)
        out.append((cs, find_misses(cs, case.resolved, retriever, token_k, setting.indexing,
                                    rows=rows if scored is not None else None),
                    judged(case.resolved)))
    return out


#: fewer questions than this (pooled) and the health check says the intervals will be wide
FEW_QUESTIONS = 30


def corpus_health(result: Mapping[str, Any]) -> list[str]:
    """Warnings about what keeps this corpus from telling settings apart: no difference beyond
    chance, few questions, documents that some settings cut into no more units than are retrieved
    (top k returns the whole document), documents on which every setting scores the same."""
    out = []
    rows = result["rows"]
    k = result["token_k"]
    questions = rows[0]["questions"]
    others = rows[1:]
    if others and not any(excludes_zero(r["iou_gain_ci"]) or excludes_zero(r["recall_diff_ci"]) for r in others):
        out.append(f"settings can't be told apart: no setting's token IoU or recall differs from the baseline's "
                   f"beyond chance (every 95% interval includes 0, {questions} questions); add questions or "
                   "documents before trusting the ranking")
    elif questions < FEW_QUESTIONS:
        out.append(f"only {questions} questions: the 95% intervals are wide; {FEW_QUESTIONS} or more tell "
                   "settings apart better")
    for n, doc in enumerate(result["documents"]):
        whole = [r["setting"] for r in rows if r["documents"][n]["units"] <= k]
        if whole:
            out.append(f"{doc['source']} ({doc['chars']:,} chars) is short for {len(whole)} setting(s) "
                       f"({_listed(whole)}): each cuts it into {k} units or fewer, so top-{k} retrieval returns "
                       "all of it and cannot tell them apart; use smaller chunks or longer documents")
        ious = {r["documents"][n]["token_iou"] for r in rows}
        if len(rows) > 1 and len(ious) == 1:
            out.append(f"{doc['source']}: every setting scores the same token IoU ({_pct(ious.pop())}), "
                       "so it says nothing about which is better")
    return out


def _listed(names: Sequence[str], most: int = 3) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _gain(value: float | None, reference: float | None) -> float | None:
    if value is None or not reference:
        return None
    return round(value / reference - 1.0, 4)


def format_table(result: Mapping[str, Any]) -> str:
    """The pooled comparison as a Markdown table, the best setting marked with `*`; each difference
    from the baseline with its 95% interval."""
    head = ["setting", "units", "mean chars", *MEASURES, "IoU vs baseline", "IoU 95% CI", "recall Δ 95% CI"]
    return _table(head, [[row["setting"] + (" *" if row["setting"] == result["best"] else ""), str(row["units"]),
                          f"{row['mean_chars']:.0f}", *(_pct(row[k]) if k != "mrr" else _num(row[k]) for k in MEASURES),
                          *_against(row, row["setting"] == result["baseline"])] for row in result["rows"]])


def format_documents(result: Mapping[str, Any]) -> str:
    """One Markdown table per document (corpus): each setting's units, token recall and IoU there,
    the difference from the baseline with its 95% interval, that document's best marked `*`."""
    parts = []
    for n, doc in enumerate(result["documents"]):
        head = ["setting", "units", "mean chars", "token_recall", "token_iou", "IoU vs baseline", "IoU 95% CI",
                "recall Δ 95% CI"]
        body = [[row["setting"] + (" *" if row["setting"] == doc["best"] else ""), str(d["units"]),
                 f"{d['mean_chars']:.0f}", _pct(d["token_recall"]), _pct(d["token_iou"]),
                 *_against(d, row["setting"] == result["baseline"])]
                for row in result["rows"] for d in [row["documents"][n]]]
        parts.append(f"### {doc['source']} ({doc['questions']} questions, {doc['chars']:,} chars)\n\n"
                     f"{_table(head, body)}\n\n{_document_line(result, n)}")
    return "\n\n".join(parts)


def _against(row: Mapping[str, Any], is_base: bool) -> list[str]:
    """The three 'against the baseline' cells of a row: gain, its interval, the recall interval."""
    if is_base:
        return ["baseline", "", ""]
    return [_signed(row["iou_gain"]), _interval(row["iou_gain_ci"], _signed),
            _interval(row["recall_diff_ci"], _points)]


def _table(head: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines.extend("| " + " | ".join(cells) + " |" for cells in body)
    return "\n".join(lines)


def _document_line(result: Mapping[str, Any], n: int) -> str:
    """The summary of one document: its best setting, or that none wins there."""
    rows = [{**r["documents"][n], "setting": r["setting"], "strategy": r["strategy"]} for r in result["rows"]]
    doc = result["documents"][n]
    return summary_line({**result, "rows": rows, "best": doc["best"], "documents": [doc]})


def summary_line(result: Mapping[str, Any]) -> str:
    """One sentence: the best setting, its IoU gain and that gain's 95% interval, or plainly that
    none beats the baseline (with the recall margin, when the choice had one)."""
    rows = {r["setting"]: r for r in result["rows"]}
    base = rows[result["baseline"]]
    margin = result_margin(result)
    by = "" if margin is None else f" by the margin of {margin}"
    if result["best"] is None:
        others = [r for r in candidates(result["rows"]) if r["token_iou"] is not None]
        near = max((r for r in others if r["recall_ok"] and clears_margin(r, base, margin)),
                   key=lambda r: r["token_iou"], default=None)
        if near is None:
            line = f"no setting wins: none reached the baseline's token recall ({_pct(base['token_recall'])}){by}"
            most = max(others, key=lambda r: (_short_of(r, base, margin), r["token_iou"]), default=None)
            return line if most is None else f"{line}; closest: {_recall_gap(most, base, margin)}"
        return (f"no setting wins: none has more token IoU than the baseline ({_pct(base['token_iou'])}) at its "
                f"token recall ({_pct(base['token_recall'])}){by}; closest: {near['setting']}, IoU "
                f"{_pct(near['token_iou'])} ({_signed(near['iou_gain'])}) at recall {_pct(near['token_recall'])}")
    best = rows[result["best"]]
    sure = _interval_note(best.get("iou_gain_ci"), _signed)
    above = "" if margin is None else (
        f", above it{by}: {_points(margin.needed(best.get('recall_diff_se')))} needed")
    alike = _indexed_alike(best, base, rows)
    if alike is not None:
        above += (f"; the splitter indexed alike (the recipe without the cut): IoU {_pct(alike['token_iou'])} at "
                  f"recall {_pct(alike['token_recall'])}, so the cut adds {_signed(_gain(best['token_iou'], alike['token_iou']))}")
    asked = "questions" if not result.get("proxy") else f"queries, {len(result['proxy'])} of them the documents' own"
    line = (f"best: {best['setting']}: token IoU {_pct(best['token_iou'])} vs {_pct(base['token_iou'])} "
            f"({_signed(best['iou_gain'])}{sure}), token recall {_pct(best['token_recall'])} vs "
            f"{_pct(base['token_recall'])}{above} ({_count(len(result['documents']), 'document')}, "
            f"{best['questions']} {asked}, {result.get('retriever', 'bm25')} top {result['token_k']})")
    return line if not result.get("proxy") else f"{line}\n{caveat()}"


def _indexed_alike(row: Mapping[str, Any], base: Mapping[str, Any], rows: Mapping[str, Mapping[str, Any]]):
    """The row of the baseline splitter indexed as `row` is (equally_indexed), when it was scored."""
    if row.get("strategy") in (None, BASELINE):
        return None
    setting = Setting(row["strategy"], row.get("params") or {})
    pair = equally_indexed([setting], Setting(None, base.get("params") or {}))
    return rows.get(pair[1].name) if len(pair) == 2 else None


def proxy_line(result: Mapping[str, Any]) -> str:
    """What a comparison without questions files rests on, said before its table; "" with questions."""
    names = result.get("proxy") or []
    if not names:
        return ""
    return (f"No questions file for {_listed(names)}: scored on queries each document makes of itself (the most "
            f"distinctive words of a passage, the passage as evidence: docs/proxy.md). A questions file of your "
            f"own is the better judge (docs/proxy.md#write-a-questions-file).")


def result_margin(result: Mapping[str, Any]) -> RecallMargin | None:
    """The recall margin the best of `result` was chosen with (compare_scored), or None."""
    spec = result.get("recall_margin")
    return None if spec is None else RecallMargin(spec["amount"], spec["unit"])


def holdout_line(check: Mapping[str, Any] | None) -> str:
    """The held-out check of the best setting (chunkbench.evaluate.holdout) in one sentence: its
    scores on the questions its choice never saw, and whether it still wins there."""
    if check is None:
        return ("held-out check: no setting won on the questions the choice was made on, so there is "
                "nothing to check")
    recall = (check["token_recall"] or 0) - (check["baseline_token_recall"] or 0)
    verdict = ("the win holds" if check["holds"] else "the win does not hold: " +
               ("less token recall than the baseline" if recall < 0 else "no more token IoU than the baseline"))
    return (f"held-out check: {check['setting']}, chosen on {check['chosen_on']} questions, on the "
            f"{check['questions']} held out: token IoU {_pct(check['token_iou'])} vs "
            f"{_pct(check['baseline_token_iou'])} ({_signed(check['iou_gain'])}"
            f"{_interval_note(check['iou_gain_ci'], _signed)}), token recall {_pct(check['token_recall'])} vs "
            f"{_pct(check['baseline_token_recall'])} ({_points(recall)}"
            f"{_interval_note(check['recall_diff_ci'], _points)}): {verdict}")


def _recall_gap(row: Mapping[str, Any], base: Mapping[str, Any], margin: RecallMargin | None = None) -> str:
    """The setting with the most recall when none reaches the baseline's (plus the margin): how far
    short, whether that can be told from chance, and the IoU it has there."""
    short = _points((row["token_recall"] or 0) - (base["token_recall"] or 0))
    sure = _interval_note(row.get("recall_diff_ci"), _points)
    needed = "" if margin is None else f"; {_points(margin.needed(row.get('recall_diff_se')))} needed"
    return (f"{row['setting']}, recall {_pct(row['token_recall'])} ({short}{sure}{needed}) "
            f"at IoU {_pct(row['token_iou'])} ({_signed(row['iou_gain'])})")


def _short_of(row: Mapping[str, Any], base: Mapping[str, Any], margin: RecallMargin | None) -> float:
    """A row's token recall above the baseline's, less the margin it needs (negative: short of it)."""
    above = (row["token_recall"] or 0) - (base["token_recall"] or 0)
    return above - (0.0 if margin is None else margin.needed(row.get("recall_diff_se")))


def _interval_note(ci: Sequence[float] | None, fmt) -> str:
    """", 95% CI a to b", with ": not beyond chance" when the interval holds 0; "" without one."""
    return "" if ci is None else (f", 95% CI {_interval(ci, fmt)}" + ("" if excludes_zero(ci) else ": not beyond chance"))


def format_report(result: Mapping[str, Any], per_document: bool = True) -> str:
    """The whole comparison as Markdown: the pooled table and its summary, the corpus-health
    warnings, and with several documents a table per document (`per_document`) or a line each."""
    chosen = ", the questions not held out" if "holdout" in result else ""  # the choice is made on them
    said = f"{proxy_line(result)}\n\n" if result.get("proxy") else ""
    if result.get("protocol"):
        said += f"Protocol: {result['protocol']}.\n\n"
    parts = [f"## {result.get('retriever', 'bm25')} top {result['token_k']}: all documents{chosen}\n\n"
             f"{said}{format_table(result)}\n\n{summary_line(result)}"]
    if "holdout" in result:
        parts[0] += f"\n\n{holdout_line(result['holdout'])}"
    if result.get("health"):
        parts.append("Corpus health:\n" + "\n".join(f"- {w}" for w in result["health"]))
    if len(result["documents"]) > 1:
        parts.append(format_documents(result) if per_document else "Per document:\n" + "\n".join(
            f"- {doc['source']}: {_document_line(result, n)}" for n, doc in enumerate(result["documents"])))
    return "\n\n".join(parts)


def _interval(ci: Sequence[float] | None, fmt) -> str:
    return "-" if ci is None else f"{fmt(ci[0])} to {fmt(ci[1])}"


def _points(v: float | None) -> str:
    """A difference of two shares in percentage points; a nonzero one that rounds to 0.0 gets two
    decimals, so a shortfall never reads "-0.0 pt"."""
    if v is None:
        return "-"
    return f"{100 * v:+.1f} pt" if v == 0 or abs(100 * v) >= 0.05 else f"{100 * v:+.2f} pt"


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _signed(v: float | None) -> str:
    return "-" if v is None else f"{round(100 * v) or 0:+d}%"  # `or 0`: no "-0%"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
