"""Opening inputs as a person does: any input whole (`load`: a PDF parsed once, then cached), an
uncached PDF from its first pages while the rest is parsed (`open_as_it_arrives`), another
chunker's chunks file (`load_chunks`) and a corpus of PDFs (`parse_corpus`, `warm_cache`). The
front-ends open inputs only here (tests/project/test_layers.py), so what opening means is said once:
the explorer and `chunkbench review` show an uncached PDF from its first page by the same rule."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from chunkbench.loaders import detect_kind, load
from chunkbench.loaders.chunks_file import load_chunks, source_beside
from chunkbench.loaders.corpus import expand_corpus_items, is_corpus_item, parse_corpus, warm_cache
from chunkbench.loaders.progressive import Progress

__all__ = ["Progress", "expand_corpus_items", "is_corpus_item", "load", "load_chunks", "open_as_it_arrives",
           "parse_corpus", "source_beside", "warm_cache"]

#: `load` options a page-by-page parse honours; any other option given opens the input whole
_PAGE_BY_PAGE_OPTIONS = frozenset({"backend", "cache", "password", "page_timeout", "stitch_tables", "document_id"})


def open_as_it_arrives(path: str | os.PathLike, on_update: Callable[[Progress], None], *,
                       on_error: Callable[[Exception], None] | None = None, begin: threading.Event | None = None,
                       around: int = 1, **options: Any) -> Progress:
    """The input at `path` as soon as it can be shown. A PDF for the default parser that the parse
    cache lacks comes from its first pages (page 1 ± `around`): the rest is parsed in the
    background once `begin` is set, each bigger Progress handed to `on_update` and a failure to
    `on_error` (loaders.progressive). Anything else (a cached parse, another parser, MinerU or
    Docling output) comes whole at once, as a final Progress. `options` are
    `load`'s."""
    given = {k: v for k, v in options.items() if v is not None}
    if _arrives_by_page(path, given):
        from chunkbench.loaders.progressive import load_progressively

        given.pop("backend", None)
        return load_progressively(path, on_update, around=around, on_error=on_error, begin=begin, **given)
    return Progress.whole(load(path, **options))


def _arrives_by_page(path: str | os.PathLike, given: dict[str, Any]) -> bool:
    """Whether the input is a PDF the default parser reads page by page with these options."""
    return (set(given) <= _PAGE_BY_PAGE_OPTIONS and given.get("backend", "pymupdf") == "pymupdf"
            and given.get("cache", True) and detect_kind(path) == "pdf")
