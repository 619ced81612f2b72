"""Where a chunk's edges fall in the text: its span, whether its end cuts a sentence, whether it
opens with a sentence that refers back. The rules the metrics count and the defects name, kept
apart from both so that neither imports the other."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from chunkbench.text.notes import trailing_mark
from chunkbench.text.sentences import CLOSERS, STOPS, depends_on_previous
from chunkbench.text.words import ends_in_function_word
from chunkbench.types.document import is_noise

if TYPE_CHECKING:
    from chunkbench.types.chunk import Chunk
    from chunkbench.types.document import Document, Element

#: text ending in one of these is a finished sentence (or a label/list lead-in)
TERMINAL = frozenset(STOPS + CLOSERS + ':;…}。！？')
#: a last line shorter than this many words is a title/label/signature, not a cut sentence
MIN_SENTENCE_WORDS = 10
#: element types whose text is expected to end a sentence with punctuation
PROSE_TYPES = frozenset({"paragraph", "footnote", "caption", "other"})
#: stops and spaces a chunk may open with before its first word (a splitter's kept separator)
_LEAD_STOPS = STOPS + ",;: \t\n"
#: how an item of an enumeration ends when more items follow ("(a) …; and")
_ITEM_END = re.compile(r";\s*(?:and|or)\Z", re.IGNORECASE)


def chunk_range(doc: Document, chunk: Chunk) -> tuple[int, int] | None:
    """The chunk's span of `doc.text`: its offsets, else its source elements' span, else None."""
    if chunk.start_char is not None and chunk.end_char is not None:
        return chunk.start_char, chunk.end_char
    els = [doc.element(i) for i in chunk.source_blocks if i in doc._by_id]
    if not els:
        return None
    return min(e.char_start for e in els), max(e.char_end for e in els)


def is_mid_sentence(doc: Document, chunk: Chunk) -> bool:
    """Whether the chunk was cut mid-sentence.

    True when its last word is a function word ("the", "of", "and", ...), unless it ends where a
    list item "…; and" or "…; or" ends (an enumeration goes on); or when it does not end in
    terminal punctuation, its last source element is prose (headings, tables, lists and code
    legitimately end without a full stop) and its last line is sentence-long (at least
    MIN_SENTENCE_WORDS words: shorter lines are titles, signatures and labels). A footnote mark,
    reference sign or list number after the final stop ("… used by scripts. 1", "… installed: 3")
    is read past: the sentence ended before it."""
    text = chunk.text.rstrip()
    text = text[: trailing_mark(text)].rstrip()
    if not text:
        return False
    if ends_in_function_word(text):
        return not _ends_enumeration_item(doc, chunk, text)
    if text[-1] in TERMINAL:
        return False
    last = chunk.source_blocks[-1] if chunk.source_blocks else None
    if last is None or last not in doc._by_id:
        return True
    element = doc.element(last)
    if element.type not in PROSE_TYPES or element.text_level is not None:
        return False
    if _ends_before_a_heading(doc, chunk, element):
        return False
    last_line = text.rsplit("\n", 1)[-1]
    return sum(any(ch.isalnum() for ch in w) for w in last_line.split()) >= MIN_SENTENCE_WORDS


def _ends_before_a_heading(doc: Document, chunk: Chunk, element: Element) -> bool:
    """Whether the chunk ends where its last element ends and the next content is a heading: the
    text stops there in the document itself (a title page's subtitle, a line before a section), so
    no chunker cut a sentence."""
    if chunk.end_char is None or element.char_end is None or chunk.end_char < element.char_end:
        return False
    following = doc.element_at(element.char_end)
    while following is not None and is_noise(following):
        following = doc.element_at(following.char_end)
    return following is not None and following.is_heading


def _ends_enumeration_item(doc: Document, chunk: Chunk, text: str) -> bool:
    """Whether the chunk ends where a list item ending "…; and" or "…; or" ends: an item of an
    enumeration, complete though its sentence runs on into the next item."""
    if not _ITEM_END.search(text) or not chunk.source_blocks or chunk.source_blocks[-1] not in doc._by_id:
        return False
    item = doc.element(chunk.source_blocks[-1])
    return item.type == "list" and chunk.end_char is not None and not doc.text[chunk.end_char : item.char_end].strip()


def opens_dependent(doc: Document, chunk: Chunk) -> bool:
    """Whether the chunk opens inside a paragraph with a sentence that refers back ("This is
    especially true of NFS.", "But …"): a reader of the chunk alone lacks what it refers to."""
    span = chunk_range(doc, chunk)
    element = doc.element_at(span[0]) if span else None
    if span is None or element is None or element.type not in PROSE_TYPES or element.text_level is not None:
        return False
    text, at = doc.text, span[0]
    while at > element.char_start and text[at - 1].isspace():  # back over the spaces before the chunk
        at -= 1
    inside = at > element.char_start and "\n\n" not in text[at : span[0]]
    # a splitter that keeps its separator opens the chunk with the stop before it (". This is …")
    return inside and depends_on_previous(chunk.text[:60].lstrip(_LEAD_STOPS))
