"""The data model, in one home: Document, Page, Element, ParserInfo (`document`); Chunk, BBox,
Boundary, Reason (`chunk`); ChunkSet, the chunks of one Document under one setting (`chunkset`);
the reviewer's record, Verdict, Edit, Anchor (`review`). Import them from here
(`from chunkbench.types import Element`); `chunkbench` itself lists only Document, Chunk and ChunkSet.

Each name is imported on first use: importing one module of the package (`types.chunk`, which
io.export reads) must not import them all (`types.chunkset` writes itself through io.export)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .chunk import BBox, Boundary, Chunk, Reason
    from .chunkset import ChunkSet
    from .document import Document, Element, Page, ParserInfo
    from .review import Anchor, Edit, Verdict

#: each public name and the module of the package that defines it
_HOMES = {
    **dict.fromkeys(("BBox", "Boundary", "Chunk", "Reason"), "chunk"),
    "ChunkSet": "chunkset",
    **dict.fromkeys(("Document", "Element", "Page", "ParserInfo"), "document"),
    **dict.fromkeys(("Anchor", "Edit", "Verdict"), "review"),
}

__all__ = ["Anchor", "BBox", "Boundary", "Chunk", "ChunkSet", "Document", "Edit", "Element", "Page", "ParserInfo",
           "Reason", "Verdict"]
assert sorted(__all__) == sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'chunkbench.types' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
