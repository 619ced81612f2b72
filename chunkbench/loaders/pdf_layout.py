"""Run PyMuPDF's layout model (via pymupdf4llm) on a range of pages and map its boxes to Elements.

This is the part of the PDF loader that runs inside worker processes: `parse_range` opens the PDF
itself, so it only needs picklable arguments, and returns picklable `ParsedPage`s. Heading levels
are left to the caller because they depend on the font sizes of the whole document.

Mapping rules (one place, documented here):

* box classes → element types: `title`/`section-header` → heading, `list-item` → list,
  `table` → table, `picture` → image, `caption` → caption, `page-header` → header,
  `page-footer` → footer, `formula` → equation, `footnote` → footnote, `text` → paragraph, or
  code when every line is set in a monospaced font (pymupdf4llm's own rule; the model has no code
  class; a font is monospaced by its fixed-pitch flag or its name, _MONOSPACED_FONT), an OCR
  layer's invisible text aside (Tesseract's GlyphLessFont declares a fixed pitch). A heading or
  list-item box in a monospaced font that reads as a line of source ("% \\CheckSum{0}",
  "# a comment", "\\def\\x{%") is code too (`_is_source_line`). A header or footer whose whole
  text is a page number ("12", "- 12 -", "Page 3 of 9", "xii") becomes page_number. A heading
  whose whole text is one lower-case function word ("or" between two syntax lines in a manual;
  "If" may head a section) becomes a paragraph, and so
  does a heading box that opens with a bold sentence followed by plain text (a run-in heading,
  "**Task information … improvements.** Random with …"), `attrs["reclassified"]` saying so. Any other
  class becomes other; `raw_type` always keeps the class.
* ids are `p{page}-e{n}`: 1-based page number and 1-based position on that page, so they do not
  depend on how pages were split between workers.
* bbox: PDF points, origin top-left, clipped to the page rectangle, rounded to 0.01 pt.
* text: the wrapped lines of a box are joined with single spaces and runs of whitespace
  collapsed. A line ending in "-" after a letter joins a next line starting in lower case
  without a space and keeps the hyphen for now, its offset recorded in
  `attrs["line_end_hyphens"]`: whether it belongs to the word ("non-normal") or to the line
  break ("docu-ment") needs the whole document's words, so the PDF loader decides it once all
  pages are read (`dehyphenate`). Soft hyphens (U+00AD) are removed. Superscript footnote numbers are set off by
  spaces ("alert,5and" → "alert, 5 and"). pymupdf4llm drops whitespace-only spans, so spaces
  between words are restored from the horizontal gaps between spans. Code keeps its line
  breaks; its indentation is rebuilt from the x positions.
* tables: `rows` are the layout model's cells, whitespace-collapsed, with dot leaders
  (". . . . .") removed, "11,062 .6" closed up to "11,062.6", and empty rows dropped; `text` is the rows as a Markdown pipe table.
* rotated pages (/Rotate): pymupdf4llm returns boxes of text that runs vertically once the page
  is shown upright without text lines, so such a box's text is read from its clip rectangle
  (whitespace-collapsed).
* pictures: `text` stays empty (the labels inside a chart are noise in a chunk); any text found
  inside the picture is kept in `attrs["image_text"]`. Except: a `picture` box with at least
  200 characters of running text that no raster image or vector path touches (page-sized
  backgrounds aside) is a text block the model misread (it does so on 14,400 pt pages and on
  pages of 100k characters): it becomes a paragraph with its text, `raw_type` stays `picture`
  and `attrs["reclassified"]` says "picture without image or drawing".
* margin text: text the model put in no box and that lies outside the extent of the page's body
  boxes (production stamps along a margin, a vertical note in the gutter, a running header it
  missed) is page furniture: one page-header box per text block in the upper half of the page,
  page-footer in the lower half, placed first or last on the page, with `raw_type`
  `page-header`/`page-footer` and `attrs["unboxed"]` true. Other extractions keep that text, so
  chunks made from them are found only when it is in the Document. Text inside the body that no
  box holds is left out, as the model decided. Pages with a /Rotate are skipped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import logging
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkbench.errors import InputError
from chunkbench.text.segment import pipe_table
from chunkbench.text.sentences import CLOSERS, STOPS
from chunkbench.text.words import FUNCTION_WORDS
from chunkbench.types.document import Element, ElementType, Page

from .dehyphenate import ATTR as LINE_END_HYPHENS
from .footnotes import heaviest_size
from .ocr_columns import in_column_order
from .pdflib import pymupdf, pymupdf_open
from .symbol_fonts import bullet_codes, symbol_text
from .table_words import Word, column_lines, corrected_cells

log = logging.getLogger(__name__)

SOURCE = "pymupdf"

_TYPE_OF_CLASS = {
    "title": ElementType.HEADING,
    "section-header": ElementType.HEADING,
    "list-item": ElementType.LIST,
    "table": ElementType.TABLE,
    "picture": ElementType.IMAGE,
    "caption": ElementType.CAPTION,
    "page-header": ElementType.HEADER,
    "page-footer": ElementType.FOOTER,
    "formula": ElementType.EQUATION,
    "code": ElementType.CODE,
    "footnote": ElementType.FOOTNOTE,
    "text": ElementType.PARAGRAPH,
}
HEADING_CLASSES = frozenset({"title", "section-header"})

_SUPERSCRIPT = pymupdf.TEXT_FONT_SUPERSCRIPT
_MONOSPACED = pymupdf.TEXT_FONT_MONOSPACED
#: typewriter fonts by name, for PDFs whose font descriptors do not declare the fixed pitch (older
#: pdfTeX embeds Computer Modern Typewriter, CMTT, with flags 4; DejaVuSansMono too): TeX's
#: typewriter families, then any font called "…Mono…" (not Monotype's) or Courier
_MONOSPACED_FONT = re.compile(r"(?:^|\+)(?:CMTT|SFTT|TCTT|LMMono|lmtt|txtt|pcrr|rpcr|Courier|Inconsolata|Consolas|Menlo|Monaco)"
                              r"|Mono(?!type)", re.IGNORECASE)
#: a line of source in a heading box: a comment ("% \CheckSum{0}", "# …", "// …"), a TeX control
#: sequence ("\def\acc@error{%"), or a line ending in an open brace or a semicolon, after a
#: listing's line number ("353 % \newcounter{footnote}"); a control sequence alone ("\implies",
#: a macro's name over its description) is a name, not a line of source
_SOURCE_LINE = re.compile(r"(?:\d{1,6}\s+)?(?!\\[A-Za-z@]+\*?\Z)(?:(?:%|#|//|\\[A-Za-z@]).*|.*(?:\{%?|;))")
#: a shell command line set as a heading in a monospaced font: a relative path run ("./configure
#: VAR=value"), a make target ("make check-devel"), a command with options ("ls -l"), or a
#: variable's assignment ("CXX=clang++", "LANGUAGE=en")
_COMMAND_LINE = re.compile(r"\./\S.*|make(?:\s+[\w.-]+)+|\S+(?:\s+\S+)*\s+--?[A-Za-z]\S*.*|[A-Za-z_]\w*=\S+(?:\s+\S+)*")
#: a monospaced heading that is a variable's name or a quoted word alone ("SHLIB_CFLAGS",
#: "‘fullrefman’"): a definition list's term (Texinfo's `@table @code`), over its description
_TERM = re.compile(r"[A-Z][A-Z0-9_]{3,}|[‘'`\"“][\w.+-]+[’'\"”]")
_QUOTES = " ‘’'`\"“”"
_BOLD = pymupdf.TEXT_FONT_BOLD
#: the end of a run-in heading: a sentence stop or a colon, maybe in closing quotes or brackets
_LEAD_END = re.compile(rf"[{STOPS}:][{re.escape(CLOSERS)}]*\s*\Z")
_SOFT_HYPHEN = "\u00ad"
#: the font of Tesseract's invisible text layer (also as "ABCDEF+GlyphLessFont", subset)
_OCR_FONT = "GlyphLessFont"
#: a horizontal gap between spans wider than this fraction of the font size separates words
_WORD_GAP = 0.1
_PAGE_NUMBER = re.compile(
    r"(?:page\s+)?[-–—(\[]?\s*(?:\d{1,5}|[ivxlcdm]{1,8})\s*[-–—)\]]?(?:\s*(?:of|/)\s*\d{1,5})?",
    re.IGNORECASE,
)
#: a `picture` box with this much running text and no image or path in it is a paragraph
PICTURE_TEXT_MIN = 200
#: a path covering this share of the page is a background, not a figure
_BACKGROUND_SHARE = 0.9
#: dot leaders: spaced dots (". . ."), four or more dots, or a stray dot ending a cell
_DOT_LEADER = re.compile(r"(?:^|(?<=\s))\.(?:\s+\.)+|\.{4,}|\s+\.$")
#: a decimal point set apart from its integer part ("11,062 .6")
_SPACED_DECIMAL = re.compile(r"(?<=\d) \.(?=\d)")


@dataclass(frozen=True)
class ParsedPage:
    """One parsed page: its Page record, its elements in reading order (headings without a
    level yet), the largest font size of each heading and the most common font size of each
    paragraph's characters, keyed by element id."""

    page: Page
    elements: tuple[Element, ...]
    heading_sizes: Mapping[str, float] = field(default_factory=dict)
    paragraph_sizes: Mapping[str, float] = field(default_factory=dict)
    #: pymupdf4llm would OCR this page if Tesseract were installed (whether or not it is)
    ocr_wanted: bool = False
    #: OCR'd text on this page still looks like two columns read across (ocr_columns)
    ocr_interleaved: bool = False
    #: lines of text set far beyond the page, left out (the rest read from the text blocks)
    lines_off_page: int = 0


def open_pdf(path: str | os.PathLike, password: str | None = None) -> pymupdf.Document:
    """Open a PDF for reading, authenticated; InputError naming the problem if that fails."""
    try:
        doc = pymupdf_open(path, filetype="pdf")
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except pymupdf.EmptyFileError:
        raise InputError("empty file, not a PDF", path) from None
    except (pymupdf.FileDataError, RuntimeError) as exc:
        raise InputError(f"not a PDF or damaged beyond repair ({exc})", path) from None
    if not doc.is_pdf:  # MuPDF sniffs the content: an image named .pdf opens as an image document
        doc.close()
        raise InputError("not a PDF (the content is another file type)", path)
    if doc.needs_pass:
        if password is None:
            doc.close()
            raise InputError("encrypted PDF: a password is needed (password= or --password)", path)
        if not doc.authenticate(password):
            doc.close()
            raise InputError("encrypted PDF: wrong password", path)
    try:
        count = doc.page_count
    except (RuntimeError, pymupdf.mupdf.FzErrorBase) as exc:  # e.g. /Count 1000000000 in the page tree
        doc.close()
        raise InputError(f"damaged page tree: {exc}", path) from None
    if count == 0:
        doc.close()
        raise InputError("PDF has no pages (damaged or truncated?)", path)
    return doc


def layout_engine():
    """pymupdf4llm with PyMuPDF's layout model loaded: imported on first use (see `pdflib`), as
    a load served from the parse cache needs neither."""
    import pymupdf.layout
    import pymupdf4llm

    pymupdf.layout.activate()  # runs the deferred import; a no-op once the model is active
    return pymupdf4llm


def limit_model_threads(threads: int = 1) -> None:
    """Make every ONNX Runtime session opened from now on in this process (the layout model's)
    use `threads` threads. For processes that each parse whole files side by side (corpus
    workers): by default one parse keeps about 1.5 cores busy, so two such processes on two cores
    get in each other's way; with one thread each they finish sooner. The parse is the same
    (tests/loaders/test_corpus.py compares it byte for byte). Sessions opened before are not changed."""
    import onnxruntime as ort

    if getattr(ort.InferenceSession, "_chunkbench_threads", None) == threads:
        return
    base = getattr(ort.InferenceSession, "_chunkbench_base", ort.InferenceSession)

    class LimitedSession(base):  # type: ignore[misc, valid-type]
        _chunkbench_threads = threads
        _chunkbench_base = base

        def __init__(self, path_or_bytes, sess_options=None, *args, **kwargs):
            options = sess_options if sess_options is not None else ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = threads
            super().__init__(path_or_bytes, options, *args, **kwargs)

    ort.InferenceSession = LimitedSession


def _without_outline(doc: pymupdf.Document) -> pymupdf.Document:
    """`doc` with an empty outline for pymupdf4llm, which reads the whole outline on every call (into
    page chunks' `toc_items`, which chunkbench does not use) by recursion: an outline 5,000 levels deep
    stopped the parse with "maximum recursion depth exceeded" although the page text was fine."""
    doc.get_toc = lambda *args, **kwargs: []
    return doc


def parse_range(
    path: str, password: str | None, first: int, stop: int, ocr: bool
) -> tuple[ParsedPage, ...]:
    """Parse pages `first` to `stop - 1` (0-based) with the layout model; OCR only if `ocr`."""
    doc = _without_outline(open_pdf(path, password))
    try:
        pages = list(range(first, stop))
        # MuPDF failing on a damaged page (a page tree with a cycle, a broken content stream) is
        # a bad input, raised as one here: its own exceptions do not even cross to the parent process
        with captured_messages() as messages:
            try:
                text_blocks = [_text_blocks(doc[i]) for i in pages]
                has_text = [bool(blocks) for blocks in text_blocks]
                blank = {i for i, text in zip(pages, has_text) if not text and _draws_nothing(doc[i])}
                ocr_wanted = [i not in blank and _ocr_would_read(doc[i]) for i in pages]
                rotated = [i for i in pages if doc[i].rotation]
                raw_pages = _layout(doc, [i for i in pages if i not in blank], ocr, blank)
                interleaved = [ocr and in_column_order(raw_page, _is_ocr_layer) for raw_page in raw_pages]
                off_page: dict[int, int] = {}
                for i, raw_page, blocks in zip(pages, raw_pages, text_blocks):
                    if i in rotated:
                        _add_rotated_text(doc[i], raw_page)
                    else:
                        _add_margin_text(doc[i], raw_page, blocks)
                    _mark_text_pictures(doc[i], raw_page)
                    _correct_table_cells(doc[i], raw_page)
                    _read_text_blocks_instead(doc[i], raw_page, blocks)
                    off_page[i] = _off_page_text(doc[i], raw_page, blocks)
            except (RuntimeError, pymupdf.mupdf.FzErrorBase) as exc:
                raise InputError(f"cannot parse pages {first + 1}-{stop}: {exc}", path) from None
    finally:
        doc.close()
    for line in messages.getvalue().splitlines():
        if line.strip():
            log.debug("pymupdf4llm: %s", line.strip())
    return tuple(dataclasses.replace(_parse_page(page, text_layer), ocr_wanted=wanted, ocr_interleaved=mixed,
                                     lines_off_page=off_page.get(i, 0))
                 for i, page, text_layer, wanted, mixed in zip(pages, raw_pages, has_text, ocr_wanted, interleaved))


def _layout(doc: pymupdf.Document, pages: Sequence[int], ocr: bool, blank: set[int]) -> list[dict]:
    """pymupdf4llm's raw pages for `pages`, and for the `blank` ones (no text, no image, no drawing)
    an empty page of the same size without running the layout model (0.1 s a page on this machine
    for nothing: a PDF of 5,000 empty pages took 30-40 minutes to give 0 chunks)."""
    found = json.loads(layout_engine().to_json(doc, pages=list(pages), **ocr_options(ocr)))["pages"] if pages else []
    by_number = {page["page_number"] - 1: page for page in found}
    for i in blank:
        rect = doc[i].rect
        by_number[i] = {"page_number": i + 1, "width": rect.width, "height": rect.height, "boxes": []}
    return [by_number[i] for i in sorted(by_number)]


def _ocr_would_read(page: pymupdf.Page) -> bool:
    """pymupdf4llm's own decision whether to OCR `page` in the mode chunkbench uses (where it is
    needed, keeping an OCR layer the PDF already has), made whether or not Tesseract is installed."""
    layout_engine()
    from pymupdf4llm.helpers.document_layout import make_ocr_decision
    from pymupdf4llm.ocr import OCRMode

    return bool(make_ocr_decision(page, OCRMode.SELECT_KEEP_OLD)[0])


def _add_rotated_text(page: pymupdf.Page, raw_page: dict) -> None:
    """Give the boxes of a page that had a /Rotate the text pymupdf4llm leaves out.

    to_json turns such a page upright in memory (rotation 0, contents transformed as displayed);
    text that was upright before the rotation now runs vertically, and pymupdf4llm returns its
    boxes without text lines. The text inside each such box is read directly instead
    (`rotated_text`, used by `_box_element` when a box has no lines)."""
    for box in raw_page["boxes"]:
        if box.get("textlines"):
            continue
        clip = pymupdf.Rect(box["x0"], box["y0"], box["x1"], box["y1"])
        text = " ".join(page.get_text("text", clip=clip).split())
        if text:
            box["rotated_text"] = text


#: what an element read from the PDF's text blocks, not the layout model, says about itself (attrs)
READ_WITHOUT_LAYOUT = ("the layout model read no text on this page (text at an angle, a page crowded with "
                       "annotations): read from the PDF's text blocks instead")


def _read_text_blocks_instead(page: pymupdf.Page, raw_page: dict, blocks: Sequence[dict]) -> None:
    """A page whose text layer has text but whose boxes hold none: each text block becomes a
    paragraph box of its own text, marked READ_WITHOUT_LAYOUT, so no text is lost in silence."""
    if not blocks or any(box.get("textlines") or box.get("rotated_text") for box in raw_page["boxes"]):
        return
    raw_page["boxes"].extend(_text_block_boxes(page, blocks)[0])


def _text_block_boxes(page: pymupdf.Page, blocks: Sequence[dict],
                      left_out: Callable[[pymupdf.Rect], bool] | None = None) -> tuple[list[dict], int]:
    """A paragraph box (READ_WITHOUT_LAYOUT) per text block, of its lines' text and boxes (the page
    shown upright), lines `left_out` (by their box) passed over; and how many were."""
    to_displayed = page.rotation_matrix
    boxes, dropped = [], 0
    for block in blocks:
        lines = []
        for line in block["lines"]:
            r = pymupdf.Rect(line["bbox"]) * to_displayed
            if left_out is not None and left_out(r):
                dropped += 1
            elif (text := " ".join(" ".join(s["text"] for s in line["spans"]).split())):
                lines.append((r, text))
        if lines:
            r = pymupdf.Rect(lines[0][0])
            for other, _ in lines[1:]:
                r |= other
            boxes.append({"x0": r.x0, "y0": r.y0, "x1": r.x1, "y1": r.y1, "boxclass": "text",
                          "rotated_text": " ".join(t for _, t in lines), "read_without_layout": True})
    return boxes, dropped


#: a box or a line reaching this share of its page's size beyond the page is set off the page
_OFF_PAGE = 0.5


def _off_page(rect: Sequence[float], width: float, height: float) -> bool:
    x0, y0, x1, y1 = rect
    return (x0 < -_OFF_PAGE * width or y0 < -_OFF_PAGE * height
            or x1 > (1 + _OFF_PAGE) * width or y1 > (1 + _OFF_PAGE) * height)


def _off_page_text(page: pymupdf.Page, raw_page: dict, blocks: Sequence[dict]) -> int:
    """One absurd run of text (5,000 pt tall, or under a 1e30 text matrix) makes the layout model
    draw one box over the whole page, which then reads as one footer: 0 chunks. When a box reaches
    far beyond its page, the page is read from its text blocks instead (READ_WITHOUT_LAYOUT), their
    lines set far beyond the page left out; returns how many were (the page is named in a warning)."""
    width, height = raw_page["width"], raw_page["height"]
    if not any(_off_page((b["x0"], b["y0"], b["x1"], b["y1"]), width, height) for b in raw_page["boxes"]):
        return 0
    raw_page["boxes"], left_out = _text_block_boxes(page, blocks, lambda r: _off_page(tuple(r), width, height))
    return left_out


def _text_blocks(page: pymupdf.Page) -> list[dict]:
    """The page's text blocks with their lines and spans (PyMuPDF's "dict"), those with any text."""
    blocks = page.get_text("dict", flags=pymupdf.TEXTFLAGS_TEXT)["blocks"]
    return [b for b in blocks if b.get("type") == 0 and any(s["text"].strip() for ln in b["lines"] for s in ln["spans"])]


def _add_margin_text(page: pymupdf.Page, raw_page: dict, blocks: Sequence[dict]) -> None:
    """Add a page-header or page-footer box for each text block outside every box and outside
    the body's extent (see the module docstring, "margin text")."""
    boxes = raw_page["boxes"]
    body = [b for b in boxes if b["boxclass"] not in ("page-header", "page-footer")]
    if not body:
        return  # no body to tell the margins by (a blank or picture page)
    left, top = min(b["x0"] for b in body), min(b["y0"] for b in body)
    right, bottom = max(b["x1"] for b in body), max(b["y1"] for b in body)
    width, height = raw_page["width"], raw_page["height"]
    heads: list[dict] = []
    feet: list[dict] = []
    for block in blocks:
        lines = []
        for line in block["lines"]:
            x0, y0, x1, y1 = line["bbox"]
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            if not (0 <= cx <= width and 0 <= cy <= height) or not any(s["text"].strip() for s in line["spans"]):
                continue  # off the page, or blank
            if left <= cx <= right and top <= cy <= bottom:
                continue  # in the body: the model's call
            if any(b["x0"] <= cx <= b["x1"] and b["y0"] <= cy <= b["y1"] for b in boxes):
                continue
            lines.append(line)
        if not lines:
            continue
        x0, y0 = min(ln["bbox"][0] for ln in lines), min(ln["bbox"][1] for ln in lines)
        x1, y1 = max(ln["bbox"][2] for ln in lines), max(ln["bbox"][3] for ln in lines)
        upper = (y0 + y1) / 2 < height / 2
        box = {"boxclass": "page-header" if upper else "page-footer", "x0": x0, "y0": y0, "x1": x1, "y1": y1,
               "textlines": lines, "unboxed": True}
        (heads if upper else feet).append(box)
    if heads or feet:
        raw_page["boxes"] = heads + boxes + feet


def _mark_text_pictures(page: pymupdf.Page, raw_page: dict) -> None:
    """Flag the `picture` boxes that are really text (`text_picture`, read by `_box_element`).

    At extreme scales (a 14,400 pt page, 100k characters on a page) the layout model calls a
    plain text block a picture. A box with at least PICTURE_TEXT_MIN characters of running text
    that no raster image or vector path touches is flagged; page backgrounds (paths covering
    most of the page) do not count. Charts and figures keep their paths or images, so they
    stay pictures. The page's drawing log is read only when a page has such a candidate."""
    candidates = [
        box for box in raw_page["boxes"]
        if box["boxclass"] == "picture"
        and len(flow_text(box.get("textlines") or []) or box.get("rotated_text", "")) >= PICTURE_TEXT_MIN
    ]
    if not candidates:
        return
    graphics = _graphics_rects(page)
    for box in candidates:
        x0, y0, x1, y1 = box["x0"], box["y0"], box["x1"], box["y1"]
        if not any(r.x0 <= x1 and x0 <= r.x1 and r.y0 <= y1 and y0 <= r.y1 for r in graphics):
            box["text_picture"] = True


def _correct_table_cells(page: pymupdf.Page, raw_page: dict) -> None:
    """Correct each table's cell texts from the page's words where the model's column lines cut
    a word, split a column at a word space or miss a column white space sets apart
    (`table_words`). Rotated pages are skipped (their words are not in the boxes' upright coordinates)."""
    tables = [box["table"] for box in raw_page["boxes"] if box["boxclass"] == "table" and box.get("table")]
    tables = [t for t in tables if t.get("cells") and t.get("extract")]
    if not tables or page.rotation:
        return
    for table in tables:
        words = _words_in(page, table["bbox"], column_lines(table["cells"]))
        corrected = corrected_cells(table["cells"], table["extract"], words)
        if corrected is not None:
            table["extract"] = corrected


#: inside a line, a gap wider than this share of the font size starts a new word
_WORD_BREAK = 0.25
#: a MuPDF word this many times the usual word's height runs across two printed lines
_TALL_WORD = 1.4


def _words_in(page: pymupdf.Page, bbox: Sequence[float], lines: Sequence[float] = ()) -> list[Word]:
    """The words inside `bbox`, from the characters: a space, a gap wider than _WORD_BREAK of the
    font size, or a character printed that far back over the previous one ends a word. (MuPDF's own words run on across a gap when two cells' lines share a
    line: "parameter" over "simple" in a two-line header cell came out "parametersimple", a word
    as tall as two lines, and "default.XXX●" across a column line, the mark printed over the name;
    MuPDF's words, which cost a fifth as much, are used when none is tall or crosses one of `lines`.)"""
    clip = pymupdf.Rect(bbox)
    quick = [Word(*w[:5]) for w in page.get_text("words", clip=clip)]
    heights = sorted(w.y1 - w.y0 for w in quick)
    if not heights or (heights[-1] <= _TALL_WORD * heights[len(heights) // 2]
                       and not any(w.x0 < x - 1 and w.x1 > x + 1 for w in quick for x in lines)):
        return quick  # MuPDF's words, unless one spans two printed lines or runs across a column line
    words: list[Word] = []
    for block in page.get_text("rawdict", clip=clip, flags=pymupdf.TEXTFLAGS_TEXT)["blocks"]:
        for line in block.get("lines", ()):
            chars = [(c, span["size"]) for span in line["spans"] for c in span["chars"]]
            current: list[dict] = []
            for char, size in [*chars, (None, 0.0)]:
                if current and (char is None or char["c"].isspace()
                                or char["bbox"][0] - current[-1]["bbox"][2] > _WORD_BREAK * size
                                or char["bbox"][0] < current[-1]["bbox"][2] - _WORD_BREAK * size):
                    boxes = [c["bbox"] for c in current]
                    words.append(Word(min(b[0] for b in boxes), min(b[1] for b in boxes),
                                      max(b[2] for b in boxes), max(b[3] for b in boxes),
                                      "".join(c["c"] for c in current)))
                    current = []
                if char is not None and not char["c"].isspace():
                    current.append(char)
    return [w for w in words if clip.intersects(pymupdf.Rect(w.x0, w.y0, w.x1, w.y1))]


def _draws_nothing(page: pymupdf.Page) -> bool:
    """Nothing is painted on the page but clips and a page-sized background: no image (a scan is
    one, however large), no text, no drawing."""
    page_area = abs(page.rect)
    for kind, bbox in page.get_bboxlog():
        if kind.startswith("clip"):
            continue
        if kind.endswith("path") and page_area and abs(pymupdf.Rect(bbox) & page.rect) >= _BACKGROUND_SHARE * page_area:
            continue
        return False
    return True


def _graphics_rects(page: pymupdf.Page) -> list[pymupdf.Rect]:
    """Rectangles of the raster images and vector paths painted by a page's contents, in the
    coordinates of the layout boxes (the page shown upright), without page-sized backgrounds.
    Annotations are left out: they are not the document's figures, and 20,000 small squares over
    a page of text once kept its paragraphs in a 'picture' the layout model saw through them."""
    page_area = abs(page.rect)
    rects = []
    for kind, bbox in _contents_bboxlog(page):
        if kind.startswith("clip") or kind.endswith("text"):
            continue
        rect = pymupdf.Rect(bbox) * page.rotation_matrix if page.rotation else pymupdf.Rect(bbox)
        if page_area and abs(rect & page.rect) >= _BACKGROUND_SHARE * page_area:
            continue
        rects.append(rect)
    return rects


def _contents_bboxlog(page: pymupdf.Page) -> list[tuple[str, tuple[float, ...]]]:
    """`Page.get_bboxlog` of the page's contents alone (MuPDF's run of the contents, without its
    annotations and widgets), in unrotated coordinates as get_bboxlog gives them."""
    rotation = page.rotation
    if rotation:
        page.set_rotation(0)
    log: list[tuple[str, tuple[float, ...]]] = []
    device = pymupdf.JM_new_bbox_device(log, False)
    try:
        pymupdf.mupdf.fz_run_page_contents(page.this, device, pymupdf.mupdf.FzMatrix(), pymupdf.mupdf.FzCookie())
        pymupdf.mupdf.fz_close_device(device)
    finally:
        if rotation:
            page.set_rotation(rotation)
    return log


def ocr_options(ocr: bool) -> dict[str, Any]:
    """to_json options: OCR with Tesseract where a page needs it, or never OCR at all."""
    layout_engine()
    from pymupdf4llm.ocr import OCRMode

    if not ocr:
        return {"use_ocr": OCRMode.NEVER}
    from pymupdf4llm.ocr import tesseract_api

    return {"use_ocr": OCRMode.SELECT_KEEP_OLD, "ocr_function": tesseract_api.exec_ocr}


@contextlib.contextmanager
def captured_messages() -> Iterator[io.StringIO]:
    """Catch what pymupdf4llm prints (its "Document parser messages", OCR notices) so it cannot
    corrupt CLI output. PyMuPDF's message stream is bound at import time, so redirecting stdout
    alone misses it; PyMuPDF has no getter for it, hence the private attribute."""
    buffer = io.StringIO()
    previous = pymupdf._g_out_message
    pymupdf.set_messages(stream=buffer)
    try:
        with contextlib.redirect_stdout(buffer):
            yield buffer
    finally:
        pymupdf._g_out_message = previous


def _parse_page(raw_page: Mapping[str, Any], has_text: bool) -> ParsedPage:
    number = int(raw_page["page_number"])
    page = Page(number - 1, round(raw_page["width"], 2), round(raw_page["height"], 2), has_text)
    elements = []
    heading_sizes = {}
    paragraph_sizes = {}
    for n, box in enumerate(raw_page["boxes"], start=1):
        element = _box_element(box, page, f"p{number}-e{n}")
        elements.append(element)
        if element.type == ElementType.HEADING.value:  # not a heading box read as a paragraph ("or")
            heading_sizes[element.id] = float(box.get("max_fontsize") or 0)
        elif element.type == ElementType.PARAGRAPH.value and (size := _common_size(box.get("textlines") or [])):
            paragraph_sizes[element.id] = size
    return ParsedPage(page, tuple(elements), heading_sizes, paragraph_sizes)


def _common_size(lines: Sequence[Mapping[str, Any]]) -> float:
    """The font size (to 0.1 pt) most of a box's characters are set in; 0 for a box without text."""
    weight: Counter[float] = Counter()
    for line in lines:
        for span in line["spans"]:
            weight[round(float(span["size"]), 1)] += len(span["text"].strip())
    return heaviest_size(weight) or 0.0


def _box_element(box: Mapping[str, Any], page: Page, element_id: str) -> Element:
    boxclass = box["boxclass"]
    kind = _TYPE_OF_CLASS.get(boxclass, ElementType.OTHER)
    lines = box.get("textlines") or []
    rotated_text = box.get("rotated_text", "")  # a rotated page's text (see _add_rotated_text)
    rows = None
    attrs: dict[str, Any] = {}
    if kind is ElementType.TABLE:
        extract = (box.get("table") or {}).get("extract")
        rows = table_rows(extract) if extract else None  # None: the model found no cell grid
        text = pipe_table(rows or ())
    elif kind is ElementType.IMAGE and box.get("text_picture"):  # see _mark_text_pictures
        kind = ElementType.PARAGRAPH
        text = _running_text(lines, rotated_text, attrs)
        attrs["reclassified"] = "picture without image or drawing"
    elif kind is ElementType.IMAGE:
        text = ""
        image_text = flow_text(lines) or rotated_text
        if image_text:
            attrs["image_text"] = image_text
    elif kind is ElementType.CODE or (kind is ElementType.PARAGRAPH and _is_monospaced(lines)):
        kind = ElementType.CODE
        text = code_text(lines) or rotated_text
    else:
        text = _running_text(lines, rotated_text, attrs)
        if kind in (ElementType.HEADER, ElementType.FOOTER) and _PAGE_NUMBER.fullmatch(text):
            kind = ElementType.PAGE_NUMBER
        elif kind in (ElementType.HEADING, ElementType.LIST) and _is_source_line(text, lines):
            kind = ElementType.CODE
            text = code_text(lines)
            attrs["reclassified"] = SOURCE_LINE
        elif kind is ElementType.HEADING and _is_monospaced(lines, a_line=True) and _TERM.fullmatch(text.strip()):
            kind = ElementType.PARAGRAPH
            attrs["reclassified"] = MONOSPACED_TERM
            attrs["definition"] = "term"
        elif kind is ElementType.HEADING and (why := _heading_misread(text, lines)):
            kind = ElementType.PARAGRAPH
            attrs["reclassified"] = why
    if box.get("unboxed"):  # see _add_margin_text
        attrs["unboxed"] = True
    if box.get("read_without_layout"):  # see _read_text_blocks_instead
        attrs["read_without_layout"] = READ_WITHOUT_LAYOUT
    return Element(
        id=element_id,
        type=kind.value,
        text=text,
        page_idx=page.index,
        bbox=_clipped_bbox(box, page),
        rows=rows,
        source=SOURCE,
        raw_type=boxclass,
        attrs=attrs,
    )


def _running_text(lines: Sequence[Mapping[str, Any]], rotated_text: str, attrs: dict[str, Any]) -> str:
    """A text box's running text (a rotated page's when it has no lines); the line-end hyphens
    it kept are recorded in `attrs` for the document-wide decision (`dehyphenate`)."""
    text, hyphens = flow_text_and_hyphens(lines)
    if hyphens and text:
        attrs[LINE_END_HYPHENS] = hyphens
    return text or rotated_text


def flow_text(lines: Sequence[Mapping[str, Any]]) -> str:
    """Running text of a box: wrapped lines joined as described in the module docstring."""
    return flow_text_and_hyphens(lines)[0]


def flow_text_and_hyphens(lines: Sequence[Mapping[str, Any]]) -> tuple[str, list[int]]:
    """`flow_text`, and the offsets of the hyphens kept where a line ending in "letter-" was
    joined to the next (the document decides later which belong to the word: `dehyphenate`)."""
    pieces: list[str] = []
    hyphens: list[int] = []
    length = 0
    previous = ""  # the last line as written, soft hyphens included
    for line in lines:
        text = " ".join(_line_text(line).split())
        if not text:
            continue
        if previous.endswith(_SOFT_HYPHEN):
            pass
        elif previous and joins_hyphenated(previous, text):
            hyphens.append(length - 1)
        elif previous:
            pieces.append(" ")
            length += 1
        clean = text.replace(_SOFT_HYPHEN, "")
        pieces.append(clean)
        length += len(clean)
        previous = text
    return "".join(pieces), hyphens


def code_text(lines: Sequence[Mapping[str, Any]]) -> str:
    """Code keeps one output line per text line; indentation and gaps are rebuilt from positions
    in units of the monospaced character width."""
    spans = [s for line in lines for s in line["spans"] if s["text"]]
    if not spans:
        return ""
    left = min(line["spans"][0]["bbox"][0] for line in lines if line["spans"])
    width = sum(s["bbox"][2] - s["bbox"][0] for s in spans) / sum(len(s["text"]) for s in spans)
    out = []
    for line in lines:
        indent = round((line["spans"][0]["bbox"][0] - left) / width) if line["spans"] and width > 0 else 0
        out.append(" " * indent + _line_text(line, char_width=width).rstrip())
    return "\n".join(out).strip("\n")


def table_rows(extract: Sequence[Sequence[str | None]]) -> tuple[tuple[str, ...], ...]:
    """Cleaned table cells: whitespace collapsed, dot leaders removed, empty rows dropped."""
    rows = []
    for row in extract:
        cells = tuple(_table_cell(cell or "") for cell in row)
        if any(cells):
            rows.append(cells)
    return tuple(rows)


def _table_cell(text: str) -> str:
    text = _DOT_LEADER.sub(" ", " ".join(bullet_codes(text).split()))
    return _SPACED_DECIMAL.sub(".", " ".join(text.split()))


def _line_text(line: Mapping[str, Any], *, char_width: float | None = None) -> str:
    """The spans of a line joined. pymupdf4llm drops whitespace-only spans, so a gap wider than a
    tenth of the font size (its own threshold for merging spans) is a space; in code
    (`char_width` given) as many spaces as fit the gap. In running text, superscript numbers
    (footnote marks) are set off by spaces. Symbol-font codes read as letters are the symbols
    they draw (`symbol_fonts`: "Yes x No ¨" set in Wingdings is "Yes ⌧ No ◻"), and a control
    character opening the line before a word is its bullet ("\\x88 All …" is "• All …")."""
    parts = []
    previous = None
    for span in line["spans"]:
        text = symbol_text(span.get("font", ""), span["text"])
        if previous is not None:
            gap = span["bbox"][0] - previous["bbox"][2]
            if gap > _WORD_GAP * span["size"]:
                parts.append(" " * max(1, round(gap / char_width)) if char_width else " ")
        if char_width is None and span["flags"] & _SUPERSCRIPT and text.strip().isdigit():
            text = f" {text.strip()} "
        parts.append(text)
        previous = span
    return bullet_codes("".join(parts), line["spans"][0].get("font", "") if line["spans"] else "")


def joins_hyphenated(previous: str, line: str) -> bool:
    """A line ending in "letter-" followed by one starting in lower case: joined without a space,
    the hyphen kept for `dehyphenate` (also a paragraph continued in the next column)."""
    return previous.endswith("-") and len(previous) > 1 and previous[-2].isalpha() and line[0].islower()


def _is_monospaced(lines: Sequence[Mapping[str, Any]], *, a_line: bool = False) -> bool:
    """Every visible span of the box is set in a monospaced font. An OCR text layer (invisible
    text, alpha 0, in Tesseract's GlyphLessFont, which declares a fixed pitch) says nothing about
    the type on the page, so it never makes a box code. `a_line`: a line set apart as a heading or
    item, whose listing line number and quotation marks (around a `@samp`) may be in the text font."""
    spans = _visible_spans(lines)
    if a_line:
        spans = [s for s in spans if s["text"].strip(_QUOTES)]
        if spans and spans[0]["text"].strip().isdigit() and not _is_monospaced_span(spans[0]):
            spans = spans[1:]
    return bool(spans) and all(map(_is_monospaced_span, spans))


def _visible_spans(lines: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """A box's spans with text on the page: blank ones and an OCR layer's invisible text left out."""
    return [s for line in lines for s in line["spans"] if s["text"].strip() and not _is_ocr_layer(s)]


def _is_monospaced_span(span: Mapping[str, Any]) -> bool:
    """Set in a fixed-pitch font: the font says so, or its name does (_MONOSPACED_FONT)."""
    return bool(span["flags"] & _MONOSPACED) or _MONOSPACED_FONT.search(span["font"]) is not None


#: why a heading or list-item box is code (`attrs["reclassified"]`)
SOURCE_LINE = "a line of source in a monospaced font"
#: why a monospaced "heading" that is a variable's name or a quoted word is a definition's term
MONOSPACED_TERM = "a definition list's term in a monospaced font (a variable's name or a quoted word alone)"


def _is_source_line(text: str, lines: Sequence[Mapping[str, Any]]) -> bool:
    """A heading or list-item box that is a line of a listing: set in a monospaced font (a
    listing's line number aside) and reading as source (_SOURCE_LINE), as TeX documentation's
    "% \\CheckSum{0}" or "% This work consists of …", which the model boxes as headings, and its
    "% \\def\\@obsolete@fontswitch#1#2#3{%", boxed as list items, or as a shell command line
    (R-admin's "make check-devel", "./configure VAR=value", "CXX=clang++": _COMMAND_LINE). A
    heading in a monospaced font that reads as a name ("chunkbench.chunk()", "\\implies") stays a heading."""
    line = text.strip()
    return _is_monospaced(lines, a_line=True) and (_SOURCE_LINE.fullmatch(line) is not None
                                              or _COMMAND_LINE.fullmatch(line) is not None)


def _heading_misread(text: str, lines: Sequence[Mapping[str, Any]]) -> str | None:
    """Why a `section-header` box is a paragraph, or None when it is a heading."""
    if text.strip() in FUNCTION_WORDS:  # lower case only: "If" may head a section
        return "heading that is a lone function word"  # "or" between two syntax lines
    if _is_run_in_heading(lines):
        return "paragraph opened by a bold run-in heading"
    return None


def _is_run_in_heading(lines: Sequence[Mapping[str, Any]]) -> bool:
    """The box opens in bold, the bold ends a sentence (or at a colon), and three or more plain
    words follow: a paragraph with a run-in heading ("**Task information … improvements.** Random
    with …"), not a heading. A heading of two bold sentences (a 10-K's risk factors) stays one, and
    so does "**Chapter 1:** Introduction"."""
    spans = [s for line in lines for s in line["spans"] if s["text"].strip()]
    lead = 0
    while lead < len(spans) and spans[lead]["flags"] & _BOLD:
        lead += 1
    plain_words = sum(len(s["text"].split()) for s in spans[lead:])
    return 0 < lead < len(spans) and plain_words >= 3 and bool(_LEAD_END.search(spans[lead - 1]["text"]))


def _is_ocr_layer(span: Mapping[str, Any]) -> bool:
    return span.get("alpha") == 0 or str(span.get("font", "")).endswith(_OCR_FONT)


def _clipped_bbox(box: Mapping[str, Any], page: Page) -> tuple[float, float, float, float]:
    def clip(value: float, limit: float) -> float:
        return round(min(max(float(value), 0.0), limit), 2)

    x0, x1 = sorted((clip(box["x0"], page.width), clip(box["x1"], page.width)))
    y0, y1 = sorted((clip(box["y0"], page.height), clip(box["y1"], page.height)))
    return (x0, y0, x1, y1)
