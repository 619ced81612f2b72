"""What a walk under a size limit keeps for other limits: the range of limits its comparisons
allow (`SizeLimit`), boundary sentences that name the limit (`Why`), and chunks made at one limit
that every limit in that range gives alike (`KeptChunks`). The elements strategy re-walks only the
stretches of a document whose range does not hold a new limit."""

from __future__ import annotations

from dataclasses import dataclass, replace

from chunkbench.types.chunk import Boundary, Chunk, Reason


@dataclass(frozen=True)
class Why:
    """A boundary whose sentence may name the size limit: its text is `parts` joined by the limit,
    so the chunks of a stretch kept for a range of limits (`KeptChunks`) name the one asked for."""

    reason: Reason
    parts: tuple[str, ...]

    @classmethod
    def of(cls, reason: Reason, detail: str) -> Why:
        return cls(reason, (detail,))

    def at(self, limit: int) -> Boundary:
        return Boundary(self.reason, str(limit).join(self.parts))

    def then(self, more: str) -> Why:
        """The same reason, its sentence going on with `more`."""
        return Why(self.reason, (*self.parts[:-1], self.parts[-1] + more))


#: above every size: a range no comparison has closed yet
NO_LIMIT = 1 << 62


class SizeLimit:
    """`max_chunk_size`, and the range [lo, hi] of limits under which every comparison made with
    it so far would have answered alike: a walk that asked only these gets the same groups."""

    def __init__(self, value: int) -> None:
        self.value, self.lo, self.hi = value, 0, NO_LIMIT

    def fits(self, size: int) -> bool:
        """size <= the limit (`2 * size` for size <= limit // 2, the same for whole numbers)."""
        if size <= self.value:
            self.lo = max(self.lo, size)
            return True
        self.hi = min(self.hi, size - 1)
        return False

    def pin(self) -> None:
        """Only this limit gives what follows (the pieces of an element cut within it)."""
        self.lo = self.hi = self.value


@dataclass(frozen=True)
class KeptChunks:
    """A stretch's chunks at `limit`, which every limit in [lo, hi] gives alike but for the
    sentences naming it (`whys`: each chunk's, None for a piece of a cut element)."""

    limit: int
    lo: int
    hi: int
    chunks: tuple[Chunk, ...]
    whys: tuple[Why | None, ...]

    def holds(self, limit: int) -> bool:
        return self.lo <= limit <= self.hi

    def at(self, first: int, limit: int) -> list[Chunk]:
        """The chunks numbered from `first`, their sentences naming `limit` (the same objects where
        neither changes)."""
        out = []
        for n, (c, why) in enumerate(zip(self.chunks, self.whys), start=first):
            if limit != self.limit and why is not None and len(why.parts) > 1:
                c = replace(c, boundary=why.at(limit))
            out.append(c if c.index == n else replace(c, index=n, chunk_id=f"chunk_{n}"))
        return out
