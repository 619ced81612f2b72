"""Serving the review app with Panel: one ReviewApp per browser session, page crops shared."""

from __future__ import annotations

import os

import panel as pn

from chunkbench.types.chunkset import ChunkSet

from .app import ReviewApp


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
    )
