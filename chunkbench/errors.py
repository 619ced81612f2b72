"""Exception types of the public API; each maps to one CLI exit code (see docs/contracts.md). And the
one warning: `EditWarning`."""

from __future__ import annotations

import os

from chunkbench.text.terminal import terminal_safe


class ChunkbenchError(Exception):
    """Base of every error chunkbench raises on purpose; `exit_code` is what the CLI returns."""

    exit_code = 1

    def __init__(self, message: str, path: str | os.PathLike | None = None):
        self.path = os.fspath(path) if path is not None else None
        self.message = message
        # the path is shown escaped: a newline or ESC in a file name must not forge or recolour a line
        super().__init__(f"{terminal_safe(self.path)}: {message}" if self.path else message)


class UsageError(ChunkbenchError, ValueError):
    """Bad command-line usage or parameter values (exit code 2)."""

    exit_code = 2


class ParamError(UsageError):
    """A strategy parameter name or value is not allowed; the message lists what is."""


class InputError(ChunkbenchError):
    """The input file is missing, unreadable, malformed or unsupported (exit code 3)."""

    exit_code = 3


class ExternalToolError(ChunkbenchError):
    """An external tool (MinerU) is missing, failed or timed out (exit code 4)."""

    exit_code = 4

    def __init__(self, message: str, path=None, stderr_tail: str = ""):
        self.stderr_tail = stderr_tail
        super().__init__(message, path)


class EmptyResultError(ChunkbenchError):
    """No chunks, and the caller asked for that to fail (`--fail-on-empty`, exit code 5)."""

    exit_code = 5


class EditWarning(UserWarning):
    """A reviewer's edit that `chunk(..., edits="apply")` could not apply (its text is gone, these
    parameters make no boundary there, or reviewers disagree about the place)."""


class RenderWarning(UserWarning):
    """A page drawn other than asked (a page too large for the dpi is drawn at a lower one); the CLI
    prints it as one `chunkbench: warning:` line."""
