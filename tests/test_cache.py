"""The on-disk parse cache, through the PDF loader: hits, misses, bypass, damage, moved files."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import make_doc, shared_pdf
from pymupdf4llm.ocr import OCRMode

import chunkbench
from chunkbench.loaders import pdf as pdf_loader
from chunkbench.loaders import pdf_layout
from chunkbench.loaders.cache import cache_key, cached_parse

NDA = "legal_ukgov-example-mutual-nda.pdf"
SCAN = "scan_huckfinn-c03-29.pdf"  # one page, parses in a fraction of a second


@pytest.fixture
def parses(monkeypatch):
    """Count real parses: every call of the loader's page parser."""
    calls = []
    real = pdf_loader._parse_pages

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(pdf_loader, "_parse_pages", counting)
    return calls


def cache_files(folder):
    return sorted(folder.glob("*.json"))


def test_second_load_is_a_cache_hit(fresh_cache, parses):
    path = shared_pdf(NDA)
    first = chunkbench.load(path)
    second = chunkbench.load(path)
    assert len(parses) == 1
    assert second == first
    assert len(cache_files(fresh_cache)) == 1


def test_changed_ocr_option_misses(fresh_cache, parses, monkeypatch):
    path = shared_pdf(SCAN)
    assert chunkbench.load(path).parser.options["ocr"] is False
    monkeypatch.setattr(pdf_loader, "ocr_available", lambda: True)  # Tesseract "installed" later
    monkeypatch.setattr(pdf_layout, "ocr_options", lambda ocr: {"use_ocr": OCRMode.NEVER})  # but not run
    assert chunkbench.load(path).parser.options["ocr"] is True
    assert len(parses) == 2 and len(cache_files(fresh_cache)) == 2


def test_loader_revision_bump_misses(fresh_cache, parses, monkeypatch):
    path = shared_pdf(SCAN)
    chunkbench.load(path)
    monkeypatch.setattr(pdf_loader, "LOADER_REVISION", pdf_loader.LOADER_REVISION + 1)
    chunkbench.load(path)
    assert len(parses) == 2


def test_changed_backend_version_misses(fresh_cache, parses, monkeypatch):
    path = shared_pdf(SCAN)
    chunkbench.load(path)
    monkeypatch.setattr(pdf_loader, "backend_version", lambda: "pymupdf 99.0; pymupdf4llm 99.0")
    doc = chunkbench.load(path)
    assert len(parses) == 2
    assert doc.parser.version == "pymupdf 99.0; pymupdf4llm 99.0"


def test_cache_false_bypasses_reading_and_writing(fresh_cache, parses):
    path = shared_pdf(SCAN)
    chunkbench.load(path, cache=False)
    assert not cache_files(fresh_cache)
    chunkbench.load(path)
    chunkbench.load(path, cache=False)
    assert len(parses) == 3 and len(cache_files(fresh_cache)) == 1


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"doc_id": "x"}', b"\xff\xfe\x00"])
def test_damaged_cache_file_is_reparsed_and_repaired(fresh_cache, parses, damage):
    path = shared_pdf(SCAN)
    original = chunkbench.load(path)
    (entry,) = cache_files(fresh_cache)
    entry.write_bytes(damage)
    assert chunkbench.load(path) == original
    assert len(parses) == 2
    assert json.loads(entry.read_text("utf-8"))["doc_id"] == original.doc_id
    chunkbench.load(path)
    assert len(parses) == 2


def test_moved_pdf_gets_its_new_path(fresh_cache, parses, tmp_path):
    old = tmp_path / "inbox" / "contract.pdf"
    old.parent.mkdir()
    shutil.copy(shared_pdf(NDA), old)
    first = chunkbench.load(old)
    new = tmp_path / "archive" / "nda-2023.pdf"
    new.parent.mkdir()
    old.rename(new)
    moved = chunkbench.load(new)
    assert len(parses) == 1
    assert moved.pdf_path == str(new) and moved.source == "nda-2023.pdf"
    assert moved.doc_id == first.doc_id and moved.elements == first.elements


def test_cache_key_depends_on_every_part():
    base = ("a" * 64, "pymupdf", "1.0", {"ocr": False})
    keys = {
        cache_key(*base),
        cache_key("b" * 64, *base[1:]),
        cache_key(base[0], "mineru", *base[2:]),
        cache_key(*base[:2], "1.1", base[3]),
        cache_key(*base[:3], {"ocr": True}),
    }
    assert len(keys) == 5
    assert cache_key(*base[:3], {"x": 1, "y": 2}) == cache_key(*base[:3], {"y": 2, "x": 1})


def test_cached_parse_misses_on_changed_options(fresh_cache, tmp_path):
    source = tmp_path / "doc.json"
    source.write_text("{}")
    doc = make_doc([{"type": "paragraph", "text": "hello"}])
    calls = []

    def parse():
        calls.append(1)
        return doc

    for options in ({"ocr": False}, {"ocr": False}, {"ocr": True}):
        assert cached_parse(source, doc.doc_id, "test", "1", options, parse).elements == doc.elements
    assert len(calls) == 2


def test_concurrent_requests_for_one_parse_run_it_once(fresh_cache, tmp_path):
    """Workers asking for the same uncached parse at once wait for the first instead of repeating it."""
    import threading
    import time

    from chunkbench.loaders.cache import cached_parse
    from chunkbench.types.document import Document, ParserInfo

    source = tmp_path / "x.pdf"
    source.write_bytes(b"%PDF")
    calls = []

    def parse() -> Document:
        calls.append(1)
        time.sleep(0.5)
        return Document("d" * 64, "x.pdf", (), (), ParserInfo("test", "1"))

    results = []
    threads = [
        threading.Thread(target=lambda: results.append(cached_parse(source, "d" * 64, "test", "1", {}, parse)))
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(results) == 3
    assert {r.doc_id for r in results} == {"d" * 64}
