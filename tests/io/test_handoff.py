"""Hand-off to LangChain and LlamaIndex: metadata, offsets, relationships, missing-extra hint."""

from __future__ import annotations

import json
import os
import sys

import pytest

from chunkbench.io import handoff
from chunkbench.types.chunk import Boundary, Reason, build_chunk
from chunkbench.types.chunkset import ChunkSet
from tests.support.documents import make_doc


@pytest.fixture
def chunkset():
    """Hand-built chunks like the headers strategy makes: one section split into two sub-chunks."""
    doc = make_doc([
        {"type": "heading", "text": "Warranty", "text_level": 1, "bbox": [72, 72, 200, 90]},
        {"type": "paragraph", "text": "Parts are covered for two years.", "bbox": [72, 100, 400, 120]},
        {"type": "paragraph", "text": "Labour is covered for one year.", "bbox": [72, 130, 400, 150]},
        {"type": "paragraph", "text": "Claims go to the service desk.", "page_idx": 1, "bbox": [72, 72, 400, 90]},
    ], metadata={"company": "Acme", "fiscal_year": 2025, "tags": ["a", "b"]})
    e = doc.elements
    specs = [
        ("d_chunk_0_sub_0", e[:2], Boundary(Reason.DOCUMENT_START, "first chunk of the document")),
        ("d_chunk_0_sub_1", e[2:3], Boundary(Reason.PARAGRAPH_SPLIT, "62 + 31 chars > 70")),
        ("d_chunk_1", e[3:], Boundary(Reason.PAGE_BREAK, "page 1 → 2")),
    ]
    chunks = tuple(
        build_chunk(doc, index=i, chunk_id=cid, type="paragraph", text=doc.text[els[0].char_start:els[-1].char_end],
                    elements=els, boundary=b, section_path=["Warranty", "Scope"] if i < 2 else ["Claims"],
                    heading="Warranty" if i < 2 else None,
                    extra={"header_path": "Warranty > Scope", **({"parent_chunk_id": "d_chunk_0"} if i < 2 else {})})
        for i, (cid, els, b) in enumerate(specs)
    )
    return ChunkSet(doc=doc, strategy="headers", params={"max_chunk_chars": 70}, chunks=chunks)


def test_langchain_documents_carry_metadata(chunkset):
    docs = chunkset.to_langchain()
    assert [d.page_content for d in docs] == [c.text for c in chunkset]
    assert [d.id for d in docs] == [c.chunk_id for c in chunkset]
    m = docs[0].metadata
    assert m["chunk_id"] == "d_chunk_0_sub_0" and m["source"] == "test.json" and m["doc_id"] == chunkset.doc.doc_id
    assert m["page"] == 1 and m["page_start"] == 1 and m["page_end"] == 1
    assert m["section_path"] == "Warranty > Scope" and m["heading"] == "Warranty"
    assert m["reason"] == "document_start" and m["reason_detail"] == "first chunk of the document"
    assert json.loads(m["bbox"]) == [c.to_dict() for c in chunkset[0].bbox]
    assert m["start_char"] == chunkset[0].start_char and m["end_char"] == chunkset[0].end_char
    assert m["company"] == "Acme" and m["fiscal_year"] == 2025 and json.loads(m["tags"]) == ["a", "b"]
    assert m["header_path"] == "Warranty > Scope" and m["parent_id"] == "d_chunk_0"
    assert docs[2].metadata["page"] == 2 and "heading" not in docs[2].metadata  # None values are left out
    assert "parent_id" not in docs[2].metadata
    for d in docs:  # flat: what vector stores accept
        assert all(isinstance(v, (str, int, float, bool)) for v in d.metadata.values()), d.metadata


def test_langchain_nested_metadata_on_request(chunkset):
    m = chunkset.to_langchain(flat=False)[0].metadata
    assert m["section_path"] == ["Warranty", "Scope"] and m["bbox"][0]["page"] == 1 and m["tags"] == ["a", "b"]


def test_llama_index_nodes_offsets_and_relationships(chunkset):
    from llama_index.core.schema import NodeRelationship as R

    nodes = chunkset.to_llama_index()
    assert [n.node_id for n in nodes] == [c.chunk_id for c in chunkset]
    for n, c in zip(nodes, chunkset):
        assert (n.start_char_idx, n.end_char_idx) == (c.start_char, c.end_char)
        assert chunkset.doc.text[n.start_char_idx:n.end_char_idx] == n.text
        assert n.relationships[R.SOURCE].node_id == chunkset.doc.doc_id
        assert n.metadata["reason"] == c.boundary.reason.value
    first, second, third = nodes
    assert R.PREVIOUS not in first.relationships and R.NEXT not in third.relationships
    assert first.relationships[R.NEXT].node_id == second.node_id
    assert second.relationships[R.PREVIOUS].node_id == first.node_id
    assert first.relationships[R.NEXT].metadata == {"sibling": True, "parent_id": "d_chunk_0"}
    assert second.relationships[R.NEXT].node_id == third.node_id
    assert second.relationships[R.NEXT].metadata == {}  # consecutive, but not siblings
    # positions and ids stay out of what gets embedded; meaning stays in
    embedded = first.get_content(metadata_mode="embed")
    assert "Warranty > Scope" in embedded and "bbox" not in embedded and "d_chunk_0_sub_0" not in embedded
    # only the text and the section path are embedded (the rest stays metadata)
    assert embedded == f"section_path: {first.metadata['section_path']}\n\n{first.text}"
    shown = first.get_content(metadata_mode="llm")
    assert "bbox" not in shown and f"reason: {first.metadata['reason']}" not in shown and first.text in shown


def test_haystack_documents_in_a_real_pipeline(chunkset):
    """Haystack's own in-memory store and BM25 retriever take the chunks as they come: ids, text and
    flat metadata survive the store, and a query finds its chunk."""
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    docs = chunkset.to_haystack()
    assert [d.id for d in docs] == [c.chunk_id for c in chunkset] and [d.content for d in docs] == [c.text for c in chunkset]
    store = InMemoryDocumentStore()
    assert store.write_documents(docs) == len(docs)
    c = chunkset.chunks[-1]
    word = max(c.text.split(), key=len)
    found = InMemoryBM25Retriever(store).run(query=word, top_k=1)["documents"][0]
    assert found.id == c.chunk_id and found.meta["reason"] == c.boundary.reason.value
    assert found.meta["section_path"] == " > ".join(c.section_path) and found.meta["doc_id"] == chunkset.doc.doc_id
    assert all(isinstance(v, (str, int, float, bool)) for d in docs for v in d.meta.values())
    assert os.environ.get("HAYSTACK_TELEMETRY_ENABLED") == "False"  # nothing sent anywhere


@pytest.mark.parametrize("module, method", [
    ("langchain_core.documents", "to_langchain"),
    ("llama_index.core.schema", "to_llama_index"),
    ("haystack", "to_haystack"),
])
def test_missing_framework_says_how_to_install(chunkset, monkeypatch, module, method):
    monkeypatch.setitem(sys.modules, module, None)  # import now raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'chunkbench\[rag\]'") as err:
        getattr(chunkset, method)()
    assert isinstance(err.value, handoff.MissingExtraError)


def test_headers_strategy_sub_chunks_are_siblings():
    """On a real strategy run (when registered): every `_sub_` pair of one parent is linked as siblings."""
    from llama_index.core.schema import NodeRelationship as R

    import chunkbench as cb

    if "headers" not in {s.name for s in cb.all_strategies()}:
        pytest.skip("headers strategy not registered yet")
    long = " ".join(f"Sentence number {i} about the warranty terms." for i in range(40))
    doc = make_doc([{"type": "heading", "text": "Warranty", "text_level": 1}, {"type": "paragraph", "text": long},
                    {"type": "heading", "text": "Claims", "text_level": 1}, {"type": "paragraph", "text": "Call us."}])
    chunks = cb.chunk(doc, "headers", max_chunk_chars=400, min_chunk_chars=0)
    nodes = chunks.to_llama_index()
    subs = [n for n in nodes if "_sub_" in n.node_id]
    assert len(subs) >= 2
    parents = [handoff.parent_id(c) for c in chunks]
    for i, (a, b) in enumerate(zip(nodes, nodes[1:])):
        siblings = parents[i] is not None and parents[i] == parents[i + 1]
        assert a.relationships[R.NEXT].node_id == b.node_id
        assert a.relationships[R.NEXT].metadata.get("sibling", False) == siblings
    assert any(parents[i] is not None and parents[i] == parents[i + 1] for i in range(len(parents) - 1))
