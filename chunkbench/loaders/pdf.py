"""The default PDF loader: PyMuPDF's layout model, offline on the CPU, cached, parallel for long PDFs.

`load_pdf` checks the file (missing, not a PDF, damaged, no pages, encrypted) before anything
else, then returns the cached Document or parses the pages in contiguous ranges, in a process
pool when the PDF is long, and merges them in order. Each page range may take `page_timeout`
seconds per page (default 120 s): parsing then runs in worker processes (`parse_workers`) that
are killed when a range overruns, and the load fails with an InputError naming the pages. What
a page's boxes become is documented in `pdf_layout`; running headers read as headings
(`running_headers`), heading levels, footnotes boxed as paragraphs (`footnotes`), paragraphs
continued in the next column or page (`paragraphs`) and line-end hyphens (`dehyphenate`) are
decided here because they need the whole document's furniture, font sizes, boxes and words.
Pages without a text layer are reported in `Document.warnings` and `Page.has_text`; they are
OCRed only when Tesseract is installed. Pages whose text is mostly U+FFFD or private-use code points
(fonts without a Unicode mapping) are named in a warning too.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import multiprocessing
import os
import re
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import version as package_version
from pathlib import Path

from chunkbench.errors import InputError, UsageError
from chunkbench.io.progress import progress as progress_bar
from chunkbench.runtime import env_number
from chunkbench.types.document import Document, Element, ParserInfo, make_document, sha256_file

from . import parse_workers, pdf_layout
from .cache import Dependence, ParseKey, cached_parse
from .footnotes import OPTION as OPTION_FOOTNOTES
from .footnotes import footnotes_from_paragraphs
from .paragraphs import REPAIR_RULES, rejoin
from .pdf_layout import HEADING_CLASSES, ParsedPage
from .pdflib import pymupdf
from .running_headers import OPTION as OPTION_FURNITURE
from .running_headers import furniture_from_headings
from .symbol_fonts import CONTROL_GLYPHS
from .table_titles import OPTION as OPTION_TABLE_TITLES
from .table_titles import titles_from_headings

BACKEND = "pymupdf"
#: chunkbench's own parse rules (chunkbench/loaders/pdf_layout.py): part of the cache key, so a
#: change of them is never served from a cache written before it (bump on every change)
PARSE_RULES = "2026-12-02"
#: bump when the mapping from layout boxes to Elements changes, so cached parses are redone
LOADER_REVISION = 19  # 2: text of rotated pages read from their boxes; 3: text-only pictures become paragraphs, pages of unmapped glyphs (U+FFFD, private use) are warned about; 4: table cells a word runs across joined; 5: line-end hyphens decided by the document (dehyphenate), paragraphs cut by a column or page break joined, OCR layers never code; 6: a lone function word is no heading, a sentence-like heading continues a paragraph, running headers read as headings are furniture, run-in headings are paragraphs, paragraphs joined across floats; 7: footnotes in small type at a column's foot, continued footnotes joined, Wingdings and Symbol codes read as letters are their symbols; 8: a running header's parts set apart as a masthead are furniture, a heading centred over a table is its caption; 9: a table's "continued" title is furniture once the table is stitched, a heading or list item that is a line of source in a monospaced font is code; 10: a control character opening a line before a gap (a bullet's code in a font with no Unicode map) is "•", and a page of control characters is warned about as garbled; 11: a page whose text the layout model reads none of is read from the PDF's text blocks; 12: the pages OCR would read are recorded (ocr_page_idx), and only parses with such pages depend on the OCR engine; 13: table cells from the PDF's words where the model's column lines cut a word, split a column at a word space or miss one (table_words); 14: a monospaced heading that is a shell command line is code, one that is a variable's name or a quoted word alone a definition's term; 15: OCR'd boxes across a gutter split into their columns, a word OCR read twice at one place kept once, pages that still look interleaved warned about; 16-17: blank pages (no text, image or drawing) skip the layout model, and pages OCR would read nothing on are told apart from those it would read; 18: a page whose layout box reaches far beyond it (one absurd glyph run) is read from its text blocks, the run left out and named; 19: whether a picture holding running text is text is judged by the page's own graphics, not its annotations
#: the parser option listing the pages (0-based) OCR would read, with or without OCR installed
OPTION_OCR_PAGES = "ocr_page_idx"
#: PDFs with more pages than this are parsed by a process pool
PARALLEL_MIN_PAGES = 24
#: pages per unit of work (a worker task, a progress-bar step)
RANGE_PAGES = 4
#: upper bound on worker processes (each runs the layout model on its own pages)
MAX_WORKERS = 4
#: documents with more pages than this show a progress bar on a terminal
PROGRESS_MIN_PAGES = 4
#: default limit on the layout model's time per page, in seconds (0: no limit)
PAGE_TIMEOUT = 120.0
#: environment variable that sets the per-page limit when `page_timeout` is not given
PAGE_TIMEOUT_ENV = "CHUNKBENCH_PAGE_TIMEOUT"
#: heading levels come from the rank of the heading's font size among all heading sizes
MAX_HEADING_LEVEL = 6
#: level of a section header whose font size is unknown (it has no text lines)
DEFAULT_HEADING_LEVEL = 2
#: a page is reported as garbled when more than this share of its non-space characters are
#: U+FFFD, private-use code points or control characters (glyphs of a font without a Unicode
#: mapping; a Type 3 font that numbers its glyphs from 0 or 1 gives their codes as control characters)
GARBLED_SHARE = 0.3
#: ... and it has at least this many non-space characters (a few icon glyphs are no sign)
GARBLED_MIN_CHARS = 20
#: U+FFFD, the private-use code points (BMP, planes 15 and 16), and the control characters that
#: are not whitespace (counted on a page's non-space characters, so whitespace ones never count)
_UNMAPPED = re.compile(f"[\ufffd\ue000-\uf8ff\U000f0000-\U0010ffff{CONTROL_GLYPHS}]")

log = logging.getLogger(__name__)


def load_pdf(
    path: str | os.PathLike,
    *,
    password: str | None = None,
    cache: bool = True,
    progress: bool | None = None,
    workers: int | None = None,
    parallel_min_pages: int = PARALLEL_MIN_PAGES,
    page_timeout: float | None = None,
) -> Document:
    """Load a PDF as a Document with PyMuPDF's layout model (parse results cached on disk).

    `progress` None shows a bar on a terminal for documents of more than a few pages.
    `workers` (default: the CPU count, at most MAX_WORKERS) processes parse PDFs of more than
    `parallel_min_pages` pages; the result does not depend on either.
    `page_timeout` limits the parse time per page in seconds (None: $CHUNKBENCH_PAGE_TIMEOUT or
    PAGE_TIMEOUT; 0: no limit): a slower page range stops the load with an InputError. It does
    not change the result, so it is not part of the cache key.
    """
    path = Path(path)
    page_timeout = page_timeout_setting(page_timeout)
    if not path.is_file():
        raise InputError("not a file" if path.exists() else "no such file", path)
    # Opened before the cache is consulted: a bad file fails the same way every time, and the
    # cached text of an encrypted PDF is never handed out without its password.
    with pdf_layout.open_pdf(path, password) as doc:
        page_count = doc.page_count
    doc_id, version, options = _parse_identity(path)

    def parse() -> Document:
        engine = ocr_engine()
        ocr = engine is not None
        pages = _parse_pages(
            path, password, page_count, ocr, progress, workers, parallel_min_pages, page_timeout=page_timeout
        )
        return _build_document(path, doc_id, pages, _parser_info(version, options, engine), ocr)

    return cached_parse(path, doc_id, BACKEND, _keyed_version(version), options, parse, use_cache=cache,
                        dependence=OCR_DEPENDENCE)


def _parse_identity(path: str | os.PathLike) -> tuple[str, str, dict]:
    """What names a parse of `path` on this machine: the file's hash, the parser versions and the
    options (the loader revision); the cache key is made of these. Whether OCR is installed is
    not among them: only parses that have pages OCR would read depend on it (OCR_DEPENDENCE)."""
    return sha256_file(path), backend_version(), {"loader_revision": LOADER_REVISION}


def _parser_info(version: str, options: Mapping, engine: str | None) -> ParserInfo:
    """The ParserInfo of a parse made now: its key's options, whether OCR could run, and with what."""
    return ParserInfo(BACKEND, version, {**options, "ocr": engine is not None, "ocr_engine": engine})


def parse_key(doc_id: str, version: str, options: dict) -> ParseKey:
    """The cache key of the default parser's parse of `doc_id`."""
    return ParseKey(doc_id, BACKEND, _keyed_version(version), options, OCR_DEPENDENCE)


def _keyed_version(version: str) -> str:
    """The version part of a parse's cache key: the parser's, chunkbench's parse rules and the
    repairs every parser's output shares (`paragraphs.REPAIR_RULES`)."""
    return f"{version}; rules {PARSE_RULES}; repairs {REPAIR_RULES}"


def is_cached(path: str | os.PathLike) -> bool:
    """Whether `load_pdf(path)` would be served from this machine's parse cache."""
    return parse_key(*_parse_identity(path)).is_cached()


def cache_entry_for(path: str | os.PathLike, doc: Document) -> ParseKey | None:
    """The parse-cache key `load_pdf(path)` would read on this machine, when `doc` (parsed
    elsewhere, e.g. on a Dask worker) is that very parse: same file, parser, versions and options,
    and, if it has pages OCR would read, the same OCR engine. None otherwise (then it is not
    cached here)."""
    doc_id, version, options = _parse_identity(path)
    # the options that make a parse; what it found (joined_paragraphs, ...) is recorded beside them
    made_with = {k: doc.parser.options.get(k) for k in options}
    if (doc.doc_id, doc.parser.name, doc.parser.version, made_with) != (doc_id, BACKEND, version, options):
        return None
    if _reads_ocr(doc) and doc.parser.options.get("ocr_engine") != ocr_engine():
        return None
    return parse_key(doc_id, version, options)


def backend_version() -> str:
    """Versions of everything that shapes the parse: pymupdf, pymupdf4llm, pymupdf-layout."""
    return "; ".join(f"{name} {package_version(name)}" for name in ("pymupdf", "pymupdf4llm", "pymupdf-layout"))


def ocr_available() -> bool:
    """True when PyMuPDF can OCR: Tesseract is installed (or TESSDATA_PREFIX names its data)."""
    if not (os.environ.get("TESSDATA_PREFIX") or shutil.which("tesseract")):
        return False
    try:
        pymupdf.get_tessdata()
    except RuntimeError:
        return False
    return True


def ocr_engine() -> str | None:
    """What OCR reads pages with on this machine, None without it: PyMuPDF's Tesseract (its
    version is PyMuPDF's, already in the key) and the language data it finds, by name and size,
    so installing, removing or upgrading them changes this."""
    if not ocr_available():
        return None
    try:
        folder = Path(pymupdf.get_tessdata())
        languages = sorted((f.name, f.stat().st_size) for f in folder.glob("*.traineddata"))
    except (RuntimeError, TypeError, OSError):
        return "tesseract"
    return f"tesseract, {folder}: " + ", ".join(f"{name} {size}" for name, size in languages)


def _reads_ocr(doc: Document) -> bool:
    """Whether a parse has pages OCR would read (pymupdf4llm's own decision, page by page)."""
    return bool(doc.parser.options.get(OPTION_OCR_PAGES))


#: a parse with pages OCR would read depends on the OCR engine; any other parse does not
OCR_DEPENDENCE = Dependence("ocr", _reads_ocr, ocr_engine)


def page_ranges(page_count: int, size: int = RANGE_PAGES) -> list[tuple[int, int]]:
    """Contiguous `(first, stop)` page ranges of at most `size` pages covering the document."""
    return [(first, min(first + size, page_count)) for first in range(0, page_count, size)]


def page_timeout_setting(value: float | None = None) -> float:
    """The per-page parse time limit in seconds: `value`, else $CHUNKBENCH_PAGE_TIMEOUT, else
    PAGE_TIMEOUT; 0 means no limit. UsageError for anything but a finite number >= 0."""
    if value is None:
        return env_number(PAGE_TIMEOUT_ENV, PAGE_TIMEOUT, unit=" (seconds; 0: no limit)")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise UsageError(f"page_timeout must be a number of seconds >= 0 (0: no limit), got {value!r}")
    return float(value)


def _parse_pages(
    path: Path,
    password: str | None,
    page_count: int,
    ocr: bool,
    progress: bool | None,
    workers: int | None,
    parallel_min_pages: int,
    *,
    page_timeout: float = 0.0,
) -> list[ParsedPage]:
    """Parse every page in document order: in worker processes when the document is long or a
    time limit is set (a range of n pages may take n × `page_timeout` seconds), else in-process."""
    ranges = page_ranges(page_count)
    workers = min(workers or min(os.cpu_count() or 1, MAX_WORKERS), len(ranges))
    show = progress if progress is not None else (None if page_count > PROGRESS_MIN_PAGES else False)
    # long documents on every core; with a per-page limit the parse runs in worker processes
    # anyway, and two of them beat one for any document of two ranges or more (a forked worker
    # runs the layout model on one thread: measured, benchmarks section 3)
    parallel = workers > 1 and (page_count > parallel_min_pages or bool(page_timeout))
    if multiprocessing.current_process().daemon:
        # a daemon process (a worker of someone else's pool) may not start processes of its own
        if page_timeout:
            log.debug("%s: parsed without the %g s per-page limit (a daemon process cannot start workers)",
                      path, page_timeout)
        parallel, page_timeout = False, 0.0
    tasks = [(os.fspath(path), password, first, stop, ocr) for first, stop in ranges]
    with progress_bar(page_count, f"parsing {path.name}", "page", enabled=show) as bar:
        if not (parallel or page_timeout):
            results = []
            for task in tasks:
                results.append(pdf_layout.parse_range(*task))
                bar.update(task[3] - task[2])
        else:
            pdf_layout.layout_engine()  # imported before the fork, so the workers share it
            budgets = [(stop - first) * page_timeout or None for first, stop in ranges]
            try:
                results = parse_workers.run_tasks(
                    pdf_layout.parse_range, tasks, budgets, workers if parallel else 1, _pool_context(),
                    on_done=lambda i, _: bar.update(ranges[i][1] - ranges[i][0]),
                )
            except parse_workers.WorkerFailure as exc:
                raise worker_failure(exc, ranges[exc.index], path, page_timeout) from None
    return [page for result in results for page in result]


def worker_failure(
    exc: parse_workers.WorkerFailure,
    page_range: tuple[int, int],
    path: Path,
    page_timeout: float,
) -> InputError:
    """The user's error for a parse worker that ran over its time, got stuck or died on
    `page_range` (0-based, end excluded) of `path`."""
    pages = _pages_label(*page_range)
    if isinstance(exc, parse_workers.Overrun):
        return InputError(
            f"{pages} took longer than {exc.budget:g} s to parse "
            f"(limit {page_timeout:g} s per page; raise it with --page-timeout or {PAGE_TIMEOUT_ENV})",
            path,
        )
    if isinstance(exc, parse_workers.Stalled):
        return InputError(
            f"the parser process stopped working on {pages} (it used no CPU time for {exc.seconds:g} s, "
            "and so did a second one; run it again)",
            path,
        )
    assert isinstance(exc, parse_workers.WorkerDied), exc
    code = exc.exitcode or 0
    how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
    return InputError(f"the parser process died on {pages} ({how}; out of memory?)", path)


def _pages_label(first: int, stop: int) -> str:
    """0-based `[first, stop)` as 1-based "page 3" or "pages 5-8"."""
    return f"page {stop}" if stop - first == 1 else f"pages {first + 1}-{stop}"


def _pool_context() -> multiprocessing.context.BaseContext:
    """fork on Linux, spawn elsewhere.

    spawn re-imports the caller's main module in every worker, which breaks any script without an
    `if __name__ == "__main__":` guard; fork does not, and shares the loaded layout model. Forking
    a process that holds ONNX Runtime sessions is what pymupdf4llm's own batch converter does;
    macOS and Windows cannot fork safely, so scripts there need the guard."""
    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")


def _build_document(
    path: Path, doc_id: str, parsed: Sequence[ParsedPage], parser: ParserInfo, ocr: bool
) -> Document:
    """Merge parsed pages into one Document, with running headers the model read as headings made
    furniture again (`running_headers`), tables' titles read as headings made captions
    (`table_titles`), heading levels, footnotes the model boxed as paragraphs
    (`footnotes`), paragraphs cut by a column or page break joined (`paragraphs`), words
    hyphenated at line ends joined where the document's own words say so (`dehyphenate`), and
    text-layer warnings."""
    elements, furniture = furniture_from_headings([e for p in parsed for e in p.elements],
                                                  {p.page.index: p.page.height for p in parsed})
    elements, titles = titles_from_headings(elements)
    headings = {e.id for e in elements if e.type == "heading"}
    levels = heading_levels({eid: size for p in parsed for eid, size in p.heading_sizes.items() if eid in headings})
    elements, footnotes = footnotes_from_paragraphs([_with_level(e, levels) for e in elements],
                                                    {eid: size for p in parsed for eid, size in p.paragraph_sizes.items()})
    counts = {OPTION_FURNITURE: furniture, OPTION_TABLE_TITLES: titles, OPTION_FOOTNOTES: footnotes}
    elements = rejoin(elements, counts)
    if any(counts.values()):
        parser = dataclasses.replace(parser, options={**parser.options, **{k: n for k, n in counts.items() if n}})
    ocr_pages = [p.page.index for p in parsed if p.ocr_wanted]
    if ocr_pages:
        parser = dataclasses.replace(parser, options={**parser.options, OPTION_OCR_PAGES: ocr_pages})
    pages = [p.page for p in parsed]
    return make_document(
        path,
        elements,
        pages,
        parser,
        pdf_path=path,
        warnings=_text_layer_warnings(parsed, elements, ocr) + _interleaved_warnings(parsed) + _off_page_warnings(parsed)
        + _garbled_text_warnings(elements),
        doc_id=doc_id,
    )


def heading_levels(font_sizes: Mapping[str, float]) -> dict[str, int]:
    """Level of each heading from its font size: the largest size in the document is level 1,
    the next 2, ..., the sixth and smaller 6; an unknown (0) size gets DEFAULT_HEADING_LEVEL.
    (Boxes the model calls `title` are level 1 whatever their size.)

    pymupdf4llm applies the same rule, but only within the pages of one call, so its levels
    would change with the worker split; this is applied to the whole document."""
    ranked = sorted({s for s in font_sizes.values() if s > 0}, reverse=True)
    rank = {size: min(i + 1, MAX_HEADING_LEVEL) for i, size in enumerate(ranked)}
    return {eid: rank.get(size, DEFAULT_HEADING_LEVEL) for eid, size in font_sizes.items()}


def _with_level(element: Element, levels: Mapping[str, int]) -> Element:
    if element.type != "heading" or element.raw_type not in HEADING_CLASSES:
        return element  # a heading box read as furniture or a paragraph has no level
    level = 1 if element.raw_type == "title" else levels[element.id]
    return dataclasses.replace(element, text_level=level)


def _text_layer_warnings(parsed: Sequence[ParsedPage], elements: Sequence[Element], ocr: bool) -> list[str]:
    """Say which pages have no text layer, whether OCR recovered text from them, and which of them
    OCR would read nothing on (blank, or pictures without text: no advice to install Tesseract)."""
    blank = [p.page.index for p in parsed if not p.page.has_text]
    if not blank:
        return []
    readable = [p.page.index for p in parsed if not p.page.has_text and p.ocr_wanted]
    nothing = [i for i in blank if i not in set(readable)]
    warnings = []
    if nothing:
        warnings.append(f"{len(nothing)} page(s) have no text layer: {page_list(nothing)}; OCR would read "
                        "nothing on them (blank pages, or pictures without text)")
    if not readable:
        return warnings
    head = f"{len(readable)} page(s) have no text layer: {page_list(readable)}"
    if not ocr:
        return [f"{head}; nothing on them can be chunked until they are OCRed: install Tesseract "
                "(Debian: apt-get install tesseract-ocr) and load the file again", *warnings]
    with_text = {e.page_idx for e in elements if e.text.strip()}
    unread = [i for i in readable if i not in with_text]
    warnings.insert(0, f"{head}; their text comes from OCR (Tesseract)")
    if unread:
        warnings.append(f"OCR found no text on page(s): {page_list(unread)}")
    return warnings


def _off_page_warnings(parsed: Sequence[ParsedPage]) -> list[str]:
    """Name the pages where text set far beyond the page was left out (`pdf_layout._off_page_text`)."""
    pages = [p.page.index for p in parsed if p.lines_off_page]
    if not pages:
        return []
    lines = sum(p.lines_off_page for p in parsed)
    return [f"page(s) {page_list(pages)}: {lines} line(s) of text set far beyond the page (a glyph thousands of "
            "points tall, an absurd text matrix) left out; the rest of the page is read from the PDF's text blocks"]


def _interleaved_warnings(parsed: Sequence[ParsedPage]) -> list[str]:
    """Name the pages whose OCR'd text still looks like two columns read across (`ocr_columns`)."""
    pages = [p.page.index for p in parsed if p.ocr_interleaved]
    if not pages:
        return []
    return [f"OCR text on page(s) {page_list(pages)} may run across two columns (lines of both read as one): "
            "check them in `chunkbench render`"]


def _garbled_text_warnings(elements: Sequence[Element]) -> list[str]:
    """Name the pages whose text is mostly unmapped glyphs: fonts without a Unicode mapping
    extract as U+FFFD, private-use code points or control characters, which no chunk can make
    sense of."""
    total: dict[int, int] = {}
    bad: dict[int, int] = {}
    for e in elements:
        page = e.page_idx
        if page is None:
            continue
        for text in (e.text, e.attrs.get("image_text") or ""):
            chars = "".join(text.split())
            total[page] = total.get(page, 0) + len(chars)
            bad[page] = bad.get(page, 0) + len(_UNMAPPED.findall(chars))
    garbled = [i for i, n in bad.items() if total[i] >= GARBLED_MIN_CHARS and n > GARBLED_SHARE * total[i]]
    if not garbled:
        return []
    return [f"page(s) {page_list(garbled)}: text has no Unicode mapping (garbled); OCR would be needed"]


def page_list(indices: Iterable[int]) -> str:
    """0-based page indices as 1-based page numbers with runs collapsed: "1, 3-5, 9"."""
    runs: list[list[int]] = []
    for number in sorted(i + 1 for i in indices):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
