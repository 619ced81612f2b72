"""Serving the review app with Panel: one ReviewApp per browser session, page crops shared."""

from __future__ import annotations

import os
import re
import sys
import threading
import uuid
from collections.abc import Iterable

import panel as pn
from panel.io.resources import COMPONENT_PATH
from panel.io.server import ComponentResourceHandler
from tornado.web import HTTPError

from chunkbench.types.chunkset import ChunkSet

from .app import ReviewApp
from .hosts import allowed_names, guard_hosts

_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class ComponentFiles(ComponentResourceHandler):
    """Panel's component resource route, answering 404 to what is not `module/Class/attr/file` of
    an already imported module: Panel's own handler imports any module a URL names and answers
    `/components/../../etc/passwd` with a 500 (nothing leaks, but an error page is not an answer)."""

    def parse_url_path(self, path: str) -> str:
        parts = path.split("/")
        if ".." in parts or not _MODULE_NAME.fullmatch(parts[0]) or parts[0] not in sys.modules:
            raise HTTPError(404, "Not found")
        return super().parse_url_path(path)


#: review sessions open at once; more browsers get a short "busy" page (a session costs about 0.15 s
#: of the server's CPU to build and its browser several seconds more to draw: 100 at once on two
#: cores left a quarter of them without a page after 30 s)
MAX_SESSIONS = 32


class SessionGate:
    """Counts the review sessions open; `enter` is False when `limit` are open already."""

    def __init__(self, limit: int):
        self.limit, self.open = limit, 0
        self._lock = threading.Lock()

    def enter(self) -> bool:
        with self._lock:
            if self.open >= self.limit:
                return False
            self.open += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.open = max(0, self.open - 1)


def busy_page(limit: int) -> pn.pane.HTML:
    """What a browser beyond the limit gets instead of the app: why, and what to do."""
    return pn.pane.HTML(
        "<h2>This review server is busy</h2>"
        f"<p>{limit} review session{' is' if limit == 1 else 's are'} open, the most it serves at once. "
        "Reload this page in a minute, "
        "or ask whoever started it to raise <code>--max-sessions</code>. Verdicts given in the open "
        "sessions are saved as they are given.</p>", sizing_mode="stretch_width")


class LiveChunking:
    """The chunking a served review app shows: final from the start, or provisional (the first
    pages of a PDF, while loaders.progressive parses the rest) until `update` gives the final one."""

    def __init__(self, chunkset: ChunkSet, note: str = ""):
        self._lock = threading.Lock()
        self.chunkset, self.note, self.version = chunkset, note, 0

    def update(self, chunkset: ChunkSet, note: str = "") -> None:
        """A newer chunking; `note` "" when it is final."""
        with self._lock:
            self.chunkset, self.note, self.version = chunkset, note, self.version + 1

    def current(self) -> tuple[ChunkSet, str, int]:
        with self._lock:
            return self.chunkset, self.note, self.version


def serve_app(chunkset: ChunkSet | LiveChunking, *, reviewer: str = "", workspace: str | os.PathLike | None = None,
              port: int = 5006, address: str = "127.0.0.1", show: bool = False, threaded: bool = False,
              dpi: int = 110, max_sessions: int = MAX_SESSIONS, allow_hosts: Iterable[str] = (), **server_options):
    """Serve a ReviewApp per browser session on `address:port` (loopback by default), at most
    `max_sessions` at once (more get `busy_page`, until one is closed). It answers only to
    127.0.0.1, localhost, [::1], `address` and the names in `allow_hosts` (`hosts`: 403 otherwise).

    Page images are rendered once and shared by all sessions. A LiveChunking still provisional
    is shown as it is, verdicts closed, and each session swaps in the final app by itself once it
    arrives (a check every second). Blocks until stopped unless `threaded`, in which case the
    server thread is returned (call `.stop()` on it). `server_options` go to Bokeh's server
    (`unused_session_lifetime_milliseconds`: how soon a closed tab frees its place)."""
    images: dict = {}
    live = chunkset if isinstance(chunkset, LiveChunking) else LiveChunking(chunkset)
    gate = SessionGate(max_sessions)

    def session():
        if not gate.enter():
            return busy_page(gate.limit)
        pn.state.on_session_destroyed(lambda _context: gate.leave())
        args = pn.state.session_args or {}
        name = args.get("reviewer", [b""])[0].decode("utf-8", "replace") or reviewer
        cs, note, seen = live.current()
        app = ReviewApp(cs, reviewer=name, workspace=workspace, dpi=dpi, image_cache=images, provisional=note)
        if not note:
            return app.layout
        holder = pn.Column(app.layout, sizing_mode="stretch_width")

        def check() -> None:
            nonlocal seen
            cs, note, version = live.current()
            if version == seen:
                return
            seen = version
            if note:  # more pages in, still provisional: say so
                app.session.set_provisional(note)
                return
            holder.objects = [ReviewApp(cs, reviewer=name, workspace=workspace, dpi=dpi, image_cache=images).layout]
            callback.stop()

        callback = pn.state.add_periodic_callback(check, period=1000)
        return holder

    first = live.chunkset
    names = allowed_names(address, allow_hosts)
    options = dict(
        port=port, address=address, show=show, title=f"chunkbench review · {first.doc.source}",
        # Bokeh's own websocket Origin check too (it cannot parse IPv6 names; the guard checks those)
        websocket_origin=[f"{name}:{port}" for name in sorted(names) if ":" not in name],
        extra_patterns=[(f"/{COMPONENT_PATH}(.*)", ComponentFiles, {})],  # before Panel's own route
        **server_options,
    )
    return _serve_guarded(session, names, threaded, options)


def _serve_guarded(session, names: frozenset[str], threaded: bool, options: dict):
    """Panel's server for `session`, made without starting it, the host guard put in front of its
    routes (`hosts.guard_hosts`), then started: in this thread (blocking), or in a thread of its own
    that is returned once the server listens (`.stop()` stops it; a server that cannot start, e.g.
    its port taken, raises here, not in the thread). No request is served before the guard is in place."""
    from panel.io.server import get_server
    from panel.io.state import state
    from panel.io.threads import StoppableThread
    from tornado.ioloop import IOLoop

    listening = threading.Event()
    failed: list[BaseException] = []

    def run(server_id: str, loop: IOLoop | None = None):
        try:
            server = get_server(session, start=False, server_id=server_id, loop=loop, **options)
            guard_hosts(server._tornado, names, server.port)
            server.start()
        except Exception as exc:  # noqa: BLE001 - raised in the caller's thread, below
            failed.append(exc)
            return None
        finally:
            listening.set()
        try:
            server.io_loop.start()
        except RuntimeError:
            pass
        return server

    server_id = uuid.uuid4().hex
    if not threaded:
        server = run(server_id)
        if failed:
            raise failed[0]
        return server
    loop = IOLoop(make_current=False)
    thread = StoppableThread(target=run, io_loop=loop, owns_loop=True, kwargs={"server_id": server_id, "loop": loop})
    state._threads[server_id] = thread
    thread.start()
    listening.wait()
    if failed:
        state._threads.pop(server_id, None)
        raise failed[0]
    return thread
