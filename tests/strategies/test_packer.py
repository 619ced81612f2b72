"""The Packer's greedy packing: pieces are measured O(log P) times for P units, not once
per unit (a 228k-character table of rows took 30,676 token counts, 2.9 s; now 2,947, 0.29 s), and
the pieces are the ones unit-by-unit packing makes."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkbench.strategies.spans import HARD, PARAGRAPH, ROW, SENTENCE, Packer, PackUnit, char_size
from chunkbench.text.tokenizer import count_tokens
from tests.support.extras import examples

WORDS = st.sampled_from(["the", "Supplier", "shall", "pay", "12.5", "%", "|", "invoice", "—", "naïve"])
PARAGRAPHS = st.lists(st.lists(WORDS, min_size=1, max_size=40).map(" ".join), min_size=1, max_size=40)


def units_of(paragraphs: list[str]) -> tuple[str, list[PackUnit]]:
    text = "\n\n".join(paragraphs)
    units, pos = [], 0
    for p in paragraphs:
        units.append(PackUnit(pos, pos + len(p), PARAGRAPH))
        pos += len(p) + 2
    return text, units


def unit_by_unit(packer: Packer) -> Packer:
    """The same packer taking one unit at a time (what pack did before the gallop)."""
    packer._more_that_fit = lambda start, queue: 0  # type: ignore[method-assign]
    return packer


def spans(pieces: list[list[PackUnit]]) -> list[tuple[int, int]]:
    return [(p[0].start, p[-1].end) for p in pieces]


@settings(max_examples=examples(150), deadline=None)
@given(PARAGRAPHS, st.integers(min_value=1, max_value=400), st.booleans())
def test_galloping_packs_exactly_as_unit_by_unit(paragraphs, limit, tokens):
    text, units = units_of(paragraphs)
    size = (lambda a, b: count_tokens(text[a:b])) if tokens else char_size
    per_unit = 128 if tokens else 1
    fast = Packer(text, limit, size, chars_per_unit=per_unit).pack(units)
    slow = unit_by_unit(Packer(text, limit, size, chars_per_unit=per_unit)).pack(units)
    assert spans(fast) == spans(slow)
    for a, b in spans(fast):
        assert size(a, b) <= limit


def test_a_long_table_is_measured_log_times_per_piece():
    rows = [f"| Service line {i} | ${i * 12.5:,.2f} | per hour |" for i in range(3000)]
    text = "\n".join(rows)
    units, pos = [], 0
    for r in rows:
        units.append(PackUnit(pos, pos + len(r), ROW))
        pos += len(r) + 1
    calls = []

    def measured(a: int, b: int) -> int:
        calls.append((a, b))
        return count_tokens(text[a:b])

    pieces = Packer(text, 400, measured, chars_per_unit=128).pack(units)
    per_piece = len(units) / len(pieces)
    assert len(pieces) > 50
    # each piece: a doubling run and a bisection, each about log2(rows per piece) measures
    assert len(calls) <= len(pieces) * (2 * math.log2(per_piece) + 4)
    for k, (a, b) in enumerate(spans(pieces)):
        assert count_tokens(text[a:b]) <= 400
        if k + 1 < len(pieces):  # maximal: the next row does not fit
            assert count_tokens(text[a:pieces[k + 1][0].end]) > 400


CLAUSE_WORDS = st.sampled_from(["the", "Supplier,", "shall", "pay;", "12.5", "invoice:", "naïve", "a"])


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(CLAUSE_WORDS, min_size=20, max_size=150).map(" ".join), st.integers(min_value=40, max_value=200))
def test_a_hard_split_ends_in_an_even_pair_not_a_scrap(text, limit):
    """Every piece fits and the pieces cover the words in order; the last two share their text
    about evenly (the cut after a `,` `;` `:` within an eighth of their middle, else at the space
    nearest it), where a greedy cut left the last one a few characters long."""
    pieces = Packer(text, limit).hard_split(0, len(text))
    assert all(u.kind == HARD and u.end - u.start <= limit for u in pieces)
    assert " ".join(text[u.start:u.end] for u in pieces).split() == text.split()
    if len(pieces) >= 2:
        prev, last = pieces[-2], pieces[-1]
        both = last.end - prev.start
        word = 10  # the longest word and its space
        assert last.end - last.start >= both * 3 / 8 - 2 * word


SENTENCE_TEXTS = st.lists(WORDS, min_size=1, max_size=25).map(lambda ws: " ".join(ws).capitalize() + ".")
PROSE = st.lists(st.lists(SENTENCE_TEXTS, min_size=1, max_size=12).map(" ".join), min_size=1, max_size=8)


@settings(max_examples=examples(200), deadline=None)
@given(PROSE, st.integers(min_value=30, max_value=300))
def test_a_paragraph_cut_at_sentences_is_cut_evenly(paragraphs, limit):
    """Pieces fit and are as many as greedy packing makes; at every cut between two sentences of
    one paragraph, moving the sentence before the cut after it would not make the pair more even
    (or would not fit): greedy filling left the last sentence of a paragraph a scrap."""
    text, units = units_of(paragraphs)
    packer = Packer(text, limit)
    pieces = packer.pack(units)
    greedy = Packer(text, limit)
    greedy._even_out = lambda p: p  # type: ignore[method-assign]
    assert len(pieces) == len(greedy.pack(units))
    assert " ".join(text[a:b] for a, b in spans(pieces)).split() == text.split()
    for a, b in spans(pieces):
        assert b - a <= limit
    for a, b in zip(pieces, pieces[1:]):
        if (a[-1].kind == SENTENCE == b[0].kind and len(a) > 1 and "\n\n" not in text[a[-1].end:b[0].start]
                and b[-1].end - a[-1].start <= limit):
            before = max(a[-1].end - a[0].start, b[-1].end - b[0].start)
            assert max(a[-2].end - a[0].start, b[-1].end - a[-1].start) >= before


LEANING_TEXTS = st.tuples(st.sampled_from(["", "", "This ", "But ", "It "]), SENTENCE_TEXTS).map(
    lambda pair: pair[0] + (pair[1][0].lower() + pair[1][1:] if pair[0] else pair[1]))
LEANING_PROSE = st.lists(st.lists(LEANING_TEXTS, min_size=1, max_size=12).map(" ".join), min_size=1, max_size=8)


def leans_back(text: str, u: PackUnit) -> bool:
    return u.kind == SENTENCE and text[u.start:].startswith(("This ", "But ", "It "))


@settings(max_examples=examples(300), deadline=None)
@given(LEANING_PROSE, st.integers(min_value=30, max_value=300))
def test_a_cut_before_a_sentence_that_refers_back_moves_when_it_can(paragraphs, limit):
    """Pieces fit, keep every word and are as many as greedy packing makes; a piece opens with a
    sentence that refers back ("This …", "But …") inside a paragraph only where no other cut,
    crossing only sentences of that paragraph, leaves both pieces fitting before a sentence that
    does not (checked against every cut of the pair)."""
    text, units = units_of(paragraphs)
    pieces = Packer(text, limit).pack(units)
    greedy = Packer(text, limit, keep_dependents=False)
    greedy._even_out = lambda p: p  # type: ignore[method-assign]
    assert len(pieces) == len(greedy.pack(units))
    assert " ".join(text[a:b] for a, b in spans(pieces)).split() == text.split()
    assert all(b - a <= limit for a, b in spans(pieces))
    for a, b in zip(pieces, pieces[1:]):
        if not (leans_back(text, b[0]) and "\n\n" not in text[a[-1].end:b[0].start]):
            continue
        pair, cut = a + b, len(a)
        for new in range(1, len(pair)):
            lo, hi = min(cut, new), max(cut, new)
            crossed_ok = (all(u.kind == SENTENCE for u in pair[lo:hi])
                          and "\n\n" not in text[pair[lo - 1].end if new > cut else pair[lo].start:pair[hi].start
                                                 if new < cut else pair[hi - 1].end])
            fits = pair[new - 1].end - pair[0].start <= limit and pair[-1].end - pair[new].start <= limit
            assert not (new != cut and crossed_ok and fits and not leans_back(text, pair[new])), (
                text[a[0].start:a[-1].end], text[b[0].start:b[-1].end], new - cut)
