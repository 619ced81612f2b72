"""Boundary diff: which chunk boundaries stayed, moved, appeared or vanished between two configurations.

A boundary is where a chunk starts: its `start_char` in the document's canonical text (the
position `chunks.boundary_key` is built on). Matching, in this order:

1. **stayed** – a and b both have a boundary at exactly the same position (reasons may differ).
2. **moved** – of the boundaries left, an a-boundary and a b-boundary are paired when they are at
   most `window` characters apart (default 200) or start in the same element; closest pairs first,
   each boundary used once, and pairs never cross (the k-th moved boundary of a pairs with a later
   one of b than the (k-1)-th did), so a moved boundary is "the same cut, shifted".
3. **vanished** – an a-boundary left unpaired; **appeared** – a b-boundary left unpaired.

So stayed + moved + vanished = the boundaries of a, and stayed + moved + appeared = those of b.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chunkbench.errors import UsageError
from chunkbench.strategies import DEFAULT_STRATEGY, chunk
from chunkbench.types.chunk import Chunk, boundary_key
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document

STATUSES = ("stayed", "moved", "appeared", "vanished")
COLUMNS = ["position", "position_b", "shift", "page", "page_b", "status", "reason_a", "reason_b",
           "detail_a", "detail_b", "chunk_a", "chunk_b", "key_a", "key_b", "context"]
#: characters of text shown on each side of a boundary in `context` ("… before ‖ after …")
CONTEXT = 30


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """'strategy=tokens,chunk_size=512' → ('tokens', {'chunk_size': '512'}).

    A piece without '=' continues the previous value (so list values keep their commas:
    'strategy=elements,noise=header,footer'); 'strategy' defaults to elements."""
    params: dict[str, str] = {}
    last = None
    for piece in spec.split(","):
        if "=" in piece:
            key, _, value = piece.partition("=")
            key = key.strip()
            if not key:
                raise UsageError(f"bad configuration {spec!r}: empty name before '='")
            params[key] = value.strip()
            last = key
        elif piece.strip():
            if last is None:
                raise UsageError(f"bad configuration {spec!r}: expected key=value pieces "
                                 "like strategy=tokens,chunk_size=512")
            params[last] += "," + piece.strip()
    strategy = params.pop("strategy", DEFAULT_STRATEGY)
    return strategy, params


def as_chunkset(doc: Document, value: Any) -> ChunkSet:
    """A ChunkSet as given, or chunked from a 'strategy=...,k=v' spec string / a mapping."""
    if isinstance(value, ChunkSet):
        if value.doc.doc_id != doc.doc_id:
            raise UsageError(f"a ChunkSet of {value.doc.source} cannot be compared on {doc.source}")
        return value
    if isinstance(value, str):
        strategy, spec = parse_spec(value)
        given: dict[str, Any] = dict(spec)
        return chunk(doc, strategy, **given)
    if isinstance(value, Mapping):
        params = dict(value)
        return chunk(doc, params.pop("strategy", DEFAULT_STRATEGY), **params)
    raise UsageError(f"expected a ChunkSet or a spec like 'strategy=tokens,chunk_size=512', got {type(value).__name__}")


def describe(cs: ChunkSet) -> str:
    """'tokens chunk_size=512 overlap=50': a configuration in one line."""
    return " ".join([cs.strategy, *(f"{k}={v}" for k, v in cs.params.items())])


@dataclass(frozen=True)
class BoundaryDiff:
    """The result of `diff`: a row per boundary (`table`), counts per page, and page drawings."""

    doc: Document
    a: ChunkSet
    b: ChunkSet
    window: int
    rows: tuple[Mapping[str, Any], ...]

    @property
    def table(self):
        """pandas DataFrame, one row per boundary, sorted by position (see COLUMNS)."""
        import pandas as pd

        df = pd.DataFrame([dict(r) for r in self.rows], columns=COLUMNS)
        for col in ("position", "position_b", "shift", "page", "page_b", "chunk_a", "chunk_b"):
            df[col] = df[col].astype("Int64")
        return df

    @property
    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for r in self.rows:
            out[r["status"]] += 1
        return out

    @property
    def counts_per_page(self):
        """pandas DataFrame indexed by page: stayed, moved, appeared, vanished, boundaries of a and b.

        A row counts on the page of a's boundary, or b's for appeared ones."""
        import pandas as pd

        pages: dict[int, dict[str, int]] = {}
        for r in self.rows:
            page = r["page"] if r["status"] != "appeared" else r["page_b"]
            if page is None:
                page = 0
            row = pages.setdefault(int(page), {**dict.fromkeys(STATUSES, 0), "a": 0, "b": 0})
            row[r["status"]] += 1
            row["a"] += r["status"] != "appeared"
            row["b"] += r["status"] != "vanished"
        df = pd.DataFrame.from_dict(pages, orient="index", columns=[*STATUSES, "a", "b"]).sort_index()
        df.index.name = "page"
        return df

    def changed_pages(self) -> list[int]:
        """Pages with at least one boundary that did not stay."""
        df = self.counts_per_page
        return [int(p) for p, row in df.iterrows() if p and (row["moved"] + row["appeared"] + row["vanished"]) > 0]



def context(text: str, pos: int, width: int = CONTEXT) -> str:
    """One line of text around offset `pos` with the cut marked: 'end of one ‖ start of next'."""
    before = " ".join(text[max(0, pos - width):pos].split())
    after = " ".join(text[pos:pos + width].split())
    return f"{before} ‖ {after}"


def _pos(c: Chunk) -> int:
    """The start of a chunk the diff pairs (only chunks with offsets are paired)."""
    assert c.start_char is not None, "chunks without offsets are left out before pairing"
    return c.start_char


def _row(doc: Document, status: str, ca: Chunk | None, cb: Chunk | None) -> dict[str, Any]:
    pa = _pos(ca) if ca is not None else None
    pb = _pos(cb) if cb is not None else None
    at = pa if pa is not None else pb
    assert at is not None, "a row has at least one chunk"
    return {
        "context": context(doc.text, at),
        "position": pa if pa is not None else pb,
        "position_b": pb,
        "shift": (pb - pa) if pa is not None and pb is not None else None,
        "page": ca.page_start if ca is not None else None,
        "page_b": cb.page_start if cb is not None else None,
        "status": status,
        "reason_a": ca.boundary.reason.value if ca is not None else None,
        "reason_b": cb.boundary.reason.value if cb is not None else None,
        "detail_a": ca.boundary.detail if ca is not None else None,
        "detail_b": cb.boundary.detail if cb is not None else None,
        "chunk_a": ca.index if ca is not None else None,
        "chunk_b": cb.index if cb is not None else None,
        "key_a": boundary_key(ca) if ca is not None else None,
        "key_b": boundary_key(cb) if cb is not None else None,
    }


def _first_element(c: Chunk) -> str | None:
    return c.source_blocks[0] if c.source_blocks else None


def diff(doc: Document, a: Any, b: Any, *, window: int = 200) -> BoundaryDiff:
    """Compare the chunk boundaries of configurations `a` and `b` of `doc` (ChunkSets or spec strings
    such as 'strategy=tokens,chunk_size=512'); see the module docstring for the matching rules."""
    if window < 0:
        raise UsageError(f"window must be >= 0, got {window}")
    ca, cb = as_chunkset(doc, a), as_chunkset(doc, b)
    A = sorted((c for c in ca.chunks if c.start_char is not None), key=lambda c: (_pos(c), c.index))
    B = sorted((c for c in cb.chunks if c.start_char is not None), key=lambda c: (_pos(c), c.index))
    pair = _same_places(A, B)
    stayed = set(pair)
    _pair_near(A, B, pair, window)
    used_b = set(pair.values())
    rows = []
    for i, c in enumerate(A):
        if i in pair:
            rows.append(_row(doc, "stayed" if i in stayed else "moved", c, B[pair[i]]))
        else:
            rows.append(_row(doc, "vanished", c, None))
    rows.extend(_row(doc, "appeared", None, B[j]) for j in range(len(B)) if j not in used_b)
    rows.sort(key=lambda r: (r["position"], STATUSES.index(r["status"])))
    return BoundaryDiff(doc=doc, a=ca, b=cb, window=window, rows=tuple(rows))


def _same_places(A: list[Chunk], B: list[Chunk]) -> dict[int, int]:
    """Pairs (index in A -> index in B) of boundaries at the same position, first come first served
    when a configuration repeats a position."""
    by_pos: dict[int, list[int]] = {}
    for j, c in enumerate(B):
        by_pos.setdefault(_pos(c), []).append(j)
    pair: dict[int, int] = {}
    for i, c in enumerate(A):
        js = by_pos.get(_pos(c))
        if js:
            pair[i] = js.pop(0)
    return pair


def _pair_near(A: list[Chunk], B: list[Chunk], pair: dict[int, int], window: int) -> None:
    """Add to `pair` the boundaries left that lie within `window` characters or start with the same
    element, closest first, without crossing a pair made before."""
    used_b = set(pair.values())
    rest_b = [j for j in range(len(B)) if j not in used_b]
    rest_pos = [_pos(B[j]) for j in rest_b]
    first_el_b: dict[str, list[int]] = {}
    for j in rest_b:
        first_el_b.setdefault(_first_element(B[j]) or "", []).append(j)
    candidates = []
    for i, c in enumerate(A):
        if i in pair:
            continue
        lo = bisect.bisect_left(rest_pos, _pos(c) - window)
        hi = bisect.bisect_right(rest_pos, _pos(c) + window)
        near = set(rest_b[lo:hi])
        el = _first_element(c)
        if el:
            near.update(first_el_b.get(el, ()))
        candidates += [(abs(_pos(B[j]) - _pos(c)), _pos(c), i, j) for j in near]
    candidates.sort()
    paired = sorted(pair.items())
    for _, _, i, j in candidates:
        if i in pair or j in used_b or _crosses(paired, i, j):
            continue
        pair[i] = j
        used_b.add(j)
        bisect.insort(paired, (i, j))


def _crosses(paired: list[tuple[int, int]], i: int, j: int) -> bool:
    """Would pairing a[i] with b[j] cross an existing pair? `paired` is sorted by i and its pairs do
    not cross, so only the neighbours of i need checking (binary search)."""
    k = bisect.bisect_left(paired, (i, -1))
    if k > 0 and paired[k - 1][1] >= j:
        return True
    return k < len(paired) and paired[k][1] <= j
