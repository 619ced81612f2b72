"""The retrieval recipe through LangChain and LlamaIndex: rank chunks by their index texts, return
the chunks.

The retrieval default (`chunkbench chunk --for-retrieval`) gives each chunk an `index_text` (its
text twice with its neighbours'): what to embed. What a reader or a model should get is the chunk
alone. Embedding `page_content` (LangChain) or a node's text (LlamaIndex) embeds the chunk alone and
loses what docs/evaluation.md measures, so these build, over any embedding model of the framework:

* `to_langchain_retriever(chunks, embeddings)`: a LangChain `BaseRetriever` whose vector store
  (an `InMemoryVectorStore` unless one is given) holds one entry per index text, keyed by chunk id,
  and which returns the chunks' `Document`s (`to_langchain`), best first, each chunk once;
* `to_llama_index_retriever(chunks, embed_model)`: a LlamaIndex `BaseRetriever` over a
  `VectorStoreIndex` of the index texts (their chunk id kept out of what is embedded) that returns
  the chunks' `TextNode`s (`to_llama_index`) with the score of their best index text.

Chunks without index texts are ranked by their own text. The frameworks are optional: the `rag` extra.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from chunkbench.types.chunk import Chunk, ChunkedDocument

from .handoff import _require, to_langchain, to_llama_index

#: the metadata key of an index entry naming the chunk it indexes (or chunks, space-separated)
CHUNK_ID = "chunk_id"


def index_texts(chunk: Chunk) -> tuple[str, ...]:
    """What to embed for a chunk: its `index_text`, or its `index_texts` (it ranks by the best), or
    its own text when it has neither (chunkset.with_index_texts)."""
    extra = chunk.extra or {}
    if extra.get("index_text"):
        return (extra["index_text"],)
    if extra.get("index_texts"):
        return tuple(extra["index_texts"])
    return (chunk.text,)


def index_entries(chunks: ChunkedDocument) -> list[tuple[str, str, str]]:
    """(entry id, chunk ids, text) of every distinct text to embed, in chunk order: a text that
    indexes several chunks (their list's or section's: index_groups) is one entry naming them all,
    space-separated in chunk order, as the measure indexes it once (retrieval.ranking.UnitRanker)."""
    entries: dict[str, tuple[str, list[str]]] = {}
    for c in chunks.chunks:
        for n, t in enumerate(index_texts(c)):
            entry = entries.setdefault(t, (f"{c.chunk_id}#{n}", []))
            if c.chunk_id not in entry[1]:
                entry[1].append(c.chunk_id)
    return [(eid, " ".join(ids), t) for t, (eid, ids) in entries.items()]


def first_distinct(chunk_ids: Iterable[str], k: int) -> list[str]:
    """The first `k` distinct chunk ids of ranked index entries (each entry's CHUNK_ID: one id, or
    several space-separated, in chunk order): each chunk at the rank of its best text."""
    out: list[str] = []
    for entry in chunk_ids:
        for cid in entry.split(" "):
            if cid not in out:
                out.append(cid)
                if len(out) == k:
                    return out
    return out


#: index texts embedded per step of a retriever's build (LlamaIndex's own default batch)
EMBED_BATCH = 64


def _embedding_batches(entries: Sequence[Any]) -> Iterator[Sequence[Any]]:
    """`entries` in batches of EMBED_BATCH, with progress on the terminal or in Jupyter while the
    caller embeds them (io.progress.embedding_progress): with the bundled MiniLM on a CPU a 50-page
    PDF's index texts take minutes."""
    from .progress import embedding_progress

    with embedding_progress(len(entries), "index texts") as bar:
        for start in range(0, len(entries), EMBED_BATCH):
            batch = entries[start:start + EMBED_BATCH]
            yield batch
            bar.update(len(batch))


def _fetch(chunks: ChunkedDocument, k: int) -> int:
    """How many index entries to fetch so that `k` distinct chunks are among them."""
    most = max((len(index_texts(c)) for c in chunks.chunks), default=1)
    return k * most


def to_langchain_retriever(chunks: ChunkedDocument, embeddings: Any, *, k: int = 5, vectorstore: Any = None) -> Any:
    """A LangChain retriever that ranks `chunks` by their index texts embedded with `embeddings` (a
    `langchain_core.embeddings.Embeddings`) and returns the top `k` chunks as `to_langchain`
    Documents. `vectorstore`: an empty LangChain vector store to fill (default: InMemoryVectorStore,
    exact search)."""
    vs_module = _require("langchain_core.vectorstores", "to_langchain_retriever()")
    documents = _require("langchain_core.documents", "to_langchain_retriever()")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    store = vectorstore if vectorstore is not None else vs_module.InMemoryVectorStore(embeddings)
    entries = index_entries(chunks)
    for batch in _embedding_batches(entries):  # the store embeds what it is given
        store.add_documents([documents.Document(page_content=t, metadata={CHUNK_ID: cid}, id=eid)
                             for eid, cid, t in batch], ids=[eid for eid, _, _ in batch])
    by_id = {d.id: d for d in to_langchain(chunks)}
    return _langchain_class()(vectorstore=store, chunks=by_id, k=k, fetch=_fetch(chunks, k))


@functools.cache
def _langchain_class() -> type:
    """The LangChain retriever class, defined once langchain_core is there."""
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.vectorstores import VectorStore

    class IndexTextRetriever(BaseRetriever):
        """Ranks index texts in `vectorstore`, returns the chunks they index (each once, best first)."""

        vectorstore: VectorStore
        chunks: dict[str, Document]
        k: int = 5
        fetch: int = 5

        def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
            hits = self.vectorstore.similarity_search(query, k=self.fetch)
            return [self.chunks[cid] for cid in first_distinct((h.metadata[CHUNK_ID] for h in hits), self.k)]

    return IndexTextRetriever


def to_llama_index_retriever(chunks: ChunkedDocument, embed_model: Any, *, k: int = 5) -> Any:
    """A LlamaIndex retriever that ranks `chunks` by their index texts embedded with `embed_model`
    (a LlamaIndex embedding) in a VectorStoreIndex, and returns the top `k` chunks as `to_llama_index`
    TextNodes (text: the chunk; the index text is never shown to a model)."""
    core = _require("llama_index.core", "to_llama_index_retriever()")
    schema = _require("llama_index.core.schema", "to_llama_index_retriever()")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    entries = [schema.TextNode(id_=eid, text=t, metadata={CHUNK_ID: cid}, excluded_embed_metadata_keys=[CHUNK_ID],
                               excluded_llm_metadata_keys=[CHUNK_ID])
               for eid, cid, t in index_entries(chunks)]
    for batch in _embedding_batches(entries):  # embedded here, batch by batch, so the index embeds none again
        vectors = embed_model.get_text_embedding_batch([n.get_content(metadata_mode=schema.MetadataMode.EMBED)
                                                        for n in batch])
        for node, vector in zip(batch, vectors):
            node.embedding = vector
    index = core.VectorStoreIndex(entries, embed_model=embed_model, show_progress=False)
    inner = index.as_retriever(similarity_top_k=_fetch(chunks, k))
    nodes = {n.node_id: n for n in to_llama_index(chunks)}
    return _llama_index_class()(inner, nodes, k)


@functools.cache
def _llama_index_class() -> type:
    """The LlamaIndex retriever class, defined once llama_index.core is there."""
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle

    class IndexTextRetriever(BaseRetriever):
        """Ranks index texts with `inner`, returns the chunk nodes they index (each once, best first)."""

        def __init__(self, inner: Any, nodes: dict[str, Any], k: int):
            super().__init__()
            self.inner, self.nodes, self.k = inner, nodes, k

        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            hits = self.inner.retrieve(query_bundle)
            best: dict[str, float | None] = {}
            for h in hits:
                for cid in h.node.metadata[CHUNK_ID].split(" "):
                    best.setdefault(cid, h.score)
            return [NodeWithScore(node=self.nodes[cid], score=best[cid]) for cid in first_distinct(best, self.k)]

    return IndexTextRetriever


# --- the project's offline MiniLM as each framework's embedding --------------------------------


def langchain_minilm() -> Any:
    """all-MiniLM-L6-v2 (chunkbench.text.minilm: numpy, offline) as LangChain `Embeddings`."""
    return _langchain_minilm_class()()


@functools.cache
def _langchain_minilm_class() -> type:
    from langchain_core.embeddings import Embeddings

    from chunkbench.text.minilm import dense_model

    class MiniLMEmbeddings(Embeddings):
        """The project's MiniLM (the model `retriever="dense"` ranks with) for LangChain."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return dense_model().encode(list(texts)).tolist() if texts else []

        def embed_query(self, text: str) -> list[float]:
            return dense_model().encode([text])[0].tolist()

    return MiniLMEmbeddings


def llama_index_minilm() -> Any:
    """all-MiniLM-L6-v2 (chunkbench.text.minilm: numpy, offline) as a LlamaIndex embedding."""
    return _llama_index_minilm_class()(model_name="all-MiniLM-L6-v2 (chunkbench.text.minilm)", embed_batch_size=64)


@functools.cache
def _llama_index_minilm_class() -> type:
    from llama_index.core.embeddings import BaseEmbedding

    from chunkbench.text.minilm import dense_model

    class MiniLMEmbedding(BaseEmbedding):
        """The project's MiniLM (the model `retriever="dense"` ranks with) for LlamaIndex."""

        def _get_query_embedding(self, query: str) -> list[float]:
            return dense_model().encode([query])[0].tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return dense_model().encode([text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return dense_model().encode(list(texts)).tolist()

    return MiniLMEmbedding


__all__: Sequence[str] = ("index_texts", "index_entries", "first_distinct", "to_langchain_retriever",
                          "to_llama_index_retriever", "langchain_minilm", "llama_index_minilm")
