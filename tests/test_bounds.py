"""Numbers that size work, checked at the input's boundary (issue 77.2-77.3): an elements.json or a
parse-cache entry whose pages, page spans, text offsets, boxes or levels the document does not back
is refused (elements.json: exit 3 naming the file and the element) or dropped with one warning and
parsed again (a cache entry), before any strategy sizes its work by it."""

from __future__ import annotations

import json
import logging
import tracemalloc

import pytest
from conftest import ROOT, SAMPLE_PDFS, mineru_fixture, shared_pdf

import chunkbench as cb
from chunkbench.loaders.bounds import document_problem
from chunkbench.ui.cli import main

NDA = "legal_ukgov-example-mutual-nda.pdf"


@pytest.fixture(scope="module")
def elements(tmp_path_factory):
    """An elements.json `chunkbench parse` wrote for a real PDF, as data."""
    out = tmp_path_factory.mktemp("el") / "nda.elements.json"
    assert main(["parse", str(shared_pdf(NDA)), "-o", str(out)]) == 0
    return json.loads(out.read_text("utf-8"))


def test_what_the_loaders_make_passes():
    """No false alarm on the loaders' own Documents: a PDF, Markdown, HTML, MinerU output."""
    for path in (SAMPLE_PDFS / "contract_services_agreement.pdf", ROOT / "tests/data/markdown/deployment_guide.md",
                 ROOT / "tests/data/html/pandoc.html", mineru_fixture("naacl-long-107")):
        assert document_problem(cb.load(path)) is None, path


@pytest.mark.parametrize("change, words", [
    (lambda d: d["elements"][3].update(page_end_idx=10**9), "page_end_idx 1000000000"),
    (lambda d: d["elements"][3].update(page_idx=999), "page_idx 999"),
    (lambda d: d["elements"][3].update(page_end_idx=d["elements"][3]["page_idx"] - 1), "page_end_idx"),
    (lambda d: d["elements"][3].update(char_end=10**12), "outside the document's text"),
    (lambda d: d["elements"][3].update(bbox=[0, 0, 1e308, 10]), "bbox"),
    (lambda d: d["elements"][3].update(text_level=10**6), "text_level"),
    (lambda d: d["pages"][0].update(width=1e308), "size of"),
])
def test_an_elements_json_with_a_number_the_document_does_not_back_is_refused(elements, tmp_path, capsys,
                                                                               change, words):
    data = json.loads(json.dumps(elements))
    if words == "page_end_idx":
        data["elements"][3]["page_idx"] = 1
    change(data)
    bad = tmp_path / "bad.elements.json"
    bad.write_text(json.dumps(data), "utf-8")
    tracemalloc.start()
    code = main(["chunk", str(bad), "--strategy", "elements", "-o", str(tmp_path / "c.json")])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 3 and len(err) == 1 and "bad.elements.json" in err[0] and words in err[0], err
    assert peak < 200 * 2**20  # no set of a billion pages on the way (4.6 GB before)
    assert not (tmp_path / "c.json").exists()


def test_a_cache_entry_with_such_a_number_is_dropped_with_one_warning_and_parsed_again(fresh_cache, caplog):
    path = shared_pdf(NDA)
    first = cb.load(path)
    (entry,) = [f for f in fresh_cache.glob("*.json") if not f.name.endswith(".ocr.json")]
    data = json.loads(entry.read_text("utf-8"))
    data["elements"][2]["page_end_idx"] = 10**9
    entry.write_text(json.dumps(data), "utf-8")
    with caplog.at_level(logging.WARNING):
        again = cb.load(path)
    assert again.elements == first.elements
    warned = [r.getMessage() for r in caplog.records if "parse cache entry" in r.getMessage()]
    assert len(warned) == 1 and "page_end_idx 1000000000" in warned[0] and NDA in warned[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        cb.load(path)  # mended: no second warning
    assert not [r for r in caplog.records if "parse cache entry" in r.getMessage()]


def test_a_cache_entry_nested_deep_or_mistyped_is_parsed_again(fresh_cache):
    path = shared_pdf(NDA)
    first = cb.load(path)
    (entry,) = [f for f in fresh_cache.glob("*.json") if not f.name.endswith(".ocr.json")]
    for damage in ("[" * 200_000 + "]" * 200_000, json.dumps({"doc_id": 5, "pages": "x", "elements": [1]})):
        entry.write_text(damage, "utf-8")
        assert cb.load(path).elements == first.elements
