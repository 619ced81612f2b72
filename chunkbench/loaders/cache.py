"""On-disk parse cache keyed by (doc_id, backend, backend version, options).

Notebooks, sweeps and the explorer never parse the same PDF twice. The location is
`$CHUNKBENCH_CACHE_DIR`, else `~/.cache/chunkbench`; `load(..., cache=False)` bypasses it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from chunkbench.io.atomic import write_text
from chunkbench.types.document import Document


def cache_dir() -> Path:
    """The cache folder currently in force."""
    env = os.environ.get("CHUNKBENCH_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "chunkbench"


def cache_key(doc_id: str, backend: str, version: str, options: Mapping[str, Any]) -> str:
    """Hex key of one parse: any change of backend, its version or an option misses the cache."""
    canon = json.dumps(
        {"doc_id": doc_id, "backend": backend, "version": version, "options": dict(options)},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(canon.encode()).hexdigest()


def cached_parse(
    path: str | os.PathLike,
    doc_id: str,
    backend: str,
    version: str,
    options: Mapping[str, Any],
    parse: Callable[[], Document],
    *,
    use_cache: bool = True,
) -> Document:
    """Return the cached Document for this parse, or run `parse()` and store its result."""
    if not use_cache:
        return parse()
    file = cache_dir() / f"{cache_key(doc_id, backend, version, options)}.json"
    doc = _read_entry(file, path)
    if doc is not None:
        return doc
    # Processes asking for the same parse at once (test workers, sweep workers, two notebooks)
    # wait for the first one instead of parsing the same PDF side by side.
    with _parse_lock(file):
        doc = _read_entry(file, path)
        if doc is not None:
            return doc
        doc = parse()
        _write_entry(file, doc)
    return doc


def _read_entry(file: Path, path: str | os.PathLike) -> Document | None:
    """The cached Document in `file`, pointed at where its source is now; None if absent or damaged."""
    if not file.exists():
        return None
    try:
        doc = Document.from_dict(json.loads(file.read_text("utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # a damaged cache entry is simply re-parsed
    return dataclasses.replace(doc, source=Path(path).name, pdf_path=_pdf_path_now(doc, path))


@contextlib.contextmanager
def _parse_lock(file: Path) -> Iterator[None]:
    """An exclusive lock beside a cache entry while it is being made (a no-op where locks fail)."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        fh = open(file.with_suffix(".lock"), "a+b")  # noqa: SIM115 - closed by the `with fh` below
    except OSError:
        yield
        return
    with fh:
        try:
            import fcntl

            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        except (ImportError, OSError):
            pass
        yield


def _write_entry(file: Path, doc: Document) -> None:
    """Store a parse result atomically; an unwritable cache is not an error."""
    try:
        write_text(file, json.dumps(doc.to_dict(), ensure_ascii=False, separators=(",", ":")))
    except OSError:
        pass  # an unwritable cache must not fail the parse


def _pdf_path_now(doc: Document, path: str | os.PathLike) -> str | None:
    """The PDF may have moved since it was cached: point at where it is now."""
    if doc.pdf_path is None:
        return None
    return os.fspath(path) if str(path).lower().endswith(".pdf") else doc.pdf_path
