"""Reading a text source (Markdown, plain text): its bytes with one error naming the file, decoding
(UTF-8, or UTF-16/32 by their byte order mark) that warns instead of failing, and the character offsets of its lines."""

from __future__ import annotations

import codecs
import os
import re
from array import array
from pathlib import Path

from chunkbench.errors import InputError
from chunkbench.io.inputs import check_input_file

_NEWLINE = re.compile(r"\r\n|\r|\n")  # the line breaks markdown-it normalizes to "\n"


def read_source_text(path: str | os.PathLike) -> str:
    """The text a Markdown or text Document's `src_start`/`src_end` offsets index (the decoded source)."""
    file = Path(path)
    return decode_source(read_bytes(file))[0]


def read_bytes(file: Path) -> bytes:
    """The file's bytes, checked first (check_input_file); one InputError naming it on failure."""
    check_input_file(file)
    try:
        return file.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file) from None


#: byte order marks and the encodings they announce, longest first (UTF-32 LE's starts like UTF-16 LE's)
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def decode_source(data: bytes) -> tuple[str, list[str]]:
    """The text without its BOM and with NUL replaced: UTF-8, or the UTF-16/32 a byte order mark
    announces (Windows tools write UTF-16 with one; it was read as UTF-8 mojibake); bad bytes
    replaced, with a warning."""
    warnings = []
    encoding, start = "utf-8", 0
    for bom, name in _BOMS:
        if data.startswith(bom):
            encoding, start = name, len(bom)
            break
    body = memoryview(data)[start:]
    try:
        text = str(body, encoding)
    except UnicodeDecodeError as exc:
        text = str(body, encoding, errors="replace")
        warnings.append(
            f"not valid {encoding.upper()} (first bad byte at offset {start + exc.start}): bad bytes replaced by U+FFFD"
        )
    return text.replace("\0", "\ufffd"), warnings


#: a line break written as an escape, the two characters `\n` (or `\r\n`): text dumped as string literals
ESCAPED_NEWLINE = re.compile(r"(?:\\r)?\\n")


class SourceLines:
    """Character offsets of the source's lines, numbered as markdown-it numbers them (0-based).
    With `newline` and a range, the "lines" of text[start:stop] between other breaks (e.g.
    ESCAPED_NEWLINE), their offsets still into `text`."""

    def __init__(self, text: str, newline: re.Pattern = _NEWLINE, start: int = 0, stop: int | None = None):
        self.text = text
        stop = len(text) if stop is None else stop
        # arrays of 8-byte offsets, not lists of int objects: a 20 MB file of line breaks is 20
        # million lines (1.4 GB as lists)
        self.starts = array("q", [start])
        self.ends = array("q")
        for m in newline.finditer(text, start, stop):
            self.ends.append(m.start())
            self.starts.append(m.end())
        self.ends.append(stop)

    def __len__(self) -> int:
        return len(self.starts)

    def start(self, line: int) -> int:
        return self.starts[line]

    def line(self, n: int) -> str:
        return self.text[self.starts[n] : self.ends[n]]

    def span(self, first: int, stop: int, *, keep_indent: bool = False) -> tuple[int, int]:
        """Span of lines [first, stop) without the last line break, trimmed of outer whitespace."""
        a, b = self.starts[first], self.ends[stop - 1]
        piece = self.text[a:b]
        b = a + len(piece.rstrip())
        if not keep_indent:
            a += len(piece) - len(piece.lstrip())
        return a, max(a, b)
