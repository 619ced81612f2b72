"""How the work runs, for every floor: the cyclic garbage collector paused over a hot loop, what
is kept of an object while it lives, and the numbers read from environment variables."""

from __future__ import annotations

import contextlib
import gc
import math
import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, TypeVar

from chunkbench.errors import UsageError

V = TypeVar("V")


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off for the block. Chunking and locating allocate many small
    objects and no reference cycles; the collector's passes over them (each longer as more objects
    live) made the work grow faster than the input (16x input, up to 21x time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class KeptWhileAlive(Generic[V]):
    """Values made from an object and a key, kept for the `size` most recently asked (object, key)
    pairs and dropped when the object dies: found by the object's identity, for objects (a Document)
    that are costly to hash or compare. Safe to share between threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[int, Hashable], tuple[weakref.ref, V]] = OrderedDict()
        self._lock = threading.RLock()  # re-entrant: a dying object's callback may run inside a locked block

    def get(self, obj: Any, key: Hashable, make: Callable[[], V]) -> V:
        """The value kept for (obj, key), or `make()`'s, kept from now on (the oldest dropped)."""
        slot = (id(obj), key)
        with self._lock:
            kept = self._kept.get(slot)
            if kept is not None and kept[0]() is obj:
                self._kept.move_to_end(slot)
                return kept[1]
        value = make()

        def gone(ref: weakref.ref, slot: tuple = slot) -> None:
            with self._lock:
                if self._kept.get(slot, (None,))[0] is ref:
                    del self._kept[slot]

        with self._lock:
            self._kept[slot] = (weakref.ref(obj, gone), value)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return value

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


def env_number(name: str, default: float, *, whole: bool = False, minimum: float = 0, unit: str = "") -> float:
    """$`name` as a finite number >= `minimum` (a whole one if `whole`: "1e3" and "1_000" read as 1000),
    or `default` when unset or blank; anything else is a UsageError naming the variable and the value,
    so a typo in the environment is one line and exit 2, not a traceback or a bound that refuses all."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw.replace("_", "")) if len(raw) <= 100 else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < minimum or (whole and not value.is_integer()):
        kind = "a whole number" if whole else "a number"
        raise UsageError(f"the environment variable {name} must be {kind} >= {minimum:g}{unit}, got {raw[:40]!r}")
    return int(value) if whole else value
