"""The retrieval recipe through the real LangChain and LlamaIndex objects: a user who
hands the retrieval default's chunks over gets the figure `evaluate` measures."""

from __future__ import annotations

import statistics

import pytest

from chunkbench.app.defaults import RETRIEVAL_DEFAULT
from chunkbench.evaluate.benchmark import Setting, find_cases, score_setting
from chunkbench.evaluate.retrieval.scoring import token_scores
from chunkbench.io.export import load_chunks_json
from chunkbench.io.retrievers import (
    first_distinct,
    index_texts,
    langchain_minilm,
    llama_index_minilm,
    to_langchain_retriever,
    to_llama_index_retriever,
)
from chunkbench.strategies import chunk
from tests.support.paths import ROOT

CORPUS = ROOT / "tests" / "data" / "retrieval"


@pytest.fixture(scope="module")
def case():
    return find_cases([CORPUS / "us_constitution.txt"])[0]


def _recipe_chunks(case, setting=RETRIEVAL_DEFAULT):
    return chunk(case.doc, setting.strategy, **setting.strategy_params).with_index_texts(setting.indexing)


def _scores(case, ranges_of) -> tuple[float, float]:
    """Mean token IoU and recall over the case's questions of the ranges a retriever returns."""
    ious, recalls = [], []
    for r in case.resolved:
        _, recall, iou = token_scores(ranges_of(r.question.question), r.spans, case.doc.text)
        ious.append(iou)
        recalls.append(recall)
    return statistics.mean(ious), statistics.mean(recalls)


@pytest.fixture
def embed_once(monkeypatch):
    """MiniLM embedding each distinct text once in this test: `evaluate`, LangChain and LlamaIndex
    embed the same index texts, each through its own interface (the same vectors; a third of the time)."""
    import numpy as np

    from chunkbench.text.minilm import dense_model

    model = dense_model()
    encode, seen = model.encode, {}

    def cached(texts, batch_size=64, on_batch=None):
        todo = [t for t in dict.fromkeys(texts) if t not in seen]
        if todo:
            seen.update(zip(todo, encode(todo, batch_size)))
        if on_batch is not None:
            on_batch(len(texts))
        return np.stack([seen[t] for t in texts]) if texts else encode(texts, batch_size)

    monkeypatch.setattr(model, "encode", cached)


def test_the_retrieval_default_through_langchain_and_llama_index_gives_evaluates_figure(case, embed_once):
    """MiniLM in each framework's embedding interface, an exact in-memory index: within 0.5 point
    of `evaluate`'s token IoU and recall (dense top 5), and far above the chunks embedded as-is."""
    ref = score_setting(RETRIEVAL_DEFAULT, [case], retriever="dense")
    chunks = _recipe_chunks(case)
    lc = to_langchain_retriever(chunks, langchain_minilm(), k=5)
    lc_iou, lc_recall = _scores(case, lambda q: [(d.metadata["start_char"], d.metadata["end_char"]) for d in lc.invoke(q)])
    li = to_llama_index_retriever(chunks, llama_index_minilm(), k=5)
    li_iou, li_recall = _scores(case, lambda q: [(n.node.start_char_idx, n.node.end_char_idx) for n in li.retrieve(q)])
    for iou, recall in ((lc_iou, lc_recall), (li_iou, li_recall)):
        assert abs(iou - ref["token_iou"]) <= 0.005 and abs(recall - ref["token_recall"]) <= 0.005
    # the same chunks handed over as plain documents (each embedded as its own text): what the recipe buys
    plain = score_setting(Setting(RETRIEVAL_DEFAULT.strategy, RETRIEVAL_DEFAULT.strategy_params), [case], retriever="dense")
    assert ref["token_recall"] > plain["token_recall"]


def test_every_chunk_comes_back_once_with_its_text_and_the_index_text_is_never_shown(case, embed_once):
    from dataclasses import replace

    from llama_index.core.schema import MetadataMode

    setting = Setting("recursive", {"chunk_size": 300, "index_context": 1, "index_alone": True})
    chunks = _recipe_chunks(case, setting)
    chunks = replace(chunks, chunks=chunks.chunks[:24])  # Article I: enough to rank, quick to embed
    assert all(len(index_texts(c)) == 2 for c in chunks)  # alone and with its neighbours
    lc = to_langchain_retriever(chunks, langchain_minilm(), k=4)
    docs = lc.invoke("who may vote for the senators of a state")
    assert len(docs) == 4 and len({d.id for d in docs}) == 4
    assert [d.page_content for d in docs] == [next(c.text for c in chunks if c.chunk_id == d.id) for d in docs]
    nodes = to_llama_index_retriever(chunks, llama_index_minilm(), k=4).retrieve("who may vote for the senators")
    assert len({n.node.node_id for n in nodes}) == 4
    for n in nodes:
        for mode in (MetadataMode.EMBED, MetadataMode.LLM):
            shown = n.node.get_content(metadata_mode=mode)
            assert "index_text" not in shown and n.node.text in shown
    assert [n.score for n in nodes] == sorted((n.score for n in nodes), reverse=True)


def test_building_a_retriever_shows_progress_and_embeds_each_index_text_once(case, monkeypatch, capsys):
    """Embedding takes minutes on a CPU: the build says how far it is (lines where there is no
    terminal, a bar on one, a widget in Jupyter), in batches each framework's model embeds once."""
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from llama_index.core.embeddings import MockEmbedding

    from chunkbench.io.retrievers import EMBED_BATCH, index_entries

    chunks = _recipe_chunks(case, Setting("recursive", {"chunk_size": 60}))
    texts = [t for _, _, t in index_entries(chunks)]
    assert len(texts) > 2 * EMBED_BATCH
    monkeypatch.setenv("CHUNKBENCH_PROGRESS_SECONDS", "0")
    asked: dict[str, list[list[str]]] = {"langchain": [], "llama_index": []}

    class CountingLangChain(DeterministicFakeEmbedding):
        def embed_documents(self, texts):
            asked["langchain"].append(list(texts))
            return super().embed_documents(texts)

    class CountingLlamaIndex(MockEmbedding):
        def _get_text_embeddings(self, texts):
            asked["llama_index"].append(list(texts))
            return super()._get_text_embeddings(texts)

    to_langchain_retriever(chunks, CountingLangChain(size=8), k=3).invoke("the senators")
    to_llama_index_retriever(chunks, CountingLlamaIndex(embed_dim=8), k=3).retrieve("the senators")
    for framework, batches in asked.items():
        assert [t for b in batches for t in b] == texts, framework  # each once, in order
        assert max(map(len, batches)) <= EMBED_BATCH, framework
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("chunkbench: embedding")]
    total = len(texts)
    assert lines.count(f"chunkbench: embedding {total} index texts: {EMBED_BATCH}/{total} texts "
                       f"({EMBED_BATCH / total:.0%}), 0 s") == 2
    assert sum(line.startswith(f"chunkbench: embedding {total} index texts: {total}/{total} texts (100%)")
               for line in lines) == 2


def test_a_few_texts_are_embedded_without_progress(case, monkeypatch, capsys):
    from dataclasses import replace

    from langchain_core.embeddings import DeterministicFakeEmbedding

    monkeypatch.setenv("CHUNKBENCH_PROGRESS_SECONDS", "0")
    chunks = _recipe_chunks(case, Setting("recursive", {"chunk_size": 300}))
    to_langchain_retriever(replace(chunks, chunks=chunks.chunks[:20]), DeterministicFakeEmbedding(size=8))
    assert "embedding" not in capsys.readouterr().err


def test_first_distinct_keeps_each_chunk_at_its_best_rank():
    assert first_distinct(["a", "b", "a", "c", "b", "d"], 3) == ["a", "b", "c"]
    assert first_distinct(["a", "a"], 5) == ["a"]
    assert first_distinct(["a b", "c", "b d"], 3) == ["a", "b", "c"]  # an entry that indexes several chunks


def test_a_text_that_indexes_several_chunks_is_one_entry_naming_them_in_order(case):
    """index_groups gives every chunk of a list or section its group's text: one entry, embedded once."""
    from chunkbench.io.retrievers import index_entries

    chunks = _recipe_chunks(case)
    entries = index_entries(chunks)
    texts = [t for c in chunks.chunks for t in index_texts(c)]
    assert len(entries) == len(set(texts)) < len(texts)
    order = {c.chunk_id: n for n, c in enumerate(chunks.chunks)}
    for _, ids, text in entries:
        named = ids.split(" ")
        assert named == sorted(named, key=order.__getitem__)
        assert {c.chunk_id for c in chunks.chunks if text in index_texts(c)} == set(named)


def test_chunks_json_says_what_to_embed_and_what_to_return(case, tmp_path):
    recipe = _recipe_chunks(case)  # the retrieval default: its context text and its group texts
    recipe.to_json(tmp_path / "r.json")
    line = load_chunks_json(tmp_path / "r.json")["chunking"]["retrieval"]
    assert line.startswith("embed each of a chunk's index_texts (rank it by the best), return the chunk's text")
    assert "`grow` return policy" in line  # what to send within a budget: what the docs measured
    one = _recipe_chunks(case, Setting("recursive", {"chunk_size": 150, "index_context": 1}))
    assert one.retrieval_recipe.startswith("embed each chunk's index_text, return the chunk's text")
    alone = _recipe_chunks(case, Setting("recursive", {"chunk_size": 300, "index_context": 1, "index_alone": True}))
    assert "index_texts (rank it by the best)" in alone.retrieval_recipe
    plain = chunk(case.doc, "recursive")
    plain.to_json(tmp_path / "p.json")
    assert "retrieval" not in load_chunks_json(tmp_path / "p.json")["chunking"] and plain.retrieval_recipe is None
