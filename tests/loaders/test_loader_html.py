"""HTML loader: the blocks a reader sees, chrome left out, admonitions and footnotes told apart, a
folder of pages in its rel=next order (never outside it), real Texinfo, Sphinx, DocBook-XSL and
pandoc output, and hostile inputs refused in one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import chunkbench
from chunkbench.loaders.htmldoc import html_table_rows, load_html
from chunkbench.ui.cli import main as cli
from tests.support.paths import TEST_DATA, twin_pair

HTML_DATA = TEST_DATA / "html"


def page(tmp_path: Path, body: str, name: str = "doc.html", head: str = "") -> Path:
    path = tmp_path / name
    path.write_text(f"<!DOCTYPE html><html><head><title>t</title>{head}</head><body>{body}</body></html>", "utf-8")
    return path


def kinds(doc) -> list[tuple[str, str]]:
    return [(e.type, e.text) for e in doc.elements]


def test_blocks_in_reading_order_with_levels_items_rows_and_code(tmp_path):
    doc = load_html(page(tmp_path, """
        <h1>Guide</h1><p>Intro <em>text</em> with <code>read.table</code>, inline.</p>
        <h2>1 Setup</h2><p>You need the following:</p>
        <ul><li>a <b>compiler</b></li><li>make<ul><li>GNU make</li></ul></li></ul>
        <pre>  indented
    code</pre>
        <table><caption>Table 1: flags</caption><thead><tr><th>Flag</th><th>Meaning</th></tr></thead>
          <tbody><tr><td rowspan="2">--x</td><td>one</td></tr><tr><td>two</td></tr>
          <tr><td colspan="2">wide</td></tr></tbody></table>
        <div>bare text in a div <a href="#">with a link</a><p>then a paragraph</p>and a tail</div>"""))
    assert kinds(doc) == [
        ("heading", "Guide"), ("paragraph", "Intro text with read.table, inline."), ("heading", "1 Setup"),
        ("paragraph", "You need the following:"), ("list", "a compiler\nmake\nGNU make"),
        ("code", "  indented\n    code"), ("caption", "Table 1: flags"),
        ("table", "| Flag | Meaning |\n|---|---|\n| --x | one |\n|  | two |\n| wide |  |"),
        ("paragraph", "bare text in a div with a link"), ("paragraph", "then a paragraph"), ("paragraph", "and a tail"),
    ]
    heads = [e for e in doc.elements if e.type == "heading"]
    assert [h.text_level for h in heads] == [1, 2]
    lst = next(e for e in doc.elements if e.type == "list")
    assert [b["text"] for b in lst.blocks] == ["a compiler", "make\nGNU make"]
    table = next(e for e in doc.elements if e.type == "table")
    assert table.rows == (("Flag", "Meaning"), ("--x", "one"), ("", "two"), ("wide", "")) and table.attrs["header_rows"] == 1
    assert doc.pages == () and all(e.page_idx is None and e.bbox is None for e in doc.elements)
    assert doc.parser.name == "html" and doc.text == "\n\n".join(e.text for e in doc.elements)


def test_chrome_is_left_out(tmp_path):
    """Navigation, tables of contents, sidebars, scripts, permalink signs, index bars and legal notices
    are not the document: nothing of theirs reaches the text."""
    doc = load_html(page(tmp_path, """
        <div class="header"><p>Next: <a href="#a">Intro</a> [Contents][Index]</p></div>
        <nav id="TOC"><ul><li><a href="#a">1 Intro</a></li></ul></nav>
        <div class="sphinxsidebar"><h3>Navigation</h3><p>sidebar</p></div>
        <div class="contents"><ul><li>local toc</li></ul></div>
        <div class="toctree-wrapper"><ul><li class="toctree-l1"><a>Chapter</a></li></ul>
          <section><h2>Kept<a class="headerlink" href="#k">¶</a></h2><p>Body text.</p></section></div>
        <script>var secret = 1;</script><style>p {color: red}</style>
        <table summary=""><tr><th>Jump to:</th><td><a class="summary-letter" href="#x"><b>A</b></a></td></tr></table>
        <table class="index-cp"><tr><td>entry</td><td>page</td></tr></table>
        <div class="legalnotice"><p>Legal words.</p></div>
        <div class="navfooter"><table><tr><td>Prev</td><td>Next</td></tr></table></div>"""))
    assert kinds(doc) == [("heading", "Kept"), ("paragraph", "Body text.")]


def test_admonitions_are_flagged_and_their_titles_are_never_headings(tmp_path):
    doc = load_html(page(tmp_path, """
        <h2>Setup</h2>
        <div class="admonition warning"><p class="admonition-title">Warning</p><p>Back up first.</p></div>
        <div class="note" style="margin-left: 0.5in"><table border="0" summary="Note"><tr>
          <td rowspan="2"><img alt="[Note]" src="note.png"/></td><th align="left">Note</th></tr>
          <tr><td><p>DocBook lays notes out as a table.</p></td></tr></table></div>
        <div class="tip"><h3 class="title">Tip</h3><p>A tip with a heading for a title.</p></div>
        <div class="caution"><p>pandoc's fenced div has no title.</p></div>"""))
    assert kinds(doc) == [
        ("heading", "Setup"), ("paragraph", "Warning"), ("paragraph", "Back up first."), ("paragraph", "Note"),
        ("paragraph", "DocBook lays notes out as a table."), ("paragraph", "Tip"),
        ("paragraph", "A tip with a heading for a title."), ("paragraph", "pandoc's fenced div has no title."),
    ]
    flags = [(e.attrs.get("admonition"), bool(e.attrs.get("admonition_title"))) for e in doc.elements[1:]]
    assert flags == [("warning", True), ("warning", False), ("note", True), ("note", False), ("tip", True),
                     ("tip", False), ("caution", False)]


@pytest.mark.parametrize("notes, expected", [
    # Texinfo 6.8: a heading per note inside div.footnote
    ('<div class="footnote"><hr><h4 class="footnotes-heading">Footnotes</h4><h5><a id="FOOT1">(1)</a></h5>'
     '<p>First note.</p><h5><a id="FOOT2">(2)</a></h5><p>Second note.</p></div>', [("1", "First note."), ("2", "Second note.")]),
    # Sphinx (docutils 0.19): a label span in each aside
    ('<aside class="footnote-list brackets"><aside class="footnote brackets" id="id4"><span class="label">'
     '<span class="fn-bracket">[</span>1<span class="fn-bracket">]</span></span><p>Sphinx note.</p></aside></aside>',
     [("1", "Sphinx note.")]),
    # DocBook-XSL: the mark inside the note's paragraph
    ('<div class="footnotes"><hr/><div class="footnote"><p><sup>[<a href="#x" class="para">1</a>] </sup>'
     'DocBook note.</p></div></div>', [("1", "DocBook note.")]),
    # pandoc: an ordered list, with a way back that is chrome
    ('<section class="footnotes footnotes-end-of-document" role="doc-endnotes"><hr /><ol><li id="fn1"><p>pandoc '
     'note.<a href="#fnref1" class="footnote-back" role="doc-backlink">↩︎</a></p></li></ol></section>',
     [("1", "pandoc note.")]),
])
def test_footnotes_of_each_generator_are_one_element_each_with_their_mark(tmp_path, notes, expected):
    doc = load_html(page(tmp_path, f"<p>Text<sup>1</sup>.</p>{notes}"))
    found = [(e.attrs.get("mark"), e.text) for e in doc.elements if e.type == "footnote"]
    assert found == expected
    assert [e.type for e in doc.elements].count("paragraph") == 1


def test_definition_lists_mark_terms_and_their_descriptions(tmp_path):
    doc = load_html(page(tmp_path, """
        <dl><dt>DBI:</dt><dd>David A. James</dd><dt><code>-x</code></dt><dt>--extra</dt>
        <dd><p>First paragraph.</p><pre>code in it</pre></dd><div><dt>wrapped</dt><dd>in a div</dd></div></dl>"""))
    got = [(e.type, e.text, e.attrs.get("definition"), e.attrs.get("term")) for e in doc.elements]
    assert got == [
        ("paragraph", "DBI:", "term", None), ("paragraph", "David A. James", "description", "e0"),
        ("paragraph", "-x", "term", None), ("paragraph", "--extra", "term", None),
        ("paragraph", "First paragraph.", "description", "e3"), ("code", "code in it", "description", "e3"),
        ("paragraph", "wrapped", "term", None), ("paragraph", "in a div", "description", "e6"),
    ]


def test_a_title_written_twice_and_title_page_lines_are_not_two_headings(tmp_path):
    doc = load_html(page(tmp_path, '<h1 class="settitle">Manual</h1><div id="Top"><h1 class="top">Manual</h1></div>'
                                   '<h3 class="author">Ann Author</h3><h2>1 Start</h2><p>Text.</p>'))
    assert kinds(doc) == [("heading", "Manual"), ("paragraph", "Ann Author"), ("heading", "1 Start"),
                          ("paragraph", "Text.")]


def test_html_table_rows_reads_mineru_table_bodies_too():
    """MinerU's table_body is read by the same grid (spans expanded, nested tables joined)."""
    assert html_table_rows("<table><tr><td rowspan=2>A</td><td>B</td></tr><tr><td>C</td></tr></table>") == (
        ("A", "B"), ("", "C"))
    assert html_table_rows("no table here") == ()


def test_a_folder_is_read_along_rel_next_and_never_outside_it(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "outside.html").write_text("<html><body><p>SECRET outside</p></body></html>", "utf-8")
    page(site, '<h1>Start</h1><p>First page.</p>', "index.html", '<link rel="next" href="b.html">')
    page(site, '<h2>B</h2><p>Second page.</p><a rel="next" href="c.html#top">Next</a>', "b.html")
    page(site, '<h2>C</h2><p>Third page.</p>', "c.html", '<link rel="next" href="../outside.html">')
    page(site, '<p>never linked</p>', "orphan.html")
    os.symlink(tmp_path / "outside.html", site / "link.html")
    page(site, '<p>linked out through a symlink</p>', "d.html", '<link rel="next" href="link.html">')
    doc = chunkbench.load(site)
    assert [e.text for e in doc.elements] == ["Start", "First page.", "B", "Second page.", "C", "Third page."]
    assert [e.attrs["file"] for e in doc.elements] == ["index.html"] * 2 + ["b.html"] * 2 + ["c.html"] * 2
    assert doc.parser.options["pages"] == 3
    assert any("not on the rel=next chain" in w for w in doc.warnings)
    assert "SECRET" not in doc.text


def test_a_cycle_of_next_links_ends(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    page(site, "<p>one</p>", "index.html", '<link rel="next" href="two.html">')
    page(site, "<p>two</p>", "two.html", '<link rel="next" href="index.html">')
    assert [e.text for e in chunkbench.load(site).elements] == ["one", "two"]


def test_bad_html_gets_one_line_and_exit_3(tmp_path, capsys, monkeypatch):
    """Nesting deeper than libxml2's 256 levels, no body text, no markup, more than the HTML bound:
    each one line naming the file, exit 3; repaired markup loads with a warning (exit 0)."""
    deep = page(tmp_path, "<div>" * 100_000 + "deep" + "</div>" * 100_000, "deep.html")
    empty = page(tmp_path, "<nav><p>menu only</p></nav><script>x()</script>", "empty.html")
    blank = tmp_path / "blank.html"
    blank.write_bytes(b"   \n")
    big = tmp_path / "big.html"
    with open(big, "wb") as fh:  # 200 MB, sparse: refused by its size before it is read
        fh.truncate(200 * 1024 * 1024)
    for path, problem in [(deep, "nested deeper than 256"), (empty, "no text in the HTML body"),
                          (blank, "not HTML"), (big, "bytes of HTML, above the HTML bound")]:
        assert cli(["parse", str(path)]) == 3
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and str(path) in err[0] and problem in err[0], err
    broken = page(tmp_path, "<p>open <b>bold <i>both</p></b><p>next</i></p></span></div>", "broken.html")
    assert cli(["parse", str(broken)]) == 0
    captured = capsys.readouterr()
    assert "markup repaired as a browser would" in captured.err
    doc = chunkbench.load(broken)
    assert [e.text for e in doc.elements] == ["open bold both", "next"]


def test_latin1_declared_page_is_read_in_its_encoding(tmp_path):
    path = tmp_path / "latin.html"
    path.write_bytes('<html><head><meta charset="iso-8859-1"></head><body><p>Bienvenüe à tous</p></body></html>'
                     .encode("latin-1"))
    assert [e.text for e in load_html(path).elements] == ["Bienvenüe à tous"]


# --- the generators, on their real output ---------------------------------------------------------


def test_texinfo_manual(tmp_path):
    """R Data Import/Export as texi2any 6.8 writes it: chapters under the title, definitions, footnotes,
    no menus, tables of contents or index bars."""
    _, html = twin_pair("R-data")
    doc = chunkbench.load(html)
    assert doc.parser.options["generator"] == "texinfo"
    heads = [(e.text_level, e.text) for e in doc.elements if e.type == "heading"]
    assert heads[:5] == [(1, "R Data Import/Export"), (2, "Acknowledgements"), (2, "1 Introduction"),
                         (3, "1.1 Imports"), (4, "1.1.1 Encodings")]
    assert sum(e.attrs.get("definition") == "term" for e in doc.elements) >= 25
    assert sum(e.type == "footnote" for e in doc.elements) == 4
    for chrome in ("Table of Contents", "Jump to:", "Next: ", "[Contents]"):
        assert chrome not in doc.text


def test_sphinx_single_page_manual():
    _, html = twin_pair("developers-reference")
    doc = chunkbench.load(html)
    assert doc.parser.options["generator"] == "sphinx"
    heads = [e for e in doc.elements if e.type == "heading"]
    assert heads[0].text == "Debian Developer's Reference" and heads[1].text == "1. Scope of This Document"
    assert [h.text_level for h in heads[:3]] == [1, 2, 2] and "¶" not in doc.text
    assert sum(e.type == "footnote" for e in doc.elements) == 8
    tables = [e for e in doc.elements if e.type == "table"]
    assert tables and all(t.attrs.get("header_rows") == 1 for t in tables)


def test_docbook_folder_of_pages():
    """The AMC manual as DocBook-XSL chunks it: 23 pages from index.html along rel=next, notes as
    admonitions with titles that are no headings, authors on the title page as lines."""
    _, folder = twin_pair("auto-multiple-choice")
    doc = chunkbench.load(folder)
    assert doc.parser.options["generator"] == "docbook-xsl" and doc.parser.options["pages"] == 23
    titles = [e for e in doc.elements if e.attrs.get("admonition_title")]
    assert len(titles) >= 50 and {e.text for e in titles} <= {"Note", "Warning", "Tip", "Important", "Caution"}
    assert not any(e.type == "heading" and e.text in ("Note", "Warning") for e in doc.elements)
    assert not any(e.type == "heading" and e.text == "Alexis Bienvenüe" for e in doc.elements)
    assert "Table of Contents" not in doc.text


def test_pandoc_page():
    """A page pandoc 2.17 wrote from tests/data/html/pandoc_source.md (README there): title block,
    nav TOC left out, table with its header row, definitions, a note div, footnotes with their marks."""
    doc = chunkbench.load(HTML_DATA / "pandoc.html")
    assert doc.parser.options["generator"] == "pandoc"
    assert [e.text for e in doc.elements if e.type == "heading"] == [
        "Release notes", "1 Installing", "1.1 Flags", "2 Using it"]
    table = next(e for e in doc.elements if e.type == "table")
    assert table.rows[0] == ("Flag", "Default", "Meaning") and table.attrs["header_rows"] == 1
    assert [e.text for e in doc.elements if e.attrs.get("definition") == "term"] == ["build", "check"]
    assert [e.attrs.get("admonition") for e in doc.elements if "Back up" in e.text] == ["warning"]
    assert [(e.attrs.get("mark"), e.text) for e in doc.elements if e.type == "footnote"] == [
        ("1", "The flags can be given in any order."), ("2", "Both need a configured project.")]
    assert "Contents" not in doc.text and "↩" not in doc.text
