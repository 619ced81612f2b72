"""Input files checked before they are read: a regular file within a size bound, or one error
naming it (the counterpart of io.outputs for what chunkbench reads)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from chunkbench.errors import InputError
from chunkbench.runtime import env_number

#: the largest input file read (bytes): a bound so that a mistaken path (an image of a disk, a log
#: growing without end) fails at once; CHUNKBENCH_MAX_INPUT_BYTES raises it
MAX_INPUT_BYTES = 2 * 1024**3
MAX_INPUT_ENV = "CHUNKBENCH_MAX_INPUT_BYTES"


def check_input_file(path: str | os.PathLike) -> Path:
    """`path` if it is a regular file (symlinks followed) within the input size bound, or a folder;
    an InputError naming it otherwise: a device (/dev/zero), a pipe or a socket would be read
    without end. A path that does not exist is returned as is, for its read to say so; one that
    cannot be looked at (a name too long, a loop of links) is an InputError."""
    file = Path(path)
    try:
        st = file.stat()
    except (FileNotFoundError, NotADirectoryError):
        return file  # missing: the read that follows says so in its caller's words
    except OSError as exc:  # a name too long, a loop of links, a folder not to be entered: an input error, not "cannot write"
        raise InputError(f"cannot read: {exc.strerror or exc}", file) from None
    if stat.S_ISDIR(st.st_mode):
        return file  # folders are inputs of their own (MinerU output, a corpus): their files are checked
    if not stat.S_ISREG(st.st_mode):
        raise InputError("not a regular file (a device, a pipe or a socket): chunkbench reads files", file)
    limit = env_number(MAX_INPUT_ENV, MAX_INPUT_BYTES, whole=True, minimum=1, unit=" (bytes)")
    if st.st_size > limit:
        raise InputError(f"{st.st_size:,} bytes, above the input bound of {limit:,} "
                         f"(set {MAX_INPUT_ENV} to read larger files)", file)
    return file


