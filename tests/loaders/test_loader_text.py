"""Plain-text loader: paragraphs and headings read from line layout, exact source slices."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

import chunkbench
from chunkbench.loaders import detect_kind
from chunkbench.loaders.plaintext import load_text
from chunkbench.loaders.textfile import read_source_text
from tests.support.builders import assert_exact_offsets
from tests.support.extras import examples

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
    """A whole text read as one 100k-character paragraph."""
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


#: what the loader reads as markup, not text: a wiki heading's marks and escaped line breaks
_MARKS = re.compile(r"=|\\r|\\n|\s")


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.one_of(LINE, st.just(""), st.just("   "), st.sampled_from(
    ["== History ==", " = = Milestones = = ", "= x", r"one\ntwo\n\nthree\nfour", r"a\n\n\nb c\nd\n"])),
    max_size=40))
def test_properties_elements_are_exact_ordered_slices_covering_all_text(tmp_path_factory, lines):
    source = "\n".join(lines)
    path = write(tmp_path_factory.mktemp("t"), source)
    doc = load_text(path)
    text = read_source_text(path)
    assert_exact_offsets(doc, text)
    assert all(e.text and e.text == e.text.strip() for e in doc.elements)
    covered = "".join(e.text for e in doc.elements)
    assert _MARKS.sub("", covered) == _MARKS.sub("", text), "no text lost or duplicated"
    assert all(e.type == "paragraph" or (e.text_level in (1, 2) and "\n" not in e.text)
               or (e.raw_type == "wiki_heading" and 1 <= e.text_level <= 6) for e in doc.elements)


#: WikiText-103's spelling (every token spaced, a space before each line) and MediaWiki's
WIKI = (" = Valkyria Chronicles III = \n"
        " Senjō no Valkyria 3 is a tactical role @-@ playing video game developed by Sega . \n"
        " = = Gameplay = = \n"
        " As with previous games , the player controls a squad . \n"
        " = = = Battle system = = = \n"
        " Troops move on a map in turns . \n"
        "== History ==\n"
        "The series began in 2008 and was\n"
        "followed by two sequels.\n")


def test_wiki_headings_in_both_spellings_are_headings_of_their_level(tmp_path):
    doc = load_text(write(tmp_path, WIKI))
    got = [(e.type, e.text_level, e.text[:24]) for e in doc.elements]
    assert got == [
        ("heading", 1, "Valkyria Chronicles III"),
        ("paragraph", None, "Senjō no Valkyria 3 is a"),
        ("heading", 2, "Gameplay"),
        ("paragraph", None, "As with previous games ,"),
        ("heading", 3, "Battle system"),
        ("paragraph", None, "Troops move on a map in "),
        ("heading", 2, "History"),  # MediaWiki: no blank line around it, and still a paragraph of its own
        ("paragraph", None, "The series began in 2008"),
    ]
    assert_exact_offsets(doc, read_source_text(tmp_path / "doc.txt"))
    chunks = chunkbench.chunk(doc, "elements")
    assert chunks[-1].section_path == ("Valkyria Chronicles III", "History")
    assert ("Valkyria Chronicles III", "Gameplay") in [c.section_path[:2] for c in chunks]


def _chat_dump() -> str:
    """Conversations as a chat dataset is often dumped: one Python repr (`str(list_of_dicts)`) per
    line, every line break inside a message written as the two characters \\n."""
    conversations = [
        [{"content": "How do I enable the hover image on my collection pages? I cannot find the setting "
                     "anywhere in the theme editor.", "role": "user"},
         {"content": "Here are the steps to enable the secondary image on hover:\n\n"
                     "1. Log in to your store admin and open the theme editor.\n"
                     "2. Open the Collection pages section and find the product grid settings.\n"
                     "3. Tick 'Show secondary image on hover' and save the theme.\n\n"
                     "The product thumbnails now show the second image when a visitor points at them.",
          "role": "assistant"}],
        [{"content": "Write a short essay about lighthouses.", "role": "user"},
         {"content": "Lighthouses have guided sailors for centuries along dangerous coasts.\n\n"
                     "Their keepers lived lonely lives, tending the lamps through every storm of winter.\n\n"
                     "Today most lights are automated, and many old towers have become museums.",
          "role": "assistant"}],
    ]
    return "\n".join(str(c) for c in conversations) + "\n"


def test_a_chat_log_dumped_as_python_reprs_splits_at_its_escaped_line_breaks(tmp_path):
    source = _chat_dump()
    assert "\\n\\n" in source and source.count("\n") == 2  # escaped breaks inside, two real ones
    for name in ("chat.txt", "chat.md"):
        doc = chunkbench.load(write(tmp_path, source, name))
        texts = [e.text for e in doc.elements]
        assert len(texts) == 7, texts  # was 2: a line each
        assert "1. Log in to your store admin and open the theme editor." in texts
        assert any(t.startswith("Their keepers lived lonely lives") for t in texts)
        assert any("escaped line breaks" in w for w in doc.warnings)
        assert_exact_offsets(doc, read_source_text(tmp_path / name))


def test_text_that_only_mentions_escapes_is_not_split(tmp_path):
    source = (r"Use \n to end a line, \r\n on Windows, and \n\n for a blank line; the parser "
              r"reads \n as one break and \n\n as two, which is all there is to say about it.") + "\n"
    for name in ("escapes.txt", "escapes.md"):
        doc = chunkbench.load(write(tmp_path, source, name))
        assert [e.text for e in doc.elements] == [source.strip()] and not doc.warnings
