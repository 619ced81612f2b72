"""Locating another chunker's chunks in a Document's canonical text.

Their chunks usually come from another text extraction of the same PDF, with its own line breaks,
hyphenation, ligatures, quotes, bullets and reading order. Each chunk is tried, in order:
1. `exact`: its text as it is, searched from the previous chunk's start (chunks may overlap);
2. `normalised`: letters and digits only, NFKC and case-folded, on both sides, so that whitespace,
   line-end hyphens, ligatures, quotes, dashes and bullets do not matter;
   Page furniture (running headers, footers) is then left out on both sides, since another
   extraction puts it elsewhere in its reading order; a page number, too short to take out
   everywhere, is tried out at the chunk's ends and first places inside, among those of the pages
   searched (another extraction reads it after a page's last line, where the Document may go on
   with a paragraph continued on the next page);
3. `normalised` in pieces: another extraction may read the same region in another order (the
   columns of a page, the cells of a table, a header printed after the body). The long pieces
   (PIECE_MIN characters or more) say where the chunk is; its whole normalised text is then
   covered by pieces from there alone (see `_in_pieces`). A chunk made only of page furniture is
   placed at that furniture;
4. `fuzzy`: anchors (runs of normalised characters) found near where the chunk should be; the
   densest run of anchors gives the span, and the share of the chunk it covers is the score:
   at least FUZZY_MIN is `fuzzy`, at least PARTIAL_MIN `partial` (only that part is located);
5. otherwise `unlocated`.
A chunk whose chunker named the items it came from (Docling's `doc_items`) is searched in those
items' span only: exactly, then as those items alone when other text lies between them (Docling's
merge_peers joins two sections whose headings read the same, leaving the second heading out: the
chunk is then in pieces, `items_apart`), then normalised; a text that is not the document's (Docling
writes a table as "row, column = value" triplets) is `referenced`, placed at the items themselves.
Steps 1, 2 and 4 search a window after the previous chunk first (a few chunk lengths), and the whole text
only when no step finds the chunk there, so each chunk costs bounded work in the usual case. The normalised
text is built once per Document, in one pass, so locating is linear in the document and chunks.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from chunkbench.text.folding import LETTERS_AND_DIGITS, FoldedText, fold
from chunkbench.types.document import Document, is_noise

#: a fuzzy span must cover at least this share of the chunk's normalised text
FUZZY_MIN = 0.6
#: below FUZZY_MIN but at least this: the chunk is `partial`, located where its anchors are
PARTIAL_MIN = 0.2
#: furniture text shorter than this (normalised) is not taken out of a chunk (a page number "3")
FURNITURE_MIN = 3
#: places inside a chunk where each page number is tried out (`_without_a_page_number`)
SHORT_FURNITURE_TRIES = 4
#: characters searched past a chunk's expected place before the whole text is searched
WINDOW = 20_000
#: normalised characters per anchor
ANCHOR = 12
#: at most this many anchors per chunk
MAX_ANCHORS = 48
#: a piece this long (normalised) places a chunk found in pieces; shorter ones must lie among those
PIECE_MIN = ANCHOR
#: the long pieces cover at least this share of the chunk
PIECES_LONG_SHARE = 0.7
#: ... and lie within this many times the chunk's length, plus PIECES_REACH, of one another
PIECES_SPAN = 2.0
#: normalised characters (about a column of a page) the pieces may lie apart beyond PIECES_SPAN:
#: the layout model may put the end of a paragraph in a box of its own, read elsewhere
PIECES_REACH = 3000
#: pieces are mostly long when there are no more than one per this many normalised characters (or 8)
PIECE_AVERAGE = 8
#: a chunk in more pieces than one per this many normalised characters (or 8) is not taken apart
PIECE_AVERAGE_SHORT = 3
#: a chunk longer than this (normalised) is not taken apart: the pieces of a table or a column
#: are short, and each piece costs a search (a chunk of 12 MB of the document's words took minutes)
PIECES_MAX = 20_000
#: match kinds, best first
KINDS = ("exact", "normalised", "referenced", "fuzzy", "partial", "unlocated")



def normalise(text: str) -> str:
    """Letters and digits only, NFKC and case-folded, character by character: the form both sides
    are compared in."""
    return fold(text, LETTERS_AND_DIGITS)


@dataclass(frozen=True)
class Match:
    """Where one chunk was found: canonical offsets [start, end), how, and the share found.
    A chunk found in pieces (another reading order) has them in `pieces`, in the chunk's order;
    [start, end) then spans them all, and the chunk's text begins at `text_start`."""

    start: int | None
    end: int | None
    kind: str
    score: float
    pieces: tuple[tuple[int, int], ...] = ()
    #: the pieces are the items its chunker named, with text between them that the chunk leaves out
    #: (not another reading order): Docling's merge_peers joins sections whose headings read the same
    items_apart: bool = False

    @property
    def located(self) -> bool:
        return self.start is not None

    @property
    def text_start(self) -> int | None:
        """Where the chunk's first character is: the start of its first piece."""
        return self.pieces[0][0] if self.pieces else self.start

    @property
    def spans(self) -> tuple[tuple[int, int], ...]:
        """The canonical spans the chunk's text was found in (one unless found in pieces)."""
        if self.pieces:
            return self.pieces
        return ((self.start, self.end),) if self.start is not None and self.end is not None else ()


UNLOCATED = Match(None, None, "unlocated", 0.0)


class Locator:
    """Locates chunks one after another in one text, each search starting at the previous find.

    `furniture`: spans of page furniture (running headers, footers, page numbers) with their text.
    Another extraction puts them elsewhere in its reading order (a footer before the page number,
    a header in mid-chunk), so the normalised search is tried a second time without them on both
    sides: in the text, and (when at least FURNITURE_MIN normalised characters long) in the chunk."""

    def __init__(self, text: str, furniture: Sequence[tuple[int, int, str]] = ()):
        self.text = text
        self.norm = FoldedText(text, LETTERS_AND_DIGITS)
        spans = sorted((a, b) for a, b, _ in furniture)
        self.content = FoldedText(text, LETTERS_AND_DIGITS, spans) if spans else None
        #: (start, end, normalised text) of each furniture element long enough to take out of a chunk
        self.furniture_spans = sorted((a, b, f) for a, b, t in furniture if len(f := normalise(t)) >= FURNITURE_MIN)
        #: (start, normalised text) of furniture too short for that (page numbers), tried one at a time
        self.short_spans = sorted((a, f) for a, _, t in furniture if 0 < len(f := normalise(t)) < FURNITURE_MIN)
        folded = sorted({f for _, _, f in self.furniture_spans}, key=len, reverse=True)
        self.furniture = re.compile("|".join(map(re.escape, folded))) if folded else None
        self.furniture_texts = folded
        self._edges: tuple[set[str], set[str], int] | None = None  # see _trim_furniture_edges
        self.cursor = 0  # source offset where the next search starts: just after the previous start
        self.previous_end = 0  # a chunk overlaps the previous one by less than its own length

    def _start_for(self, length: int) -> int:
        """Where to search for a chunk of `length` source characters: after the previous chunk's start,
        and no earlier than the previous chunk's end less that length (so a short chunk, "3", is not
        found inside the chunk before it)."""
        return max(self.cursor, self.previous_end - length)

    def locate(self, chunk_text: str, items: Sequence[tuple[int, int]] | None = None) -> Match:
        """Where `chunk_text` is; in the source spans of `items` only, when its chunker named them."""
        if items:
            return self._moved(self._in_items(chunk_text, items))
        needle = chunk_text.strip()
        folded = normalise(chunk_text)
        if len(folded) > 2 * len(self.norm.text) + WINDOW:
            return UNLOCATED  # more words than the document holds twice over: not a chunk of it
        content: str | None = None
        match = None
        for near in (True, False):  # near the previous chunk first: bounded work per chunk, linear overall
            match = self._exact(needle, near) or self._normalised(folded, self.norm, near)
            if match is None and self.content is not None:
                content = self._without_furniture(folded) if content is None else content
                match = (self._normalised(content, self.content, near)
                         or self._normalised(self._trim_furniture_edges(content), self.content, near))
            if match is not None:
                break
        if match is None:
            match = next(filter(None, (self._normalised(candidate, self.norm, True)
                                       for candidate in self._without_a_page_number(folded))), None)
        if match is None and self.content is not None:  # a running header and a page number both
            content = self._without_furniture(folded) if content is None else content
            match = next(filter(None, (self._normalised(candidate, self.content, True)
                                       for candidate in self._without_a_page_number(content))), None)
        if match is None:
            content = self._without_furniture(folded) if content is None else content
            match = self._furniture_only(folded) if len(content) < FURNITURE_MIN else self._in_pieces(content)
        if match is None:
            match = self.by_anchors(folded)
        return self._moved(match)

    def _moved(self, match: Match) -> Match:
        """`match`, the cursor moved past its start."""
        if match.start is not None and match.end is not None:
            self.cursor = match.start + 1
            self.previous_end = match.end
        return match

    def _in_items(self, chunk_text: str, items: Sequence[tuple[int, int]]) -> Match:
        """The chunk inside the span of the items its chunker named: exactly, as those items alone
        when text lies between them, normalised (furniture between the items left out), else
        `referenced` at the span, scored by the share of its anchors found there."""
        lo, hi = min(a for a, _ in items), max(b for _, b in items)
        needle = chunk_text.strip()
        at = _find_touching(self.text, needle, lo, hi, min(items)[1], max(items)[0]) if needle else -1
        if at >= 0:
            return Match(at, at + len(needle), "exact", 1.0)
        folded = normalise(chunk_text)
        # an item of no letters or digits (an emoji, a rule "***") cannot be found normalised: the
        # others are, and the match then takes in those of them at its ends
        blank = [(a, b) for a, b in items if self.norm.from_source(a) == self.norm.from_source(b)]
        findable = [item for item in items if item not in blank] or list(items)
        apart = self._items_apart(folded, findable)
        if apart is not None:
            return self._over_blank_items(apart, blank)
        # the chunk's items are its chunker's, so furniture between them is not in its text: the
        # text is searched with and without the furniture, the chunk as it is ("Confidential" is
        # both a running header and a word of the body, so nothing is taken out of the chunk)
        for norm in (self.norm, self.content):
            if norm is None or not folded:
                continue
            at = _find_touching(norm.text, folded, norm.from_source(lo), norm.from_source(hi),
                                norm.from_source(min(findable)[1]), norm.from_source(max(findable)[0]))
            if at >= 0:
                return self._over_blank_items(Match(*norm.to_source(at, at + len(folded)), "normalised", 1.0), blank)
        anchors = _anchors(folded, ANCHOR)
        span = self.norm.text[self.norm.from_source(lo):self.norm.from_source(hi)]
        share = sum(a in span for a in anchors) / len(anchors) if anchors else 0.0
        return Match(lo, hi, "referenced", round(share, 3))

    def _over_blank_items(self, match: Match, blank: Sequence[tuple[int, int]]) -> Match:
        """`match` stretched over the named items of no letters or digits just before or after it
        (nothing but whitespace or furniture between)."""
        assert match.start is not None and match.end is not None
        content = self.content or self.norm
        start, end = match.start, match.end
        for _, b in sorted(blank):
            if b > end and content.from_source(end) == content.from_source(b):
                end = b
        for a, _ in sorted(blank, reverse=True):
            if a < start and content.from_source(a) == content.from_source(start):
                start = a
        if (start, end) == (match.start, match.end):
            return match
        pieces = match.pieces  # those of items apart: in the text's order, two or more
        if pieces:
            pieces = ((start, pieces[0][1]), *pieces[1:-1], (pieces[-1][0], end))
        return replace(match, start=start, end=end, pieces=pieces)

    def _items_apart(self, folded: str, items: Sequence[tuple[int, int]]) -> Match | None:
        """The chunk as its items alone, in pieces, when text other than furniture lies between
        them (the span would take that text in): its text is the items' normalised text, the first
        from some place on and the last up to some place (an item split between two chunks)."""
        content = self.content or self.norm
        items = sorted(set(items))
        pieces: list[list[int]] = []
        for a, b in items:
            if pieces and content.from_source(pieces[-1][1]) >= content.from_source(a):
                pieces[-1][1] = max(pieces[-1][1], b)  # nothing but whitespace or furniture between
            else:
                pieces.append([a, b])
        if len(pieces) < 2:
            return None
        spans = [(self.norm.from_source(a), self.norm.from_source(b)) for a, b in items]
        texts = [self.norm.text[a:b] for a, b in spans]
        cut = _cut_between(folded, texts[0], "".join(texts[1:-1]), texts[-1])
        if cut is None:
            return None
        head, tail = cut  # how much of the first item and of the last the chunk holds
        if head < len(texts[0]):
            pieces[0][0] = int(self.norm.origin[spans[0][1] - head])
        if tail < len(texts[-1]):
            pieces[-1][1] = int(self.norm.origin[spans[-1][0] + tail - 1]) + 1
        return Match(pieces[0][0], pieces[-1][1], "normalised", 1.0, tuple((a, b) for a, b in pieces),
                     items_apart=True)

    def _window(self, start: int, length: int, near: bool) -> tuple[int, int]:
        """The search range: from `start` for a few chunk lengths when `near`, else the whole text."""
        return (start, start + length + 2 * length + WINDOW) if near else (0, 2**62)

    def _exact(self, needle: str, near: bool) -> Match | None:
        if not needle:
            return None
        previous_start = self.cursor - 1
        if (near and previous_start >= 0 and len(needle) > self.previous_end - previous_start
                and self.text.startswith(needle, previous_start)):
            # it begins where the previous chunk began and takes all of it in (an overlap as long as
            # that chunk); a chunk of the same length there is a repeat, found further on
            return Match(previous_start, previous_start + len(needle), "exact", 1.0)
        lo, hi = self._window(self._start_for(len(needle)), len(needle), near)
        at = self.text.find(needle, lo, hi)
        if at >= 0 and at + len(needle) <= self.previous_end:
            # wholly inside the previous chunk, which a splitter's next chunk never is: in repeated
            # text (two equal paragraphs) the same words further on are this chunk's
            later = self.text.find(needle, max(at + 1, self.previous_end - len(needle) + 1), hi)
            at = later if later >= 0 else at
        return Match(at, at + len(needle), "exact", 1.0) if at >= 0 else None

    def _normalised(self, needle: str, norm: FoldedText, near: bool) -> Match | None:
        if not needle:
            return None
        start = max(norm.from_source(self.cursor), norm.from_source(self.previous_end) - len(needle))
        lo, hi = self._window(start, len(needle), near)
        at = norm.text.find(needle, lo, hi)
        if at < 0:
            return None
        start, end = norm.to_source(at, at + len(needle))
        return Match(start, end, "normalised", 1.0)

    def _trim_furniture_edges(self, needle: str) -> str:
        """`needle` less a start that ends a furniture text and an end that begins one (at least
        FURNITURE_MIN characters each): a chunk cut in the middle of a running header or footer.
        Looked up in sets of the furniture's ends and starts, so the cost does not grow with the
        number of pages (each has its own page number)."""
        if self._edges is None:
            ends = {f[-k:] for f in self.furniture_texts for k in range(FURNITURE_MIN, len(f) + 1)}
            starts = {f[:k] for f in self.furniture_texts for k in range(FURNITURE_MIN, len(f) + 1)}
            self._edges = (ends, starts, max(map(len, self.furniture_texts), default=0))
        ends, starts, longest = self._edges
        top = min(longest, len(needle))
        start = next((k for k in range(top, FURNITURE_MIN - 1, -1) if needle[:k] in ends), 0)
        cut = next((k for k in range(top, FURNITURE_MIN - 1, -1) if needle[len(needle) - k:] in starts), 0)
        end = len(needle) - cut
        return needle[start:end] if end - start >= FURNITURE_MIN else ""

    def _without_a_page_number(self, folded: str) -> list[str]:
        """`folded` less one short furniture text (a page number, shorter than FURNITURE_MIN, too
        short to take out everywhere): at its end, its start, or one of its first few places inside.
        Another extraction reads a page's number after the page's last line, where the Document
        may go on with a paragraph continued on the next page (loaders.paragraphs)."""
        if not self.short_spans or len(folded) < PIECE_MIN:
            return []
        lo = bisect.bisect_left(self.short_spans, (self._start_for(len(folded)),))
        hi = bisect.bisect_right(self.short_spans, (self.cursor + 3 * len(folded) + WINDOW,))
        near = sorted({f for _, f in self.short_spans[lo:hi]})  # the page numbers of the pages searched
        out = [folded[:-len(f)] for f in near if folded.endswith(f)]
        out += [folded[len(f):] for f in near if folded.startswith(f)]
        for f in near:
            at = folded.find(f, 1)
            for _ in range(SHORT_FURNITURE_TRIES):
                if at < 0 or at + len(f) >= len(folded):
                    break
                out.append(folded[:at] + folded[at + len(f):])
                at = folded.find(f, at + 1)
        return out

    def _without_furniture(self, folded: str) -> str:
        return self.furniture.sub("", folded) if self.furniture is not None else folded

    def _in_pieces(self, needle: str) -> Match | None:
        """`needle` (furniture left out) covered by pieces of the text near the cursor, in another
        order: each piece the longest run of the needle found there, from where the last ended.
        Mostly long pieces may lie a column apart (PIECES_REACH); mostly short ones (the cells of
        a table read in another order) must lie close together, within PIECES_SPAN of its length."""
        n = len(needle)
        if not PIECE_MIN <= n <= PIECES_MAX:
            return None
        hay = self.norm.text
        centre = self.norm.from_source(self.cursor)
        lo, hi = max(0, centre - n - WINDOW // 4), centre + 3 * n + WINDOW
        found = _cover(needle, hay, (lo, hi), follow=centre)
        if found is None:
            return None
        placed = [(at, at + length) for at, length in found if length >= PIECE_MIN]
        if not placed:
            return None
        first, last = min(a for a, _ in placed), max(b for _, b in placed)
        mostly_long = sum(b - a for a, b in placed) >= PIECES_LONG_SHARE * n and len(found) <= max(8, n // PIECE_AVERAGE)
        reach = PIECES_SPAN * n + (PIECES_REACH if mostly_long else PIECE_MIN)
        if last - first > reach:
            return None
        # the long pieces say where the chunk is: cover it again with pieces from there alone
        around = PIECE_MIN if mostly_long else n
        again = _cover(needle, hay, (max(0, first - around), last + around))
        if again is None:
            return None
        first, last = min(at for at, _ in again), max(at + length for at, length in again)
        if last - first > reach:
            return None
        spans = [self.norm.to_source(at, at + length) for at, length in again]
        return _pieces_match(spans)

    def _furniture_only(self, needle: str) -> Match | None:
        """A chunk of page furniture alone (a footer and the next page's header): placed at the
        furniture its text is made of. The longest piece is taken at its first place at or after
        the cursor, each other at its place nearest to that one."""
        if not needle:
            return None
        occurrences: dict[str, list[tuple[int, int]]] = {}
        for a, b, f in self.furniture_spans:
            if f in needle:
                occurrences.setdefault(f, []).append((a, b))
        if not occurrences or sum(map(len, occurrences)) < len(needle) - 2 * FURNITURE_MIN:
            return None
        longest = max(occurrences, key=len)
        anchor = next((s for s in occurrences[longest] if s[1] > self.cursor), occurrences[longest][0])[0]
        spans = sorted(((min(spans, key=lambda s: abs(s[0] - anchor)), f) for f, spans in occurrences.items()),
                       key=lambda item: needle.find(item[1]))
        return _pieces_match([span for span, _ in spans])

    def by_anchors(self, needle: str) -> Match:
        """`needle` (normalised) placed where most of its anchors lie together: fuzzy, partial or unlocated."""
        if len(needle) < ANCHOR:
            return UNLOCATED
        hits, anchors = self._anchor_hits(needle)
        if not hits:
            return UNLOCATED
        first, last, found = _densest(hits, len(needle))
        score = found / anchors
        if score < PARTIAL_MIN:
            return UNLOCATED
        start, end = self.norm.to_source(first, last + ANCHOR)
        return Match(start, end, "fuzzy" if score >= FUZZY_MIN else "partial", round(score, 3))

    def _anchor_hits(self, needle: str) -> tuple[list[int], int]:
        """Normalised positions of the chunk's anchors found (near the cursor when there, else
        anywhere), and how many anchors there were."""
        hay = self.norm.text
        anchors = _anchors(needle, max(ANCHOR, len(needle) // MAX_ANCHORS))
        near = self.norm.from_source(self.cursor)
        lo, hi = max(0, near - len(needle)), near + 4 * len(needle) + 2000
        hits = [at for a in anchors if (at := hay.find(a, lo, hi + len(a))) >= 0]
        if len(hits) * 2 < len(anchors):
            hits = [at for a in anchors if (at := hay.find(a)) >= 0]
        return sorted(hits), len(anchors)


def _anchors(needle: str, stride: int) -> list[str]:
    """Runs of ANCHOR normalised characters of `needle`, one every `stride` characters."""
    return [needle[i:i + ANCHOR] for i in range(0, len(needle) - ANCHOR + 1, stride)]


def _cover(needle: str, hay: str, window: tuple[int, int], follow: int | None = None) -> list[tuple[int, int]] | None:
    """`needle` as consecutive pieces of `hay` inside `window`, each the longest run found there:
    (text offset, length) per piece; None when a character is not found or the pieces are too
    many (more than one per PIECE_AVERAGE_SHORT characters, or 8). With `follow` (a text offset
    to start from), each piece is looked for first near where the last long one ended."""
    pieces: list[tuple[int, int]] = []
    n, i, last = len(needle), 0, follow
    while i < n:
        near = window if last is None else (max(window[0], last - n), min(window[1], last + 2 * n))
        length, at = _longest_run(needle, i, hay, near, window)
        if not length or len(pieces) >= max(8, n // PIECE_AVERAGE_SHORT):
            return None
        pieces.append((at, length))
        i += length
        if last is not None and length >= PIECE_MIN:
            last = at + length
    return pieces


def _longest_run(needle: str, i: int, hay: str, first: tuple[int, int], window: tuple[int, int]) -> tuple[int, int]:
    """The longest prefix of needle[i:] found in hay: its length and where, searched in the
    `first` range, else anywhere in `window`; (0, -1) if not even its first character is."""
    def find(length: int) -> int:
        piece = needle[i:i + length]
        at = hay.find(piece, first[0], first[1] + length)
        return at if at >= 0 else hay.find(piece, window[0], window[1] + length)

    rest = len(needle) - i
    at = find(rest)
    if at >= 0:
        return rest, at
    good, good_at, bad = 0, -1, rest  # a prefix of `good` characters is found, of `bad` is not
    probe = min(PIECE_MIN, rest - 1)
    while bad - good > 1:  # gallop up from PIECE_MIN, then bisect: each test is one substring search
        at = find(probe)
        if at >= 0:
            good, good_at = probe, at
        else:
            bad = probe
        probe = 2 * good if at >= 0 and 2 * good < bad else (good + bad) // 2
    return good, good_at


def _pieces_match(spans: Sequence[tuple[int, int]]) -> Match:
    """A `normalised` match found in pieces (one piece is an ordinary span)."""
    start, end = min(a for a, _ in spans), max(b for _, b in spans)
    return Match(start, end, "normalised", 1.0, tuple(spans) if len(spans) > 1 else ())


def _densest(hits: Sequence[int], length: int) -> tuple[int, int, int]:
    """The run of anchor hits spanning at most 1.5x the chunk with the most hits: (first, last, count)."""
    best = (hits[0], hits[0], 1)
    lo = 0
    for hi, pos in enumerate(hits):
        while pos - hits[lo] > 1.5 * length:
            lo += 1
        if hi - lo + 1 > best[2]:
            best = (hits[lo], pos, hi - lo + 1)
    return best


def _cut_between(folded: str, first: str, middle: str, last: str, tries: int = 64) -> tuple[int, int] | None:
    """(h, r) such that `folded` is the last h characters of `first`, then `middle`, then the first
    r of `last` (both at least 1), the most of `first` tried first; None if there is none among
    the first `tries` places where `folded` could begin in `first`."""
    rest = len(folded) - len(middle)
    for h in range(min(len(first), rest - 1), max(1, rest - len(last)) - 1, -1):
        if first[len(first) - h] != folded[0]:
            continue
        if first.endswith(folded[:h]) and folded.startswith(middle, h) and last.startswith(folded[h + len(middle):]):
            return h, rest - h
        tries -= 1
        if tries == 0:
            return None
    return None


def _find_touching(text: str, needle: str, lo: int, hi: int, first_end: int, last_start: int) -> int:
    """Where `needle` is in text[lo:hi], preferring a place that reaches into both the first and the
    last item a chunk names (starts before the first one ends, ends after the last one starts):
    in repetitive text the first place in the span may lie wholly in the first item; -1 if nowhere."""
    at = text.find(needle, max(lo, last_start - len(needle) + 1), min(hi, first_end + len(needle) - 1))
    return at if at >= 0 else text.find(needle, lo, hi)


def document_furniture(doc: Document) -> list[tuple[int, int, str]]:
    """(start, end, text) of the Document's page furniture: what a Locator may find chunks across."""
    return [(e.char_start, e.char_end, e.text) for e in doc.elements
            if is_noise(e) and e.char_start is not None and e.char_end is not None]


def locate_all(text: str, chunk_texts: Sequence[str], furniture: Sequence[tuple[int, int, str]] = (),
               items: Sequence[Sequence[tuple[int, int]] | None] | None = None) -> list[Match]:
    """Where each chunk of `chunk_texts` lies in `text`, in order (see the module docstring);
    `items[i]`, when given, are the source spans of the items chunk i's own chunker says it came from."""
    locator = Locator(text, furniture)
    named = items if items is not None else [None] * len(chunk_texts)
    return [locator.locate(t, spans) for t, spans in zip(chunk_texts, named)]
