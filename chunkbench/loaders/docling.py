"""Load a native DoclingDocument JSON (as docling-core's `save_as_json` writes it) as a Document.

Format read (docling-core 2.x, document schema 1.x)::

    {"schema_name": "DoclingDocument", "version": "1.10.0", "name": ...,
     "body": {"children": [{"$ref": "#/texts/0"}, ...]}, "furniture": {...},
     "texts": [{"self_ref", "label", "text", "level", "prov": [{"page_no", "bbox": {l, t, r, b,
                "coord_origin"}, "charspan"}], "children"}, ...],
     "tables": [{..., "data": {"grid": [[{"text"}, ...], ...], "table_cells", "num_rows"}, "captions"}],
     "pictures": [...], "groups": [...], "key_value_items": [...], "form_items": [...],
     "pages": {"1": {"page_no": 1, "size": {"width", "height"}}}}

Decisions:

* reading order is the body tree, depth first (an item, then its children); every item is read once
  (a `$ref` cycle or a second reference to an item is ignored), iteratively, with a depth bound;
* the furniture tree, and items of the furniture content layer wherever they are (Docling puts
  them in the body tree too), are page furniture: a page's headers go before its first body
  element, its footers after its last one;
* labels: title -> heading level 1; section_header -> heading at its level + 1 (Docling's own
  Markdown does the same); text, paragraph, reference, handwritten_text, checkboxes -> paragraph;
  list_item -> list (one element per item, its marker in attrs); caption, footnote, code,
  formula -> caption, footnote, code, equation; page_header/page_footer -> header/footer; picture
  and chart -> image; table and document_index -> table (rows from the cell grid, a spanning cell
  repeated in each row and column it covers); anything else -> other, with a warning;
* a table's or picture's captions stay their own elements (in tree order) and are also listed in
  its attrs, so the figure's and table's captions are searchable once, not twice;
* bbox: the first provenance's, in points with the origin top-left (BOTTOMLEFT boxes are flipped
  with the page height); an item on several pages has `page_end_idx`;
* pages: `pages` keyed by page number (1-based); pages missing between are kept with size 0;
* the PDF (for rendering): `pdf=`, else `origin.filename` inside the file's folder, else
  `{stem}.pdf` or the only PDF beside the file.

A document of another schema major version, or of another shape, is an InputError naming the
version or shape found and what is supported.
"""

from __future__ import annotations

import bisect
import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from chunkbench.errors import InputError
from chunkbench.text.segment import pipe_table
from chunkbench.types.document import Document, Element, Page, ParserInfo, make_document

from .docjson import find_named_pdf
from .jsonread import MAX_PAGES, is_int, is_number, json_type, top_left_box
from .paragraphs import rejoin

SCHEMA_NAME = "DoclingDocument"
SUPPORTED_MAJOR = 1
#: deepest body tree followed; Docling nests groups a few levels deep
MAX_DEPTH = 256
_ARRAYS = ("texts", "tables", "pictures", "groups", "key_value_items", "form_items")
_REF = re.compile(r"#/(texts|tables|pictures|groups|key_value_items|form_items)/(\d{1,9})")
_LABELS = {
    "title": "heading",
    "section_header": "heading",
    "text": "paragraph",
    "paragraph": "paragraph",
    "reference": "paragraph",
    "handwritten_text": "paragraph",
    "checkbox_selected": "paragraph",
    "checkbox_unselected": "paragraph",
    "list_item": "list",
    "caption": "caption",
    "footnote": "footnote",
    "code": "code",
    "formula": "equation",
    "page_header": "header",
    "page_footer": "footer",
    "picture": "image",
    "chart": "image",
    "table": "table",
    "document_index": "table",
    "key_value_region": "other",
    "form": "other",
    "empty_value": "other",
}


def is_docling(data: Any) -> bool:
    return isinstance(data, dict) and data.get("schema_name") == SCHEMA_NAME


def load_docling_data(file: Path, data: dict, *, pdf: str | os.PathLike | None = None) -> Document:
    """A Document from the parsed JSON of a DoclingDocument file."""
    version = data.get("version")
    major = version.split(".", 1)[0] if isinstance(version, str) else ""
    if major != str(SUPPORTED_MAJOR):
        raise InputError(
            f"DoclingDocument version {version!r} is not supported (supported: {SUPPORTED_MAJOR}.x, written by "
            "docling-core 2.x)",
            file,
        )
    reader = _DoclingReader(file, data)
    elements = reader.elements()
    warnings = reader.warnings()
    pdf_path = Path(pdf) if pdf is not None else find_named_pdf(file, data, warnings)
    if pdf_path is not None and not pdf_path.is_file():
        raise InputError("PDF not found", pdf_path)
    with_text = {e.page_idx for e in elements if e.text.strip()}
    pages = [Page(i, w, h, has_text=i in with_text) for i, (w, h) in enumerate(reader.sizes)]
    options: dict = {"format": "docling_json"}
    elements = rejoin(elements, options)
    parser = ParserInfo("docling", str(version), options)
    return make_document(file, elements, pages, parser, pdf_path=pdf_path, warnings=warnings)


class _DoclingReader:
    """Walks one DoclingDocument's trees into Elements, failing with the item's reference."""

    def __init__(self, file: Path, data: dict):
        self.file = file
        self.data = data
        for name in _ARRAYS:
            if not isinstance(data.get(name, []), list):
                self.fail(name, f"must be a list, got {json_type(data.get(name))}")
        self.sizes = self._page_sizes(data.get("pages", {}))
        self.unknown: Counter[str] = Counter()
        self.no_page = 0

    def fail(self, where: str, problem: str) -> NoReturn:
        raise InputError(f"{where}: {problem}", self.file)

    # -- pages ----------------------------------------------------------------------------------

    def _page_sizes(self, pages: Any) -> list[tuple[float, float]]:
        if isinstance(pages, list):  # tolerated: a list of page objects
            pages = {str(i + 1): p for i, p in enumerate(pages)}
        if not isinstance(pages, dict):
            self.fail("pages", f"must be an object keyed by page number, got {json_type(pages)}")
        sizes: dict[int, tuple[float, float]] = {}
        for key, page in pages.items():
            if not isinstance(page, dict):
                self.fail(f"pages[{key}]", f"expected an object, got {json_type(page)}")
            raw = page.get("page_no", key)
            number = int(raw) if is_int(raw) or (isinstance(raw, str) and raw.isdecimal() and len(raw) < 10) else 0
            if not 1 <= number <= MAX_PAGES:
                self.fail(f"pages[{key}]", f"page_no must be between 1 and {MAX_PAGES:,}, got {raw!r}")
            size = page.get("size")
            width = size.get("width") if isinstance(size, dict) else None
            height = size.get("height") if isinstance(size, dict) else None
            if not (is_number(width) and is_number(height) and width > 0 and height > 0
                    and width < 1e6 and height < 1e6):
                self.fail(f"pages[{key}]", f"size must be a positive {{width, height}}, got {size!r}")
            sizes[number - 1] = (float(width), float(height))
        count = max(sizes) + 1 if sizes else 0
        return [sizes.get(i, (0.0, 0.0)) for i in range(count)]

    # -- trees ----------------------------------------------------------------------------------

    def elements(self) -> list[Element]:
        seen: set[str] = set()
        walked = list(self._walk(self.data.get("body"), "body", seen))
        walked += self._walk(self.data.get("furniture"), "furniture", seen)
        body = [e for e in walked if e.attrs.get("content_layer") != "furniture"]
        furniture = [e for e in walked if e.attrs.get("content_layer") == "furniture"]
        return _with_furniture(body, furniture)

    def _walk(self, root: Any, name: str, seen: set[str]) -> Iterator[Element]:
        """Items of one tree in reading order: depth first, each item once."""
        if root is None:
            return
        if not isinstance(root, dict):
            self.fail(name, f"must be an object, got {json_type(root)}")
        stack: list[tuple[Any, int, str]] = [(c, 1, name) for c in reversed(self._children(root, name))]
        while stack:
            ref, depth, parent = stack.pop()
            if depth > MAX_DEPTH:
                self.fail(parent, f"tree nested deeper than {MAX_DEPTH} levels")
            path = self._ref(ref, parent)
            if path in seen:
                continue
            seen.add(path)
            item = self._resolve(path)
            element = self._element(path, item, name)
            if element is not None:
                yield element
            stack.extend((c, depth + 1, path) for c in reversed(self._children(item, path)))

    def _children(self, item: dict, where: str) -> list:
        children = item.get("children", [])
        if not isinstance(children, list):
            self.fail(where, f"'children' must be a list, got {json_type(children)}")
        return children

    def _ref(self, ref: Any, where: str) -> str:
        target = ref.get("$ref") if isinstance(ref, dict) else None
        if not isinstance(target, str) or not _REF.fullmatch(target):
            self.fail(where, f"a child must be {{\"$ref\": \"#/texts/N\"}} (or tables, pictures, groups…), got {ref!r}")
        return target[2:]

    def _resolve(self, path: str) -> dict:
        array, index = path.split("/")
        items = self.data.get(array, [])
        if int(index) >= len(items):
            self.fail(path, f"reference beyond the {len(items)} {array}")
        item = items[int(index)]
        if not isinstance(item, dict):
            self.fail(path, f"expected an object, got {json_type(item)}")
        return item

    # -- items ----------------------------------------------------------------------------------

    def _element(self, path: str, item: dict, tree: str) -> Element | None:
        label = item.get("label")
        if not isinstance(label, str):
            self.fail(path, f"'label' must be a string, got {label!r}")
        if path.startswith("groups/"):  # groups (lists, sections, …) carry no text: their children do
            return None
        etype = _LABELS.get(label)
        if etype is None:
            self.unknown[label] += 1
            etype = "other"
        rows = None
        text = self._string(item, "text", path)
        level = self._level(item, label, path) if etype == "heading" else None
        attrs = self._attrs(item, label, path)
        if path.startswith("tables/"):
            rows = self._rows(item.get("data"), path)
            text = pipe_table(rows) if rows else text
        if tree == "furniture" or item.get("content_layer") == "furniture":
            attrs["content_layer"] = "furniture"
            if etype not in ("header", "footer", "page_number"):
                etype = "header" if etype == "heading" else etype
        page_idx, page_end_idx, bbox = self._provenance(item.get("prov", []), path)
        return Element(
            id=path,
            type=etype,
            text=text.strip(),
            page_idx=page_idx,
            bbox=bbox,
            text_level=level,
            rows=rows,
            source="docling",
            raw_type=label,
            page_end_idx=page_end_idx,
            attrs=attrs,
        )

    def _level(self, item: dict, label: str, path: str) -> int:
        """A heading's level: 1 for the title, else Docling's level + 1 (at most 6)."""
        raw_level = item.get("level", 1)
        if not is_int(raw_level) or raw_level < 0:
            self.fail(path, f"'level' must be a non-negative integer, got {raw_level!r}")
        return 1 if label == "title" else min(raw_level + 1, 6)

    def _attrs(self, item: dict, label: str, path: str) -> dict[str, Any]:
        """What an element keeps of its item: a list item's marker, a code block's language, a table's
        or picture's captions and footnotes."""
        attrs: dict[str, Any] = {}
        if label == "list_item":
            marker = self._string(item, "marker", path)
            if marker:
                attrs["marker"] = marker
            if item.get("enumerated") is True:
                attrs["enumerated"] = True
        if label == "code" and isinstance(item.get("code_language"), str):
            attrs["code_language"] = item["code_language"]
        if path.startswith(("tables/", "pictures/")):
            captions = [self._caption(ref, path) for ref in self._refs(item, "captions", path)]
            footnotes = [self._caption(ref, path) for ref in self._refs(item, "footnotes", path)]
            if captions := [c for c in captions if c]:
                attrs["caption"] = captions
            if footnotes := [f for f in footnotes if f]:
                attrs["footnote"] = footnotes
        return attrs

    def _string(self, item: dict, key: str, where: str) -> str:
        value = item.get(key, "")
        if value is None:
            return ""
        if not isinstance(value, str):
            self.fail(where, f"'{key}' must be a string, got {json_type(value)}")
        return value

    def _refs(self, item: dict, key: str, where: str) -> list:
        refs = item.get(key, [])
        if not isinstance(refs, list):
            self.fail(where, f"'{key}' must be a list, got {json_type(refs)}")
        return refs

    def _caption(self, ref: Any, where: str) -> str:
        path = self._ref(ref, where)
        return self._string(self._resolve(path), "text", path).strip()

    def _rows(self, data: Any, where: str) -> tuple[tuple[str, ...], ...] | None:
        """The table's rows of cell texts: Docling's `grid`, else one built from `table_cells`."""
        if data is None:
            return None
        if not isinstance(data, dict):
            self.fail(where, f"'data' must be an object, got {json_type(data)}")
        grid = data.get("grid")
        if isinstance(grid, list) and grid:
            return tuple(
                tuple(self._cell_text(cell, where) for cell in (row if isinstance(row, list) else self._bad_row(where)))
                for row in grid
            )
        cells = data.get("table_cells", [])
        if not isinstance(cells, list):
            self.fail(where, "'table_cells' must be a list")
        n_rows, n_cols = data.get("num_rows", 0), data.get("num_cols", 0)
        if not (is_int(n_rows) and is_int(n_cols) and n_rows >= 0 and n_cols >= 0 and n_rows * n_cols <= 10 * len(cells) + 100):
            self.fail(where, f"num_rows/num_cols ({n_rows!r} x {n_cols!r}) do not fit its {len(cells)} cells")
        table = [[""] * n_cols for _ in range(n_rows)]
        covered, bound = 0, 4 * n_rows * n_cols + 1000  # overlapping spans beyond this are hostile, not a table
        for cell in cells:
            text = self._cell_text(cell, where)
            spans = [cell.get(k) for k in ("start_row_offset_idx", "end_row_offset_idx",
                                           "start_col_offset_idx", "end_col_offset_idx")]
            if not all(is_int(v) for v in spans):
                self.fail(where, "a table cell needs integer row and column offsets")
            r0, r1, c0, c1 = spans
            covered += max(0, min(r1, n_rows) - max(r0, 0)) * max(0, min(c1, n_cols) - max(c0, 0))
            if covered > bound:
                self.fail(where, f"the table's cells cover its {n_rows} x {n_cols} grid more than 4 times over "
                                 "(overlapping spans)")
            for r in range(max(r0, 0), min(r1, n_rows)):
                for c in range(max(c0, 0), min(c1, n_cols)):
                    table[r][c] = text
        return tuple(tuple(row) for row in table) or None

    def _bad_row(self, where: str) -> NoReturn:
        self.fail(where, "'grid' must be a list of rows")

    def _cell_text(self, cell: Any, where: str) -> str:
        if not isinstance(cell, dict):
            self.fail(where, f"a table cell must be an object, got {json_type(cell)}")
        return " ".join(self._string(cell, "text", where).split())

    def _provenance(self, prov: Any, where: str):
        """(page_idx, page_end_idx, bbox in top-left points) from the item's provenance list."""
        if not isinstance(prov, list):
            self.fail(where, f"'prov' must be a list, got {json_type(prov)}")
        if not prov:
            self.no_page += 1
            return None, None, None
        pages = []
        for p in prov:
            number = p.get("page_no") if isinstance(p, dict) else None
            if not is_int(number) or not 1 <= number <= len(self.sizes):
                self.fail(where, f"prov page_no must be one of the document's {len(self.sizes)} pages, got {number!r}")
            pages.append(number - 1)
        first = prov[0]
        bbox = self._bbox(first.get("bbox"), pages[0], where)
        last = max(pages)
        return pages[0], (last if last != pages[0] else None), bbox

    def _bbox(self, box: Any, page_idx: int, where: str):
        if box is None:
            return None
        values = [box.get(k) for k in ("l", "t", "r", "b")] if isinstance(box, dict) else None
        if values is None or not all(is_number(v) and abs(v) < 1e7 for v in values):
            self.fail(where, f"bbox must be {{l, t, r, b}} numbers, got {box!r}")
        origin = str(box.get("coord_origin", "TOPLEFT")).upper()
        if origin not in ("TOPLEFT", "BOTTOMLEFT"):
            self.fail(where, f"coord_origin must be TOPLEFT or BOTTOMLEFT, got {box.get('coord_origin')!r}")
        height = self.sizes[page_idx][1] if origin == "BOTTOMLEFT" else None
        x0, y0, x1, y1 = top_left_box([v for v in values if v is not None], height)
        return (round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2))

    def warnings(self) -> list[str]:
        out = []
        unknown = {k: n for k, n in self.unknown.items() if n}
        if unknown:
            names = ", ".join(f"{k} ({n})" for k, n in sorted(unknown.items()))
            out.append(f"unknown Docling label(s) loaded as 'other': {names}")
        if self.no_page:
            out.append(f"{self.no_page} item(s) without provenance have no page or bbox")
        return out


def _with_furniture(body: list[Element], furniture: list[Element]) -> list[Element]:
    """Body elements in order, each page's headers before its first element and footers after its last."""
    if not furniture:
        return body
    reached = []  # the highest page reached so far, per body element (non-decreasing)
    high = -1
    for e in body:
        high = max(high, e.page_idx if e.page_idx is not None else high)
        reached.append(high)
    slots: dict[int, list[Element]] = {}
    for f in furniture:
        page = f.page_idx if f.page_idx is not None else 0
        footer = f.type in ("footer", "page_number") or f.raw_type in ("page_footer", "footnote")
        at = bisect.bisect_right(reached, page) if footer else bisect.bisect_left(reached, page)
        slots.setdefault(at, []).append(f)
    out: list[Element] = []
    for i, e in enumerate(body):
        out.extend(slots.get(i, ()))
        out.append(e)
    out.extend(slots.get(len(body), ()))
    return out
