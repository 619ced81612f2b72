"""Docling's HybridChunker as a peer strategy, on the Document written as a
DoclingDocument (`chunkbench.io.docling_doc.to_docling`), and Docling's own chunks of a Docling
input located by the items they name (`meta.doc_items`)."""

from __future__ import annotations

import json
import warnings

import pytest

import chunkbench as cb
from chunkbench.io.docling_doc import to_docling
from chunkbench.strategies import get_strategy
from chunkbench.text.tokenizer import get_encoding
from chunkbench.ui.cli import main
from tests.support.paths import MINERU_FIXTURES, SAMPLE_PDFS

pytest.importorskip("docling_core", reason="docling-core (a dev dependency) is not installed")
pytest.importorskip("semchunk", reason="semchunk (HybridChunker's splitter, a dev dependency) is not installed")
from docling_core.transforms.chunker.hybrid_chunker import HybridChunker  # noqa: E402
from docling_core.transforms.chunker.tokenizer.openai import OpenAITokenizer  # noqa: E402
from docling_core.types.doc import DoclingDocument  # noqa: E402

HYBRID = "docling:HybridChunker"
MANUAL = SAMPLE_PDFS / "technical_manual.pdf"
REPORT = SAMPLE_PDFS / "financial_annual_report.pdf"


@pytest.fixture(scope="module")
def manual():
    return cb.load(MANUAL)


def docling_chunks(dl: DoclingDocument, max_tokens: int) -> list:
    """Docling's own HybridChunker, counting offline cl100k tokens, as a user would run it."""
    chunker = HybridChunker(tokenizer=OpenAITokenizer(tokenizer=get_encoding(), max_tokens=max_tokens))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return list(chunker.chunk(dl))


def test_the_document_written_by_docling_core_reads_back_the_same(manual, tmp_path):
    """to_docling, saved by docling-core itself, loads back through the Docling loader with the
    same elements: text, type (page numbers become Docling's page footers), page, box, heading level."""
    path = tmp_path / "manual.json"
    to_docling(manual).document.save_as_json(path)
    back = cb.load(path)
    want = [(e.text, "footer" if e.type == "page_number" else e.type, e.page_idx, e.text_level) for e in manual.elements]
    assert [(e.text, e.type, e.page_idx, e.text_level) for e in back.elements] == want
    assert all(a.bbox == pytest.approx(b.bbox, abs=0.01) for a, b in zip(back.elements, manual.elements))
    tables = [e for e in back.elements if e.type == "table"]
    assert tables and [e.rows for e in tables] == [e.rows for e in manual.elements if e.type == "table"]


def test_the_peer_makes_exactly_docling_chunks_placed_on_their_own_items(manual):
    cs = cb.chunk(manual, HYBRID, max_tokens=128)
    conversion = to_docling(manual)
    own = [c for c in docling_chunks(conversion.document, 128) if c.text.strip()]
    assert [c.text for c in cs] == [c.text for c in own]
    for c, theirs in zip(cs, own):
        named = list(dict.fromkeys(conversion.refs[i.self_ref] for i in theirs.meta.doc_items))
        body = [b for b in c.source_blocks if not cb.types.document.is_noise(manual.element(b))]
        # the elements it touches are the items Docling says it holds; a code block split before
        # its closing fence leaves the next chunk only that fence of it ("```"), which has no text
        assert body == named or (body == named[1:] and c.text.startswith("```\n")), c.index
        assert c.extra["foreign_metadata"]["headings"] == list(theirs.meta.headings or [])
        # a table is Docling's "row, column = value" text, placed at the table; all else is found
        kind = c.extra["match"]
        assert kind == "referenced" if any(manual.element(b).type == "table" for b in named) else kind in (
            "exact", "normalised"), (c.index, kind)
    assert max(len(get_encoding().encode(c.text)) for c in cs) <= 128
    assert len(cb.chunk(manual, HYBRID, max_tokens=48)) > len(cs) > len(cb.chunk(manual, HYBRID, max_tokens=1024))


def test_headings_are_carried_in_metadata_and_declared(manual):
    cs = cb.chunk(manual, HYBRID)
    headings = [e for e in manual.elements if e.is_heading]
    chunked = {b for c in cs for b in c.source_blocks}
    assert headings and not chunked & {e.id for e in headings}
    assert all("carried in the metadata" in cs.skipped[e.id] for e in headings)
    assert cs[0].boundary.reason.value == "document_start"
    under = [c for c in cs[1:] if c.boundary.reason.value == "heading"]
    assert under and all("which is in no chunk's text" in c.boundary.detail for c in under)
    furniture = [e.id for e in manual.elements if cb.types.document.is_noise(e)]
    assert all(cs.skipped[f].startswith("page furniture") for f in furniture if f not in chunked)
    assert any(f in cs.skipped for f in furniture)  # and what lies inside a chunk crossing a page, is in it


def test_parameters_come_from_the_pydantic_fields():
    params = {p.name: p for p in get_strategy(HYBRID).params}
    assert {"merge_peers", "repeat_table_header", "always_emit_headings", "max_tokens"} <= set(params)
    assert params["merge_peers"].type is bool and params["max_tokens"].min == 16
    assert "tokenizer" not in params and "serializer_provider" not in params


def test_docling_chunks_of_a_docling_input_are_located_by_their_items(tmp_path):
    """A user's own HybridChunker run on a DoclingDocument file, chunks given as objects and as a
    JSON file of `export_json_dict()`: each lands on the items its `doc_items` name."""
    path = tmp_path / "report.json"
    to_docling(cb.load(REPORT)).document.save_as_json(path)
    doc = cb.load(path)
    own = docling_chunks(DoclingDocument.load_from_json(path), 200)
    cs = cb.inspect(doc, own, name="docling")
    for c, theirs in zip(cs, own):
        named = [i.self_ref.removeprefix("#/") for i in theirs.meta.doc_items]
        assert [b for b in c.source_blocks if b in named] == list(dict.fromkeys(named)), c.index
    assert {c.extra["match"] for c in cs} <= {"exact", "normalised", "referenced"}
    file = tmp_path / "chunks.json"
    file.write_text(json.dumps([c.export_json_dict() for c in own]), encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["chunk", str(path), "--chunks", str(file), "-o", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [c["source_blocks"] for c in data["chunks"]] == [list(c.source_blocks) for c in cs]


def test_items_not_in_the_document_fall_back_to_searching_the_text(manual):
    """Docling references that are not this Document's (a Docling parse of the same PDF, given with
    chunkbench's own parse): the text is searched everywhere, as for any chunker."""
    conversion = to_docling(manual)
    own = docling_chunks(conversion.document, 256)
    cs = cb.inspect(manual, own)  # refs are "#/texts/N", the manual's ids are "p1-e4"
    kinds = [c.extra["match"] for c in cs]
    assert "referenced" not in kinds
    tables = [i for i, c in enumerate(own) if any(d.label == "table" for d in c.meta.doc_items)]
    assert tables and all(k in ("exact", "normalised") for i, k in enumerate(kinds) if i not in tables), kinds


def test_sections_merged_under_headings_that_read_the_same_are_their_items_apart():
    """merge_peers joins two sections whose headings read the same ("Notes" twice) and leaves the
    second heading out of the text: the chunk is its two items, in pieces, not a span taking that
    heading in. With "The" over "the" twice, the folded search found "the The" (`make fuzz`)."""
    from tests.support.documents import make_doc

    for heading, body in (("Notes", ("Payment is due within 30 days.", "Deliveries are made on weekdays only.")),
                          ("The", ("the", "the"))):
        doc = make_doc([{"type": "heading", "text": heading, "text_level": 1}, {"type": "paragraph", "text": body[0]},
                        {"type": "heading", "text": heading, "text_level": 1},
                        {"type": "paragraph", "text": body[1]}])
        [c] = cb.chunk(doc, HYBRID).chunks
        assert c.source_blocks == ("e1", "e3") and c.extra["match_items_apart"], c
        assert c.extra["match_pieces"] == [[e.char_start, e.char_end] for e in (doc.elements[1], doc.elements[3])]
        assert "the text between them left out" in c.boundary.detail
        cs = cb.chunk(doc, HYBRID)
        assert "carried in the metadata" in cs.skipped["e2"]
        assert "1 as items apart" in cb.foreign.match_summary(cs)
        # without merge_peers each section is its own chunk, found as it is
        assert [c.source_blocks for c in cb.chunk(doc, HYBRID, merge_peers=False)] == [("e1",), ("e3",)]


# --- docling-core's newer chunkers: line-based tokens, pages, chunk expanders ----------------------

LINES = "docling:LineBasedTokenChunker"
PAGES = "docling:PageChunker"


def test_line_based_chunks_are_docling_own_each_on_the_items_it_holds(manual):
    """The peer's chunks are the library's, made by a user's own LineBasedTokenChunker, and each
    is placed on the elements whose lines it holds (the library names every item for every chunk)."""
    from docling_core.transforms.chunker.line_chunker import LineBasedTokenChunker

    conversion = to_docling(manual)
    own = LineBasedTokenChunker(tokenizer=OpenAITokenizer(tokenizer=get_encoding(), max_tokens=128)).chunk(
        conversion.document)
    cs = cb.chunk(manual, LINES, max_tokens=128)
    assert [c.text for c in cs] == [c.text for c in own if c.text.strip()]
    assert max(len(get_encoding().encode(c.text)) for c in cs) <= 128
    starts = [c.start_char for c in cs]
    assert starts == sorted(starts), "in reading order (the pieces of a table all placed at the table)"
    tables = {e.id for e in manual.elements if e.type == "table"}
    assert tables and all(c.extra["match"] == "referenced" for c in cs if set(c.source_blocks) <= tables)
    assert len(cb.chunk(manual, LINES, max_tokens=64)) > len(cs)


def test_page_chunks_are_one_per_page(manual):
    from docling_core.transforms.chunker.page_chunker import PageChunker

    cs = cb.chunk(manual, PAGES)
    own = list(PageChunker().chunk(to_docling(manual).document))
    assert [c.text for c in cs] == [c.text for c in own] and len(cs) == len(manual.pages)
    assert [(c.page_start, c.page_end) for c in cs] == [(n, n) for n in range(1, len(manual.pages) + 1)]
    assert {c.boundary.reason.value for c in cs[1:]} <= {"page_break", "heading"}


def test_page_chunker_declares_what_has_no_box():
    found = sorted(MINERU_FIXTURES.glob("*/naacl-long-107_content_list.json"))
    if not found:
        pytest.skip("the MinerU 2.x fixtures are in ../shared, which is not beside this clone")
    doc = cb.load(found[0])
    cs = cb.chunk(doc, PAGES)
    assert not cs.chunks and all(e.bbox is None for e in doc.elements)
    assert all("no box on a page" in cs.skipped[e.id] for e in doc.elements if e.text.strip() and not
               cb.types.document.is_noise(e))


@pytest.mark.parametrize("expand", ["tree", "page"])
def test_a_chunk_expander_grows_hybrid_chunks_as_docling_does(manual, expand):
    from docling_core.transforms.chunker.chunk_expander import PageChunkExpander, TreeChunkExpander

    conversion = to_docling(manual)
    chunker = HybridChunker(tokenizer=OpenAITokenizer(tokenizer=get_encoding(), max_tokens=128))
    expander = {"tree": TreeChunkExpander, "page": PageChunkExpander}[expand]()
    serializer = chunker.serializer_provider.get_serializer(doc=conversion.document)
    own = [expander.expand(chunk=c, dl_doc=conversion.document, serializer=serializer)
           for c in chunker.chunk(conversion.document)]
    cs = cb.chunk(manual, HYBRID, max_tokens=128, expand=expand)
    assert [c.text for c in cs] == [c.text for c in own if c.text.strip()]
    plain = cb.chunk(manual, HYBRID, max_tokens=128)
    assert sum(c.char_len for c in cs) > sum(c.char_len for c in plain), "expanded chunks hold more"
    assert "expand" in {p.name for p in get_strategy(HYBRID).params}
