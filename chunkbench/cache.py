"""On-disk parse cache keyed by (doc_id, backend, backend version, options).

Notebooks, sweeps and the explorer never parse the same PDF twice. The location is
`$CHUNKBENCH_CACHE_DIR`, else `~/.cache/chunkbench`; `load(..., cache=False)` bypasses it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Mapping

from .atomic import write_text
from .model import Document


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
    if file.exists():
        try:
            doc = Document.from_dict(json.loads(file.read_text("utf-8")))
        except (ValueError, KeyError, TypeError):
            doc = None  # a damaged cache entry is simply re-parsed
        if doc is not None:
            return dataclasses.replace(doc, source=Path(path).name, pdf_path=_pdf_path_now(doc, path))
    doc = parse()
    try:
        write_text(file, json.dumps(doc.to_dict(), ensure_ascii=False, separators=(",", ":")))
    except OSError:
        pass  # an unwritable cache must not fail the parse
    return doc


def _pdf_path_now(doc: Document, path: str | os.PathLike) -> str | None:
    """The PDF may have moved since it was cached: point at where it is now."""
    if doc.pdf_path is None:
        return None
    return os.fspath(path) if str(path).lower().endswith(".pdf") else doc.pdf_path
