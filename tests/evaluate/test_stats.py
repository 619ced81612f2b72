"""Chunk statistics: size distribution, seed-2 targets at their edges, clause_ref rate, counts."""

from __future__ import annotations

import pytest

from chunkbench.evaluate import stats
from chunkbench.types.chunk import Boundary, Reason, build_chunk
from chunkbench.types.chunkset import ChunkSet
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS


def chunk_dict(n_chars: int, *, type="paragraph", reason="size_limit", pages=(1, 1), sources=("e0",), **extra):
    """A chunk dict with just the fields statistics read."""
    return {
        "text": "x" * n_chars, "char_len": n_chars, "tokens_est": n_chars // 4, "type": type,
        "page_start": pages[0], "page_end": pages[1], "source_blocks": list(sources),
        "boundary": {"reason": reason, "detail": ""}, **extra,
    }


def targets_by_name(chunks) -> dict[str, stats.Target]:
    return {t.name: t for t in stats.quality_targets(chunks)}


def test_size_summary_nearest_rank_percentile():
    chunks = [chunk_dict(n) for n in (100, 300, 200, 400, 1000)]
    s = stats.size_summary({"chunks": chunks})
    assert s.count == 5
    assert (s.chars.min, s.chars.median, s.chars.p95, s.chars.max) == (100, 300, 1000, 1000)
    assert s.chars.mean == 400.0
    assert s.tokens.median == 75
    # 20 values 1..20: the 95th nearest-rank percentile is the 19th value
    s20 = stats.size_summary([chunk_dict(n) for n in range(1, 21)])
    assert s20.chars.p95 == 19 and s20.chars.median == 10.5


@pytest.mark.parametrize("median,passed", [(699, False), (700, True), (1500, True), (1501, False)])
def test_median_target_edges(median, passed):
    t = targets_by_name([chunk_dict(median)] * 3)["median_chars"]
    assert t.value == median and t.passed is passed


def test_share_under_2500_needs_95_percent():
    ok = [chunk_dict(1000)] * 19 + [chunk_dict(2500)]  # 2500 is not < 2500
    bad = [chunk_dict(1000)] * 18 + [chunk_dict(2600)] * 2
    t_ok = targets_by_name(ok)["share_under_2500_chars"]
    t_bad = targets_by_name(bad)["share_under_2500_chars"]
    assert (t_ok.value, t_ok.passed) == (0.95, True)
    assert (t_bad.value, t_bad.passed) == (0.9, False)


def test_evidence_targets_need_every_chunk():
    chunks = [chunk_dict(900)] * 9 + [chunk_dict(900, pages=(None, None), sources=())]
    t = targets_by_name(chunks)
    assert t["share_with_pages"].value == 0.9 and not t["share_with_pages"].passed
    assert t["share_with_source_blocks"].value == 0.9 and not t["share_with_source_blocks"].passed
    assert targets_by_name([chunk_dict(900, pages=(2, 3))])["share_with_pages"].passed
    # page_end missing is not "has pages"
    assert not targets_by_name([chunk_dict(900, pages=(2, None))])["share_with_pages"].passed


def test_no_chunks_fails_every_target():
    targets = stats.quality_targets({"chunks": []})
    assert len(targets) == 4
    assert all(t.value is None and not t.passed for t in targets)
    assert stats.size_summary([]).chars.median is None


def test_clause_ref_rate_counts_only_chunks_with_the_field():
    assert stats.clause_ref_rate([chunk_dict(10), chunk_dict(10)]) is None
    chunks = [chunk_dict(10, clause_ref="1.1"), chunk_dict(10, clause_ref=None), chunk_dict(10, clause_ref="2"),
              chunk_dict(10, clause_ref="")]
    assert stats.clause_ref_rate(chunks) == 0.5


def test_counts_by_type_and_reason_most_frequent_first():
    chunks = [chunk_dict(1, type="table", reason="table"), chunk_dict(1, type="clause", reason="heading"),
              chunk_dict(1, type="clause", reason="heading"), chunk_dict(1, type="aaa", reason="document_start")]
    assert list(stats.by_type(chunks).items()) == [("clause", 2), ("aaa", 1), ("table", 1)]
    assert stats.by_reason(chunks) == {"heading": 2, "document_start": 1, "table": 1}


def test_chunkset_and_chunk_dicts_agree_including_extras():
    doc = make_doc([{"type": "paragraph", "text": "a" * 800}, {"type": "paragraph", "text": "b" * 1200, "page_idx": 1}])
    chunks = tuple(
        build_chunk(doc, index=i, chunk_id=f"c{i}", type="clause", text=e.text, elements=[e],
                    boundary=Boundary(Reason.DOCUMENT_START if i == 0 else Reason.PAGE_BREAK, "d"),
                    extra={"clause_ref": "1.1" if i else None})
        for i, e in enumerate(doc.elements)
    )
    cs = ChunkSet(doc, "test", {}, chunks)
    from_set = stats.chunk_stats(cs)
    assert from_set == stats.chunk_stats(cs.to_dict())
    assert from_set["clause_ref_rate"] == 0.5
    assert from_set["size"]["chars"]["median"] == 1000
    assert from_set["targets_passed"] == 4
    text = stats.format_stats(from_set, title="t")
    assert "PASS  median_chars" in text and "clause_ref rate  50.0%" in text


def test_real_document_statistics_match_the_chunks():
    import chunkbench as cb

    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    cs = cb.chunk(doc, "elements")
    s = stats.size_summary(cs)
    lens = sorted(c.char_len for c in cs)
    assert s.count == len(cs) and s.chars.max == lens[-1] and s.chars.min == lens[0]
    assert sum(stats.by_reason(cs).values()) == len(cs)
    assert stats.by_reason(cs)["document_start"] == 1


def test_rejects_a_dict_without_chunks():
    with pytest.raises(ValueError, match="chunks"):
        stats.size_summary({"doc_id": "x"})
