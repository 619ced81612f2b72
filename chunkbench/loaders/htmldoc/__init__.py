"""Load an HTML page, or a folder of chunked HTML pages, as a Document of the blocks a reader sees.

Parsed with lxml (libxml2's HTML parser, which repairs markup as browsers do). Written for the
HTML that manuals and reports are published in (Texinfo, DocBook-XSL, Sphinx, pandoc) and for
hand-written pages that follow the same conventions.

Decisions:

* elements, in reading order: `heading` (h1-h6, `text_level` its number, or its Texinfo class's
  level: texi2any writes subsections and subsubsections both as `<h4>`; the document's title,
  `attrs.document_title`, stays above the rest: it moves up above headings the generator wrote at
  its level, or they move down one when it cannot), `paragraph`, `list` (one
  per list, its items in `blocks`, one line each; `attrs.ordered`), `table` (text a pipe table,
  `rows` with spans expanded, `attrs.header_rows` the leading rows in `<thead>` or made of `<th>`),
  `code` (`<pre>`, line breaks and indentation kept), `caption` (`<caption>`, `<figcaption>`,
  DocBook's `p.title` of a table or figure), `footnote` (one per note, its mark in `attrs.mark`);
* definition lists: each term a paragraph with `attrs.definition = "term"`; the blocks of its
  description carry `definition = "description"` and `term`, the term's element id;
* admonitions (Sphinx and MkDocs `div.admonition`, DocBook's `div.note` with its layout table,
  pandoc's `div.warning`, ...): their blocks carry `attrs.admonition` (note, tip, warning, ...); the
  title is a paragraph with `attrs.admonition_title`, never a heading;
* left out (`chrome`): scripts, styles, images, navigation bars, tables of contents and mini tables
  of contents, menus, indexes, sidebars, permalink signs, legal notices, footnote back-links;
* text outside any block (bare text in a `<div>`) becomes the paragraphs a browser would draw;
* a folder: its pages from `index.html` along each page's `rel="next"` link, never outside the
  folder and never a page twice (a warning counts the HTML files the chain left out); each
  element's `attrs.file` names its page;
* the bytes are read as UTF-8 when they are valid UTF-8, else as the page declares (libxml2);
* refused with an InputError naming the file (exit 3): more than 64 MiB of HTML
  (`CHUNKBENCH_MAX_HTML_BYTES`), nesting deeper than 256 elements, no markup, no text in the body;
  markup libxml2 had to repair loads, with a warning naming the first repair;
* no pages: `pages=()`, `page_idx` and `bbox` are None; ids `e{n}`; `doc_id` is the sha256 of the
  file, or of the folder's pages' names and hashes in reading order.

Modules: `pages` (parsing, checks, a folder's reading order), `chrome` (what is left out;
admonitions and footnotes told apart), `blocks` (the tree walk), `tables` (a table's grid, also
MinerU's), `text` (an element's text as shown).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import lxml.etree

from chunkbench.errors import InputError
from chunkbench.types.document import Document, ParserInfo, make_document

from .blocks import SOURCE, BlockReader, below_title
from .chrome import strip_chrome
from .pages import MAX_PAGES, first_page, next_page, read_page
from .tables import MAX_TABLE_CELLS, TableTooLarge, html_table_rows

__all__ = ["MAX_TABLE_CELLS", "TableTooLarge", "html_table_rows", "is_html_folder", "load_html"]

#: what changes this loader's output (a new rule bumps it, so cached gold is made again)
RULES = "2026-12-05"


def load_html(path: str | os.PathLike) -> Document:
    """An HTML file, or a folder of chunked HTML pages (from its index.html along `rel=next`), as a Document."""
    given = Path(path)
    reader = BlockReader()
    warnings: list[str] = []
    generators: list[str] = []
    digest = hashlib.sha256()
    if given.is_dir():
        page_path, files = first_page(given)
        top = given.resolve()
    else:
        page_path, files, top = given, [given], given.parent.resolve()
    seen: set[Path] = set()
    folder = given.is_dir()
    file_hash = ""
    next_path: Path | None = page_path
    while next_path is not None and len(seen) < MAX_PAGES:
        page_path = next_path
        page, data = read_page(page_path)
        seen.add(page_path.resolve())
        following = next_page(page, top) if folder else None
        if following is not None and following.resolve() in seen:
            following = None
        body = page.root.find("body")
        if body is None:
            body = page.root
        strip_chrome(body)
        before = len(reader.elements)
        reader.read(body, file=page_path.name if folder else None)
        if page.repaired:
            warnings.append(f"{page_path.name}: markup repaired as a browser would (first: {page.repaired})")
        if page.generator and page.generator not in generators:
            generators.append(page.generator)
        file_hash = hashlib.sha256(data).hexdigest()
        digest.update(page_path.name.encode() + b"\0" + bytes.fromhex(file_hash))
        if not folder and len(reader.elements) == before:
            raise InputError("no text in the HTML body (after navigation, scripts and tables of contents "
                             "are left out)", page_path)
        next_path = following
    if not reader.elements:
        raise InputError("no text in any page's body (after navigation, scripts and tables of contents "
                         "are left out)", given)
    if folder:
        left = len({f.resolve() for f in files} - seen)
        if left:
            warnings.append(f"{left} HTML file(s) of the folder are not on the rel=next chain from "
                            f"{first_page(given)[0].name} and were not read")
    parser = ParserInfo(SOURCE, f"lxml {lxml.etree.__version__}",
                        {"rules": RULES, "generator": ", ".join(generators) or "unknown", "pages": len(seen)})
    return make_document(given, below_title(reader.elements), (), parser, warnings=warnings,
                         doc_id=digest.hexdigest() if folder else file_hash)


def is_html_folder(folder: Path) -> bool:
    """Whether a folder holds chunked HTML pages rather than MinerU output: an index.html, or HTML
    files and no JSON or zip."""
    if (folder / "index.html").is_file():
        return True
    names = [p.suffix.lower() for p in folder.iterdir() if p.is_file()]
    return any(s in (".html", ".htm", ".xhtml") for s in names) and not any(s in (".json", ".zip") for s in names)
