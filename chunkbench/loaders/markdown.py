"""Load a Markdown file as a Document whose elements know their exact span in the source text.

Parsed with markdown-it-py (CommonMark + GFM tables). Only the block structure is used: inline
parsing is switched off, because every element's text is a slice of the source (inline markup
stays as written) and that keeps parsing linear even for a 10 MB line.

Decisions:

* source text: the file decoded as UTF-8, a leading BOM dropped, NUL replaced by U+FFFD (as
  CommonMark requires; same length), newlines untouched (`\\r\\n` stays). Invalid UTF-8 is not an
  error: bad bytes become U+FFFD and a warning gives the offset of the first one.
  `loaders.textfile.read_source_text(path)` returns exactly this text;
* each element's text is `source[src_start:src_end]` (`attrs`), trimmed of surrounding whitespace
  (code keeps its leading indentation);
* only top-level blocks become elements:
  heading (ATX: the text between the `#`s and an optional closing `#` run; setext: the text lines
  without the underline; `text_level` = its level; a setext "heading" of several lines, over
  SETEXT_TITLE_MAX characters or starting like a caption (`Figure 2:`) is a paragraph with
  `attrs.not_heading` saying why), paragraph, blockquote (-> paragraph, `>`
  markers kept), list (one element per top-level list, text = its source lines, `blocks` = its
  top-level items with their own src spans), code (fenced: the whole block including the fences,
  so the chunk stays valid Markdown, `attrs.language` = the info string; indented: its lines),
  table (text = its source lines, `rows` = the cell texts, header row first, `\\|` unescaped),
  html_block (-> other). Thematic breaks and link reference definitions make no element;
* a paragraph whose lines are unwrapped (a typical line over 150 characters) or that runs to 20
  lines or more, with no blank line, is split into paragraphs at its lines as a `.txt` file is
  (`plaintext.run_in_paragraphs`: a line per paragraph when unwrapped, else after a short line
  that ends a sentence), each with `attrs.run_in`, and a warning says how many. CommonMark makes
  one paragraph of them (a 118k-character one, for a text exported without blank lines);
* containers nested deeper than `FLAT_LEVEL` token levels (about 20 nested lists) are read as
  plain paragraphs instead of nesting further: parsing stays linear and within Python's recursion
  limit (10,000 nested lists load in a fraction of a second), and, unlike markdown-it's own
  nesting limit, the block still ends where it should instead of swallowing the rest of the file.
  The deep text stays inside its top-level element, so nothing is lost;
* front matter: a `---` first line, a closing `---` or `...` line, and YAML between them that is a
  mapping (aliases refused). Its keys go to `Document.metadata` with every scalar as a string (no
  YAML type guessing: `2024-01-01` and `no` stay strings); it makes no element. Anything else
  (e.g. a thematic break, then a setext heading) is read as Markdown; invalid YAML also adds a
  warning;
* no pages: `pages=()`, `page_idx` and `bbox` are None; element ids are `e{n}` in document order.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import markdown_it
import yaml
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock, paragraph
from markdown_it.tree import SyntaxTreeNode

from chunkbench.types.document import Document, Element, ParserInfo, make_document

from .plaintext import escaped_paragraphs, escaped_warning, run_in_paragraphs, wiki_heading
from .textfile import SourceLines, decode_source, read_bytes

SOURCE = "markdown"
PARSER = ParserInfo("markdown-it", markdown_it.__version__,
                    {"preset": "commonmark", "plugins": ["table"], "run_in_paragraphs": "2026-11-25",
                     "wiki_headings": "2026-11-27", "escaped_newlines": "2026-11-27"})

#: token nesting level from which blocks are read as paragraphs (see the module notes)
FLAT_LEVEL = 40
#: a setext "heading" longer than this is read as a paragraph over a rule (see _not_a_title)
SETEXT_TITLE_MAX = 120
_CAPTION = re.compile(r"^(figure|fig\.|table|chart|image|photo|source|note)\s*[\dA-Z:.]", re.I)
_FRONT_MATTER_END = ("---", "...")

# node type -> element type; node types missing here (hr) make no element
_TYPES = {
    "heading": "heading",
    "paragraph": "paragraph",
    "blockquote": "paragraph",
    "bullet_list": "list",
    "ordered_list": "list",
    "fence": "code",
    "code_block": "code",
    "table": "table",
    "html_block": "other",
}


def load_markdown(path: str | os.PathLike) -> Document:
    """Load a Markdown file: top-level blocks as elements, each with `attrs` src_start/src_end."""
    file = Path(path)
    data = read_bytes(file)
    text, warnings = decode_source(data)
    lines = SourceLines(text)
    metadata, body_line = _front_matter(text, lines, warnings)
    body = BlankRuns(text[lines.start(body_line):] if body_line < len(lines) else "", body_line)
    tokens = _markdown_it().parse(body.text)
    root = SyntaxTreeNode(_in_source_lines(tokens, body))
    elements: list[Element] = []
    split = escaped = 0
    for node in root.children:
        if node.type not in _TYPES:
            continue
        pieces = _run_in(node, lines)
        split += bool(pieces)
        spans = pieces or ([lines.span(*_line_map(node))] if node.type == "paragraph" else [])
        broken = [escaped_paragraphs(text, a, b) for a, b in spans]
        escaped += sum(map(bool, broken))
        texts = [(piece, bool(x)) for span, x in zip(spans, broken) for piece in (x or [span])]
        if pieces or any(broken) or (texts and wiki_heading(text, *texts[0][0])):
            for (a, b), unescaped in texts:
                elements.append(_text_element(f"e{len(elements)}", text, a, b, run_in=bool(pieces),
                                              escaped_lines=unescaped))
        else:
            elements.append(_element(f"e{len(elements)}", node, lines))
    if split:
        made = sum(1 for e in elements if e.attrs.get("run_in"))
        warnings.append(f"{split} Markdown paragraph(s) of unwrapped or many lines with no blank line between "
                        f"them were split into {made} paragraphs at their lines, as a .txt file is")
    if escaped:
        warnings.append(escaped_warning(escaped, len(elements)))
    doc = make_document(
        file, elements, (), PARSER, warnings=warnings, doc_id=hashlib.sha256(data).hexdigest()
    )
    return doc.with_metadata(**metadata) if metadata else doc


def _markdown_it() -> MarkdownIt:
    """CommonMark + GFM tables, block rules only (element texts are source slices)."""
    md = MarkdownIt("commonmark", {"maxNesting": FLAT_LEVEL + 10}).enable("table").disable("inline")
    md.block.ruler.before("table", "flat_when_deep", _flat_when_deep)
    return md


def _flat_when_deep(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Past FLAT_LEVEL, take each block as a paragraph: no further nesting, no recursion.

    markdown-it's own limit (`maxNesting`) ends the nested parse at the end of the *file*, which
    would pull everything after a deep list into it.
    """
    return state.level >= FLAT_LEVEL and paragraph(state, start_line, end_line, silent)


def _front_matter(text: str, lines: SourceLines, warnings: list[str]) -> tuple[dict[str, Any], int]:
    """(metadata, first body line): the YAML front matter's mapping, or ({}, 0) when there is none."""
    if len(lines) < 2 or lines.line(0).rstrip() != "---":
        return {}, 0
    end = next((n for n in range(1, len(lines)) if lines.line(n).rstrip() in _FRONT_MATTER_END), None)
    if end is None:
        return {}, 0
    source = text[lines.start(1) : lines.start(end)]
    try:
        if any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(source, Loader=yaml.BaseLoader)):
            raise yaml.YAMLError("aliases are not supported")
        value = yaml.load(source, Loader=yaml.BaseLoader)
    except (yaml.YAMLError, RecursionError) as exc:
        problem = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        warnings.append(f"front matter is not valid YAML ({problem}); read as Markdown")
        return {}, 0
    if value is None:
        return {}, end + 1
    if not isinstance(value, dict):
        return {}, 0
    return value, end + 1


def _run_in(node: SyntaxTreeNode, lines: SourceLines) -> list[tuple[int, int]]:
    """A paragraph's run-in paragraphs (source spans), when its lines hold several (see
    plaintext.run_in_paragraphs); [] for any other block."""
    if node.type != "paragraph":
        return []
    first, stop = _line_map(node)
    return run_in_paragraphs(lines, first, stop)


def _text_element(element_id: str, text: str, a: int, b: int, **flags: bool) -> Element:
    """A paragraph found in the lines of a Markdown paragraph (`flags`: how, those set go to
    attrs), or a heading when it is a line of wiki markup (plaintext.wiki_heading)."""
    wiki = wiki_heading(text, a, b)
    if wiki:
        level, a, b = wiki
        return Element(id=element_id, type="heading", text=text[a:b], text_level=level, source=SOURCE,
                       raw_type="wiki_heading", attrs={"src_start": a, "src_end": b})
    return Element(id=element_id, type="paragraph", text=text[a:b], source=SOURCE, raw_type="paragraph",
                   attrs={"src_start": a, "src_end": b, **{k: True for k, v in flags.items() if v}})


#: runs of more blank lines than this are given to markdown-it as this many (it keeps several
#: numbers per line: a 20 MB file of line breaks took 3.8 GB); no Markdown rule counts beyond two
MAX_BLANK_RUN = 2
#: a line break, blank lines, and the break ending the last of them: one character class, so the
#: match keeps no state per line (a repeated group kept 300 MB for 2 million blank lines)
_BLANK_RUN = re.compile(r"\n[ \t\n]*\n")


class BlankRuns:
    """A Markdown body with long runs of blank lines shortened to MAX_BLANK_RUN, and the way back
    from its line numbers to the source's (`source_line`), the body starting at source line `first`."""

    def __init__(self, body: str, first: int):
        self.first = first
        self.cuts: list[tuple[int, int]] = []  # (line in the short text, lines dropped before it in total)
        pieces, pos, line, dropped = [], 0, 0, 0
        runs = _BLANK_RUN.finditer(body) if "\r" not in body else ()  # lone CRs: lines counted otherwise
        for m in runs:
            breaks = body.count("\n", m.start(), m.end())
            if breaks - 1 <= MAX_BLANK_RUN:
                continue
            line += body.count("\n", pos, m.start()) + MAX_BLANK_RUN + 1
            pieces.append(body[pos:m.start()] + "\n" * (MAX_BLANK_RUN + 1))
            pos, dropped = m.end(), dropped + breaks - MAX_BLANK_RUN - 1
            self.cuts.append((line, dropped))
        pieces.append(body[pos:])
        self.text = "".join(pieces) if self.cuts else body

    def source_line(self, n: int) -> int:
        """The source's line number of line `n` of the short text."""
        k = bisect.bisect_right(self.cuts, (n, float("inf"))) - 1
        return self.first + n + (self.cuts[k][1] if k >= 0 else 0)


def _in_source_lines(tokens: list, body: BlankRuns) -> list:
    """markdown-it's tokens with their line maps in the source's line numbers (past the front matter
    and the shortened blank runs), so every span below is cut from the source as it is."""
    for token in tokens:
        if token.map is not None:
            token.map = [body.source_line(token.map[0]), body.source_line(token.map[1] - 1) + 1] \
                if token.map[1] > token.map[0] else [body.source_line(token.map[0])] * 2
        if token.children:
            _in_source_lines(token.children, body)
    return tokens


def _line_map(node: SyntaxTreeNode) -> tuple[int, int]:
    """The [first, stop) source lines of a block node (markdown-it maps every block it parses; the
    maps are in the source's numbering, `_in_source_lines`)."""
    if node.map is None:
        raise ValueError(f"markdown-it gave a {node.type} block without source lines")
    return node.map


def _element(element_id: str, node: SyntaxTreeNode, lines: SourceLines) -> Element:
    """One top-level block as an Element whose text is its source slice."""
    first, stop = _line_map(node)
    attrs: dict[str, Any] = {}
    blocks: tuple = ()
    rows = None
    level = None
    etype = _TYPES[node.type]
    if node.type == "heading":
        level = int(node.tag[1])
        a, b = _heading_span(node, lines, first, stop)
        why = _not_a_title(node, lines.text[a:b])
        if why:  # a caption or a paragraph over a `===` line: text, not a heading over what follows
            etype, level = "paragraph", None
            attrs["not_heading"] = why
    else:
        a, b = lines.span(first, stop, keep_indent=node.type in ("fence", "code_block"))
    if node.type == "fence" and node.info.strip():
        attrs["language"] = node.info.strip().split()[0]
    elif node.type == "table":
        rows = tuple(_table_rows(node))
    elif node.type in ("bullet_list", "ordered_list"):
        blocks = tuple(_list_items(node, lines))
    attrs.update(src_start=a, src_end=b)
    return Element(
        id=element_id,
        type=etype,
        text=lines.text[a:b],
        text_level=level,
        blocks=blocks,
        rows=rows,
        source=SOURCE,
        raw_type=node.type,
        attrs=attrs,
    )


def _not_a_title(node: SyntaxTreeNode, text: str) -> str | None:
    """Why a setext heading is read as a paragraph, or None: CommonMark makes any paragraph above a
    `===`/`---` line a heading, but a figure caption or several lines of prose over a rule is not
    a title, and as a heading it would head every chunk up to the next one."""
    if node.markup.startswith("#"):
        return None
    if "\n" in text.strip():
        return "setext underline under several lines of text"
    if len(text) > SETEXT_TITLE_MAX:
        return f"setext underline under {len(text)} characters of text"
    if _CAPTION.match(text):
        return "setext underline under a caption"
    return None


def _heading_span(node: SyntaxTreeNode, lines: SourceLines, first: int, stop: int) -> tuple[int, int]:
    """ATX: where markdown-it's heading content sits in the line; setext: the lines above the underline."""
    if node.markup.startswith("#"):
        content = node.children[0].content if node.children else ""
        line = lines.line(first)
        after_marks = line.index("#") + len(node.markup)
        a = lines.start(first) + (line.find(content, after_marks) if content else after_marks)
        return a, a + len(content)
    return lines.span(first, stop - 1)


def _table_rows(table: SyntaxTreeNode) -> Iterator[tuple[str, ...]]:
    """Cell texts row by row (header first), with GFM's escaped pipe `\\|` unescaped."""
    for row in table.walk():
        if row.type == "tr":
            yield tuple(_cell_text(cell) for cell in row.children)


def _cell_text(cell: SyntaxTreeNode) -> str:
    return cell.children[0].content.replace("\\|", "|") if cell.children else ""


def _list_items(node: SyntaxTreeNode, lines: SourceLines) -> Iterator[dict]:
    """The list's top-level items as {type, text, src_start, src_end} (nested lists stay inside)."""
    for item in node.children:
        a, b = lines.span(*_line_map(item))
        yield {"type": "list_item", "text": lines.text[a:b], "src_start": a, "src_end": b}
