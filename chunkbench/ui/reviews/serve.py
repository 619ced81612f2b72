"""Serving the review app with Panel: one ReviewApp per browser session, page crops shared."""

from __future__ import annotations

import os
import re
import sys

import panel as pn
from panel.io.resources import COMPONENT_PATH
from panel.io.server import ComponentResourceHandler
from tornado.web import HTTPError

from chunkbench.types.chunkset import ChunkSet

from .app import ReviewApp

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


def serve_app(chunkset: ChunkSet, *, reviewer: str = "", workspace: str | os.PathLike | None = None,
              port: int = 5006, address: str = "127.0.0.1", show: bool = False, threaded: bool = False,
              dpi: int = 110):
    """Serve a ReviewApp per browser session on `address:port` (loopback by default).

    Page images are rendered once and shared by all sessions. Blocks until stopped unless
    `threaded`, in which case the server thread is returned (call `.stop()` on it)."""
    images: dict = {}

    def session():
        args = pn.state.session_args or {}
        name = args.get("reviewer", [b""])[0].decode("utf-8", "replace") or reviewer
        return ReviewApp(chunkset, reviewer=name, workspace=workspace, dpi=dpi, image_cache=images).layout

    return pn.serve(
        session, port=port, address=address, show=show, threaded=threaded, start=True,
        title=f"chunkbench review · {chunkset.doc.source}",
        websocket_origin=[f"{address}:{port}", f"localhost:{port}", f"127.0.0.1:{port}"],
        extra_patterns=[(f"/{COMPONENT_PATH}(.*)", ComponentFiles, {})],  # before Panel's own route
    )
