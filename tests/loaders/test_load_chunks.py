"""`cb.load_chunks`: a chunks.json back as a ChunkSet over its document."""

from __future__ import annotations

import shutil

import pytest

import chunkbench as cb
from chunkbench.errors import InputError
from chunkbench.ui.cli import main
from tests.support.paths import SAMPLE_PDFS

PDF = SAMPLE_PDFS / "technical_manual.pdf"


def test_a_for_retrieval_chunks_file_comes_back_whole_over_the_document_beside_it(tmp_path):
    pdf = tmp_path / PDF.name
    shutil.copy(PDF, pdf)
    assert main(["chunk", str(pdf), "--for-retrieval", "-o", str(tmp_path / "chunks.json")]) == 0
    back = cb.load_chunks(tmp_path / "chunks.json")
    made = cb.chunk(cb.load(pdf), "recursive", chunk_size=150)
    assert back.doc.doc_id == made.doc.doc_id and back.strategy == "recursive"
    assert [c.chunk_id for c in back] == [c.chunk_id for c in made] and [c.text for c in back] == [c.text for c in made]
    assert all(c.extra.get("index_texts") for c in back) and back.retrieval_recipe
    assert back.to_langchain()[0].metadata["source"] == PDF.name


def test_without_its_document_beside_it_the_error_names_the_file_and_how_to_give_it(tmp_path):
    pdf = tmp_path / PDF.name
    shutil.copy(PDF, pdf)
    elsewhere = tmp_path / "out"
    elsewhere.mkdir()
    cb.chunk(cb.load(pdf), "elements").to_json(elsewhere / "c.json")
    with pytest.raises(InputError, match=r"c\.json.*not beside it.*pass doc="):
        cb.load_chunks(elsewhere / "c.json")
    assert len(cb.load_chunks(elsewhere / "c.json", doc=pdf)) == len(cb.chunk(cb.load(pdf), "elements"))
    other = SAMPLE_PDFS / "rfp_it_services.pdf"
    with pytest.raises(InputError, match="were made from 'technical_manual.pdf'"):
        cb.load_chunks(elsewhere / "c.json", doc=other)
    # a source of the same name but other bytes beside it is not taken for it
    shutil.copy(other, elsewhere / PDF.name)
    with pytest.raises(InputError, match="not beside it"):
        cb.load_chunks(elsewhere / "c.json")
