"""Plain-text loader (issue 11): paragraphs and headings read from line layout, exact source slices."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import chunkbench
from chunkbench.loaders import detect_kind
from chunkbench.loaders.plaintext import load_text
from chunkbench.loaders.textfile import read_source_text
from tests.test_loader_markdown import assert_exact_offsets

WRAPPED = """CHAPTER I

It was a dark and stormy night; the rain fell in torrents, except at
occasional intervals, when it was checked by a violent gust of wind
that swept up the streets.
Then a new paragraph begins here without a blank line, and it goes on
for a while as paragraphs do in such books, until it finally ends.
    An indented line starts a paragraph too, even after a line that
runs to the full width of the text without any end of sentence at all
and this one ends here.

AUDIENCE: Booo —

Section 2. The House of Representatives

The House of Representatives shall be composed of Members chosen every
second Year by the People of the several States.
The End
"""


def write(tmp_path, text: str | bytes, name: str = "doc.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def test_hard_wrapped_text_splits_at_short_sentence_ends_indents_and_blank_lines(tmp_path):
    doc = load_text(write(tmp_path, WRAPPED))
    got = [(e.type, e.text_level, e.text.split("\n")[0][:30]) for e in doc.elements]
    assert got == [
        ("heading", 1, "CHAPTER I"),
        ("paragraph", None, "It was a dark and stormy night"),
        ("paragraph", None, "Then a new paragraph begins he"),
        ("paragraph", None, "An indented line starts a para"),
        ("paragraph", None, "AUDIENCE: Booo —"),  # a spoken line, not a heading
        ("heading", 2, "Section 2. The House of Repres"),
        ("paragraph", None, "The House of Representatives s"),
        ("paragraph", None, "The End"),  # the last line heads nothing
    ]
    assert_exact_offsets(doc, read_source_text(doc_path := tmp_path / "doc.txt"))
    assert detect_kind(doc_path) == "text" and chunkbench.load(doc_path).elements == doc.elements


def test_a_text_without_blank_lines_and_one_paragraph_per_line_is_not_one_element(tmp_path):
    """The failure of issue 11: a whole text read as one 100k-character paragraph."""
    lines = [f"Paragraph {n} says something long enough to be a real paragraph of prose, " * 3 for n in range(400)]
    doc = load_text(write(tmp_path, "\n".join(lines)))
    assert len(doc.elements) == 400 and all(e.type == "paragraph" for e in doc.elements)
    cs = chunkbench.chunk(doc, "elements")
    assert max(c.char_len for c in cs) <= 2000


def test_empty_file_and_invalid_utf8(tmp_path):
    assert load_text(write(tmp_path, "")).elements == ()
    doc = load_text(write(tmp_path, "Caf\xe9 society.\n".encode("latin-1"), "bad.txt"))
    assert doc.elements[0].text == "Caf\ufffd society." and "not valid UTF-8" in doc.warnings[0]


def test_cli_chunks_a_text_file(tmp_path, capsys):
    from chunkbench.ui.cli import main

    out = tmp_path / "chunks.json"
    assert main(["chunk", str(write(tmp_path, WRAPPED)), "--strategy", "recursive", "-o", str(out)]) == 0
    assert out.exists()
    assert main(["chunk", str(write(tmp_path, "x", "doc.rtf"))]) == 3
    assert ".txt" in capsys.readouterr().err


LINE = st.text(st.characters(codec="utf-8", exclude_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
               max_size=200)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(LINE, st.just(""), st.just("   ")), max_size=40))
def test_properties_elements_are_exact_ordered_slices_covering_all_text(tmp_path_factory, lines):
    source = "\n".join(lines)
    path = write(tmp_path_factory.mktemp("t"), source)
    doc = load_text(path)
    text = read_source_text(path)
    assert_exact_offsets(doc, text)
    assert all(e.text and e.text == e.text.strip() for e in doc.elements)
    covered = "".join(e.text for e in doc.elements)
    assert "".join(covered.split()) == "".join(text.split()), "no text lost or duplicated"
    assert all(e.type == "paragraph" or (e.text_level in (1, 2) and "\n" not in e.text) for e in doc.elements)
