"""Load MinerU output as a Document: `*_content_list.json` (v1), `*_content_list_v2.json`, MinerU 4's
middle JSON, `structured_content.json` and `mineru-kit -f zip` archive, or an output folder.

Formats read (observed in MinerU 2.x-4.x output, plus the variant of specs/1):

* v1: a flat list of items `{type, text, text_level, bbox, page_idx, ...}`;
* v2: a list of pages, each a list of `{type, content: {...}, bbox}`; texts are lists of spans
  (`text` / `equation_inline`), rendered as in v1 (inline equations as `$...$`), so v1 and v2 of one
  parse give the same elements and texts, except that v1 escapes Markdown (`\\_`), keeps line
  breaks in code and lists several captions of one figure where v2 joins them into one;
* MinerU 4 (module `v4`): the middle JSON (`docvortex.middle` 2.0) and structured_content, read
  block by block as the v1 items they correspond to; 0-1 bboxes; page sizes from the PDF, else from
  `extensions.docvortex_layout`; tier and OCR mode from `extensions.mineru`; `continues_prev` kept
  in attrs. v2 spans are joined as written (MinerU 4 splits words where the style changes), with a
  space only where MinerU 2.x/3.x ran pieces together (around inline equations, between captions);
  MinerU 4's v1 text keeps its Markdown emphasis (`**bold**`), as MinerU writes it;
* the specs/1 variant: `type` `paragraph`/`heading`, `text_level` 999 for non-headings, nested
  `blocks` for code and lists. A `paragraph` keeps its type whatever its `text_level`.

Decisions:

* a folder is searched at `.`, `auto/`, `vlm/`, `hybrid_auto/` (and MinerU's other parse folders),
  one level down as well (`{out}/{name}/auto/`); when a folder holds both versions, v1 is read (it
  is MinerU's primary output and keeps code line breaks); a folder with only MinerU 4's files reads
  middle_json.json, else structured_content.json; several documents are an error;
* a zip is read in memory (its JSON member bounded to 1 GiB, a zip bomb is refused);
* without a PDF or page sizes, a page_idx above 100,000 is an InputError (no page objects are made
  for an absurd index);
* tables: text is a pipe table of the `table_body` HTML rows (captions, footnotes, HTML in attrs);
* images and charts: type `image`, text is the captions (then the chart/image `content`, if any),
  so figures are found by their captions; footnotes, `img_path` and `sub_type` go to attrs;
* code: caption lines then the body; lists: one item per line; both also as `blocks`;
* `img_path` is kept only when it stays inside the content_list's folder (no `..`, no absolute);
* bboxes are MinerU's 0-1000 page-relative ints (v1 and v2 alike), converted to points with page
  sizes from the PDF (`pdf=`, or `{name}_origin.pdf` / `{name}.pdf` in the folder or its parent),
  else from `{name}_middle.json`; without either, bboxes are None, pages have size 0 and a warning
  says so. Swapped corners are reordered and values outside 0-1000 clipped (with a warning);
  NaN, infinite or non-numeric values are an InputError;
* items without text are kept (empty text) so they are counted; strategies skip them; a page
  `has_text` when MinerU extracted some text on it;
* element ids are `p{page_idx}-e{n}`: 0-based page, n the item's position in the file;
* unknown item types load as `other` with a warning (new MinerU versions add types).

Modules: `files` (finding the content_list and the files beside it), `pages` (page sizes, MinerU
version), `reader` (items → Elements, v1 and v2); table HTML → rows is `loaders.htmldoc.tables`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError
from chunkbench.loaders.htmldoc.tables import html_table_rows
from chunkbench.loaders.jsonread import loads_checked, read_json
from chunkbench.loaders.paragraphs import rejoin
from chunkbench.types.document import Document, ParserInfo, make_document

from .files import (
    MINERU4_FILES,
    PARSE_DIRS,
    V1_SUFFIX,
    V2_SUFFIX,
    document_name,
    find_beside,
    find_content_list,
    read_zip_member,
)
from .pages import middle_page_sizes, middle_version, pdf_page_sizes
from .reader import BBOX_SCALE, NO_PAGE_SIZES_WARNING, ItemReader
from .v4 import (
    MIDDLE_SCHEMA,
    is_mineru4,
    is_mineru_object,
    layout_page_sizes,
    mineru4_options,
    mineru4_version,
    read_mineru4,
)

__all__ = [
    "BBOX_SCALE", "LOAD_RULES", "MIDDLE_SCHEMA", "NO_PAGE_SIZES_WARNING", "PARSE_DIRS", "V1_SUFFIX", "V2_SUFFIX",
    "find_content_list", "html_table_rows", "is_mineru4", "is_mineru_object", "load_mineru", "load_mineru_data", "pdf_page_sizes",
]

#: the version of how MinerU output becomes elements, part of the cache key of a MinerU run (with
#: `paragraphs.REPAIR_RULES`, the joins every parser shares): a change makes cached runs load again
LOAD_RULES = "2026-11-27.6"


def load_mineru(path: str | os.PathLike, *, pdf: str | os.PathLike | None = None) -> Document:
    """Load MinerU output: a content_list (v1/v2), a MinerU 4 middle JSON, structured_content or zip,
    or an output folder; `pdf` gives page sizes for bboxes (else found beside the output)."""
    file = Path(path)
    if file.is_dir():
        file = find_content_list(file)
    if file.suffix.lower() == ".zip":
        raw, member = read_zip_member(file)
        try:
            data = loads_checked(raw.decode("utf-8-sig"), file)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{member} in the zip is not valid JSON: {exc}", file) from None
        return load_mineru_data(file, data, pdf=pdf, name=file.stem)
    return load_mineru_data(file, read_json(file), pdf=pdf)

def load_mineru_data(
    file: Path, data: Any, *, pdf: str | os.PathLike | None = None, name: str | None = None
) -> Document:
    """A Document from the parsed JSON of a MinerU output `file` (see the module doc for the shapes)."""
    reader = ItemReader(file)
    name = name or document_name(file)
    pdf_path = Path(pdf) if pdf is not None else find_beside(file, (f"{name}_origin.pdf", f"{name}.pdf"))
    if isinstance(data, dict) and not file.name.endswith((V1_SUFFIX, V2_SUFFIX)):
        if not is_mineru4(data):
            raise InputError(_not_mineru(data), file)
        page_count_hint: int | None = read_mineru4(reader, data)
        sizes = pdf_page_sizes(pdf_path) if pdf_path is not None else layout_page_sizes(data)
        version, options = mineru4_version(data), mineru4_options(data)
        options["format"] = "middle_json" if data.get("schema") == MIDDLE_SCHEMA else "structured_content"
        source = pdf_path or file
    else:
        page_count_hint = reader.read(data)
        sizes, version, options, source = _content_list_context(file, name, pdf_path)
        options["format"] = "content_list_v2" if reader.v2 else "content_list"
    elements, pages, warnings = reader.build(sizes, page_count_hint, source=source)
    elements = rejoin(elements, options)
    return make_document(
        file, elements, pages, ParserInfo("mineru", version, options), pdf_path=pdf_path, warnings=warnings
    )

def _content_list_context(file: Path, name: str, pdf_path: Path | None):
    """Page sizes, version and options for a content_list: from the PDF, MinerU 2.x/3.x's
    `{name}_middle.json`, or MinerU 4's middle_json.json beside it."""
    middle = find_beside(file, (f"{name}_middle.json",))
    mineru4 = find_beside(file, MINERU4_FILES[:1]) if middle is None else None
    sizes = pdf_page_sizes(pdf_path) if pdf_path is not None else None
    options: dict[str, str] = {}
    version = ""
    if middle is not None:
        sizes = sizes if sizes is not None else middle_page_sizes(middle)
        version, backend = middle_version(middle)
        if backend:
            options["backend"] = backend
    elif mineru4 is not None:
        data = read_json(mineru4)
        if is_mineru4(data):
            sizes = sizes if sizes is not None else layout_page_sizes(data)
            version = mineru4_version(data)
            options.update(mineru4_options(data))
    return sizes, version, options, pdf_path or middle or mineru4

def _not_mineru(data: dict) -> str:
    """Why a JSON object is not MinerU output this loader reads, naming what was found."""
    if "pdf_info" in data:
        found = "a MinerU 2.x/3.x _middle.json"
        hint = "load the *_content_list.json beside it (the _middle.json is read for page sizes)"
    elif isinstance(data.get("schema"), str):
        found = f"schema {data['schema']!r} version {data.get('schema_version')!r}"
        hint = f"supported: {MIDDLE_SCHEMA} 2.0 (MinerU 4), content_list v1/v2 (MinerU 2.x-4.x)"
    else:
        found = f"an object with keys {', '.join(sorted(map(str, data))[:8]) or '(none)'}"
        hint = "supported: MinerU 4 middle JSON or structured_content, content_list v1/v2 (a JSON list)"
    return f"not MinerU output this version reads: found {found}; {hint}"

