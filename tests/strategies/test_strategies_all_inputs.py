"""Every registered strategy on every kind of input: the sample PDFs, the real PDFs in
../shared/pdfs, both MinerU fixtures (content_list v1 and v2), a document.json, a Markdown file and
an elements.json round trip.

Breadth, not depth: the per-strategy files (`test_strategy_*.py`) test each rule; here every
(input, strategy) pair must satisfy the common invariants, the seed-2 evidence targets where the
input has pages, the shipped chunks.json schema, and the size/coverage rules each strategy promises
(reusing the per-strategy files' own checks). Each input is loaded and chunked once per module.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from element_streams import check_common_invariants

import chunkbench
from chunkbench.evaluate.stats import quality_targets
from chunkbench.io.atomic import dumps_json, write_json
from chunkbench.io.export import schema_errors
from chunkbench.strategies import all_strategies, chunk
from chunkbench.strategies.elements import cut_level
from chunkbench.text.tokenizer import count_tokens
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import SEPARATOR, is_noise, lead_ins
from tests.support.documents import make_doc
from tests.support.paths import MINERU_FIXTURES, ROOT, SAMPLE_PDFS, SHARED_PDFS, shared_pdf
from tests.support.strategy_checks import (
    contract_words,
    headers_coverage,
    headers_own,
    sections_coverage,
    variant_params,
)

STRATEGIES = [s.name for s in all_strategies()]
GNUPLOT = "long_gnuplot-5.4.pdf"
SCAN = "scan_huckfinn-c03-29.pdf"
STAMP = "2026-01-01T00:00:00Z"  # a fixed chunked_at, so two chunks.json texts compare byte for byte


def _inputs() -> dict[str, Path]:
    """Input id → path: every input kind a Document can be loaded from (the scan is tested apart)."""
    found = {f"sample/{p.name}": p for p in sorted(SAMPLE_PDFS.glob("*.pdf"))}
    found.update({f"shared/{p.name}": p for p in sorted(SHARED_PDFS.glob("*.pdf")) if p.name not in (GNUPLOT, SCAN)})
    found.update({f"mineru/{p.name}": p for p in sorted(MINERU_FIXTURES.glob("*/*_content_list*.json"))})
    found["docjson/document.json"] = ROOT / "tests" / "data" / "docjson" / "document.json"
    found["markdown/deployment_guide.md"] = ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"
    return found


INPUTS = _inputs()


class Chunked:
    """One loaded Document and its ChunkSet per strategy and size variant, computed on demand."""

    def __init__(self, name: str, doc):
        self.name, self.doc = name, doc
        self._sets: dict[tuple[str, str], ChunkSet] = {}

    def get(self, strategy: str, variant: str = "default") -> ChunkSet:
        key = (strategy, variant)
        if key not in self._sets:
            self._sets[key] = chunk(self.doc, strategy, **variant_params(strategy, variant))
        return self._sets[key]


#: the small sizes on the 75-page 10-K take as long as all other inputs together and add no new case
SMALL_SKIP = {"shared/financial_bestbuy-2023-10k.pdf"}


@pytest.fixture(scope="module", params=sorted(INPUTS), ids=str)
def chunked(request) -> Chunked:
    return Chunked(request.param, chunkbench.load(INPUTS[request.param]))


# --- the checks every (input, strategy) pair must pass --------------------------------------------


def check_chunks_json(cs: ChunkSet, tmp_path: Path) -> dict:
    """The chunks.json dict validates against the shipped schema, and writes and reads back intact."""
    path = tmp_path / f"{cs.strategy}.chunks.json"
    cs.to_json(path, chunked_at=STAMP)
    back = json.loads(path.read_text("utf-8"))
    assert schema_errors(back) == []
    assert back["chunks"] == json.loads(dumps_json([c.to_dict() for c in cs]))
    return back


def check_evidence(doc, cs: ChunkSet, data: dict) -> None:
    """Seed-2 evidence targets on an input with pages: 100% pages and source_blocks (and boxes when
    the elements have them)."""
    targets = {t.name: t for t in quality_targets(data)}
    if not cs.chunks:
        return
    assert targets["share_with_pages"].passed, targets["share_with_pages"]
    assert targets["share_with_source_blocks"].passed, targets["share_with_source_blocks"]
    for c in cs:
        assert 1 <= c.page_start <= c.page_end <= len(doc.pages), c.chunk_id
        if any(doc.element(b).bbox is not None for b in c.source_blocks):
            assert c.bbox and all(c.page_start <= b.page <= c.page_end for b in c.bbox), c.chunk_id


def check_tokens(doc, cs: ChunkSet) -> None:
    size = cs.params["chunk_size"]
    for prev, c in zip([None, *cs.chunks], cs.chunks):
        assert c.text == doc.text[c.start_char:c.end_char], "exact offsets in the canonical text"
        assert c.extra["tokens"] <= size and abs(c.tokens_est - c.extra["tokens"]) <= 2
        if prev is not None:
            assert prev.start_char < c.start_char <= prev.end_char, "windows advance and touch or overlap"
    if cs.chunks:
        assert cs[0].start_char == 0 and cs[-1].end_char == len(doc.text)


def check_elements(doc, cs: ChunkSet) -> None:
    limit, level = cs.params["max_chunk_size"], cs.params["heading_level"] or cut_level(doc)
    chunked = [b for c in cs for b in c.source_blocks]
    in_order = [b for i, b in enumerate(chunked) if i == 0 or chunked[i - 1] != b]  # split elements once
    expected = [e.id for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped]
    assert in_order == expected, "every content element in one chunk (a split one in consecutive chunks), in order"
    titles = lead_ins([doc.element(b) for b in expected])
    for c in cs:
        els = [doc.element(b) for b in c.source_blocks]
        if c.span_text != SEPARATOR.join(e.text for e in els):  # a piece of a split oversize element
            # an element over the limit, or one that does not fit whole beside the headings and lead-ins opening it
            assert cs.params["split_oversize"] and (len(els[-1].text) > limit or cs.params["join_headings"])
            # its first piece may be opened by the headings (and a table's caption) before it
            assert len(els) == 1 or (cs.params["join_headings"] and all(e.is_heading or e.id in titles for e in els[:-1]))
            assert c.span_text == doc.text[c.start_char:c.end_char] and c.char_len <= limit, \
                "an exact slice (a repeated table header aside), in the limit"
        if c.char_len > limit:
            assert not cs.params["split_oversize"] and len(els) == 1 and c.extra["oversize"], \
                "only a lone oversize element exceeds the limit, and only when it is not split"
        # join_headings: leading headings (and a table's caption) and the element after them are joined on purpose
        titled = next((i for i, e in enumerate(els) if not e.is_heading and e.id not in titles), len(els))
        ruled = els[titled:] if cs.params["join_headings"] else els
        for prev, e in zip(ruled, ruled[1:]):
            assert prev.last_page_idx is None or e.page_idx in (None, prev.last_page_idx), "page change starts a chunk"
            assert e.text_level is None or e.text_level > level, "top headings start chunks"
            assert not (cs.params["table_boundary"] and e.type == "table"), "tables start chunks"


def check_headers(doc, cs: ChunkSet) -> None:
    headers_coverage(doc, cs)
    limit = cs.params["max_chunk_chars"]
    for c in cs:
        assert len(headers_own(c)) <= limit, "own text within max_chunk_chars (prefix and overlap declared)"
        assert c.extra["overlap_chars"] <= cs.params["overlap_chars"]
        if c.extra["overlap_chars"]:
            assert "_sub_" in c.chunk_id and not c.chunk_id.endswith("_sub_0"), "overlap only between siblings"


def check_sections(doc, cs: ChunkSet) -> None:
    sections_coverage(doc, cs)
    tables = {e.id for e in doc.elements if e.type == "table" and not e.is_empty}
    for c in cs:
        e = c.extra
        assert count_tokens(c.text) <= cs.params["max_tokens"], "token budget"
        assert e["is_table"] == (c.type in ("table", "pricing_table")) and e["embed"] is not e["is_table"]
        if tables & set(c.source_blocks):
            assert e["is_table"], f"{c.chunk_id} holds a layout table but is not flagged"


def check_contract(doc, cs: ChunkSet) -> None:
    assert " ".join(c.text for c in cs).split() == contract_words(doc, cs.skipped), "text kept exactly once"
    limit = cs.params["max_chars"]
    for c in cs:
        assert c.char_len <= limit or c.extra["oversize"]
        assert c.extra["list_items"] <= cs.params["max_list_items"]
        assert c.type in {"heading", "definition", "clause", "schedule", "table", "paragraph", "unknown"}
        assert c.heading == (c.section_path[-1] if c.section_path else None)
        if c.type == "table":
            assert sum(doc.element(b).type == "table" for b in c.source_blocks) == 1, "one table = one chunk"


def check_recursive(doc, cs: ChunkSet) -> None:
    size = cs.params["chunk_size"]
    assert all(0 < c.char_len - c.extra["overlap_chars"] <= size for c in cs), "own text within chunk_size"
    content = "".join("".join(e.text.split()) for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped)
    own = "".join("".join(c.span_text[c.extra["overlap_chars"]:].split()) for c in cs)
    assert own == content, "in order, nothing lost or repeated"


def check_sentences(doc, cs: ChunkSet) -> None:
    assert all(0 < c.char_len <= cs.params["max_chars"] for c in cs), "every chunk within max_chars"
    content = "".join("".join(e.text.split()) for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped)
    assert "".join("".join(c.span_text.split()) for c in cs) == content, "in order, nothing lost or repeated"
    assert all(c.extra["sentences"] >= 1 or c.boundary.reason.value == "word_split"
               or all(doc.element(b).is_heading or doc.element(b).type in ("table", "caption") for b in c.source_blocks)
               for c in cs)


#: each spec's own rules, on top of the invariants every strategy keeps (check_all); optional for a new
#: strategy (docs/adding-a-strategy.md)
SANITY = {"tokens": check_tokens, "elements": check_elements, "headers": check_headers,
          "sections": check_sections, "contract": check_contract, "recursive": check_recursive,
          "sentences": check_sentences}


def test_the_per_strategy_tables_name_registered_strategies():
    """The matrix itself comes from the registry; this table only adds to it, so a renamed strategy
    must not leave a check behind (the small sizes are declared with each strategy)."""
    assert set(SANITY) <= set(STRATEGIES)


def check_spans(doc, cs: ChunkSet) -> None:
    """Each chunk's canonical span lies in the text and touches every one of its source elements."""
    for c in cs:
        assert 0 <= c.start_char <= c.end_char <= len(doc.text), c.chunk_id
        for b in c.source_blocks:
            e = doc.element(b)
            assert e.char_start < c.end_char and e.char_end > c.start_char, f"{c.chunk_id}: {b} outside its span"


def check_all(doc, cs: ChunkSet, tmp_path: Path) -> None:
    check_common_invariants(doc, cs)
    assert all(c.text.strip() for c in cs), "no chunk with empty text"
    check_spans(doc, cs)
    assert cs.to_debug_markdown().count("\n## Chunk ") == len(cs)
    data = check_chunks_json(cs, tmp_path)
    if doc.pages:
        check_evidence(doc, cs, data)
    if cs.strategy in SANITY:
        SANITY[cs.strategy](doc, cs)


# --- the matrix -----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_strategy_on_input(chunked, strategy, tmp_path):
    cs = chunked.get(strategy)
    boxless = strategy == "docling:PageChunker" and all(e.bbox is None for e in chunked.doc.elements)
    assert cs.chunks or boxless, "a document with text gives chunks (Docling's PageChunker needs boxes: declared)"
    check_all(chunked.doc, cs, tmp_path)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_strategy_on_input_with_small_sizes(chunked, strategy, tmp_path):
    if chunked.name in SMALL_SKIP:
        pytest.skip("default sizes cover this input; small sizes on it only add time")
    cs = chunked.get(strategy, "small")
    assert len(cs) >= len(chunked.get(strategy)), "small sizes never give fewer chunks"
    check_all(chunked.doc, cs, tmp_path)


@pytest.mark.parametrize("strategy", sorted({s.name for s in all_strategies(slow=True)} - set(STRATEGIES)))
def test_slow_peer_on_one_small_input(strategy, tmp_path):
    """Slow peers (chonkie's SemanticChunker embeds every window of sentences) are left out of the
    matrix above, which would take them minutes per input; they keep every invariant on the sample
    contract."""
    doc = chunkbench.load(INPUTS["sample/contract_services_agreement.pdf"])
    cs = chunk(doc, strategy)
    assert len(cs) > 10 or (strategy == "docling:PageChunker" and len(cs) == len(doc.pages))
    check_all(doc, cs, tmp_path)


@pytest.mark.parametrize("name", ["sample/contract_services_agreement.pdf",
                                  "mineru/naacl-long-122_content_list_v2.json",
                                  "docjson/document.json", "markdown/deployment_guide.md"])
def test_elements_json_round_trip_gives_identical_chunks(name, tmp_path):
    """parse → write elements.json → load → chunk gives the chunks of the original Document."""
    if name not in INPUTS:  # an input from ../shared, which is not beside this clone
        pytest.skip(f"{name} not available (../shared is not beside this clone)")
    doc = chunkbench.load(INPUTS[name])
    path = write_json(tmp_path / "elements.json", doc.to_dict())
    again = chunkbench.load(path)
    assert again == doc
    for strategy in STRATEGIES:
        original = chunk(doc, strategy).to_dict(chunked_at=STAMP)
        reloaded = chunk(again, strategy).to_dict(chunked_at=STAMP)
        assert dumps_json(reloaded["chunks"]) == dumps_json(original["chunks"]), strategy


# --- the scanned PDF (no text layer) -------------------------------------------------------------


def test_scanned_pdf_gives_only_what_its_text_allows(tmp_path):
    path = shared_pdf(SCAN)
    doc = chunkbench.load(path)
    assert doc.pages
    content = [e for e in doc.elements if e.text.strip()]
    for strategy in STRATEGIES:
        cs = chunk(doc, strategy)
        if not content:
            assert cs.chunks == ()
        check_all(doc, cs, tmp_path)


# --- the 311-page manual: one load, every strategy once --------------------------------------------


#: peers whose time on the 311-page manual is their library's own (docling-core re-counts tokens of
#: each line's rest: 6 s here); the 17-input matrix runs them
LONG_MANUAL_SKIP = {"docling:LineBasedTokenChunker"}


@pytest.mark.xdist_group("gnuplot")  # after test_loader_pdf's parse of it, on the same worker
def test_long_manual_every_strategy(tmp_path):
    """About 10 s of CPU on a warm parse cache (the cold parse of 311 pages takes minutes)."""
    path = shared_pdf(GNUPLOT)
    doc = chunkbench.load(path)
    for strategy in (s for s in STRATEGIES if s not in LONG_MANUAL_SKIP):
        cs = chunk(doc, strategy)
        assert len(cs) > (100 if ":" not in strategy else 10), strategy  # peers default to 1,000-4,000 units
        check_all(doc, cs, tmp_path)


def test_an_overlap_starting_in_a_separator_does_not_list_the_element_before_it(tmp_path):
    """headers: sub-chunk 1's 30-char overlap is the last 28 characters of the 29-char element ending
    sub-chunk 0 and the separator (no word start inside it, so the raw characters are kept); the
    element before contributes nothing to sub-chunk 1, so it is not a source block."""
    doc = make_doc([{"type": "heading", "text": "Title", "text_level": 1}, {"type": "paragraph", "text": "a" * 100},
                    {"type": "paragraph", "text": "b" * 29}, {"type": "paragraph", "text": "word " * 60}])
    cs = chunk(doc, "headers", max_chunk_chars=200, min_chunk_chars=0, overlap_chars=30, include_parent_headers=False)
    assert cs[1].text.startswith("b" * 28 + "\n\nword") and cs[1].extra["overlap_chars"] == 30
    assert cs[1].source_blocks == ("e2", "e3")
    check_all(doc, cs, tmp_path)
