"""Numbers that size work, checked at the input's boundary: an elements.json or a
parse-cache entry whose pages, page spans, text offsets, boxes or levels the document does not back
is refused (elements.json: exit 3 naming the file and the element) or dropped with one warning and
parsed again (a cache entry), before any strategy sizes its work by it."""

from __future__ import annotations

import json
import logging
import tracemalloc

import pytest

import chunkbench as cb
from chunkbench.loaders.bounds import document_problem
from chunkbench.ui.cli import main
from tests.support.paths import ROOT, SAMPLE_PDFS, mineru_fixture, shared_pdf

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
    (lambda d: d.update(format="chunkbench.elements/999"), "format 'chunkbench.elements/999': this chunkbench reads"),
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


def test_a_document_ending_in_a_picture_passes(tmp_path, fresh_cache, caplog):
    """A picture below the last text is an element without text, placed where the next text would
    start: one separator past the end. Its elements.json is read back and its cache entry served
    (both were refused as 'outside the document's text' once, so every such PDF was parsed again)."""
    import pymupdf
    from robust.corpus import body_text

    pdf = tmp_path / "picture_last.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        body_text(page, "text above a picture")
        picture = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 150), False)
        picture.set_rect(picture.irect, (200, 60, 60))
        page.insert_image(pymupdf.Rect(72, 450, 520, 780), pixmap=picture)
        doc.save(pdf)
    with caplog.at_level(logging.WARNING):
        first = cb.load(pdf)
        again = cb.load(pdf)
    assert first.elements[-1].type == "image" and not first.elements[-1].text
    assert first.elements[-1].char_start > len(first.text)
    assert document_problem(first) is None and again.elements == first.elements
    assert not [r for r in caplog.records if "parse cache entry" in r.getMessage()]
    out = tmp_path / "picture_last.elements.json"
    assert main(["parse", str(pdf), "-o", str(out)]) == 0
    assert main(["chunk", str(out), "-o", str(tmp_path / "c.json")]) == 0
    data = json.loads(out.read_text("utf-8"))
    data["elements"][-1].update(char_start=len(first.text) + 3, char_end=len(first.text) + 3)
    out.write_text(json.dumps(data), "utf-8")
    assert main(["chunk", str(out), "-o", str(tmp_path / "c2.json")]) == 3


def test_cache_files_replaced_by_a_device_or_changed_are_made_again(fresh_cache, caplog):
    """A parse-cache entry that is a link to /dev/zero was read without end (killed at 60 s with all
    memory); the cached English word list (dehyphenation) is believed only when its first line is
    the hash of the rest, so a copy cut short or edited does not change how hyphens are read."""
    from chunkbench.loaders import dehyphenate

    path = shared_pdf(NDA)
    first = cb.load(path)
    (entry,) = [f for f in fresh_cache.glob("*.json") if not f.name.endswith(".ocr.json")]
    entry.unlink()
    entry.symlink_to("/dev/zero")
    with caplog.at_level(logging.WARNING):
        again = cb.load(path)
    assert again.elements == first.elements and entry.is_file() and not entry.is_symlink()
    assert any("not a regular file" in r.getMessage() for r in caplog.records)

    dehyphenate._english_words.cache_clear()
    words = dehyphenate._english_words()
    (copy,) = fresh_cache.glob("english-words-*.txt")
    assert copy.read_text("utf-8").startswith("sha256:") and "contract" in words
    for damage in ("cut", "edit", "device"):
        if damage == "device":
            copy.unlink()
            copy.symlink_to("/dev/zero")
        else:
            text = copy.read_text("utf-8")
            copy.write_text(text[: len(text) // 2] if damage == "cut" else text.replace("\ncontract\n", "\n"), "utf-8")
        dehyphenate._english_words.cache_clear()
        assert dehyphenate._english_words() == words, damage
    dehyphenate._english_words.cache_clear()
