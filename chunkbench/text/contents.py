"""Tables of contents and back-of-book indexes, told from their lines: `contents_kind(text, pages)`.

A line of either ends in a page reference: a page number (arabic up to the document's page count
and a little more, or roman), after dot leaders or a space ("1.1. Purpose 1", "Introduction .... 3",
"Reading data from files 33"); an index entry may give several ("c 8, 11, 27, 30", "hist 37, 70").
Pipes of a parsed table are read as spaces, and a parsed table whose header row is no entry must be nearly all entries (a parser
takes a contents page's first line, or its running header, for the header; a table of figures has
column names there). A block is one of them when at least `MIN_LINES` of its
lines, and `SHARE` of them, are references and the numbers are small enough to be pages; then:

* a table of contents: the page numbers mostly rise line after line (`RISING` of the pairs);
* an index: several lines list more than one page, or the entries run in alphabetical order.

A table of figures in a financial report ends its rows in numbers too, but in larger ones, in
several columns, or with currency and percent signs: none of those is a page reference here.
"""

from __future__ import annotations

import re

TOC, INDEX = "toc", "index"
#: lines of page references a block needs, and the share of its lines they must be
MIN_LINES = 3
SHARE = 0.6
#: a parsed table whose header row is no entry (a running header read into it) needs this many
#: entries, and this share of its other lines
HEADED_LINES, HEADED_SHARE = 8, 0.9
#: share of consecutive page numbers that rise (or stay) in a table of contents
RISING = 0.75
#: page numbers may run this far past the page count (front matter numbered apart)
PAGE_SLACK = 20

#: a lower-case roman page number of front matter, i to xxxix
_ROMAN = r"(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3})"
#: one page reference: a page number, a roman one, or a range of pages ("12–15")
_REF = rf"(?:\d{{1,4}}(?:\s*[–-]\s*\d{{1,4}})?|{_ROMAN})"
#: a title with letters, then leaders or a space, then one or more page references at the end
_LINE = re.compile(rf"^(?P<title>.*?[^\W\d_].*?)(?:\s*[.·…](?:\s?[.·…])+\s*|\s+)(?P<refs>{_REF}(?:\s*,\s*{_REF})*)\s*$")
_SYMBOL_LINE = re.compile(rf"^(?P<title>\S.*?)\s+(?P<refs>{_REF}(?:\s*,\s*{_REF})*)\s*$")
#: money, percentages and thousands: the figures of a financial table, never page numbers
_MONEY = re.compile(r"[$€£¥%]|\d,\d{3}\b")
_BARE_NUMBER = re.compile(r"^[\s(]*[-+−]?\d+[)\s]*$")
_LEADERS = re.compile(r"(?:\s?[.·…]){3,}")


def page_reference(line: str, pages: int, *, symbols: bool = False) -> list[int] | None:
    """The page numbers `line` ends in (roman ones as 0: front matter), or None when it is no
    entry of a table of contents or index of a document of `pages` pages. `symbols`: the entry
    may have no letters (an index of operators: "!= 10", "%*% 24")."""
    cells = [c for c in line.split("|") if c.strip()]
    if any(_BARE_NUMBER.match(c) for c in cells[:-1]):
        return None  # a number in a column before the last: a table of figures
    line = " ".join(" ".join(cells).split())
    if not line or _MONEY.search(line):
        return None
    m = (_SYMBOL_LINE if symbols else _LINE).match(line)
    if m is None:
        return None
    refs = [r for r in re.split(r"\s*,\s*", m.group("refs")) if r]
    numbers = [int(first) if (first := re.split(r"\s*[–-]\s*", r)[0]).isdigit() else 0 for r in refs]
    if any(n > pages + PAGE_SLACK for n in numbers) or any(r == "0" for r in refs):
        return None
    return numbers


def contents_kind(text: str, pages: int) -> str | None:
    """TOC or INDEX when the lines of `text` are those of a table of contents or a back-of-book
    index of a document of `pages` pages (rules in the module docstring); None otherwise."""
    lines = [ln for ln in text.split("\n") if ln.strip() and not set(ln) <= set("|-: ")]
    if len(lines) < MIN_LINES:
        return None
    refs = [(ln, page_reference(ln, pages)) for ln in lines]
    found = [(ln, r) for ln, r in refs if r]
    if len(found) < MIN_LINES or len(found) < SHARE * len(lines):
        return None
    if lines[0].lstrip().startswith("|") and not refs[0][1] and (len(found) < HEADED_LINES
                                                                  or len(found) < HEADED_SHARE * (len(lines) - 1)):
        return None  # a table whose header names its columns ("State | Value") is a table of figures
    several = sum(len(r) > 1 for _, r in found)
    firsts = [r[0] for _, r in found]
    rising = sum(b >= a for a, b in zip(firsts, firsts[1:])) / max(1, len(firsts) - 1)
    leaders = sum(bool(_LEADERS.search(ln)) for ln, _ in found)
    if several >= 2 and several >= 0.1 * len(found):
        return INDEX
    if rising >= RISING or leaders >= SHARE * len(found):
        return TOC
    keys = [_sort_key(ln) for ln, _ in found]
    in_order = sum(b > a for a, b in zip(keys, keys[1:])) / max(1, len(keys) - 1)
    return INDEX if in_order >= RISING else None


def _sort_key(line: str) -> str:
    """An entry's first word as an index sorts it: letters only, case folded."""
    words = line.replace("|", " ").split()
    return "".join(ch for ch in words[0] if ch.isalnum()).casefold() if words else ""


#: headings that open a table of contents or an index ("Table of Contents", "Contents", "Index",
#: "Concept index", "Appendix D Function and variable index")
CONTENTS_HEADING = re.compile(r"^(?:table\s+of\s+)?contents\b|\bindex(?:es)?\s*$", re.IGNORECASE)
