"""PyMuPDF's own chunker, `pymupdf4llm.to_chunks`, as the peer `pymupdf:to_chunks`:
the library's chunks, run as a user runs it, located on chunkbench's parse of the same PDF."""

from __future__ import annotations

import pymupdf4llm
import pytest

import chunkbench as cb
from chunkbench.errors import InputError, ParamError
from chunkbench.strategies import pymupdf_peer
from chunkbench.text.tokenizer import count_tokens
from chunkbench.ui.cli import main
from tests.support.paths import ROOT, SAMPLE_PDFS

PEER = "pymupdf:to_chunks"
CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"


@pytest.fixture(scope="module")
def contract():
    return cb.load(CONTRACT)


@pytest.fixture(scope="module")
def theirs():
    """to_chunks as its documentation shows it, counting cl100k tokens."""
    return pymupdf4llm.to_chunks(str(CONTRACT), tokenizer=count_tokens, max_tokens=200)


def test_the_peer_makes_exactly_pymupdf4llm_chunks_located_on_their_pages(contract, theirs):
    cs = cb.chunk(contract, PEER, max_tokens=200)
    assert [c.text for c in cs] == [c.text for c in theirs]
    assert {c.extra["match"] for c in cs} <= {"exact", "normalised"}
    for c, own in zip(cs, theirs):
        assert (c.page_start, c.page_end) == (own.metadata.page_start, own.metadata.page_end), c.index
        assert c.extra["foreign_metadata"]["element_ids"] == own.metadata.element_ids
    assert max(count_tokens(c.text) for c in cs) <= 200 * 1.5  # its own budget, which a table may pass


def test_a_new_setting_reassembles_without_parsing_again(contract):
    cb.chunk(contract, PEER)
    before = pymupdf_peer._parsed.cache_info()
    small, isolated = cb.chunk(contract, PEER, max_tokens=100, min_tokens=30), cb.chunk(contract, PEER, table_mode="isolate")
    after = pymupdf_peer._parsed.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 2
    assert len(small) > len(cb.chunk(contract, PEER)) and any(c.boundary.reason.value == "table" for c in isolated)


def test_page_furniture_left_out_is_declared(contract):
    cs = cb.chunk(contract, PEER)
    furniture = [e.id for e in contract.elements if cb.types.document.is_noise(e) and e.text.strip()]
    chunked = {b for c in cs for b in c.source_blocks}
    assert furniture and all(cs.skipped[f].startswith("page furniture") for f in furniture if f not in chunked)


def test_what_it_cannot_chunk_is_said(contract, capsys):
    with pytest.raises(ParamError, match="min_tokens .* is larger than max_tokens"):
        cb.chunk(contract, PEER, max_tokens=50, min_tokens=100)
    with pytest.raises(ParamError, match="must be one of"):
        cb.chunk(contract, PEER, table_mode="split")
    markdown = ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"
    with pytest.raises(InputError, match="chunks a PDF"):
        cb.chunk(cb.load(markdown), PEER)
    assert main(["chunk", str(markdown), "--strategy", PEER]) == 3
    err = capsys.readouterr().err
    assert "deployment_guide.md" in err and "chunks a PDF" in err and "Traceback" not in err
