"""From a document to a judged choice in one step (`chunkbench pick`, `cb.pick`): the comparison
`chunkbench evaluate` runs (on a questions file, or without one on the document's own queries, with
the line on how far those can be trusted), its best setting chunked with the texts a retrieval index
embeds, and the lines that load that into LangChain or LlamaIndex with the return policy the
budgets were measured with."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkbench.app.chunking import chunk
from chunkbench.app.defaults import RETRIEVAL_DEFAULT, RETRIEVAL_POLICY, default_settings
from chunkbench.evaluate.benchmark import baseline, compare_settings, equally_indexed, find_cases, format_report
from chunkbench.evaluate.retrieval.budget import BudgetSpec
from chunkbench.evaluate.settings import Setting
from chunkbench.types.chunkset import ChunkSet

__all__ = ["Pick", "loading_lines", "pick"]


@dataclass(frozen=True)
class Pick:
    """The chosen setting's chunks (with index texts), the setting, why it was chosen, and the
    comparison it was chosen by (compare_settings' result)."""

    chunks: ChunkSet
    setting: Setting
    why: str
    comparison: dict[str, Any] = field(repr=False)
    policy: str = RETRIEVAL_POLICY

    def report(self, path: str = "chunks.json", source: str | None = None) -> str:
        """The comparison's tables, the choice and the lines that load `path` (over `source`, the
        document's path, when the chunks file is not beside it)."""
        return "\n\n".join([format_report(self.comparison, per_document=False), f"chosen: {self.why}",
                            loading_lines(path, source, self.policy)])


def pick(path: str | os.PathLike, questions: str | os.PathLike | None = None, *, retriever: str = "bm25",
         settings: Sequence[Setting] | None = None, budget: int = 1000) -> Pick:
    """Compare `settings` (evaluate's defaults) on the document at `path` with its questions
    (`questions`, or the `<stem>.questions.json` beside it; without any, the document's own
    queries), recall at `budget` tokens sent with RETRIEVAL_POLICY; chunk it with the best
    setting, or with the retrieval default when no setting beats the splitter (`why` says which)."""
    cases = find_cases([path], questions, proxy=True)
    base = baseline()
    candidates = equally_indexed(list(settings) if settings is not None else default_settings(), base)
    result = compare_settings(cases, candidates, base, retriever=retriever,
                              budget=BudgetSpec((budget,), RETRIEVAL_POLICY))
    by_name = {s.name: s for s in candidates if s.strategy is not None}
    if result["best"] in by_name:
        chosen = by_name[result["best"]]
        why = f"{chosen.name}, the best of {len(candidates)} settings against the splitter ({retriever})"
    else:
        chosen = RETRIEVAL_DEFAULT
        why = (f"{chosen.name}, the retrieval default: none of the {len(candidates)} settings beat the splitter "
               f"({retriever})")
    params = chosen.strategy_params
    chunks = chunk(cases[0].doc, str(chosen.strategy), indexing=chosen.indexing, **params)
    return Pick(chunks, chosen, why, result)


def loading_lines(path: str, source: str | None = None, policy: str = RETRIEVAL_POLICY) -> str:
    """Python that loads the chunks file at `path` (over the document at `source`) into LangChain
    and into LlamaIndex: ranked by their index texts, sent within a budget with `policy` (what
    `pick` measured)."""
    over = "" if source is None else f", doc={str(source)!r}"
    return "\n".join([
        "import chunkbench as cb; from chunkbench.io.context import budget_retriever, budget_postprocessor",
        f"chunks = cb.load_chunks({str(path)!r}{over})",
        f"retriever = budget_retriever(chunks.to_langchain_retriever(embeddings), {{d.id: d for d in "
        f"chunks.to_langchain()}}, budget=1000, policy={policy!r})  # LangChain: retriever.invoke(question)",
        "from llama_index.core.storage.docstore import SimpleDocumentStore; store = SimpleDocumentStore(); "
        f"store.add_documents(chunks.to_llama_index()); retriever, post = chunks.to_llama_index_retriever(embed_model), "
        f"budget_postprocessor(store, budget=1000, policy={policy!r})  "
        "# LlamaIndex: post.postprocess_nodes(retriever.retrieve(question))",
    ])
