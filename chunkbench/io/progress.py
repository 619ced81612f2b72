"""Progress for long work wherever it runs: a tqdm bar on a terminal, a tqdm widget in a Jupyter
kernel, and elsewhere (a log file, CI, a pipe) one line every PERIOD_S seconds on stderr.

Without this a 1,000-page parse in a notebook ran ten minutes with no sign of life: tqdm's text bar
was shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from typing import Any

from chunkbench.runtime import env_number
from chunkbench.text.terminal import terminal_safe

#: seconds between two progress lines when there is neither a terminal nor a notebook
#: ($CHUNKBENCH_PROGRESS_SECONDS changes it)
PERIOD_S = 10.0


def in_notebook() -> bool:
    """True inside a Jupyter kernel (ipykernel running a shell), where tqdm.auto draws a widget."""
    shell = sys.modules.get("IPython")
    get = getattr(shell, "get_ipython", None)
    ip = get() if get is not None else None
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def progress(total: int, desc: str, unit: str, *, enabled: bool | None = None, leave: bool = False) -> Any:
    """A context manager with `update(n)`: the bar, the widget or the periodic lines (see above).

    `enabled` None: shown as above; True: a tqdm bar on stderr even without a terminal (asked for);
    False: nothing (tests, small jobs, callers that draw their own)."""
    if enabled is False:
        return _Lines(total, desc, unit, period=None)
    if in_notebook():
        from tqdm.auto import tqdm as auto_tqdm

        return auto_tqdm(total=total, desc=terminal_safe(desc), unit=unit, leave=leave)
    if enabled is True or sys.stderr.isatty():
        from tqdm import tqdm

        # the bar redraws itself with CR, which the CLI's escaping stream would print as text: it
        # writes to the stream underneath, and its one user-made part (a file name) is escaped here
        stream = getattr(sys.stderr, "unescaped", sys.stderr)
        return tqdm(total=total, desc=terminal_safe(desc), unit=unit, leave=leave, file=stream)
    return _Lines(total, desc, unit, period=_period())


#: texts from which embedding them shows progress: two batches of long texts take seconds on a CPU
#: (128 index texts of 170 tokens: 3.4 s with the bundled MiniLM on this machine)
EMBED_PROGRESS_MIN = 128


def embedding_progress(total: int, what: str = "texts") -> Any:
    """`progress` for embedding `total` texts (the bundled MiniLM or any model a retriever is built
    with): shown from EMBED_PROGRESS_MIN texts, nothing for fewer."""
    return progress(total, f"embedding {total} {what}", "text",
                    enabled=None if total >= EMBED_PROGRESS_MIN else False)


def encode_with_progress(model: Any, texts: Any, what: str = "texts") -> Any:
    """`model.encode(texts)` (chunkbench.text.minilm.MiniLM) with `embedding_progress` updated batch by batch."""
    with embedding_progress(len(texts), what) as bar:
        return model.encode(texts, on_batch=bar.update)


def _period() -> float:
    return env_number("CHUNKBENCH_PROGRESS_SECONDS", PERIOD_S, unit=" (seconds)")


class _Lines:
    """Progress as plain lines: `chunkbench: parsing x.pdf: 120/1000 pages (12%), 35 s`."""

    def __init__(self, total: int, desc: str, unit: str, *, period: float | None):
        self.total, self.desc, self.unit, self.period = total, desc, unit, period
        self.done = self.shown = 0
        self.started = self.last = time.monotonic()

    def __enter__(self) -> _Lines:
        return self

    def __exit__(self, *exc) -> None:
        if self.period is not None and time.monotonic() - self.started >= self.period and self.done != self.shown:
            self._line()  # the last count, unless its line is the last one shown

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.period is not None and now - self.last >= self.period:
            self.last = now
            self._line()

    def _line(self) -> None:
        self.shown = self.done
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        elapsed = time.monotonic() - self.started
        print(f"chunkbench: {self.desc}: {self.done}/{self.total} {self.unit}s{share}, {elapsed:.0f} s",
              file=sys.stderr, flush=True)
