"""The chunks people already have. Chunks that LangChain and LlamaIndex really make, from
PyMuPDF's and pypdf's own text of the sample PDFs, located in chunkbench's Documents, with inferred
boundary reasons, through the Python API and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.errors import InputError
from chunkbench.foreign import KINDS, match_counts, match_summary
from chunkbench.foreign.extract import pdf_page_texts, pdf_plain_text
from chunkbench.foreign.locate import locate_all, normalise
from chunkbench.io.export import validate_chunks
from tests.support.documents import make_doc
from tests.support.extras import examples
from tests.support.paths import ROOT, SAMPLE_PDFS

SAMPLES = sorted(SAMPLE_PDFS.glob("*.pdf"))
CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"


@pytest.fixture(scope="module")
def docs():
    return {p.name: cb.load(p) for p in SAMPLES}


def pymupdf_text(path) -> str:
    return pdf_plain_text(path, "pymupdf")


def pypdf_text(path) -> str:
    return pdf_plain_text(path, "pypdf")


def langchain_chunks(text: str, size: int):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=size // 10,
                                          add_start_index=True).create_documents([text])


@pytest.mark.parametrize("extract", [pymupdf_text, pypdf_text], ids=["pymupdf", "pypdf"])
@pytest.mark.parametrize("size", [200, 500, 1000])
def test_langchain_chunks_of_another_extraction_are_located(docs, extract, size):
    """Every chunk LangChain makes of PyMuPDF's or pypdf's text is found, nearly all exactly or
    normalised; each keeps its own text and lands on the pages its words are on."""
    counts = dict.fromkeys(KINDS, 0)
    for path in SAMPLES:
        doc = docs[path.name]
        lc = langchain_chunks(extract(path), size)
        cs = cb.inspect(doc, lc, name="langchain:RecursiveCharacterTextSplitter", params={"chunk_size": size})
        assert [c.text for c in cs] == [d.page_content for d in lc]
        assert [c.extra["foreign_start_index"] for c in cs] == [d.metadata["start_index"] for d in lc]
        for c in cs:
            if c.extra["match"] in ("exact", "normalised"):
                assert normalise(c.text) in normalise(doc.text[c.start_char:c.end_char]) or c.extra["match"] == "normalised"
                assert c.page_start is not None and c.source_blocks
        for k, v in match_counts(cs).items():
            counts[k] += v
    total = sum(counts.values())
    assert counts["unlocated"] == 0, counts
    assert (counts["exact"] + counts["normalised"]) / total >= 0.99, counts


def test_a_chunk_ending_in_a_page_number_inside_a_paragraph_continued_on_the_next_page():
    """PyMuPDF's text has a page's number after its last line; the Document reads the paragraph
    on into the next column (loaders.paragraphs) and puts the number after it. A one-digit
    number is too short to take out of every chunk, so it is tried out where it sits."""
    from tests.support.paths import shared_pdf

    path = shared_pdf("paper_hotos17-baumann.pdf")
    doc = cb.load(path)
    ended = [d for d in langchain_chunks(pymupdf_text(path), 200) if d.page_content.endswith("page ac-\n2")]
    assert len(ended) == 1 and "page access rights" in doc.text  # one paragraph in the Document
    (c,) = cb.inspect(doc, ended)
    assert c.extra["match"] == "normalised"
    assert doc.text[c.start_char:c.end_char].endswith("changes to page ac")
    cs = cb.inspect(doc, langchain_chunks(pymupdf_text(path), 200))
    assert match_counts(cs)["exact"] + match_counts(cs)["normalised"] >= len(cs) - 2  # two: a figure's labels


def _page_of(starts: list[int], offset: int) -> int:
    """1-based page of a character offset into pages joined by one line break."""
    import bisect

    return bisect.bisect_right(starts, offset)


@pytest.mark.parametrize("engine", ["pymupdf", "pypdf"])
def test_chunks_found_in_pieces_are_on_the_pages_their_text_is_on(docs, engine):
    """A chunk another extraction read in another order (a header printed after the body, table
    cells, columns) is found in pieces: each such chunk lands on the pages where the other
    extraction has its text, and its boundary says so."""
    seen = 0
    for path in SAMPLES:
        pages = pdf_page_texts(path, engine)
        starts = [sum(len(t) + 1 for t in pages[:i]) for i in range(len(pages))]
        for size in (200, 500, 1000):
            lc = langchain_chunks("\n".join(pages), size)
            for c, d in zip(cb.inspect(docs[path.name], lc), lc):
                if not c.extra.get("match_pieces"):
                    continue
                seen += 1
                first = _page_of(starts, d.metadata["start_index"])
                last = _page_of(starts, d.metadata["start_index"] + len(d.page_content) - 1)
                assert c.extra["match"] == "normalised" and c.page_start is not None
                assert c.page_start <= last and c.page_end >= first, (path.name, size, c.text[:80])
                assert f"found in {len(c.extra['match_pieces'])} pieces" in c.boundary.detail
    assert seen >= 10  # the samples have such chunks: running headers, table cells


def test_two_paragraphs_in_the_other_order_are_found_in_two_pieces(docs):
    doc = docs[CONTRACT.name]
    body = [e for e in doc.elements if e.type == "paragraph" and len(e.text) > 80]
    a, b = body[3], body[4]
    cs = cb.inspect(doc, [b.text + "\n" + a.text])
    c = cs[0]
    assert c.extra["match"] == "normalised" and len(c.extra["match_pieces"]) == 2
    # each piece is the longest run found, so b's piece may run on into the element after it
    # while that begins as a does; a and b are in it, a's piece is the end of the chunk
    assert {a.id, b.id} <= set(c.source_blocks) and len(c.source_blocks) <= 3
    # pieces start and end at letters and digits (b opens with a quote, a ends with a full stop)
    (b0, b1), (a0, a1) = c.extra["match_pieces"]
    assert b.char_start <= b0 < b.char_start + 3 and b1 >= b.char_end - 2  # the chunk begins with b
    assert a.char_start <= a0 < a.char_start + 8 and a.char_end - 3 <= a1 <= a.char_end
    assert c.start_char == a0 and c.end_char == b1


def test_the_same_words_in_another_order_are_not_found_as_normalised(docs):
    import random

    doc = docs[CONTRACT.name]
    words = sorted({w for w in doc.text.split() if w.isalpha() and len(w) >= 5})
    random.Random(7).shuffle(words)
    cs = cb.inspect(doc, [" ".join(words[:40])])
    assert cs[0].extra["match"] not in ("exact", "normalised")


def test_a_chunk_of_megabytes_costs_no_more_than_its_reading(docs):
    """A 2 MB chunk of the document's own words in random order took a search per piece it was cut
    into (12 MB ran past three minutes): beyond twice the document it is unlocated at once, and
    beyond PIECES_MAX it is not taken apart; the document's own text as one chunk is still exact."""
    import random

    from chunkbench.foreign.locate import PIECES_MAX

    doc = docs[CONTRACT.name]
    words = doc.text.split()
    rnd = random.Random(3)
    huge = " ".join(rnd.choice(words) for _ in range(300_000))
    long = " ".join(rnd.choice(words) for _ in range(PIECES_MAX // 4))
    assert len(huge) > 2 * len(doc.text) + 20_000 and PIECES_MAX < len(normalise(long)) < 2 * len(doc.text)
    junk, shuffled, whole = cb.inspect(doc, [huge, long, doc.text])
    assert junk.extra["match"] == "unlocated" and shuffled.extra["match"] in ("fuzzy", "partial", "unlocated")
    assert whole.extra["match"] == "exact" and (whole.start_char, whole.end_char) == (0, len(doc.text))


def test_a_chunk_of_running_headers_and_footers_alone_is_placed_at_them(docs):
    """PyMuPDF reads the contract's page 3 footer and page 4 header as one chunk of their own."""
    doc = docs[CONTRACT.name]
    text = ("Master Services Agreement MSA-2025-014\nConfidential\n"
            "Pellmore Freight Holdings plc / Ashgrove Analytics Limited\nPage 3 of 6")
    before = [e for e in doc.elements if e.page_idx == 2 and e.type not in ("header", "footer", "page_number")][-1]
    c = cb.inspect(doc, [before.text, text])[1]  # the chunk before it: the end of page 3's body
    by_id = {e.id: e for e in doc.elements}
    assert c.extra["match"] == "normalised" and c.source_blocks
    assert all(by_id[i].type in ("header", "footer", "page_number") for i in c.source_blocks)
    assert {by_id[i].page_idx for i in c.source_blocks} <= {2, 3}


def test_chunks_of_the_canonical_text_are_exact_and_keep_their_offsets(docs):
    """LangChain's start_index into our own text is exactly where each chunk is found."""
    doc = docs[CONTRACT.name]
    lc = langchain_chunks(doc.text, 400)
    cs = cb.inspect(doc, lc)
    assert match_counts(cs) == {"exact": len(lc), "normalised": 0, "referenced": 0, "fuzzy": 0, "partial": 0, "unlocated": 0}
    for c, d in zip(cs, lc):
        assert c.start_char == d.metadata["start_index"] and doc.text[c.start_char:c.end_char] == d.page_content


def test_boundaries_in_a_document_without_pages_say_in_the_text():
    """A Markdown file has no pages: the inferred boundary says where a chunk starts "in the text"."""
    doc = cb.load(ROOT / "tests" / "data" / "retrieval" / "sqlite_how_to_corrupt.md")
    cs = cb.inspect(doc, langchain_chunks(doc.text, 400), name="langchain")
    details = [c.boundary.detail for c in cs]
    assert all(c.page_start is None for c in cs) and len(cs) > 20
    assert sum(d.endswith(" in the text") for d in details) > len(cs) // 2, details[:5]
    assert not any(" on the text" in d or " on p. " in d for d in details)


def test_llama_index_nodes_and_plain_values(docs):
    from llama_index.core import Document as LlamaDocument
    from llama_index.core.node_parser import SentenceSplitter

    doc = docs[CONTRACT.name]
    text = pymupdf_text(CONTRACT)
    nodes = SentenceSplitter(chunk_size=256, chunk_overlap=20).get_nodes_from_documents([LlamaDocument(text=text)])
    cs = cb.inspect(doc, nodes, name="llamaindex:SentenceSplitter")
    assert len(cs) == len(nodes) and match_counts(cs)["unlocated"] == 0
    assert [c.extra["foreign_start_index"] for c in cs] == [n.start_char_idx for n in nodes]
    plain = cb.inspect(doc, [n.get_content() for n in nodes])  # the same as strings
    assert [c.start_char for c in plain] == [c.start_char for c in cs]
    dicts = cb.inspect(doc, [{"text": n.get_content(), "metadata": {"n": i}} for i, n in enumerate(nodes)])
    assert [c.extra["foreign_metadata"] for c in dicts] == [{"n": i} for i in range(len(nodes))]


def test_inspected_chunks_are_an_ordinary_chunkset(docs, tmp_path):
    """chunks.json (schema-valid, deterministic), chunk_debug.md, an overlay and the diff all work."""
    doc = docs[CONTRACT.name]
    cs = cb.inspect(doc, langchain_chunks(pymupdf_text(CONTRACT), 500), name="langchain")
    stamp = "2026-01-01T00:00:00Z"
    data = cs.to_dict(chunked_at=stamp)
    validate_chunks(data)
    assert cb.inspect(doc, langchain_chunks(pymupdf_text(CONTRACT), 500), name="langchain").to_dict(chunked_at=stamp) == data
    assert cs.to_debug_markdown().count("\n## Chunk ") == len(cs)
    image = cb.render_page(doc, cs, page=2, dpi=50)
    assert any(r.kind == "chunk" for r in image.regions)
    diff = cb.diff(doc, cs, cb.chunk(doc, "elements"))
    assert diff is not None


def _reason_doc():
    return make_doc([
        {"type": "heading", "text": "1. Scope", "text_level": 1, "page_idx": 0},
        {"type": "paragraph", "text": "The supplier shall deliver the goods. Payment is due in thirty days.", "page_idx": 0},
        {"type": "table", "text": "| item | price |\n| bolts | 10 |\n| nuts | 5 |", "page_idx": 0},
        {"type": "paragraph", "text": "Termination requires written notice to the other party.", "page_idx": 1},
    ])


@pytest.mark.parametrize("chunks,reasons", [
    (["1. Scope", "The supplier shall"], ["document_start", "paragraph_split"]),
    (["1. Scope The supplier", "shall deliver the goods."], ["document_start", "mid_sentence"]),
    # the heading above in no chunk's text (as Docling carries it, in metadata): the cut is at that heading
    (["The supplier shall deliver the goods.", "Payment is due in thirty days."], ["heading", "sentence_split"]),
    (["The supplier shall deliv", "er the goods."], ["heading", "mid_word"]),
    (["| item | price |", "| bolts | 10 |"], ["table", "table_row_split"]),
    (["thirty days.", "Termination requires"], ["mid_sentence", "page_break"]),
    (["1. Scope", "zebra quantum harmonica nowhere in it"], ["document_start", "unlocated"]),
])
def test_inferred_reasons(chunks, reasons):
    cs = cb.inspect(_reason_doc(), chunks)
    assert [c.boundary.reason.value for c in cs] == reasons, [c.boundary.detail for c in cs]
    assert all(c.boundary.detail for c in cs)


def test_a_mid_sentence_cut_in_a_table_row_says_so():
    cs = cb.inspect(_reason_doc(), ["| item | price |\n| bol", "ts | 10 |"])
    assert cs[1].boundary.reason.value == "mid_word" and "inside a table row on p. 1" in cs[1].boundary.detail


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=12), st.integers(0, 40))
def test_slices_of_the_text_are_found_where_they_are(cuts, overlap):
    """Property: chunks cut anywhere from the canonical text (overlapping) are found exactly, in
    order, each where it was cut from, or at an earlier copy of the same text."""
    doc = _reason_doc()
    text = doc.text
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    spans = [(max(0, a - overlap), b) for a, b in zip(points, points[1:]) if text[a:b].strip()]
    chunks = [text[a:b] for a, b in spans]
    matches = locate_all(text, chunks)
    for (a, _b), chunk, m in zip(spans, chunks, matches):
        assert m.kind == "exact"
        assert text[m.start:m.end] == chunk.strip()
        assert m.start <= a + (len(chunk) - len(chunk.lstrip())) or text.find(chunk.strip()) == m.start


# ------------------------------------------------------------------ the command line


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "chunkbench", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=180)


def test_cli_chunks_file_with_counts_and_warnings(tmp_path):
    lc = langchain_chunks(pymupdf_text(CONTRACT), 500)
    rows = [{"page_content": d.page_content, "metadata": d.metadata} for d in lc] + [{"text": "zebra quantum harmonica"}]
    (tmp_path / "chunks.jsonl").write_text("\n".join(json.dumps(r) for r in rows), "utf-8")
    out = tmp_path / "out.json"
    r = run_cli("chunk", CONTRACT, "--chunks", tmp_path / "chunks.jsonl", "--chunker", "langchain", "-o", out)
    assert r.returncode == 0, r.stderr
    assert f"located {len(lc)} of {len(rows)} chunks" in r.stderr and "1 not at all" in r.stderr
    assert f"chunk {len(lc)} not found: 'zebra quantum harmonica'" in r.stderr
    data = json.loads(out.read_text())
    assert data["chunking"]["strategy"] == "langchain" and len(data["chunks"]) == len(rows)
    assert data["chunks"][-1]["boundary"]["reason"] == "unlocated" and data["chunks"][-1]["page_start"] is None
    assert "mid_sentence" in run_cli("stats", out).stdout


def test_render_diff_and_review_take_a_chunks_file(tmp_path, capsys):
    """`--chunks FILE` reaches every command that shows chunks: render draws LangChain's real chunks,
    diff compares them with a strategy (a FILE on either side), review exports their verdicts."""
    from chunkbench.ui.cli import main

    lc = langchain_chunks(pymupdf_text(CONTRACT), 500)
    file = tmp_path / "lc.jsonl"
    file.write_text("\n".join(json.dumps({"page_content": d.page_content}) for d in lc), "utf-8")
    assert main(["render", str(CONTRACT), "--chunks", str(file), "--chunker", "langchain", "--pages", "1",
                 "-o", str(tmp_path / "r")]) == 0
    page = (tmp_path / "r" / "index.html").read_text("utf-8")
    assert f"({len(lc)} chunks" in capsys.readouterr().out and "langchain" in page
    assert main(["diff", str(CONTRACT), "--a", str(file), "--b", "strategy=elements", "-o", str(tmp_path / "d")]) == 0
    rows = (tmp_path / "d" / "diff.csv").read_text("utf-8").splitlines()
    assert len(rows) > 1 and "lc.jsonl" in (tmp_path / "d" / "index.html").read_text("utf-8")
    assert main(["review", str(CONTRACT), "--chunks", str(file), "--export", str(tmp_path / "v.csv"),
                 "--workspace", str(tmp_path / "ws.db")]) == 0
    assert (tmp_path / "v.csv").read_text("utf-8").startswith("doc_id,")
    missing = tmp_path / "nope.jsonl"
    assert main(["render", str(CONTRACT), "--chunks", str(missing), "-o", str(tmp_path / "r2")]) == 3
    assert "nope.jsonl" in capsys.readouterr().err and not (tmp_path / "r2").exists()


@pytest.mark.parametrize("content,message", [
    ("this is not json {", "neither JSON nor JSON Lines (line 1 is not JSON)"),
    ('[{"metadata": {}}]', "chunk 0 has no text"),
    ("[]", "the file holds no chunks"),
    ('{"a": 1}', "expected a JSON list of chunks, got dict"),
    ('["zebra quantum harmonica nowhere"]', "none of the 1 chunks was found in contract_services_agreement.pdf"),
])
def test_cli_bad_chunk_files_exit_3_with_one_line_and_write_nothing(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content, "utf-8")
    out = tmp_path / "out.json"
    r = run_cli("chunk", CONTRACT, "--chunks", bad, "-o", out)
    assert r.returncode == 3, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and "bad.json" in lines[0] and "Traceback" not in r.stderr
    assert not out.exists() and not list(tmp_path.glob(".out.json*"))


def test_python_errors_name_the_problem():
    with pytest.raises(InputError, match="chunk 1 has no text"):
        cb.inspect(_reason_doc(), ["1. Scope", 42])
    with pytest.raises(InputError, match="no chunks were given"):
        cb.inspect(_reason_doc(), [])


def test_summary_line():
    cs = cb.inspect(_reason_doc(), ["1. Scope", "The  supplier\nshall", "zebra quantum harmonica nowhere"])
    assert match_summary(cs) == "located 2 of 3 chunks: 1 exactly, 1 normalised, 0 fuzzily; 1 not at all"


def test_a_chunk_naming_its_items_is_placed_where_it_reaches_them_all():
    """The tail of a split paragraph joined to the next item, in repetitive text: the first place
    its text occurs in the items' span lies in the paragraph alone; the place that reaches into
    the last item named is the chunk (found by `make fuzz`)."""
    text = "ab ab ab ab\n\nab"
    paragraph, last = (0, 11), (13, 15)
    [m] = locate_all(text, ["ab\nab"], items=[[paragraph, last]])
    assert (m.start, m.end, m.kind) == (9, 15, "normalised")
    [m] = locate_all(text, ["ab\n\nab"], items=[[paragraph, last]])
    assert (m.start, m.end, m.kind) == (9, 15, "exact")
    # where no place reaches them all, the first in the span is still taken
    [m] = locate_all(text, ["ab ab"], items=[[paragraph, last]])
    assert (m.start, m.end) == (0, 5)


def test_a_chunk_taking_in_all_of_the_previous_one_begins_where_it_began():
    """An overlap as long as the previous chunk: the next chunk starts at the same place, and is
    found there exactly (found by `make fuzz`: before, only after that place, so normalised)."""
    text = _reason_doc().text
    first, second = locate_all(text, [text[0:1], text[0:184]])
    assert (first.start, second.start, second.end, second.kind) == (0, 0, len(text[0:184].rstrip()), "exact")
    # a repeat of the same chunk is the next copy of its text, not the same place again
    assert [m.start for m in locate_all("Page 3\n\nbody\n\nPage 3", ["Page 3", "Page 3"])] == [0, 14]


def test_items_apart_may_begin_and_end_inside_their_first_and_last_item():
    """merge_peers may join the tail of a paragraph split between chunks to the head of another:
    the pieces start and end where the chunk's text does (found by `make fuzz`)."""
    text = "Notes\n\nAlpha beta.\n\nNotes\n\nGamma delta epsilon."
    first, last = (7, 18), (27, 47)
    [m] = locate_all(text, ["beta.\nGamma delta"], items=[[first, last]])
    assert m.items_apart and m.pieces == ((13, 18), (27, 38)) and (m.start, m.end) == (13, 38)
    [m] = locate_all(text, ["Alpha beta.\nGamma delta epsilon."], items=[[first, last]])
    assert m.pieces == (first, last)
    # text that is not the items' (the heading between them) is no match in pieces
    [m] = locate_all(text, ["beta.\nNotes\nGamma"], items=[[first, last]])
    assert not m.items_apart


def test_a_named_item_of_no_letters_or_digits_is_taken_in_at_the_ends():
    """An emoji or a rule as an item of its own has nothing to find normalised: the chunk that
    names it reaches over it when nothing but whitespace lies between (found by `make fuzz`)."""
    text = "Alpha beta.\n\n😀\n\nGamma"
    [m] = locate_all(text, ["Alpha beta.\n😀"], items=[[(0, 11), (13, 14)]])
    assert (m.start, m.end, m.kind) == (0, 14, "normalised")
    [m] = locate_all(text, ["😀\nGamma"], items=[[(13, 14), (16, 21)]])
    assert (m.start, m.end) == (13, 21)


def test_a_chunk_placed_by_some_of_its_words_gets_no_cut_reason_from_that_place(docs):
    """A chunk found fuzzily or in part (another extraction's words, a running header and a table
    header run into it) was given the cut reason of wherever it landed: "mid_word (mo|unt)", or
    "overlaps the previous chunk by 1577 chars" for a 478-character chunk. Its place is uncertain,
    and that is what it says; exact and normalised chunks keep their inferred reasons."""
    doc = docs[CONTRACT.name]
    paragraph = next(e for e in doc.elements if e.type == "paragraph" and len(e.text) > 300)
    words = paragraph.text.split()
    garbled = " ".join(w if i % 5 else w[::-1] for i, w in enumerate(words))  # every fifth word unreadable
    exact = paragraph.text[len(paragraph.text) // 3:]
    cs = cb.inspect(doc, [exact, garbled])
    assert cs[0].extra["match"] in ("exact", "normalised") and cs[0].boundary.reason.value != "uncertain_place"
    uncertain = cs[1]
    assert uncertain.extra["match"] in ("fuzzy", "partial"), uncertain.extra["match"]
    assert uncertain.boundary.reason.value == "uncertain_place"
    assert "no cut reason is read from an uncertain place" in uncertain.boundary.detail
    assert f"near p. {paragraph.page_idx + 1}" in uncertain.boundary.detail and "overlaps" not in uncertain.boundary.detail
    validate_chunks(cs.to_dict())  # the code is in the chunks.json schema
