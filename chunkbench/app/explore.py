"""What the explorer shows, without any widget: the Document, the strategy and its resolved
parameters, the current ChunkSet (re-chunked settings kept in a small LRU), the page and the
selected chunk, and the defects of the chunks shown, found on the state's own thread after each
re-chunk. The widget view (`ui.explorer.widget.Explorer`) binds to it: every change calls the view's
listener with what changed ("strategy", "chunks", "view" or "defects"), so a notebook drives `ex.state`
and the page follows; tests and scripts can drive it alone."""

from __future__ import annotations

import functools
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chunkbench.runtime import paused_gc
from chunkbench.strategies import DEFAULT_STRATEGY, chunk, get_strategy
from chunkbench.strategies.kept import KeptState
from chunkbench.types.chunk import Chunk
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

    from chunkbench.evaluate.defects import Finding

from .listeners import Listeners

#: re-chunked results kept per (strategy, params), so going back to a setting is instant
CACHE_SIZE = 16


def on_page(c: Chunk, n: int) -> bool:
    """Whether chunk `c` touches 1-based page `n`."""
    return c.page_start is not None and c.page_start <= n <= (c.page_end or c.page_start)


#: what a change moved: the strategy (its controls too), the chunks, only the page and selection, or
#: the defects of the chunks shown (found after them)
CHANGES = ("strategy", "chunks", "view", "defects")


def _changes(what: str):
    """Run a state method holding the state's lock (a background parse hands over Documents while the
    user works), then tell the listeners `what` changed. The garbage collector waits until they have
    drawn it: its pass over the new chunks (10-15 ms on 100 pages) comes after the new view is sent,
    and so does the search for their defects (begun last, it does not slow this change's drawing)."""
    def wrap(method):
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            with self.lock, paused_gc():
                out = method(self, *args, **kwargs)
                self._listeners.notify(what)
                self._defects.begin(self)
                return out

        return run

    return wrap


class ExplorerState:
    """The explorer's model: every change goes through here, so it is checked before anything moves."""

    def __init__(self, doc: Document, strategy: str = DEFAULT_STRATEGY, params: dict | None = None, *,
                 workspace: str | os.PathLike | None = None, reviewer: str = "", apply_edits: bool = True,
                 page_count: int | None = None):
        self.doc = doc
        #: what the strategies keep between this explorer's re-chunks (strategies.kept), gone with it
        self.kept = KeptState()
        #: held by every change (and by the view while it draws)
        self.lock = threading.RLock()
        self._listeners = Listeners()
        #: the PDF's pages, when the Document holds only some of them yet (loaders.progressive)
        self.page_count = page_count
        self.page = 1
        self.selected: int | None = None
        #: where reviewers' boundary edits are stored and read, who makes new ones, whether they apply
        self.workspace, self.reviewer, self.apply_edits = workspace, reviewer, apply_edits
        #: what the stored edits could not do (stale anchors, reviewers who disagree), one line each
        self.edit_messages: list[str] = []
        #: where reviewers' stored edits conflict: (canonical offset, who wants what), marked on the page
        self.conflict_places: list[tuple[int, str]] = []
        self._cache: OrderedDict[str, ChunkSet] = OrderedDict()
        #: the defects of the chunks shown, found on this state's own thread (`defects`, `settle`)
        self._defects = _DefectsWork()
        self.chunkset = self.set_strategy(strategy, **(params or {}))

    @property
    def defects(self) -> list[Finding] | None:
        """The defects of the chunks shown (evaluate.defects), or None while they are being found
        (or not looked for: `find_defects(False)`)."""
        return self._defects.of(self.chunkset)

    @property
    def defects_error(self) -> str | None:
        """Why finding the defects of the chunks shown failed, if it did."""
        return self._defects.error_of(self.chunkset)

    @_changes("defects")
    def find_defects(self, on: bool = True) -> None:
        """Look for the defects of every chunking shown from now on (the default), or stop looking."""
        self._defects.wanted = on

    def settle(self, timeout: float | None = None) -> ExplorerState:
        """Wait until the defects of the chunks shown are found and the listeners told: for scripts
        and tests that read what is drawn right after a change; a notebook need not call it."""
        self._defects.wait(timeout)
        return self

    def on_change(self, listener: Callable[[str], None]) -> None:
        """Call `listener(what)` after every change; `what` is one of CHANGES."""
        self._listeners.add(listener)

    @property
    def n_pages(self) -> int:
        return max(1, self.page_count or 0, len(self.doc.pages))

    @_changes("chunks")
    def replace_document(self, doc: Document) -> ChunkSet:
        """Show `doc` instead (more pages of the same PDF parsed, or the final parse): re-chunk it
        with the same strategy and parameters; keep the page, and the selection when a chunk of
        the new chunks starts with the same element."""
        old = self.chunkset[self.selected] if self.selected is not None else None
        self.doc = doc
        self._cache.clear()
        self.selected = None
        cs = self._use(self.strategy, self.params)
        if old is not None and old.source_blocks:
            self.selected = next((c.index for c in cs if c.source_blocks[:1] == old.source_blocks[:1]), None)
        return cs

    @property
    def strategy(self) -> str:
        return self.chunkset.strategy

    @property
    def params(self) -> dict:
        return dict(self.chunkset.params)

    @_changes("strategy")
    def set_strategy(self, name: str, **params: Any) -> ChunkSet:
        """Switch strategy with `params` over its defaults; ParamError before anything changes."""
        strat = get_strategy(name)
        return self._use(strat.name, strat.resolve(params))

    @_changes("chunks")
    def set_params(self, **params: Any) -> ChunkSet:
        """Change some parameters of the current strategy; ParamError before anything changes."""
        return self._use(self.strategy, get_strategy(self.strategy).resolve({**self.params, **params}))

    @_changes("view")
    def go_to_page(self, n: int) -> None:
        """Show 1-based page `n` (clamped); a selected chunk not on that page is let go."""
        self.page = min(max(1, int(n)), self.n_pages)
        if self.selected is not None and not on_page(self.chunkset[self.selected], self.page):
            self.selected = None

    def chunks_on_page(self, n: int | None = None) -> list[int]:
        """Indices of the chunks that touch 1-based page `n` (default: the page shown)."""
        n = self.page if n is None else n
        return [c.index for c in self.chunkset if on_page(c, n)]

    @_changes("chunks")
    def edit(self, kind: str, word: int = 0, *, at: int | None = None) -> ChunkSet:
        """Record a boundary edit of the selected chunk as `reviewer` (merge it into the chunk
        before; split it before its `word`-th word or the word at canonical offset `at`; move its
        start by `word` words or to the word at `at`), then show the chunks with the stored edits
        applied; the selection follows the edited place."""
        from chunkbench.app.chunking import add_edit
        from chunkbench.errors import UsageError
        from chunkbench.strategies.edits import edited_index

        if self.selected is None:
            raise UsageError("select a chunk first (in the list or on the page)")
        made = add_edit(self.chunkset, kind, self.selected, word=word, at=at, reviewer=self.reviewer,
                   workspace=self.workspace)
        cs = self._use(self.strategy, self.params)
        self.selected = edited_index(cs, made)
        return cs

    def chunk_holding(self, position: int) -> int | None:
        """The chunk a word at canonical offset `position` belongs to: the selected one when it
        holds it, else the last one starting at or before it (chunks may overlap)."""
        def holds(c) -> bool:
            return c.start_char is not None and c.end_char is not None and c.start_char <= position < c.end_char

        if self.selected is not None and holds(self.chunkset[self.selected]):
            return self.selected
        hits = [c.index for c in self.chunkset if holds(c)]
        return hits[-1] if hits else None

    @_changes("view")
    def select(self, index: int | None) -> None:
        """Select chunk `index` (None clears); the page follows the chunk when it is elsewhere."""
        if index is not None:
            if not 0 <= index < len(self.chunkset):
                raise IndexError(f"no chunk {index}; this setting has {len(self.chunkset)} chunks")
            c = self.chunkset[index]
            if c.page_start is not None and not on_page(c, self.page):
                self.page = c.page_start
        self.selected = index

    def _use(self, strategy: str, resolved: dict) -> ChunkSet:
        key = json.dumps([strategy, resolved], sort_keys=True, default=list)
        cs = self._cache.get(key)
        if cs is None:
            cs = self._cache[key] = chunk(self.doc, strategy, kept=self.kept, **resolved)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        if self.apply_edits:  # every reviewer's stored edits on top (none: the cached ChunkSet itself)
            from chunkbench.app.chunking import with_edits

            outcome = with_edits(cs, self.workspace)
            cs, self.edit_messages = outcome.chunkset, outcome.messages()
            self.conflict_places = outcome.conflict_places()
        old = getattr(self, "chunkset", None)
        previous = old[self.selected] if old is not None and self.selected is not None else None
        self.chunkset = cs
        self.selected = self._follow(previous)
        return cs

    def _found(self, cs: ChunkSet, found: list[Finding] | None, error: str | None) -> None:
        """The defects of `cs` are in (or their search failed): kept and shown while `cs` is shown."""
        with self.lock:
            if self.chunkset is cs:
                self._defects.done(cs, found, error)
                self._listeners.notify("defects")

    def _follow(self, old: Chunk | None) -> int | None:
        """After re-chunking, keep selecting the chunk that now holds the old selection's start."""
        if old is None or old.start_char is None:
            return None
        for c in self.chunkset:
            if c.start_char is not None and c.end_char is not None and c.start_char <= old.start_char < c.end_char:
                return c.index
        return None


class _DefectsWork:
    """The search for the defects of the chunks an ExplorerState shows: one chunking at a time on
    one thread of the state's own, since checking a whole document takes longer than a frame
    (30-90 ms on 100 pages). The chunks are drawn at once and their defects a moment later; the
    search of a chunking no longer shown is dropped if it has not begun."""

    def __init__(self) -> None:
        self.wanted = True
        #: the chunking whose defects are known (or whose search failed), and what was found
        self._found: tuple[ChunkSet | None, list[Finding] | None, str | None] = (None, None, None)
        #: the chunking being searched, and that work's future
        self._pending: tuple[ChunkSet, Future] | None = None
        self._worker: ThreadPoolExecutor | None = None

    def of(self, cs: ChunkSet) -> list[Finding] | None:
        return self._found[1] if self._found[0] is cs else None

    def error_of(self, cs: ChunkSet) -> str | None:
        return self._found[2] if self._found[0] is cs else None

    def begin(self, state: ExplorerState) -> None:
        """Search the defects of the chunks `state` shows, unless known, being searched or not wanted."""
        cs = getattr(state, "chunkset", None)
        if cs is None or not self.wanted or self._found[0] is cs:
            return
        if self._pending is not None:
            if self._pending[0] is cs:
                return
            self._pending[1].cancel()  # an earlier chunking's, not begun: no longer shown
        if self._worker is None:
            from concurrent.futures import ThreadPoolExecutor

            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chunkbench-explorer")

        def search() -> None:
            from chunkbench.evaluate.defects import find_defects

            try:
                found = find_defects(cs)
            except Exception as exc:  # told to the view, not lost in a thread
                state._found(cs, None, str(exc))
                raise
            state._found(cs, found, None)

        self._pending = (cs, self._worker.submit(search))

    def done(self, cs: ChunkSet, found: list[Finding] | None, error: str | None) -> None:
        self._found = (cs, found, error)

    def wait(self, timeout: float | None) -> None:
        pending = self._pending
        if pending is not None:
            pending[1].result(timeout)
