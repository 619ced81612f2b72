"""The passes every parser's Document goes through after its loader: `settle(doc)`.

Tables of contents and indexes are typed (`contents`), a title page's lines read as headings are
made paragraphs (`title_page`), so are admonitions' titles ("Note", `admonitions`), a chapter's label
above its title is made furniture and heading levels are taken from the PDF's outline when it has
one that fits (`outline`), tables continued over a page break are
stitched (`stitch`; a footnote between the two parts is passed over), and footnotes are moved out
of the text they interrupt, next to their citation (`footnotes.place_footnotes`). PDF, MinerU,
Docling and document.json inputs alike; an elements.json is loaded as it was written.
"""

from __future__ import annotations

import dataclasses

from chunkbench.types.document import Document, with_offsets

from .admonitions import admonition_titles
from .contents import mark_contents
from .footnotes import OPTION_PLACED, place_footnotes
from .outline import chapter_labels, outline_levels
from .stitch import stitch_tables as stitch
from .title_page import title_page_lines


def settle(doc: Document, *, stitch_tables: bool = True) -> Document:
    """`doc` with its contents typed, its title page's headings and admonition titles made
    paragraphs, chapter labels made furniture, heading levels from its outline, its continued
    tables stitched (unless `stitch_tables` is off) and its footnotes placed; `doc` itself when
    no pass changes anything."""
    doc = title_page_lines(mark_contents(doc))
    doc = outline_levels(chapter_labels(admonition_titles(doc)))
    if stitch_tables:
        doc = stitch(doc)
    elements, moved = place_footnotes(doc.elements)
    if not moved:
        return doc
    options = {**doc.parser.options, OPTION_PLACED: moved}
    return dataclasses.replace(doc, elements=with_offsets(elements),
                               parser=dataclasses.replace(doc.parser, options=options))

