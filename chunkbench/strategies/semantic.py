"""Strategy `semantic`: neighbouring sentences grouped while their meaning stays close.

* The content (page furniture skipped) is cut into the units of `sentences`: headings, sentences,
  table pieces, and pieces of sentences longer than `max_chars`.
* Each sentence is embedded with chunkbench's numpy all-MiniLM-L6-v2 (the `dense` extra: offline,
  no torch), and each is compared with the sentence before it (cosine similarity).
* The threshold is the document's own: with `breakpoint_percentile` 90, the similarity below which
  the 10% least similar neighbouring pairs fall. A chunk ends before a sentence whose similarity
  is under it, once the chunk has `min_chars`; it never grows past `max_chars` (it then ends
  before the sentence that would pass it).
* Headings start a chunk and take what follows them; a table is a chunk of its own, cut at rows
  when longer than `max_chars`, as in `sentences`.

Each boundary says why: "similarity 0.41 < 0.55 (p90 of 312 sentence pairs)", or the size limit,
heading, table. Offsets: exact canonical bounds; the text is that span less any skipped element.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from chunkbench.types.chunk import Boundary, Chunk, Reason
from chunkbench.types.document import Document

from .base import Param, StrategyResult, always, declare
from .sentences import check_min_max, sentence_units
from .spans import (
    HARD,
    HEADING,
    PARAGRAPH,
    ROW,
    SENTENCE,
    SKIP_CONTENTS,
    TABLE,
    TITLE,
    ContentText,
    Packer,
    PackUnit,
    content_chunk,
)

#: unit kinds whose text is embedded and compared
TEXT_KINDS = (PARAGRAPH, SENTENCE, HARD)


_check = check_min_max("semantic")


#: documents whose sentence embeddings are kept: more than an evaluation corpus usually has, since
#: `evaluate` runs each setting over every document in turn (with 4 kept, a 6-document grid
#: embedded every document again for each setting)
EMBEDDED_DOCUMENTS = 16


@functools.lru_cache(maxsize=EMBEDDED_DOCUMENTS)
def _embeddings(texts: tuple[str, ...]) -> np.ndarray:
    """The MiniLM embedding of each text (unit length), kept per document: moving a slider or the
    next setting of a grid re-groups the same sentences without embedding them again. Keyed by the
    whole tuple, not per text: a batch's padding changes the last bits, so a vector is always the
    one this document's own batches give (deterministic chunks)."""
    from chunkbench.text.minilm import dense_model

    model = dense_model()
    if not texts:
        return np.zeros((0, model.dimension), dtype=np.float32)
    from chunkbench.io.progress import encode_with_progress

    unique = sorted(set(texts))
    row = {t: i for i, t in enumerate(unique)}
    return encode_with_progress(model, unique, "sentences")[[row[t] for t in texts]]


def similarities(text: str, units: Sequence[PackUnit]) -> list[float | None]:
    """For each unit, its cosine similarity to the unit before it when both are sentences (None
    after a heading or a table, and for the first)."""
    indices = [i for i, u in enumerate(units) if u.kind in TEXT_KINDS]
    vectors = _embeddings(tuple(" ".join(text[units[i].start:units[i].end].split()) for i in indices))
    by_unit = dict(zip(indices, vectors))
    out: list[float | None] = [None] * len(units)
    for i in range(1, len(units)):
        if i in by_unit and i - 1 in by_unit:
            out[i] = float(np.dot(by_unit[i - 1], by_unit[i]))
    return out


def chunk_semantic(doc: Document, *, breakpoint_percentile: int, min_chars: int, max_chars: int,
                   skip_contents: bool) -> StrategyResult:
    """Sentences grouped until the similarity of the next one to the last drops below the threshold."""
    _check({"min_chars": min_chars, "max_chars": max_chars})
    ct, skipped = ContentText.of(doc, skip_contents=skip_contents)
    units = [u for u, _ in sentence_units(ct, Packer(ct.text, max_chars, header_room=True))]
    sims = similarities(ct.text, units)
    pairs = [s for s in sims if s is not None]
    threshold = float(np.percentile(pairs, 100 - breakpoint_percentile)) if pairs else float("-inf")
    cut_at = f"p{breakpoint_percentile} of {len(pairs)} sentence pairs"
    groups: list[list[PackUnit]] = []
    reasons: list[Boundary] = []
    openings: list[float | None] = []  # the similarity of each chunk's first sentence to the one before
    for unit, sim in zip(units, sims):
        why = _cut(groups[-1], unit, sim, threshold, cut_at, min_chars, max_chars) if groups else None
        if groups and why is None:
            groups[-1].append(unit)
            continue
        groups.append([unit])
        if why is not None and unit.kind == TITLE:
            why = ct.lead_in_boundary(unit.start, "tables are chunks of their own")
        reasons.append(why or Boundary(Reason.DOCUMENT_START, "first chunk of the document"))
        openings.append(sim)
    chunks: list[Chunk] = []
    for n, (group, boundary, opening) in enumerate(zip(groups, reasons, openings)):
        extra = {"sentences": sum(u.kind in (PARAGRAPH, SENTENCE, TITLE) for u in group),
                 "similarity": None if opening is None else round(opening, 3),
                 "threshold": None if not pairs else round(threshold, 3)}
        chunks.append(content_chunk(doc, ct, n, group[0].start, group[-1].end, boundary, extra))
    return StrategyResult(chunks=chunks, skipped=skipped)


def _cut(group: list[PackUnit], unit: PackUnit, sim: float | None, threshold: float, cut_at: str, minimum: int,
         maximum: int) -> Boundary | None:
    """Why `unit` starts a new chunk after `group`, or None when it joins it."""
    size = group[-1].end - group[0].start
    if all(u.kind == HEADING for u in group) and unit.kind not in (ROW, HARD):
        return None  # headings take what follows them
    if unit.kind == HEADING:
        return Boundary(Reason.HEADING, "a heading starts here")
    if unit.kind in (TABLE, TITLE):
        return Boundary(Reason.TABLE, "a table starts here (tables are chunks of their own)")
    if unit.kind == ROW:
        return Boundary(Reason.TABLE_ROW_SPLIT, f"a table longer than max_chars ({maximum}) continues at a row")
    if group[-1].kind in (TABLE, TITLE, ROW):
        return Boundary(Reason.AFTER_TABLE, "the text after a table")
    if unit.end - group[0].start > maximum:
        if unit.kind == HARD:
            return Boundary(Reason.WORD_SPLIT, f"a sentence longer than max_chars ({maximum}) continues at a space")
        return Boundary(Reason.SIZE_LIMIT, f"the next sentence would pass max_chars ({maximum})")
    if sim is not None and sim < threshold and size >= minimum:
        return Boundary(Reason.TOPIC_SHIFT, f"similarity {sim:.2f} < {threshold:.2f} ({cut_at})")
    return None


STRATEGY = declare(
    chunk_semantic,
    "semantic",
    params=[
        SKIP_CONTENTS,
        Param("breakpoint_percentile", int, 90, "the share of least similar neighbouring sentence pairs (100 - "
              "this, in %) that are cuts: 90 cuts at the 10% least similar", min=1, max=99, ui_step=1),
        Param("min_chars", int, 150, "no cut before a chunk has this many characters", min=0, max=10_000, ui_step=10),
        Param("max_chars", int, 1000, "largest chunk; it ends before the sentence that would pass this",
              min=20, max=100_000, ui_step=50),
    ],
    doc="neighbouring sentences grouped while their all-MiniLM-L6-v2 similarity stays above the document's "
        "threshold (a percentile); the dense extra",
    spec="docs/strategy-semantic.md",
    ruleset="semantic/2026-12-05",
    offsets="slice_without_skipped",
    check=_check,
    boundaries="a sentence whose similarity to the one before falls below the document's `breakpoint_percentile` "
               "(90) threshold, once the chunk has `min_chars` (150); never past `max_chars` (1000); headings and "
               "tables as in `sentences`",
    fields="`sentences`, `similarity` (the opening sentence's, to the one before), `threshold`",
    slow="embeds every sentence with MiniLM on the CPU (about 8,000 characters of text a second)",
    size_limit=lambda p: (p["max_chars"], "chars"),
    keeps_lead_ins=always,
)
