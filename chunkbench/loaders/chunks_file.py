"""A chunks.json back as a ChunkSet (`cb.load_chunks`): its chunks over the document they were made
from, given or found beside the file, so every hand-off and measure takes your own chunks file."""

from __future__ import annotations

import os
from pathlib import Path

from chunkbench.errors import InputError
from chunkbench.io.export import load_chunks_json
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document, sha256_file


def source_beside(data: dict, chunks_json: str | os.PathLike) -> Path | None:
    """The document a chunks.json was made from when it lies in the same folder (that folder only:
    the name is the `source` field's last part) and its sha256 is the chunks' `doc_id`; else None."""
    beside = Path(chunks_json).parent / Path(str(data.get("source", ""))).name
    if beside.name and beside.is_file() and sha256_file(beside) == data.get("doc_id"):
        return beside
    return None


def load_chunks(path: str | os.PathLike, doc: Document | str | os.PathLike | None = None) -> ChunkSet:
    """The ChunkSet of a chunks.json (validated): over `doc` (a Document, or a path to load), else
    over its source file found beside it (source_beside). InputError naming the file when neither
    is there or the document is another one than the chunks were made from."""
    from . import load

    data = load_chunks_json(path)
    if doc is None:
        found = source_beside(data, path)
        if found is None:
            raise InputError(f"its document {data.get('source')!r} is not beside it (with the same sha256): "
                             "pass doc= (a Document or its path)", Path(path))
        doc = found
    document = doc if isinstance(doc, Document) else load(doc)
    if document.doc_id != data["doc_id"]:
        raise InputError(f"these chunks were made from {data.get('source')!r} (doc_id {data['doc_id'][:12]}…), "
                         f"not from {document.source}", Path(path))
    return ChunkSet.from_dict(data, document)
