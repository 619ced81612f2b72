"""The data model, in one home: Document, Page, Element, ParserInfo (`document`); Chunk, BBox,
Boundary, Reason (`chunk`); ChunkSet, the chunks of one Document under one setting (`chunkset`);
the reviewer's record, Verdict, Edit, Anchor (`review`). Import them from here
(`from chunkbench.types import Element`); `chunkbench` itself lists only Document, Chunk and ChunkSet."""

from .chunk import BBox, Boundary, Chunk, Reason
from .chunkset import ChunkSet
from .document import Document, Element, Page, ParserInfo
from .review import Anchor, Edit, Verdict

__all__ = ["Anchor", "BBox", "Boundary", "Chunk", "ChunkSet", "Document", "Edit", "Element", "Page", "ParserInfo",
           "Reason", "Verdict"]
