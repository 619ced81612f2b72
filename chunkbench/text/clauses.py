"""Clause references at the start of a text ("2.3(a)", "(b)", "A.1") and how two compare.

specs/2's three clause-ref regexes plus schedule paragraph numbers. Used by the `contract`
strategy (clause_ref of every chunk, merge rules), its noise detection, and the clause metrics of
`metrics.py`: core text rules, so no evaluation module reaches into a strategy's internals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: numeric + parens: `^\s*(\d+(?:\.\d+)*)(\([a-zA-Z0-9]+\))*` (the numeric-only regex is the case
#: without parens). The lookahead keeps `10%`, `1,000`, `2025-01-01` and `4.2The` out: a clause
#: number is followed by an optional `.`/`)` and whitespace or the end.
_NUMERIC = re.compile(r"^\s*(\d+(?:\.\d+)*)((?:\([a-zA-Z0-9]+\))*)(?=[.)]?(?:\s|$))")
#: lettered: `^\s*\(?([a-z])\)\s+`
_LETTERED = re.compile(r"^\s*\(?([a-z])\)\s+")
#: our addition: schedule paragraph numbers, a capital letter then numbers ("A.1", "B.2.3")
_SCHEDULE_NUMBER = re.compile(r"^\s*([A-Z])\.(\d+(?:\.\d+)*)(?=[.)]?(?:\s|$))")
#: a top-level number above this is a year or an amount, not a clause ("2025 Budget")
MAX_CLAUSE_NUMBER = 999


@dataclass(frozen=True)
class ClauseRef:
    """A clause reference found at the start of a text.

    `display` is what chunks.json shows ("1", "1.1", "2.3(a)", "(a)"); `segments` are its parts
    ("2", "3", "a") used to compare clauses; `level` = dot segments plus paren groups.
    """

    display: str
    segments: tuple[str, ...]
    level: int
    kind: str  # "numeric", "numeric_parens", "schedule" (A.1) or "lettered"

    @property
    def numeric(self) -> bool:
        return self.kind != "lettered"


def clause_ref(text: str) -> ClauseRef | None:
    """The clause reference at the start of `text` by the spec's three regexes, or None; then
    schedule paragraph numbers ("A.1", level 2), which the spec's regexes do not cover.

    A lettered ref alone ("(a)") has level 1 here; `within()` places it under its clause.
    """
    m = _NUMERIC.match(text)
    if m and int(m.group(1).split(".")[0]) <= MAX_CLAUSE_NUMBER:
        dots = tuple(m.group(1).split("."))
        parens = tuple(re.findall(r"\(([a-zA-Z0-9]+)\)", m.group(2)))
        kind = "numeric_parens" if parens else "numeric"
        return ClauseRef(m.group(1) + m.group(2), dots + parens, len(dots) + len(parens), kind)
    m = _LETTERED.match(text)
    if m:
        return ClauseRef(f"({m.group(1)})", (m.group(1),), 1, "lettered")
    m = _SCHEDULE_NUMBER.match(text)
    if m:
        segments = (m.group(1),) + tuple(m.group(2).split("."))
        return ClauseRef(f"{m.group(1)}.{m.group(2)}", segments, len(segments), "schedule")
    return None


def within(ref: ClauseRef, parent: ClauseRef | None) -> ClauseRef:
    """A lettered ref placed under the numeric clause it appears in: (a) in 2.3 has level 3.

    Only `segments` and `level` change (for comparisons); the display stays "(a)"."""
    if ref.kind != "lettered" or parent is None:
        return ref
    return ClauseRef(ref.display, parent.segments + ref.segments, parent.level + 1, ref.kind)


def is_descendant(ref: ClauseRef, parent: ClauseRef) -> bool:
    """True when `ref` is a sub-clause of `parent` (2.3.1 and 2.3(a) of 2.3)."""
    n = len(parent.segments)
    return len(ref.segments) > n and ref.segments[:n] == parent.segments


def numbering_restarts(ref: ClauseRef, last: ClauseRef) -> bool:
    """Clause numbering resets: 1.9 → 2.1 (a higher segment moved on and the last one restarts
    at 1), or a lettered run starting again at (a) after (d)."""
    if ref.kind == "lettered" and last.kind == "lettered":
        return ref.segments[-1] == "a" and last.segments[-1] != "a"
    if not (ref.numeric and last.numeric) or len(ref.segments) != len(last.segments) or len(ref.segments) < 2:
        return False
    return ref.segments[:-1] != last.segments[:-1] and ref.segments[-1] in ("1", "a")


def is_sibling(ref: ClauseRef, last: ClauseRef) -> bool:
    """A new numeric sub-clause next to the last one at the same depth: 4.2 after 4.1."""
    return (
        ref.numeric
        and last.numeric
        and len(ref.segments) == len(last.segments) >= 2
        and ref.segments[:-1] == last.segments[:-1]
        and ref.segments != last.segments
    )
