"""Words hyphenated at a line end, joined again once the whole document is read.

The PDF loader joins a line ending in "letter-" to a next line starting in lower case without a
space, and records where each such hyphen is (`attrs["line_end_hyphens"]`, offsets in the
element's text). Whether the hyphen belongs to the word ("in-home", "state-of-the-art") or only
to the line break ("acceler-ating") is decided here, for the whole document at once:

1. the hyphenated word also occurs elsewhere in the document, away from a line end: keep it;
2. else the joined word occurs elsewhere in the document: drop the hyphen;
3. else the joined part (between the word's other hyphens) is an English word of
   pyspellchecker's frequency list: drop the hyphen ("defending", "slowdown");
4. else keep it ("closely-related", "fourth-generation", names, words of other languages).

The document comes first because it knows its own compounds and terms ("pick-up" is a word of
the list, but a filing that writes "pick-up" mid-line means it). Words are compared in lower case.
The joined words and the hyphens kept are counted in `ParserInfo.options`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import re
from collections.abc import Callable, Sequence

from chunkbench.types.document import Element

#: the attribute in which the PDF loader records the offsets of line-end hyphens
ATTR = "line_end_hyphens"
#: what a parse records in ParserInfo.options: line-end hyphens dropped and kept
OPTION_DROPPED = "line_end_hyphens_dropped"
OPTION_KEPT = "line_end_hyphens_kept"

#: a word, possibly hyphenated: letters joined by single hyphens
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


@dataclasses.dataclass(frozen=True)
class _Join:
    """One line-end hyphen: its element, offset, and the hyphenated word around it."""

    element: int
    offset: int
    word: str  # the whole hyphenated word, in lower case
    start: int  # where the word starts in the element's text


def dehyphenate(elements: Sequence[Element], known: Callable[[str], bool] | None = None) -> tuple[list[Element], int, int]:
    """`elements` with each line-end hyphen dropped or kept by the rules above, the attribute
    removed; and how many were dropped and kept. `known` tells a word of the language (default:
    pyspellchecker's English list, loaded only when the document cannot decide)."""
    joins = [j for i, e in enumerate(elements) for j in _joins(i, e)]
    if not joins:
        return list(elements), 0, 0
    seen = _document_words(elements)
    drops: dict[int, list[int]] = {}
    kept = 0
    for join in joins:
        if _drop(join, seen, known or english_word):
            drops.setdefault(join.element, []).append(join.offset)
        else:
            kept += 1
    out = []
    for i, e in enumerate(elements):
        if ATTR not in e.attrs:
            out.append(e)
            continue
        dropped_here = sorted(drops.get(i, ()))
        text = _replaced(e.text, dropped_here, "")
        attrs = {k: v for k, v in e.attrs.items() if k != ATTR}
        if dropped_here and attrs.get("segments"):  # a joined paragraph's parts (loaders.paragraphs)
            attrs["segments"] = [_shifted(seg, dropped_here) for seg in attrs["segments"]]
        out.append(dataclasses.replace(e, text=text, attrs=attrs))
    return out, len(joins) - kept, kept


def _shifted(seg: dict, dropped: Sequence[int]) -> dict:
    """A segment's offsets once the characters at `dropped` are gone from the text."""
    return {**seg, "start": seg["start"] - sum(d < seg["start"] for d in dropped),
            "end": seg["end"] - sum(d < seg["end"] for d in dropped)}


def _joins(index: int, element: Element) -> list[_Join]:
    """The line-end hyphens of one element, each with the hyphenated word it is in."""
    offsets = element.attrs.get(ATTR) or ()
    out = []
    for offset in offsets:
        word = _word_at(element.text, offset)
        if word is not None:
            out.append(_Join(index, offset, word[0].lower(), word[1]))
    return out


def _word_at(text: str, offset: int) -> tuple[str, int] | None:
    """The hyphenated word holding the hyphen at `offset`, and where it starts."""
    for m in _WORD.finditer(text, max(0, text.rfind(" ", 0, offset) + 1)):
        if m.start() <= offset < m.end():
            return m.group(), m.start()
        if m.start() > offset:
            break
    return None


def _document_words(elements: Sequence[Element]) -> set[str]:
    """Every word of the document in lower case, as written away from line ends: a word with a
    line-end hyphen counts as its two pieces, which never decide anything."""
    words: set[str] = set()
    for e in elements:
        words.update(w.lower() for w in _WORD.findall(_replaced(e.text, sorted(e.attrs.get(ATTR) or ()), " ")))
    return words


def _replaced(text: str, offsets: Sequence[int], by: str) -> str:
    """`text` with the character at each of the sorted `offsets` replaced by `by`, in one pass
    (an element of a whole page may hold hundreds of line-end hyphens)."""
    if not offsets:
        return text
    pieces, last = [], 0
    for offset in offsets:
        pieces += [text[last:offset], by]
        last = offset + 1
    pieces.append(text[last:])
    return "".join(pieces)


def _drop(join: _Join, seen: set[str], known: Callable[[str], bool]) -> bool:
    """Whether this line-end hyphen belongs to the line break, not to the word (rules 1-4)."""
    at = join.offset - join.start
    joined = join.word[:at] + join.word[at + 1:]
    if join.word in seen:
        return False
    if joined in seen:
        return True
    left = join.word.rfind("-", 0, at) + 1
    right = join.word.find("-", at + 1)
    part = joined[left:] if right < 0 else joined[left:right - 1]
    return known(part)


@functools.lru_cache(maxsize=1)
def _english_words() -> frozenset[str]:
    """pyspellchecker's English list as a set of lower-case words. A copy as plain lines in the
    cache folder loads in about 25 ms, against 150 ms for the package's gzipped JSON, which a CLI
    run (a fresh process) would pay on every PDF that needs it."""
    from importlib.metadata import version

    from chunkbench.errors import InputError
    from chunkbench.io.atomic import write_text

    from .cache import cache_dir, read_cache_file

    copy = cache_dir() / f"english-words-pyspellchecker-{version('pyspellchecker')}.txt"
    with contextlib.suppress(OSError, UnicodeDecodeError, InputError):
        stamp, _, body = read_cache_file(copy).partition("\n")
        if stamp == _stamp(body):  # a copy cut short or changed is made again, never believed
            return frozenset(body.split("\n"))
    from spellchecker import SpellChecker

    words = frozenset(SpellChecker(language="en", distance=1).word_frequency.keys())
    body = "\n".join(sorted(words))
    with contextlib.suppress(OSError):
        write_text(copy, _stamp(body) + "\n" + body)
    return words


def _stamp(body: str) -> str:
    """The first line of the word list's copy: the hash of the rest."""
    return "sha256:" + hashlib.sha256(body.encode("utf-8")).hexdigest()


def english_word(word: str) -> bool:
    """Whether `word` (any case) is in pyspellchecker's English frequency list (160k words,
    loaded once per process)."""
    return word.lower() in _english_words()
