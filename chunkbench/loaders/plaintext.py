"""Load a plain-text file (`.txt`) as paragraphs and headings whose texts are source slices.

Plain text has no markup, so the structure is read from the layout of its lines:

* blocks are runs of non-blank lines;
* inside a block, a line starts a new paragraph when the block is *unwrapped* (its lines are
  longer than WRAPPED_WIDTH: one paragraph per line, as many exports write it), when it is
  indented, or when the line before ended a sentence well short of the block's wrap width (the
  usual end of a hard-wrapped paragraph). A text with no blank lines therefore still loads as
  paragraphs instead of one block of 100k characters;
* a heading is a one-line paragraph of at most HEADING_MAX characters that is followed by more
  text and either names a part (Chapter, Article, Section, Part, Book, Amendment, a roman numeral)
  or does not end like a sentence or a spoken line (no closing punctuation, no `Speaker:` label).
  Part names are level 1, sections level 2, other headings level 1;
* a line in wiki markup, `== History ==` (MediaWiki) or `= = History = =` (as WikiText-103 writes
  it, every token spaced), is a paragraph of its own and a heading of the level its marks say,
  whatever follows it; its text is the title between the marks;
* a paragraph with no real line break but escaped ones, the two characters `\\n` (text dumped as
  string literals, e.g. a chat log's Python reprs), is split at them as a block of lines is, when
  they are at least ESCAPED_MIN, one per ESCAPED_EVERY characters, and two of them make a blank
  line (`\\n\\n`) somewhere, with lines of ESCAPED_LINE_MEAN characters on average between them: a
  text that only mentions `\\n` is not split; a warning says how many;
* decoding is the Markdown loader's (UTF-8, BOM dropped, NUL replaced, bad bytes replaced with a
  warning); element texts are `source[src_start:src_end]`, trimmed; no pages, no bboxes.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from chunkbench.types.document import Document, Element, ParserInfo, make_document

from .textfile import ESCAPED_NEWLINE, SourceLines, decode_source, read_bytes

SOURCE = "text"
PARSER = ParserInfo("chunkbench-text", "2", {"wiki_headings": "2026-11-27", "escaped_newlines": "2026-11-27"})

#: a block whose typical line is longer than this is not hard-wrapped: each line is a paragraph
WRAPPED_WIDTH = 150
#: a line shorter than this share of the block's wrap width that ends a sentence ends a paragraph
SHORT_LINE = 0.8
#: longest line read as a heading
HEADING_MAX = 80
#: a Markdown paragraph of this many hard-wrapped lines or more is looked at for paragraphs within
LONG_BLOCK = 20
#: a paragraph is split at escaped line breaks when it has at least this many of them ...
ESCAPED_MIN = 3
#: ... at least one in this many characters, and an escaped blank line among them ...
ESCAPED_EVERY = 1000
#: ... and the lines between them this long on average (a text about `\n` has short bits between its mentions)
ESCAPED_LINE_MEAN = 30

_SENTENCE_END = re.compile(r"""[.!?:;]["'”’)\]]*\s*$""")
_NOT_HEADING_END = re.compile(r"""[.!?,;:—–\-"'”’)\]]\s*$""")
_PART = re.compile(r"^(chapter|article|part|book|amendment|preamble|title|appendix)\b|^[IVXLC]+\.?$", re.I)
_SECTION = re.compile(r"^(section|§)", re.I)
_SPEAKER = re.compile(r"^[A-Z][A-Za-z .'-]{0,40}:\s")
#: `== Title ==` or `= = Title = =`: the same one to six marks each side, a title with a letter or digit between
_WIKI_HEADING = re.compile(r"^(=(?: ?=){0,5})[ \t]*([^=\s](?:.*[^=\s])?)[ \t]*\1$")


def load_text(path: str | os.PathLike) -> Document:
    """Load a `.txt` file: paragraphs and headings found from line layout (see the module notes)."""
    file = Path(path)
    data = read_bytes(file)
    text, warnings = decode_source(data)
    lines = SourceLines(text)
    spans: list[tuple[int, int]] = []
    escaped = 0
    for a, b in _paragraph_spans(lines):
        pieces = escaped_paragraphs(text, a, b)
        escaped += bool(pieces)
        spans.extend(pieces or [(a, b)])
    if escaped:
        warnings.append(escaped_warning(escaped, len(spans)))
    elements = []
    for n, (a, b) in enumerate(spans):
        wiki = wiki_heading(text, a, b)
        level = wiki[0] if wiki else _heading_level(text[a:b]) if n + 1 < len(spans) else None
        if wiki:
            a, b = wiki[1], wiki[2]
        elements.append(Element(
            id=f"e{n}",
            type="heading" if level else "paragraph",
            text=text[a:b],
            text_level=level,
            source=SOURCE,
            raw_type="wiki_heading" if wiki else "heading" if level else "paragraph",
            attrs={"src_start": a, "src_end": b},
        ))
    return make_document(file, elements, (), PARSER, warnings=warnings, doc_id=hashlib.sha256(data).hexdigest())


def wiki_heading(text: str, a: int, b: int) -> tuple[int, int, int] | None:
    """(level, start, end of the title) when text[a:b] is one line of wiki markup, `== Title ==` or
    `= = Title = =` (the level is the number of marks each side), else None."""
    piece = text[a:b]
    if "\n" in piece or "\r" in piece:
        return None
    m = _WIKI_HEADING.match(piece.strip())
    if not m or not any(c.isalnum() for c in m.group(2)):
        return None
    start = a + (len(piece) - len(piece.lstrip())) + m.start(2)
    return m.group(1).count("="), start, start + len(m.group(2))


def escaped_paragraphs(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The paragraphs of text[a:b] split at its escaped line breaks (`\\n` as two characters), found
    as in a block of lines, when it has no real line break and enough escaped ones (ESCAPED_MIN,
    one per ESCAPED_EVERY characters, an escaped blank line among them, lines of ESCAPED_LINE_MEAN
    characters on average); [] otherwise or when it reads as one paragraph."""
    piece = text[a:b]
    if "\n" in piece or "\r" in piece:
        return []
    lines = SourceLines(text, ESCAPED_NEWLINE, a, b)
    filled = [len(line) for n in range(len(lines)) if (line := lines.line(n).strip())]
    if len(lines) <= ESCAPED_MIN or (len(lines) - 1) * ESCAPED_EVERY < len(piece) or len(filled) == len(lines) \
            or sum(filled) < ESCAPED_LINE_MEAN * len(filled):
        return []
    spans = [s for s in _paragraph_spans(lines) if s[1] > s[0]]
    return spans if len(spans) > 1 else []


def escaped_warning(paragraphs: int, made: int) -> str:
    """The loaders' warning when escaped_paragraphs split something."""
    return (f"{paragraphs} paragraph(s) with escaped line breaks (\\n written as two characters) were split at "
            f"them, as lines are; {made} paragraphs in all")


def _paragraph_spans(lines: SourceLines):
    """(start, end) source offsets of each paragraph, in order (see the module notes)."""
    block: list[int] = []
    for n in range(len(lines)):
        if lines.line(n).strip():
            block.append(n)
            continue
        yield from _split_block(lines, block)
        block = []
    yield from _split_block(lines, block)


def run_in_paragraphs(lines: SourceLines, first: int, stop: int) -> list[tuple[int, int]]:
    """The paragraphs of lines [first, stop) (no blank line among them), found as in a `.txt` file,
    when their lines are unwrapped or they run to LONG_BLOCK lines or more: the source spans, or []
    when they read as one paragraph. The Markdown loader splits such a paragraph with it."""
    if stop - first < 2:
        return []
    block = list(range(first, stop))
    width, unwrapped = _block_shape(lines, block)
    if not unwrapped and len(block) < LONG_BLOCK:
        return []
    spans = list(_split_block(lines, block, (width, unwrapped)))
    return spans if len(spans) > 1 else []


def _block_shape(lines: SourceLines, block: list[int]) -> tuple[int, bool]:
    """The block's wrap width (90th percentile of its line lengths) and whether it is unwrapped
    (its typical line longer than WRAPPED_WIDTH)."""
    lengths = sorted(len(lines.line(n).rstrip()) for n in block)
    return lengths[(len(lengths) * 9) // 10], lengths[len(lengths) // 2] > WRAPPED_WIDTH


def _split_block(lines: SourceLines, block: list[int], shape: tuple[int, bool] | None = None):
    if not block:
        return
    width, unwrapped = shape or _block_shape(lines, block)
    first = block[0]
    for prev, n in zip(block, block[1:]):
        line = lines.line(n)
        before = lines.line(prev).rstrip()
        if (unwrapped or line[:1].isspace()
                or (_SENTENCE_END.search(before) and len(before) < SHORT_LINE * width)
                or wiki_heading(before, 0, len(before)) or wiki_heading(line, 0, len(line))):
            yield lines.span(first, prev + 1)
            first = n
    yield lines.span(first, block[-1] + 1)


def _heading_level(text: str) -> int | None:
    """1 or 2 when `text` reads as a heading, else None."""
    if "\n" in text or len(text) > HEADING_MAX or not any(c.isalpha() for c in text):
        return None
    if _SECTION.match(text):
        return 2
    if _PART.match(text):
        return 1
    if _NOT_HEADING_END.search(text) or _SPEAKER.match(text):
        return None
    return 1
