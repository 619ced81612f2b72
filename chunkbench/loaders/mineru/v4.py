"""MinerU 4 output (schema `docvortex.middle` 2.0) as content_list v1 items, so one reader checks
every MinerU version the same way.

Two files carry a MinerU 4 parse:

* the middle JSON (`middle_json.json` in the zip, `{name}.json` from `mineru-kit -f middle_json`,
  `ParseResult.middle_json`): `{schema: "docvortex.middle", schema_version: "2.0", metadata,
  extensions, pages: [{page_idx, blocks: [...]}]}`; blocks hold inline spans (`text`,
  `equation_inline`, `code_inline`, `hyperlink`) or child blocks (visual blocks: one `*_body` plus
  captions and footnotes; lists and indexes: nested items);
* `structured_content.json`: the same pages and blocks with each block's content rendered to one
  Markdown string (tables as HTML) and captions/footnotes as lists of `{content}`.

Bboxes are 0-1 page-relative floats; they are scaled to MinerU's 0-1000 so the shared reader turns
them into points with the page sizes (the PDF's, else `extensions.docvortex_layout.pages`).
"""

from __future__ import annotations

import html
import re
from typing import Any

from chunkbench.errors import InputError
from chunkbench.loaders.jsonread import is_int, is_number, json_type
from chunkbench.loaders.paragraphs import PARSER_SAYS_CONTINUES

from .reader import BBOX_SCALE, ItemReader, spans_text

MIDDLE_SCHEMA = "docvortex.middle"
MIDDLE_VERSIONS = ("2.0",)
#: MinerU 4 block type -> the content_list v1 item type it reads as
_TEXT_TYPES = {
    "text": "text",
    "ref_text": "text",
    "header": "header",
    "footer": "footer",
    "page_number": "page_number",
    "aside_text": "aside_text",
    "page_footnote": "page_footnote",
}
_TITLE_TYPES = ("doc_title", "paragraph_title")
_VISUAL_TYPES = ("image", "table", "chart", "code")
#: deepest list nesting read; MinerU writes a handful of levels
MAX_LIST_DEPTH = 64


def is_mineru4(data: Any) -> bool:
    """A MinerU 4 middle JSON or structured_content (a JSON object with `pages` made by MinerU)."""
    if not isinstance(data, dict):
        return False
    if "schema" in data:
        return data["schema"] == MIDDLE_SCHEMA
    return _member(data, "metadata", "producer").get("name") == "mineru" and "pages" in data


def is_mineru_object(data: Any) -> bool:
    """A JSON object MinerU wrote (any version: MinerU 4 output, a docvortex document, a 2.x/3.x
    `_middle.json`), so that the MinerU loader explains what it supports."""
    if not isinstance(data, dict):
        return False
    return is_mineru4(data) or "pdf_info" in data or str(data.get("schema", "")).startswith("docvortex.")


def _member(data: Any, *keys: str) -> dict:
    """`data[k1][k2]...` when each step is an object, else {} (optional metadata never fails a load)."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def mineru4_version(data: dict) -> str:
    """`metadata.producer.version` (e.g. "4.0.12"), or "" when absent."""
    version = _member(data, "metadata", "producer").get("version")
    return version if isinstance(version, str) else ""


def mineru4_options(data: dict) -> dict[str, str]:
    """The parse options MinerU records: tier and OCR mode (`extensions.mineru`)."""
    mineru = _member(data, "extensions", "mineru")
    out = {}
    for key, name in (("tier", "tier"), ("parse_mode", "ocr_mode")):
        if isinstance(mineru.get(key), str):
            out[name] = mineru[key]
    return out


def layout_page_sizes(data: dict) -> list[tuple[float, float]] | None:
    """Page sizes in points from `extensions.docvortex_layout.pages`, indexed by page_idx; None if absent."""
    pages = _member(data, "extensions", "docvortex_layout").get("pages")
    if not isinstance(pages, list) or not pages:
        return None
    sizes: dict[int, tuple[float, float]] = {}
    for entry in pages:
        if not isinstance(entry, dict):
            return None
        idx, width, height = entry.get("page_idx"), entry.get("width_pt"), entry.get("height_pt")
        if not (is_int(idx) and 0 <= idx < len(pages) and is_number(width) and is_number(height)):
            return None
        if not (width > 0 and height > 0):
            return None
        sizes[idx] = (float(width), float(height))
    if len(sizes) != len(pages):
        return None
    return [sizes[i] for i in range(len(pages))]


def read_mineru4(reader: ItemReader, data: dict) -> int:
    """Read every block of a middle JSON or structured_content into `reader`; returns the page count seen."""
    structured = data.get("schema") != MIDDLE_SCHEMA
    if not structured and data.get("schema_version") not in MIDDLE_VERSIONS:
        raise InputError(
            f"MinerU middle JSON schema_version {data.get('schema_version')!r} is not supported "
            f"(supported: {', '.join(MIDDLE_VERSIONS)}, written by MinerU 4)",
            reader.file,
        )
    pages = data.get("pages")
    if not isinstance(pages, list):
        raise InputError(f"not a MinerU 4 document: 'pages' must be a list, got {json_type(pages)}", reader.file)
    page_count = 0
    for i, page in enumerate(pages):
        if not isinstance(page, dict):
            reader.fail(f"pages[{i}]", f"expected an object, got {json_type(page)}")
        page_idx = page.get("page_idx")
        if not is_int(page_idx) or page_idx < 0:
            reader.fail(f"pages[{i}]", f"'page_idx' must be a non-negative integer, got {page_idx!r}")
        blocks = page.get("blocks", [])
        if not isinstance(blocks, list):
            reader.fail(f"pages[{i}]", f"'blocks' must be a list, got {json_type(blocks)}")
        for j, block in enumerate(blocks):
            where = f"page {page_idx} block {j}"
            convert = _structured_as_v1 if structured else _middle_as_v1
            item = convert(reader, block, where)
            read = reader.v1_item(item, where, page_idx, raw_type=item["raw_type"])
            if block.get("continues_prev") is True:
                read.attrs[PARSER_SAYS_CONTINUES] = True
            reader.items.append(read)
        page_count = max(page_count, page_idx + 1)
    return page_count


def _common(reader: ItemReader, block: Any, where: str) -> tuple[str, dict]:
    if not isinstance(block, dict):
        reader.fail(where, f"expected an object, got {json_type(block)}")
    kind = block.get("type")
    if not isinstance(kind, str) or not kind.strip():
        reader.fail(where, "missing or invalid 'type'")
    out: dict[str, Any] = {"type": kind, "raw_type": kind, "bbox": _scaled(reader, block.get("bbox"), where)}
    if isinstance(block.get("sub_type"), str):
        out["sub_type"] = block["sub_type"]
    if kind in _TITLE_TYPES:
        level = block.get("level", 1 if kind == "doc_title" else 2)
        if not is_int(level):
            reader.fail(where, f"'level' must be an integer, got {level!r}")
        out.update(type="title", text_level=level)
    elif kind in _TEXT_TYPES:
        out["type"] = _TEXT_TYPES[kind]
    return kind, out


def _middle_as_v1(reader: ItemReader, block: Any, where: str) -> dict:
    """One middle-JSON block as the v1 item it corresponds to."""
    kind, out = _common(reader, block, where)
    content = block.get("content")
    if kind in _TITLE_TYPES or kind in _TEXT_TYPES:
        out["text"] = spans_text(reader, content, where, "content")
    elif kind == "equation":
        out.update(text=_string(reader, content, where), text_format="latex", img_path=block.get("image_path"))
    elif kind in ("list", "index"):
        out["list_items"] = _list_items(reader, content, where)
    elif kind in _VISUAL_TYPES:
        children = content if isinstance(content, list) else reader.fail(where, "'content' must be a list of blocks")
        body = next((c for c in children if isinstance(c, dict) and str(c.get("type", "")).endswith("_body")), None)
        if body is None:
            reader.fail(where, f"a {kind} block needs a {kind}_body child")
        body_text = body.get("content")
        body_text = spans_text(reader, body_text, where, "content") if isinstance(body_text, list) else body_text
        captions = _annotations(reader, children, f"{kind}_caption", where)
        footnotes = _annotations(reader, children, f"{kind}_footnote", where)
        _visual(out, kind, _string(reader, body_text, where), body.get("image_path"), captions, footnotes)
    else:  # a type this reader does not know: its text, if it has spans
        out["text"] = spans_text(reader, content, where, "content") if isinstance(content, list) else ""
    return out


def _structured_as_v1(reader: ItemReader, block: Any, where: str) -> dict:
    """One structured_content block (content already a Markdown/HTML string) as a v1 item."""
    kind, out = _common(reader, block, where)
    text = _string(reader, block.get("content"), where)
    if kind in ("list", "index"):
        out["list_items"] = [line.strip() for line in text.splitlines() if line.strip()]
    elif kind in _VISUAL_TYPES:
        captions = _structured_notes(reader, block.get("captions"), where)
        footnotes = _structured_notes(reader, block.get("footnotes"), where)
        if kind == "table" and not text.lstrip().startswith("<"):
            text = _pipe_table_as_html(text)  # simple tables are written as Markdown, others as HTML
        _visual(out, kind, text, block.get("image_source"), captions, footnotes)
    else:
        out["text"] = text
        if kind == "equation":
            out.update(text_format="latex", img_path=block.get("image_source"))
    return out


_PIPE_SPLIT = re.compile(r"(?<!\\)\|")
_SEPARATOR_CELL = re.compile(r":?-{3,}:?")


def _pipe_table_as_html(markdown: str) -> str:
    """A Markdown pipe table as the HTML table MinerU writes for other tables (cells escaped)."""
    rows = []
    for line in markdown.strip().splitlines():
        line = line.strip()
        if not (line.startswith("|") and line.endswith("|")):
            return markdown  # not a pipe table: keep the text as it is
        cells = [c.strip().replace("\\|", "|") for c in _PIPE_SPLIT.split(line[1:-1])]
        if all(_SEPARATOR_CELL.fullmatch(c) for c in cells):
            continue
        rows.append("".join(f"<td>{html.escape(c)}</td>" for c in cells))
    return "<table>" + "".join(f"<tr>{r}</tr>" for r in rows) + "</table>" if rows else markdown


def _visual(out: dict, kind: str, body: str, image_path: Any, captions: list[str], footnotes: list[str]) -> None:
    """Fill a v1 image/chart/table/code item from its body, image, captions and footnotes."""
    out["img_path"] = image_path
    if kind == "table":
        out.update(table_body=body, table_caption=captions, table_footnote=footnotes)
    elif kind == "code":
        out.update(code_body=body, code_caption=captions, code_footnote=footnotes)
        out.setdefault("sub_type", "code")
    else:
        out.update(content=body, image_caption=captions, image_footnote=footnotes)


def _annotations(reader: ItemReader, children: list, kind: str, where: str) -> list[str]:
    texts = (spans_text(reader, c.get("content"), where, kind) for c in children if c.get("type") == kind)
    return [t for t in texts if t.strip()]


def _structured_notes(reader: ItemReader, notes: Any, where: str) -> list[str]:
    if notes is None:
        return []
    if not isinstance(notes, list) or not all(isinstance(n, dict) for n in notes):
        reader.fail(where, "'captions' and 'footnotes' must be lists of objects")
    return [t for t in (_string(reader, n.get("content"), where) for n in notes) if t.strip()]


def _list_items(reader: ItemReader, content: Any, where: str) -> list[str]:
    """The texts of a list's items in order, nested lists flattened (depth-bounded, iterative)."""
    items: list[str] = []
    stack: list[tuple[Any, int] | str] = [(content, 0)]
    while stack:
        entry = stack.pop()
        if isinstance(entry, str):  # an item's text, in document order
            items.append(entry)
            continue
        node, depth = entry
        if depth > MAX_LIST_DEPTH:
            reader.fail(where, f"lists nested deeper than {MAX_LIST_DEPTH} levels")
        if not isinstance(node, list):
            reader.fail(where, f"a list's 'content' must be a list, got {json_type(node)}")
        if node and all(_is_span(c) for c in node):
            items.append(spans_text(reader, node, where, "content"))  # a list written as bare spans
            continue
        for child in reversed(node):
            if not isinstance(child, dict):
                reader.fail(where, f"list items must be objects, got {json_type(child)}")
            if child.get("type") in ("list", "index"):
                stack.append((child.get("content"), depth + 1))
            else:
                stack.append(spans_text(reader, child.get("content"), where, "content"))
    return [t.strip() for t in items if t.strip()]


_SPAN_TYPES = ("text", "equation_inline", "code_inline", "hyperlink")


def _is_span(node: Any) -> bool:
    """An inline span (string content, or a hyperlink), not a text block (whose content is spans)."""
    return isinstance(node, dict) and node.get("type") in _SPAN_TYPES and (
        isinstance(node.get("content"), str) or "url" in node
    )


def _string(reader: ItemReader, value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        reader.fail(where, f"'content' must be a string, got {json_type(value)}")
    return value


def _scaled(reader: ItemReader, bbox: Any, where: str) -> list[float] | None:
    """A 0-1 bbox as MinerU's 0-1000 units (checked by the shared reader)."""
    if bbox is None:
        return None
    if not (isinstance(bbox, list) and len(bbox) == 4 and all(is_number(v) for v in bbox)):
        reader.fail(where, f"'bbox' must be 4 numbers, got {bbox!r}")
    return [v * BBOX_SCALE for v in bbox]
