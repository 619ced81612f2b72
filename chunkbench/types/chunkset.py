"""ChunkSet: the chunks of one Document under one strategy and parameter set (made by
`chunkbench.strategies.chunk`), with its chunks.json, JSONL, chunk_debug.md and hand-off forms."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from chunkbench.errors import UsageError
from chunkbench.io.export import debug_markdown, write_chunks_json, write_jsonl
from chunkbench.io.handoff import to_haystack, to_langchain, to_llama_index
from chunkbench.io.return_policy import RETRIEVAL_POLICY
from chunkbench.text.context import Indexing, group_keys
from chunkbench.version import __version__

from .blocks import blocks_at
from .chunk import Chunk
from .document import Document


@dataclass(frozen=True)
class ChunkSet:
    """Ordered chunks of one Document under one strategy and parameter set."""

    doc: Document
    strategy: str
    params: Mapping[str, Any]
    chunks: tuple[Chunk, ...]
    ruleset: str = ""
    #: element id → why no chunk contains it
    skipped: Mapping[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (f"ChunkSet(source={self.doc.source!r}, strategy={self.strategy!r}, "
                f"params={dict(self.params)!r}, chunks={len(self.chunks)}, skipped={len(self.skipped)})")

    def __len__(self) -> int:
        return len(self.chunks)

    def __iter__(self):
        return iter(self.chunks)

    def __getitem__(self, i: int) -> Chunk:
        return self.chunks[i]

    @property
    def params_hash(self) -> str:
        return params_hash(self.params)

    @property
    def retrieval_recipe(self) -> str | None:
        """One line on what to embed and what to return when the chunks carry index texts
        (`with_index_texts`), else None: chunks.json's `chunking.retrieval`."""
        kinds = {k for c in self.chunks for k in (INDEX_TEXT, INDEX_TEXTS) if k in (c.extra or {})}
        if not kinds:
            return None
        what = "each chunk's index_text" if kinds == {INDEX_TEXT} else "each of a chunk's index_texts (rank it by the best)"
        return (f"embed {what}, return the chunk's text: ChunkSet.to_langchain_retriever / .to_llama_index_retriever "
                "do so (docs/export-and-cli.md#retrieval-hand-off); send the hits within a token budget with the "
                f"`{RETRIEVAL_POLICY}` return policy (io.context.budget_retriever / budget_postprocessor: "
                "docs/context-budget.md)")

    def header(self, chunked_at: str | None = None) -> dict:
        """The chunks.json envelope without the chunks."""
        return {
            "doc_id": self.doc.doc_id,
            "source": self.doc.source,
            "chunked_at": chunked_at or _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "chunking": {
                "version": __version__,
                "ruleset": self.ruleset,
                "strategy": self.strategy,
                "params": jsonable_params(self.params),
                "params_hash": self.params_hash,
                "parser": {"name": self.doc.parser.name, "version": self.doc.parser.version},
                **({"retrieval": recipe} if (recipe := self.retrieval_recipe) else {}),
            },
            #: why chunks may be missing (pages without a text layer, garbled fonts): the loader's words
            "warnings": list(self.doc.warnings),
        }

    def to_dict(self, chunked_at: str | None = None) -> dict:
        """The chunks.json document (docs/contracts.md)."""
        return {**self.header(chunked_at), "chunks": [c.to_dict() for c in self.chunks]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], doc: Document) -> ChunkSet:
        """The ChunkSet of a chunks.json document and the Document it was made from: `to_dict`'s
        inverse (`chunked_at` and the document `warnings` come from `doc`; `skipped` is not in
        chunks.json, so it is empty)."""
        if d["doc_id"] != doc.doc_id:
            raise UsageError(f"these chunks belong to {d.get('source')!r}, not to {doc.source}")
        chunking = d["chunking"]
        return cls(doc=doc, strategy=chunking["strategy"], params=restore_params(chunking["params"]),
                   chunks=tuple(Chunk.from_dict(c) for c in d["chunks"]), ruleset=chunking.get("ruleset", ""))

    def to_json(self, path: str | os.PathLike, chunked_at: str | None = None) -> None:
        """Validate against the shipped JSON Schema and write chunks.json atomically."""
        write_chunks_json(self, path, chunked_at=chunked_at)

    def to_debug_markdown(self, path: str | os.PathLike | None = None, defects: Sequence[Mapping[str, Any]] = ()) -> str:
        """chunk_debug.md: each chunk, its metadata, source elements, boundary reason and the defects
        found in it (`cb.defects(chunks)`, as `Finding.to_dict()`s; the CLI lists them)."""
        return debug_markdown(self, path, defects)

    def to_jsonl(self, path: str | os.PathLike) -> None:
        """One chunk dict per line, written atomically."""
        write_jsonl(self, path)

    def to_langchain(self, *, flat: bool = True, stable: bool = False) -> list:
        """LangChain `Document`s with the evidence in metadata (extra `rag`; see chunkbench.io.handoff;
        `stable=True` for incremental re-indexing)."""
        return to_langchain(self, flat=flat, stable=stable)

    def to_llama_index(self, *, flat: bool = True, stable: bool = False) -> list:
        """LlamaIndex `TextNode`s with char offsets and PREVIOUS/NEXT links (extra `rag`)."""
        return to_llama_index(self, flat=flat, stable=stable)

    def to_haystack(self, *, flat: bool = True, stable: bool = False) -> list:
        """Haystack `Document`s (id = chunk_id) with the evidence in meta (extra `rag`)."""
        return to_haystack(self, flat=flat, stable=stable)

    def to_langchain_retriever(self, embeddings, *, k: int = 5, vectorstore=None):
        """A LangChain retriever ranking the chunks by their index texts, returning the chunks (io.retrievers)."""
        from chunkbench.io.retrievers import to_langchain_retriever

        return to_langchain_retriever(self, embeddings, k=k, vectorstore=vectorstore)

    def to_llama_index_retriever(self, embed_model, *, k: int = 5):
        """A LlamaIndex retriever ranking the chunks by their index texts, returning the chunks (io.retrievers)."""
        from chunkbench.io.retrievers import to_llama_index_retriever

        return to_llama_index_retriever(self, embed_model, k=k)

    def with_index_texts(self, indexing: Indexing) -> ChunkSet:
        """The same chunks with what to index each by when the index returns the chunk alone
        (text.context.Indexing): `index_text`, its text twice with its neighbours', when that is the
        one text (index context or headings only); else `index_texts`, every text it is indexed by
        (rank the chunk by the best of their scores); the chunks unchanged when it is their own text
        only. With headings, each chunk's section path is the document's at the chunk's start."""
        if indexing.own_text_only:
            return self
        paths = self.doc.section_paths(c.start_char for c in self.chunks) if indexing.headings else None
        groups = None
        if indexing.groups:
            blocks = blocks_at(self.doc, [c.start_char for c in self.chunks])
            groups = [group_keys(b, c.section_path) for b, c in zip(blocks, self.chunks)]
        texts = indexing.texts([c.text for c in self.chunks], paths, groups)
        one = indexing.one_text

        def fields(t: tuple[str, ...]) -> dict:
            return {INDEX_TEXT: t[0]} if one else {INDEX_TEXTS: list(t)}

        chunks = tuple(replace(c, extra={k: v for k, v in c.extra.items() if k not in (INDEX_TEXT, INDEX_TEXTS)}
                                   | fields(t))
                       for c, t in zip(self.chunks, texts))
        return replace(self, chunks=chunks)

    def to_dataframe(self):
        """A pandas DataFrame, one row per chunk; list fields stay lists."""
        import pandas as pd

        rows = []
        for c in self.chunks:
            row = c.to_dict()
            row["reason"] = c.boundary.reason.value
            row["reason_detail"] = c.boundary.detail
            rows.append(row)
        return pd.DataFrame(rows)


#: the chunk fields `with_index_texts` adds: one text to index the chunk by, or every text
INDEX_TEXT = "index_text"
INDEX_TEXTS = "index_texts"


def restore_params(params: Mapping[str, Any]) -> dict:
    """Parameters read back from JSON: lists back to tuples. Every list-valued parameter is a tuple
    (`Param.coerce` makes tuples; JSON writes them as lists), so no registry is needed."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}


def params_hash(params: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of resolved parameters (sorted keys, tuples as lists)."""
    canon = json.dumps(_jsonable(params), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def jsonable_params(params: Mapping[str, Any]) -> dict:
    """Parameters as plain JSON values (tuples become lists)."""
    return _jsonable(params)
