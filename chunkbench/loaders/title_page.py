"""A title page's lines, which a layout model reads as headings, made paragraphs.

A report or standard opens with a page of its title, its authors, its publisher ("Filesystem
Hierarchy Standard" | "LSB Workgroup, The Linux Foundation"). The model calls those lines titles or
section headers, so they open sections: "LSB Workgroup, The Linux Foundation" becomes a level-1
heading over the abstract and licence of the next pages, and with `--index-headings` the chunks
there are indexed under it. The first page is a title page when it holds nothing but short lines:
no text of more than `LINE_WORDS` words, no table, list or picture of content; its headings then
become paragraphs (`attrs["reclassified"]` says why; `raw_type` keeps the model's class). The first
heading of the body then opens the document's outline. Applied to every parser's Document.
"""

from __future__ import annotations

import dataclasses

from chunkbench.types.document import Document, is_noise, with_offsets

#: what a load records in ParserInfo.options: how many title-page headings became paragraphs
OPTION = "title_page_lines"
#: a line of a title page has at most this many words
LINE_WORDS = 20
#: a title page holds at most this many lines
MAX_LINES = 12
WHY = "a line of the title page, not a section heading"


def title_page_lines(doc: Document) -> Document:
    """`doc` with the headings of its title page made paragraphs; `doc` itself when its first page
    is no title page (a single page, text of sentence length, anything but short lines)."""
    if len(doc.pages) < 2:
        return doc
    first = doc.pages[0].index
    lines = [e for e in doc.elements if e.page_idx == first and not e.is_empty and not is_noise(e)]
    if not lines or len(lines) > MAX_LINES or not any(e.is_heading for e in lines):
        return doc
    if any(e.type not in ("heading", "paragraph", "caption", "other") or len(e.text.split()) > LINE_WORDS
           for e in lines):
        return doc
    if not any(e.is_heading for e in doc.elements if e.page_idx is not None and e.page_idx > first):
        return doc  # the title's heading is the only one: it is the outline
    ids = {e.id for e in lines if e.is_heading}
    elements = [dataclasses.replace(e, type="paragraph", text_level=None, attrs={**e.attrs, "reclassified": WHY})
                if e.id in ids else e for e in doc.elements]
    options = {**doc.parser.options, OPTION: len(ids)}
    return dataclasses.replace(doc, elements=with_offsets(elements),
                               parser=dataclasses.replace(doc.parser, options=options))
