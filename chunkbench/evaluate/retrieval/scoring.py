"""Units (chunks, raw elements, baseline splitter pieces) ranked for each question and scored:
recall@k, MRR and token-level precision / recall / IoU."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from chunkbench.strategies.base import Param
from chunkbench.strategies.peers import recursive_splitter
from chunkbench.text.context import OWN_TEXT, Indexing, group_keys
from chunkbench.text.ranges import Span, blank_gaps, merge_ranges, overlap_length
from chunkbench.types.blocks import blocks_at

from .budget import BUDGETS, DEFAULT_POLICY, budget_keys, sent, unit_tokens
from .locate import Resolved, normalized_text, pages_of, resolve
from .questions import Question
from .ranking import UnitRanker, make_ranker
from .units import RetrievalUnit

if TYPE_CHECKING:
    from chunkbench.types.chunkset import ChunkSet
    from chunkbench.types.document import Document


#: ks reported for recall@k
KS = (1, 3, 5)


#: how many top-ranked units the token-level precision / recall / IoU look at
TOKEN_K = 5


#: the setting parameter (of any strategy, and of the baseline) that indexes each unit with this
#: many neighbours on each side (chunkbench.text.context); the strategy never sees it
INDEX_CONTEXT = "index_context"
#: INDEX_CONTEXT declared like a strategy parameter, so it is checked and coerced the same way
#: the most neighbours each side: the index texts grow with it (a chunk's text and 2n others), so a
#: large n writes a chunks.json many times the document (a bound, said in the message)
MAX_INDEX_CONTEXT = 20
INDEX_CONTEXT_PARAM = Param(INDEX_CONTEXT, int, 0, "neighbouring chunks each side that a chunk is ranked with", min=0,
                            max=MAX_INDEX_CONTEXT)
#: the setting parameter that, with INDEX_CONTEXT, also indexes each unit by its own text alone
INDEX_ALONE = "index_alone"
INDEX_ALONE_PARAM = Param(INDEX_ALONE, bool, False,
                          "with index_context: a chunk is also ranked by its own text alone, and keeps the better score")
#: the setting parameter that also indexes each unit by windows of its sentences of at most this many characters
INDEX_WINDOWS = "index_windows"
INDEX_WINDOWS_PARAM = Param(INDEX_WINDOWS, int, 0,
                            "a chunk is also ranked by pieces of its own sentences up to this many characters "
                            "(0: not), and keeps its best score", min=0)
#: the setting parameter that puts the headings above each unit in front of every text it is indexed by
INDEX_HEADINGS = "index_headings"
INDEX_HEADINGS_PARAM = Param(INDEX_HEADINGS, bool, False,
                             "each text a chunk is ranked by opens with the headings above it (its section path)")
#: the setting parameter that also indexes each unit by its block's and its section's text (up to this many tokens)
INDEX_GROUPS = "index_groups"
INDEX_GROUPS_PARAM = Param(INDEX_GROUPS, int, 0,
                           "a chunk is also ranked by the text of its structural block and of its section, each "
                           "when it holds more than the chunk and at most this many tokens (0: not)", min=0)
#: the parameters every setting takes besides its strategy's: how its units are indexed
INDEX_PARAMS = (INDEX_CONTEXT_PARAM, INDEX_ALONE_PARAM, INDEX_WINDOWS_PARAM, INDEX_HEADINGS_PARAM, INDEX_GROUPS_PARAM)


def split_indexing(params: Mapping[str, Any], strategy: str) -> tuple[Indexing, dict[str, Any]]:
    """(how the units are indexed, the other parameters) of a setting: INDEX_PARAMS coerced as
    strategy parameters are (--set and --grid give text), the rest for the strategy to check."""
    context, alone, windows, headings, groups = (p.coerce(params.get(p.name, p.default), strategy) for p in INDEX_PARAMS)
    rest = {k: v for k, v in params.items() if k not in {p.name for p in INDEX_PARAMS}}
    return Indexing(int(context), bool(alone), int(windows), bool(headings), int(groups)), rest


def indexing_params(indexing: Indexing) -> dict[str, Any]:
    """The setting parameters (INDEX_PARAMS) that say `indexing`, defaults included."""
    return {INDEX_CONTEXT: indexing.context, INDEX_ALONE: indexing.alone, INDEX_WINDOWS: indexing.windows,
            INDEX_HEADINGS: indexing.headings, INDEX_GROUPS: indexing.groups}


def indexed_units(units: Sequence[RetrievalUnit], indexing: Indexing, doc: Document | None = None) -> list[RetrievalUnit]:
    """The units with the texts `indexing` ranks them by (text.context), the headings above each
    unit's start in `doc` when it says so; their ranges, what is returned and scored, do not change."""
    if indexing.own_text_only:
        return list(units)
    if indexing.headings and doc is None:
        raise ValueError("indexing with headings needs the document the units come from")
    paths = doc.section_paths(u.start for u in units) if indexing.headings and doc is not None else None
    groups = [group_keys(u.block, u.section) for u in units] if indexing.groups else None
    return [replace(u, indexed=texts) for u, texts in zip(units, indexing.texts([u.text for u in units], paths, groups))]


def token_scores(retrieved: Sequence[Span], evidence: Sequence[Span], text: str | None = None) -> tuple[float, float, float]:
    """(precision, recall, IoU) of retrieved character ranges against evidence ranges (Chroma's
    measure). With the document's `text`, whitespace between two retrieved ranges counts as
    retrieved: evidence held by two abutting chunks is all there, though neither holds the space
    between them (without it, small chunks lost a fraction of a point of recall to spaces)."""
    ev = merge_ranges(evidence)
    ev_len = sum(b - a for a, b in ev)
    retrieved = [r for r in retrieved if r[1] > r[0]]
    gaps = blank_gaps(merge_ranges(retrieved), text) if text is not None else []
    ret_len = sum(b - a for a, b in (*retrieved, *gaps))
    hit = overlap_length(merge_ranges([*retrieved, *gaps]), ev)
    precision = hit / ret_len if ret_len else 0.0
    recall = hit / ev_len if ev_len else 0.0
    union = ret_len + (ev_len - hit)
    return precision, recall, hit / union if union else 0.0


def chunk_units(chunkset: ChunkSet) -> list[RetrievalUnit]:
    """The chunks as retrievable units, each with its section and whether the cuts around it are
    size cuts (its boundary reason and the next chunk's: budget.POLICIES)."""
    from chunkbench.types.chunk import SIZE_CUTS

    chunks = chunkset.chunks
    size_cut = [c.boundary.reason in SIZE_CUTS for c in chunks]
    blocks = blocks_at(chunkset.doc, [c.start_char for c in chunks])
    return [RetrievalUnit(c.text, c.start_char, c.end_char, frozenset(c.pages), section=c.section_path,
                          cut_before=size_cut[n], cut_after=n + 1 < len(chunks) and size_cut[n + 1], block=blocks[n])
            for n, c in enumerate(chunks)]


def element_units(doc: Document) -> list[RetrievalUnit]:
    """Every non-empty element (the raw blocks, page furniture included) as a unit."""
    return [RetrievalUnit(e.text, e.char_start, e.char_end, pages_of(e)) for e in doc.elements if e.text.strip()]


#: the separators every baseline uses unless told otherwise: the strongest common splitter's
DEFAULT_SEPARATORS = "sentences"


def baseline_units(doc: Document, chunk_size: int, chunk_overlap: int = 0,
                   separators: str = DEFAULT_SEPARATORS, unit: str = "chars", cuts: Iterable[int] = ()) -> list[RetrievalUnit]:
    """LangChain RecursiveCharacterTextSplitter pieces of `doc.text` with their offsets and pages;
    `separators` names a strategies.peers.SEPARATORS list (with sentence ends, a stop stays at its sentence's end),
    `unit` what chunk_size and chunk_overlap count (BASELINE_UNITS). `cuts` are offsets where a
    piece must end besides (the text is split there first, then each part by the splitter)."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    chunk_size = max(1, int(chunk_size))
    splitter = recursive_splitter(RecursiveCharacterTextSplitter, {
        "chunk_size": chunk_size, "chunk_overlap": min(int(chunk_overlap), chunk_size - 1), "add_start_index": True,
        "separators": separators, "unit": unit})
    starts = [e.char_start for e in doc.elements if e.text]
    spans = [e for e in doc.elements if e.text]
    out = []
    bounds = sorted({0, len(doc.text), *(c for c in cuts if 0 < c < len(doc.text))})
    parts = ((at, piece) for at, end in zip(bounds, bounds[1:]) for piece in splitter.create_documents([doc.text[at:end]]))
    for at, piece in parts:
        a = at + int(piece.metadata["start_index"])
        b = a + len(piece.page_content)
        lo = max(0, bisect.bisect_right(starts, a) - 1)
        hi = bisect.bisect_left(starts, b)
        pages = frozenset().union(*(pages_of(e) for e in spans[lo:hi] if e.char_end > a))
        out.append(RetrievalUnit(piece.page_content, a, b, frozenset(pages)))
    # the splitter cuts for size alone: every cut but the document's ends and the forced `cuts`
    forced = set(bounds)
    sections = doc.section_paths(u.start for u in out)
    blocks = blocks_at(doc, [u.start for u in out])
    return [replace(u, section=path, cut_before=u.start not in forced,
                    cut_after=n + 1 < len(out) and out[n + 1].start not in forced, block=block)
            for n, (u, path, block) in enumerate(zip(out, sections, blocks))]


def _relevant(unit: RetrievalUnit, r: Resolved) -> bool:
    if r.spans:
        if unit.start is None or unit.end is None:
            return False
        return any(unit.start < b and a < unit.end for a, b in r.spans)
    return bool(unit.pages & r.pages)


def unit_ranker(retriever: str, units: Sequence[RetrievalUnit]) -> UnitRanker:
    """The ranker named `retriever` over `units`, each by the texts it is indexed by (RetrievalUnit.ranked_texts)."""
    return make_ranker(retriever, [u.ranked_texts for u in units])


def evaluate(units: Sequence[RetrievalUnit], resolved: Sequence[Resolved], ks: Sequence[int] = KS,
             token_k: int = TOKEN_K, retriever: str = "bm25", *, text: str,
             ranker: UnitRanker | None = None, budgets: Sequence[int] = BUDGETS,
             policy: str = DEFAULT_POLICY) -> tuple[dict, list[dict]]:
    """Summary scores of ranking `units` of the document `text` (with `retriever`, or `ranker`,
    one unit_ranker built over these units before) for the resolved questions, and one row per
    question (with `retrieved`, the indices of its top `token_k` units). For a question with a
    located span, each of `budgets` adds `budget_recall@B` and `budget_tokens@B`: the span's share
    inside what `policy` sends from the same ranking until B tokens are filled (budget.sent).

    Questions with neither a located span nor a page are left out (counted in `questions_used`)."""
    if ranker is None:
        ranker = unit_ranker(retriever, units)
    elif ranker.retriever != retriever or ranker.size != len(units):
        raise ValueError(f"a {ranker.retriever} ranker over {ranker.size} units was given to score {retriever} "
                         f"retrieval of {len(units)} units")
    rows: list[dict[str, Any]] = []
    tokens = unit_tokens(units) if budgets else []
    for r in resolved:
        if not r.spans and not r.pages:
            continue
        ranking = ranker.rank(r.question.question)
        first = next((n for n, i in enumerate(ranking, 1) if _relevant(units[i], r)), None)
        row: dict[str, Any] = {"id": r.question.id, "first_relevant_rank": first, "mrr": 1.0 / first if first else 0.0,
                               "retrieved": [int(i) for i in ranking[:token_k]]}
        for k in ks:
            row[f"recall@{k}"] = 1.0 if first is not None and first <= k else 0.0
        if r.spans:
            top = [units[i] for i in ranking[:token_k]]
            ranges = [(u.start, u.end) for u in top if u.start is not None and u.end is not None]
            p, rec, iou = token_scores(ranges, r.spans, text)
            row.update({"token_precision": p, "token_recall": rec, "token_iou": iou})
            for budget in budgets:
                ranges, spent = sent(units, tokens, ranking, budget, policy)
                row[f"budget_recall@{budget}"] = token_scores(ranges, r.spans, text)[1]
                row[f"budget_tokens@{budget}"] = spent
        rows.append(row)
    summary: dict = {"questions_used": len(rows), "units": len(units)}
    for key in [f"recall@{k}" for k in ks] + ["mrr"]:
        summary[key] = _mean(row[key] for row in rows)
    spanned = [row for row in rows if "token_iou" in row]
    for key in ("token_precision", "token_recall", "token_iou", *budget_keys(budgets)):
        summary[key] = _mean(row[key] for row in spanned)
    return summary, rows


def _mean(values: Iterable[float]) -> float | None:
    v = list(values)
    return round(sum(v) / len(v), 4) if v else None


def retrieval_metrics(doc: Document, chunkset: ChunkSet, questions: Sequence[Question],
                      ks: Sequence[int] = KS, token_k: int = TOKEN_K, retriever: str = "bm25",
                      indexing: Indexing = OWN_TEXT) -> tuple[dict, dict]:
    """Flat `ret_<system>_<measure>` scores for chunks, raw elements and the baseline splitter.

    The baseline (the splitter with sentence ends among its separators) splits the canonical text
    with chunks of the ChunkSet's mean length in characters (no overlap), so it is compared at the
    same size. The chunks are ranked as `indexing` says (neighbours each side: INDEX_CONTEXT);
    elements and the baseline by their own text. The chunks and the baseline also get recall at
    each budget of BUDGETS (`ret_chunks_budget_recall_at_1000`, tokens sent beside it). Returns (flat, details)."""
    norm = normalized_text(doc.text)
    resolved = resolve(doc, questions, norm)
    sizes = [c.char_len for c in chunkset.chunks]
    base_size = max(50, round(sum(sizes) / len(sizes))) if sizes else 1000
    systems = {
        "chunks": indexed_units(chunk_units(chunkset), indexing, doc),
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
    for name, units in systems.items():  # budgets for what a pipeline would send: chunks or splitter pieces
        summary, rows = evaluate(units, resolved, ks, token_k, retriever, text=doc.text,
                                 budgets=() if name == "elements" else BUDGETS)
        for key, value in summary.items():
            flat[f"ret_{name}_{key.replace('@', '_at_')}"] = value
        details[name] = rows
    return flat, details
