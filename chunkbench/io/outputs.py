"""One output-path policy for every command, checked before anything is parsed or written.

* an output is never one of the inputs (`chunk X.pdf -o X.pdf` is refused, whatever the spelling);
* two outputs of one command never share a path (`-o X --debug-md X`);
* a symlink is written through: the file it points to is replaced, the link stays;
* devices, FIFOs, sockets and paths under /dev, /proc, /sys are refused (`-o /dev/stdout`), and `-o -`;
* a folder where a file is expected, or a file where a folder is expected, is refused;
* OS errors while writing (read-only folder, full disk) become a UsageError naming the path (exit 2);
* a folder output that holds an earlier run of the same command is said, in one warning line.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from chunkbench.errors import UsageError

_SYSTEM_TREES = ("/dev", "/proc", "/sys")


def check_outputs(
    files: Mapping[str, str | os.PathLike | None],
    inputs: Iterable[str | os.PathLike | None] = (),
    folders: Mapping[str, str | os.PathLike | None] | None = None,
) -> dict[str, Path]:
    """The real paths to write, by option name (`{"--output": "x.json"}`), after the policy above.

    `files` are file outputs, `folders` folder outputs; None values (options not given) are skipped."""
    chosen: dict[str, Path] = {}
    for option, raw in files.items():
        if raw is not None:
            chosen[option] = _file_target(option, Path(raw))
    for option, raw in (folders or {}).items():
        if raw is not None:
            chosen[option] = _folder_target(option, Path(raw))
    input_files = [Path(p) for p in inputs if p is not None and _is_file(Path(p))]
    for option, target in chosen.items():
        for source in input_files:
            if _same(target, source):
                raise UsageError(f"{option} is the input file {source}: refusing to overwrite an input", target)
    seen: dict[Path, str] = {}
    for option, target in chosen.items():
        key = Path(os.path.realpath(target))
        if key in seen:
            raise UsageError(f"{seen[key]} and {option} name the same path: give each output its own", target)
        seen[key] = option
    return chosen


def say_if_replacing(folder: str | os.PathLike, marker: str, run: str, replaced: str, stays: str = "",
                     detail: str = "") -> bool:
    """One warning line on stderr when `folder` holds an earlier `run` (its `marker` file): how
    big (`detail`) and when, what this run replaces and what of it stays. Whether there was one."""
    import datetime as dt
    import sys

    from chunkbench.text.terminal import terminal_safe

    earlier = Path(folder) / marker
    if not earlier.is_file():
        return False
    when = dt.datetime.fromtimestamp(earlier.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    print(f"chunkbench: warning: {terminal_safe(str(folder))} holds an earlier {run} ({detail + ', ' if detail else ''}"
          f"{when}): {replaced} replaced{'; ' + stays if stays else ''} (use another -o to keep both)", file=sys.stderr)
    return True


def _is_file(path: Path) -> bool:
    """Path.is_file, False where the path cannot be looked at (a name too long raises OSError): the
    input's own read says what is wrong with it, as an input."""
    try:
        return path.is_file()
    except OSError:
        return False


def _file_target(option: str, path: Path) -> Path:
    target = _through_links(option, path)
    if target.is_dir():
        raise UsageError(f"{option} is a folder, expected a file name", path)
    if target.exists() and not target.is_file():
        raise UsageError(f"{option} is not a regular file (a device, FIFO or socket): refusing to write there", path)
    return target


def _folder_target(option: str, path: Path) -> Path:
    target = _through_links(option, path)
    if target.exists() and not target.is_dir():
        raise UsageError(f"{option} is a file, expected a folder", path)
    return target


def _through_links(option: str, path: Path) -> Path:
    """The path a symlink leads to (the link is written through, not replaced); system trees refused."""
    if os.fspath(path) == "-":  # read by many tools as stdout: here it would be a file named "-"
        raise UsageError(f"{option} - would write a file named '-': chunkbench writes files (atomically, "
                         "which a pipe cannot be): give a file name")
    try:
        target = Path(os.path.realpath(path, strict=True)) if path.is_symlink() else path
    except OSError as exc:  # a loop, or a dangling link: write where it points, if that can be known
        if "loop" in str(exc).lower() or getattr(exc, "errno", None) == 40:
            raise UsageError(f"{option} is a symlink loop", path) from None
        target = Path(os.path.realpath(path))
    absolute = os.path.abspath(target)
    if any(absolute == tree or absolute.startswith(tree + os.sep) for tree in _SYSTEM_TREES):
        raise UsageError(f"{option} is a device or system path ({absolute}): write to a regular file", path)
    return target


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def write_output(path: str | os.PathLike, write: Callable[[str], Any]) -> None:
    """Run `write(path)`; an OS error while writing is a UsageError naming the path (exit 2)."""
    try:
        write(os.fspath(path))
    except OSError as exc:
        raise UsageError(f"cannot write: {exc.strerror or exc}", path) from None
