"""One reviewer's pass over the boundaries of one ChunkSet, without any widget: where they are, what
the filters show, and the verdicts stored in the workspace (re-read on every step, so two reviewers
at once see each other's progress). The Panel view (`ui.reviews.app.ReviewApp`) drives this and redraws."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from chunkbench.db import verdicts as vstore
from chunkbench.db.workspace import connect
from chunkbench.errors import UsageError
from chunkbench.io.verdicts import to_dataframe
from chunkbench.types.chunk import boundary_key
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.review import Verdict

FILTERS = ("all", "unreviewed", "flagged")
ANY_REASON = "any reason"
#: the order boundaries are shown in: the document's, or the chunks with the most defects
#: (evaluate.defects) first, reading order among equals
ORDERS = ("document", "worst first")


class ReviewSession:
    """Review the boundaries of `chunkset` as `reviewer`, saving into the workspace at `workspace`."""

    def __init__(self, chunkset: ChunkSet, *, reviewer: str = "", workspace: str | os.PathLike | None = None,
                 apply_edits: bool = True):
        #: the strategy's chunks; `chunkset` is them with the stored boundary edits applied
        self.base = chunkset
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

    def edit(self, kind: str, *, word: int = 0, at: int | None = None, comment: str = "") -> None:
        """Record a boundary edit of the current chunk as this reviewer (merge it into the chunk
        before; split it before its `word`-th word or the word at canonical offset `at`; move its
        start by `word` words or to the word at `at`), apply the stored edits again and stay at
        the boundary the edit is about."""
        from chunkbench.app.chunking import add_edit
        from chunkbench.strategies.edits import edited_index

        edit = add_edit(self.chunkset, kind, self.current, word=word, at=at, reviewer=self.reviewer, comment=comment,
                   workspace=self.workspace)
        self._apply()
        focus = edited_index(self.chunkset, edit)
        self.current = min(self.current, len(self.keys) - 1) if focus is None else focus
        self.reload()

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
        if not self.keys:
            raise UsageError("this chunking has no chunks, so there is no boundary to judge")
        with self._conn() as conn:
            saved = vstore.record_for_chunk(conn, self.chunkset, self.current, verdict,
                                            reviewer=self.reviewer, comment=comment or "")
        self.reload()
        if advance:
            self.step(+1, reload=False)
        return saved

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
        return self.current

    def go_to(self, index: int) -> None:
        """Go to the boundary where chunk `index` starts."""
        if not 0 <= index < len(self.keys):
            raise IndexError(f"no chunk {index}; this chunking has {len(self.keys)}")
        self.current = index
        self.reload()

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
        with self._conn() as conn:
            return vstore.query(conn, doc_id=self.doc.doc_id, strategy=self.chunkset.strategy,
                                params_hash=self.chunkset.params_hash,
                                reviewer=None if all_reviewers else self.reviewer)

    def dataframe(self, all_reviewers: bool = True):
        """`verdicts()` as a pandas DataFrame."""
        return to_dataframe(self.verdicts(all_reviewers))

    def earlier_dataframe(self):
        """Verdicts given under other parameters on boundaries this chunking kept, one row each."""
        import pandas as pd

        rows = [(key, v.verdict, v.reviewer, v.params_hash[:10]) for key, vs in self.earlier.items() for v in vs]
        return pd.DataFrame(rows, columns=["boundary_key", "earlier verdict", "reviewer", "under params"])
