"""Atomic file writes: write to a temp file in the target folder, fsync, then rename.

Killing the process at any moment leaves either the old file or the new one, never a partial one.
The temp file (`.{name}.{pid}.{random}.tmp`, the name shortened when a long one would make it too
long for the file system) of a process killed before its rename is swept by the next write of the
same file, once that pid no longer runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temp path beside `path`; on success rename it over `path`, on error delete it."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale_temps(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{_temp_stem(target)}.{os.getpid()}.", suffix=".tmp", dir=target.parent)
    os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600 files; outputs get the usual mode
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        with open(tmp_path, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp_path, target)
    except OSError as exc:  # a full disk, a quota: said of the file being written, not of its temp file
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(target)) from exc
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def sweep_stale_temps(target: Path) -> list[Path]:
    """Delete the temp files of `target` left by processes that no longer run; returns them."""
    removed: list[Path] = []
    prefix = f".{_temp_stem(target)}."
    try:
        candidates = [p for p in target.parent.iterdir() if p.name.startswith(prefix) and p.name.endswith(".tmp")]
    except OSError:
        return removed
    for temp in candidates:
        pid = temp.name[len(prefix):].split(".", 1)[0]
        if pid.isdecimal() and not _running(int(pid)):
            with contextlib.suppress(OSError):
                temp.unlink()
                removed.append(temp)
    return removed


#: bytes of a file name most file systems allow (NAME_MAX), and what the temp name adds to its stem
_NAME_MAX = 255
_TEMP_EXTRA = 40


def _temp_stem(target: Path) -> str:
    """The part of `target`'s temp name that names it: its name, or for a name too long to carry
    the temp name's additions (a legal 240-byte `-o` was refused), its start and a hash of it."""
    name = target.name
    encoded = os.fsencode(name)
    if len(encoded) <= _NAME_MAX - _TEMP_EXTRA:
        return name
    start = encoded[:_NAME_MAX - _TEMP_EXTRA - 17].decode("utf-8", "ignore")
    return f"{start}~{hashlib.sha256(encoded).hexdigest()[:16]}"


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return pid < 2**22  # another user's live process (or an absurd number: not a pid)
    return True


def _umask() -> int:
    """The process umask (reading it means setting it, so it is set straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Atomically write `data` to `path`."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Atomically write UTF-8 `text` to `path`."""
    return write_bytes(path, text.encode("utf-8"))


def dumps_json(obj: Any) -> str:
    """Canonical JSON used for every file chunkbench writes: UTF-8, 2-space indent, stable."""
    return json.dumps(obj, ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Atomically write `obj` as canonical JSON (the text of `dumps_json`).

    Streamed piece by piece: with an indent, json.dumps builds the whole text from millions of
    small strings, which took over a GB for the elements or chunks of a 50 MB content_list."""
    encoder = json.JSONEncoder(ensure_ascii=False, indent=2, allow_nan=False)
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        for piece in encoder.iterencode(obj):
            fh.write(piece)
        fh.write("\n")
    return Path(path)
