"""The on-disk parse cache, through the PDF loader: hits, misses, bypass, damage, moved files."""

from __future__ import annotations

import json
import shutil

import pytest
from pymupdf4llm.ocr import OCRMode

import chunkbench
from chunkbench.loaders import pdf as pdf_loader
from chunkbench.loaders import pdf_layout
from chunkbench.loaders.cache import cache_key, cached_parse
from tests.support.documents import make_doc
from tests.support.paths import shared_pdf

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
    """The parse entries in a cache folder (not the notes saying a parse depends on OCR)."""
    return sorted(f for f in folder.glob("*.json") if not f.name.endswith(".ocr.json"))


def ocr_notes(folder):
    return sorted(folder.glob("*.ocr.json"))


def test_second_load_is_a_cache_hit(fresh_cache, parses):
    path = shared_pdf(NDA)
    first = chunkbench.load(path)
    second = chunkbench.load(path)
    assert len(parses) == 1
    assert second == first
    assert len(cache_files(fresh_cache)) == 1


@pytest.fixture
def tesseract_data(tmp_path, monkeypatch):
    """A stand-in for installing Tesseract's language data (TESSDATA_PREFIX): the loader sees OCR
    as installed and names it by its data files; OCR itself is not run (`ocr_options` says never),
    since the cache's behaviour, not OCR's output, is under test. Call it with the data's size."""
    folder = tmp_path / "tessdata"

    def install(size: int | None) -> None:
        if size is None:
            monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
            monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
            return
        folder.mkdir(exist_ok=True)
        (folder / "eng.traineddata").write_bytes(b"x" * size)
        monkeypatch.setenv("TESSDATA_PREFIX", str(folder))

    monkeypatch.setattr(pdf_layout, "ocr_options", lambda ocr: {"use_ocr": OCRMode.NEVER})
    install(None)
    return install


def test_installing_ocr_keeps_the_parses_of_pdfs_it_would_not_read(fresh_cache, parses, tesseract_data):
    """A PDF whose every page has a text layer does not depend on OCR: installing or upgrading
    Tesseract keeps its cached parse (the FHS was parsed again for 88 s when it did)."""
    path = shared_pdf(NDA)
    first = chunkbench.load(path)
    assert first.parser.options["ocr"] is False and pdf_loader.OPTION_OCR_PAGES not in first.parser.options
    tesseract_data(1000)
    assert pdf_loader.ocr_engine() is not None and pdf_loader.is_cached(path)
    assert chunkbench.load(path) == first
    tesseract_data(2000)  # upgraded
    assert chunkbench.load(path) == first
    assert len(parses) == 1 and len(cache_files(fresh_cache)) == 1


def test_installing_or_upgrading_ocr_misses_the_parses_of_pdfs_it_would_read(fresh_cache, parses, tesseract_data):
    """A scanned page is what OCR reads: its parse is kept per OCR engine (none, installed,
    upgraded), each served again once made; the entry is a note under the plain key."""
    path = shared_pdf(SCAN)
    without = chunkbench.load(path)
    assert without.parser.options[pdf_loader.OPTION_OCR_PAGES] == [0]
    assert without.parser.options["ocr_engine"] is None
    tesseract_data(1000)
    assert not pdf_loader.is_cached(path)
    installed = chunkbench.load(path)
    assert installed.parser.options["ocr"] is True and len(parses) == 2
    chunkbench.load(path)
    assert len(parses) == 2
    tesseract_data(2000)  # upgraded: a different engine
    upgraded = chunkbench.load(path)
    assert len(parses) == 3 and upgraded.parser.options["ocr_engine"] != installed.parser.options["ocr_engine"]
    tesseract_data(None)  # removed again: the first parse is still there
    assert chunkbench.load(path) == without and len(parses) == 3
    assert len(ocr_notes(fresh_cache)) == 1 and len(cache_files(fresh_cache)) == 3


def test_another_documents_entry_under_this_key_is_parsed_again(fresh_cache, parses):
    """An entry names the document it belongs to: another document's parse copied under this
    document's key is not handed out (its chunks would be another PDF's), the PDF is parsed again."""
    chunkbench.load(shared_pdf(NDA))
    (nda_entry,) = cache_files(fresh_cache)
    scan = chunkbench.load(shared_pdf(SCAN))
    (scan_entry,) = (f for f in cache_files(fresh_cache) if f != nda_entry)
    shutil.copy(nda_entry, scan_entry)
    again = chunkbench.load(shared_pdf(SCAN))
    assert again.doc_id == scan.doc_id and again.elements == scan.elements
    assert len(parses) == 3


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
