"""Metrics of one ChunkSet: size, evidence, structure, seed-2 targets, defects and the retrieval check.

Each group is a plain function of a Document and a ChunkSet returning a flat dict of JSON
numbers; `all_metrics` merges them (plus retrieval scores when questions are given) into the one
row a sweep records per grid point. Size statistics and the seed-2 targets come from
`chunkbench.evaluate.stats`, so `chunkbench stats` and the sweep report the same numbers.

Character positions are spans of the canonical text (`doc.text`); a chunk's span is its
`start_char`/`end_char`, or the span of its source elements when it has no offsets.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from chunkbench.text.clauses import clause_ref
from chunkbench.text.context import OWN_TEXT, Indexing
from chunkbench.text.ranges import RangeIndex, merge_ranges

from . import stats
from .defects import defect_metrics
from .edges import chunk_range, is_mid_sentence, opens_dependent
from .verdict import verdict_of

if TYPE_CHECKING:
    from chunkbench.types.chunk import Chunk
    from chunkbench.types.chunkset import ChunkSet
    from chunkbench.types.document import Document, Element

#: metric groups in display order (for tables in the notebook and the summary)
STRUCTURE_KEYS = (
    "tables_split", "lists_split", "clauses_split", "heading_only_chunks", "mid_sentence_chunks",
    "mid_sentence_share", "dependent_start_chunks", "dependent_start_share", "chunks_spanning_pages",
    "clause_ref_rate", "clause_ref_text_rate", "section_path_coverage", "text_lost_chars", "text_lost_share",
    "overlap_share", "storage_overhead",
)


# --------------------------------------------------------------------------- helpers


def _content_elements(doc: Document, chunkset: ChunkSet) -> list[Element]:
    """Non-empty elements the strategy did not skip, in reading order."""
    return [e for e in doc.elements if e.text.strip() and e.id not in chunkset.skipped]


# --------------------------------------------------------------------------- size


def size_metrics(doc: Document, chunkset: ChunkSet) -> dict:
    """Chunk count and chars/tokens min, median, p95, max, mean (from `stats.size_summary`)."""
    s = stats.size_summary(chunkset)
    out = {"chunks": s.count}
    for unit, dist in (("chars", s.chars), ("tokens", s.tokens)):
        for key, value in dist.to_dict().items():
            out[f"{unit}_{key}"] = value
    return out


def size_histogram(chunkset: ChunkSet, unit: str = "chars", bins: int = 20) -> dict:
    """Histogram data of chunk sizes: `{"unit", "edges", "counts"}` with `bins` equal-width bins."""
    import numpy as np

    values = [c.char_len if unit == "chars" else c.tokens_est for c in chunkset.chunks]
    if unit not in ("chars", "tokens"):
        raise ValueError(f"unit must be 'chars' or 'tokens', got {unit!r}")
    counts, edges = np.histogram(values or [0], bins=bins)
    if not values:
        counts = np.zeros_like(counts)
    return {"unit": unit, "edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}


# --------------------------------------------------------------------------- evidence


def evidence_metrics(doc: Document, chunkset: ChunkSet) -> dict:
    """Share of chunks that carry pages, bounding boxes and source blocks."""
    n = len(chunkset.chunks)
    return {
        "share_with_pages": stats.ratio(sum(c.page_start is not None for c in chunkset.chunks), n),
        "share_with_bbox": stats.ratio(sum(bool(c.bbox) for c in chunkset.chunks), n),
        "share_with_source_blocks": stats.ratio(sum(bool(c.source_blocks) for c in chunkset.chunks), n),
    }


# --------------------------------------------------------------------------- structure


def is_heading_only(doc: Document, chunk: Chunk) -> bool:
    """Whether every source element of the chunk is a heading (a heading left alone)."""
    els = [doc.element(i) for i in chunk.source_blocks if i in doc._by_id]
    return bool(els) and all(e.is_heading for e in els)


def list_runs(elements: Sequence[Element]) -> list[tuple[int, int]]:
    """Spans of runs of consecutive list elements (one list = one run)."""
    runs: list[tuple[int, int]] = []
    open_run = False
    for e in elements:
        if e.type == "list":
            if open_run:
                runs[-1] = (runs[-1][0], e.char_end)
            else:
                runs.append((e.char_start, e.char_end))
            open_run = True
        else:
            open_run = False
    return runs


def starts_numbered_clause(text: str) -> bool:
    """Whether text starts with a numbered clause ref ("2.1", "3.", "4.2(a)", "A.1"; not "(a)"),
    by the contract strategy's specs/2 regexes."""
    ref = clause_ref(text)
    return ref is not None and ref.numeric


def clause_spans(elements: Sequence[Element]) -> list[tuple[int, int]]:
    """Spans of numbered clauses: from an element starting "2.1 …" up to the next clause or heading
    (lettered items "(a)" belong to the clause above them)."""
    spans: list[tuple[int, int]] = []
    open_clause = False
    for e in elements:
        if e.is_heading:
            open_clause = False
        elif e.type in ("paragraph", "list", "other") and starts_numbered_clause(e.text):
            spans.append((e.char_start, e.char_end))
            open_clause = True
        elif open_clause:
            spans[-1] = (spans[-1][0], e.char_end)
    return spans


def nonspace_prefix(text: str) -> list[int]:
    """prefix[i] = non-whitespace characters in text[:i] (counts of any span in O(1))."""
    return [0, *itertools.accumulate(0 if ch.isspace() else 1 for ch in text)]


def coverage(doc: Document, chunkset: ChunkSet, nonspace: list[int] | None = None) -> tuple[int, int, int]:
    """(lost, total) non-whitespace characters of non-skipped elements, and the chars covered twice+.

    A character of an element is covered when a chunk listing that element among its source
    blocks (or a chunk with no source blocks) spans it."""
    nonspace = nonspace or nonspace_prefix(doc.text)
    by_element: dict[str, list[tuple[int, int] | None]] = {}  # None: a chunk without offsets
    anonymous: list[tuple[int, int]] = []
    for c in chunkset.chunks:
        r = chunk_range(doc, c)
        if not c.source_blocks:
            if r:
                anonymous.append(r)
            continue
        for eid in c.source_blocks:
            by_element.setdefault(eid, []).append(r)
    anon = RangeIndex(anonymous)
    lost = total = 0
    for e in _content_elements(doc, chunkset):
        a, b = e.char_start, e.char_end
        total += nonspace[b] - nonspace[a]
        spans = by_element.get(e.id, [])
        known = [s for s in spans if s is not None]
        if len(known) < len(spans):
            continue  # a chunk lists the element but has no offsets: the whole element is in it
        covered = merge_ranges([(max(a, lo), min(b, hi)) for lo, hi in known + anon.touching(a, b)])
        inside = sum(nonspace[hi] - nonspace[lo] for lo, hi in covered)
        lost += (nonspace[b] - nonspace[a]) - inside
    return lost, total, _covered_twice(doc, chunkset, nonspace)


def _covered_twice(doc: Document, chunkset: ChunkSet, nonspace: list[int]) -> int:
    """Non-whitespace characters of `doc.text` that lie in two or more chunk spans."""
    events = []
    for c in chunkset.chunks:
        r = chunk_range(doc, c)
        if r and r[1] > r[0]:
            events += [(r[0], 1), (r[1], -1)]
    events.sort()
    depth, prev, twice = 0, 0, 0
    for pos, step in events:
        if depth >= 2:
            twice += nonspace[pos] - nonspace[prev]
        depth += step
        prev = pos
    return twice


def structure_metrics(doc: Document, chunkset: ChunkSet) -> dict:
    """Tables/lists/clauses split, heading-only and mid-sentence chunks, chunks opening with a
    sentence that refers back, page spans, clause refs, section_path coverage, text lost and text
    duplicated."""
    chunks = chunkset.chunks
    n = len(chunks)
    ranges = RangeIndex(chunk_range(doc, c) for c in chunks)
    elements = _content_elements(doc, chunkset)
    tables = [(e.char_start, e.char_end) for e in elements if e.type == "table"]
    lists = list_runs(elements)
    clauses = clause_spans(elements)
    mid = sum(is_mid_sentence(doc, c) for c in chunks)
    dependent = sum(opens_dependent(doc, c) for c in chunks)
    nonspace = nonspace_prefix(doc.text)
    lost, total, twice = coverage(doc, chunkset, nonspace)
    spanned = merge_ranges(r for r in (chunk_range(doc, c) for c in chunks) if r)
    spanned_chars = sum(b - a for a, b in spanned)
    nonspace_spanned = sum(nonspace[b] - nonspace[a] for a, b in spanned)
    return {
        "tables": len(tables),
        "tables_split": sum(ranges.splits(a, b) for a, b in tables),
        "lists": len(lists),
        "lists_split": sum(ranges.splits(a, b) for a, b in lists),
        "clauses": len(clauses),
        "clauses_split": sum(ranges.splits(a, b) for a, b in clauses),
        "heading_only_chunks": sum(is_heading_only(doc, c) for c in chunks),
        "mid_sentence_chunks": mid,
        "mid_sentence_share": stats.ratio(mid, n),
        "dependent_start_chunks": dependent,
        "dependent_start_share": stats.ratio(dependent, n),
        "chunks_spanning_pages": sum(
            c.page_start is not None and c.page_end is not None and c.page_end > c.page_start for c in chunks
        ),
        "clause_ref_rate": stats.clause_ref_rate(chunkset),
        "clause_ref_text_rate": stats.ratio(sum(clause_ref(c.text) is not None for c in chunks), n),
        "section_path_coverage": stats.ratio(sum(bool(c.section_path) for c in chunks), n),
        "skipped_elements": len(chunkset.skipped),
        "text_lost_chars": lost,
        "text_lost_share": stats.ratio(lost, total),
        "overlap_chars": twice,
        "overlap_share": stats.ratio(twice, nonspace_spanned),
        "storage_overhead": round(sum(c.char_len for c in chunks) / spanned_chars - 1, 4) if spanned_chars else None,
    }


# --------------------------------------------------------------------------- targets and all


def target_metrics(chunkset: ChunkSet) -> dict:
    """The seed-2 quality targets (from `stats.quality_targets`): pass flag and value of each."""
    targets = stats.quality_targets(chunkset)
    out: dict = {"targets_passed": sum(t.passed for t in targets), "targets_total": len(targets)}
    for t in targets:
        out[f"target_{t.name}"] = t.passed
        out[f"target_{t.name}_value"] = t.value
    return out


def all_metrics(doc: Document, chunkset: ChunkSet, questions=None, labels=None) -> dict:
    """Every metric of `chunkset` as one flat JSON-able dict.

    `questions`: None (no retrieval check), a list of `retrieval.Question`, or a path of a
    questions file (`*.questions.json` or FinanceBench `*.jsonl`). `labels`: reviewers' labelled
    boundaries (`labels.load_labels(doc, workspace)`) for rev_boundary_precision/recall/f1."""
    return measure(doc, chunkset, questions, labels=labels)[0]


def measure(doc: Document, chunkset: ChunkSet, questions=None, retriever: str = "bm25",
            labels=None, indexing: Indexing = OWN_TEXT, proxy: bool = True, kept=None) -> tuple[dict, dict]:
    """`all_metrics` plus details for metrics.json: size histograms, per-question retrieval
    (ranked with `retriever`: bm25, or dense with the optional extra; each chunk indexed as
    `indexing` says: by default its own text alone), without questions the label-free `proxy_*`
    scores (evaluate.proxy; `proxy=False`: not), and what the reviewer agreement rests on. `kept`:
    the owner's strategies.kept.KeptState (a sweep's), so the proxy queries are made once per input."""
    flat = {
        **size_metrics(doc, chunkset),
        **evidence_metrics(doc, chunkset),
        **structure_metrics(doc, chunkset),
        **target_metrics(chunkset),
        **defect_metrics(chunkset),
    }
    flat["verdict"] = verdict_of(flat["targets_passed"], flat["targets_total"], flat).word
    details: dict = {
        "histogram_chars": size_histogram(chunkset, "chars"),
        "histogram_tokens": size_histogram(chunkset, "tokens"),
    }
    if questions is not None:
        from . import retrieval

        if isinstance(questions, (str, os.PathLike)):
            questions = retrieval.load_questions(questions, doc)
        scores, per_question = retrieval.retrieval_metrics(doc, chunkset, questions, retriever=retriever,
                                                           indexing=indexing)
        flat.update(scores)
        details["retrieval"] = per_question
    elif proxy:
        from .proxy import proxy_metrics

        scores, more = proxy_metrics(doc, chunkset, indexing, retriever, kept=kept)  # queries kept by a sweep
        flat.update(scores)
        details.update(more)
    if labels is not None and labels.labels:
        from .labels import boundary_scores, reproduced

        flat.update(boundary_scores(doc, chunkset, labels))
        details["labels"] = labels.describe()
        if labels.edits:
            details["edits_reproduced"] = reproduced(doc, chunkset, labels)
    return flat, details


# --------------------------------------------------------------------------- display helpers


def structure_table(metrics: dict):
    """The structural metrics and seed-2 targets of an `all_metrics` dict as a two-column DataFrame."""
    import pandas as pd

    keys = [k for k in STRUCTURE_KEYS if k in metrics]
    keys += [k for k in metrics if k.startswith("target_") or k.startswith("targets_")]
    return pd.DataFrame({"metric": keys, "value": [metrics[k] for k in keys]}).set_index("metric")


def retrieval_table(metrics: dict):
    """Retrieval scores of an `all_metrics` dict: one row per system (chunks, elements, baseline)."""
    import pandas as pd

    rows = {}
    for system in ("chunks", "elements", "baseline"):
        prefix = f"ret_{system}_"
        rows[system] = {k[len(prefix):]: v for k, v in metrics.items() if k.startswith(prefix)}
    return pd.DataFrame(rows).T
