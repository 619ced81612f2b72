"""One reviewer's pass over the boundaries of one ChunkSet, without any widget: where they are, what
the filters show, the word picked for an edit, and the verdicts stored in the workspace (re-read on
every step, so two reviewers at once see each other's progress). The Panel view
(`ui.reviews.app.ReviewApp`) binds to it: every change calls the view's listener, which redraws, so a
notebook drives `app.session` and the page follows."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from chunkbench.db import verdicts as vstore
from chunkbench.db.workspace import connect, open_workspace
from chunkbench.errors import UsageError
from chunkbench.io import verdicts as vexport
from chunkbench.text.segment import skip_space
from chunkbench.types.chunk import boundary_key
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.review import Verdict

from .listeners import Listeners

FILTERS = ("all", "unreviewed", "flagged")
ANY_REASON = "any reason"
#: the order boundaries are shown in: the document's, or the chunks with the most defects
#: (evaluate.defects) first, reading order among equals
ORDERS = ("document", "worst first")


@dataclass(frozen=True)
class Pick:
    """The word picked at the current boundary for an edit: its offset, its text, where it is
    relative to the current chunk, and which of split / move it allows there."""

    position: int
    word: str
    where: str
    can_split: bool
    can_move: bool


class ReviewSession:
    """Review the boundaries of `chunkset` as `reviewer`, saving into the workspace at `workspace`."""

    def __init__(self, chunkset: ChunkSet, *, reviewer: str = "", workspace: str | os.PathLike | None = None,
                 apply_edits: bool = True, provisional: str = ""):
        #: the strategy's chunks; `chunkset` is them with the stored boundary edits applied
        self.base = chunkset
        #: why these chunks are not final yet (pages still being parsed), "" when they are: verdicts
        #: and edits wait for the final chunks, whose boundaries they are about
        self.provisional = provisional
        #: called after every change (the view redraws); see `on_change`
        self._listeners = Listeners()
        #: the word picked for "split / move to the picked word" and the boundary it was picked at
        self._picked: tuple[int, int] | None = None
        self.doc = chunkset.doc
        self.reviewer = reviewer or ""
        self.workspace = workspace
        self.apply_edits = apply_edits
        #: what the stored edits could not do (stale anchors, reviewers who disagree), one line each
        self.edit_messages: list[str] = []
        #: where reviewers' stored edits conflict: (canonical offset, who wants what), marked on the page
        self.conflict_places: list[tuple[int, str]] = []
        self._apply()
        self.filter = "all"
        self.reason = ANY_REASON
        self.order = ORDERS[0]
        self.mine: dict[str, Verdict] = {}
        self.everyone: dict[str, list[Verdict]] = {}
        self.earlier: dict[str, list[Verdict]] = {}
        self.reload()
        unreviewed = [i for i, k in enumerate(self.keys) if k not in self.mine]
        self.current = unreviewed[0] if unreviewed else 0

    def on_change(self, listener: Callable[[], None]) -> None:
        """Call `listener` after every change of place, filter, verdict, edit or pick."""
        self._listeners.add(listener)

    def _changed(self) -> None:
        self._listeners.notify()

    def set_provisional(self, note: str) -> None:
        """Say how far the parse has got ("" once the chunks are final)."""
        self.provisional = note
        self._changed()

    def _refuse_provisional(self) -> None:
        if self.provisional:
            raise UsageError("these chunks are provisional (the PDF is still being parsed): verdicts and edits open "
                             "when every page is in")

    def _apply(self) -> None:
        """The chunks shown: the base with every reviewer's stored edits applied (unless off)."""
        from chunkbench.app.chunking import with_edits

        if self.apply_edits:
            outcome = with_edits(self.base, self.workspace)
            self.chunkset, self.edit_messages = outcome.chunkset, outcome.messages()
            self.conflict_places = outcome.conflict_places()
        else:
            self.chunkset, self.edit_messages, self.conflict_places = self.base, [], []
        self.keys = [boundary_key(c) for c in self.chunkset.chunks]
        self._findings: list | None = None  # the defects, found when first asked, for these chunks

    @property
    def findings(self) -> list:
        """The defects of the chunks shown (evaluate.defects Findings), found once per chunking."""
        if self._findings is None:
            from chunkbench.evaluate.defects import find_defects

            self._findings = find_defects(self.chunkset)
        return self._findings

    @property
    def defects(self) -> dict[int, list]:
        """Chunk index → the defects that concern it (of `findings`)."""
        by_chunk: dict[int, list] = {}
        for f in self.findings:
            for i in dict.fromkeys(f.chunks):
                by_chunk.setdefault(i, []).append(f)
        return by_chunk

    def set_order(self, order: str = ORDERS[0]) -> None:
        """Show the boundaries in the document's order or worst first (most defects): worst first
        goes to the worst one; back in the document's order, the place is kept when it is shown."""
        if order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}")
        self.order = order
        shown = self.visible()
        if shown and (order != ORDERS[0] or self.current not in shown):
            self.current = shown[0]
        self._changed()

    def edit(self, kind: str, *, word: int = 0, at: int | None = None, comment: str = "") -> None:
        """Record a boundary edit of the current chunk as this reviewer (merge it into the chunk
        before; split it before its `word`-th word or the word at canonical offset `at`; move its
        start by `word` words or to the word at `at`), apply the stored edits again and stay at
        the boundary the edit is about."""
        from chunkbench.app.chunking import add_edit
        from chunkbench.strategies.edits import edited_index

        self._refuse_provisional()
        edit = add_edit(self.chunkset, kind, self.current, word=word, at=at, reviewer=self.reviewer, comment=comment,
                   workspace=self.workspace)
        self._apply()
        focus = edited_index(self.chunkset, edit)
        self.current = min(self.current, len(self.keys) - 1) if focus is None else focus
        self.reload()
        self._changed()

    # ---------------------------------------------------------------- picking a word
    def pick(self, position: int) -> Pick:
        """Pick the word at canonical offset `position` (a click on the page or the text) for
        `edit_picked`; returns what it allows at the current boundary."""
        self._picked = (position, self.current)
        self._changed()
        return self.picked  # type: ignore[return-value]  # just set

    @property
    def picked(self) -> Pick | None:
        """The word picked at the current boundary (a word picked at another one is not this one's)."""
        if self._picked is None or self._picked[1] != self.current or not self.keys:
            return None
        pos, i, cs = self._picked[0], self.current, self.chunkset
        c = cs.chunks[i]
        if c.start_char is None or c.end_char is None:
            return None
        text = self.doc.text
        first = skip_space(text, c.start_char)
        low = cs.chunks[i - 1].start_char if i > 0 else None
        inside = first < pos < c.end_char
        can_move = low is not None and pos != first and low < pos < c.end_char
        near = text[pos:pos + 40]
        where = ("in this chunk" if inside else "where this chunk starts" if pos == first
                 else "in the chunk before" if low is not None and low < pos < first
                 else "in another chunk: go to its boundary to edit it")
        final = not self.provisional
        return Pick(pos, near.split(maxsplit=1)[0] if near.strip() else "", where, inside and final, can_move and final)

    def edit_picked(self, kind: str = "", *, comment: str = "") -> None:
        """Split the current chunk before the picked word (`split`), or move its start to it
        (`move`); without a kind, whichever the word allows (split first)."""
        pick = self.picked
        if pick is None:
            raise UsageError("pick a word first (click one on the page or in the text)")
        kind = kind or ("split" if pick.can_split else "move" if pick.can_move else "split")
        self.edit(kind, at=pick.position, comment=comment)

    # ---------------------------------------------------------------- storage
    @contextlib.contextmanager
    def _conn(self) -> Iterator:
        conn = connect(self.workspace)
        try:
            yield conn
        finally:
            conn.close()

    def reload(self) -> None:
        """Re-read every verdict on this chunking (and earlier ones on its boundaries)."""
        with self._conn() as conn:
            self.everyone = vstore.for_chunkset(conn, self.chunkset)
            self.earlier = vstore.carried_over(conn, self.chunkset)
        self.mine = {k: v for k, vs in self.everyone.items() for v in vs if v.reviewer == self.reviewer}

    # ---------------------------------------------------------------- actions
    def give(self, verdict: str, comment: str = "", *, advance: bool = True) -> Verdict:
        """Save `verdict` on the current boundary, then move to the next one shown."""
        self._refuse_provisional()
        if not self.keys:
            raise UsageError("this chunking has no chunks, so there is no boundary to judge")
        with self._conn() as conn:
            saved = vstore.record_for_chunk(conn, self.chunkset, self.current, verdict,
                                            reviewer=self.reviewer, comment=comment or "")
        self.reload()
        if advance:
            self.step(+1, reload=False)
        else:
            self._changed()
        return saved

    def apply_earlier(self, comment: str | None = None) -> Verdict | None:
        """Give the current boundary the newest verdict it had under other parameters."""
        earlier = self.earlier_verdict()
        return None if earlier is None else self.give(earlier.verdict, earlier.comment if comment is None else comment)

    def earlier_verdict(self) -> Verdict | None:
        """The newest verdict the current boundary had under other parameters, if any."""
        earlier = self.earlier.get(self.keys[self.current]) if self.keys else None
        return earlier[0] if earlier else None

    def step(self, step: int, *, reload: bool = True) -> int:
        """Move to the next (+1) or previous (-1) boundary the filters show; stay at the ends."""
        nxt = self.neighbour(step)
        if nxt is not None:
            self.current = nxt
        if reload:
            self.reload()
        self._changed()
        return self.current

    def go_to(self, index: int) -> None:
        """Go to the boundary where chunk `index` starts."""
        if not 0 <= index < len(self.keys):
            raise IndexError(f"no chunk {index}; this chunking has {len(self.keys)}")
        self.current = index
        self.reload()
        self._changed()

    def set_filter(self, which: str = "all", reason: str = ANY_REASON) -> None:
        """Show all, unreviewed (no verdict of yours) or flagged (not ok, by anyone) boundaries,
        optionally of one reason only; jumps to the first match when the current one is hidden."""
        if which not in FILTERS:
            raise ValueError(f"filter must be one of {', '.join(FILTERS)}")
        self.filter, self.reason = which, reason
        self.reload()
        shown = self.visible()
        if shown and self.current not in shown:
            later = [i for i in shown if i > self.current]
            self.current = later[0] if later else shown[0]
        self._changed()

    # ---------------------------------------------------------------- what is shown
    def visible(self) -> list[int]:
        """Chunk indices whose boundary passes the current filters, in the current order."""
        out = []
        for i, (c, k) in enumerate(zip(self.chunkset.chunks, self.keys)):
            if self.reason != ANY_REASON and c.boundary.reason.value != self.reason:
                continue
            if self.filter == "unreviewed" and k in self.mine:
                continue
            if self.filter == "flagged" and not any(v.flagged for v in self.everyone.get(k, ())):
                continue
            out.append(i)
        if self.order == "worst first":
            counts = {i: len(fs) for i, fs in self.defects.items()}
            out.sort(key=lambda i: -counts.get(i, 0))  # stable: reading order among equals
        return out

    def neighbour(self, step: int) -> int | None:
        """The next (+1) or previous (-1) shown boundary, or None at the end."""
        shown = self.visible()
        if self.order != ORDERS[0]:
            if self.current not in shown:
                return shown[0] if shown and step > 0 else None
            at = shown.index(self.current) + step
            return shown[at] if 0 <= at < len(shown) else None
        if step > 0:
            later = [i for i in shown if i > self.current]
            return later[0] if later else None
        earlier = [i for i in shown if i < self.current]
        return earlier[-1] if earlier else None

    @property
    def reviewed(self) -> int:
        return len(self.mine)

    @property
    def progress_text(self) -> str:
        flagged = sum(1 for v in self.mine.values() if v.flagged)
        carried = sum(1 for k in self.keys if k not in self.mine and k in self.earlier)
        text = f"{self.reviewed} of {len(self.keys)} reviewed"
        if flagged:
            text += f" · {flagged} flagged"
        if carried:
            text += f" · {carried} with an earlier verdict under other parameters"
        return text

    def others(self, key: str) -> list[Verdict]:
        """Other reviewers' verdicts on boundary `key`."""
        return [v for v in self.everyone.get(key, ()) if v.reviewer != self.reviewer]

    # ---------------------------------------------------------------- export
    def verdicts(self, all_reviewers: bool = True) -> list[Verdict]:
        """The verdicts stored on this chunking (everyone's, or only this reviewer's)."""
        return stored_verdicts(self.chunkset, self.workspace, None if all_reviewers else self.reviewer)

    def dataframe(self, all_reviewers: bool = True):
        """`verdicts()` as a pandas DataFrame."""
        return vexport.to_dataframe(self.verdicts(all_reviewers))

    def save_verdicts(self, path: str | os.PathLike, all_reviewers: bool = True) -> str:
        """Write `verdicts()` to `path`, as CSV or (a .json name) JSON, atomically; returns the text."""
        return vexport.write_verdicts(self.verdicts(all_reviewers), path)

    def verdict_summary(self, all_reviewers: bool = True) -> dict[str, int]:
        """How many of each verdict (and in all) this chunking has."""
        return vexport.summary(self.verdicts(all_reviewers))

    def earlier_dataframe(self):
        """Verdicts given under other parameters on boundaries this chunking kept, one row each."""
        import pandas as pd

        rows = [(key, v.verdict, v.reviewer, v.params_hash[:10]) for key, vs in self.earlier.items() for v in vs]
        return pd.DataFrame(rows, columns=["boundary_key", "earlier verdict", "reviewer", "under params"])


def stored_verdicts(chunkset: ChunkSet, workspace: str | os.PathLike | None = None,
                    reviewer: str | None = None) -> list[Verdict]:
    """The verdicts stored in the workspace on `chunkset` (its document, strategy and parameters):
    everyone's, or `reviewer`'s; what `chunkbench review --export` writes."""
    with open_workspace(workspace) as conn:
        return vstore.query(conn, doc_id=chunkset.doc.doc_id, strategy=chunkset.strategy,
                            params_hash=chunkset.params_hash, reviewer=reviewer)
