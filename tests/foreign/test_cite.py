"""Citing a quote: located as inspect locates chunks, highlighted on exactly its words' lines, on
every page it crosses (chunkbench/foreign/cite.py, `cb.cite`, `chunkbench cite`, render_page(cite=))."""

from __future__ import annotations

import json
import re
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.foreign.cite import cite
from chunkbench.foreign.locate import normalise
from chunkbench.loaders.pagewords import page_words
from chunkbench.types.document import is_noise
from chunkbench.ui.cli import main
from tests.support.extras import examples
from tests.support.paths import ROOT, SAMPLE_PDFS

CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"
MINERU = ROOT.parent / "shared" / "fixtures" / "mineru" / "naacl-long-107" / "naacl-long-107_content_list.json"


@pytest.fixture(scope="module")
def contract():
    return cb.load(CONTRACT)


def words_under(doc, boxes) -> list[str]:
    """The PDF words whose centres lie in `boxes`, in page order."""
    out = []
    for page in sorted({b.page for b in boxes}):
        for w in page_words(doc.pdf_path, page):
            cx, cy = (w[0] + w[2]) / 2, (w[1] + w[3]) / 2
            if any(b.page == page and b.x0 <= cx <= b.x1 and b.y0 <= cy <= b.y1 for b in boxes):
                out.append(unicodedata.normalize("NFKC", w[4]))  # the PDF's ligatures ("ﬁ") as the text has them
    return out


def test_a_quote_inside_a_paragraph_is_exact_and_highlights_exactly_its_words(contract):
    para = next(e for e in contract.elements if e.type == "paragraph" and len(e.text) > 300)
    start = para.text.index(" ", 50) + 1
    quote = para.text[start:para.text.index(" ", start + 150)]
    c = cite(contract, quote)
    assert c.kind == "exact" and (c.start, c.end) == (para.char_start + start, para.char_start + start + len(quote))
    assert [w.strip(".,;:") for w in words_under(contract, c.boxes)] == [w.strip(".,;:") for w in quote.split()]
    lines = {(round(b.y0), b.page) for b in c.boxes}
    assert len(c.boxes) == len(lines) >= 2  # one box per line, not the paragraph's box
    assert c.locator["page"] == para.page_idx + 1 and c.locator["first_word"]["page"] == para.page_idx + 1
    assert "mineru" not in c.locator


def test_a_quote_across_a_page_break_has_boxes_on_both_pages(contract):
    body = [e for e in contract.elements if e.text and not is_noise(e)]
    a, b = next((a, b) for a, b in zip(body, body[1:]) if b.page_idx == a.page_idx + 1)
    quote = " ".join(a.text.split()[-6:] + b.text.split()[:6])
    c = cite(contract, quote)
    assert c.kind in ("exact", "normalised") and c.pages == (a.page_idx + 1, b.page_idx + 1)
    assert words_under(contract, c.boxes) == quote.split()


def test_other_spacing_case_and_a_chunk_searched_first(contract):
    phrase = "the Supplier shall"
    places = [m.start() for m in re.finditer(re.escape(phrase), contract.text, re.IGNORECASE)]
    assert len(places) >= 3
    c = cite(contract, "THE   supplier\nSHALL")
    assert c.kind == "normalised" and c.start == places[0]
    chunks = cb.chunk(contract, "elements")
    inside = next(ch for ch in chunks if ch.start_char > places[1] and phrase in ch.text.lower().replace("supplier", "Supplier"))
    c = cite(contract, phrase, within=inside)
    assert c.in_chunk and inside.start_char <= c.start < c.end <= inside.end_char and c.within == inside.index
    elsewhere = next(ch for ch in chunks if phrase not in normalise(ch.text) and ch.start_char is not None)
    c = cite(contract, phrase, within=elsewhere)
    assert c.in_chunk is False and c.start == contract.text.index(phrase)  # exact before normalised


def test_a_quote_found_in_part_says_which_part(contract):
    para = next(e for e in contract.elements if e.type == "paragraph" and len(e.text) > 300)
    words = para.text.split()
    quote = " ".join(words[:14] + ["thirteen", "orange", "zeppelins", "quietly", "landed"] + words[14:18])
    c = cite(contract, quote)
    assert c.kind in ("fuzzy", "partial") and c.found and 0.2 <= c.share < 1
    assert c.found_part == " ".join(words[:14])
    assert para.char_start <= c.start < para.char_end


@pytest.mark.parametrize("quote, problem", [("", "empty"), ("  ...  ", "empty"), ("xyzzy plugh quux frobnicate", "not found")])
def test_what_cannot_be_cited_says_why(contract, quote, problem):
    c = cite(contract, quote)
    assert not c.found and c.kind == "unlocated" and problem in c.problem and c.boxes == ()


def test_a_quote_longer_than_the_document(contract):
    c = cite(contract, contract.text + " " + contract.text)
    assert not c.found and "longer than the document" in c.problem


def test_a_document_keeps_its_locator_and_drops_it_with_itself(monkeypatch):
    """Quotes after the first cost a search, not a pass over the text: the Locator is built once per
    Document and kept with it (no module-level cache), and it goes when the Document does."""
    import gc
    import weakref

    import chunkbench.foreign.cite as cite_module

    built: list[weakref.ref] = []
    real = cite_module.Locator

    def counting(*args, **kwargs):
        made = real(*args, **kwargs)
        built.append(weakref.ref(made))
        return made

    monkeypatch.setattr(cite_module, "Locator", counting)
    doc = cb.load(CONTRACT)
    for quote in ("THIS AGREEMENT is made between", "a company incorporated in England", "THIS AGREEMENT is made between"):
        assert cite(doc, quote).kind == "exact"
    assert len(built) == 1
    again = cb.load(CONTRACT)  # another Document of the same file: its own Locator
    cite(again, "a company incorporated in England")
    assert len(built) == 2 and built[0]() is not None
    del doc
    gc.collect()
    assert built[0]() is None and built[1]() is not None


def test_the_cli_prints_writes_and_refuses_with_one_line(tmp_path, capsys):
    out = tmp_path / "cite.json"
    assert main(["cite", str(CONTRACT), "set out, as a minimum, the scope of the Services", "-o", str(out),
                 "--html", str(tmp_path / "html")]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("exact: characters ") and "page(s) 2" in printed
    data = json.loads(out.read_text())
    assert data["found"] and data["kind"] == "exact" and data["pages"] == [2] and len(data["boxes"]) == 2
    assert (tmp_path / "html" / "page-002.png").exists() and "<mark>" not in (tmp_path / "html" / "index.html").read_text()
    for quote in ("", "nothing of the sort appears anywhere xyzzy"):
        assert main(["cite", str(CONTRACT), quote, "-o", str(tmp_path / "no.json")]) == 3
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "contract_services_agreement.pdf" in err
    assert not (tmp_path / "no.json").exists()
    assert main(["cite", str(CONTRACT), "the Supplier", "--chunk", "999"]) == 2


def test_the_highlight_is_drawn_on_exactly_the_quoted_lines(contract):
    c = cite(contract, "set out, as a minimum, the scope of the Services")
    page = c.pages[0]
    plain = cb.render_page(contract, None, page=page, dpi=72).to_array().astype(int)
    marked = cb.render_page(contract, None, page=page, dpi=72, cite=c).to_array().astype(int)
    changed = np.argwhere(np.abs(plain - marked).sum(axis=2) > 0)
    assert len(changed) > 200
    ys, xs = changed[:, 0], changed[:, 1]
    inside = np.zeros(len(changed), bool)
    for b in c.boxes:  # 72 dpi: one pixel per point (a pixel of antialiasing around each box)
        inside |= (xs >= b.x0 - 2) & (xs <= b.x1 + 2) & (ys >= b.y0 - 2) & (ys <= b.y1 + 2)
    assert inside.all()


def test_a_text_input_is_cited_without_boxes(tmp_path):
    md = tmp_path / "notes.md"
    md.write_text("# Notes\n\nThe first paragraph says one thing.\n\nThe second says another thing entirely.\n")
    doc = cb.load(md)
    c = cb.cite(doc, "says another thing")
    assert c.kind == "exact" and doc.text[c.start:c.end] == "says another thing" and c.boxes == () and c.pages == ()


@pytest.mark.skipif(not MINERU.exists(), reason="../shared MinerU fixtures not present")
def test_a_mineru_parse_gets_mineru_4_locators():
    doc = cb.load(MINERU)
    e = [x for x in doc.elements if x.type == "paragraph" and len(x.text) > 200][5]
    quote = e.text[60:140]
    c = cite(doc, quote)
    m = re.fullmatch(r"page:(\d+)/block:(\d+)/char:(\d+)", c.locator["mineru"])
    assert m and int(m.group(1)) == e.page_idx + 1 and int(m.group(3)) == 60
    on_page = [x for x in doc.elements if x.page_idx == e.page_idx]
    assert on_page[int(m.group(2)) - 1].id == e.id


@settings(max_examples=examples(40), deadline=None)
@given(st.data())
def test_any_slice_of_the_text_is_cited_where_its_letters_are(data):
    doc = cb.load(CONTRACT)
    start = data.draw(st.integers(0, len(doc.text) - 50))
    end = data.draw(st.integers(start + 30, min(len(doc.text), start + 300)))
    quote = doc.text[start:end]
    c = cite(doc, quote)
    if not c.found:  # a short quote cut inside a word, found nowhere as whole words
        assert len(normalise(quote)) < 20 and "inside a word" in c.problem, quote
        return
    assert c.kind in ("exact", "normalised"), quote
    assert normalise(doc.text[c.start:c.end]) == normalise(quote) or c.spans


def test_chunks_carry_citation_locators_into_chunks_json_and_the_hand_offs(tmp_path, contract):
    from chunkbench.foreign.cite import with_citations
    from chunkbench.io.export import validate_chunks
    from chunkbench.io.handoff import chunk_metadata

    out = tmp_path / "chunks.json"
    assert main(["chunk", str(CONTRACT), "--citations", "-o", str(out)]) == 0
    data = json.loads(out.read_text())
    validate_chunks(data)
    for c in data["chunks"]:
        cit = c["citation"]
        assert cit["page"] == c["page_start"] == cit["first_word"]["page"] and cit["last_word"]["page"] == c["page_end"]
        first = words_under(contract, [cb.types.BBox.from_dict(cit["first_word"])])
        word = next(w for w in c["text"].split() if normalise(w))  # a table chunk opens with its pipes
        assert first and normalise(first[0])[:3] == normalise(word)[:3], (first, c["text"][:30])
    assert cb.load_chunks(out, doc=contract).chunks[0].extra["citation"] == data["chunks"][0]["citation"]
    cs = with_citations(cb.chunk(contract))
    meta = chunk_metadata(cs, cs.chunks[3])
    assert json.loads(meta["citation"]) == cs.chunks[3].extra["citation"]


@pytest.mark.skipif(not MINERU.exists(), reason="../shared MinerU fixtures not present")
def test_chunks_of_a_mineru_parse_carry_its_locator(tmp_path):
    out = tmp_path / "chunks.json"
    assert main(["chunk", str(MINERU), "--citations", "-o", str(out)]) == 0
    doc = cb.load(MINERU)
    for c in json.loads(out.read_text())["chunks"]:
        m = re.fullmatch(r"page:(\d+)/block:(\d+)/char:(\d+)", c["citation"]["mineru"])
        page, block, char = map(int, m.groups())
        on_page = [e for e in doc.elements if e.page_idx == page - 1]
        assert normalise(c["text"]).startswith(normalise(on_page[block - 1].text[char:])[:20])


@pytest.mark.parametrize("quote, found", [("(ab)", None), ("ab", None), ("ployment", None), ("Deployment", "Deployment"),
                                          ("eployment guide describes how to", "eployment guide describes how to")])
def test_a_short_quote_is_found_as_whole_words_or_said_to_be_inside_one(tmp_path, quote, found):
    """`cite "(ab)"` was "found" inside "about": letters and digits are compared, so a short quote
    matched the middle of a word. A quote of fewer than 20 letters and digits is found where it
    stands as whole words (the first such place), else not found, the problem naming the word;
    a longer one may be cut inside its first or last word (a copy's slip)."""
    path = tmp_path / "guide.md"
    path.write_text("# Deployment guide\n\nThe deployment guide describes how to install about two tabs.\n\n"
                    "Say ab at the end.\n")
    doc = cb.load(path)
    c = cite(doc, quote)
    if quote in ("(ab)", "ab"):  # "about" first, then "ab" as a word of its own
        assert c.found and doc.text[c.start:c.end] == "ab" and doc.text[c.start - 4:c.start] == "Say "
    elif found is None:
        assert not c.found and "found only inside a word ('Deployment'" in c.problem
    else:
        assert c.found and doc.text[c.start:c.end] == found
    doc2 = cb.load(_write(tmp_path / "no_ab.md", "Read about it.\n"))
    c2 = cite(doc2, "(ab)")
    assert not c2.found and "found only inside a word ('about' at characters 5-7)" in c2.problem


def _write(path, text):
    path.write_text(text)
    return path
