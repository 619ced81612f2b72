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
* decoding is the Markdown loader's (UTF-8, BOM dropped, NUL replaced, bad bytes replaced with a
  warning); element texts are `source[src_start:src_end]`, trimmed; no pages, no bboxes.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from chunkbench.types.document import Document, Element, ParserInfo, make_document

from .textfile import SourceLines, decode_source, read_bytes

SOURCE = "text"
PARSER = ParserInfo("chunkbench-text", "1", {})

#: a block whose typical line is longer than this is not hard-wrapped: each line is a paragraph
WRAPPED_WIDTH = 150
#: a line shorter than this share of the block's wrap width that ends a sentence ends a paragraph
SHORT_LINE = 0.8
#: longest line read as a heading
HEADING_MAX = 80
#: a Markdown paragraph of this many hard-wrapped lines or more is looked at for paragraphs within
LONG_BLOCK = 20

_SENTENCE_END = re.compile(r"""[.!?:;]["'”’)\]]*\s*$""")
_NOT_HEADING_END = re.compile(r"""[.!?,;:—–\-"'”’)\]]\s*$""")
_PART = re.compile(r"^(chapter|article|part|book|amendment|preamble|title|appendix)\b|^[IVXLC]+\.?$", re.I)
_SECTION = re.compile(r"^(section|§)", re.I)
_SPEAKER = re.compile(r"^[A-Z][A-Za-z .'-]{0,40}:\s")


def load_text(path: str | os.PathLike) -> Document:
    """Load a `.txt` file: paragraphs and headings found from line layout (see the module notes)."""
    file = Path(path)
    data = read_bytes(file)
    text, warnings = decode_source(data)
    lines = SourceLines(text)
    spans = list(_paragraph_spans(lines))
    elements = []
    for n, (a, b) in enumerate(spans):
        piece = text[a:b]
        level = _heading_level(piece) if n + 1 < len(spans) else None
        elements.append(Element(
            id=f"e{n}",
            type="heading" if level else "paragraph",
            text=piece,
            text_level=level,
            source=SOURCE,
            raw_type="heading" if level else "paragraph",
            attrs={"src_start": a, "src_end": b},
        ))
    return make_document(file, elements, (), PARSER, warnings=warnings, doc_id=hashlib.sha256(data).hexdigest())


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
                or (_SENTENCE_END.search(before) and len(before) < SHORT_LINE * width)):
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
