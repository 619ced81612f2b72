"""Word classes and text keys shared by the loaders, the strategies and the metrics."""

from __future__ import annotations

import re

#: words that neither end a sentence nor stand alone as a heading: a chunk ending in one was cut
#: mid-sentence; a "heading" that is one of them is a connective between two blocks ("or")
FUNCTION_WORDS = frozenset(
    ["a", "an", "the", "and", "or", "nor", "but", "of", "to", "in", "on", "at", "by", "for", "from", "with",
     "without", "into", "onto", "upon", "over", "under", "between", "among", "than", "that", "which", "who",
     "whom", "whose", "this", "these", "those", "such", "any", "each", "every", "its", "their", "his", "her",
     "our", "your", "is", "are", "was", "were", "be", "been", "being", "shall", "will", "would", "may",
     "might", "must", "can", "could", "should", "not", "as", "if"]
)

_DIGITS = re.compile(r"\d+")
_LAST_WORD = re.compile(r"\w+\Z")
_LONGEST = max(map(len, FUNCTION_WORDS))


def ends_in_function_word(text: str) -> bool:
    """Whether `text` stops right after a function word ("… Contingencies and"), as no sentence
    ends. Reads only the last few characters, so it is constant time on any text."""
    tail = text[-_LONGEST - 1:]
    m = _LAST_WORD.search(tail)
    return m is not None and (m.start() > 0 or len(tail) == len(text)) and m.group(0).lower() in FUNCTION_WORDS


def page_text_key(text: str, *, fold_digits: bool = False) -> str:
    """Text as compared across pages (running headers, watermarks): whitespace collapsed, case
    folded and, with `fold_digits`, every run of digits alike (a header carrying its page number)."""
    key = " ".join(text.split()).casefold()
    return _DIGITS.sub("#", key) if fold_digits else key


def stands_in(words: str, text: str) -> bool:
    """Whether the words of `words` stand in `text` as words of their own, in order, whatever
    the whitespace between them: a page number "7" in "…\n7\nis planned", not in "17" or "v7"."""
    parts = words.split()
    if not parts:
        return False
    return re.search(r"(?<!\S)" + r"\s+".join(map(re.escape, parts)) + r"(?!\S)", text) is not None
