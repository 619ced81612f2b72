"""Reviewers' boundary edits applied to a chunking: merge a chunk with the next, split a chunk at
a word, move a boundary to another word.

An edit is anchored to the text, not to chunk numbers: the element it falls in, the character
offset in that element's text, and a few characters on each side. It is found again after a
re-parse (the element id and offset, else the text around it near the same place) and under other
parameters (a boundary is a place in the text). Applying edits (`apply_edits`) returns the edited
ChunkSet and what could not be applied: an edit whose anchor is gone, a merge or move where these
parameters make no boundary, and conflicts between reviewers (one removes a boundary another
keeps or moves elsewhere), which are never settled by whoever wrote last: none of the conflicting
edits is applied. Chunks an edit makes have reason `reviewer_edit`, with who and when in the
detail; their text is the canonical span (page furniture the strategy skipped left out).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable

from chunkbench.errors import UsageError
from chunkbench.text.segment import one_line, skip_space, word_start
from chunkbench.types.chunk import Boundary, Chunk, Reason, build_chunk
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document
from chunkbench.types.review import ANCHOR_CHARS, KINDS, Anchor, Edit, EditOutcome, anchor_at, resolve

#: the edit record (types.review), used here and by every caller of `apply_edits` under this name too
__all__ = ["ANCHOR_CHARS", "KINDS", "Anchor", "Edit", "EditOutcome", "anchor_at", "resolve", "apply_edits"]


def apply_edits(chunkset: ChunkSet, edits: Iterable[Edit]) -> EditOutcome:
    """`chunkset` with `edits` applied in order (see the module docstring); itself when there are none."""
    edits = list(edits)
    if not edits:
        return EditOutcome(chunkset)
    text = chunkset.doc.text
    starts = {skip_space(text, c.start_char): c.index for c in chunkset.chunks[1:] if c.start_char is not None}
    resolved, stale = _resolved(chunkset.doc, edits)
    effects = _effects(resolved, text)
    conflicts, blocked = _conflicts(effects, text)
    remove_at: dict[int, Edit] = {}
    add_at: dict[int, Edit] = {}
    applied: list[Edit] = []
    for e, remove, add in effects:
        if id(e) in blocked or (remove is None and add is None):  # disputed, or taken back by its reviewer
            continue
        if remove is not None and remove not in starts:
            stale.append((e, f"there is no boundary before {_quoted(text[remove:remove + 40])} under these parameters"))
            continue
        if remove is not None:
            remove_at[remove] = e
        if add is not None:
            add_at[add] = e
        applied.append(e)
    add_at = {p: e for p, e in add_at.items() if p not in starts and 0 < p < len(text)}
    chunks = _rebuild(chunkset, {starts[p]: e for p, e in remove_at.items()}, add_at)
    return EditOutcome(dataclasses.replace(chunkset, chunks=tuple(chunks)), tuple(applied), tuple(stale),
                       tuple(conflicts))


def _resolved(doc: Document, edits: list[Edit]) -> tuple[list[tuple[Edit, int, int | None]], list[tuple[Edit, str]]]:
    """Each edit's place (and a move's target) in `doc`'s text, at a word's start; the edits whose
    text is gone, with why."""
    text = doc.text
    resolved: list[tuple[Edit, int, int | None]] = []
    stale: list[tuple[Edit, str]] = []
    for e in edits:
        at = resolve(doc, e.at)
        to = resolve(doc, e.to) if e.to is not None else None
        if at is None or (e.kind == "move" and to is None):
            stale.append((e, f"its text is gone from the document ({_quoted(e.at.before + e.at.after)})"))
            continue
        resolved.append((e, skip_space(text, at), None if to is None else word_start(text, to)))
    return resolved, stale


def _effects(resolved: list[tuple[Edit, int, int | None]], text: str) -> list[list]:
    """What each edit does to the cuts: [edit, cut removed, cut added]. A reviewer's later edit of a
    cut they made (or removed) themselves takes that back rather than disagreeing with it."""
    effects: list[list] = []
    for e, at, to in resolved:
        remove = at if e.kind in ("merge", "move") else None
        add = word_start(text, at) if e.kind == "split" else to
        for eff in effects:
            if eff[0].reviewer != e.reviewer:
                continue
            if remove is not None and eff[2] == remove:
                eff[2], remove = None, None
            if add is not None and eff[1] == add:
                eff[1], add = None, None
        effects.append([e, remove, add])
    return effects


def _conflicts(effects: list[list], text: str) -> tuple[list[tuple[Edit, str]], set[int]]:
    """Where reviewers disagree, with why, and the ids of the edits that are therefore not applied:
    one removes a cut another makes, or one boundary is moved to different places."""
    removes: dict[int, list[Edit]] = {}
    adds: dict[int, list[Edit]] = {}
    moves: dict[int, set[int]] = {}
    for e, remove, add in effects:
        if remove is not None:
            removes.setdefault(remove, []).append(e)
        if add is not None:
            adds.setdefault(add, []).append(e)
        if e.kind == "move" and remove is not None and add is not None:
            moves.setdefault(remove, set()).add(add)
    conflicts: list[tuple[Edit, str]] = []
    for pos in sorted(set(removes) & set(adds)):  # one reviewer removes a cut another makes
        who = ", ".join(sorted({e.reviewer or "(anonymous)" for e in removes[pos] + adds[pos]}))
        conflicts += [(e, f"reviewers {who} disagree about the boundary before {_quoted(text[pos:pos + 40])}")
                      for e in removes[pos] + adds[pos]]
    blocked = {id(e) for e, _why in conflicts}
    for at in (at for at, targets in moves.items() if len(targets) > 1):  # one boundary moved to different places
        for e in removes.get(at, []):
            if e.kind == "move" and id(e) not in blocked:
                conflicts.append((e, f"the boundary before {_quoted(text[at:at + 40])} is moved to "
                                     f"{len(moves[at])} different places"))
                blocked.add(id(e))
    return conflicts, blocked


def edited_index(chunkset: ChunkSet, edit: Edit) -> int | None:
    """The chunk an applied edit is about: the one its new or moved boundary starts, or (a merge)
    the one now holding the place; None when its text is gone."""
    pos = resolve(chunkset.doc, edit.to or edit.at)
    if pos is None:
        return None
    pos = skip_space(chunkset.doc.text, pos) if edit.kind == "merge" else word_start(chunkset.doc.text, pos)
    return next((c.index for c in chunkset.chunks if c.start_char is not None and c.end_char is not None
                 and c.start_char <= pos < c.end_char), None)


def _rebuild(chunkset: ChunkSet, removed: dict[int, Edit], added: dict[int, Edit]) -> list[Chunk]:
    """The chunks with the boundaries where chunks `removed` start taken away (each joins the one
    before) and new boundaries at the canonical offsets `added`."""
    groups: list[list[Chunk]] = []
    for c in chunkset.chunks:
        if c.index in removed and groups:
            groups[-1].append(c)
        else:
            groups.append([c])
    cuts = sorted(added)
    out: list[Chunk] = []
    for group in groups:
        first, last = group[0], group[-1]
        if first.start_char is None or last.end_char is None:
            out.append(first)
            continue
        inside = [p for p in cuts if first.start_char < p < last.end_char]
        if len(group) == 1 and not inside:
            out.append(first)
            continue
        bounds = [first.start_char, *inside, last.end_char]
        merge = next((removed[c.index] for c in group[1:] if removed[c.index].kind == "merge"), None)
        for k, (a, b) in enumerate(zip(bounds, bounds[1:])):
            edit = added.get(a) if k else merge
            if edit is None:  # the first piece of a boundary moved away: its start is the strategy's
                boundary, edit = first.boundary, next((removed[c.index] for c in group[1:]), None)
            elif k == 0:  # its start is the strategy's; the chunk after it was merged into it
                boundary = Boundary(Reason.REVIEWER_EDIT, f"starts at the strategy's boundary ({first.boundary.reason.value}: "
                                    f"{first.boundary.detail}); the next chunk {edit.describe()}" + _comment(edit))
            else:
                boundary = Boundary(Reason.REVIEWER_EDIT, edit.describe() + _comment(edit))
            out.append(_piece(chunkset, first, a, b, boundary, k, edit))
    return [dataclasses.replace(c, index=n) for n, c in enumerate(out)]


def _comment(edit: Edit) -> str:
    return f": {edit.comment}" if edit.comment else ""


def _piece(chunkset: ChunkSet, model: Chunk, start: int, end: int, boundary: Boundary, k: int,
           edit: Edit | None) -> Chunk:
    """The chunk of canonical span [start, end) made by an edit, in the image of `model`."""
    doc = chunkset.doc
    skipped = set(chunkset.skipped)
    elements = [e for e in doc.elements_overlapping(start, end) if e.id not in skipped]
    text = span_text(doc, start, end, skipped)
    extra = {"edit": {"kind": edit.kind, "reviewer": edit.reviewer, "created_at": edit.created_at}} if edit else {}
    return build_chunk(doc, index=model.index, chunk_id=model.chunk_id + (f"_edit{k}" if k else ""),
                       type=model.type, text=text, elements=elements or list(doc.elements_overlapping(start, end)),
                       boundary=boundary, section_path=model.section_path, heading=model.heading,
                       start_char=start, end_char=end, extra=extra)


def span_text(doc: Document, start: int, end: int, skipped: Iterable[str] = ()) -> str:
    """Canonical text [start, end) with the skipped elements inside it left out (and the blank
    lines they leave folded), whitespace at the ends stripped."""
    ids = set(skipped)
    pieces, pos = [], start
    for e in doc.elements_overlapping(start, end):
        if e.id in ids:  # the part of a skipped element inside the span
            pieces.append(doc.text[pos:max(pos, e.char_start)])
            pos = max(pos, min(end, e.char_end))
    pieces.append(doc.text[pos:end])
    return re.sub(r"\n{3,}", "\n\n", "".join(pieces)).strip()


def make_edit(chunkset: ChunkSet, kind: str, index: int, *, word: int = 0, reviewer: str = "",
                     created_at: str = "", comment: str = "") -> Edit:
    """An edit of chunk `index`: merge it with the chunk before (`merge`), split it before its
    `word`-th word (`split`, 1-based, 2 or more), or move the boundary where it starts by `word`
    words (`move`, negative: earlier, into the chunk before)."""
    c = _editable(chunkset, kind, index)
    meta = {"reviewer": reviewer, "created_at": created_at, "comment": comment}
    if kind == "merge":
        return Edit("merge", anchor_at(chunkset.doc, c.start_char or 0), None, reviewer, created_at, comment,
                    params=params_json(chunkset))
    assert c.start_char is not None and c.end_char is not None  # checked by _editable
    starts = word_starts(chunkset, c.start_char, c.end_char)
    if kind == "split":
        if not 2 <= word <= len(starts):
            raise UsageError(f"chunk {index} has {len(starts)} words: split before word 2 to {len(starts)}")
        return make_edit_at(chunkset, "split", index, starts[word - 1], **meta)
    if word == 0:
        raise UsageError("move the boundary by a number of words, e.g. 3 or -3")
    if word > 0:
        if word >= len(starts):
            raise UsageError(f"chunk {index} has {len(starts)} words: move by at most {len(starts) - 1}")
        target = starts[word]
    else:
        prev = chunkset.chunks[index - 1]
        before = word_starts(chunkset, prev.start_char or 0, c.start_char)
        if -word >= len(before):
            raise UsageError(f"chunk {index - 1} has {len(before)} words: move back by at most {len(before) - 1}")
        target = before[word]
    return make_edit_at(chunkset, "move", index, target, **meta)


def make_edit_at(chunkset: ChunkSet, kind: str, index: int, position: int, *, reviewer: str = "",
                 created_at: str = "", comment: str = "") -> Edit:
    """An edit of chunk `index` at canonical offset `position` (taken back to its word's start),
    e.g. the word a reviewer clicked: split the chunk before that word (`split`: the word must be
    inside the chunk, after its first), or move the chunk's start to it (`move`: a word of the
    chunk before or of this one)."""
    c = _editable(chunkset, kind, index)
    doc = chunkset.doc
    assert c.start_char is not None and c.end_char is not None  # checked by _editable
    if not 0 <= position < len(doc.text):
        raise UsageError(f"offset {position} is outside the text (0-{len(doc.text) - 1})")
    pos = word_start(doc.text, position)
    start = skip_space(doc.text, c.start_char)
    if kind == "split":
        if not start < pos < c.end_char:
            raise UsageError(f"{_word_label(doc, pos)} is not inside chunk {index} after its first word: "
                             "nothing to split there")
        return Edit("split", anchor_at(doc, pos), None, reviewer, created_at, comment, params=params_json(chunkset))
    if kind != "move":
        raise UsageError(f"an edit at a word is a split or a move, not {kind!r}")
    low = chunkset.chunks[index - 1].start_char or 0
    if pos == start or not low < pos < c.end_char:
        raise UsageError(f"{_word_label(doc, pos)} is not a new place for the start of chunk {index}: pick a word "
                         f"of chunk {index - 1} or {index} other than the chunk's first")
    return Edit("move", anchor_at(doc, c.start_char), anchor_at(doc, pos), reviewer, created_at, comment,
                params=params_json(chunkset))


def params_json(chunkset: ChunkSet) -> str:
    """The chunking's parameters as canonical JSON: what an edit records it was made on."""
    import json

    return json.dumps(dict(chunkset.params), sort_keys=True, default=list)


def _editable(chunkset: ChunkSet, kind: str, index: int) -> Chunk:
    """Chunk `index`, refused (UsageError) when `kind` cannot edit it."""
    if kind not in KINDS:
        raise UsageError(f"edit kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if not 0 <= index < len(chunkset.chunks):
        raise UsageError(f"there is no chunk {index} (0-{len(chunkset.chunks) - 1})")
    c = chunkset.chunks[index]
    if c.start_char is None or c.end_char is None:
        raise UsageError(f"chunk {index} has no place in the text")
    if kind in ("merge", "move") and index == 0:
        raise UsageError("chunk 0 starts the document: there is no chunk before it")
    return c


def _word_label(doc: Document, pos: int) -> str:
    """'the word «…»' at canonical offset `pos`, for messages."""
    m = re.match(r"\S{1,30}", doc.text[pos:])
    return f"the word {m.group(0)!r}" if m else f"offset {pos}"


def word_starts(chunkset: ChunkSet, start: int, end: int) -> list[int]:
    """Canonical offsets of the words in [start, end) outside the elements the strategy skipped."""
    doc, skipped = chunkset.doc, set(chunkset.skipped)
    out: list[int] = []
    for e in doc.elements_overlapping(start, end):
        if e.id in skipped:
            continue
        a, b = max(start, e.char_start), min(end, e.char_end)
        out.extend(a + m.start() for m in re.finditer(r"\S+", doc.text[a:b]))
    return out


def _quoted(text: str) -> str:
    """A piece of the document quoted on one line for an edit's message: “4. CHARGES AND PAYMENT 4.1 In…”."""
    return f"“{one_line(text, 30)}”"
