"""PyMuPDF's own chunker, `pymupdf4llm.to_chunks`, as the peer `pymupdf:to_chunks`.

It reads the PDF itself with the same layout model as chunkbench's default parser, and cuts by
its own layout signals (box edges, font changes, gaps, page breaks) within a token budget. The
PDF is parsed once per process and document; a change of parameter only reassembles the chunks
(what its `reassemble_chunks` does), so a slider or a sweep over it costs milliseconds after the
first run. Tokens are chunkbench's offline cl100k. Its chunks are then located in the Document's
text like any peer's; each keeps the element ids, section path and pages to_chunks gave it."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from chunkbench.errors import InputError
from chunkbench.foreign import ForeignChunk
from chunkbench.text.tokenizer import count_tokens
from chunkbench.types.chunk import Chunk
from chunkbench.types.document import Document, is_noise

from .base import Param

NAME = "pymupdf:to_chunks"
#: to_chunks' enumerated parameters and their values (its `_ENUM_VALUES`, the ones per chunking)
TABLE_MODES = ("preserve", "isolate")
HEADER_FOOTER_MODES = ("exclude", "auto", "include")

PARAMS = (
    Param("max_tokens", int, 400, "to_chunks(max_tokens=...): cl100k tokens a chunk may hold", min=16, max=100_000,
          ui_step=16),
    Param("min_tokens", int, 120, "to_chunks(min_tokens=...): chunks smaller than this are merged into a neighbour",
          min=0, max=100_000, ui_step=10),
    Param("breakpoint_threshold", float, 0.5, "to_chunks(breakpoint_threshold=...): the layout-signal score "
          "(0 to 1) at which a gap between sentences becomes a cut", min=0.0, max=1.0),
    Param("merge_small_chunks", bool, True, "to_chunks(merge_small_chunks=...)"),
    Param("respect_section_starts", bool, True, "to_chunks(respect_section_starts=...): cut before every heading"),
    Param("table_mode", str, "preserve", "to_chunks(table_mode=...): keep a table with its text, or alone",
          choices=TABLE_MODES),
    Param("header_footer_mode", str, "exclude", "to_chunks(header_footer_mode=...): page headers and footers "
          "left out, left out when repeated, or kept", choices=HEADER_FOOTER_MODES),
)


@functools.lru_cache(maxsize=2)
def _parsed(pdf_path: str, doc_id: str) -> Any:
    """pymupdf4llm's parse of the PDF (no OCR), kept for the process: the expensive part."""
    from chunkbench.loaders.pdf_layout import captured_messages, layout_engine, ocr_options

    layout_engine()
    from pymupdf4llm.helpers.document_layout import parse_document

    try:
        with captured_messages():
            return parse_document(pdf_path, **ocr_options(False))
    except RuntimeError as exc:
        raise InputError(f"pymupdf4llm cannot parse it: {exc}", pdf_path) from None


def make(function: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters to_chunks will get, refused here if it would refuse them."""
    if params["min_tokens"] > params["max_tokens"]:
        raise ValueError(f"min_tokens ({params['min_tokens']}) is larger than max_tokens ({params['max_tokens']})")
    return dict(params)


def split(params: dict[str, Any], doc: Document) -> list[ForeignChunk]:
    """to_chunks' chunks of the Document's PDF, with what each says about itself."""
    if not doc.pdf_path:
        raise InputError(f"strategy {NAME!r} chunks a PDF, and this document was not read from one "
                         f"(parser {doc.parser.name!r})", doc.source)
    with_pdf = _parsed(doc.pdf_path, doc.doc_id)
    from chunkbench.loaders.pdf_layout import captured_messages

    with captured_messages():
        chunked = with_pdf.to_chunks(tokenizer=count_tokens, **params)
    return [ForeignChunk(c.text, {"element_ids": list(c.metadata.element_ids),
                                  "section_path": list(c.metadata.section_path or []),
                                  "page_start": c.metadata.page_start, "page_end": c.metadata.page_end})
            for c in chunked]


def skips(doc: Document, chunks: Sequence[Chunk]) -> dict[str, str]:
    """Page furniture in no chunk: to_chunks leaves page headers and footers out by default."""
    seen = {b for c in chunks for b in c.source_blocks}
    return {e.id: "page furniture: to_chunks leaves page headers and footers out (header_footer_mode)"
            for e in doc.elements if e.id not in seen and e.text.strip() and is_noise(e)}
