"""A long PDF parsed with the page in view first, so a viewer shows it within seconds.

`load_progressively` parses the pages around `first_page` in the calling thread and returns them
as a provisional Document; a background thread parses the rest (nearest pages first, on worker
processes) and hands over a bigger provisional Document as ranges arrive, then the final one,
which is exactly `load(path)`'s: the whole-document steps (heading levels by font-size rank over
every page, table stitching across pages) are redone on every hand-over, and only the final one
has them over the whole document. The final parse is stored in the parse cache; a cached PDF is
returned final at once.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from chunkbench.errors import InputError
from chunkbench.types.document import Document

#: at most one provisional hand-over per this many seconds (each re-chunks and redraws a view)
UPDATE_SECONDS = 2.0


@dataclass(frozen=True)
class Progress:
    """The Document so far: `parsed` (0-based) of `page_count` pages; `final` when it is all of it."""

    doc: Document
    parsed: tuple[int, ...]
    page_count: int
    final: bool

    @classmethod
    def whole(cls, doc: Document) -> Progress:
        """A Document that came whole (a cached parse, another input): final at once."""
        return cls(doc, tuple(range(len(doc.pages))), len(doc.pages), True)

    def describe(self) -> str:
        """"provisional: 3 of 311 pages parsed (heading levels and tables over those pages only)"."""
        if self.final:
            return f"all {self.page_count} pages parsed"
        return (f"provisional: {len(self.parsed)} of {self.page_count} pages parsed; heading levels and tables "
                "joined across pages are those of the parsed pages only until all are in")


def load_progressively(path: str | os.PathLike, on_update: Callable[[Progress], None], *, first_page: int = 1,
                       around: int = 1, password: str | None = None, page_timeout: float | None = None,
                       stitch_tables: bool = True, on_error: Callable[[Exception], None] | None = None,
                       cache: bool = True, begin: threading.Event | None = None,
                       document_id: str | None = None) -> Progress:
    """The first Progress (pages `first_page` ± `around`, or the whole cached Document), at once;
    unless it is final, a daemon thread parses the rest (once `begin` is set, e.g. after the
    first view is drawn, so the two do not share the cores) and calls `on_update` with each bigger
    Progress (nearest pages first, at most every UPDATE_SECONDS) and with the final one, or
    `on_error` with the exception that stopped it. Errors of the first pages are raised here.
    The first pages are parsed in this process, without the per-page time limit (a worker
    process would cost more than they take); the rest with it. `document_id` names the document in
    its chunks' ids in every Progress, as `load(document_id=...)` does."""
    from . import check_document_id, load, pdf, pdf_layout

    if document_id is not None:
        check_document_id(document_id)
    path = Path(path)
    if cache and pdf.is_cached(path):
        doc = load(path, password=password, stitch_tables=stitch_tables, document_id=document_id)
        return Progress.whole(doc)
    with pdf_layout.open_pdf(path, password) as opened:
        count = opened.page_count
    if count == 0:
        raise InputError("the PDF has no pages", path)
    parse = _Parse(path, password, count, cache=cache,
                   shown=lambda made: _as_loaded(made, stitch_tables=stitch_tables, document_id=document_id))
    timeout = pdf.page_timeout_setting(page_timeout)  # a bad setting is said here, not in the thread
    first = min(max(1, first_page), count) - 1
    lo, hi = max(0, first - around), min(count, first + around + 1)
    parse.parsed[lo] = list(pdf_layout.parse_range(os.fspath(path), password, lo, hi, parse.ocr))
    progress = parse.build()
    if progress.final:
        return progress
    rest = sorted(_ranges_without(count, lo, hi), key=lambda r: min(abs(r[0] - first), abs(r[1] - 1 - first)))

    def background() -> None:
        if begin is not None:
            begin.wait()
        try:
            parse.parse(rest, on_update, timeout)
            on_update(parse.build())
        except Exception as exc:  # noqa: BLE001 - handed to the viewer, which shows it
            if on_error is not None:
                on_error(exc)

    threading.Thread(target=background, name=f"chunkbench-parse-{path.name}", daemon=True).start()
    return progress


class _Parse:
    """One PDF parsed a range of pages at a time: what is parsed so far, and the Progress it makes."""

    def __init__(self, path: Path, password: str | None, count: int, *, cache: bool,
                 shown: Callable[[Document], Document]):
        from . import pdf

        self.path, self.password, self.count, self.cache = path, password, count, cache
        #: the Document of the pages parsed as `load` gives it (settled, named)
        self.shown = shown
        self.doc_id, self.version, self.options = pdf._parse_identity(path)
        engine = pdf.ocr_engine()
        self.ocr = engine is not None
        self.parser = pdf._parser_info(self.version, self.options, engine)
        #: range start -> its ParsedPages
        self.parsed: dict[int, list] = {}

    def build(self) -> Progress:
        """The Document of the pages parsed so far (stored in the cache once all are in)."""
        from . import pdf

        pages = [p for start in sorted(self.parsed) for p in self.parsed[start]]
        made = pdf._build_document(self.path, self.doc_id, pages, self.parser, self.ocr)
        done = tuple(p.page.index for p in pages)
        final = len(done) == self.count
        if final and self.cache:
            from .cache import store

            store(pdf.parse_key(self.doc_id, self.version, self.options), made)
        return Progress(self.shown(made), done, self.count, final)

    def parse(self, rest: list[tuple[int, int]], on_update: Callable[[Progress], None], timeout: float) -> None:
        """Parse the page ranges `rest` (in worker processes with the per-page time limit, or here),
        calling `on_update` with a bigger Progress at most every UPDATE_SECONDS."""
        from . import parse_workers, pdf, pdf_layout

        last = time.monotonic()
        tasks = [(os.fspath(self.path), self.password, a, b, self.ocr) for a, b in rest]
        budgets = [((b - a) * timeout) or None for a, b in rest]
        workers = min(os.cpu_count() or 1, pdf.MAX_WORKERS, len(rest))

        def arrived(i: int, result) -> None:
            nonlocal last
            self.parsed[rest[i][0]] = list(result)
            if len(self.parsed) < len(rest) + 1 and time.monotonic() - last >= UPDATE_SECONDS:
                last = time.monotonic()
                on_update(self.build())

        if not (timeout or workers > 1):
            for i, t in enumerate(tasks):
                arrived(i, pdf_layout.parse_range(*t))
            return
        pdf_layout.layout_engine()
        try:
            parse_workers.run_tasks(pdf_layout.parse_range, tasks, budgets, workers, pdf._pool_context(),
                                    on_done=arrived)
        except parse_workers.WorkerFailure as exc:
            raise pdf.worker_failure(exc, rest[exc.index], self.path, timeout) from None


def _as_loaded(made: Document, *, stitch_tables: bool, document_id: str | None) -> Document:
    """A parse of some pages as `load` gives a Document: settled, and named by `document_id`."""
    from . import named
    from .settle import settle

    return named(settle(made, stitch_tables=stitch_tables), document_id=document_id)


def _ranges_without(count: int, lo: int, hi: int) -> list[tuple[int, int]]:
    """Page ranges (of pdf.RANGE_PAGES) covering every page outside [lo, hi)."""
    from .pdf import page_ranges

    out = []
    for a, b in page_ranges(count):
        if b <= lo or a >= hi:
            out.append((a, b))
        else:
            if a < lo:
                out.append((a, lo))
            if b > hi:
                out.append((hi, b))
    return out
