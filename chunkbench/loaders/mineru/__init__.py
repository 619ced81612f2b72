"""Load MinerU output as a Document: `*_content_list.json` (v1), `*_content_list_v2.json`, or a folder.

Formats read (all observed in MinerU 2.x-3.x output, plus the variant of specs/1):

* v1: a flat list of items `{type, text, text_level, bbox, page_idx, ...}`;
* v2: a list of pages, each a list of `{type, content: {...}, bbox}`; texts are lists of spans
  (`text` / `equation_inline`), rendered as in v1 (inline equations as `$...$`), so v1 and v2 of one
  parse give the same elements and texts, except that v1 escapes Markdown (`\\_`), keeps line
  breaks in code and lists several captions of one figure where v2 joins them into one;
* the specs/1 variant: `type` `paragraph`/`heading`, `text_level` 999 for non-headings, nested
  `blocks` for code and lists. A `paragraph` keeps its type whatever its `text_level`.

Decisions:

* a folder is searched at `.`, `auto/`, `vlm/`, `hybrid_auto/` (and MinerU's other parse folders),
  one level down as well (`{out}/{name}/auto/`); when a folder holds both versions, v1 is read (it
  is MinerU's primary output and keeps code line breaks); several documents are an error;
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
version), `reader` (items → Elements, v1 and v2), `tables` (table HTML → rows).
"""

from __future__ import annotations

import os
from pathlib import Path

from chunkbench.loaders.jsonread import read_json
from chunkbench.types.document import Document, ParserInfo, make_document

from .files import PARSE_DIRS, V1_SUFFIX, V2_SUFFIX, document_name, find_beside, find_content_list
from .pages import middle_page_sizes, middle_version, pdf_page_sizes
from .reader import BBOX_SCALE, NO_PAGE_SIZES_WARNING, ItemReader
from .tables import html_table_rows

__all__ = [
    "BBOX_SCALE", "NO_PAGE_SIZES_WARNING", "PARSE_DIRS", "V1_SUFFIX", "V2_SUFFIX", "find_content_list",
    "html_table_rows", "load_mineru", "pdf_page_sizes",
]


def load_mineru(path: str | os.PathLike, *, pdf: str | os.PathLike | None = None) -> Document:
    """Load a MinerU content_list (v1 or v2) or output folder; `pdf` gives page sizes for bboxes."""
    file = Path(path)
    if file.is_dir():
        file = find_content_list(file)
    data = read_json(file)
    reader = ItemReader(file)
    page_count_hint = reader.read(data)
    name = document_name(file)
    pdf_path = Path(pdf) if pdf is not None else find_beside(file, (f"{name}_origin.pdf", f"{name}.pdf"))
    middle = find_beside(file, (f"{name}_middle.json",))
    if pdf_path is not None:
        sizes = pdf_page_sizes(pdf_path)
    elif middle is not None:
        sizes = middle_page_sizes(middle)
    else:
        sizes = None
    version, backend = middle_version(middle) if middle is not None else ("", "")
    elements, pages, warnings = reader.build(sizes, page_count_hint, source=pdf_path or middle)
    options = {"format": "content_list_v2" if reader.v2 else "content_list"}
    if backend:
        options["backend"] = backend
    return make_document(
        file, elements, pages, ParserInfo("mineru", version, options), pdf_path=pdf_path, warnings=warnings
    )
