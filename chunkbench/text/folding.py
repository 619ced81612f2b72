"""Text folded for matching, mapped back to where each character came from: the one idea behind
finding another chunker's chunks (`foreign.locate`) and a question's evidence (`evaluate.retrieval`)
in a Document's text. Two fold rules, one class:

- `LETTERS_AND_DIGITS` (chunks): letters and digits only, NFKC and case-folded, so whitespace,
  line-end hyphens, ligatures, quotes, dashes and bullets do not matter;
- `EVIDENCE` (questions): no whitespace, accents removed (NFKD), case-folded, typographic quotes as
  ASCII, dashes and table pipes dropped (a pipe table and the same table read as lines compare equal).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence

import numpy as np


class FoldTable(dict):
    """A `str.translate` table whose entry for each character is `fold(character)`, filled on first
    sight of it (the folds are per character, so a text folds in one translate)."""

    def __init__(self, fold: Callable[[str], str]):
        super().__init__()
        self._fold = fold

    def __missing__(self, codepoint: int) -> str:
        folded = self._fold(chr(codepoint))
        self[codepoint] = folded
        return folded


def _letter_or_digit(ch: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKC", ch).casefold() if c.isalnum()) if ch.isalnum() else ""


_QUOTES_AND_DASHES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": None, "—": None, "‐": None,
                                    "‑": None, "−": None, "-": None, "|": None})


def _evidence_char(ch: str) -> str:
    if ch.isspace() or ch in "|-":
        return ""
    if ch.isascii():
        return ch.lower()
    plain = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return "".join(plain.casefold().translate(_QUOTES_AND_DASHES).split())


LETTERS_AND_DIGITS = FoldTable(_letter_or_digit)
EVIDENCE = FoldTable(_evidence_char)


def fold(text: str, table: FoldTable) -> str:
    """`text` folded by `table`, character by character exactly as `FoldedText` folds a document (so
    a needle and the text it came from always compare equal)."""
    return text.translate(table)


class FoldedText:
    """`text` folded by `table`, with, for each folded character, the source offset it came from
    (`origin`); the source spans in `skip` (sorted, not overlapping) are left out. Built with one
    translate and numpy: a 1-million-character document takes a fraction of a second."""

    def __init__(self, text: str, table: FoldTable, skip: Sequence[tuple[int, int]] = ()):
        codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        # the folded width of each distinct character, looked up by code point: linear (a sort of
        # the characters, as np.unique does, made the whole grow faster than the text)
        width_of = np.zeros(int(codes.max()) + 1 if len(codes) else 1, dtype=np.int64)
        present = np.zeros(len(width_of), dtype=bool)
        present[codes] = True
        for c in np.flatnonzero(present):
            width_of[c] = len(table[int(c)])
        widths = width_of[codes]
        for a, b in skip:
            widths[a:b] = 0
        self.origin = np.repeat(np.arange(len(text), dtype=np.int64), widths)
        kept, pos = [], 0
        for a, b in skip:
            kept.append(text[pos:a])
            pos = max(pos, b)
        kept.append(text[pos:])
        self.text = "".join(kept).translate(table)
        assert len(self.text) == len(self.origin)
        self.source_length = len(text)

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """The source span of folded span [start, end)."""
        return int(self.origin[start]), int(self.origin[end - 1]) + 1

    def from_source(self, pos: int) -> int:
        """The first folded index at or after source offset `pos`."""
        return int(np.searchsorted(self.origin, pos, side="left"))

    def find(self, needle: str, lo: int = 0, hi: int | None = None) -> tuple[int, int] | None:
        """Source span of the first occurrence of folded `needle` within source [lo, hi)."""
        if not needle:
            return None
        a = self.from_source(lo)
        b = len(self.text) if hi is None else self.from_source(hi)
        at = self.text.find(needle, a, b)
        return None if at < 0 else self.to_source(at, at + len(needle))
