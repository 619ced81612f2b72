"""MinerU items (v1 and v2) checked and turned into Elements: types, texts, bboxes in points,
paths kept inside the output folder, warnings for what was repaired."""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from chunkbench.errors import InputError
from chunkbench.loaders.htmldoc.tables import TableTooLarge, html_table_rows
from chunkbench.loaders.jsonread import MAX_PAGES, is_int, is_number, json_type
from chunkbench.text.segment import pipe_table
from chunkbench.types.document import Element, Page, as_bbox

#: MinerU bboxes are integers relative to the page: 0..BBOX_SCALE on each axis
BBOX_SCALE = 1000


NO_PAGE_SIZES_WARNING = "bboxes unavailable: no PDF or _middle.json found"



# v1 (and specs/1) item type -> element type; "text" becomes a heading when it has a text_level.
_V1_TYPES = {
    "text": "paragraph",
    "paragraph": "paragraph",
    "title": "heading",
    "heading": "heading",
    "table": "table",
    "image": "image",
    "chart": "image",
    "equation": "equation",
    "interline_equation": "equation",
    "code": "code",
    "algorithm": "code",
    "list": "list",
    "index": "list",
    "ref_text": "list",
    "header": "header",
    "footer": "footer",
    "page_number": "page_number",
    "page_footnote": "footnote",
    "aside_text": "other",
    "discarded": "other",
}


@dataclass(frozen=True)
class Item:
    """One content_list item read and checked; bbox still in MinerU's 0-1000 units."""

    type: str
    raw_type: str
    text: str
    page_idx: int
    bbox: tuple[float, float, float, float] | None
    text_level: int | None = None
    blocks: tuple = ()
    rows: tuple[tuple[str, ...], ...] | None = None
    attrs: dict = field(default_factory=dict)


class ItemReader:
    """Reads v1/v2/specs-1 items of one file, raising InputError with the item's position."""

    def __init__(self, file: Path):
        self.file = file
        self.base = file.parent.resolve()
        self.items: list[Item] = []
        self.v2 = False
        self.swapped = 0
        self.clipped = 0
        self.refused_paths = 0
        self.unknown: Counter[str] = Counter()

    def fail(self, where: str, problem: str) -> NoReturn:
        raise InputError(f"{where}: {problem}", self.file)

    def read(self, data: Any) -> int | None:
        """Read every item; returns the page count v2 states (its number of page lists)."""
        if not isinstance(data, list):
            raise InputError(f"not a MinerU content_list: expected a JSON list, got {json_type(data)}", self.file)
        pages = [isinstance(entry, list) for entry in data]
        if any(pages) and not all(pages):
            raise InputError("mixes page lists (content_list_v2) and items (content_list)", self.file)
        if data and all(pages):
            self.v2 = True
            for page_idx, page in enumerate(data):
                for j, item in enumerate(page):
                    where = f"page {page_idx} item {j}"
                    v1_item = _v2_as_v1(self, item, where)
                    self.items.append(self.v1_item(v1_item, where, page_idx, raw_type=item["type"]))
            return len(data)
        for i, item in enumerate(data):
            self.items.append(self.v1_item(item, f"item {i}", None))
        return None

    # -- v1 ---------------------------------------------------------------------------------

    def v1_item(self, item: Any, where: str, page_idx: int | None, raw_type: str | None = None) -> Item:
        """Check and convert one v1 item; v2 items come here rewritten, with their own type name."""
        kind, page_idx = self._kind_and_page(item, where, page_idx)
        etype = _V1_TYPES.get(kind)
        if etype is None:
            self.unknown[kind] += 1
            etype = "other"
        level = self._text_level(item, where)
        attrs: dict[str, Any] = {}
        for key in ("sub_type", "text_format", "list_type"):
            if isinstance(item.get(key), str) and item[key]:
                attrs[key] = item[key]
        text, blocks, rows = self._content(item, where, etype, attrs)
        if etype == "equation":
            self._keep_img_path(item, where, attrs)
        if kind == "paragraph":  # specs/1: a paragraph stays one; its text_level is kept for reference
            if level is not None:
                attrs["text_level"] = level
            level = None
        elif etype == "heading" or (kind == "text" and level is not None):
            etype, level = "heading", level or 1
        else:
            level = None
        text = text.strip("\n") if etype == "code" else text.strip()
        bbox = self._bbox(item.get("bbox"), where)
        return Item(etype, raw_type or kind, text if text.strip() else "", page_idx, bbox, level, blocks, rows, attrs)

    def _kind_and_page(self, item: Any, where: str, page_idx: int | None) -> tuple[str, int]:
        """A v1 item's type and page (`page_idx` when its v2 page gave it), checked."""
        if not isinstance(item, dict):
            self.fail(where, f"expected an object, got {json_type(item)}")
        kind = item.get("type")
        if not isinstance(kind, str) or not kind.strip():
            self.fail(where, "missing or invalid 'type'")
        if page_idx is None:
            page_idx = item.get("page_idx")
            if not is_int(page_idx) or page_idx < 0:
                self.fail(where, f"'page_idx' must be a non-negative integer, got {page_idx!r}")
        return kind, page_idx

    def _content(self, item: dict, where: str, etype: str, attrs: dict[str, Any]) -> tuple[str, tuple, Any]:
        """An item's text (a table's as a pipe table, an image's caption), its blocks (code lines,
        list items) and a table's rows."""
        if etype == "table":
            text, rows = self._table(item, where, attrs)
            return text, (), rows
        if etype == "image":
            return self._image(item, where, attrs), (), None
        if etype in ("code", "list"):
            text, blocks = self._code_or_list(item, where, etype, attrs)
            return text, blocks, None
        return self._plain_text(item, where), (), None

    def _text_level(self, item: dict, where: str) -> int | None:
        """MinerU's heading level: 1-6 (deeper levels count as 6); 0, 999 and missing are None."""
        level = item.get("text_level")
        if level is None:
            return None
        if not is_int(level):
            self.fail(where, f"'text_level' must be an integer, got {level!r}")
        return min(level, 6) if 0 < level < 999 else None

    def _string(self, item: dict, key: str, where: str) -> str:
        value = item.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            self.fail(where, f"'{key}' must be a string, got {json_type(value)}")
        return value

    def _strings(self, item: dict, keys: tuple[str, ...], where: str) -> list[str]:
        """A list of strings under the first present key (a lone string counts as one)."""
        for key in keys:
            value = item.get(key)
            if value is None:
                continue
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                self.fail(where, f"'{key}' must be a list of strings")
            return [v.strip() for v in value if v.strip()]
        return []

    def _plain_text(self, item: dict, where: str) -> str:
        """`text`, falling back to `content` when it is empty."""
        return self._string(item, "text", where) or self._string(item, "content", where)

    def _table(self, item: dict, where: str, attrs: dict) -> tuple[str, tuple | None]:
        html = self._string(item, "table_body", where)
        self._captions(item, where, attrs, ("table_caption",), ("table_footnote",))
        self._keep_img_path(item, where, attrs)
        try:
            rows = html_table_rows(html) if html else None
        except TableTooLarge as exc:
            self.fail(where, str(exc))
        if html:
            attrs["html"] = html
        if rows:
            return pipe_table(rows), rows
        return self._plain_text(item, where), None

    def _image(self, item: dict, where: str, attrs: dict) -> str:
        captions = self._captions(
            item, where, attrs,
            ("image_caption", "img_caption", "chart_caption"),
            ("image_footnote", "img_footnote", "chart_footnote"),
        )
        self._keep_img_path(item, where, attrs)
        parts = captions + [self._plain_text(item, where).strip()]
        return "\n".join(p for p in parts if p)

    def _captions(self, item, where, attrs, caption_keys, footnote_keys) -> list[str]:
        captions = self._strings(item, caption_keys, where)
        footnotes = self._strings(item, footnote_keys, where)
        if captions:
            attrs["caption"] = captions
        if footnotes:
            attrs["footnote"] = footnotes
        return captions

    def _code_or_list(self, item: dict, where: str, etype: str, attrs: dict) -> tuple[str, tuple]:
        """Code: captions then body; list: its items. From nested `blocks` when present."""
        if item.get("blocks") is not None:
            blocks = tuple(self._flatten_blocks(item["blocks"], where))
        elif etype == "code":
            captions = self._strings(item, ("code_caption",), where)
            body = self._string(item, "code_body", where)
            footnotes = self._strings(item, ("code_footnote",), where)
            if footnotes:
                attrs["footnote"] = footnotes
            blocks = tuple({"type": "code_caption", "text": c} for c in captions)
            if body.strip():
                blocks += ({"type": "code_body", "text": body.strip("\n")},)
        else:
            items = self._strings(item, ("list_items",), where)
            blocks = tuple({"type": "list_item", "text": t} for t in items)
        text = "\n".join(b["text"] for b in blocks if b["text"].strip())
        return text or self._plain_text(item, where), blocks

    def _flatten_blocks(self, blocks: Any, where: str) -> Iterator[dict]:
        """Leaf blocks of a nested `blocks` tree in document order, as {type, text}.

        A block's text is its `text`, else `content`, else its MinerU `lines[].spans[].content`.
        Iterative, so deep nesting cannot exhaust the stack.
        """
        stack: list[tuple[Any, Any]] = [(blocks, "text")]
        while stack:
            node, parent_type = stack.pop()
            if isinstance(node, list):
                stack.extend((child, parent_type) for child in reversed(node))
                continue
            if not isinstance(node, dict):
                self.fail(where, f"'blocks' must hold objects, got {json_type(node)}")
            btype = node.get("type") if isinstance(node.get("type"), str) else parent_type
            if node.get("blocks") is not None:
                stack.append((node["blocks"], btype))
                continue
            text = self._plain_text(node, where) or self._lines_text(node, where)
            yield {"type": btype, "text": text.strip()}

    def _lines_text(self, node: dict, where: str) -> str:
        lines = node.get("lines") or []
        if not isinstance(lines, list):
            self.fail(where, "'lines' must be a list")
        out = []
        for line in lines:
            spans = line.get("spans") if isinstance(line, dict) else None
            if not isinstance(spans, list):
                self.fail(where, "each line must have a 'spans' list")
            texts = (s.get("content") for s in spans if isinstance(s, dict))
            out.append(" ".join(t for t in texts if isinstance(t, str)))
        return "\n".join(out)

    def _keep_img_path(self, item: dict, where: str, attrs: dict) -> None:
        """Keep `img_path` only when it resolves inside the content_list's folder."""
        rel = self._string(item, "img_path", where)
        if not rel:
            return
        try:
            target = (self.base / rel).resolve()
        except (OSError, ValueError):  # e.g. a NUL byte, a symlink loop
            target = None
        if os.path.isabs(rel) or target is None or not target.is_relative_to(self.base):
            self.refused_paths += 1
            return
        attrs["img_path"] = target.relative_to(self.base).as_posix()

    def _bbox(self, bbox: Any, where: str) -> tuple[float, float, float, float] | None:
        """A checked 0-1000 bbox: corners reordered, values clipped (both counted for a warning)."""
        if bbox is None:
            return None
        if not (isinstance(bbox, list) and len(bbox) == 4 and all(is_number(v) for v in bbox)):
            self.fail(where, f"'bbox' must be 4 numbers, got {bbox!r}")
        if not all(math.isfinite(v) for v in bbox):
            self.fail(where, f"'bbox' has a non-finite value: {bbox!r}")
        x0, y0, x1, y1 = (float(v) for v in bbox)
        if x0 > x1 or y0 > y1:
            self.swapped += 1
            x0, x1 = sorted((x0, x1))
            y0, y1 = sorted((y0, y1))
        clipped = as_bbox(min(max(v, 0.0), BBOX_SCALE) for v in (x0, y0, x1, y1))
        if clipped != (x0, y0, x1, y1):
            self.clipped += 1
        return clipped

    # -- Document parts -------------------------------------------------------------------------

    def build(
        self, sizes: list[tuple[float, float]] | None, page_count: int | None, *, source: Path | None
    ) -> tuple[list[Element], list[Page], list[str]]:
        """Elements with bboxes in points, pages, and the warnings gathered while reading."""
        if sizes is not None:
            for n, item in enumerate(self.items):
                if item.page_idx >= len(sizes):
                    raise InputError(
                        f"element {n} is on page_idx {item.page_idx}, beyond the {len(sizes)} "
                        f"page(s) of {source.name if source else 'the PDF'}",
                        self.file,
                    )
            page_count = len(sizes)
        else:
            page_count = max([page_count or 0] + [item.page_idx + 1 for item in self.items])
            if page_count > MAX_PAGES:
                raise InputError(
                    f"page_idx {page_count - 1} is beyond any real document ({MAX_PAGES:,} pages at "
                    "most without the PDF); pass the source PDF with --pdf to check it",
                    self.file,
                )
        elements = [self._element(n, item, sizes) for n, item in enumerate(self.items)]
        with_text = {e.page_idx for e in elements if e.text}
        pages = [
            Page(i, *(sizes[i] if sizes else (0.0, 0.0)), has_text=i in with_text) for i in range(page_count)
        ]
        return elements, pages, self._warnings(sizes)

    def _element(self, n: int, item: Item, sizes) -> Element:
        bbox = None
        if item.bbox is not None and sizes is not None:
            width, height = sizes[item.page_idx]
            x0, y0, x1, y1 = item.bbox
            bbox = tuple(
                round(v * scale / BBOX_SCALE, 2) for v, scale in ((x0, width), (y0, height), (x1, width), (y1, height))
            )
        return Element(
            id=f"p{item.page_idx}-e{n}",
            type=item.type,
            text=item.text,
            page_idx=item.page_idx,
            bbox=bbox,
            text_level=item.text_level,
            blocks=item.blocks,
            rows=item.rows,
            source="mineru",
            raw_type=item.raw_type,
            attrs=item.attrs,
        )

    def _warnings(self, sizes) -> list[str]:
        warnings = []
        if sizes is None and any(item.bbox is not None for item in self.items):
            warnings.append(NO_PAGE_SIZES_WARNING)
        if self.swapped:
            warnings.append(f"{self.swapped} bbox(es) with swapped corners were reordered")
        if self.clipped:
            warnings.append(f"{self.clipped} bbox(es) outside 0-{BBOX_SCALE} were clipped to the page")
        if self.refused_paths:
            warnings.append(f"{self.refused_paths} img_path(s) pointing outside the output folder were ignored")
        if self.unknown:
            kinds = ", ".join(f"{k} ({n})" for k, n in sorted(self.unknown.items()))
            warnings.append(f"unknown MinerU item type(s) loaded as 'other': {kinds}")
        return warnings


# v2 type -> (v1 type, key of its span list inside `content`)
_V2_TEXT_TYPES = {
    "paragraph": ("text", "paragraph_content"),
    "title": ("text", "title_content"),
    "page_header": ("header", "page_header_content"),
    "page_footer": ("footer", "page_footer_content"),
    "page_number": ("page_number", "page_number_content"),
    "page_footnote": ("page_footnote", "page_footnote_content"),
    "page_aside_text": ("aside_text", "page_aside_text_content"),
}


def _v2_as_v1(reader: ItemReader, item: Any, where: str) -> dict:
    """Rewrite one v2 item (`{type, content: {...}, bbox}`) as the v1 item it corresponds to."""
    if not isinstance(item, dict):
        reader.fail(where, f"expected an object, got {json_type(item)}")
    kind = item.get("type")
    if not isinstance(kind, str) or not kind.strip():
        reader.fail(where, "missing or invalid 'type'")
    content = item.get("content", {})
    if not isinstance(content, dict):
        reader.fail(where, f"'content' must be an object, got {json_type(content)}")
    out: dict[str, Any] = {"type": kind, "bbox": item.get("bbox")}
    if isinstance(item.get("sub_type"), str):
        out["sub_type"] = item["sub_type"]
    if kind in ("list", "index"):
        out.update(_v2_list(reader, content, where))
        if out.get("list_type") == "reference_list":  # v1 marks the same lists sub_type ref_text
            out.setdefault("sub_type", "ref_text")
    else:
        out.update(_v2_fields(_V2Content(reader, content, where), kind, out.get("sub_type")))
    return out


@dataclass(frozen=True)
class _V2Content:
    """A v2 item's content, read as the reader checks it (spans as text)."""

    reader: ItemReader
    content: dict
    where: str

    def spans(self, key: str) -> str:
        return spans_text(self.reader, self.content.get(key), self.where, key)

    def span_list(self, key: str) -> list[str]:
        text = self.spans(key)
        return [text] if text else []

    def image_path(self) -> str | None:
        return _v2_image_path(self.reader, self.content, self.where)


def _v2_fields(c: _V2Content, kind: str, sub_type: str | None) -> dict[str, Any]:
    """The v1 fields of a v2 item that is no list: text, equation, image or chart, table, code."""
    if kind in _V2_TEXT_TYPES:
        v1_type, key = _V2_TEXT_TYPES[kind]
        out: dict[str, Any] = {"type": v1_type, "text": c.spans(key)}
        if kind == "title":
            out["text_level"] = c.content.get("level", 1)
        return out
    if kind == "equation_interline":
        return {"type": "equation", "text": c.content.get("math_content"), "text_format": c.content.get("math_type"),
                "img_path": c.image_path()}
    if kind in ("image", "chart"):
        return {"content": c.content.get("content"), "img_path": c.image_path(),
                "image_caption": c.span_list(f"{kind}_caption"), "image_footnote": c.span_list(f"{kind}_footnote")}
    if kind == "table":
        return {"table_body": c.content.get("html"), "img_path": c.image_path(),
                "table_caption": c.span_list("table_caption"), "table_footnote": c.span_list("table_footnote")}
    if kind in ("code", "algorithm"):
        return {"type": "code", "sub_type": kind if sub_type is None else sub_type, "code_caption": c.span_list(f"{kind}_caption"),
                "code_body": c.spans(f"{kind}_content"), "code_footnote": c.span_list(f"{kind}_footnote")}
    if f"{kind}_content" in c.content:  # a type this loader does not know yet: keep its text
        return {"text": c.spans(f"{kind}_content")}
    return {}


def _v2_list(reader: ItemReader, content: dict, where: str) -> dict[str, Any]:
    """The v1 fields of a v2 list (or index): its items' texts and its list type."""
    items = content.get("list_items")
    items = [] if items is None else items
    if not isinstance(items, list):
        reader.fail(where, "'list_items' must be a list")
    out: dict[str, Any] = {"list_items": [
        spans_text(reader, entry.get("item_content") if isinstance(entry, dict) else entry, where, "item_content")
        for entry in items
    ]}
    if isinstance(content.get("list_type"), str):
        out["list_type"] = content["list_type"]
    return out


def _v2_image_path(reader: ItemReader, content: dict, where: str) -> str | None:
    source = content.get("image_source")
    if source is None:
        return None
    if not isinstance(source, dict):
        reader.fail(where, "'image_source' must be an object")
    return source.get("path")


def spans_text(reader: ItemReader, spans: Any, where: str, key: str) -> str:
    """Inline spans as text: inline equations as `$...$`, hyperlinks as their text.

    Spans are joined as written (MinerU 4 splits text where its style changes, mid-word or before
    punctuation). A space is added only where MinerU 2.x/3.x ran pieces together: around an inline
    equation, and between two captions joined into one list (one ends a sentence, the next starts one).
    """
    if spans is None:
        return ""
    if isinstance(spans, str):  # chart `content`, older writers
        return spans
    if not isinstance(spans, list):
        reader.fail(where, f"'{key}' must be a list of spans")
    parts: list[str] = []
    kinds: list[str] = []
    for span in spans:
        kind, text = _span(reader, span, where, key)
        if not text:
            continue
        run_together = bool(parts) and not parts[-1][-1].isspace() and not text[0].isspace()
        if run_together and (
            "equation_inline" in (kind, kinds[-1]) or (parts[-1][-1] in ".!?:" and _STARTS_SENTENCE.match(text))
        ):
            parts.append(" ")
            kinds.append("space")
        parts.append(text)
        kinds.append(kind)
    return "".join(parts)


_STARTS_SENTENCE = re.compile(r"[A-Z0-9(]")


def _span(reader: ItemReader, span: Any, where: str, key: str) -> tuple[str, str]:
    """(type, text) of one span; a hyperlink's text is its (non-link) children's."""
    if not isinstance(span, dict) or not isinstance(span.get("type", "text"), str):
        reader.fail(where, f"'{key}' spans must be objects with a string 'content'")
    kind = span.get("type", "text")
    content = span.get("content")
    if kind == "hyperlink" and isinstance(content, list):
        if any(not isinstance(c, dict) or c.get("type") == "hyperlink" for c in content):
            reader.fail(where, f"'{key}': a hyperlink may hold only text spans")
        return kind, "".join(_span(reader, child, where, key)[1] for child in content)
    if not isinstance(content, str):
        reader.fail(where, f"'{key}' spans must be objects with a string 'content'")
    if kind == "equation_inline" and content:
        return kind, f"${content}$"
    return kind, content
