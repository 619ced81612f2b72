"""Recall at a context budget and the return policies (evaluate.retrieval.budget), on the
sample contract's real questions and by hypothesis on random unit lists."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.evaluate.retrieval import load_questions
from chunkbench.evaluate.retrieval.budget import BUDGETS, sent, unit_tokens
from chunkbench.evaluate.retrieval.locate import normalized_text, resolve
from chunkbench.evaluate.retrieval.scoring import RetrievalUnit, chunk_units, evaluate, token_scores
from chunkbench.io.return_policy import POLICIES
from chunkbench.types.chunk import SIZE_CUTS
from tests.support.paths import SAMPLE_PDFS

CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"


def units_of(lengths, sections, cuts, blocks=None) -> list[RetrievalUnit]:
    """Units laid end to end: unit i is `lengths[i]` characters of "w " words in section `sections[i]`
    (and structural block `blocks[i]`), the cut before it a size cut when `cuts[i]`."""
    out, at = [], 0
    blocks = blocks or [None] * len(lengths)
    for n, (length, section) in enumerate(zip(lengths, sections)):
        out.append(RetrievalUnit("w " * (length // 2), at, at + length, frozenset({1}), section=(section,),
                                 cut_before=n > 0 and cuts[n], cut_after=n + 1 < len(lengths) and cuts[n + 1],
                                 block=blocks[n]))
        at += length
    return out


def test_each_policy_sends_what_it_says():
    units = units_of([20] * 6, ["A", "A", "A", "B", "B", "B"], [False, True, False, False, True, True])
    tokens = unit_tokens(units)
    big = 10 * sum(tokens)

    def order(policy, hit):
        ranges, _ = sent(units, tokens, [hit], big, policy)
        return [next(i for i, u in enumerate(units) if u.start == a) for a, _ in ranges]

    assert order("hits", 1) == [1]
    assert order("window", 1) == [1, 2, 0]
    assert order("window", 3) == [3, 4, 2]  # ±1 crosses the section: it does not know sections
    assert order("section", 1) == [1, 2, 0] and order("section", 4) == [4, 5, 3]
    assert order("grow", 1) == [1, 0]  # a size cut before it, a structural one after
    assert order("grow", 4) == [4, 5, 3]  # size cuts on both sides, within section B
    assert order("grow", 3) == [3, 4]  # 3 opens section B after a structural cut; 3 | 4 is a size cut
    assert order("grow", 2) == [2]  # structural cuts on both sides


def test_structure_sends_the_first_hits_blocks_then_each_whole_section_the_ranking_points_at():
    """`structure`: the blocks of the first three hits (a list, a table, a term with its description),
    then each of their sections that fits whole in what is left and holds two of the first five hits;
    never a part of a section, never the section of a lone hit."""
    units = units_of([20] * 12, list("AAAAAABBBBBB"), [False] * 12, blocks=list("xxyyzzwwvvuu"))
    tokens = unit_tokens(units)
    big = 10 * sum(tokens)

    def order(ranking, budget=big):
        ranges, _ = sent(units, tokens, ranking, budget, "structure")
        return [next(i for i, u in enumerate(units) if u.start == a) for a, _ in ranges]

    assert order([1]) == [1, 0]  # its block (x: 0-1); one hit alone does not point at its section
    assert order([1, 6, 3]) == [1, 0, 6, 7, 3, 2, 4, 5]  # three blocks, then the rest of A (two hits in it)
    assert order([0, 6, 8, 10, 11, 1]) == [0, 1, 6, 7, 8, 9, 10, 11]  # B holds four of the first five hits
    room = sum(tokens[:5])  # blocks x and y and one unit more: A's rest (4, 5) does not fit whole
    assert order([1, 3], room) == [1, 0, 3, 2]  # so none of it
    without_blocks = units_of([20] * 4, list("AAAA"), [False] * 4)
    ranges, _ = sent(without_blocks, unit_tokens(without_blocks), [2, 1], big, "structure")
    assert [a for a, _ in ranges] == [40, 20, 60, 0]  # units of no known block: each hit, then their section


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(2, 400), st.sampled_from("ABC"), st.booleans(), st.sampled_from("xy")),
                min_size=1, max_size=25),
       st.data())
def test_budget_invariants(spec, data):
    units = units_of([s[0] for s in spec], [s[1] for s in spec], [s[2] for s in spec], [s[3] for s in spec])
    tokens = unit_tokens(units)
    ranking = data.draw(st.permutations(range(len(units))))
    budget = data.draw(st.integers(1, 400))
    policy = data.draw(st.sampled_from(sorted(POLICIES)))
    ranges, spent = sent(units, tokens, ranking, budget, policy)
    assert spent == min(budget, sum(tokens)), "every policy fills the budget from a ranking of every unit"
    starts = [a for a, _ in ranges]
    assert len(starts) == len(set(starts)), "each unit sent once"
    for a, b in ranges:
        unit = next(u for u in units if u.start == a)
        assert a <= b <= unit.end
    evidence = [(0, units[-1].end)]
    more, _ = sent(units, tokens, ranking, budget * 2, policy)
    assert token_scores(more, evidence)[1] >= token_scores(ranges, evidence)[1] - 1e-12, "recall grows with the budget"


def test_recall_at_a_budget_on_the_contracts_questions():
    doc = cb.load(CONTRACT)
    chunks = cb.chunk(doc, "elements")
    units = chunk_units(chunks)
    assert [u.cut_before for u in units] == [c.boundary.reason in SIZE_CUTS for c in chunks]
    resolved = resolve(doc, load_questions(CONTRACT.with_suffix(".questions.json"), doc), normalized_text(doc.text))
    summary, rows = evaluate(units, resolved, text=doc.text)
    spanned = [r for r in rows if "token_iou" in r]
    assert spanned and all(r[f"budget_tokens@{b}"] <= b for r in spanned for b in BUDGETS)
    for r in spanned:
        recalls = [r[f"budget_recall@{b}"] for b in BUDGETS]
        assert recalls == sorted(recalls)
    everything = sum(unit_tokens(units))
    _, whole = evaluate(units, resolved, text=doc.text, budgets=(everything,))
    assert all(r[f"budget_recall@{everything}"] == pytest.approx(token_scores(
        [(u.start, u.end) for u in units], [s for q in resolved if q.question.id == r["id"] for s in q.spans],
        doc.text)[1]) for r in whole if "token_iou" in r)
    assert summary["budget_recall@1000"] is not None and summary["budget_tokens@500"] <= 500
    for policy in POLICIES:
        assert evaluate(units, resolved, text=doc.text, policy=policy)[0]["budget_recall@2000"] is not None
    with pytest.raises(ValueError, match="return policy"):
        evaluate(units, resolved, text=doc.text, policy="everything")


def expected_send(chunks, hit_ids, budget, policy):
    """What budget.returned sends for these hits over the chunk units: the measure's own answer."""
    from chunkbench.evaluate.retrieval.budget import IndexNeighbourhood
    from chunkbench.io.return_policy import returned

    units = chunk_units(chunks)
    index = {c.chunk_id: n for n, c in enumerate(chunks)}
    tokens = unit_tokens(units)
    return [(chunks[i].chunk_id, take) for i, take, _ in
            returned(IndexNeighbourhood(units), [index[h] for h in hit_ids], tokens.__getitem__, budget, policy)]


@pytest.mark.parametrize("policy", ["grow", "window", "section", "structure"])
def test_the_langchain_wrapper_sends_what_the_measure_counts(policy):
    """`budget_retriever` over a real InMemoryVectorStore and its retriever sends, for
    the store's hits, the chunks budget.returned says, the last one cut at the budget."""
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.vectorstores import InMemoryVectorStore

    from chunkbench.io.context import budget_retriever
    from chunkbench.text.tokenizer import count_tokens

    chunks = cb.chunk(cb.load(CONTRACT), "recursive", chunk_size=150)
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=16))
    docs = chunks.to_langchain()
    store.add_documents(docs, ids=[d.id for d in docs])
    base = store.as_retriever(search_kwargs={"k": 3})
    hits = [d.id for d in base.invoke("termination for convenience")]
    sent_docs = budget_retriever(base, store, budget=300, policy=policy).invoke("termination for convenience")
    expected = expected_send(chunks, hits, 300, policy)
    assert [d.id for d in sent_docs] == [cid for cid, _ in expected]
    assert [count_tokens(d.page_content) for d in sent_docs][:-1] == [take for _, take in expected][:-1]
    assert sum(count_tokens(d.page_content) for d in sent_docs) <= 300 + 1  # a cut may re-tokenize by one
    assert sent_docs[-1].metadata.get("cut_at_budget") or sum(t for _, t in expected) < 300
    assert all(d.metadata.get("brought_by") in hits for d in sent_docs if d.id not in hits)
    by_dict = budget_retriever(base, {d.id: d for d in docs}, budget=300, policy=policy).invoke("termination for convenience")
    assert [d.id for d in by_dict] == [d.id for d in sent_docs]


def test_the_llama_index_postprocessor_sends_what_the_measure_counts():
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding

    from chunkbench.io.context import budget_postprocessor

    chunks = cb.chunk(cb.load(CONTRACT), "elements", max_chunk_size=600)
    index = VectorStoreIndex(chunks.to_llama_index(), embed_model=MockEmbedding(embed_dim=8))
    retrieved = index.as_retriever(similarity_top_k=3).retrieve("payment terms")
    post = budget_postprocessor(index.docstore, budget=400, policy="grow")
    out = post.postprocess_nodes(retrieved, query_str="payment terms")
    expected = expected_send(chunks, [n.node.node_id for n in retrieved], 400, "grow")
    assert [n.node.node_id for n in out] == [cid for cid, _ in expected]
    assert all(n.score is not None for n in out)
    with pytest.raises(ValueError, match="return policy"):
        budget_postprocessor(index.docstore, policy="all")


def test_the_budget_benchmark_runs_and_says_whether_the_goal_is_met(tmp_path):
    """benchmarks.budgets_public --quick: every row and policy at every budget, the verdicts with
    their intervals, the goal line (the full run is docs/context-budget.md's table)."""
    from benchmarks.budgets_public import QUICK
    from benchmarks.budgets_public import main as table

    out = tmp_path / "budgets.md"
    assert table(["--quick", "--budgets", "500,1000", "-o", str(out)]) == 0
    text = out.read_text("utf-8")
    rows = [line.split(" | ")[:2] for line in text.splitlines() if line.startswith("| ") and "%" in line]
    labels = {label.lstrip("| ") for label, _ in rows}
    assert labels == set(QUICK)
    assert sum(1 for label, policy in rows if label.lstrip("| ") == "retrieval default") == len(POLICIES)
    assert text.count("95% CI") == 4 and "most recall@1000 pooled among chunkbench's rows" in text
    assert "Goal (default ≥ best peer + 3 pt at every budget" in text


def test_the_several_granularities_design_sends_no_text_twice_within_the_budget():
    """benchmarks.structure_designs' measured-not-shipped design: the default's units with one unit per
    block and section beside them; text already sent is not sent (nor paid for) again."""
    from benchmarks.structure_designs import parent_units, sent_once
    from chunkbench.app.defaults import RETRIEVAL_DEFAULT
    from chunkbench.evaluate.benchmark.scoring import units_for
    from chunkbench.text.ranges import merge_ranges

    doc = cb.load(SAMPLE_PDFS / "technical_manual.pdf")
    small = units_for(RETRIEVAL_DEFAULT, doc)
    parents = parent_units(doc)
    steps = next(e for e in doc.elements if e.text.startswith("1. Choose"))
    last = next(e for e in doc.elements if e.text.startswith("4. Fit the antenna"))
    assert any(u.start == steps.char_start and u.end == last.char_end for u in parents)  # the list over the page break
    units = small + parents
    tokens = unit_tokens(units)
    whole = next(i for i, u in enumerate(units) if u.start == steps.char_start and u.end == last.char_end)
    inside = [i for i, u in enumerate(small) if steps.char_start <= u.start and u.end <= last.char_end]
    for budget in (50, 400, 5000):
        ranges = sent_once(units, tokens, [inside[0], whole, *inside], budget)
        assert sum(b - a for a, b in ranges) == sum(b - a for a, b in merge_ranges(ranges)), "no text twice"
    everything = sent_once(units, tokens, [inside[0], whole, *inside], 10_000)
    assert merge_ranges(everything) == [(steps.char_start, last.char_end)]  # the list, once, whatever else ranks
