"""`load()`: one entry point that turns any supported INPUT into a Document.

INPUT is a `.pdf` (PyMuPDF layout backend by default, or MinerU), MinerU output (a
`*_content_list.json` v1 or v2, MinerU 4's middle JSON, structured_content or zip, or an output
folder), a DoclingDocument JSON (as docling-core saves it), a Docling-style `document.json`, a
Markdown, HTML or plain-text file (or a folder of chunked HTML pages), or an `elements.json`
written by `chunkbench parse`.

JSON objects are told apart by their content, not their name: `schema_name: DoclingDocument`,
`schema: docvortex.middle` or a MinerU producer, `format: chunkbench.elements/…`, else `blocks`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError, UsageError
from chunkbench.io.inputs import check_input_file
from chunkbench.types.document import Document

from .settle import settle

BACKENDS = ("pymupdf", "mineru")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


#: the kind of input a file's suffix says (a .json is read to tell)
_KIND_OF_SUFFIX = {".pdf": "pdf", ".md": "markdown", ".markdown": "markdown", ".txt": "text", ".html": "html",
                   ".htm": "html", ".xhtml": "html", ".zip": "mineru"}


def detect_kind(path: str | os.PathLike) -> str:
    """One of pdf, mineru, html, json_object, markdown, text, elements_json; InputError if none fits."""
    if isinstance(path, str) and _URL.match(path):
        raise InputError("URLs are not fetched: download the file first (e.g. curl -LO URL) and pass its path", path)
    p = Path(path)
    if not p.exists():
        raise InputError("no such file or folder", p)
    if p.is_dir():
        from .htmldoc import is_html_folder

        return "html" if is_html_folder(p) else "mineru"
    suffix = p.suffix.lower()
    if suffix in _KIND_OF_SUFFIX:
        return _KIND_OF_SUFFIX[suffix]
    if suffix == ".json":
        if p.name.endswith(("_content_list.json", "_content_list_v2.json")):
            return "mineru"
        return _sniff_json(p)
    raise InputError(
        f"unsupported input type {suffix or '(no extension)'!r}; expected .pdf, .md, .txt, .html, MinerU output "
        "(content_list.json, middle JSON, zip or folder), a Docling JSON, a document.json or an elements.json",
        p,
    )


def _sniff_json(p: Path) -> str:
    try:
        with open(p, "rb") as fh:
            head = fh.read(4096).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", p) from None
    if head.startswith("["):
        return "mineru"
    if '"chunkbench.elements/' in head:
        return "elements_json"
    if head.startswith("{"):
        return "json_object"
    raise InputError("not a JSON object or list", p)


def load(
    path: str | os.PathLike,
    *,
    backend: str = "pymupdf",
    cache: bool = True,
    password: str | None = None,
    pdf: str | os.PathLike | None = None,
    mineru_backend: str | None = None,
    mineru_url: str | None = None,
    mineru_timeout: float | None = None,
    mineru_tier: str | None = None,
    mineru_ocr_mode: str | None = None,
    mineru_pages: str | None = None,
    mineru_command: str | os.PathLike | None = None,
    progress: bool | None = None,
    page_timeout: float | None = None,
    metadata: dict[str, Any] | None = None,
    stitch_tables: bool = True,
    document_id: str | None = None,
) -> Document:
    """Load any supported INPUT as a Document (PDF parses are cached on disk).

    `mineru_*` options go to the MinerU runner (`loaders.mineru.run`): tier, OCR mode, page range,
    the executable to run, and the 2.x/3.x backend. `pdf` names the source PDF of MinerU output (for page sizes and rendering) when it is not
    found beside the output. `metadata` is passed through to every chunk. `page_timeout` limits
    the PyMuPDF parse time per page in seconds (None: $CHUNKBENCH_PAGE_TIMEOUT or 120; 0: no
    limit); a PDF that parses slower fails with an InputError naming the pages. A parser's table
    that continues on the next page is joined to the table it continues (`stitch_tables`; off:
    one table per page, as the parser gave them; `loaders.stitch`); a parser's output also has its
    tables of contents and indexes typed and its footnotes placed by their citations (`loaders.settle`).
    `document_id` names the document in its chunks' ids (metadata `document_id`: types.ids), so two
    versions under other file names (report_2024.pdf, report_2025.pdf) share their unchanged chunks' ids.
    """
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if document_id is not None:
        check_document_id(document_id)
    check_input_file(path)  # a device or a pipe named as an input would be read without end
    kind = detect_kind(path)
    if kind == "pdf" and backend == "mineru":
        from .mineru.run import load_with_mineru

        doc = load_with_mineru(
            path, backend=mineru_backend, url=mineru_url, timeout=mineru_timeout, cache=cache,
            tier=mineru_tier, ocr_mode=mineru_ocr_mode, pages=mineru_pages, command=mineru_command,
        )
    elif kind == "pdf":
        from .pdf import load_pdf

        doc = load_pdf(path, password=password, cache=cache, progress=progress, page_timeout=page_timeout)
    else:
        doc = _load_parsed(kind, path, pdf=pdf, stitch_tables=stitch_tables)
    if kind in ("pdf", "mineru"):
        doc = settle(doc, stitch_tables=stitch_tables)
    return named(doc, metadata, document_id)


def named(doc: Document, metadata: dict[str, Any] | None = None, document_id: str | None = None) -> Document:
    """`doc` with `metadata` passed through to its chunks, `document_id` naming it in their ids."""
    if document_id is not None:
        metadata = {**(metadata or {}), "document_id": document_id}
    return doc.with_metadata(**metadata) if metadata else doc


def _load_parsed(kind: str, path: str | os.PathLike, *, pdf: str | os.PathLike | None, stitch_tables: bool) -> Document:
    """A Document from an input that is no PDF to parse: `kind` as `detect_kind` says."""
    if kind == "mineru":
        from .mineru import load_mineru

        return load_mineru(path, pdf=pdf)
    if kind == "json_object":
        return load_json_object(Path(path), pdf=pdf, stitch_tables=stitch_tables)
    if kind == "markdown":
        from .markdown import load_markdown

        return load_markdown(path)
    if kind == "text":
        from .plaintext import load_text

        return load_text(path)
    if kind == "html":
        from .htmldoc import load_html

        return load_html(path)
    return load_elements_json(path)


def check_document_id(value: str) -> str:
    """`value` if it can name a document in its chunks' ids (types.ids.document_key: 1 to 64 letters,
    digits, `.`, `_` or `-`), else a UsageError saying so."""
    from chunkbench.types.ids import is_document_key

    if not isinstance(value, str) or not is_document_key(value):
        raise UsageError(f"a document id is 1 to 64 letters, digits, '.', '_' or '-' (it starts every chunk id), "
                         f"got {str(value)[:80]!r}")
    return value


def load_json_object(path: Path, *, pdf: str | os.PathLike | None = None, stitch_tables: bool = True) -> Document:
    """A JSON object file, read once and given to the loader its content names (a parser's
    output has its tables continued over a page break stitched; an elements.json loads as written)."""
    from .docling import is_docling, load_docling_data
    from .jsonread import read_json
    from .mineru import is_mineru_object, load_mineru_data

    data = read_json(path)
    if isinstance(data, dict) and str(data.get("format", "")).startswith("chunkbench.elements/"):
        return _elements_from(path, data)
    if is_docling(data):
        doc = load_docling_data(path, data, pdf=pdf)
    elif is_mineru_object(data):
        doc = load_mineru_data(path, data, pdf=pdf)
    else:
        from .docjson import load_document_json_data

        doc = load_document_json_data(path, data, pdf=pdf)
    return settle(doc, stitch_tables=stitch_tables)


def load_elements_json(path: str | os.PathLike) -> Document:
    """Load an `elements.json` written by `chunkbench parse` back into the identical Document."""
    from .jsonread import read_json

    p = Path(path)
    return _elements_from(p, read_json(p))


def _elements_from(p: Path, data: Any) -> Document:
    from .bounds import document_problem

    try:
        doc = Document.from_dict(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not a chunkbench elements.json ({exc})", p) from None
    problem = document_problem(doc)
    if problem is not None:
        raise InputError(f"not a usable elements.json: {problem}", p)
    return doc
