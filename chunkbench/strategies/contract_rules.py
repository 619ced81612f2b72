"""Text rules of the `contract` strategy (specs/2): normalization, headings, types (clause
references are in chunkbench/clauses.py, shared with the metrics).

Pure functions of text (and a few element fields), so each rule is testable on its own; the
walk that turns elements into chunks lives in `contract.py`, noise detection in
`contract_noise.py`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from chunkbench.text.clauses import MAX_CLAUSE_NUMBER

# --- normalization (specs/2 "Text normalization (v1)") ------------------------------------------

_TRAILING_SPACES = re.compile(r"[ \t]+(?=\n|$)")
_MANY_NEWLINES = re.compile(r"\n{3,}")
#: a hyphen ending a line between two letters, the next line starting in lower case: `hy-\nphen`
_HYPHENATION = re.compile(r"(?<=[^\W\d_])-[ \t]*\n[ \t]*(?=([^\W\d_]))")


def normalize(text: str) -> str:
    """The spec's three rules, nothing else: trim trailing spaces, join `hy-\\nphen` → `hyphen`,
    collapse 3+ newlines to 2; plus the piece's outer blank lines dropped (they carry no text).

    Punctuation, quotes and every character of the words stay; a hyphen is only removed at a
    line break between two letters with a lower-case continuation, so `Anglo-\\nAmerican` and
    `pre- and post-` keep theirs.
    """
    text = _TRAILING_SPACES.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _HYPHENATION.sub(lambda m: "" if m.group(1).islower() else m.group(0), text)
    text = _MANY_NEWLINES.sub("\n\n", text)
    return text.strip("\n").rstrip()


# --- headings (specs/2 "Heading detection", "Heading levels (v1)") ------------------------------

#: `^\s*\d+(?:\.\d+)*\s+[A-Z]`, the spec's numbered-heading regex (a trailing dot allowed: "1. TERM")
NUMBERED_HEADING = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+[A-Z]")
_HEADING_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)*)[.)]?\s+\S")
_LETTER_NUMBER = re.compile(r"^\s*[A-Z]\.(\d+(?:\.\d+)*)\.?\s+\S")
_DIVISION = re.compile(r"^\s*(?:article|part|schedule|appendix|annex|annexure|exhibit|attachment)\b", re.I)
#: the spec's common section names plus the usual contract ones, as the whole heading
#: (after any numbering)
SECTION_NAMES = (
    "definitions", "definitions and interpretation", "interpretation", "term", "audit", "fees",
    "schedule", "appendix", "annex", "exhibit", "recitals", "background", "parties", "payment",
    "charges", "termination", "confidentiality", "governing law", "term and termination",
    "liability", "limitation of liability", "warranties", "indemnities", "notices", "general",
    "services", "intellectual property", "data protection", "force majeure", "insurance",
)
_SECTION_NAME = re.compile(
    r"^\s*(?:\d+(?:\.\d+)*\.?\s+)?(?:" + "|".join(re.escape(n) for n in SECTION_NAMES)
    + r")(?:\s+[A-Z0-9]{1,3})?\s*$",
    re.I,
)
_WORD = re.compile(r"[^\W\d_][\w'’&.\-]*")
_SMALL_WORDS = frozenset(["a", "an", "the", "and", "or", "of", "in", "on", "to", "for", "by", "with", "at", "from", "as", "per", "vs", "nor", "but"])
#: a numbered line longer than this (in words, number included) is a clause cut short, not a
#: heading: "11.4 Termination shall not affect rights accrued up to the date of"
NUMBERED_HEADING_MAX_WORDS = 8
#: terminal punctuation that makes a line a sentence or a lead-in rather than a heading
_SENTENCE_END = (".", ";", ",", ":")


def caps_ratio(text: str) -> float:
    """Share of upper-case letters among the letters (0 when there are fewer than 2 letters)."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 2:
        return 0.0
    return sum(c.isupper() for c in letters) / len(letters)


def title_ratio(text: str) -> float:
    """Share of capitalised words, small words (of, and, the...) not counted after the first."""
    words = _WORD.findall(text)
    counted = [w for i, w in enumerate(words) if i == 0 or w.lower() not in _SMALL_WORDS]
    if not counted:
        return 0.0
    return sum(w[0].isupper() for w in counted) / len(counted)


def is_all_caps(text: str) -> bool:
    return caps_ratio(text) >= 0.8


def looks_like_heading(text: str, max_chars: int = 120) -> bool:
    """The spec's fallback heuristics for a paragraph: short (< max_chars), one line, no final
    period (nor `;`, `,` or a lead-in `:`), and at least one of: all caps, title case, a common
    section name, a numbered heading (`^\\s*\\d+(?:\\.\\d+)*\\s+[A-Z]`) of at most 8 words."""
    s = text.strip()
    if not s or len(s) >= max_chars or "\n" in s or s.endswith(_SENTENCE_END):
        return False
    if not any(c.isalpha() for c in s) or not (s[0].isupper() or s[0].isdigit() or not s[0].isalpha()):
        return False
    return (
        is_all_caps(s)
        or title_ratio(s) >= 0.75
        or bool(_SECTION_NAME.match(s))
        or (bool(NUMBERED_HEADING.match(s)) and len(s.split()) <= NUMBERED_HEADING_MAX_WORDS)
    )


def heading_level(text: str, text_level: int | None, *, indented: bool, open_levels: Sequence[int]) -> int:
    """Heading level: the spec's numbering rules first, then layout, then all caps.

    1. "1 "/"1." at far left → 1 (indented → 2); "1.1" → 2; "1.1.1" → 3 (one per segment, max 6);
       "A.1" (schedule paragraphs) → 2; a division word (Article, Part, Schedule, Appendix, Annex,
       Exhibit) → 1;
    2. the layout `text_level` (1–6) when the element has one: font-size levels are more reliable
       than letter case ("UCB/LBL" under "Berkeley-based copyrights" is not a top section);
    3. all caps → 1 (the spec's rule, decisive for headings found by the fallback heuristics);
    4. otherwise one below the top level open (2 under any heading, 1 at the start).
    """
    m = _HEADING_NUMBER.match(text)
    if m and int(m.group(1).split(".")[0]) <= MAX_CLAUSE_NUMBER:
        depth = min(6, m.group(1).count(".") + 1)
        return 2 if depth == 1 and indented else depth
    m = _LETTER_NUMBER.match(text)
    if m:
        return min(6, m.group(1).count(".") + 2)
    if _DIVISION.match(text):
        return 1
    if text_level is not None and 1 <= text_level <= 6:
        return int(text_level)
    if is_all_caps(text):
        return 1
    return 2 if open_levels else 1


# --- chunk types (specs/2 type list; recognition rules are ours, see docs/strategy-contract.md) --

#: `"Term" means ...`: a quoted term (straight or curly quotes), optionally after a clause number,
#: then a defining verb
_DEFINITION = re.compile(
    r"""^\s*(?:\d+(?:\.\d+)*\.?\s+|\(?[a-z0-9]{1,4}\)\s+)?["“‘']([^"”’'\n]{1,100})["”’']\s*"""
    r"""(?:\([^)\n]{0,60}\)\s*)?,?\s*(?:means|shall\s+mean|has\s+the\s+meanings?|have\s+the\s+meanings?|"""
    r"""includes|shall\s+include|refers\s+to|is\s+defined)\b""",
    re.I,
)
_DEFINITIONS_SECTION = re.compile(r"\bdefinitions?\b|\bdefined\s+terms\b", re.I)
_SCHEDULE_SECTION = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?\s+)?(?:schedule|appendix|annex|annexure|exhibit|attachment)\b", re.I)


def defined_term(text: str) -> str | None:
    """The term a definition defines (`“Business Day” means ...` → "Business Day"), or None."""
    m = _DEFINITION.match(text)
    return m.group(1).strip() if m else None


def in_definitions_section(section_path: Sequence[str]) -> bool:
    """A section path under a heading naming definitions ("1. DEFINITIONS AND INTERPRETATION")."""
    return any(_DEFINITIONS_SECTION.search(s) for s in section_path)


def in_schedule(section_path: Sequence[str]) -> bool:
    """A section path under a Schedule/Appendix/Annex/Exhibit/Attachment heading."""
    return any(_SCHEDULE_SECTION.match(s) for s in section_path)
