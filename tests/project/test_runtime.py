"""chunkbench.runtime: what is kept of an object while it lives."""

from __future__ import annotations

import gc
import threading
import weakref

from chunkbench.runtime import KeptWhileAlive


class _Thing:
    """Stands for a Document: compared by identity here, never by value."""


def test_a_value_is_made_once_per_object_and_key_and_found_by_identity():
    kept: KeptWhileAlive[list] = KeptWhileAlive(size=4)
    a, b = _Thing(), _Thing()
    made = []
    first = kept.get(a, "k", lambda: made.append(1) or ["a"])
    assert kept.get(a, "k", lambda: made.append(1) or ["again"]) is first and len(made) == 1
    assert kept.get(b, "k", lambda: ["b"]) == ["b"] and kept.get(a, "other", lambda: ["a2"]) == ["a2"]
    assert len(kept) == 3


def test_the_least_recently_asked_is_dropped_beyond_the_size():
    kept: KeptWhileAlive[int] = KeptWhileAlive(size=2)
    things = [_Thing() for _ in range(3)]
    kept.get(things[0], None, lambda: 0)
    kept.get(things[1], None, lambda: 1)
    kept.get(things[0], None, lambda: -1)  # asked again: now the most recent
    kept.get(things[2], None, lambda: 2)
    assert len(kept) == 2
    assert kept.get(things[0], None, lambda: -1) == 0 and kept.get(things[1], None, lambda: 11) == 11


def test_a_kept_value_does_not_keep_its_object_alive_and_goes_with_it():
    kept: KeptWhileAlive[str] = KeptWhileAlive(size=4)
    thing = _Thing()
    kept.get(thing, "k", lambda: "v")
    ref = weakref.ref(thing)
    del thing
    gc.collect()
    assert ref() is None and len(kept) == 0
    other = _Thing()  # a new object may get the dead one's id: it never gets its value
    assert kept.get(other, "k", lambda: "new") == "new"


def test_threads_share_it():
    kept: KeptWhileAlive[int] = KeptWhileAlive(size=8)
    things = [_Thing() for _ in range(16)]
    errors = []

    def work(k: int) -> None:
        try:
            for i in range(400):
                t = things[(i * 7 + k) % 16]
                assert kept.get(t, "k", lambda t=t: id(t)) == id(t)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(kept) <= 8
