"""Text helpers shared by loaders and strategies: spans of paragraphs (sentences: `sentences`), pipe tables.

Splitters return (start, end) spans into the given string so callers keep exact offsets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Spans of paragraphs separated by blank lines; each span is stripped of outer whitespace."""
    spans = []
    pos = 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    return [s for s in (_strip_span(text, a, b) for a, b in spans) if s[1] > s[0]]


def _strip_span(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def skip_space(text: str, pos: int, end: int | None = None) -> int:
    """The first offset at or after `pos` (before `end`, default the text's end) that is not
    whitespace: where a cut, a label or a click at `pos` really begins."""
    end = len(text) if end is None else end
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


def word_start(text: str, position: int) -> int:
    """`position` moved back to the start of the word it falls in, then past whitespace."""
    while 0 < position < len(text) and not text[position - 1].isspace() and not text[position].isspace():
        position -= 1
    return skip_space(text, position)


def pipe_table(rows: Sequence[Sequence[str]]) -> str:
    """Rows as a Markdown pipe table (first row is the header); pipes in cells are escaped."""
    cells = [[" ".join(str(c or "").split()).replace("|", "\\|") for c in r] for r in rows if r]
    if not cells:
        return ""
    width = max(len(r) for r in cells)
    cells = [r + [""] * (width - len(r)) for r in cells]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
    return "\n".join(lines)


def is_rule_line(line: str) -> bool:
    """Whether `line` is a pipe table's `|---|---|` line under its header row (what pipe_table writes)."""
    return "-" in line and set(line) <= set("|-: ")


def one_line(text: str, limit: int = 60) -> str:
    """Whitespace-collapsed text cut to `limit` characters with an ellipsis, for details/previews."""
    s = " ".join(text.split())
    return s if len(s) <= limit else s[: limit - 1] + "…"
