"""A long PDF of a corpus parsed as page ranges on several Dask workers instead of one.

A corpus of filings with one 500-page annual report would otherwise wait for one worker to parse
those 500 pages while the others are idle. A PDF of more than SPLIT_PAGES pages, not in the parse
cache, is planned here as page ranges (`pdf.page_ranges`); each range is a task (`parse_range_task`)
returning its parsed pages, and the client assembles them as `load_pdf` does (`pdf._build_document`),
so the Document is the one a `load` on this machine gives when the workers run the same versions.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: a PDF of more pages than this is parsed as page ranges across the workers
SPLIT_PAGES = 64


@dataclass
class SplitParse:
    """One PDF being parsed as `ranges` on the cluster: the answers of the ranges done so far."""

    path: str
    password: str | None
    ranges: list[tuple[int, int]]
    ocr_engine: str | None  # this machine's (pdf.ocr_engine), None: pages are not OCRed
    identity: tuple[str, str, dict]
    done: dict[int, dict] = field(default_factory=dict)

    def complete(self) -> bool:
        return len(self.done) == len(self.ranges)

    def answer(self) -> dict[str, Any]:
        """The file's answer as `corpus.parse_file` gives it: the assembled Document (a dict)."""
        from .pdf import _build_document, _parser_info

        doc_id, version, options = self.identity
        pages = [page for k in range(len(self.ranges)) for page in self.done[k]["pages"]]
        doc = _build_document(Path(self.path), doc_id, pages, _parser_info(version, options, self.ocr_engine),
                              self.ocr_engine is not None)
        return {"ok": True, "doc": doc.to_dict(), "seconds": sum(a["seconds"] for a in self.done.values())}


def plan_split(path: str, options: dict[str, Any], split_pages: int = SPLIT_PAGES) -> SplitParse | None:
    """Page ranges for `path` when it is a PDF for the default parser, of more than `split_pages`
    pages and not in this machine's parse cache; None otherwise (or when it cannot be opened: the
    whole-file task then reports why)."""
    if not path.lower().endswith(".pdf") or options.get("backend", "pymupdf") != "pymupdf":
        return None
    from . import pdf_layout
    from .pdf import _parse_identity, ocr_engine, page_ranges, parse_key

    try:
        with pdf_layout.open_pdf(path, options.get("password")) as doc:
            count = doc.page_count
    except Exception:  # noqa: BLE001 - the whole-file task says what is wrong with it
        return None
    if count <= split_pages:
        return None
    identity = _parse_identity(Path(path))
    if options.get("cache", True) and parse_key(*identity).is_cached():
        return None  # the whole-file task reads it from the cache
    return SplitParse(os.fspath(path), options.get("password"), page_ranges(count), ocr_engine(), identity)


def parse_range_task(path: str, password: str | None, first: int, stop: int, ocr: bool,
                     threads: int | None = 1) -> dict[str, Any]:
    """Pages `first` to `stop - 1` of `path` parsed where this runs (a Dask task): {"ok", "pages"
    | "error", "seconds"}; never raises for a bad page range."""
    from . import pdf_layout

    started = time.monotonic()
    try:
        if threads:
            pdf_layout.limit_model_threads(threads)
        pages = pdf_layout.parse_range(path, password, first, stop, ocr)
        return {"ok": True, "pages": pages, "seconds": time.monotonic() - started}
    except Exception as exc:  # noqa: BLE001 - one broken range fails its file, not the corpus run
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "seconds": time.monotonic() - started}
