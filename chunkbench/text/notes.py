"""Footnote marks: the mark a footnote opens with, and where a text cites it.

A footnote opens with its mark: a number ("1 Command binaries …", "9Found at …") or a note sign
("* Includes", "† Restated"). Body text cites it right after a word or a stop, set as a superscript
that text extraction writes plainly: "…used indirectly by scripts. 1", "…are installed: 3",
"…a site-specific filesystem. 6 The setup …", "dividends¹". A number after a word and a space
("version 3") is no citation, unless nothing closer cites the note (`loosely`): only one right after
a stop, a closing bracket or quote, or joined to the word, is.
"""

from __future__ import annotations

import re

#: a footnote's opening mark: a number of one to three digits, or one to three note signs
_MARK = re.compile(r"\s*(\d{1,3}|[*†‡§¶]{1,3})(?=\s|[^\W\d_]|[(/\"“‘'])")
_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def note_mark(text: str) -> str | None:
    """The mark `text` opens with, when it reads as a footnote's ("1 Command …", "*Includes"), else None."""
    m = _MARK.match(text)
    return m.group(1) if m else None


def cites(text: str, mark: str, *, loosely: bool = False) -> bool:
    """Whether `text` cites the note `mark`: after a stop or closing mark (a space between allowed,
    other marks too: "… exists. 4 5"), joined to a word, or as a superscript; never inside a longer
    number nor after a number's own stop ("3.7.4"). `loosely`: also after a word and a space
    ("… specification 9 and"), which a number in the text may be too ("version 3")."""
    return _citation(mark, loosely).search(text) is not None


def _citation(mark: str, loosely: bool) -> re.Pattern:
    m = re.escape(mark)
    sup = re.escape(mark.translate(_SUPERSCRIPTS)) if mark.isdigit() else m
    after_word = r"(?<=[^\W\d_]) ?" if loosely else r"(?<=[^\W\d_])"
    return re.compile(rf"(?:(?<!\d)[.,;:!?)\]”\"’'] ?(?:\d{{1,3}}[ ,] ?)*{m}|{after_word}{m}|{sup})(?![\w.,]\d|\d)")


def trailing_mark(text: str) -> int:
    """Where citation marks that end `text` after a finished sentence start ("… by scripts. 1",
    "… installed: 3", "… exists. 4 5"), so the text before them can be read as ending there;
    len(text) when none does. Reads only the last `_TAIL` characters: constant time on any text."""
    tail_start = max(0, len(text) - _TAIL)
    m = _TRAILING.search(text, tail_start)
    return m.start() if m else len(text)


_TAIL = 40
#: a note mark, reference sign or list number (each whole, so the search cannot backtrack into one)
_ONE_MARK = r"(?:\d{1,3}(?!\d)|[*†‡§¶]{1,3}|[¹²³⁴-⁹⁰]{1,3}|\[\d{1,3}\]|\(?[a-z0-9]{1,3}[.)])"
#: such marks after a stop at the very end of a text
_TRAILING = re.compile(rf"(?<=[.:;!?)\]”\"’'])(?:[ \t\n]*{_ONE_MARK})+[ \t\n]*$")
