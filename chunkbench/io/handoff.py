"""Hand chunks to RAG frameworks: LangChain `Document`s, LlamaIndex `TextNode`s and Haystack
`Document`s.

Each carries the chunk's evidence in metadata. Vector stores (Chroma, Pinecone, Qdrant filters, …)
accept only flat metadata, so by default every value is a str, int, float or bool: `section_path`
is joined with " > ", `bbox` and other list/dict fields are JSON strings, and None values are
left out. Pass `flat=False` to keep lists and dicts as they are.

`stable=True` is for re-indexing a document that changes (docs/lineage.md): the metadata keeps only
what stays the same while a chunk's text and section do (STABLE_FIELDS and the document's own
metadata), not its index, pages, boxes, offsets or neighbours, so a record manager or docstore that
hashes metadata sees an unchanged chunk as unchanged; look the rest up by chunk_id
(`cb.store.get_chunk`, chunks.json).
The frameworks are optional: `pip install 'chunkbench[rag]'`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from chunkbench.types.blocks import blocks_at
from chunkbench.types.chunk import Chunk, ChunkedDocument

INSTALL_HINT = "pip install 'chunkbench[rag]'"
SECTION_SEPARATOR = " > "
#: the only metadata LlamaIndex embeds with a chunk's text: where it sits in the document's outline
EMBEDDED_METADATA = ("section_path",)
#: metadata LlamaIndex should not show the LLM (positions and ids, not meaning)
NOT_FOR_EMBEDDING = ("chunk_id", "doc_id", "bbox", "start_char", "end_char", "reason", "reason_detail",
                     "params_hash", "tokens_est", "index", "parent_id", "strategy", "prev_chunk_id",
                     "next_chunk_id", "size_cut_before", "size_cut_after", "block_id", "citation",
                     # the retrieval recipe's texts: what to rank by (io.retrievers), never the node's text
                     "index_text", "index_texts")


#: the chunk fields `stable=True` keeps: each stays the same while the chunk's text and section do
STABLE_FIELDS = ("chunk_id", "type", "section_path", "heading", "char_len", "tokens_est")


class MissingExtraError(ImportError):
    """An optional framework is not installed; the message says how to install it."""


def _require(module: str, what: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(f"{what} needs {module.split('.')[0]!r} ({exc}); install it with: {INSTALL_HINT}") from None


def parent_id(chunk: Chunk) -> str | None:
    """The id of the section a sub-chunk was split from (`parent_chunk_id`: headers strategy), else None."""
    parent = chunk.extra.get("parent_chunk_id")
    return str(parent) if parent is not None else None


def _simple(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def chunk_metadata(chunks: ChunkedDocument, chunk: Chunk, *, flat: bool = True, stable: bool = False
                   ) -> dict[str, Any]:
    """The metadata the hand-offs attach to a chunk: document metadata, then chunk fields (with
    `stable`, only those of STABLE_FIELDS)."""
    d = chunk.to_dict()
    meta: dict[str, Any] = dict(chunk.metadata)  # pass-through (user_id, company, ...); chunk fields win
    if stable:
        meta.update({k: d[k] for k in STABLE_FIELDS}, source=chunks.doc.source, strategy=chunks.strategy)
    else:
        meta.update(neighbours(chunks, chunk))
        meta.update({k: v for k, v in d.items() if k not in ("text", "metadata", "boundary")})
        meta.update(
            source=chunks.doc.source,
            doc_id=chunks.doc.doc_id,
            strategy=chunks.strategy,
            params_hash=chunks.params_hash,
            page=chunk.page_start,
            reason=chunk.boundary.reason.value,
            reason_detail=chunk.boundary.detail,
        )
    parent = parent_id(chunk)
    if parent is not None:
        meta["parent_id"] = parent
    if not flat:
        return meta
    meta["section_path"] = SECTION_SEPARATOR.join(chunk.section_path)
    return {k: _simple(v) for k, v in meta.items() if v is not None}


def neighbours(chunks: ChunkedDocument, chunk: Chunk) -> dict[str, Any]:
    """The chunk's neighbours and the cuts between them, as a return policy reads them from the
    metadata (io.context, evaluate.retrieval.budget): `prev_chunk_id` / `next_chunk_id` (None at the
    ends), whether the cut before / after it is a size cut (`size_cut_before` / `size_cut_after`) and
    the structural block its start lies in (`block_id`: types.blocks.blocks_at, what `structure` keeps together)."""
    from chunkbench.types.chunk import SIZE_CUTS

    seq = chunks.chunks
    i = chunk.index if 0 <= chunk.index < len(seq) and seq[chunk.index] is chunk else seq.index(chunk)
    after = seq[i + 1] if i + 1 < len(seq) else None
    return {"prev_chunk_id": seq[i - 1].chunk_id if i > 0 else None,
            "next_chunk_id": after.chunk_id if after is not None else None,
            "size_cut_before": i > 0 and chunk.boundary.reason in SIZE_CUTS,
            "size_cut_after": after is not None and after.boundary.reason in SIZE_CUTS,
            "block_id": blocks_at(chunks.doc, [chunk.start_char])[0]}


def to_langchain(chunks: ChunkedDocument, *, flat: bool = True, stable: bool = False) -> list:
    """One `langchain_core.documents.Document` per chunk (id = chunk_id, metadata as above). For
    LangChain's `index()`, pass `key_encoder=lambda d: d.id`: its record manager then keys each
    chunk by its chunkbench id, and a new version re-embeds only chunks whose text changed."""
    documents = _require("langchain_core.documents", "ChunkSet.to_langchain()")
    return [
        documents.Document(page_content=c.text, metadata=chunk_metadata(chunks, c, flat=flat, stable=stable),
                           id=c.chunk_id)
        for c in chunks.chunks
    ]


def to_llama_index(chunks: ChunkedDocument, *, flat: bool = True, stable: bool = False) -> list:
    """One LlamaIndex `TextNode` per chunk, id = chunk_id, with start/end char indices. What is
    embedded is the text and the section path (EMBEDDED_METADATA); the model also sees the
    metadata that says what the chunk is (type, pages, …), not positions and ids (NOT_FOR_EMBEDDING).

    Relationships: SOURCE → the document (doc_id); PREVIOUS/NEXT link consecutive chunks in
    reading order, as LlamaIndex's own node parsers do; when both chunks are sub-chunks of one
    parent (`…_sub_N`, headers strategy) the link's metadata says `{"sibling": True,
    "parent_id": …}` and each node has `parent_id` metadata (no PARENT relationship: the parent
    is not a node of its own).

    `stable=True` (an IngestionPipeline with a docstore, `docstore_strategy=UPSERTS_AND_DELETE`):
    stable metadata and no relationships (a SOURCE would make the document, not the node, the unit
    the docstore compares; PREVIOUS/NEXT change with the neighbours), so a new version re-embeds
    only the nodes whose text changed. The pipeline deletes from the vector store by document, so
    the chunks a version lost go with `vector_store.delete_nodes(lineage.to_delete)`."""
    schema = _require("llama_index.core.schema", "ChunkSet.to_llama_index()")
    rel, info = schema.NodeRelationship, schema.RelatedNodeInfo
    nodes = []
    for c in chunks.chunks:
        meta = chunk_metadata(chunks, c, flat=flat, stable=stable)
        hidden = [k for k in NOT_FOR_EMBEDDING if k in meta]
        not_embedded = [k for k in meta if k not in EMBEDDED_METADATA]
        nodes.append(schema.TextNode(
            id_=c.chunk_id, text=c.text, metadata=meta, start_char_idx=c.start_char, end_char_idx=c.end_char,
            excluded_embed_metadata_keys=not_embedded, excluded_llm_metadata_keys=hidden,
            relationships={} if stable else {rel.SOURCE: info(node_id=chunks.doc.doc_id,
                                                              metadata={"source": chunks.doc.source})},
        ))
    if stable:
        return nodes
    for (a, node_a), (b, node_b) in zip(zip(chunks.chunks, nodes), zip(chunks.chunks[1:], nodes[1:])):
        parent = parent_id(a)
        link = {"sibling": True, "parent_id": parent} if parent is not None and parent == parent_id(b) else {}
        node_a.relationships[rel.NEXT] = info(node_id=node_b.node_id, metadata=dict(link))
        node_b.relationships[rel.PREVIOUS] = info(node_id=node_a.node_id, metadata=dict(link))
    return nodes


def to_haystack(chunks: ChunkedDocument, *, flat: bool = True, stable: bool = False) -> list:
    """One Haystack 2.x `haystack.Document` per chunk: id = chunk_id, content = the chunk's text (what
    an embedder embeds), meta as above. Haystack's usage telemetry is switched off unless the user
    switched it on (HAYSTACK_TELEMETRY_ENABLED): chunkbench sends nothing anywhere."""
    os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
    haystack = _require("haystack", "ChunkSet.to_haystack()")
    return [haystack.Document(id=c.chunk_id, content=c.text, meta=chunk_metadata(chunks, c, flat=flat, stable=stable))
            for c in chunks.chunks]

