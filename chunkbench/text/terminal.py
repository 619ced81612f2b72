"""Text that is safe to print on a terminal: control and format characters escaped.

A file name or a document's text may hold ESC sequences (which recolour or rewrite the terminal),
carriage returns and line breaks (which forge a second message line), or bidirectional overrides
(which reorder what is shown). Everything chunkbench prints goes through these escapes."""

from __future__ import annotations

import os
import unicodedata

#: character categories escaped: controls, format characters (bidi overrides, zero-width), line and
#: paragraph separators, unassigned and private-use code points, lone surrogates
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cn", "Co", "Cs"})


def _escape(c: str) -> str:
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


class _EscapeTable(dict):
    """A str.translate table built on use: each character is classified once, then looked up."""

    def __init__(self, keep: str):
        super().__init__()
        self.keep = frozenset(map(ord, keep))

    def __missing__(self, code: int):
        c = chr(code)
        value = _escape(c) if code not in self.keep and unicodedata.category(c) in _ESCAPED_CATEGORIES else c
        self[code] = value
        return value


_ONE_LINE = _EscapeTable(keep="")
_LINES = _EscapeTable(keep="\n\t")


def terminal_safe(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with control/format characters as `\\x1b`, `\\u202e` escapes; line breaks and tabs
    too unless `keep_newlines` (for multi-line output whose lines chunkbench itself made)."""
    if text.isascii() and text.isprintable():
        return text
    return text.translate(_LINES if keep_newlines else _ONE_LINE)


def name_as_text(name: str) -> str:
    """A file name as text any UTF-8 output can hold: the bytes of a name that is not UTF-8 (which
    os.fsdecode keeps as lone surrogates, and no JSON, CSV or HTML file can) written as `\\xNN`."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")
