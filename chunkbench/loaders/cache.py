"""On-disk parse cache keyed by (doc_id, backend, backend version, options).

Notebooks, sweeps and the explorer never parse the same PDF twice. The location is
`$CHUNKBENCH_CACHE_DIR`, else `~/.cache/chunkbench`; `load(..., cache=False)` bypasses it.

Something outside the file that only some parses read (OCR, for the pages it would read: a
`Dependence`) is not part of the plain key: a parse that read it is stored under the key with
its identity on this machine, behind a small note under the plain key, so installing or upgrading
it misses only those entries. An entry names its document and parser; one that does not match
the key it was read under is dropped and the document parsed again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError
from chunkbench.io.atomic import write_text
from chunkbench.io.inputs import check_input_file
from chunkbench.types.document import Document

log = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class Dependence:
    """Something outside the file that some parses read and others do not (OCR reads only the
    pages without a usable text layer): `used_by(doc)` says whether a parse read it, `identity()`
    names it on this machine now (None when absent), `name` labels its note in the cache."""

    name: str
    used_by: Callable[[Document], bool]
    identity: Callable[[], str | None]


@dataclass(frozen=True)
class ParseKey:
    """What names one parse: the file's hash, the parser, its versions and the options that shape it."""

    doc_id: str
    backend: str
    version: str
    options: Mapping[str, Any]
    dependence: Dependence | None = None

    def plain_file(self) -> Path:
        return cache_dir() / f"{cache_key(self.doc_id, self.backend, self.version, self.options)}.json"

    def note_file(self) -> Path | None:
        """The note that says this document's parse read the dependence (None without one)."""
        if self.dependence is None:
            return None
        return self.plain_file().with_suffix(f".{self.dependence.name}.json")

    def dependent_file(self) -> Path:
        """Where a parse that read the dependence is kept: its identity now is part of the key."""
        assert self.dependence is not None
        options = {**self.options, self.dependence.name: self.dependence.identity()}
        return cache_dir() / f"{cache_key(self.doc_id, self.backend, self.version, options)}.json"

    def entry_file(self) -> Path:
        """The file that holds (or would hold) this parse on this machine now."""
        note = self.note_file()
        return self.dependent_file() if note is not None and note.exists() else self.plain_file()

    def is_cached(self) -> bool:
        return self.entry_file().is_file()


def cached_parse(
    path: str | os.PathLike,
    doc_id: str,
    backend: str,
    version: str,
    options: Mapping[str, Any],
    parse: Callable[[], Document],
    *,
    use_cache: bool = True,
    dependence: Dependence | None = None,
) -> Document:
    """Return the cached Document for this parse, or run `parse()` and store its result."""
    if not use_cache:
        return parse()
    key = ParseKey(doc_id, backend, version, options, dependence)
    doc = _read_entry(key, path)
    if doc is not None:
        return doc
    # Processes asking for the same parse at once (test workers, sweep workers, two notebooks)
    # wait for the first one instead of parsing the same PDF side by side.
    with _parse_lock(key.plain_file()):
        doc = _read_entry(key, path, quiet=True)  # written meanwhile by another process, or still bad
        if doc is not None:
            return doc
        doc = parse()
        store(key, doc)
    return doc


def store(key: ParseKey, doc: Document) -> None:
    """Keep `doc` as the parse `key` names: under the key with the dependence's identity when the
    parse read it (and a note under the plain key saying so), else under the plain key."""
    note = key.note_file()
    if note is not None and key.dependence is not None and key.dependence.used_by(doc):
        _write_entry(key.dependent_file(), doc)
        _write_entry(note, None)
        return
    _write_entry(key.plain_file(), doc)
    if note is not None:
        note.unlink(missing_ok=True)


def _read_entry(key: ParseKey, path: str | os.PathLike, quiet: bool = False) -> Document | None:
    """The cached Document `key` names, pointed at where its source is now; None if absent,
    damaged, or the entry is another document's or parser's (then it is parsed again)."""
    file = key.entry_file()
    if not file.exists():
        return None
    from .bounds import document_problem

    try:
        doc = Document.from_dict(json.loads(read_cache_file(file)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError, InputError) as exc:
        if not quiet:
            _dropped(file, path, exc.message if isinstance(exc, InputError) else f"unreadable ({type(exc).__name__})")
        return None
    if (doc.doc_id, doc.parser.name) != (key.doc_id, key.backend):
        if not quiet:
            _dropped(file, path, "it holds another document's parse")
        return None
    problem = document_problem(doc)
    if problem is not None:
        if not quiet:
            _dropped(file, path, problem)
        return None
    return dataclasses.replace(doc, source=Path(path).name, pdf_path=_pdf_path_now(doc, path))


def read_cache_file(file: Path) -> str:
    """The text of a file in the cache folder, read as an input is (io.inputs.check_input_file): a
    device, a pipe or a socket in its place (a link to /dev/zero was read without end) or a file
    beyond the input bound is an InputError, for the caller to drop the entry and make it again."""
    return check_input_file(file).read_text("utf-8")


def _dropped(file: Path, path: str | os.PathLike, why: str) -> None:
    """Say (once per entry: it is parsed again and overwritten) that a cache entry was not used."""
    log.warning("%s: the parse cache entry %s was not used (%s); parsing again", Path(path).name, file.name, why)


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


def _write_entry(file: Path, doc: Document | None) -> None:
    """Store a parse result (None: a note) atomically; an unwritable cache is not an error."""
    body = {"note": "this parse is kept under a key with its dependence's identity"} if doc is None else doc.to_dict()
    try:
        write_text(file, json.dumps(body, ensure_ascii=False, separators=(",", ":")))
    except OSError:
        pass  # an unwritable cache must not fail the parse


def _pdf_path_now(doc: Document, path: str | os.PathLike) -> str | None:
    """The PDF may have moved since it was cached: point at where it is now."""
    if doc.pdf_path is None:
        return None
    return os.fspath(path) if str(path).lower().endswith(".pdf") else doc.pdf_path
