"""Chunks people already have, from any chunker, on chunkbench's pages: `inspect(doc, chunks)`.

`read` turns a chunk file or the chunkers' objects into `ForeignChunk`s, `locate` finds each in the
Document's canonical text (exact, normalised, by the items the chunker named, fuzzy, partial or not at all), `reasons` infers why each
boundary is where it is. The result is an ordinary ChunkSet (pages, bboxes, source elements,
offsets), so every view works on it: overlays, reports, the boundary diff, review, metrics."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from chunkbench.errors import InputError
from chunkbench.runtime import paused_gc
from chunkbench.text.words import stands_in
from chunkbench.types.chunk import Boundary, Reason, build_chunk, with_section_paths
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document, Element, is_noise
from chunkbench.types.ids import document_key, with_stable_ids

from .locate import KINDS, Match, document_furniture, locate_all
from .read import ForeignChunk, from_objects, read_chunk_file
from .reasons import BoundaryReader

#: the ruleset of inspected chunks (bump when locating or the inferred reasons change)
RULESET = "foreign/2026-12-02"

__all__ = ["KINDS", "RULESET", "ForeignChunk", "Match", "inspect", "match_counts", "match_summary", "read_chunks"]


def read_chunks(chunks: str | os.PathLike | Iterable[Any]) -> list[ForeignChunk]:
    """A chunk file's chunks, or the given objects' (strings, dicts, the chunkers' own chunks)."""
    if isinstance(chunks, (str, os.PathLike)):
        return read_chunk_file(chunks)
    return from_objects(chunks)


def inspect(doc: Document, chunks: str | os.PathLike | Iterable[Any], *, name: str = "foreign",
            params: Mapping[str, Any] | None = None) -> ChunkSet:
    """Another chunker's chunks as a ChunkSet of `doc`: each located in the canonical text and given
    an inferred boundary reason; `name` and `params` say which chunker made them (shown everywhere a
    strategy is). Every chunk is kept: one not found has no pages and reason `unlocated`."""
    with paused_gc():
        return _inspect(doc, read_chunks(chunks), name, params)


def _inspect(doc: Document, foreign: list[ForeignChunk], name: str, params: Mapping[str, Any] | None) -> ChunkSet:
    furniture = document_furniture(doc)
    items = _item_spans(doc) if any(c.refs for c in foreign) else {}
    matches = locate_all(doc.text, [c.text for c in foreign], furniture, [_item_spans_named(items, c.refs) for c in foreign])
    reader = BoundaryReader(doc)
    found = [[e for e in reader.elements_in_spans(m.spans) if _holds(fc.text, m, e)] for fc, m in zip(foreign, matches)]
    covered = {e.id for elements in found for e in elements}
    reader.in_no_chunk = frozenset(e.id for e in doc.elements if e.id not in covered)
    first = next((i for i, m in enumerate(matches) if m.located), None)
    out = []
    previous_end: int | None = None
    for i, (fc, m, elements) in enumerate(zip(foreign, matches, found)):
        boundary = reader.boundary(m, i == first)
        if (m.start is not None and previous_end is not None and previous_end > m.start
                and boundary.reason is not Reason.UNCERTAIN_PLACE):  # an uncertain place overlaps nothing for sure
            boundary = Boundary(boundary.reason, f"{boundary.detail} (overlaps the previous chunk by "
                                                 f"{previous_end - m.start} chars)")
        previous_end = m.end if m.end is not None else previous_end
        extra: dict[str, Any] = {"match": m.kind, "match_score": m.score, "foreign_index": i}
        if m.pieces:
            extra["match_pieces"] = [list(p) for p in m.pieces]
        if m.items_apart:
            extra["match_items_apart"] = True
        if fc.start_index is not None:
            extra["foreign_start_index"] = fc.start_index
        if fc.metadata:
            extra["foreign_metadata"] = dict(fc.metadata)
        out.append(build_chunk(
            doc, index=i, chunk_id=f"foreign_{i}",
            type="table" if elements and all(e.type == "table" for e in elements) else "text",
            text=fc.text, elements=elements, boundary=boundary,
            start_char=m.start, end_char=m.end, extra=extra,
        ))
    return ChunkSet(doc=doc, strategy=name, params=dict(params or {}), chunks=with_stable_ids(with_section_paths(doc, out), document_key(doc)),
                    ruleset=RULESET)


def _holds(text: str, match: Match, e: Element) -> bool:
    """Whether a chunk found at `match`, of text `text`, holds element `e` of its span: page
    furniture wholly inside the span whose words are not in the text is not the chunk's (the "6" at
    the foot of the page before, which another extraction read where the next page begins); furniture
    a chunk's edge cuts through (a token window ending in "MSA-2025-") is."""
    if not is_noise(e) or stands_in(e.text, text):
        return True
    inside = any(a <= (e.char_start or 0) and (e.char_end or 0) <= b for a, b in match.spans)
    return not inside


def _item_spans(doc: Document) -> dict[str, tuple[int, int]]:
    """The canonical span of each element by its id, and of each part of a joined element by the
    id that part had (a Docling item or MinerU block joined to the paragraph it continues)."""
    spans: dict[str, tuple[int, int]] = {}
    for e in doc.elements:
        if e.char_start is None or e.char_end is None:
            continue
        spans[e.id] = (e.char_start, e.char_end)
        parts, segments = e.parts, e.attrs.get("segments") or ()
        if len(parts) > 1 and len(parts) == len(segments):  # segments that Element.parts found sound
            for part, segment in zip(parts, segments):
                if isinstance(segment.get("id"), str) and part.char_start is not None and part.char_end is not None:
                    spans.setdefault(segment["id"], (part.char_start, part.char_end))
    return spans


def _item_spans_named(items: Mapping[str, tuple[int, int]], refs: Sequence[str]) -> list[tuple[int, int]] | None:
    """The canonical spans of the elements a chunk's chunker says it came from (each named by its
    element id, or by a Docling reference `#/texts/3` to a Docling input's item), when all are the
    Document's; else None (search everywhere)."""
    spans = []
    for ref in refs:
        span = items.get(ref) or items.get(ref.removeprefix("#/"))
        if span is None:
            return None
        spans.append(span)
    return spans or None


def match_counts(chunkset: ChunkSet) -> dict[str, int]:
    """How many chunks were located each way (KINDS order; chunks of chunkbench's own count as exact)."""
    seen = Counter(c.extra.get("match", "exact") for c in chunkset)
    return {k: seen.get(k, 0) for k in KINDS}


def match_summary(chunkset: ChunkSet) -> str:
    """One line: e.g. "located 122 of 124 chunks: 100 exactly, 20 normalised, 2 fuzzily; 2 not at all"."""
    n = match_counts(chunkset)
    located = len(chunkset) - n["unlocated"]
    pieces = sum(1 for c in chunkset if c.extra.get("match_pieces") and not c.extra.get("match_items_apart"))
    apart = sum(1 for c in chunkset if c.extra.get("match_items_apart"))
    notes = ([f"{pieces} of them in pieces: another reading order"] if pieces else []) + (
        [f"{apart} as items apart: text between them left out by their chunker"] if apart else [])
    normalised = f"{n['normalised']} normalised" + (f" ({'; '.join(notes)})" if notes else "")
    parts = [f"{n['exact']} exactly", normalised, f"{n['fuzzy']} fuzzily"]
    if n["referenced"]:
        parts.insert(2, f"{n['referenced']} by the items their chunker named (text not the document's)")
    if n["partial"]:
        parts.append(f"{n['partial']} only partly")
    line = f"located {located} of {len(chunkset)} chunks: " + ", ".join(parts)
    return line + (f"; {n['unlocated']} not at all" if n["unlocated"] else "")


def require_located(chunkset: ChunkSet, source: str | os.PathLike | None = None) -> None:
    """InputError when not one chunk could be placed in the document: nothing can be shown."""
    if chunkset.chunks and all(c.start_char is None for c in chunkset):
        raise InputError(f"none of the {len(chunkset)} chunks was found in {chunkset.doc.source}: "
                         "are they from this document?", source)
