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

from chunkbench.errors import ChunkbenchError
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
    and so does the work on the state's own thread (begun last, it does not slow this change's
    drawing): the defects of the chunks shown, then the settings a slider step away."""
    def wrap(method):
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            with self.lock, paused_gc():
                out = method(self, *args, **kwargs)
                self._listeners.notify(what)
                self._after_change(what)
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
        #: the work after a change, on one thread of this state's own: the defects of the chunks
        #: shown (`defects`, `settle`), then the settings one slider step either side (`_look_ahead`)
        self._thread = _OwnThread()
        self._defects = _DefectsWork()
        #: the numeric parameter a change moved, chunked a slider step either side next (`_look_ahead`)
        self._stepped: str | None = None
        self._ahead: list[Future] = []
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
        """Wait until the work after the last change is done (the defects of the chunks shown found
        and the listeners told, the settings a slider step away chunked): for scripts and tests
        that read what is drawn right after a change; a notebook need not call it."""
        self._thread.wait(timeout)
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
        """Change some parameters of the current strategy; ParamError before anything changes.
        Moving one slider chunks its neighbours next (`_look_ahead`), so a step is instant."""
        cs = self._use(self.strategy, get_strategy(self.strategy).resolve({**self.params, **params}))
        self._stepped = next(iter(params)) if len(params) == 1 else None
        return cs

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

    def _after_change(self, what: str) -> None:
        """Begin the work a change leaves for the state's thread: the settings chunked ahead that a
        newer chunking made moot and that have not begun are dropped (a page turn or a selection
        keeps them); the defects of the chunks shown go first."""
        if what in ("strategy", "chunks"):
            for future in self._ahead:
                future.cancel()
            self._ahead = []
        self._defects.begin(self, self._thread)
        stepped, self._stepped = self._stepped, None
        if stepped is not None:
            self._look_ahead(stepped)

    def _look_ahead(self, name: str) -> None:
        """Chunk the settings one slider step either side of numeric parameter `name` on the state's
        thread into the result cache: the next step of a slider (an arrow key, a short drag) is then
        drawn as fast as a selection (a re-chunk of 100 pages takes 8-12 ms; a cached one 1-2 ms)."""
        strat = get_strategy(self.strategy)
        p = next((q for q in strat.params if q.name == name), None)
        step = p.slider_step if p is not None else None
        if p is None or step is None:
            return
        params, doc, strategy = self.params, self.doc, self.strategy
        for value in (params[name] + step, params[name] - step):
            if not (p.min is not None and p.max is not None and p.min <= value <= p.max):
                continue
            try:
                resolved = strat.resolve({**params, name: value})
            except ChunkbenchError:  # a neighbour the other parameters do not allow
                continue
            if _key(strategy, resolved) not in self._cache:
                self._ahead.append(self._thread.submit(functools.partial(self._chunk_ahead, doc, strategy, resolved)))

    def _chunk_ahead(self, doc: Document, strategy: str, resolved: dict) -> None:
        """Chunk `doc` at a setting not asked for yet, into the cache if `doc` is still the one shown."""
        cs = chunk(doc, strategy, kept=self.kept, **resolved)
        with self.lock:
            key = _key(strategy, resolved)
            if self.doc is doc and key not in self._cache:
                self._keep(key, cs)

    def _use(self, strategy: str, resolved: dict) -> ChunkSet:
        key = _key(strategy, resolved)
        cs = self._cache.get(key)
        if cs is None:
            cs = self._keep(key, chunk(self.doc, strategy, kept=self.kept, **resolved))
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

    def _keep(self, key: str, cs: ChunkSet) -> ChunkSet:
        """Keep `cs` as the newest of the result cache, the oldest dropped past CACHE_SIZE."""
        self._cache[key] = cs
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
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


def _key(strategy: str, resolved: dict) -> str:
    """The result cache's key of a strategy and its resolved parameters."""
    return json.dumps([strategy, resolved], sort_keys=True, default=list)


class _OwnThread:
    """One thread of an ExplorerState's own for the work a change leaves (made when first needed):
    what it runs never holds up a change, and `wait` lets scripts see it done."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._submitted: list[Future] = []

    def submit(self, work: Callable[[], None]) -> Future:
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chunkbench-explorer")
        self._submitted = [f for f in self._submitted if not f.done()]
        future = self._pool.submit(work)
        self._submitted.append(future)
        return future

    def wait(self, timeout: float | None) -> None:
        """Wait for everything submitted so far (dropped work aside); raises what the work raised."""
        for future in list(self._submitted):
            if not future.cancelled():
                future.result(timeout)


class _DefectsWork:
    """The search for the defects of the chunks an ExplorerState shows: one chunking at a time on
    the state's own thread, since checking a whole document takes longer than a frame
    (30-90 ms on 100 pages). The chunks are drawn at once and their defects a moment later; the
    search of a chunking no longer shown is dropped if it has not begun."""

    def __init__(self) -> None:
        self.wanted = True
        #: the chunking whose defects are known (or whose search failed), and what was found
        self._found: tuple[ChunkSet | None, list[Finding] | None, str | None] = (None, None, None)
        #: the chunking being searched, and that work's future
        self._pending: tuple[ChunkSet, Future] | None = None

    def of(self, cs: ChunkSet) -> list[Finding] | None:
        return self._found[1] if self._found[0] is cs else None

    def error_of(self, cs: ChunkSet) -> str | None:
        return self._found[2] if self._found[0] is cs else None

    def begin(self, state: ExplorerState, thread: _OwnThread) -> None:
        """Search the defects of the chunks `state` shows, unless known, being searched or not wanted."""
        cs = getattr(state, "chunkset", None)
        if cs is None or not self.wanted or self._found[0] is cs:
            return
        if self._pending is not None:
            if self._pending[0] is cs:
                return
            self._pending[1].cancel()  # an earlier chunking's, not begun: no longer shown

        def search() -> None:
            from chunkbench.evaluate.defects import find_defects

            try:
                found = find_defects(cs)
            except Exception as exc:  # told to the view, not lost in a thread
                state._found(cs, None, str(exc))
                raise
            state._found(cs, found, None)

        self._pending = (cs, thread.submit(search))

    def done(self, cs: ChunkSet, found: list[Finding] | None, error: str | None) -> None:
        self._found = (cs, found, error)
