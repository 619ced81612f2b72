"""Invariants of joining broken paragraphs (loaders.paragraphs), whatever the boxes and texts: no
text is lost, added or reordered (but what a join passes over, which follows the joined
paragraph), every element given is kept once (itself or as a part of the paragraph it
continues), and each joined paragraph's parts are its text and its boxes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkbench.loaders.dehyphenate import ATTR as LINE_END_HYPHENS
from chunkbench.loaders.dehyphenate import OPTION_DROPPED, OPTION_KEPT
from chunkbench.loaders.paragraphs import OPTION, join_broken_paragraphs, rejoin
from chunkbench.types.document import Element
from tests.support.extras import examples

WORDS = st.sampled_from(["the", "and", "Risk", "re-", "cent,", "ends.", "The", "a", "of", "1", "x86", "(48)"])
TEXTS = st.lists(WORDS, min_size=1, max_size=6).map(" ".join)
#: boxes on a two-column page: the left or right column, somewhere down it, short or tall
BOXES = st.tuples(st.sampled_from([72.0, 80.0, 311.0]), st.floats(60, 700), st.floats(8, 90)).map(
    lambda t: (t[0], t[1], t[0] + 229.0, t[1] + t[2]))


@st.composite
def paragraphs(draw, types=("paragraph",) * 5 + ("heading",)) -> list[Element]:
    """Paragraphs (and headings, or what else `types` names) over a few pages, some flagged by
    their parser as continuing the one before."""
    out = []
    for i in range(draw(st.integers(1, 12))):
        attrs = {"continues_prev": True} if draw(st.integers(0, 5)) == 0 else {}
        out.append(Element(id=f"e{i}", type=draw(st.sampled_from(types)),
                           text=draw(TEXTS), page_idx=draw(st.integers(0, 2)), bbox=draw(BOXES), attrs=attrs))
    return sorted(out, key=lambda e: e.page_idx or 0)


@settings(max_examples=examples(300), deadline=None)
@given(paragraphs())
def test_joining_loses_adds_and_reorders_nothing(elements):
    joined, n = join_broken_paragraphs(elements)
    assert len(joined) + n == len(elements)
    assert "".join(e.text.replace(" ", "") for e in joined) == "".join(e.text.replace(" ", "") for e in elements)
    given_ids = [e.id for e in elements]
    kept = [i for e in joined for i in (e.attrs.get("stitched") or [e.id])]
    assert kept == given_ids
    for e in joined:
        if "stitched" in e.attrs:
            parts = e.parts
            assert [p.bbox for p in parts] == [next(g.bbox for g in elements if g.id == i) for i in e.attrs["stitched"]]
            assert "".join(p.text for p in parts).replace(" ", "") == e.text.replace(" ", "")
            assert e.page_end_idx == max(p.page_idx for p in parts)


@settings(max_examples=examples(300), deadline=None)
@given(paragraphs(("paragraph",) * 4 + ("footnote", "table", "footer")))
def test_what_lies_between_is_passed_over_and_follows_the_joined_paragraph(elements):
    """Footnotes, tables and furniture between a paragraph and its continuation move after the
    joined paragraph; nothing else moves, and every element is kept once."""
    joined, _ = join_broken_paragraphs(elements)
    kept = [i for e in joined for i in (e.attrs.get("stitched") or [e.id])]
    assert sorted(kept) == sorted(e.id for e in elements)
    paragraphs_given = [e.id for e in elements if e.type == "paragraph"]
    assert [i for i in kept if i in paragraphs_given] == paragraphs_given


@settings(max_examples=examples(100), deadline=None)
@given(paragraphs())
def test_rejoin_counts_what_it_did_and_only_that(elements):
    """The joins, and the line-end hyphens of "re-" | "cent" joins the document's words decided
    (dropped or kept: one each), are counted; a count of none is not recorded."""
    counts: dict = {}
    joined = rejoin(elements, counts)
    assert counts.get(OPTION, 0) == len(elements) - len(joined)
    hyphen_joins = sum(len(e.attrs.get(LINE_END_HYPHENS, ())) for e in join_broken_paragraphs(elements)[0])
    assert counts.get(OPTION_DROPPED, 0) + counts.get(OPTION_KEPT, 0) == hyphen_joins
    assert 0 not in counts.values() and all(LINE_END_HYPHENS not in e.attrs for e in joined)
