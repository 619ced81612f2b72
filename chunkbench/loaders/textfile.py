"""Reading a text source (Markdown, plain text): its bytes with one error naming the file, UTF-8
decoding that warns instead of failing, and the character offsets of its lines."""

from __future__ import annotations

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


def decode_source(data: bytes) -> tuple[str, list[str]]:
    """UTF-8 text without BOM and with NUL replaced; bad bytes replaced, with a warning."""
    warnings = []
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8-sig", errors="replace")
        warnings.append(
            f"not valid UTF-8 (first bad byte at offset {exc.start}): bad bytes replaced by U+FFFD"
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
