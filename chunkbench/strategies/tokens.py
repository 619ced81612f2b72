"""Strategy `tokens` (specs/5): fixed cl100k token windows with exact character offsets.

One pass, linear in the document: the canonical text is tokenized once; each token's UTF-8 byte
length comes from a per-token-id table, cumulative sums give every token boundary's byte offset,
and byte offsets are turned into character offsets only at window edges. Chunk text is a slice of
`doc.text` (never decoded from tokens), so `text == doc.text[start_char:end_char]` always holds.

Where a window edge falls inside a character (cl100k splits some multi-byte characters across
tokens), the window grows to include the whole character: its start moves back to the character's
first byte, its end forward past its last byte.

A window of whitespace alone (the indent that ends a code block, say) is not a chunk: it holds no
text to retrieve. The chunks then cover every non-whitespace character, not every character.

Pages and boxes come from the elements a window overlaps. This is the spec's page-break rule with
each page break placed just after the previous page's last element: a window that starts in the
"\n\n" before a page's first element is cited to that page, where its text is.
"""

from __future__ import annotations

import concurrent.futures
import functools
import itertools
import os
import threading
from dataclasses import dataclass

import numpy as np

from chunkbench.errors import InputError, ParamError
from chunkbench.text.tokenizer import get_encoding
from chunkbench.types.chunk import BBox, Boundary, Chunk, Reason, build_chunk, element_bboxes, element_pages
from chunkbench.types.document import Document, Element

from .base import Param, StrategyResult, declare
from .kept import KeptState, kept_or_made


def _check(params: dict) -> None:
    if not 0 <= params["overlap"] < params["chunk_size"]:
        raise ParamError(
            f"strategy 'tokens' parameter 'overlap' must be >= 0 and < chunk_size "
            f"({params['chunk_size']}), got {params['overlap']}"
        )


#: where `restart_at` lets a new run of windows start
RESTARTS = ("none", "headings")


def chunk_tokens(doc: Document, *, kept: KeptState | None, chunk_size: int, overlap: int,
                 restart_at: str) -> StrategyResult:
    """Sliding windows of `chunk_size` tokens advancing by `chunk_size - overlap` tokens; with
    `restart_at="headings"` (the default) a new run of windows starts at every heading, so a change in
    one section moves only that section's windows (the lineage of two versions keeps the others);
    `"none"` is spec 5's one run over the text."""
    _check({"chunk_size": chunk_size, "overlap": overlap})
    lay = kept_or_made(kept, "tokens", doc, None, lambda: _Layout.of(doc))
    located, skipped, first_page, page_sets, stitched = (lay.located, dict(lay.skipped), lay.first_page,
                                                         lay.page_sets, lay.stitched)
    text = doc.text
    headings = lay.headings if restart_at == "headings" else ()
    offsets = kept_or_made(kept, "tokens", doc, "offsets", lambda: token_offsets(text, source=doc.source))
    spans = token_windows(text, chunk_size, overlap, source=doc.source, anchors=tuple(e.char_start for e in headings),
                          offsets=offsets)
    heading_at = {e.char_start: e for e in headings}
    if not spans:
        return StrategyResult(chunks=[], skipped=skipped)
    # elements overlapping each window [start_char, end_char): element spans are sorted and disjoint
    lows = np.searchsorted(lay.ends, [w.start_char for w in spans], side="right").tolist()
    highs = np.searchsorted(lay.starts, [w.end_char for w in spans], side="left").tolist()
    total = spans[-1].token_end
    chunks: list[Chunk] = []
    prev_end = 0  # token end of the last window kept
    for w, lo, hi in zip(spans, lows, highs):
        if text[w.start_char : w.end_char].isspace():  # whitespace alone (e.g. a code block's indent)
            continue
        n = len(chunks)
        overlap_tokens = max(0, prev_end - w.token_start) if n else 0
        prev_end_before, prev_end = prev_end, w.token_end
        if hi <= lo:  # the window lies inside a separator: cite the element that follows it
            lo = min(lo, len(located) - 1)
            hi = lo + 1
        ts, te = w.token_start, w.token_end
        opened = heading_at.get(w.start_char) if heading_at and (not n or prev_end_before <= ts) else None
        if n == 0:
            boundary = Boundary(Reason.DOCUMENT_START, f"tokens 0–{te - 1} of {total}")
        elif opened is not None:
            boundary = Boundary(Reason.HEADING, f"at the heading {opened.text[:60]!r}: the windows start again "
                                                f"(tokens {ts}–{te - 1})")
        else:
            boundary = Boundary(Reason.TOKEN_WINDOW, f"tokens {ts}–{te - 1} (overlap {overlap_tokens})")
        if page_sets is None:
            pages = sorted(set(first_page[lo:hi])) if hi - lo > 1 else [first_page[lo]]
        elif stitched:  # a table stitched across pages: only the pages of the parts the window covers
            pages = [p for p in element_pages(located[lo:hi], w.start_char, w.end_char) if p is not None]
        else:
            pages = sorted(set().union(*page_sets[lo:hi]))
        chunks.append(
            build_chunk(
                doc,
                index=n,
                chunk_id=f"chunk_{n}",
                type="window",
                text=text[w.start_char : w.end_char],
                elements=located[lo:hi],
                boundary=boundary,
                start_char=w.start_char,
                end_char=w.end_char,
                bbox=lay.boxes(lo, hi) if not stitched else element_bboxes(located[lo:hi], w.start_char, w.end_char),
                pages=(pages[0], pages[-1]) if pages else (None, None),
                tokens_est=te - ts,
                source_blocks=lay.ids[lo:hi],
                extra={
                    "tokens": te - ts,
                    "overlap_tokens": overlap_tokens,
                    "page": pages[0] if pages else None,
                    "pages": pages,
                    "token_start": ts,
                    "token_end": te,
                },
            )
        )
    return StrategyResult(chunks=chunks, skipped=skipped)


@dataclass(frozen=True, eq=False)
class _Layout:
    """What the windows need of a Document's elements, whatever their size: found once per Document
    (kept by the re-chunking owner: strategies.kept), not at every re-chunk of the explorer's slider."""

    located: tuple[Element, ...]  # the elements with text, in order
    skipped: dict[str, str]
    headings: tuple[Element, ...]  # where `restart_at="headings"` starts a run of windows
    starts: np.ndarray
    ends: np.ndarray
    ids: tuple[str, ...]  # source blocks, sliced per window
    #: each element's boxes, and all of them when every element has exactly one (sliced per window)
    own_boxes: tuple[tuple[BBox, ...], ...]
    one_box_each: tuple[BBox, ...] | None
    #: 1-based page of each element; elements without a page or spanning pages take the slow path
    first_page: list[int]
    page_sets: list[tuple[int, ...]] | None
    stitched: bool  # a table stitched across pages: boxes and pages of the parts a window covers

    @classmethod
    def of(cls, doc: Document) -> _Layout:
        located = tuple(e for e in doc.elements if e.text)
        own = tuple(element_bboxes((e,)) for e in located)
        simple_pages = all(e.page_idx is not None and e.page_end_idx in (None, e.page_idx) for e in located)
        return cls(
            located=located,
            skipped={e.id: "empty text" for e in doc.elements if not e.text},
            headings=tuple(e for e in located if e.is_heading and e.char_start > 0),
            starts=np.fromiter((e.char_start for e in located), dtype=np.int64, count=len(located)),
            ends=np.fromiter((e.char_end for e in located), dtype=np.int64, count=len(located)),
            ids=tuple(e.id for e in located),
            own_boxes=own,
            one_box_each=tuple(b[0] for b in own) if all(len(b) == 1 for b in own) else None,
            first_page=[e.page_idx + 1 if e.page_idx is not None else 0 for e in located],
            page_sets=None if simple_pages else [e.page_numbers for e in located],
            stitched=not simple_pages and any(len(e.parts) > 1 for e in located),
        )

    def boxes(self, lo: int, hi: int) -> tuple[BBox, ...]:
        """The boxes of elements [lo, hi) (a table stitched across pages aside: `element_bboxes`)."""
        if self.one_box_each is not None:
            return self.one_box_each[lo:hi]
        return tuple(itertools.chain.from_iterable(self.own_boxes[lo:hi]))


class Window:
    """One token window: token range [token_start, token_end) and its character span."""

    __slots__ = ("token_start", "token_end", "start_char", "end_char", "overlap_tokens")

    def __init__(self, token_start: int, token_end: int, start_char: int, end_char: int, overlap_tokens: int):
        self.token_start = token_start
        self.token_end = token_end
        self.start_char = start_char
        self.end_char = end_char
        self.overlap_tokens = overlap_tokens

    def __repr__(self) -> str:
        return (f"Window(tokens {self.token_start}:{self.token_end}, chars {self.start_char}:{self.end_char}, "
                f"overlap {self.overlap_tokens})")


_TABLE_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _byte_length_table() -> np.ndarray:
    """Per-token-id UTF-8 byte length, -1 until first needed (filled lazily, cached per process)."""
    return np.full(get_encoding().n_vocab, -1, dtype=np.int64)


def token_byte_lengths(ids: np.ndarray) -> np.ndarray:
    """Byte length of each token id in `ids`, from the cached per-id table."""
    table = _byte_length_table()
    lens = table[ids]
    if (lens < 0).any():
        enc = get_encoding()
        with _TABLE_LOCK:
            for t in np.unique(ids[lens < 0]).tolist():
                table[t] = len(enc.decode_single_token_bytes(t))
        lens = table[ids]
    return lens


def window_starts(n_tokens: int, chunk_size: int, overlap: int) -> range:
    """Token index of each window start: every `chunk_size - overlap` tokens until one reaches the end.

    The spec's loop `range(0, n, chunk_size - overlap)` would also emit trailing windows lying
    entirely inside the previous one; those add no text and are not produced."""
    stride = chunk_size - overlap
    if n_tokens <= chunk_size:
        return range(0, 1 if n_tokens else 0)
    last = -(-(n_tokens - chunk_size) // stride) * stride  # first start whose window reaches the end
    return range(0, last + 1, stride)


#: texts shorter than this are tokenized in one call; longer ones in parallel pieces
PARALLEL_MIN_CHARS = 1 << 20
#: at most this many threads tokenize one text (tiktoken releases the GIL while encoding)
MAX_THREADS = 4


def safe_cuts(text: str, parts: int) -> list[int]:
    """Positions splitting `text` into about `parts` pieces that cl100k tokenizes independently.

    A cut sits right after a newline that is followed by a letter: cl100k's pre-tokenizer never
    lets a piece cross that spot (whitespace pieces end at the newline, letter pieces cannot start
    with one), and BPE never merges across pieces, so the pieces' tokens concatenate to exactly
    the tokens of the whole text. Where no such spot lies near a target position, no cut is made."""
    cuts: list[int] = []
    for k in range(1, parts):
        pos = text.find("\n", k * len(text) // parts, (k + 1) * len(text) // parts)
        while pos != -1 and not text[pos + 1 : pos + 2].isalpha():
            pos = text.find("\n", pos + 1, (k + 1) * len(text) // parts)
        if pos != -1 and (not cuts or pos + 1 > cuts[-1]):
            cuts.append(pos + 1)
    return cuts


def _idle_cores() -> int:
    """Cores that other processes leave idle by the 1-minute load average, counting this process's
    own running thread as one of ours (at least 1, at most MAX_THREADS)."""
    cores = os.cpu_count() or 1
    try:
        others = max(0.0, os.getloadavg()[0] - 1)
    except (OSError, AttributeError):  # no load average on this platform
        others = 0.0
    return max(1, min(MAX_THREADS, int(cores - others + 0.5)))


def encode_ids(text: str, min_parallel: int = PARALLEL_MIN_CHARS, threads: int | None = None) -> np.ndarray:
    """cl100k token ids of `text` (special-token text as ordinary text), as a numpy array.

    Long texts are cut at `safe_cuts` and the pieces encoded on several threads; the result is
    identical to encoding the whole text at once. By default threads are used only while cores
    are idle: each encoding thread costs about 40% more CPU than one serial pass (measured), so on
    a busy machine parallel encoding is slower than serial."""
    enc = get_encoding()
    threads = threads or _idle_cores()
    cuts = safe_cuts(text, threads) if threads > 1 and len(text) >= min_parallel else []
    if not cuts:
        return enc.encode_to_numpy(text, allowed_special=set(), disallowed_special=())
    bounds = [0, *cuts, len(text)]
    pieces = [text[a:b] for a, b in zip(bounds, bounds[1:])]
    with concurrent.futures.ThreadPoolExecutor(len(pieces)) as pool:
        arrays = list(pool.map(lambda t: enc.encode_to_numpy(t, allowed_special=set(), disallowed_special=()),
                               pieces))
    return np.concatenate(arrays)


def token_windows(text: str, chunk_size: int = 512, overlap: int = 50, *, source: str = "",
                  anchors: tuple[int, ...] = (), offsets: tuple[np.ndarray, np.ndarray] | None = None) -> list[Window]:
    """The windows of `text` with exact, character-aligned offsets (see the module docstring).
    `anchors`: character offsets where a new run of windows starts (at the first token boundary at
    or after each), so that a change before an anchor moves no window after it. `offsets`:
    `token_offsets(text)` when the caller kept them (a re-chunk of the same text), else made here."""
    if not text:
        return []
    ids, cum = offsets if offsets is not None else token_offsets(text, source=source)
    data = text.encode("utf-8")
    n = len(ids)
    if cum[-1] != len(data):  # tokens always decode back to the text; anything else is a bug
        raise RuntimeError(f"token bytes {cum[-1]} != text bytes {len(data)}")
    runs = [0, *sorted({int(t) for t in np.searchsorted(cum, _byte_offsets(text, anchors), side="left")} - {0, n}), n]
    tok_start = np.concatenate([np.asarray(window_starts(b - a, chunk_size, overlap), dtype=np.int64) + a
                                for a, b in zip(runs, runs[1:])]) if n else np.zeros(0, dtype=np.int64)
    tok_end = np.minimum(tok_start + chunk_size, np.asarray(runs[1:], dtype=np.int64)[
        np.searchsorted(np.asarray(runs[1:], dtype=np.int64), tok_start, side="right")]) if n else tok_start
    b_start = cum[tok_start]
    b_end = cum[tok_end]
    if len(data) == len(text):  # ASCII: byte offsets are character offsets
        c_start, c_end = b_start, b_end
    else:
        c_start, c_end = _chars_at(data, b_start, b_end)
    out: list[Window] = []
    prev_end = 0
    for ts, te, cs, ce in zip(tok_start.tolist(), tok_end.tolist(), c_start.tolist(), c_end.tolist()):
        out.append(Window(ts, te, cs, ce, prev_end - ts if out else 0))
        prev_end = te
    return out


def token_offsets(text: str, *, source: str = "") -> tuple[np.ndarray, np.ndarray]:
    """The token ids of `text` and the byte offset of every token boundary (n + 1 of them): kept by
    the re-chunking owner (strategies.kept), a change of window size or overlap (the explorer's
    slider) windows the same tokens again without encoding the document again (most of a
    re-chunk's time otherwise). Text that is not valid Unicode is an InputError naming `source`."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"text is not valid Unicode (unpaired surrogate at character {exc.start})",
                         source or None) from None
    ids = encode_ids(text)
    cum = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(token_byte_lengths(ids), out=cum[1:])
    ids.setflags(write=False)
    cum.setflags(write=False)
    return ids, cum


def _byte_offsets(text: str, chars: tuple[int, ...]) -> list[int]:
    """UTF-8 byte offsets of sorted character offsets, in one pass over the text between them."""
    out, at, byte = [], 0, 0
    for c in sorted(chars):
        byte += len(text[at:c].encode("utf-8", "surrogatepass"))
        at = c
        out.append(byte)
    return out


def _chars_at(data: bytes, b_start: np.ndarray, b_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Character offsets of window edges given as byte offsets, snapped outward to whole characters.

    The characters before byte b are b minus the UTF-8 continuation bytes before it; an edge inside
    a character (b is a continuation byte) belongs to that character. Only the continuation bytes'
    positions are kept (few in most text), so no per-byte count array is built."""
    buf = np.frombuffer(data, dtype=np.uint8)
    high = np.flatnonzero(buf >= 0x80)
    cont = high[(buf[high] & 0xC0) == 0x80]
    before_start = np.searchsorted(cont, b_start, side="left")
    inside = np.searchsorted(cont, b_start, side="right") - before_start
    c_start = b_start - before_start - inside
    c_end = b_end - np.searchsorted(cont, b_end, side="left")
    return c_start, c_end


STRATEGY = declare(
    chunk_tokens,
    "tokens",
    uses_kept=True,
    small={"chunk_size": 64, "overlap": 10},
    params=[
        Param("chunk_size", int, 512, "tokens per window (cl100k)", min=1, max=100_000, ui_step=32),
        Param("overlap", int, 50, "tokens shared by consecutive windows (< chunk_size)", min=0, max=99_999,
              ui_step=10),
        Param("restart_at", str, "headings", "where a new run of windows starts: headings (at every heading, so "
              "a change in one section moves only its windows) or none (one run over the text: spec 5's literal "
              "windows, where a change slides every later window)", choices=RESTARTS),
    ],
    doc="tiktoken windows (512/50), exact char offsets, page and bbox per chunk",
    spec="docs/specs/5-token-window-citations.md",
    ruleset="tokens/2026-12-02",
    check=_check,
    boundaries='cl100k windows of `chunk_size` (512) with `overlap` (50) tokens, computed in one linear pass, a new run of windows at every heading (`restart_at=headings`; `none`: one run over the text, as spec 5); `text == doc.text[start_char:end_char]` exactly, never a broken character',
    fields='`tokens`, `overlap_tokens`, `page`, `pages`',
    target_size=lambda p: (p["chunk_size"], "tokens"),
)
