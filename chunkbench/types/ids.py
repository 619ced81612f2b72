"""Chunk ids that survive change: made of the chunk's text and its place in its section, never of
its index in the document, so an unchanged chunk keeps its id across a re-parse, a new version of
the document and a parameter change that does not move it (docs/lineage.md states the rule).

`{key}_{h}`: `key` is the document key (`document_key`), `h` the first 16 hex digits of BLAKE2b over
the chunk's section path, its text and how many earlier chunks of the same section have the same
text. A piece of a split section (`parent_chunk_id` in its extra: the headers strategy) is
`{parent}_sub_{h}`, the parent's id made the same way from its section path alone. A strategy whose
spec asks for UUIDs (contract) gets the UUID5 of that id.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import PurePath

from .chunk import Chunk, _frozen
from .document import Document

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
#: separates the hashed fields: a character no heading or text holds in practice
_FIELD = "\x1f"


def is_document_key(value: str) -> bool:
    """Whether `value` can start a chunk id as it is (what `--document-id` accepts)."""
    return 0 < len(value) <= 64 and not _UNSAFE.search(value) and value.strip(".-") == value


def document_key(doc: Document) -> str:
    """The id prefix of a document's chunks: metadata `document_id` if given, else the source file's
    stem (letters, digits, `.`, `_`, `-`), else the first 16 hex digits of the doc_id. A file name,
    not the file's hash: a new version of the file under the same name keeps its unchanged chunks' ids."""
    given = doc.metadata.get("document_id")
    if given:
        return str(given)
    stem = _UNSAFE.sub("-", PurePath(doc.source.replace("\\", "/")).stem).strip("-.")[:64]
    return stem or doc.doc_id[:16]


def _digest(*fields: object) -> str:
    return hashlib.blake2b(_FIELD.join(map(str, fields)).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def with_stable_ids(chunks: Sequence[Chunk], key: str, *, as_uuid: bool = False) -> tuple[Chunk, ...]:
    """`chunks` with the ids of the module's rule (parent ids in `parent_chunk_id` renamed alike);
    linear in the chunks' text."""
    seen: Counter = Counter()
    parents: dict[str, str] = {}

    def place(*fields: object) -> str:
        n = seen[fields]
        seen[fields] += 1
        return f"{key}_{_digest(key, *fields, n)}"

    def form(chunk_id: str) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"chunkbench/{chunk_id}")) if as_uuid else chunk_id

    out = []
    for c in chunks:
        path = _FIELD.join(c.section_path)
        extra = c.extra
        parent = extra.get("parent_chunk_id")
        if parent is not None:
            if parent not in parents:
                parents[parent] = form(place(path, "section"))
            own = place(parents[parent], path, c.text).rpartition("_")[2]
            new_id = f"{parents[parent]}_sub_{own}"
            extra = {**extra, "parent_chunk_id": parents[parent]}
        else:
            new_id = form(place(path, c.text))
        out.append(_frozen(Chunk, **{**c.__dict__, "chunk_id": new_id, "extra": extra}))
    return tuple(out)
