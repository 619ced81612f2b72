"""Heading levels from the PDF's own outline, and a chapter's label set above its title made furniture.

A layout model ranks headings by font size, so a manual that sets its chapters and sections in one
size puts them at one level (the Debian Developer's Reference, printed by Sphinx's LaTeX: every
chapter a sibling of its own sections). The outline (bookmarks) LaTeX, Texinfo, DocBook and Sphinx
write into the PDF says the levels. Each heading is matched with the outline entry on its page (or
the next) whose title is the heading's, numbers aside ("1.1 Imports" | "Imports"), in order; matched
headings take the entry's level, and each unmatched heading the level its font-size rank maps to
among the matched ones, so a document's levels stay consistent with each other and with its outline.
Used when at least half of the outline's entries (and three or more) are matched, so an outline of
another document, or of a few bookmarks, changes nothing.

A line that only names a chapter ("CHAPTER FOUR", "Chapter 3", "APPENDIX A") right above the
chapter's title, which the model reads as a heading of its own, opens no section: it becomes page
furniture (type `header`, `attrs["reclassified"]`), as a running title is.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Sequence

from chunkbench.text.folding import LETTERS_AND_DIGITS, fold
from chunkbench.types.document import Document, Element, is_noise, with_offsets

#: what a load records in ParserInfo.options
OPTION_LEVELS = "outline_levels"
OPTION_LABELS = "chapter_labels"
#: the most outline entries read (a hostile outline can hold millions)
MAX_ENTRIES = 20_000
#: outline entries looked ahead of the last matched one for a heading's match
LOOKAHEAD = 8
#: the deepest heading level
DEEPEST = 6
_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|"
                 "sixteen|seventeen|eighteen|nineteen|twenty")
_CHAPTER_LABEL = re.compile(rf"^\s*(chapter|appendix|part)\s+([0-9]+|[ivxlc]+|[a-z]|{_NUMBER_WORDS})\s*[.:]?\s*$",
                            re.IGNORECASE)
LABEL_WHY = "a chapter's label above its title, not a heading of its own"


def outline_entries(path: str | None) -> list[tuple[int, str, int]]:
    """(level, title, 1-based page) of the PDF's outline; [] without a PDF, an outline, or when it
    cannot be read (damaged, nested past Python's recursion limit)."""
    if not path:
        return []
    from .pagewords import LOCK, open_pdf

    try:
        with LOCK:
            toc = open_pdf(path).get_toc(simple=True)
    except (RecursionError, RuntimeError, ValueError, OSError, Exception):  # noqa: BLE001 - no outline is no pass
        return []
    return [(int(level), str(title), int(page)) for level, title, page in toc[:MAX_ENTRIES]]


def chapter_labels(doc: Document) -> Document:
    """`doc` with each heading that only names a chapter, right before another heading, made furniture."""
    content = [e for e in doc.elements if not e.is_empty and not is_noise(e)]
    labels = {a.id for a, b in zip(content, content[1:]) if a.is_heading and b.is_heading and _CHAPTER_LABEL.match(a.text)}
    if not labels:
        return doc
    elements = [dataclasses.replace(e, type="header", text_level=None, attrs={**e.attrs, "reclassified": LABEL_WHY})
                if e.id in labels else e for e in doc.elements]
    return _with(doc, elements, OPTION_LABELS, len(labels))


def outline_levels(doc: Document, entries: Sequence[tuple[int, str, int]] | None = None) -> Document:
    """`doc` with its heading levels from its PDF's outline (`entries`, read from `doc.pdf_path` when not
    given); `doc` itself when the outline does not fit it or changes no level."""
    entries = outline_entries(doc.pdf_path) if entries is None else entries
    headings = [e for e in doc.elements if e.is_heading and not e.is_empty and e.heading_level is not None]
    if len(entries) < 3 or not headings:
        return doc
    matched = _match(headings, entries)
    if len(matched) < 3 or 2 * len(matched) < len(entries):
        return doc
    mapped, shift = _level_map(headings, matched)
    levels = {e.id: min(DEEPEST, matched[e.id] + shift if e.id in matched else mapped(e.heading_level or 1))
              for e in headings}
    changed = [e for e in headings if levels[e.id] != e.heading_level]
    if not changed:
        return doc
    elements = [dataclasses.replace(e, text_level=levels[e.id]) if e.id in levels else e for e in doc.elements]
    return _with(doc, elements, OPTION_LEVELS, len(changed))


def _match(headings: Sequence[Element], entries: Sequence[tuple[int, str, int]]) -> dict[str, int]:
    """Heading id -> outline level, matching in order: an entry within LOOKAHEAD of the last matched one,
    on the heading's page or the next, whose folded title is the heading's or ends it (numbers aside)."""
    titles = [fold(t, LETTERS_AND_DIGITS) for _, t, _ in entries]
    out: dict[str, int] = {}
    at = 0
    for e in headings:
        text = fold(e.text, LETTERS_AND_DIGITS)
        page = (e.page_idx or 0) + 1
        for k in range(at, min(len(entries), at + LOOKAHEAD)):
            level, _, entry_page = entries[k]
            title = titles[k]
            if title and abs(entry_page - page) <= 1 and (text == title or len(title) >= 3 and text.endswith(title)
                                                         or len(text) >= 3 and title.endswith(text)):
                out[e.id] = max(1, level)
                at = k + 1
                break
    return out


def _level_map(headings: Sequence[Element], matched: dict[str, int]) -> tuple[Callable[[int], int], int]:
    """A function from a font-rank level to a level, and the shift of the outline's levels: a font
    level maps to the outline level most matched headings of it have; one below them all, to the
    nearest one's, one deeper per level; the font levels above every matched one (a document title
    the outline leaves out) take the top levels, and the outline's move down by as many."""
    votes: dict[int, Counter] = {}
    for e in headings:
        if e.id in matched and e.heading_level is not None:
            votes.setdefault(e.heading_level, Counter())[matched[e.id]] += 1
    best = {font: count.most_common(1)[0][0] for font, count in votes.items()}
    above = sorted({e.heading_level for e in headings if e.id not in matched and e.heading_level is not None
                    and e.heading_level < min(best)})
    shift = len(above)

    def mapped(font: int) -> int:
        if font in best:
            return best[font] + shift
        if font < min(best):
            return above.index(font) + 1
        f = max(f for f in best if f < font)
        return best[f] + shift + font - f

    return mapped, shift


def _with(doc: Document, elements: list[Element], option: str, count: int) -> Document:
    options = {**doc.parser.options, option: count}
    return dataclasses.replace(doc, elements=with_offsets(elements), parser=dataclasses.replace(doc.parser, options=options))
