"""Reviews follow a new version: the verdicts and boundary edits given on one version's
chunking, carried through the lineage to the next version's, and the ones that no longer apply.

A verdict judges the cut where a chunk starts; it carries to the new chunk with the same text (a
link `unchanged` or `moved`), and no longer applies when that chunk was edited, split, merged or
removed. An edit is anchored to the text (`types.review.Anchor`); it carries when its anchors are
found in the new version's text, and no longer applies when they are gone. Carried verdicts and
edits are saved for the new version in the workspace, so the review app shows them as given."""

from __future__ import annotations

import os
from dataclasses import dataclass

from chunkbench.db import edits as edit_store
from chunkbench.db import verdicts as verdict_store
from chunkbench.db.workspace import open_workspace
from chunkbench.evaluate.lineage import Lineage, lineage
from chunkbench.text.segment import one_line
from chunkbench.types.chunk import boundary_key
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.review import Edit, Verdict, anchor_at, resolve

#: the lineage kinds through which a verdict carries: the chunk's text is the same
CARRIES = ("unchanged", "moved")


@dataclass(frozen=True)
class CarriedReviews:
    """What `carry_reviews` saved for the new version, and one line per review that no longer applies."""

    verdicts: tuple[Verdict, ...]
    edits: tuple[Edit, ...]
    not_applying: tuple[str, ...]

    def summary(self) -> str:
        """'3 verdicts and 1 edit carried over; 1 no longer applies'."""
        def n(count: int, what: str) -> str:
            return f"{count} {what}{'' if count == 1 else 's'}"

        return (f"{n(len(self.verdicts), 'verdict')} and {n(len(self.edits), 'edit')} carried over; "
                f"{len(self.not_applying)} no longer appl{'ies' if len(self.not_applying) == 1 else 'y'}")


def carry_reviews(old: ChunkSet, new: ChunkSet, *, workspace: str | os.PathLike | None = None,
                  result: Lineage | None = None) -> CarriedReviews:
    """Save for `new` the verdicts given on `old`'s chunking and the edits of `old`'s document under
    its strategy that still apply (see the module doc); `result` is their lineage when known.
    Carrying twice saves nothing twice."""
    result = result if result is not None else lineage(old, new, force=True)
    link_of = {cid: link for link in result.links for cid in link.old}
    new_by_id = {c.chunk_id: c for c in new.chunks}
    verdicts: list[Verdict] = []
    edits: list[Edit] = []
    gone: list[str] = []
    with open_workspace(workspace) as conn:
        given_by_key = verdict_store.for_chunkset(conn, old)
        for c in old.chunks:
            for v in given_by_key.get(boundary_key(c), []):
                link = link_of.get(c.chunk_id)
                if link is None or link.kind not in CARRIES:
                    gone.append(f"verdict {v.verdict!r} by {v.reviewer or '(anonymous)'} on chunk {c.index} "
                                f"({one_line(c.text, 40)!r}): the chunk is {link.kind if link else 'gone'} in "
                                f"{new.doc.source}")
                    continue
                target = new_by_id[link.new[0]]
                verdicts.append(verdict_store.record(
                    conn, doc_id=new.doc.doc_id, strategy=new.strategy, params_hash=new.params_hash,
                    boundary_key=boundary_key(target), verdict=v.verdict, reviewer=v.reviewer,
                    comment=v.comment, chunk_index=target.index, reason=target.boundary.reason.value,
                    updated_at=v.updated_at))
        existing = {_edit_key(e) for e in edit_store.query(conn, new.doc.doc_id, new.strategy)}
        for e in edit_store.query(conn, old.doc.doc_id, old.strategy):
            at = resolve(new.doc, e.at)
            to = resolve(new.doc, e.to) if e.to is not None else None
            if at is None or (e.to is not None and to is None):
                gone.append(f"edit {e.kind!r} by {e.reviewer or '(anonymous)'} at "
                            f"{one_line(e.at.before + e.at.after, 40)!r}: its text is gone from {new.doc.source}")
                continue
            moved = Edit(e.kind, anchor_at(new.doc, at), anchor_at(new.doc, to) if to is not None else None,
                         e.reviewer, e.created_at, e.comment, None, e.params)
            if _edit_key(moved) not in existing:
                edits.append(edit_store.record(conn, new.doc.doc_id, new.strategy, moved))
                existing.add(_edit_key(moved))
    return CarriedReviews(tuple(verdicts), tuple(edits), tuple(gone))


def _edit_key(e: Edit) -> tuple:
    return (e.kind, e.reviewer, e.at, e.to)
