"""The static HTML report: files written, chunks listed per page, every document string escaped."""

from __future__ import annotations

import re

import pytest

import chunkbench as cb
from chunkbench.errors import UsageError
from chunkbench.ui.cli import main
from chunkbench.ui.report import parse_pages, write_report
from tests.support.builders import hand_chunks
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS

MANUAL = SAMPLE_PDFS / "technical_manual.pdf"
EVIL = ["<script>alert(1)</script>", '<img src=x onerror="alert(2)">']


def assert_escaped(html: str) -> None:
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in html
    # self-contained: no external URL is loaded
    assert not re.search(r'(src|href)="(https?:)?//', html)


def test_report_for_a_pdf_lists_each_pages_chunks(tmp_path):
    doc = cb.load(MANUAL)
    chunks = cb.chunk(doc, "elements")
    index = write_report(doc, chunks, tmp_path / "out", pages=[1, 2])
    assert index == tmp_path / "out" / "index.html"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["index.html", "page-001.png", "page-002.png"]
    html = index.read_text()
    for page in (1, 2):
        on_page = [c for c in chunks if c.page_start <= page <= c.page_end]
        for c in on_page:
            assert f'id="p{page}-c{c.index}"' in html
            assert f'href="#p{page}-c{c.index}"' in html  # its regions on the image link to the card
        assert f'src="page-{page:03d}.png"' in html
    c = chunks[1]
    assert c.boundary.detail.replace("'", "&#x27;") in html and "<details>" in html and "heading" in html
    assert not list((tmp_path / "out").glob(".*.tmp"))


def test_report_escapes_document_text_in_pdf_and_text_views(tmp_path, monkeypatch):
    doc = cb.load(MANUAL)
    # a document whose element texts carry markup: same PDF, texts replaced
    import dataclasses

    from chunkbench.types.document import with_offsets

    els = list(doc.elements)
    for k, i in enumerate((6, 8)):
        els[i] = dataclasses.replace(els[i], text=EVIL[k] + " " + els[i].text)
    evil_doc = dataclasses.replace(doc, elements=with_offsets(els), source=EVIL[0] + ".pdf")
    chunks = cb.chunk(evil_doc, "elements")
    html = write_report(evil_doc, chunks, tmp_path / "pdf", pages=[1]).read_text()
    assert_escaped(html)
    md_doc = make_doc([{"type": "heading", "text": EVIL[0], "text_level": 1}, {"type": "paragraph", "text": EVIL[1]}],
                      source=EVIL[1] + ".md")
    md_chunks = hand_chunks(md_doc, [(0, len(md_doc.text))])
    html = write_report(md_doc, md_chunks, tmp_path / "md").read_text()
    assert_escaped(html)
    assert "cbtv-row" in html and not list((tmp_path / "md").glob("*.png"))


def test_parse_pages():
    assert parse_pages("1-3", 5) == [1, 2, 3]
    assert parse_pages("2,4-5,4", 5) == [2, 4, 5]
    assert parse_pages(None, 3) == [1, 2, 3] and parse_pages("all", 2) == [1, 2]
    for bad in ("0-2", "3-9", "x", "4-2"):
        with pytest.raises(UsageError):
            parse_pages(bad, 5)


def test_cli_render(tmp_path, capsys):
    out = tmp_path / "report"
    code = main(["render", str(MANUAL), "--strategy", "tokens", "--set", "chunk_size=200", "--pages", "2-3",
                 "--dpi", "60", "-o", str(out)])
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "page-002.png", "page-003.png"]
    assert "wrote" in capsys.readouterr().out
    assert main(["render", str(MANUAL), "--pages", "9", "-o", str(tmp_path / "x")]) == 2
    assert main(["render", str(MANUAL), "--show", "chunks,sparkles", "-o", str(tmp_path / "y")]) == 2
    assert "sparkles" in capsys.readouterr().err


def test_cli_render_markdown_uses_text_view(tmp_path):
    md = tmp_path / "doc.md"
    md.write_text("# Title <b>bold</b>\n\nSome text & more.\n\n## Part 2\n\nMore text.\n")
    out = tmp_path / "r"
    assert main(["render", str(md), "--no-cache", "-o", str(out)]) == 0
    html = (out / "index.html").read_text()
    assert "Title &lt;b&gt;bold&lt;/b&gt;" in html and "&amp; more" in html and "cbtv-row" in html


def test_cli_render_with_a_second_parser_layer(tmp_path):
    from tests.support.paths import mineru_fixture

    folder = mineru_fixture("naacl-long-122")
    out = tmp_path / "cmp"
    assert main(["render", str(folder / "naacl-long-122.pdf"), "--pages", "2",
                 "--elements-of", str(folder / "naacl-long-122_content_list.json"), "-o", str(out)]) == 0
    html = (out / "index.html").read_text()
    assert 'src="page-002.png"' in html
    # the comparison layer is drawn: the page differs from the same report without it
    plain = tmp_path / "plain"
    assert main(["render", str(folder / "naacl-long-122.pdf"), "--pages", "2", "-o", str(plain)]) == 0
    assert (out / "page-002.png").read_bytes() != (plain / "page-002.png").read_bytes()
