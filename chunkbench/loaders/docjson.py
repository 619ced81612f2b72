"""Load a Docling-style `document.json` (specs/2) as a Document.

Format read::

    {"pages": [{"page_no": 1, "width": 612, "height": 792}, ...],
     "blocks": [{"block_id": "b1", "type": "heading", "text": "1. DEFINITIONS", "level": 1,
                 "page_start": 1, "page_end": 1, "bbox": [72, 90, 300, 104]}, ...]}

Decisions:

* pages: a list of objects (or Docling's object keyed by page number) numbered by `page_no` or
  `number` (1-based, as Docling) or `index` (0-based, as chunkbench and MinerU), else by their
  position; size in points from `width`/`height` or `size: {width, height}`. Without pages the
  Document has none and a warning says page sizes are unknown;
* `page_start`/`page_end` are 1-based (Docling's `page_no`, and the page numbers of specs/2's
  chunks): `page_idx = page_start - 1`; `page_end` defaults to `page_start`; `page_end_idx` is
  set only for blocks spanning pages. A block without either has no page;
* `bbox` is `[x0, y0, x1, y1]`, `{x0, y0, x1, y1}` or Docling's `{l, t, r, b}`, in points, origin
  top-left unless `coord_origin` is `BOTTOMLEFT` (then flipped with the page height); swapped
  corners are reordered. For a block spanning pages it is the box on its first page;
* types (case-insensitive): heading/title/section_header -> heading (`text_level` from `level`,
  levels above 6 count as 6, no level -> None); paragraph/text -> paragraph; list/list_item ->
  list; table -> table; header/page_header, footer/page_footer, page_number, caption, footnote,
  code, formula/equation, picture/figure/image -> their docs/contracts.md types; anything else -> other
  (with a warning). `raw_type` keeps the file's type name;
* tables: `rows` (or `table.rows`) are kept; the text is the block's text, or a pipe table of the
  rows when the text is empty;
* `block_id` (a string, or an integer written as one) is the element id;
* the PDF (for rendering) is the `pdf` argument, else a `.pdf` named in the file (`pdf`,
  `source_pdf`, `source`, `filename` or Docling's `origin.filename`) that resolves inside the
  file's folder, else `{stem}.pdf` or the only PDF beside the file. Paths leading outside the
  folder are ignored with a warning.

Anything else malformed is an InputError naming the file, the block and the problem.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NoReturn

from chunkbench.errors import InputError
from chunkbench.text.segment import pipe_table
from chunkbench.types.document import Document, Element, Page, ParserInfo, make_document

from .jsonread import is_int, is_number, json_type, read_json, top_left_box

SOURCE = "document_json"
MAX_HEADING_LEVEL = 6

_TYPES = {
    "heading": "heading",
    "title": "heading",
    "section_header": "heading",
    "paragraph": "paragraph",
    "text": "paragraph",
    "list": "list",
    "list_item": "list",
    "table": "table",
    "header": "header",
    "page_header": "header",
    "footer": "footer",
    "page_footer": "footer",
    "page_number": "page_number",
    "caption": "caption",
    "footnote": "footnote",
    "code": "code",
    "formula": "equation",
    "equation": "equation",
    "picture": "image",
    "figure": "image",
    "image": "image",
}
_PDF_KEYS = ("pdf", "source_pdf", "source", "filename")
_BBOX_KEYS = (("x0", "y0", "x1", "y1"), ("l", "t", "r", "b"))


def load_document_json(path: str | os.PathLike, *, pdf: str | os.PathLike | None = None) -> Document:
    """Load a specs/2 `document.json`: its blocks become elements with the same ids, in file order."""
    file = Path(path)
    return load_document_json_data(file, read_json(file), pdf=pdf)


def load_document_json_data(file: Path, data: Any, *, pdf: str | os.PathLike | None = None) -> Document:
    """A Document from the parsed JSON of a specs/2 `document.json`."""
    if not isinstance(data, dict):
        raise InputError(f"not a document.json: expected a JSON object, got {json_type(data)}", file)
    if "blocks" not in data:
        keys = ", ".join(sorted(map(str, data))[:8]) or "(none)"
        raise InputError(
            f"unrecognised JSON object (keys: {keys}); expected a DoclingDocument (schema_name), MinerU 4 "
            "output (schema docvortex.middle, or structured_content), a document.json with 'blocks', or a "
            "chunkbench elements.json",
            file,
        )
    warnings: list[str] = []
    pages = _read_pages(file, data.get("pages"))
    if not pages:
        warnings.append("no pages[] in the file: page sizes unknown")
    blocks = data.get("blocks")
    if not isinstance(blocks, list):
        raise InputError(f"not a document.json: 'blocks' must be a list, got {json_type(blocks)}", file)
    reader = _BlockReader(file, {p.index: p for p in pages})
    elements = [reader.element(i, block) for i, block in enumerate(blocks)]
    if reader.unknown:
        names = ", ".join(f"{name} ({n})" for name, n in sorted(reader.unknown.items()))
        warnings.append(f"unknown block types loaded as 'other': {names}")
    pdf_path = Path(pdf) if pdf is not None else find_named_pdf(file, data, warnings)
    if pdf_path is not None and not pdf_path.is_file():
        raise InputError("PDF not found", pdf_path)
    return make_document(file, elements, pages, ParserInfo(SOURCE), pdf_path=pdf_path, warnings=warnings)


def _read_pages(file: Path, pages: Any) -> list[Page]:
    """Pages sorted by index; numbered by page_no/number (1-based), index (0-based) or position."""
    if pages is None:
        return []
    if isinstance(pages, dict):  # Docling: {"1": {"page_no": 1, "size": {...}}, ...}
        pages = list(pages.values())
    if not isinstance(pages, list):
        raise InputError(f"'pages' must be a list, got {json_type(pages)}", file)
    out: dict[int, Page] = {}
    for pos, entry in enumerate(pages):
        where = f"pages[{pos}]"
        if not isinstance(entry, dict):
            raise InputError(f"{where}: expected an object, got {json_type(entry)}", file)
        index = _page_index(file, entry, pos, where)
        if index in out:
            raise InputError(f"{where}: page {index + 1} is listed twice", file)
        nested = entry.get("size")
        size = nested if isinstance(nested, dict) else entry
        width, height = size.get("width"), size.get("height")
        if not (is_number(width) and is_number(height) and 0 < width < math.inf and 0 < height < math.inf):
            raise InputError(
                f"{where}: 'width' and 'height' must be positive numbers, got {width!r}, {height!r}", file
            )
        out[index] = Page(index, float(width), float(height))
    return [out[i] for i in sorted(out)]


def _page_index(file: Path, entry: dict, pos: int, where: str) -> int:
    """0-based index of a pages[] entry: from page_no/number (1-based), index, else its position."""
    for key, base in (("page_no", 1), ("number", 1), ("index", 0)):
        if key in entry:
            value = entry[key]
            if not is_int(value) or value < base:
                raise InputError(f"{where}: '{key}' must be an integer >= {base}, got {value!r}", file)
            return value - base
    return pos


class _BlockReader:
    """Checks blocks one by one and turns each into an Element; InputError names the block."""

    def __init__(self, file: Path, pages: Mapping[int, Page]):
        self.file = file
        self.pages = pages
        self.seen_ids: set[str] = set()
        self.unknown: Counter[str] = Counter()

    def fail(self, where: str, problem: str) -> NoReturn:
        raise InputError(f"{where}: {problem}", self.file)

    def element(self, pos: int, block: Any) -> Element:
        where = f"block {pos}"
        if not isinstance(block, dict):
            self.fail(where, f"expected an object, got {json_type(block)}")
        block_id = self._block_id(block, where)
        where = f"block {pos} ({block_id!r})"
        raw_type = block.get("type")
        if not isinstance(raw_type, str) or not raw_type.strip():
            self.fail(where, f"'type' must be a non-empty string, got {raw_type!r}")
        etype = _TYPES.get(raw_type.strip().lower())
        if etype is None:
            self.unknown[raw_type] += 1
            etype = "other"
        text = block.get("text")
        if text is None:
            text = ""
        if not isinstance(text, str):
            self.fail(where, f"'text' must be a string, got {json_type(text)}")
        text = text.strip("\n") if etype == "code" else text.strip()
        if not text.strip():
            text = ""
        rows = self._rows(block, where) if etype == "table" else None
        if rows and not text:
            text = pipe_table(rows)
        page_idx, page_end_idx = self._pages(block, where)
        return Element(
            id=block_id,
            type=etype,
            text=text,
            page_idx=page_idx,
            bbox=self._bbox(block.get("bbox"), page_idx, where),
            text_level=self._level(block, where) if etype == "heading" else None,
            rows=rows,
            source=SOURCE,
            raw_type=raw_type,
            page_end_idx=page_end_idx if page_end_idx != page_idx else None,
        )

    def _block_id(self, block: dict, where: str) -> str:
        value = block.get("block_id")
        if is_int(value):
            value = str(value)
        if not isinstance(value, str) or not value.strip():
            self.fail(where, f"'block_id' must be a non-empty string, got {value!r}")
        if value in self.seen_ids:
            self.fail(where, f"duplicate block_id {value!r}")
        self.seen_ids.add(value)
        return value

    def _pages(self, block: dict, where: str) -> tuple[int | None, int | None]:
        """0-based (first, last) page of the block from its 1-based page_start/page_end."""
        start, end = block.get("page_start"), block.get("page_end")
        if start is None and end is None:
            return None, None
        if start is None:
            start = end
        if end is None:
            end = start
        for key, value in (("page_start", start), ("page_end", end)):
            if not is_int(value) or value < 1:
                self.fail(where, f"'{key}' must be a 1-based page number, got {value!r}")
            if self.pages and value - 1 not in self.pages:
                self.fail(where, f"'{key}' {value} is not a page of the document ({len(self.pages)} pages)")
        assert start is not None and end is not None, "one fills in for the other above"
        if start > end:
            self.fail(where, f"page_start {start} is after page_end {end}")
        return start - 1, end - 1

    def _level(self, block: dict, where: str) -> int | None:
        level = block.get("level")
        if level is None:
            return None
        if not is_int(level) or level < 1:
            self.fail(where, f"'level' must be a positive integer, got {level!r}")
        return min(level, MAX_HEADING_LEVEL)

    def _rows(self, block: dict, where: str) -> tuple[tuple[str, ...], ...] | None:
        """Table rows from `rows` or `table.rows`: lists of cells (strings, numbers or null)."""
        rows = block.get("rows")
        if rows is None and isinstance(block.get("table"), dict):
            rows = block["table"].get("rows")
        if rows is None:
            return None
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            self.fail(where, "'rows' must be a list of lists of cells")
        out = []
        for row in rows:
            if not all(c is None or isinstance(c, str) or is_number(c) for c in row):
                self.fail(where, "table cells must be strings, numbers or null")
            out.append(tuple("" if c is None else str(c).strip() for c in row))
        return tuple(out)

    def _bbox(self, bbox: Any, page_idx: int | None, where: str) -> tuple[float, float, float, float] | None:
        """[x0, y0, x1, y1] in points, top-left origin, corners ordered."""
        if bbox is None:
            return None
        bottom_left = False
        if isinstance(bbox, dict):
            bottom_left = str(bbox.get("coord_origin", "")).upper() == "BOTTOMLEFT"
            keys = next((k for k in _BBOX_KEYS if all(key in bbox for key in k)), None)
            if keys is None:
                self.fail(where, f"'bbox' object needs x0/y0/x1/y1 or l/t/r/b, got keys {sorted(bbox)}")
            bbox = [bbox[k] for k in keys]
        if not (isinstance(bbox, list) and len(bbox) == 4 and all(is_number(v) for v in bbox)):
            self.fail(where, f"'bbox' must be 4 numbers, got {bbox!r}")
        if not all(math.isfinite(v) for v in bbox):
            self.fail(where, f"'bbox' has a non-finite value: {bbox!r}")
        height = None
        if bottom_left:
            page = self.pages.get(page_idx) if page_idx is not None else None
            if page is None:
                self.fail(where, "a BOTTOMLEFT 'bbox' needs the page height, but the block's page is unknown")
            height = page.height
        return top_left_box(bbox, height)


def find_named_pdf(file: Path, data: dict, warnings: list[str]) -> Path | None:
    """The source PDF: named in the file, else `{stem}.pdf`, else the only PDF beside the file.

    Only paths that resolve inside the file's folder are followed.
    """
    folder = file.parent.resolve()
    origin = data.get("origin")
    named = [data.get(k) for k in _PDF_KEYS] + [origin.get("filename") if isinstance(origin, dict) else None]
    name = next((n for n in named if isinstance(n, str) and n.lower().endswith(".pdf")), None)
    if name is not None:
        target = _inside(folder, name)
        if target is not None:
            return target
        warnings.append(f"PDF named in the file ignored ({name!r}): not a file inside {folder.name}/")
    beside = _inside(folder, f"{file.stem}.pdf")
    if beside is not None:
        return beside
    pdfs = [p for p in (_inside(folder, c.name) for c in folder.iterdir() if c.suffix.lower() == ".pdf") if p]
    return pdfs[0] if len(pdfs) == 1 else None


def _inside(folder: Path, name: str) -> Path | None:
    """The file `folder/name` (symlinks resolved) if it exists and stays inside `folder`, else None."""
    try:
        target = (folder / name).resolve()
    except (OSError, ValueError):  # a NUL byte, a symlink loop
        return None
    return target if target.is_relative_to(folder) and target.is_file() else None
