"""Markdown loader: block elements with exact source offsets, front matter, hostile inputs."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkbench
from chunkbench.errors import InputError
from chunkbench.loaders import load_elements_json
from chunkbench.loaders.markdown import load_markdown
from chunkbench.loaders.textfile import read_source_text
from tests.support.builders import assert_exact_offsets
from tests.support.extras import examples
from tests.support.paths import TEST_DATA

GUIDE = TEST_DATA / "markdown" / "deployment_guide.md"
# read off the file by hand: (type, heading level) of each top-level block
GUIDE_ELEMENTS = [
    ("heading", 1), ("paragraph", None), ("heading", 2), ("paragraph", None), ("list", None),
    ("heading", 2), ("paragraph", None), ("code", None), ("code", None), ("heading", 3),
    ("table", None), ("heading", 2), ("paragraph", None), ("paragraph", None), ("heading", 4),
    ("list", None), ("heading", 1), ("other", None), ("paragraph", None),
]
GUIDE_HEADINGS = [
    "Deployment Guide", "Prerequisites", "Building the image", "Build options", "Rollback procedure",
    "Step-by-step", "Monitoring",
]


@pytest.fixture(scope="module")
def guide():
    return load_markdown(GUIDE)


@pytest.fixture(scope="module")
def guide_source() -> str:
    return GUIDE.read_bytes().decode("utf-8")


def write(tmp_path: Path, text: str | bytes, name: str = "doc.md") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def test_top_level_blocks_in_order(guide):
    assert [(e.type, e.text_level) for e in guide.elements] == GUIDE_ELEMENTS
    assert [e.text for e in guide.elements if e.type == "heading"] == GUIDE_HEADINGS
    assert [e.id for e in guide.elements] == [f"e{n}" for n in range(len(GUIDE_ELEMENTS))]
    assert {e.source for e in guide.elements} == {"markdown"}


def test_offsets_are_exact_in_the_original_file(guide, guide_source):
    assert_exact_offsets(guide, guide_source)
    assert read_source_text(GUIDE) == guide_source
    for e in guide.elements:
        assert guide.text[e.char_start : e.char_end] == e.text  # canonical text, for strategies


def test_heading_text_is_the_slice_after_the_markers(guide, guide_source):
    by_text = {e.text: e for e in guide.elements if e.type == "heading"}
    build = by_text["Build options"]  # "### Build options ###"
    line_start = guide_source.rfind("\n", 0, build.attrs["src_start"]) + 1
    assert guide_source[line_start : build.attrs["src_start"]] == "### "
    assert guide_source[build.attrs["src_end"] :].startswith(" ###\n")
    rollback = by_text["Rollback procedure"]  # setext: the underline is not part of the text
    assert guide_source[rollback.attrs["src_end"] :].startswith("\n------------------\n")
    assert by_text["Monitoring"].text_level == 1  # "=====" underline


def test_hashes_inside_code_fences_are_not_headings(guide):
    headings = [e.text for e in guide.elements if e.type == "heading"]
    assert not any("comment" in h or "settings.py" in h for h in headings)
    bash, python = [e for e in guide.elements if e.type == "code"]
    assert bash.text.startswith("```bash\n# Build and tag the image\n")
    assert bash.text.endswith("## This line is a shell comment, not a heading\n```")
    assert bash.attrs["language"] == "bash"
    assert python.text.startswith("~~~python\n") and python.text.endswith("\n~~~")
    assert python.attrs["language"] == "python"
    assert python.raw_type == "fence"


def test_front_matter_is_metadata_not_an_element(guide):
    assert guide.metadata == {
        "title": "Deployment Guide",
        "aliases": ["deploy", "release-process"],
        "tags": ["ops", "kubernetes"],
        "version": "2.4",  # scalars stay strings: no YAML type guessing
        "reviewed": "2025-01-15",
    }
    assert not any("aliases" in e.text for e in guide.elements)
    assert guide.warnings == ()


def test_lists_are_one_element_each_with_their_items(guide, guide_source):
    prerequisites, steps = [e for e in guide.elements if e.type == "list"]
    assert prerequisites.raw_type == "bullet_list" and steps.raw_type == "ordered_list"
    assert prerequisites.text.startswith("- A GitHub account")
    assert prerequisites.text.endswith("- A local Docker installation (24.0 or newer)")
    assert "    1. request it in the #access channel\n    2. wait for approval" in prerequisites.text
    assert [b["text"].split("\n")[0] for b in prerequisites.blocks] == [
        "- A GitHub account in the `payments` organisation", "- Cluster credentials:",
        "- A local Docker installation (24.0 or newer)",
    ]
    assert len(steps.blocks) == 3
    assert "helm history payments -n payments" in steps.blocks[0]["text"]  # code inside an item
    for block in prerequisites.blocks + steps.blocks:
        assert guide_source[block["src_start"] : block["src_end"]] == block["text"]


def test_table_rows_and_source_text(guide):
    (table,) = [e for e in guide.elements if e.type == "table"]
    assert table.rows == (
        ("Option", "Default", "Meaning"),
        ("`--tag`", "`latest`", "Image tag to push"),
        ("`--no-cache`", "off", "Rebuild every layer"),
        ("`--platform`", "`linux/amd64`", "Target platform; use `a|b` for several"),
    )
    assert table.text.startswith("| Option | Default | Meaning |\n|--------|:-------:|")
    assert table.text.endswith("use `a\\|b` for several |")


def test_blockquote_html_and_rule(guide):
    quote = next(e for e in guide.elements if e.raw_type == "blockquote")
    assert quote.type == "paragraph"
    assert quote.text.startswith("> **Note:**") and quote.text.endswith("for one release.")
    html = next(e for e in guide.elements if e.type == "other")
    assert html.raw_type == "html_block" and html.text.startswith("<details>")
    assert not any("* * *" in e.text for e in guide.elements)  # thematic break: no element


def test_no_pages_no_boxes_and_the_file_hash(guide):
    assert guide.pages == ()
    assert all(e.page_idx is None and e.bbox is None for e in guide.elements)
    assert guide.doc_id == hashlib.sha256(GUIDE.read_bytes()).hexdigest()
    assert guide.source == "deployment_guide.md"
    assert guide.parser.name == "markdown-it"


def test_load_dispatches_markdown(guide):
    assert chunkbench.load(GUIDE) == guide


def test_elements_json_round_trip(guide, tmp_path):
    path = tmp_path / "elements.json"
    path.write_text(json.dumps(guide.to_dict()), "utf-8")
    assert load_elements_json(path) == guide


def test_crlf_newlines_are_kept_and_offsets_stay_exact(tmp_path, guide, guide_source):
    crlf = guide_source.replace("\n", "\r\n")
    doc = load_markdown(write(tmp_path, crlf))
    assert [(e.type, e.text_level) for e in doc.elements] == GUIDE_ELEMENTS
    assert [e.text.replace("\r\n", "\n") for e in doc.elements] == [e.text for e in guide.elements]
    assert doc.metadata == guide.metadata
    assert_exact_offsets(doc, crlf)


def test_bom_is_dropped(tmp_path):
    path = write(tmp_path, b"\xef\xbb\xbf# Title\n\nBody text.\n")
    doc = load_markdown(path)
    assert [(e.type, e.text) for e in doc.elements] == [("heading", "Title"), ("paragraph", "Body text.")]
    assert_exact_offsets(doc, read_source_text(path))
    assert read_source_text(path) == "# Title\n\nBody text.\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
def test_utf16_and_utf32_with_a_byte_order_mark_are_read_as_text(tmp_path, encoding):
    """Windows tools (PowerShell's `>`, Notepad's "Unicode") write UTF-16 with a BOM: it was read as
    UTF-8, every other character a U+FFFD. The BOM decides the encoding; offsets index the decoded text."""
    source = "# Café menu\n\nCrème brûlée, naïve — 数据.\n"
    bom = {"utf-16-be": b"\xfe\xff", "utf-32-be": b"\x00\x00\xfe\xff"}.get(encoding, b"")
    path = write(tmp_path, bom + source.encode(encoding))  # Python's utf-16/utf-32 write their own BOM
    doc = load_markdown(path)
    assert [(e.type, e.text) for e in doc.elements] == [("heading", "Café menu"), ("paragraph", "Crème brûlée, naïve — 数据.")]
    assert not doc.warnings and read_source_text(path) == source
    assert_exact_offsets(doc, source)


def test_invalid_utf8_is_replaced_with_a_warning(tmp_path):
    path = write(tmp_path, "# Café menu\n\nCrème brûlée, naïve.\n".encode("latin-1"))
    doc = load_markdown(path)
    assert [e.type for e in doc.elements] == ["heading", "paragraph"]
    assert doc.elements[0].text == "Caf\ufffd menu"
    assert len(doc.warnings) == 1 and "not valid UTF-8 (first bad byte at offset 5)" in doc.warnings[0]
    assert_exact_offsets(doc, read_source_text(path))


@pytest.mark.parametrize(
    "text, elements, metadata, warned",
    [
        # a scalar between two rules is Markdown: a thematic break, then a setext heading
        ("---\nJust a line\n---\n\nBody.\n", [("heading", "Just a line"), ("paragraph", "Body.")], {}, False),
        ("---\n---\n# H\n", [("heading", "H")], {}, False),  # empty front matter
        ("---\ntitle: x\n...\n# H\n", [("heading", "H")], {"title": "x"}, False),
        ("---\ntitle: x\n# H\n", [("paragraph", "title: x"), ("heading", "H")], {}, False),  # not closed
        ("---\ntitle: [unclosed\n---\n# H\n", [("heading", "title: [unclosed"), ("heading", "H")], {}, True),
        ("---\na: &x [1]\nb: *x\n---\n", [("paragraph", "a: &x [1]\nb: *x")], {}, True),  # no aliases; two lines over a rule: no title
    ],
    ids=["scalar", "empty", "dots", "unclosed", "invalid", "alias"],
)
def test_front_matter_edge_cases(tmp_path, text, elements, metadata, warned):
    doc = load_markdown(write(tmp_path, text))
    assert [(e.type, e.text) for e in doc.elements] == elements
    assert dict(doc.metadata) == metadata
    assert any("front matter is not valid YAML" in w for w in doc.warnings) == warned
    assert_exact_offsets(doc, text)


def test_empty_file_has_no_elements(tmp_path):
    doc = load_markdown(write(tmp_path, ""))
    assert doc.elements == () and doc.text == ""


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read file") as info:
        load_markdown(tmp_path / "nowhere.md")
    assert "nowhere.md" in str(info.value)


def test_ten_megabyte_line(tmp_path):
    line = "lorem ipsum dolor sit amet " * 400_000  # ~10.8 MB, no newline
    doc = load_markdown(write(tmp_path, "# Big\n\n" + line))
    assert [e.type for e in doc.elements] == ["heading", "paragraph"]
    assert doc.elements[1].text == line.strip()


@pytest.mark.parametrize("marker", ["- ", "1. ", "> "])
def test_ten_thousand_nested_levels(tmp_path, marker):
    text = "# Deep\n\n" + marker * 10_000 + "bottom\n\n## After\n\nThe end.\n"
    doc = load_markdown(write(tmp_path, text))
    deep = "list" if marker != "> " else "paragraph"
    assert [e.type for e in doc.elements] == ["heading", deep, "heading", "paragraph"]
    assert doc.elements[1].text == marker * 10_000 + "bottom"  # deep nesting is kept as text...
    assert doc.elements[2].text == "After"  # ...and does not swallow what follows
    assert_exact_offsets(doc, text)


def test_ten_thousand_nested_list_lines(tmp_path):
    text = "".join("  " * min(depth, 40) + f"- item {depth}\n" for depth in range(10_000))
    doc = load_markdown(write(tmp_path, text))
    assert [e.type for e in doc.elements] == ["list"]
    assert doc.elements[0].text == text.rstrip()


_MARKDOWN_PIECES = st.sampled_from([
    "# ", "## ", "###### ", "#", "---", "===", "- ", "* ", "1. ", "> ", "```", "~~~", "    ", "| a | b |",
    "|---|---|", "<div>", "text", "word ", "\\|", "\t", "\n", "\n\n", "\r\n", "\r", "\x00", "é",
    "= ", " =", "== Title ==", "\\n", "\\n\\n",
])


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(_MARKDOWN_PIECES, max_size=40).map("".join))
def test_offsets_are_exact_for_any_markdown(tmp_path_factory, text):
    path = write(tmp_path_factory.mktemp("md"), text)
    doc = load_markdown(path)
    assert_exact_offsets(doc, read_source_text(path))
    for e in doc.elements:
        assert e.type == "code" or e.text == e.text.strip()


def test_a_caption_or_prose_over_a_setext_rule_is_a_paragraph_not_a_heading(tmp_path):
    """CommonMark makes `Figure 2: ...` over `====` an H1, which then headed every chunk
    up to the next heading; a caption, several lines or a long line over a rule stay text."""
    source = ("# Report\n\nFigure 2: Revenue by segment\n============================\n\nText under it.\n\n"
              "Prose that goes on\nover two lines\n---\n\n" + "x" * 130 + "\n===\n\nReal Title\n==========\n\nBody.\n")
    doc = load_markdown(write(tmp_path, source))
    got = [(e.type, e.text_level, e.attrs.get("not_heading")) for e in doc.elements]
    assert got == [("heading", 1, None), ("paragraph", None, "setext underline under a caption"),
                   ("paragraph", None, None), ("paragraph", None, "setext underline under several lines of text"),
                   ("paragraph", None, "setext underline under 130 characters of text"), ("heading", 1, None),
                   ("paragraph", None, None)]
    assert_exact_offsets(doc, source)
    headed = chunkbench.chunk(doc, "headers", min_chunk_chars=0)
    assert {c.extra["header_path"] for c in headed} == {"Report", "Real Title"}


def _prose(guide) -> list[str]:
    """Real paragraphs (the public-domain speech of the retrieval tests), each on one line, as an
    export without blank lines writes them."""
    speech = (TEST_DATA / "retrieval" / "sotu_2024.txt").read_text(encoding="utf-8")
    return [" ".join(p.split()) for p in speech.split("\n\n") if len(p) > 200][:40]


def test_unwrapped_lines_without_blank_lines_are_split_as_a_txt_file_is(guide, tmp_path):
    """CommonMark makes one paragraph of lines with no blank line between them; a text
    exported that way was one 118k-character paragraph. Long unwrapped lines are paragraphs, as
    the .txt loader reads the same bytes, and a warning says so."""
    lines = _prose(guide)
    assert sorted(map(len, lines))[len(lines) // 2] > 150
    body = "# Notes\n\n" + "\n".join(lines) + "\n"
    (tmp_path / "notes.md").write_text(body, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    md = chunkbench.load(tmp_path / "notes.md")
    txt = chunkbench.load(tmp_path / "notes.txt")
    paragraphs = [e for e in md.elements if e.type == "paragraph"]
    assert [e.text for e in paragraphs] == [e.text for e in txt.elements] == lines
    assert all(body[e.attrs["src_start"]:e.attrs["src_end"]] == e.text and e.attrs["run_in"] for e in paragraphs)
    assert [e.id for e in md.elements] == [f"e{n}" for n in range(len(md.elements))]
    assert any("split into" in w and "as a .txt file is" in w for w in md.warnings)
    assert len(chunkbench.chunk(md, "sentences")) >= len(lines)


def test_wrapped_paragraphs_stay_whole_and_long_runs_split_at_short_sentence_ends(guide, tmp_path):
    """A hard-wrapped paragraph is one paragraph (no warning); a run of 20+ wrapped lines splits
    where a short line ends a sentence, as in a .txt file."""
    import textwrap

    prose = _prose(guide)
    wrapped = "\n\n".join(textwrap.fill(p, 72) for p in prose[:3])
    (tmp_path / "a.md").write_text(wrapped + "\n", encoding="utf-8")
    doc = chunkbench.load(tmp_path / "a.md")
    assert len(doc.elements) == 3 and not doc.warnings
    run = "\n".join(textwrap.fill(p, 72) for p in prose[:8])  # every paragraph wrapped, no blank line between
    assert run.count("\n") + 1 >= 20
    (tmp_path / "b.md").write_text(run + "\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text(run + "\n", encoding="utf-8")
    md, txt = chunkbench.load(tmp_path / "b.md"), chunkbench.load(tmp_path / "b.txt")
    assert len(md.elements) > 1 and [e.text for e in md.elements] == [e.text for e in txt.elements]


def test_wiki_headings_in_a_markdown_file_are_headings(tmp_path):
    """A WikiText-103 dump saved as .md (a line per paragraph, no blank line: split as a .txt file
    is) and a MediaWiki heading between blank lines: headings of the level their marks say."""
    long = "Troops move on a map in turns , and each unit acts once per turn in the order the player picks . " * 2
    wikitext = "".join(f" {line} \n" for line in ["= Valkyria Chronicles III =", long, "= = Gameplay = =", long,
                                                  "= = = Battle system = = =", long])
    doc = load_markdown(write(tmp_path, wikitext + "\n== History ==\n\nThe series began in 2008.\n"))
    got = [(e.type, e.text_level, e.text[:20]) for e in doc.elements]
    assert got == [("heading", 1, "Valkyria Chronicles "), ("paragraph", None, long[:20]),
                   ("heading", 2, "Gameplay"), ("paragraph", None, long[:20]),
                   ("heading", 3, "Battle system"), ("paragraph", None, long[:20]),
                   ("heading", 2, "History"), ("paragraph", None, "The series began in ")]
    assert_exact_offsets(doc, read_source_text(tmp_path / "doc.md"))


def test_a_file_of_line_breaks_loads_in_little_memory(tmp_path):
    """20 MB of line breaks peaked at 3.8 GB (markdown-it keeps several numbers per
    line, and so did the line table): long runs of blank lines go to markdown-it shortened."""
    import tracemalloc

    path = tmp_path / "breaks.md"
    path.write_text("# Title\n" + "\n" * 5_000_000 + "The end.\n", "utf-8")
    tracemalloc.start()
    doc = chunkbench.load(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [e.text for e in doc.elements] == ["Title", "The end."]
    assert peak < 200 * 2**20  # about 1.3 GB before


def test_long_blank_runs_keep_every_span_and_a_codes_blank_lines(tmp_path):
    """Spans still point into the source as it is: a fenced block's five blank lines are its own."""
    source = ("# Title\n\n\n\n\n\nFirst paragraph\nwrapped.\n\n\n\n\n- one\n\n\n\n- two\n\n\n\n\n"
              "```\ncode\n\n\n\n\n\nmore code\n```\n \n\t\n\n\nLast.\n")
    path = tmp_path / "runs.md"
    path.write_text(source, "utf-8")
    doc = chunkbench.load(path)
    assert [e.type for e in doc.elements] == ["heading", "paragraph", "list", "code", "paragraph"]
    for e in doc.elements:
        assert source[e.attrs["src_start"]:e.attrs["src_end"]].strip() == e.text.strip(), e
    code = doc.elements[3]
    assert "code\n\n\n\n\n\nmore code" in code.text
    assert len(doc.elements[2].blocks) == 2
