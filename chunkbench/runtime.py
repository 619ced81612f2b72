"""How the work runs, for every floor: the cyclic garbage collector paused over a hot loop."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


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
