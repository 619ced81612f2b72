"""Reviewer verdicts as labelled boundaries, and how well a chunking agrees with them.

Every verdict names a place in the document where some chunking cut (its boundary key: the first
element's id and the chunk's start in the canonical text). Whatever strategy or parameters it was
given under, it says of that place: a boundary belongs here (`ok`, `wrong_type`: the cut is right,
only its type is not) or not (`should_merge`, `should_split_elsewhere`). Verdicts of several
reviewers on one place are counted as votes; a tie is no label (and is counted). A label whose
place no longer fits the document (the element is gone or the offset lies outside it, after a
re-parse) is stale: counted, not used.

Reviewers' boundary edits (strategies.edits) are votes too: a merge says "no cut here", a split
"a cut here", a move both. Each edit is also kept as an `EditTarget`, so a sweep can say which of
its settings reproduce it (`reproduced`) and which is the smallest change from the setting it was
made on (app.sweep.edit_changes).

A chunking's boundaries are its chunks' starts (after the first; past an overlap the cut is where
the new text begins), moved past whitespace like the labels. Against the labels:
precision = boundaries at keep places / boundaries at labelled places, recall = keep places it cuts
at / keep places, F1 their harmonic mean (`rev_boundary_precision`, `_recall`, `_f1`, with
`rev_labels` the number of labels they rest on).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunkbench.text.segment import skip_space

if TYPE_CHECKING:
    from chunkbench.types.chunkset import ChunkSet
    from chunkbench.types.document import Document
    from chunkbench.types.review import Edit, Verdict

#: what each verdict says of its place: a boundary belongs there (True) or not (False)
KEEPS: Mapping[str, bool] = {"ok": True, "wrong_type": True, "should_merge": False, "should_split_elsewhere": False}


@dataclass(frozen=True)
class BoundaryLabel:
    """A place in a document where a boundary belongs (`keep`) or does not, from reviewers' votes."""

    element_id: str
    position: int
    keep: bool
    votes: int


@dataclass(frozen=True)
class EditTarget:
    """What one reviewer's edit asks of a chunking's cuts: none at `remove`, one at `add`."""

    edit_id: int | None
    kind: str
    reviewer: str
    strategy: str
    #: the parameters of the chunking it was made on (canonical JSON, "" when not known)
    params: str
    remove: int | None
    add: int | None
    #: a few words where it applies, to name it
    text: str

    def reproduced_by(self, cuts: set[int]) -> bool:
        return (self.remove is None or self.remove not in cuts) and (self.add is None or self.add in cuts)


@dataclass(frozen=True)
class Labels:
    """The labelled boundaries of one document, how many votes were ties or stale, and the
    reviewers' edits they include."""

    doc_id: str
    labels: tuple[BoundaryLabel, ...]
    tied: int = 0
    stale: int = 0
    edits: tuple[EditTarget, ...] = ()

    @property
    def keep(self) -> int:
        return sum(label.keep for label in self.labels)

    @property
    def remove(self) -> int:
        return len(self.labels) - self.keep

    def describe(self) -> str:
        """"12 labels (9 keep, 3 remove; 1 tie, 2 stale left out)": what a score rests on."""
        extra = [f"{n} {what}" for n, what in ((self.tied, "tied"), (self.stale, "stale")) if n]
        edits = f", {len(self.edits)} of them from edits" if self.edits else ""
        return (f"{len(self.labels)} label{'s' if len(self.labels) != 1 else ''} ({self.keep} keep, {self.remove} remove"
                f"{edits}{'; ' + ', '.join(extra) + ' left out' if extra else ''})")


def parse_key(key: str) -> tuple[str, int] | None:
    """(element id, canonical offset) of a boundary key `"<element id>@<start_char>"`."""
    element_id, sep, start = key.rpartition("@")
    if not sep or not start.isdigit():
        return None
    return element_id, int(start)


def labels_from_verdicts(doc: Document, verdicts: Iterable[Verdict], edits: Iterable[tuple[str, Edit]] = ()) -> Labels:
    """The document's labelled boundaries from verdicts (types.review.Verdict) on any chunking of it, and from reviewers' edits ((strategy,
    types.review.Edit) pairs): one vote per verdict and per place an edit cuts or uncuts, the
    majority wins."""
    votes: dict[tuple[str, int], Counter] = {}
    stale = 0
    for v in verdicts:
        keep = KEEPS.get(v.verdict)
        place = parse_key(v.boundary_key)
        if keep is None or place is None:
            continue
        element_id, pos = place
        try:
            e = doc.element(element_id)
        except KeyError:
            stale += 1
            continue
        if not e.char_start <= pos <= e.char_end:
            stale += 1
            continue
        votes.setdefault((element_id, skip_space(doc.text, pos)), Counter())[keep] += 1
    targets = []
    for strategy, edit in edits:
        target = edit_target(doc, strategy, edit)
        if target is None:
            stale += 1
            continue
        targets.append(target)
        for spot, keep in ((target.remove, False), (target.add, True)):
            holder = doc.element_at(spot) if spot is not None else None
            if holder is not None and spot is not None:
                votes.setdefault((holder.id, spot), Counter())[keep] += 1
    labels, tied = [], 0
    for (element_id, pos), count in sorted(votes.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if count[True] == count[False]:
            tied += 1
            continue
        labels.append(BoundaryLabel(element_id, pos, count[True] > count[False], count[True] + count[False]))
    return Labels(doc.doc_id, tuple(labels), tied, stale, tuple(targets))


def edit_target(doc: Document, strategy: str, edit: Edit) -> EditTarget | None:
    """The cuts a reviewer's edit removes and adds in `doc`; None when its text is gone."""
    from chunkbench.strategies.edits import resolve
    from chunkbench.text.segment import word_start

    at = resolve(doc, edit.at)
    to = resolve(doc, edit.to) if edit.to is not None else None
    if at is None or (edit.kind == "move" and to is None):
        return None
    remove = skip_space(doc.text, at) if edit.kind in ("merge", "move") else None
    add = word_start(doc.text, at) if edit.kind == "split" else (word_start(doc.text, to) if to is not None else None)
    place = add if add is not None else remove
    text = " ".join(doc.text[place:place + 40].split()) if place is not None else ""
    return EditTarget(edit.id, edit.kind, edit.reviewer, strategy, edit.params, remove, add, text)


def reproduced(doc: Document, chunkset: ChunkSet, labels: Labels) -> list[int | None]:
    """The ids of the reviewers' edits this chunking reproduces (cuts where they cut, not where
    they merged)."""
    cuts = boundaries(doc, chunkset)
    return [t.edit_id for t in labels.edits if t.reproduced_by(cuts)]


def boundaries(doc: Document, chunkset: ChunkSet) -> set[int]:
    """Where the chunking cuts: each chunk's start after the first (past its overlap), past whitespace."""
    out = set()
    for c in chunkset.chunks[1:]:
        if c.start_char is None:
            continue
        out.add(skip_space(doc.text, c.start_char + int(c.extra.get("overlap_chars", 0) or 0)))
    return out


def boundary_scores(doc: Document, chunkset: ChunkSet, labels: Labels) -> dict[str, Any]:
    """rev_boundary_precision / recall / f1 of the chunking against the labels (None where a ratio
    has nothing to rest on) and rev_labels, the number of labels."""
    cuts = boundaries(doc, chunkset)
    keep = {lab.position for lab in labels.labels if lab.keep}
    remove = {lab.position for lab in labels.labels if not lab.keep}
    hits, wrong, missed = len(cuts & keep), len(cuts & remove), len(keep - cuts)
    precision = hits / (hits + wrong) if hits + wrong else None
    recall = hits / (hits + missed) if hits + missed else None
    f1 = (2 * precision * recall / (precision + recall) if precision and recall else
          0.0 if precision is not None and recall is not None else None)
    return {
        "rev_boundary_precision": _round(precision), "rev_boundary_recall": _round(recall),
        "rev_boundary_f1": _round(f1), "rev_labels": len(labels.labels),
    }


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 4)
