"""Gold blocks placed in a parse's canonical text: each leaf block exact (its letters and digits
found whole), anchored (its first and last ANCHOR letters found in order, at about its length, and
alike enough), or missing. Only exact and anchored places are scored.

Both sides are folded to letters and digits (NFKC, case-folded: white space, hyphens, quotes,
ligatures and bullets do not matter); the parse's page furniture and its tables of contents and
indexes are left out of its side, so a paragraph broken by a page's running header is found whole.

The search follows reading order. First the blocks of at least UNIQUE letters that occur exactly
once in the parse are placed, and of those the longest run in the twin's order is kept as a
skeleton (a block the parse prints elsewhere cannot pull the rest along). Every other block is
looked for from where the block before it ended up to the next skeleton block (and at most WINDOW
folded characters); a block not found there is looked for anywhere (one of fewer than FAR letters only
when the parse has it once), and placed without moving the search on. Exceptions, each from what a printed manual does with its HTML's blocks:

* a footnote is taken where it lies nearest the cursor, before or after, and does not move it
  (a PDF prints notes at the foot of the page, HTML at the end of the page or chapter);
* a table's rows are searched from a cursor of their own, starting a little before the main one
  (LaTeX floats tables past the next paragraphs, or to the top of the page), and do not move it;
* a heading not found with its number is looked for without it ("CHAPTER THREE / Scope" in Sphinx's
  LaTeX, numbers dropped below level 3);
* a block that differs from the parse in its middle (a PDF prints a link's address, a
  cross-reference's page number) is aligned with the gap between its neighbours when that gap is
  about its size, and anchored when at least MIN_SIMILARITY of its letters are matched in order;
* a block of fewer than SHORT letters ("Note", a term "-x") counts only when it starts a line of the
  parse (a heading or a note's title also ends it), and only near the cursor: such text is
  everywhere inside words."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher

from chunkbench.text.folding import LETTERS_AND_DIGITS, FoldedText, fold
from chunkbench.types.document import CONTENTS_TYPES, Document, is_noise

from .blocks import CONTAINERS, GoldBlock

#: folded characters searched ahead of the cursor (about 20 pages of a manual)
WINDOW = 60_000
#: folded characters a table may sit before the text that precedes it in the twin (a float)
TABLE_BACK = 6_000
#: letters and digits at each end of a block that place it when it is not found whole
ANCHOR = 25
#: the least similarity (Dice over character trigrams) of an anchored place with the block
MIN_SIMILARITY = 0.8
#: an anchored place is between these multiples of the block's length
LENGTH_RANGE = (0.5, 1.6)
#: a gap before the next skeleton block is aligned with a block when it is at most this many times
#: the block's length plus GAP_SLACK letters, in pieces of at least PIECE letters, within MAX_ALIGN_WORK
GAP_FACTOR, GAP_SLACK, PIECE, MAX_ALIGN_WORK = 4, 2_000, 6, 20_000_000
#: blocks with fewer folded characters than this must start a line, near the cursor
SHORT = 12
#: folded characters ahead of the cursor a short block is looked for in
SHORT_WINDOW = 8_000
#: blocks at least this long found once in the parse may be part of the skeleton
UNIQUE = 30
#: blocks at least this long are looked for anywhere when they are not near the cursor (shorter ones
#: down to UNIQUE only when they occur once in the parse)
FAR = 60
_NUMBERING = re.compile(r"^\s*(?:(?:chapter|appendix|section|part)\s+)?(?:[0-9]+|[A-Z])(?:\.[0-9]+)*\.?\s+(?=\S)",
                        re.IGNORECASE)


def strip_numbering(title: str) -> str:
    """A heading without its leading number ("2.1.3 ", "Chapter 3 ", "A. ")."""
    return _NUMBERING.sub("", title, count=1)


def align(doc: Document, blocks: Sequence[GoldBlock]) -> list[GoldBlock]:
    """The blocks with their status and place in `doc.text` (containers from their children)."""
    return _Aligner(doc).run(blocks)


def furniture_spans(doc: Document) -> list[tuple[int, int]]:
    """The spans of `doc.text` a gold block is never placed in: page furniture, tables of contents, indexes."""
    return [(e.char_start, e.char_end) for e in doc.elements
            if e.text and (is_noise(e) or e.type in CONTENTS_TYPES)]


class _Aligner:
    def __init__(self, doc: Document):
        self.doc = doc
        self.folded = FoldedText(doc.text, LETTERS_AND_DIGITS, furniture_spans(doc))
        self.text = self.folded.text
        self.cursor = 0
        self.limit = len(self.text)  # where the next skeleton block starts: the search stops there

    def run(self, blocks: Sequence[GoldBlock]) -> list[GoldBlock]:
        needles = [fold(b.text, LETTERS_AND_DIGITS) if b.kind not in CONTAINERS else "" for b in blocks]
        skeleton = self._skeleton(blocks, needles)
        next_fixed = _next_fixed(len(blocks), skeleton)
        out: list[GoldBlock] = []
        row_cursor: int | None = None
        for n, (block, needle) in enumerate(zip(blocks, needles)):
            if block.kind in CONTAINERS:
                out.append(block)
                row_cursor = None
                continue
            if not needle:
                out.append(replace(block, status="empty", start=None, end=None, similarity=None))
                continue
            following = next_fixed[n]
            self.limit = skeleton[following] if following is not None else len(self.text)
            found: tuple[str, int, int, float] | None
            if n in skeleton:
                at = skeleton[n]
                found = ("exact", at, at + len(needle), 1.0)
                self.cursor = at + len(needle)
            elif block.kind == "footnote":
                found = self._nearest(needle)
            elif block.kind == "row":
                found, row_cursor = self._row(needle, row_cursor)
            else:
                found = self._in_flow(block, needle)
            out.append(self._placed(block, found))
        return _with_containers(out)

    def _skeleton(self, blocks: Sequence[GoldBlock], needles: Sequence[str]) -> dict[int, int]:
        """Block index -> folded offset of the blocks placed first: at least UNIQUE letters, found
        exactly once, and in the longest run that keeps the twin's order (footnotes and table rows,
        which move in print, are never part of it)."""
        unique: list[tuple[int, int]] = []
        for n, (block, needle) in enumerate(zip(blocks, needles)):
            if len(needle) < UNIQUE or block.kind in ("footnote", "row") or block.kind in CONTAINERS:
                continue
            at = self.text.find(needle)
            if at >= 0 and self.text.find(needle, at + 1) < 0:
                unique.append((n, at))
        return dict(_increasing_run(unique))

    def _in_flow(self, block: GoldBlock, needle: str) -> tuple[str, int, int, float] | None:
        """Exact, then without a heading's number, then anchored, between the cursor and the next
        skeleton block; then (long blocks) anywhere, the cursor staying where it is."""
        short = len(needle) < SHORT
        hi = min(self.limit + len(needle), self.cursor + (SHORT_WINDOW if short else WINDOW))
        for candidate in self._needles(block, needle):
            hit = self._find(candidate, self.cursor, hi, line=short,
                             whole_line=short and block.kind in ("heading", "note_title", "caption"))
            if hit is not None:
                self.cursor = hit + len(candidate)
                return "exact", hit, hit + len(candidate), 1.0
        anchored = self._anchored(needle, self.cursor, hi) or self._between(needle)
        if anchored is not None:
            self.cursor = anchored[2]
            return anchored
        if len(needle) >= UNIQUE:  # printed elsewhere: where it is, if it is only once there (or long)
            hit = self._nearest_at(needle, self.cursor)
            if hit is not None and (len(needle) >= FAR or self.text.find(needle, hit + 1) < 0 and
                                    self.text.find(needle) == hit):
                return "exact", hit, hit + len(needle), 1.0
        return None

    def _needles(self, block: GoldBlock, needle: str) -> list[str]:
        if block.kind != "heading":
            return [needle]
        bare = fold(strip_numbering(block.text), LETTERS_AND_DIGITS)
        return [needle, bare] if bare and bare != needle else [needle]

    def _row(self, needle: str, row_cursor: int | None) -> tuple[tuple[str, int, int, float] | None, int | None]:
        """A table row: the first near the main cursor (a little before it, for floats), the rest after it."""
        if row_cursor is None:
            lo, hi = max(0, self.cursor - TABLE_BACK), self.cursor + WINDOW
            hit = self._nearest_at(needle, self.cursor, lo, hi)
        else:
            hi = row_cursor + (SHORT_WINDOW if len(needle) < SHORT else WINDOW)
            hit = self._find(needle, row_cursor, hi)
        if hit is not None:
            return ("exact", hit, hit + len(needle), 1.0), hit + len(needle)
        start = row_cursor if row_cursor is not None else max(0, self.cursor - TABLE_BACK)
        anchored = self._anchored(needle, start, start + WINDOW)
        if anchored is not None:
            return anchored, anchored[2]
        return None, row_cursor

    def _nearest(self, needle: str) -> tuple[str, int, int, float] | None:
        """A footnote: its occurrence nearest the cursor, anywhere; the cursor stays."""
        hit = self._nearest_at(needle, self.cursor)
        if hit is not None:
            return "exact", hit, hit + len(needle), 1.0
        return self._anchored(needle, 0, len(self.text))

    def _find(self, needle: str, lo: int, hi: int, *, line: bool = False,
              whole_line: bool = False) -> int | None:
        """The first occurrence in [lo, hi) (folded), one that starts a line of the parse (`line`)
        and ends it (`whole_line`) when asked."""
        at = self.text.find(needle, lo, hi)
        while at >= 0 and line and not self._on_line(at, at + len(needle), whole_line):
            at = self.text.find(needle, at + 1, hi)
        return at if at >= 0 else None

    def _nearest_at(self, needle: str, pos: int, lo: int = 0, hi: int | None = None) -> int | None:
        """The occurrence in [lo, hi) whose start is nearest `pos`."""
        hi = len(self.text) if hi is None else hi
        after = self.text.find(needle, max(lo, pos), hi)
        before = self.text.rfind(needle, lo, min(hi, pos + len(needle) - 1))
        hits = [h for h in (after, before) if h >= 0]
        return min(hits, key=lambda h: abs(h - pos)) if hits else None

    def _anchored(self, needle: str, lo: int, hi: int) -> tuple[str, int, int, float] | None:
        """Placed by its first and last ANCHOR characters in order, at about its length, alike enough."""
        if len(needle) < 2 * ANCHOR + 10:
            return None
        head, tail = needle[:ANCHOR], needle[-ANCHOR:]
        shortest, longest = (int(len(needle) * f) for f in LENGTH_RANGE)
        at = self.text.find(head, lo, hi)
        tries = 0
        while at >= 0 and tries < 8:
            end = self.text.find(tail, at + max(ANCHOR, shortest - ANCHOR), at + longest)
            if end >= 0:
                found = self.text[at:end + ANCHOR]
                similarity = dice(needle, found)
                if similarity >= MIN_SIMILARITY:
                    return "anchored", at, end + ANCHOR, round(similarity, 3)
            at = self.text.find(head, at + 1, hi)
            tries += 1
        return None

    def _between(self, needle: str) -> tuple[str, int, int, float] | None:
        """Placed in the gap between the cursor and the next skeleton block, when that gap is about its
        size, by aligning the two in order (pieces of at least PIECE letters): a PDF that prints a
        link's address or a cross-reference's page in the middle of a paragraph. Anchored when at
        least MIN_SIMILARITY of its letters are matched."""
        gap = self.text[self.cursor:self.limit]
        if len(needle) < 2 * SHORT or not gap or len(gap) > GAP_FACTOR * len(needle) + GAP_SLACK \
                or len(gap) * len(needle) > MAX_ALIGN_WORK:
            return None
        pieces = [m for m in SequenceMatcher(None, needle, gap, autojunk=False).get_matching_blocks() if m.size >= PIECE]
        matched = sum(m.size for m in pieces)
        if not pieces or matched < MIN_SIMILARITY * len(needle):
            return None
        start, end = self.cursor + pieces[0].b, self.cursor + pieces[-1].b + pieces[-1].size
        return "anchored", start, end, round(matched / len(needle), 3)

    def _on_line(self, start: int, end: int, whole: bool) -> bool:
        """Whether folded [start, end) begins a line of the parse's text (only non-letters before it
        on that line) and, if `whole`, ends it (no letter after it on that line)."""
        a, b = self.folded.to_source(start, end)
        text = self.doc.text
        line_start = text.rfind("\n", 0, a) + 1
        if any(ch.isalpha() for ch in text[line_start:a]):
            return False
        if whole:
            line_end = text.find("\n", b)
            rest = text[b:line_end if line_end >= 0 else len(text)]
            return not any(ch.isalpha() for ch in rest)
        return True

    def _placed(self, block: GoldBlock, found: tuple[str, int, int, float] | None) -> GoldBlock:
        if found is None:
            return replace(block, status="missing", start=None, end=None, similarity=None)
        status, a, b, similarity = found
        start, end = self.folded.to_source(a, b)
        return replace(block, status=status, start=start, end=end,
                       similarity=None if status == "exact" else similarity)


def _increasing_run(pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of (index, offset) pairs, in index order, whose offsets increase
    (patience sorting, n log n)."""
    tails: list[int] = []  # offsets ending the best run of each length
    ends: list[int] = []  # position in `pairs` of that run's last pair
    back: list[int] = [-1] * len(pairs)
    for i, (_, at) in enumerate(pairs):
        k = bisect.bisect_left(tails, at)
        if k == len(tails):
            tails.append(at)
            ends.append(i)
        else:
            tails[k], ends[k] = at, i
        back[i] = ends[k - 1] if k else -1
    run, i = [], ends[-1] if ends else -1
    while i >= 0:
        run.append(pairs[i])
        i = back[i]
    return run[::-1]


def _next_fixed(count: int, skeleton: dict[int, int]) -> list[int | None]:
    """For each block index, the index of the first skeleton block after it (None after the last)."""
    out: list[int | None] = [None] * count
    following = None
    for n in range(count - 1, -1, -1):
        out[n] = following
        if n in skeleton:
            following = n
    return out


def dice(a: str, b: str) -> float:
    """Dice similarity of two strings' character trigrams (1.0 for equal strings): linear, order-blind."""
    if a == b:
        return 1.0
    ta, tb = Counter(_trigrams(a)), Counter(_trigrams(b))
    total = sum(ta.values()) + sum(tb.values())
    return 2 * sum((ta & tb).values()) / total if total else 0.0


def _trigrams(s: str) -> list[str]:
    return [s[i:i + 3] for i in range(max(1, len(s) - 2))]


def _with_containers(blocks: list[GoldBlock]) -> list[GoldBlock]:
    """Lists and tables placed over their located children: exact when all are, anchored when at
    least half are, else missing."""
    children: dict[str, list[GoldBlock]] = {}
    for b in blocks:
        if b.parent is not None:
            children.setdefault(b.parent, []).append(b)
    out = []
    for b in blocks:
        if b.kind not in CONTAINERS:
            out.append(b)
            continue
        kids = [k for k in children.get(b.id, []) if k.status != "empty"]
        placed = [k for k in kids if k.located]
        if not kids or 2 * len(placed) < len(kids):
            out.append(replace(b, status="missing", start=None, end=None))
            continue
        status = "exact" if len(placed) == len(kids) else "anchored"
        out.append(replace(b, status=status, start=min(k.span[0] for k in placed),
                           end=max(k.span[1] for k in placed)))
    return out
