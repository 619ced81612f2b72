"""Paragraphs that a column or page break cut in two, joined into one paragraph.

The layout model boxes each column of a page apart, so a paragraph that runs from the foot of
one column (or page) to the head of the next becomes two paragraphs, and a chunker cuts between
them: the second chunk starts mid-sentence, or mid-word ("re-" | "cent 2015–2016 jump"). Two
paragraphs are one when the second is the next content after the first (page furniture and
footnotes and floats aside: tables, pictures, captions), starts in lower case at the head of the
next column or page (above the first's foot, right of its middle, or on a later page: a page of
tables may lie between) and no wider than the first's column. A table's or picture's note
(right under it, within its width, opening "a …", "1 …", "Note:", "Source:") lies between as
its float does: "… for the most" | Table 1 | "a TSX launched with …" | "part, ignore such
changes". The first ends open:

* in a letter and a hyphen: joined without a space; the hyphen is a line-end hyphen, which the
  document's words then keep or drop (`dehyphenate`);
* in a letter or a comma: joined with a space.

A footnote continued at the foot of the next column or page is joined the same way to the
footnote before it (the body text between passed over): "12 The magnitude … such as" | body of
the next column | "altitude and airspeed, …".

The second may also be a "heading" that reads as the rest of a sentence: lower case at the start
and a full stop, `?` or `!` at the end. The layout model types a continuation at the head of a
page as a heading ("…lets you make use of it. That" | "may affect the final values of the
parameters."), while lower-case headings of manuals ("set xtics") do not end like a sentence.
So is a lower-case "heading" on the line right under the paragraph, a run of its text MinerU
typed as a title ("… in the Indonesian accident" | "report (http://…), indicated" | "that a single
erroneously high angle of attack …").

The joined paragraph keeps the first one's id and box, lists each column's part in
`attrs["segments"]` (as a stitched table does: `Element.parts`, so chunk boxes and overlays mark
both columns) and `attrs["stitched"]` names the elements it was made of. Furniture, footnotes
and floats that lay between follow it.

Two more ways a paragraph is found broken, seen in MinerU 4's output, which splits paragraphs
inside a column ("… to the person identified" | "in the FOR FURTHER INFORMATION CONTACT …"):
the second starts in lower case on the line right under the first (`_on_the_next_line`), or the
parser itself says the second continues the first (MinerU's `continues_prev`). And a paragraph
that stops on a function word ("… Note 13, Contingencies and") goes on with the line right under
it whatever its case ("Commitments, of the Notes …", Best Buy's 10-K p. 31); a column or a page
away only a lower-case opening continues it, as a parser's reading order may put other text there.

The PDF loader joins its paragraphs, and MinerU's and Docling's loaders theirs, by one step
(`rejoin`), which then lets the document's own words decide the line-end hyphens of the joins.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from chunkbench.text.sentences import CLOSERS, STOPS
from chunkbench.text.words import ends_in_function_word
from chunkbench.types.document import Element, is_noise

from .dehyphenate import ATTR as LINE_END_HYPHENS
from .dehyphenate import OPTION_DROPPED, OPTION_KEPT, dehyphenate
from .footnotes import NOTE_MARK
from .pdf_layout import joins_hyphenated
from .stitch import join_continuations, stitched_attrs

#: the version of the repairs `rejoin` makes, which every parser's loader shares: part of each
#: parse cache key (PDF, MinerU runs), so a change here is never served from an older cache
REPAIR_RULES = "2026-11-27.1"
#: what a parse records in ParserInfo.options: how many breaks were joined
OPTION = "joined_paragraphs"
#: points a column's head may sit below the previous column's foot and still be "above" it
_TOLERANCE = 2.0
#: points between a box's foot and the top of a box that continues it on the next line
_LINE_GAP = 3.0
#: points by which a paragraph's first line may be indented from the column's edge
_INDENT = 20.0
#: the attribute in which a parser says an element continues the one before it (MinerU 4's
#: `continues_prev`, kept by `loaders.mineru.v4`)
PARSER_SAYS_CONTINUES = "continues_prev"
#: a continuation is at most this much wider than the column part it continues
_WIDER = 1.25
_OPEN_END = re.compile(r"(?:[^\W\d_]|,)\Z")
_PASSED_OVER = frozenset({"footnote", "table", "image", "caption"})
_FLOATS = frozenset({"table", "image"})
_CAPTION_LEAD = re.compile(r"(?:Table|Figure|Fig\.|Exhibit|Chart|Listing|Algorithm)\s+[\dA-Z][\w.-]*\s*[:.]\s")
#: how a float's note opens: a note letter ("a TSX launched …") or a footnote's mark, then a
#: capital; "Note:", "Source:"
_NOTE_LEAD = re.compile(rf"(?:[a-z]\s|{NOTE_MARK})\s*[A-Z]|(?:Notes?|Sources?)\b\s*[:.]")
#: points below a float's foot within which its note starts
_NOTE_GAP = 15.0
#: a sentence's end: a full stop, `?` or `!` after a letter, maybe in closing quotes or brackets
_SENTENCE_END = re.compile(rf"[^\W\d_][{STOPS}][{re.escape(CLOSERS)}]*\Z")


def join_broken_paragraphs(elements: Sequence[Element]) -> tuple[list[Element], int]:
    """`elements` with every paragraph continued in the next column or page joined to the one it
    continues (chains too), then every footnote continued at the foot of the next column or
    page joined to the one it continues; and how many breaks were joined."""
    notes = _float_notes(elements)
    elements, paragraphs = join_continuations(elements, "paragraph", continues, join,
                                              between=lambda e: _passed_over(e) or e.id in notes)
    elements, footnotes = join_continuations(elements, "footnote", continues, join,
                                             between=lambda e: e.type != "footnote")
    return elements, paragraphs + footnotes


def rejoin(elements: Sequence[Element], counts: dict) -> list[Element]:
    """`elements` with their broken paragraphs joined, then each line-end hyphen (a join's "re-"
    | "cent", or one the loader kept in a line) dropped or kept by the document's own words
    (`dehyphenate`). How many of each is recorded in `counts` (OPTION, OPTION_DROPPED,
    OPTION_KEPT), when not none. The PDF loader's step, and MinerU's and Docling's loaders'."""
    joined_elements, joined = join_broken_paragraphs(elements)
    out, dropped, kept = dehyphenate(joined_elements)
    counts.update({k: n for k, n in ((OPTION, joined), (OPTION_DROPPED, dropped), (OPTION_KEPT, kept)) if n})
    return out


def _passed_over(e: Element) -> bool:
    """What may lie between a paragraph and its continuation: page furniture, footnotes, and
    floats (tables, pictures, captions, a paragraph that opens "Table 6:"), which LaTeX and
    word processors place wherever they fit."""
    return is_noise(e) or e.type in _PASSED_OVER or (e.type == "paragraph" and bool(_CAPTION_LEAD.match(e.text)))


def _float_notes(elements: Sequence[Element]) -> set[str]:
    """Ids of the paragraphs that are a table's or picture's note: right after it, on its page,
    starting just under its foot, within its width, opening like a note ("a TSX launched …",
    "Source: …"). A float's note lies between a paragraph and its continuation as the float does."""
    notes: set[str] = set()
    float_: Element | None = None
    for e in elements:
        if is_noise(e) or e.is_empty:
            continue
        if (float_ is not None and e.type == "paragraph" and e.page_idx == float_.page_idx
                and e.bbox is not None and float_.bbox is not None and _NOTE_LEAD.match(e.text)):
            fx0, _, fx1, fy1 = float_.bbox
            x0, y0, x1, _ = e.bbox
            if fx0 - _TOLERANCE <= x0 and x1 <= fx1 + _TOLERANCE and fy1 - _TOLERANCE <= y0 <= fy1 + _NOTE_GAP:
                notes.add(e.id)
        float_ = e if e.type in _FLOATS else None
    return notes


def continues(first: Element, second: Element) -> bool:
    """Whether `second` continues `first`: a paragraph the content right after paragraph `first`,
    or a footnote the next footnote after footnote `first` (on its page or the next)."""
    if first.type == second.type == "paragraph" and second.attrs.get(PARSER_SAYS_CONTINUES) is True:
        return True
    lower = _opening(second).islower()
    if first.type not in ("paragraph", "footnote") or not (lower or _left_hanging(first, second)):
        return False
    last = first.parts[-1]
    next_line = _on_the_next_line(last, second)
    if not _kinds_continue(first, second, lower=lower, next_line=next_line):
        return False
    if not (joins_hyphenated(first.text, second.text) or _OPEN_END.search(first.text)):
        return False
    return _placed_after(last, second, lower=lower, next_line=next_line)


def _kinds_continue(first: Element, second: Element, *, lower: bool, next_line: bool) -> bool:
    """Whether what `second` is may continue `first`: a footnote the next footnote (on its page or
    the next), a paragraph a paragraph, or a "heading" that reads as the rest of the sentence."""
    if first.type == "footnote":
        last_page, page = first.last_page_idx, second.page_idx
        return not (second.type != "footnote" or last_page is None or page is None or page > last_page + 1)
    if second.type == "heading":
        # not a lower-case heading of a manual ("set xtics") under its section's text
        return bool(_SENTENCE_END.search(second.text) or (lower and next_line))
    return second.type == "paragraph"


def _placed_after(last: Element, second: Element, *, lower: bool, next_line: bool) -> bool:
    """Whether `second` lies where a continuation of `last` would: the line right under it, or (in
    lower case) the head of the next column or a later page, no wider than its column."""
    if last.page_idx is None or second.page_idx is None or last.bbox is None or second.bbox is None:
        return False
    if next_line:
        return True
    if not lower:  # a capital continues a paragraph only on the line right under it: a column
        return False  # or page away, a parser's reading order may have put other text there
    x0, _, x1, y1 = last.bbox
    if second.bbox[2] - second.bbox[0] > _WIDER * (x1 - x0) + _TOLERANCE:
        return False  # wider than the column it would continue: a table's note across both columns
    if second.page_idx > last.page_idx:  # the next page, or a later one after pages of floats
        return True
    return (second.page_idx == last.page_idx and second.bbox[1] < y1 - _TOLERANCE
            and second.bbox[0] >= (x0 + x1) / 2)


def _left_hanging(first: Element, second: Element) -> bool:
    """Whether paragraph `first` stops on a word no sentence ends with ("… Note 13, Contingencies
    and") and paragraph `second` opens with a word, which then goes on with it whatever its case
    ("Commitments, of the Notes …"; on the line right under it only, `continues`)."""
    return first.type == second.type == "paragraph" and ends_in_function_word(first.text) and _opening(second).isalpha()


def _opening(e: Element) -> str:
    """The first character of `e`'s text past Markdown emphasis marks (MinerU's `**bold**`)."""
    return e.text.lstrip("*_")[:1]


def _on_the_next_line(above: Element, below: Element) -> bool:
    """Whether `below` starts on the line after `above` ends, in its column: on its page, at most
    `_LINE_GAP` under its foot, its left edge within `_INDENT` of the other's."""
    if above.bbox is None or below.bbox is None or above.page_idx != below.page_idx:
        return False
    return -_TOLERANCE <= below.bbox[1] - above.bbox[3] <= _LINE_GAP and abs(below.bbox[0] - above.bbox[0]) <= _INDENT


def join(first: Element, second: Element) -> Element:
    """`first` with the text of its continuation `second` appended."""
    hyphenated = joins_hyphenated(first.text, second.text)
    start = len(first.text) + (0 if hyphenated else 1)
    text = first.text + ("" if hyphenated else " ") + second.text
    hyphens = [*first.attrs.get(LINE_END_HYPHENS, ()), *([len(first.text) - 1] if hyphenated else []),
               *(start + h for h in second.attrs.get(LINE_END_HYPHENS, ()))]
    attrs = stitched_attrs(first, second, (start, len(text)))
    if hyphens:
        attrs[LINE_END_HYPHENS] = hyphens
    return dataclasses.replace(first, text=text, page_end_idx=second.last_page_idx, attrs=attrs)
