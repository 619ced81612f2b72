"""An admonition's title a layout model read as a heading ("Note", "Warning", "Tip") made what it
is: the label of a note, a paragraph.

Manuals set a note, tip or warning apart in a box with its kind as a bold title ("Note",
"Important") above the text. A layout model reads that short bold line as a section heading, so it
opens a section: in the AMC manual (DocBook, printed by dblatex) 53 of 57 notes did, and every chunk
of the text after a note ended its section path in "Note". A heading whose whole text is one of
ADMONITION_TITLES (case aside, a trailing colon or the icon's glyph aside) is a paragraph with
`attrs["admonition_title"]` and `attrs["admonition"]` (its kind); `raw_type` keeps the model's class.
Applied to every parser's Document (settle); a numbered title ("Note 13 – Contingencies", a 10-K's;
"8.2 warning", R's section on the function), one in lower case ("note", a field's section), a plural ("Notes", a paper's last section) or "See
also" (a manual page's section as often as a box) stays a heading.
"""

from __future__ import annotations

import dataclasses

from chunkbench.types.document import Document, with_offsets

#: the titles of admonitions, as DocBook, Sphinx, Texinfo and LaTeX packages print them
ADMONITION_TITLES = frozenset({"note", "tip", "warning", "caution", "important", "attention", "danger", "hint",
                               "notice"})
#: what a load records in ParserInfo.options: how many headings were admonition titles
OPTION = "admonition_titles"
WHY = "an admonition's title (Note, Warning, ...), not a section heading"


def admonition_kind(text: str) -> str | None:
    """The admonition a heading's text names ("note" for "NOTE:", "Note", "⚠ Warning"), or None: a
    numbered heading ("8.2 warning") or one in lower case ("note", Sphinx's section on a field whose
    number print dropped) is a section about the word; an admonition's title is capitalised."""
    letters = [ch for ch in text if ch.isalpha()]
    if any(ch.isdigit() for ch in text) or not letters or not letters[0].isupper():
        return None
    words = " ".join("".join(ch for ch in text if ch.isalpha() or ch.isspace()).split()).casefold()
    return words if words in ADMONITION_TITLES and len(text.strip()) <= len(words) + 4 else None


def admonition_titles(doc: Document) -> Document:
    """`doc` with the headings that are admonition titles made paragraphs; `doc` itself when none is."""
    found = {e.id: kind for e in doc.elements if e.is_heading and (kind := admonition_kind(e.text))}
    if not found:
        return doc
    elements = [dataclasses.replace(e, type="paragraph", text_level=None,
                                    attrs={**e.attrs, "admonition_title": True, "admonition": found[e.id],
                                           "reclassified": WHY})
                if e.id in found else e for e in doc.elements]
    options = {**doc.parser.options, OPTION: len(found)}
    return dataclasses.replace(doc, elements=with_offsets(elements),
                               parser=dataclasses.replace(doc.parser, options=options))
