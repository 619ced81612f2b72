"""Random Documents for property tests of every strategy, and the invariants all strategies share.

`element_documents()` draws element sequences shaped like real parser output (headings with
levels, paragraphs, tables with rows, some under a caption, lists, code, lead-ins, footnotes,
tables of contents, page furniture, empty items, several pages, bboxes, Unicode); `check_common_invariants(doc, chunkset)` asserts what
docs/contracts.md promises of every chunk whatever the strategy.
"""

from __future__ import annotations

from hypothesis import strategies as st

from chunkbench.strategies import chunk
from chunkbench.types.document import is_noise, lead_ins
from tests.support.documents import make_doc

WORDS = (
    "the", "agreement", "shall", "must", "revenue", "Section", "pricing", "CLIN", "requirement",
    "Definitions", "means", "party", "term", "evaluation", "scope", "of", "work", "1.1", "(a)",
    "2.3(b)", "über", "naïve", "数据", "文本。", "😀", "e\u0301", "שלום", "مرحبا", "$100M", "12.5%",
    "a", "to", "and", "Inc.", "e.g.", "|", "\t", "line-\nbreak", "end.", "Why?", "yes!",
)

_word = st.sampled_from(WORDS)


def _sentence(min_words: int = 1, max_words: int = 30):
    return st.lists(_word, min_size=min_words, max_size=max_words).map(" ".join)


def _paragraph_text():
    return st.lists(_sentence(), min_size=1, max_size=6).map(lambda ss: " ".join(ss))


def _long_text():
    return st.lists(_sentence(10, 40), min_size=10, max_size=60).map(lambda ss: ". ".join(ss) + ".")


@st.composite
def _elements(draw, page_idx: int) -> list[dict]:
    """One element, or a table under its caption ("Table 3: revenue scope")."""
    table = draw(_element(page_idx))
    if table["type"] != "table" or not draw(st.booleans()):
        return [table]
    words = draw(st.lists(_word, min_size=1, max_size=3).map(" ".join))
    x0, y0, x1, _ = table["bbox"]
    caption = {"page_idx": page_idx, "bbox": [x0, max(0.0, y0 - 12), x1, y0], "type": "caption",
               "text": f"Table {draw(st.integers(1, 9))}: {words}"}
    return [caption, table]


@st.composite
def _element(draw, page_idx: int) -> dict:
    kind = draw(
        st.sampled_from(
            ["heading", "paragraph", "paragraph", "paragraph", "table", "list", "code",
             "header", "footer", "page_number", "empty", "long", "lead", "footnote", "toc"]
        )
    )
    x0 = draw(st.floats(0, 300, allow_nan=False))
    y0 = draw(st.floats(0, 700, allow_nan=False))
    bbox = [x0, y0, x0 + draw(st.floats(1, 290)), y0 + draw(st.floats(1, 140))]
    base = {"page_idx": page_idx, "bbox": bbox}
    if kind == "heading":
        number = draw(st.sampled_from(["", "1 ", "2. ", "1.1 ", "3.2.1 ", "SECTION 4: "]))
        words = draw(st.lists(_word, min_size=1, max_size=6).map(" ".join))
        return {**base, "type": "heading", "text": number + words.title(),
                "text_level": draw(st.integers(1, 4))}
    if kind == "table":
        rows = draw(st.lists(st.lists(_word, min_size=2, max_size=4), min_size=1, max_size=6))
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
        text = "\n".join("| " + " | ".join(r) + " |" for r in rows)
        return {**base, "type": "table", "text": text, "rows": rows}
    if kind == "list":
        items = draw(st.lists(_sentence(1, 12), min_size=1, max_size=20))
        return {**base, "type": "list", "text": "\n".join(f"{i + 1}. {t}" for i, t in enumerate(items)),
                "blocks": [{"type": "list_item", "text": f"{i + 1}. {t}"} for i, t in enumerate(items)]}
    if kind == "code":
        lines = draw(st.lists(_sentence(1, 8), min_size=1, max_size=8))
        return {**base, "type": "code", "text": "\n".join("    " + ln for ln in lines)}
    if kind in ("header", "footer"):
        return {**base, "type": kind, "text": draw(_sentence(1, 5))}
    if kind == "page_number":
        return {**base, "type": "page_number", "text": str(page_idx + 1)}
    if kind == "empty":
        return {**base, "type": "paragraph", "text": ""}
    if kind == "long":
        return {**base, "type": "paragraph", "text": draw(_long_text())}
    if kind == "lead":  # introduces what follows it (types.document.lead_ins), when that is a block
        ending = draw(st.sampled_from([":", " as follows.", " the following:", " Thus"]))
        return {**base, "type": "paragraph", "text": draw(_paragraph_text()) + ending}
    if kind == "footnote":
        return {**base, "type": "footnote", "text": f"{draw(st.integers(1, 9))} {draw(_sentence(1, 12))}"}
    if kind == "toc":
        lines = draw(st.lists(_sentence(1, 5), min_size=1, max_size=6))
        return {**base, "type": "toc", "text": "\n".join(f"{t} {i + 1}" for i, t in enumerate(lines))}
    return {**base, "type": "paragraph", "text": draw(_paragraph_text())}


@st.composite
def element_documents(draw, max_elements: int = 40, max_pages: int = 5):
    """A Document of 0..max_elements elements over up to max_pages pages, in reading order."""
    pages = draw(st.integers(1, max_pages))
    n = draw(st.integers(0, max_elements))
    page_of = sorted(draw(st.lists(st.integers(0, pages - 1), min_size=n, max_size=n)))
    elements = [e for p in page_of for e in draw(_elements(p))]
    return make_doc(elements)


def check_common_invariants(doc, chunkset, params: dict | None = None) -> None:
    """What docs/contracts.md promises of every chunk, whatever the strategy, and the offsets rule
    the strategy states."""
    from chunkbench.strategies import get_strategy
    from chunkbench.strategies.base import OFFSET_RULES, offsets_violations

    rule = get_strategy(chunkset.strategy).offsets
    broken = offsets_violations(doc, chunkset.chunks, rule, chunkset.skipped)
    assert broken == [], f"{chunkset.strategy} states offsets rule {rule!r}: {OFFSET_RULES[rule]}; broken: {broken[:3]}"
    order = {e.id: i for i, e in enumerate(doc.elements)}
    seen: set[str] = set()
    ids = [c.chunk_id for c in chunkset.chunks]
    assert len(ids) == len(set(ids)), "chunk ids are unique"
    last_first = -1
    for i, c in enumerate(chunkset.chunks):
        assert c.index == i
        assert c.boundary.reason is not None and c.boundary.detail.strip(), c
        if i == 0:
            assert c.boundary.reason.value == "document_start"
        assert c.source_blocks, f"chunk {i} has no source blocks"
        positions = [order[b] for b in c.source_blocks]
        assert positions == sorted(positions), f"chunk {i}: source blocks out of reading order"
        assert positions[0] >= last_first, f"chunk {i} starts before chunk {i - 1}"
        last_first = positions[0]
        if any(doc.element(b).page_idx is not None for b in c.source_blocks):
            assert c.page_start is not None and c.page_end is not None and c.page_start <= c.page_end
        assert c.text.strip(), f"chunk {i} is empty"
        seen.update(c.source_blocks)
    for e in doc.elements:
        if e.id in chunkset.skipped:
            assert e.id not in seen or not e.text.strip(), f"{e.id} both skipped and chunked"
            continue
        if e.text.strip():
            assert e.id in seen, f"element {e.id} ({e.type}) is in no chunk and not declared skipped"
    promise = get_strategy(chunkset.strategy).keeps_lead_ins
    if promise is not None and promise(chunkset.params):
        check_titles_kept(doc, chunkset)
    again = chunk(doc, chunkset.strategy, **(params if params is not None else dict(chunkset.params)))
    assert again.to_dict(chunked_at="x") == chunkset.to_dict(chunked_at="x"), "not deterministic"


def check_titles_kept(doc, chunkset) -> None:
    """A lead-in (a caption over its table, a sentence introducing a table, list or display:
    types.document.lead_ins) never ends a chunk that holds more than headings and lead-ins before
    it: it opens the chunk what it introduces starts in (exact windows, `elements` without table
    boundaries or with the spec's boundaries, `join_headings=false`, and other libraries' chunkers
    (peers) aside). Like a heading, it may stand alone,
    or with the headings and lead-ins before it, when what follows does not fit beside them."""
    content = [e for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in chunkset.skipped]
    content_ids = {e.id for e in content}
    titles = lead_ins(content)
    last_holding = {b: c for c in chunkset.chunks for b in c.source_blocks}  # the last chunk holding each block
    for title in titles:
        last = last_holding.get(title)
        if last is None:
            continue
        blocks = [b for b in last.source_blocks if b in content_ids]
        if blocks[-1] == title and any(not doc.element(b).is_heading and b not in titles for b in blocks[:-1]):
            raise AssertionError(f"chunk {last.index} ends with the lead-in {title} of what follows it")
