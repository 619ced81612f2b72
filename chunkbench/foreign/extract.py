"""The plain text other pipelines chunk: what PyMuPDF's `page.get_text()` (LangChain's PyMuPDFLoader)
or pypdf's `extract_text()` (PyPDFLoader) give for a PDF, pages joined by a line break. For trying
another chunker on the same PDF in a notebook, and for the tests and benchmarks of `inspect`."""

from __future__ import annotations

import logging
import os

from chunkbench.errors import InputError, UsageError

ENGINES = ("pymupdf", "pypdf")


def pdf_plain_text(path: str | os.PathLike, engine: str = "pymupdf") -> str:
    """The PDF's text as `engine` extracts it, one page after another (joined by a line break)."""
    return "\n".join(pdf_page_texts(path, engine))


def pdf_page_texts(path: str | os.PathLike, engine: str = "pymupdf") -> list[str]:
    """Each page's text as `engine` extracts it."""
    if engine == "pymupdf":
        from chunkbench.loaders.pdflib import pymupdf_open

        try:
            with pymupdf_open(path) as pdf:
                return [page.get_text() for page in pdf]
        except (RuntimeError, ValueError) as exc:
            raise InputError(f"cannot read the PDF: {exc}", path) from None
    if engine == "pypdf":
        try:
            from pypdf import PdfReader
        except ImportError:
            raise UsageError("engine 'pypdf' needs the pypdf package (pip install pypdf)") from None
        log = logging.getLogger("pypdf")
        level = log.level
        log.setLevel(logging.ERROR)  # its font-map warnings say nothing about the text a chunker gets
        try:
            return [page.extract_text() or "" for page in PdfReader(os.fspath(path)).pages]
        finally:
            log.setLevel(level)
    raise UsageError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
