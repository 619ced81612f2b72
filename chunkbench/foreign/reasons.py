"""Why another chunker's boundary is where it is: what the cut coincides with in the Document.

A chunk's start is read against the elements around it: the document's start, a heading, a table's
start, the top of a new page, a paragraph's start; or, inside an element, between two table rows,
after a sentence, at a paragraph break, mid-sentence or mid-word. The code is a `Reason`, and the
detail says where, e.g. "mid-sentence inside a table row on p. 4"."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from chunkbench.text.segment import one_line
from chunkbench.types.chunk import Boundary, Reason
from chunkbench.types.document import Document, Element, is_noise

from .locate import Match

#: characters before a cut that the rules read
TAIL = 200
#: elements looked back past page furniture for the element above a cut
LOOK_BACK = 12
_SENTENCE_END = re.compile(r"[.!?:;。！？][\"'”’)\]]*\s*$")


class BoundaryReader:
    """Reads boundaries of one Document: the elements by canonical offset, found by bisection."""

    def __init__(self, doc: Document, in_no_chunk: frozenset[str] = frozenset()):
        self.doc = doc
        #: ids of the elements no chunk's span touches (a heading Docling carries in metadata only)
        self.in_no_chunk = in_no_chunk
        self.text = doc.text
        self.elements: list[Element] = sorted(
            (e for e in doc.elements if e.char_start is not None and e.char_end is not None),
            key=lambda e: e.char_start or 0)
        self.starts = [e.char_start or 0 for e in self.elements]

    def element_at(self, pos: int) -> int | None:
        """Index (in `self.elements`) of the element holding `pos`, or of the next one when `pos`
        falls between two; None past the last."""
        i = bisect.bisect_right(self.starts, pos) - 1
        if i >= 0 and pos < (self.elements[i].char_end or 0):
            return i
        return i + 1 if i + 1 < len(self.elements) else None

    def elements_in(self, start: int, end: int) -> list[Element]:
        """The elements that overlap [start, end), in reading order."""
        i = max(0, bisect.bisect_right(self.starts, start) - 1)
        out = []
        while i < len(self.elements) and (self.elements[i].char_start or 0) < end:
            if (self.elements[i].char_end or 0) > start:
                out.append(self.elements[i])
            i += 1
        return out

    def elements_in_spans(self, spans: Sequence[tuple[int, int]]) -> list[Element]:
        """The elements that overlap any of `spans`, each once, in reading order."""
        if len(spans) == 1:
            return self.elements_in(*spans[0])
        seen = {id(e): e for a, b in spans for e in self.elements_in(a, b)}
        return sorted(seen.values(), key=lambda e: e.char_start or 0)

    def boundary(self, match: Match, first: bool) -> Boundary:
        """The inferred reason a chunk found at `match` starts where it does (where its text
        begins: the first of its pieces when it was found in another reading order)."""
        if match.text_start is None:
            return Boundary(Reason.UNLOCATED, "its text was not found in this document")
        b = self._at(match.text_start, first and match.text_start == match.start)
        if match.kind == "referenced":
            return Boundary(b.reason, f"{b.detail} (placed at the items its chunker named: its text is the chunker's "
                                      f"own rendering, {match.score:.0%} of it found there)")
        if match.kind in ("fuzzy", "partial"):  # placed by some of its words: the place, not a cut, is what is known
            found = "partly located" if match.kind == "partial" else "placed by some of its words, not its text"
            i = self.element_at(match.text_start)
            page = self.elements[i].page_idx if i is not None else None
            near = f" near p. {page + 1}" if page is not None else ""
            return Boundary(Reason.UNCERTAIN_PLACE, f"{found} ({match.score:.0%} of its text){near}: no cut reason "
                                                    "is read from an uncertain place")
        if match.items_apart:
            return Boundary(b.reason, f"{b.detail} (found in {len(match.pieces)} pieces: the items its chunker "
                                      "named, with the text between them left out)")
        if match.pieces:
            return Boundary(b.reason, f"{b.detail} (found in {len(match.pieces)} pieces: another reading order)")
        return b

    def _at(self, pos: int, first: bool) -> Boundary:
        i = self.element_at(pos)
        if i is None or (first and not self.text[:pos].strip()):
            return Boundary(Reason.DOCUMENT_START, "the chunk starts the document")
        e = self.elements[i]
        # where the element is: the page of its part that holds `pos` (a paragraph joined over a
        # page break has one per page), or "in the text" for a document without pages
        part = next((p for p in e.parts if (p.char_start or 0) <= pos < (p.char_end or 0)), e)
        place = f"on p. {part.page_idx + 1}" if part.page_idx is not None else "in the text"
        start = e.char_start or 0
        if part is not e.parts[0] and part.page_idx is not None and not any(
                ch.isalnum() for ch in self.text[part.char_start or 0:pos]):
            went_on = f"p. {e.parts[0].page_idx + 1}" if e.parts[0].page_idx is not None else "the page before"
            return Boundary(Reason.MID_SENTENCE, f"at the top of p. {part.page_idx + 1}, inside a {e.type} that goes on "
                                                 f"from {went_on}: the chunker cut at the page break")
        if pos <= start or not any(ch.isalnum() for ch in self.text[start:pos]):  # a bullet or a quote before it
            return self._element_start(i, e, place)
        where = "inside a table row" if e.type == "table" else f"inside a {e.type}"
        before = self.text[max(start, pos - TAIL):pos]  # the regexes below look at the end only
        if e.type == "table" and before.endswith("\n"):
            return Boundary(Reason.TABLE_ROW_SPLIT, f"between two rows of a table {place}")
        left, right = self.text[pos - 1], self.text[pos] if pos < len(self.text) else ""
        if left.isalnum() and right.isalnum():
            word_l = re.search(r"\w*$", before)
            word_r = re.match(r"\w*", self.text[pos:pos + 40])
            cut = f"{word_l.group() if word_l else ''}|{word_r.group() if word_r else ''}"
            return Boundary(Reason.MID_WORD, f"mid-word ({one_line(cut, 40)}) {where} {place}")
        if re.search(r"\n[ \t]*\n\s*$", before):
            return Boundary(Reason.PARAGRAPH_SPLIT, f"at a paragraph break {where} {place}")
        if _SENTENCE_END.search(before):
            return Boundary(Reason.SENTENCE_SPLIT, f"after a sentence {where} {place}")
        return Boundary(Reason.MID_SENTENCE, f"mid-sentence {where} {place}")

    def _element_start(self, i: int, e: Element, place: str) -> Boundary:
        if e.is_heading:
            return Boundary(Reason.HEADING, f"at the heading {one_line(e.text)!r} {place}")
        if e.type == "table":
            return Boundary(Reason.TABLE, f"at the start of a table {place}")
        # the element above, page furniture (a running header) aside
        above = next((p for p in reversed(self.elements[max(0, i - LOOK_BACK):i]) if not is_noise(p)), None)
        if above is not None and above.is_heading and above.id in self.in_no_chunk:
            return Boundary(Reason.HEADING, f"under the heading {one_line(above.text)!r}, which is in no chunk's "
                                            f"text, at the start of a {e.type} {place}")
        if above is not None and above.page_idx is not None and e.page_idx is not None and above.page_idx < e.page_idx:
            return Boundary(Reason.PAGE_BREAK,
                            f"at the top of p. {e.page_idx + 1} (page {above.page_idx + 1} → {e.page_idx + 1})")
        return Boundary(Reason.PARAGRAPH_SPLIT, f"at the start of a {e.type} {place}")

