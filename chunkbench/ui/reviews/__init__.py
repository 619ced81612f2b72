"""The reviewer QA app: judge each chunk boundary, verdicts saved in the workspace SQLite file.

`review(doc_or_path, strategy, **params)` returns a `ReviewApp` that shows itself inline in a
notebook; `serve=True` (or `chunkbench review INPUT`) serves it with Panel on 127.0.0.1.
Storage and export live in `verdicts` (pure functions over a connection); one reviewer's place,
filters and verdicts in `session` (no widgets); the Panel view in `app`, its HTML pieces in
`cards`, its keyboard shortcuts in `keys`, serving in `serve`; the boundary crops in
`chunkbench.ui.render.crops`.
"""

from __future__ import annotations

import os
from typing import Any

from chunkbench.types.review import VERDICT_LABELS, VERDICTS, Verdict  # noqa: F401


def _chunkset(doc_or_path: Any, strategy: str | None, params: dict):
    """A ChunkSet from a ChunkSet, a Document or any loadable path (parsed once, cached)."""
    from chunkbench.app.chunking import chunk
    from chunkbench.app.defaults import DEFAULT_STRATEGY
    from chunkbench.app.opening import load
    from chunkbench.types.chunkset import ChunkSet
    from chunkbench.types.document import Document

    if isinstance(doc_or_path, ChunkSet):
        if params:
            return chunk(doc_or_path.doc, doc_or_path.strategy if strategy is None else strategy, **params)
        return doc_or_path
    doc = doc_or_path if isinstance(doc_or_path, Document) else load(doc_or_path)
    return chunk(doc, strategy or DEFAULT_STRATEGY, **params)


def review(
    doc_or_path: Any,
    strategy: str | None = None,
    *,
    reviewer: str = "",
    workspace: str | os.PathLike | None = None,
    serve: bool = False,
    port: int = 5006,
    address: str = "127.0.0.1",
    show: bool = False,
    threaded: bool = False,
    dpi: int = 110,
    allow_hosts: tuple[str, ...] = (),
    **params: Any,
):
    """Review the boundaries of `doc_or_path` chunked by `strategy` with `params`.

    Inline (default): returns a ReviewApp that displays itself in a notebook. `serve=True`:
    serves one app per browser session on `address:port` (a `?reviewer=NAME` URL argument
    overrides `reviewer`); blocks unless `threaded=True`, which returns the server thread. It answers
    only to 127.0.0.1, localhost, [::1], `address` and the names in `allow_hosts` (403 otherwise)."""
    from .app import ReviewApp
    from .serve import serve_app

    cs = _chunkset(doc_or_path, strategy, params)
    if serve:
        return serve_app(cs, reviewer=reviewer, workspace=workspace, port=port, address=address,
                         show=show, threaded=threaded, dpi=dpi, allow_hosts=allow_hosts)
    return ReviewApp(cs, reviewer=reviewer, workspace=workspace, dpi=dpi, inline=True)


__all__ = ["VERDICTS", "VERDICT_LABELS", "Verdict", "review", "verdicts"]
