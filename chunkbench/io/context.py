"""A return policy in the user's own stack: a LangChain retriever wrapper and a LlamaIndex
node postprocessor that send, for the hits of any retriever, what `evaluate --return-policy` measures
(io.return_policy: `hits`, `window`, `section`, `grow`, `structure`) within a budget of cl100k tokens.

Both work from chunkbench's chunk ids and the neighbours in the hand-off metadata (`prev_chunk_id`,
`next_chunk_id`, `section_path`, `size_cut_before`, `size_cut_after`, `block_id`: io.handoff.neighbours), so
the chunks must be `to_langchain()` Documents / `to_llama_index()` nodes (not `stable=True`), stored
where the wrapper can fetch a neighbour by id: a LangChain vector store with `get_by_ids` (or a
dict of Documents), a LlamaIndex docstore. The last chunk sent is cut at the budget and marked
`cut_at_budget: true`; neighbours a hit brought carry `brought_by: <hit's chunk id>`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chunkbench.text.tokenizer import count_tokens, get_encoding

from .handoff import SECTION_SEPARATOR, _require
from .return_policy import RETRIEVAL_POLICY, check_policy, returned

#: what a policy reads from a chunk's metadata
NEXT, PREV, CUT_BEFORE, CUT_AFTER, SECTION, BLOCK = ("next_chunk_id", "prev_chunk_id", "size_cut_before",
                                                     "size_cut_after", "section_path", "block_id")


class MetadataNeighbourhood:
    """return_policy.Neighbourhood over chunks fetched by id: `fetch(ids)` returns
    {id: (metadata, text)} for the ids it has; what is fetched once is kept."""

    def __init__(self, fetch: Callable[[Sequence[str]], Mapping[str, tuple[Mapping[str, Any], str]]]):
        self._fetch = fetch
        self.known: dict[str, tuple[Mapping[str, Any], str]] = {}

    def add(self, key: str, metadata: Mapping[str, Any], text: str) -> None:
        self.known[key] = (metadata, text)

    def meta(self, key: str) -> Mapping[str, Any]:
        if key not in self.known:
            self.known.update(self._fetch([key]))
        return self.known[key][0] if key in self.known else {}

    def text(self, key: str) -> str:
        self.meta(key)
        return self.known[key][1] if key in self.known else ""

    def after(self, key: str) -> str | None:
        nxt = self.meta(key).get(NEXT)
        return nxt if nxt and self.meta(nxt) else None

    def before(self, key: str) -> str | None:
        prev = self.meta(key).get(PREV)
        return prev if prev and self.meta(prev) else None

    def section(self, key: str) -> str:
        path = self.meta(key).get(SECTION, "")
        return SECTION_SEPARATOR.join(path) if isinstance(path, (list, tuple)) else str(path)

    def cut_after(self, key: str) -> bool:
        return bool(self.meta(key).get(CUT_AFTER))

    def cut_before(self, key: str) -> bool:
        return bool(self.meta(key).get(CUT_BEFORE))

    def block(self, key: str) -> str | None:
        value = self.meta(key).get(BLOCK)
        return str(value) if value else None


def cut_to_tokens(text: str, tokens: int) -> str:
    """The first `tokens` cl100k tokens of `text`."""
    enc = get_encoding()
    return enc.decode(enc.encode(text)[:tokens])


def plan(nb: MetadataNeighbourhood, hits: Sequence[str], budget: int, policy: str) -> list[tuple[str, int, str]]:
    """(chunk id, tokens taken, the hit that brought it) of what to send, in order (budget.returned)."""
    tokens: dict[str, int] = {}

    def cost(key: str) -> int:
        if key not in tokens:
            tokens[key] = count_tokens(nb.text(key))
        return tokens[key]

    return returned(nb, hits, cost, budget, policy)


def sent_chunks(nb: MetadataNeighbourhood, hits: Sequence[str], budget: int, policy: str
                ) -> list[tuple[str, str, dict[str, Any], str]]:
    """(chunk id, text, metadata, the hit that brought it) of what to send, in order: a neighbour's
    metadata says `brought_by`, the chunk cut at the budget `cut_at_budget` (both wrappers' output)."""
    out = []
    for key, take, by in plan(nb, hits, budget, policy):
        text, meta = nb.text(key), dict(nb.meta(key))
        if by != key:
            meta["brought_by"] = by
        if take < count_tokens(text):
            text, meta["cut_at_budget"] = cut_to_tokens(text, take), True
        out.append((key, text, meta, by))
    return out


def _check(budget: int, policy: str) -> None:
    if budget < 1:
        raise ValueError(f"budget must be at least 1 token, got {budget}")
    check_policy(policy)


def budget_retriever(retriever: Any, documents: Any, *, budget: int = 1000, policy: str = RETRIEVAL_POLICY) -> Any:
    """A LangChain retriever sending, for the hits of `retriever` (any BaseRetriever returning
    `to_langchain()` Documents, best first), what `policy` sends within `budget` cl100k tokens.
    `documents`: where a neighbour is fetched by chunk id: a vector store with `get_by_ids` holding
    the chunks' Documents under their ids, or a dict of them."""
    _require("langchain_core.retrievers", "budget_retriever()")
    _check(budget, policy)
    return _langchain_class()(retriever=retriever, documents=documents, budget=budget, policy=policy)


@functools.cache
def _langchain_class() -> type:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    class ContextBudgetRetriever(BaseRetriever):
        """The hits of `retriever`, grown by a return policy within a token budget (io.context)."""

        retriever: Any
        documents: Any
        budget: int = 1000
        policy: str = RETRIEVAL_POLICY

        def _fetch(self, ids: Sequence[str]) -> dict[str, tuple[Mapping[str, Any], str]]:
            if isinstance(self.documents, Mapping):
                found = [self.documents[i] for i in ids if i in self.documents]
            else:
                found = self.documents.get_by_ids(list(ids))
            return {(d.id or d.metadata.get("chunk_id")): (d.metadata, d.page_content) for d in found}

        def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
            hits = self.retriever.invoke(query)
            nb = MetadataNeighbourhood(self._fetch)
            ids = []
            for d in hits:
                key = d.id or d.metadata["chunk_id"]
                nb.add(key, d.metadata, d.page_content)
                ids.append(key)
            return [Document(page_content=text, metadata=meta, id=key)
                    for key, text, meta, _ in sent_chunks(nb, ids, self.budget, self.policy)]

    return ContextBudgetRetriever


def budget_postprocessor(docstore: Any, *, budget: int = 1000, policy: str = RETRIEVAL_POLICY) -> Any:
    """A LlamaIndex node postprocessor sending, for the retrieved `to_llama_index()` nodes (best
    first), what `policy` sends within `budget` cl100k tokens; neighbours are fetched from
    `docstore` (an index's `docstore`) by chunk id and scored as the hit that brought them."""
    _require("llama_index.core.postprocessor.types", "budget_postprocessor()")
    _check(budget, policy)
    return _llama_index_class()(docstore=docstore, budget=budget, policy=policy)


@functools.cache
def _llama_index_class() -> type:
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

    class ContextBudgetPostprocessor(BaseNodePostprocessor):
        """The retrieved nodes, grown by a return policy within a token budget (io.context)."""

        docstore: Any
        budget: int = 1000
        policy: str = RETRIEVAL_POLICY

        @classmethod
        def class_name(cls) -> str:
            return "ContextBudgetPostprocessor"

        def _fetch(self, ids: Sequence[str]) -> dict[str, tuple[Mapping[str, Any], str]]:
            out = {}
            for i in ids:
                node = self.docstore.get_node(i, raise_error=False)
                if node is not None:
                    out[i] = (node.metadata, node.get_content())
            return out

        def _postprocess_nodes(self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
                               ) -> list[NodeWithScore]:
            nb = MetadataNeighbourhood(self._fetch)
            score = {}
            for n in nodes:
                nb.add(n.node.node_id, n.node.metadata, n.node.get_content())
                score[n.node.node_id] = n.score
            return [NodeWithScore(node=TextNode(id_=key, text=text, metadata=meta), score=score.get(key, score.get(by)))
                    for key, text, meta, by in sent_chunks(nb, list(score), self.budget, self.policy)]

    return ContextBudgetPostprocessor
