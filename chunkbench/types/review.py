"""The reviewer's record as data: a verdict on a chunk boundary (its codes and their labels), and
a boundary edit anchored to the text (`Anchor`, `Edit`, what applying edits did: `EditOutcome`).

Verdicts are stored by `store.verdicts` and exported by `io.verdicts`; edits are stored by
`store.edits` and applied by `strategies.edits.apply_edits`; both are read as labelled boundaries
by `evaluate.labels` and given in the review app (`ui.reviews`). An anchor is found again after a
re-parse (`resolve`: the element id and offset, else the text around it near the same place)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from chunkbench.text.segment import skip_space

from .chunkset import ChunkSet
from .document import Document

#: the verdict codes (the CHECK constraint of the workspace's verdicts table)
VERDICTS: tuple[str, ...] = ("ok", "should_merge", "should_split_elsewhere", "wrong_type")
#: what a reviewer reads on the buttons and in exports
VERDICT_LABELS: Mapping[str, str] = {
    "ok": "ok",
    "should_merge": "should merge",
    "should_split_elsewhere": "should split elsewhere",
    "wrong_type": "wrong type",
}
COLUMNS = (
    "doc_id", "strategy", "params_hash", "boundary_key", "reviewer", "verdict", "comment",
    "chunk_index", "reason", "updated_at",
)


@dataclass(frozen=True)
class Verdict:
    """One reviewer's judgement of one boundary under one chunking."""

    doc_id: str
    strategy: str
    params_hash: str
    boundary_key: str
    reviewer: str
    verdict: str
    comment: str
    chunk_index: int | None
    reason: str | None
    updated_at: str

    @property
    def flagged(self) -> bool:
        """Anything but ok asks for a change."""
        return self.verdict != "ok"

    def to_dict(self) -> dict:
        return asdict(self)


#: characters of text kept on each side of an anchor
ANCHOR_CHARS = 24
#: what an edit does: remove the boundary at `at`; add one at `at`; remove it at `at`, add it at `to`
KINDS = ("merge", "split", "move")


@dataclass(frozen=True)
class Anchor:
    """A place in a document's text: an element, an offset in its text, the text around it."""

    element_id: str
    offset: int
    before: str
    after: str

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d) -> Anchor:
        return cls(str(d["element_id"]), int(d["offset"]), str(d.get("before", "")), str(d.get("after", "")))


@dataclass(frozen=True)
class Edit:
    """One reviewer's change to the boundaries of a strategy's chunks of a document."""

    kind: str
    at: Anchor
    to: Anchor | None = None
    reviewer: str = ""
    created_at: str = ""
    comment: str = ""
    id: int | None = None
    #: the parameters of the chunking it was made on, canonical JSON ("" when not known)
    params: str = ""

    def describe(self) -> str:
        who = self.reviewer or "(anonymous)"
        what = {"merge": "merged into the chunk before", "split": "split here", "move": "boundary moved here"}[self.kind]
        return f"{what} by {who}" + (f" on {self.created_at[:10]}" if self.created_at else "")


@dataclass(frozen=True)
class EditOutcome:
    """The edited chunks and every edit that was not applied, with why."""

    chunkset: ChunkSet
    applied: tuple[Edit, ...] = ()
    #: (edit, why): anchors not found, nothing to merge under these parameters, ...
    stale: tuple[tuple[Edit, str], ...] = ()
    #: (edit, why): reviewers disagreeing about one place
    conflicts: tuple[tuple[Edit, str], ...] = ()

    def messages(self) -> list[str]:
        """One line per edit not applied."""
        return ([f"edit not applied ({e.kind} by {e.reviewer or '(anonymous)'}): {why}" for e, why in self.stale]
                + [f"conflict ({e.kind} by {e.reviewer or '(anonymous)'}): {why}" for e, why in self.conflicts])

    def conflict_places(self) -> list[tuple[int, str]]:
        """Where reviewers disagree, to mark on the page: (canonical offset of the disputed
        boundary, who wants what), one per place, in text order."""
        doc = self.chunkset.doc
        places: dict[int, list[str]] = {}
        for e, _why in self.conflicts:
            pos = resolve(doc, e.at)
            if pos is not None:
                places.setdefault(skip_space(doc.text, pos), []).append(f"{e.reviewer or '(anonymous)'}: {e.kind}")
        return [(pos, "conflict · " + ", ".join(sorted(set(who)))) for pos, who in sorted(places.items())]


def anchor_at(doc: Document, position: int) -> Anchor:
    """The anchor of canonical offset `position` (moved past whitespace)."""
    pos = skip_space(doc.text, position)
    e = doc.element_at(pos)
    if e is None:
        raise ValueError(f"offset {position} is past the end of the text")
    offset = max(0, min(pos - e.char_start, len(e.text)))
    return Anchor(e.id, offset, e.text[max(0, offset - ANCHOR_CHARS):offset], e.text[offset:offset + ANCHOR_CHARS])


def resolve(doc: Document, anchor: Anchor) -> int | None:
    """The canonical offset an anchor names in `doc`: at its element and offset when the text
    around it is unchanged, else where that text is nearest to it (in the element, then in the
    document), else None (the anchor is gone)."""
    needle = anchor.before + anchor.after
    try:
        e = doc.element(anchor.element_id)
    except KeyError:
        e = None
    if e is not None:
        t, o = e.text, anchor.offset
        if t[max(0, o - len(anchor.before)):o] == anchor.before and t.startswith(anchor.after, o):
            return e.char_start + o
        hit = _nearest(t, needle, o - len(anchor.before))
        if hit is not None:
            return e.char_start + hit + len(anchor.before)
    if len(needle.strip()) < 8:  # too little text to find it anywhere else
        return None
    expected = (e.char_start + anchor.offset) if e is not None else 0
    hit = _nearest(doc.text, needle, expected - len(anchor.before))
    return None if hit is None else hit + len(anchor.before)


def _nearest(text: str, needle: str, near: int) -> int | None:
    if not needle:
        return None
    hits = [m.start() for m in re.finditer(re.escape(needle), text)]
    return min(hits, key=lambda h: (abs(h - near), h)) if hits else None
