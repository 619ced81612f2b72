"""Chunk lineage: what became of each chunk between two chunk sets (two settings, two parses, or
two versions of a document), so a vector store re-embeds only what changed.

Every old chunk maps to new chunk(s) with one kind, and every new chunk nobody maps to is `added`:

* `unchanged`: the same text (whitespace aside) on the same pages;
* `moved`: the same text elsewhere (other pages, or out of order);
* `split`: one old chunk whose text is now in several new ones;
* `merged`: several old chunks now in one new one;
* `edited`: one old chunk and one new one sharing most of their wording, the text changed
  (`similarity`: the share of words kept, 0 to 1);
* `removed`: an old chunk found nowhere.

Matching, in linear time: identical texts pair first (in order, each used once), and the pairs that
keep the reading order of both sets (the longest increasing run, patience-sorted) are anchors. The
chunks between two anchors on each side are matched by shared word 4-grams (an inverted index), a
pair counting when it shares at least `MIN_SHARED` of the smaller chunk's 4-grams; what is connected
becomes one mapping (1-1 edited, 1-n split, n-1 merged, n-m edited). Re-embed `added`, `edited`,
`split`, `merged`; keep the vectors of the rest."""

from __future__ import annotations

import bisect
import hashlib
import json
import re
from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from chunkbench.errors import InputError
from chunkbench.types.chunk import Chunk
from chunkbench.types.chunkset import ChunkSet

KINDS = ("unchanged", "moved", "split", "merged", "edited", "removed", "added")
#: kinds whose new chunks need embedding
REEMBED = ("added", "edited", "split", "merged")
#: words per shingle when matching chunks between anchors
SHINGLE = 4
#: share of the smaller chunk's shingles two chunks must share to be related
MIN_SHARED = 0.5
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Link:
    """One line of a lineage: old chunk ids → new chunk ids, how, and how much of the wording stayed."""

    kind: str
    old: tuple[str, ...]
    new: tuple[str, ...]
    similarity: float
    old_pages: tuple[int | None, int | None] | None = None
    new_pages: tuple[int | None, int | None] | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "old": list(self.old), "new": list(self.new), "similarity": self.similarity,
                "old_pages": list(self.old_pages) if self.old_pages else None,
                "new_pages": list(self.new_pages) if self.new_pages else None}

    @classmethod
    def from_dict(cls, d: dict) -> Link:
        """The Link `to_dict` wrote."""
        def pages(value):
            return (value[0], value[1]) if value else None

        return cls(str(d["kind"]), tuple(d["old"]), tuple(d["new"]), float(d["similarity"]),
                   pages(d.get("old_pages")), pages(d.get("new_pages")))


@dataclass(frozen=True)
class Lineage:
    """The links of two chunk sets, in the new set's order (removed ones where they stood)."""

    links: tuple[Link, ...]
    old_size: int
    new_size: int
    old_strategy: str = ""
    new_strategy: str = ""

    def counts(self) -> dict[str, int]:
        """Links by kind, every kind listed."""
        out = dict.fromkeys(KINDS, 0)
        for m in self.links:
            out[m.kind] += 1
        return out

    @property
    def to_embed(self) -> list[str]:
        """The new chunk ids whose vectors must be made (added, edited, split, merged)."""
        return [cid for m in self.links if m.kind in REEMBED for cid in m.new]

    @property
    def to_delete(self) -> list[str]:
        """The old chunk ids no new chunk carries: the vectors a re-index removes."""
        new_ids = {cid for m in self.links for cid in m.new}
        return [cid for m in self.links for cid in m.old if cid not in new_ids]

    @property
    def kept(self) -> float:
        """Share of the new chunks that keep an old chunk's text (unchanged or moved): what a
        re-index does not pay for."""
        same = sum(len(m.new) for m in self.links if m.kind in ("unchanged", "moved"))
        return same / self.new_size if self.new_size else 1.0

    def to_jsonl(self) -> str:
        """One JSON line per link, in order: the `-o lineage.jsonl` of `chunkbench lineage` and `store changes`."""
        return "".join(json.dumps(m.to_dict(), ensure_ascii=False) + "\n" for m in self.links)

    def to_dict(self) -> dict:
        """Everything, JSON-ready (the workspace stores an amendment's lineage so)."""
        return {"old_size": self.old_size, "new_size": self.new_size, "old_strategy": self.old_strategy,
                "new_strategy": self.new_strategy, "links": [m.to_dict() for m in self.links]}

    @classmethod
    def from_dict(cls, d: dict) -> Lineage:
        """The Lineage `to_dict` wrote."""
        return cls(tuple(Link.from_dict(m) for m in d["links"]), int(d["old_size"]), int(d["new_size"]),
                   str(d.get("old_strategy", "")), str(d.get("new_strategy", "")))

    def summary(self) -> str:
        """'412 unchanged, 3 edited, 1 split, 2 added: re-embed 6 of 418 new chunks'."""
        counts = ", ".join(f"{n} {kind}" for kind, n in self.counts().items() if n)
        line = f"{counts or 'nothing'}: re-embed {len(self.to_embed)} of {self.new_size} new chunks"
        if self.old_strategy != self.new_strategy:
            line += f" (chunked by {self.old_strategy} before, {self.new_strategy} now)"
        return line


def stability(chunks: Iterable[Chunk], baseline: Iterable[Chunk]) -> float:
    """Share of `chunks` that keep a `baseline` chunk's id and text: what a store keyed by chunk_id
    neither embeds nor re-keys when it moves from the baseline (another version, another setting)
    to these chunks. 1.0 for no chunks."""
    kept = {(c.chunk_id, c.text) for c in baseline}
    keys = [(c.chunk_id, c.text) for c in chunks]
    return sum(k in kept for k in keys) / len(keys) if keys else 1.0


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _key(text: str) -> str:
    """Identity of a chunk's text: its words, whitespace and case as they were."""
    return hashlib.blake2b(" ".join(text.split()).encode("utf-8"), digest_size=16).hexdigest()


def _shingles(text: str) -> set[int]:
    w = words(text)
    if len(w) < SHINGLE:
        return {hash(" ".join(w))} if w else set()
    return {hash(" ".join(w[i:i + SHINGLE])) for i in range(len(w) - SHINGLE + 1)}


def _pages(chunks: Sequence[Chunk]) -> tuple[int | None, int | None] | None:
    starts = [c.page_start for c in chunks if c.page_start is not None]
    ends = [c.page_end for c in chunks if c.page_end is not None]
    return (min(starts), max(ends)) if starts else None


def similarity(old: str, new: str) -> float:
    """Share of words kept: 2 × common words (as a multiset) / all words, rounded to 3 places."""
    a, b = words(old), words(new)
    if not a and not b:
        return 1.0
    counts: dict[str, int] = defaultdict(int)
    for w in a:
        counts[w] += 1
    common = 0
    for w in b:
        if counts[w] > 0:
            counts[w] -= 1
            common += 1
    return round(2 * common / (len(a) + len(b)), 3)


def _identical_pairs(old: Sequence[Chunk], new: Sequence[Chunk], used_old: AbstractSet[int] = frozenset(),
                     used_new: AbstractSet[int] = frozenset()) -> list[tuple[int, int]]:
    """(old index, new index) of identical texts, paired in order, each chunk used once (those in
    `used_old` / `used_new` not at all)."""
    waiting: dict[str, deque[int]] = defaultdict(deque)
    for j, c in enumerate(new):
        if j not in used_new:
            waiting[_key(c.text)].append(j)
    return [(i, waiting[k].popleft()) for i, c in enumerate(old)
            if i not in used_old and waiting.get(k := _key(c.text))]


def _anchors(old: Sequence[Chunk], new: Sequence[Chunk]) -> list[tuple[int, int]]:
    """Pairs (old index, new index) of identical texts that keep both orders: identical texts paired
    in order, then the longest run increasing in both (patience sorting, O(n log n))."""
    pairs = _identical_pairs(old, new)
    tails: list[int] = []  # new index ending the best run of each length
    tail_at: list[int] = []  # position in `pairs` of that end
    back = [-1] * len(pairs)
    for p, (_, j) in enumerate(pairs):
        at = bisect.bisect_left(tails, j)
        back[p] = tail_at[at - 1] if at else -1
        if at == len(tails):
            tails.append(j)
            tail_at.append(p)
        else:
            tails[at], tail_at[at] = j, p
    run, p = [], tail_at[-1] if tail_at else -1
    while p >= 0:
        run.append(pairs[p])
        p = back[p]
    return run[::-1]


def _related(old_idx: list[int], new_idx: list[int], old: Sequence[Chunk], new: Sequence[Chunk]) -> list[tuple[int, int]]:
    """Pairs between the unmatched chunks of one gap that share enough 4-grams (inverted index)."""
    sh_new = {j: _shingles(new[j].text) for j in new_idx}
    index: dict[int, list[int]] = defaultdict(list)
    for j, grams in sh_new.items():
        for g in grams:
            index[g].append(j)
    out = []
    for i in old_idx:
        grams = _shingles(old[i].text)
        shared: dict[int, int] = defaultdict(int)
        for g in grams:
            for j in index.get(g, ()):
                shared[j] += 1
        for j, n in shared.items():
            if n >= MIN_SHARED * max(1, min(len(grams), len(sh_new[j]))):
                out.append((i, j))
    return out


def _components(pairs: list[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """Connected groups of related old and new chunks (union-find), in old order."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x: tuple[str, int]) -> tuple[str, int]:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in pairs:
        parent[find(("o", i))] = find(("n", j))
    groups: dict[tuple[str, int], tuple[list[int], list[int]]] = {}
    for node in sorted(parent):
        olds, news = groups.setdefault(find(node), ([], []))
        (olds if node[0] == "o" else news).append(node[1])
    return sorted((sorted(o), sorted(n)) for o, n in groups.values())


def lineage(old: ChunkSet, new: ChunkSet, *, force: bool = False) -> Lineage:
    """What became of each chunk of `old` in `new` (see the module doc). Two sets with text that
    share nothing are refused (InputError) unless `force`: they are not two versions of one document."""
    a, b = list(old.chunks), list(new.chunks)
    anchors = _anchors(a, b)
    moved = _identical_pairs(a, b, {i for i, _ in anchors}, {j for _, j in anchors})  # left their place
    links: list[tuple[tuple[int, int], Link]] = []  # (order key, link)

    def add(kind: str, olds: list[int], news: list[int], sim: float) -> None:
        key = (min(news) if news else _new_position(olds[0]), min(olds) if olds else -1)
        links.append((key, Link(kind, tuple(a[i].chunk_id for i in olds), tuple(b[j].chunk_id for j in news),
                                      sim, _pages([a[i] for i in olds]), _pages([b[j] for j in news]))))

    anchor_new = [j for _, j in anchors]
    anchor_old = [i for i, _ in anchors]

    def _new_position(i: int) -> int:
        """Where a removed old chunk stood in the new order: after the anchor before it."""
        at = bisect.bisect_left(anchor_old, i)
        return anchor_new[at - 1] if at else -1

    for i, j in anchors:
        same_pages = (a[i].page_start, a[i].page_end) == (b[j].page_start, b[j].page_end)
        add("unchanged" if same_pages else "moved", [i], [j], 1.0)
    for i, j in moved:
        add("moved", [i], [j], 1.0)
    done_old = {i for i, _ in anchors} | {i for i, _ in moved}
    done_new = {j for _, j in anchors} | {j for _, j in moved}
    bounds = [(-1, -1), *anchors, (len(a), len(b))]
    related_any = bool(anchors or moved)
    for (i0, j0), (i1, j1) in zip(bounds, bounds[1:]):
        olds = [i for i in range(i0 + 1, i1) if i not in done_old]
        news = [j for j in range(j0 + 1, j1) if j not in done_new]
        if not olds and not news:
            continue
        pairs = _related(olds, news, a, b) if olds and news else []
        related_any = related_any or bool(pairs)
        grouped_old, grouped_new = set(), set()
        for g_old, g_new in _components(pairs):
            grouped_old.update(g_old)
            grouped_new.update(g_new)
            kind = "split" if len(g_old) == 1 < len(g_new) else "merged" if len(g_new) == 1 < len(g_old) else "edited"
            sim = similarity(" ".join(a[i].text for i in g_old), " ".join(b[j].text for j in g_new))
            add(kind, g_old, g_new, sim)
        for i in olds:
            if i not in grouped_old:
                add("removed", [i], [], 0.0)
        for j in news:
            if j not in grouped_new:
                add("added", [], [j], 0.0)
    if a and b and not related_any and not force:
        raise InputError(f"the two chunk sets share no text ({old.doc.source}: {len(a)} chunks, {new.doc.source}: "
                         f"{len(b)}): are they versions of one document? (--force, or force=True, maps every chunk "
                         "as removed and added)", new.doc.source)
    ordered = tuple(m for _, m in sorted(links, key=lambda km: km[0]))
    return Lineage(ordered, len(a), len(b), old.strategy, new.strategy)
