"""Text helpers shared by loaders and strategies: spans of paragraphs and sentences, pipe tables.

Splitters return (start, end) spans into the given string so callers keep exact offsets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# End of sentence: . ! ? (optionally closing quotes/brackets) then whitespace, then a likely start.
_SENTENCE_END = re.compile(r"[.!?。！？][\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9À-ÖØ-Þ\u0400-\u042f\u4e00-\u9fff])")
_ABBREVIATIONS = frozenset(
    ["e.g", "i.e", "etc", "vs", "cf", "no", "nos", "art", "sec", "secs", "para", "fig", "figs", "inc", "ltd", "co", "corp", "mr", "mrs", "ms", "dr", "st", "jr", "sr", "u.s", "approx", "dept", "est", "vol", "p", "pp", "ch", "ex", "al"]
)
_SENTENCE_END_CJK = re.compile(r"[。！？]")


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Spans of paragraphs separated by blank lines; each span is stripped of outer whitespace."""
    spans = []
    pos = 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    return [s for s in (_strip_span(text, a, b) for a, b in spans) if s[1] > s[0]]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Spans of sentences; common abbreviations (e.g., Inc., No.) and decimals do not end one."""
    spans = []
    pos = 0
    for m in _SENTENCE_END.finditer(text):
        word = text[max(pos, m.start() - 12) : m.start()].split()
        last = word[-1].lower().rstrip(".") if word else ""
        if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue
        end = m.start() + len(m.group(0).rstrip())
        spans.append((pos, end))
        pos = m.end()
    spans.append((pos, len(text)))
    out = []
    for a, b in spans:
        a, b = _strip_span(text, a, b)
        if b > a:
            out.extend(_split_cjk(text, a, b))
    return out


def _split_cjk(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """CJK full stops end sentences without a following space."""
    out = []
    pos = a
    for m in _SENTENCE_END_CJK.finditer(text, a, b):
        if m.end() < b and not text[m.end()].isspace():
            out.append((pos, m.end()))
            pos = m.end()
    out.append((pos, b))
    return out


def _strip_span(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


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


def one_line(text: str, limit: int = 60) -> str:
    """Whitespace-collapsed text cut to `limit` characters with an ellipsis, for details/previews."""
    s = " ".join(text.split())
    return s if len(s) <= limit else s[: limit - 1] + "…"
