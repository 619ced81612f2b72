"""Chunks made by another chunker, read from a file or from the chunker's own Python objects into
one plain shape (`ForeignChunk`): the text, the chunker's metadata, and its start offset if it gave one.

A file is a JSON list (of strings, or of objects with `text` or LangChain's `page_content`, optional
`metadata` and `start_index`), or JSON Lines of the same. In Python the chunkers' objects are read
by their attributes, with no import of their libraries: LangChain `Document` (`page_content`),
LlamaIndex `TextNode` (`text`, `start_char_idx`), chonkie `Chunk` (`text`, `start_index`) and
Docling `DocChunk` (`text`, `meta`, whose `doc_items` name the items the chunk came from)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError
from chunkbench.loaders.jsonread import loads_checked
from chunkbench.loaders.textfile import read_bytes

TEXT_KEYS = ("text", "page_content", "content")


@dataclass(frozen=True)
class ForeignChunk:
    """One chunk as its chunker made it."""

    text: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: the chunker's own start offset into the text it chunked (not ours), when it gave one
    start_index: int | None = None
    #: the items the chunker says the chunk came from (Docling's `doc_items` references, `#/texts/3`,
    #: or element ids): where to look for it when they are the Document's
    refs: tuple[str, ...] = ()


def read_chunk_file(path: str | os.PathLike) -> list[ForeignChunk]:
    """The chunks in a JSON or JSON Lines file; InputError naming the file and the chunk otherwise."""
    file = Path(path)
    raw = read_bytes(file)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text: a chunk file is JSON or JSON Lines", file) from None
    if not text.strip():
        raise InputError("empty file: a chunk file is JSON or JSON Lines", file)
    try:
        data = loads_checked(text, file, non_finite_as_null=True)
    except json.JSONDecodeError:
        data = _json_lines(text, file)
    if isinstance(data, Mapping) and isinstance(data.get("chunks"), list):
        data = data["chunks"]  # a chunks.json of chunkbench itself, or any {"chunks": [...]}
    if not isinstance(data, list):
        raise InputError(f"expected a JSON list of chunks, got {type(data).__name__}", file)
    if not data:
        raise InputError("the file holds no chunks", file)
    return [_from_value(item, f"chunk {i}", file) for i, item in enumerate(data)]


def from_objects(items: Iterable[Any]) -> list[ForeignChunk]:
    """Chunks from Python objects: strings, dicts, or the chunkers' own chunk objects."""
    chunks = [_from_value(item, f"chunk {i}", None) for i, item in enumerate(items)]
    if not chunks:
        raise InputError("no chunks were given")
    return chunks


def _json_lines(text: str, file: Path) -> list[Any]:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(loads_checked(line, file, non_finite_as_null=True))
        except json.JSONDecodeError:
            raise InputError(f"neither JSON nor JSON Lines (line {n} is not JSON)", file) from None
    return rows


def _from_value(item: Any, where: str, file: Path | None) -> ForeignChunk:
    if isinstance(item, ForeignChunk):
        return item
    if isinstance(item, str):
        return ForeignChunk(item)
    if isinstance(item, Mapping):
        text = next((item[k] for k in TEXT_KEYS if isinstance(item.get(k), str)), None)
        given = item.get("metadata", item.get("meta"))  # `meta`: a DocChunk's export_json_dict()
        metadata: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        start = item.get("start_index", metadata.get("start_index"))
    else:
        text = _attribute_text(item)
        metadata = _attribute_metadata(item)
        start = next((getattr(item, k) for k in ("start_index", "start_char_idx") if hasattr(item, k)), None)
        start = start if start is not None else metadata.get("start_index")
    if text is None:
        shown = type(item).__name__
        raise InputError(f"{where} has no text (a string, or an object with {', '.join(TEXT_KEYS)}; got {shown})", file)
    plain = _plain(metadata)
    return ForeignChunk(text, plain, start if isinstance(start, int) and not isinstance(start, bool) else None,
                        _doc_item_refs(plain))


def _doc_item_refs(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The `self_ref` of each of Docling's `doc_items` in a chunk's metadata."""
    items = metadata.get("doc_items")
    if not isinstance(items, list):
        return ()
    return tuple(d["self_ref"] for d in items if isinstance(d, Mapping) and isinstance(d.get("self_ref"), str))


def _attribute_text(item: Any) -> str | None:
    for name in ("page_content", "text"):
        value = getattr(item, name, None)
        if isinstance(value, str):
            return value
    get_content = getattr(item, "get_content", None)  # LlamaIndex nodes
    value = get_content() if callable(get_content) else None
    return value if isinstance(value, str) else None


def _attribute_metadata(item: Any) -> Mapping[str, Any]:
    for name in ("metadata", "meta"):
        value = getattr(item, name, None)
        if isinstance(value, Mapping):
            return value
        dump = getattr(value, "export_json_dict", None) or getattr(value, "model_dump", None)  # Docling meta
        if callable(dump):
            try:
                dumped = dump()
            except Exception:  # noqa: BLE001 - someone else's model: metadata is optional
                continue
            if isinstance(dumped, Mapping):
                return dumped
    return {}


def _plain(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The metadata as plain JSON values (anything else becomes its string, NaN and Infinity null),
    so chunks.json holds it."""
    try:
        return json.loads(json.dumps(dict(metadata), ensure_ascii=False, default=str), parse_constant=lambda _: None)
    except (TypeError, ValueError, RecursionError):
        return {"metadata": str(metadata)[:1000]}
