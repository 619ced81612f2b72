"""`load()`: one entry point that turns any supported INPUT into a Document.

INPUT is a `.pdf` (PyMuPDF layout backend by default, or MinerU), a MinerU `*_content_list.json`
(v1 or v2) or output folder, a Docling-style `document.json`, a Markdown or plain-text file, or an
`elements.json` written by `chunkbench parse`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError, UsageError
from chunkbench.types.document import Document

BACKENDS = ("pymupdf", "mineru")


def detect_kind(path: str | os.PathLike) -> str:
    """One of pdf, mineru, document_json, markdown, text, elements_json; InputError if none fits."""
    p = Path(path)
    if not p.exists():
        raise InputError("no such file or folder", p)
    if p.is_dir():
        return "mineru"
    suffix = p.suffix.lower()
    if suffix == ".pdf":
        return "pdf"
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix == ".txt":
        return "text"
    if suffix == ".json":
        if p.name.endswith(("_content_list.json", "_content_list_v2.json")):
            return "mineru"
        return _sniff_json(p)
    raise InputError(
        f"unsupported input type {suffix or '(no extension)'!r}; expected .pdf, .md, .txt, a MinerU "
        "content_list.json or output folder, a document.json or an elements.json",
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
        return "document_json"
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
    progress: bool | None = None,
    page_timeout: float | None = None,
    metadata: dict[str, Any] | None = None,
) -> Document:
    """Load any supported INPUT as a Document (PDF parses are cached on disk).

    `pdf` names the source PDF of MinerU output (for page sizes and rendering) when it is not
    found beside the output. `metadata` is passed through to every chunk. `page_timeout` limits
    the PyMuPDF parse time per page in seconds (None: $CHUNKBENCH_PAGE_TIMEOUT or 120; 0: no
    limit); a PDF that parses slower fails with an InputError naming the pages.
    """
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    kind = detect_kind(path)
    if kind == "pdf" and backend == "mineru":
        from .mineru.run import load_with_mineru

        doc = load_with_mineru(
            path, backend=mineru_backend, url=mineru_url, timeout=mineru_timeout, cache=cache
        )
    elif kind == "pdf":
        from .pdf import load_pdf

        doc = load_pdf(path, password=password, cache=cache, progress=progress, page_timeout=page_timeout)
    elif kind == "mineru":
        from .mineru import load_mineru

        doc = load_mineru(path, pdf=pdf)
    elif kind == "document_json":
        from .docjson import load_document_json

        doc = load_document_json(path, pdf=pdf)
    elif kind == "markdown":
        from .markdown import load_markdown

        doc = load_markdown(path)
    elif kind == "text":
        from .plaintext import load_text

        doc = load_text(path)
    else:
        doc = load_elements_json(path)
    return doc.with_metadata(**metadata) if metadata else doc


def load_elements_json(path: str | os.PathLike) -> Document:
    """Load an `elements.json` written by `chunkbench parse` back into the identical Document."""
    p = Path(path)
    try:
        data = json.loads(p.read_text("utf-8"))
        return Document.from_dict(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not valid JSON: {exc}", p) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not a chunkbench elements.json ({exc})", p) from None
