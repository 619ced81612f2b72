"""Progress where there is no terminal: periodic lines on stderr (a log, CI, a pipe)."""

from __future__ import annotations

import os
import subprocess
import sys

from chunkbench.io.progress import _Lines, in_notebook, progress
from tests.support.paths import SAMPLE_PDFS


def test_lines_every_period(capsys):
    with _Lines(10, "parsing x.pdf", "page", period=0.0) as bar:
        for _ in range(10):
            bar.update(1)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("chunkbench: parsing x.pdf: 1/10 pages (10%), ")
    assert lines[-1].startswith("chunkbench: parsing x.pdf: 10/10 pages (100%), ")


def test_disabled_progress_prints_nothing(capsys):
    with progress(10, "sweep", "point", enabled=False) as bar:
        bar.update(10)
    assert capsys.readouterr().err == "" and not in_notebook()


def test_a_parse_without_a_terminal_reports_progress(tmp_path):
    env = {**os.environ, "CHUNKBENCH_PROGRESS_SECONDS": "0", "CHUNKBENCH_CACHE_DIR": os.fspath(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "chunkbench", "info", SAMPLE_PDFS / "financial_annual_report.pdf"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0
    lines = [line for line in done.stderr.splitlines() if line.startswith("chunkbench: parsing ")]
    assert lines and lines[-1].startswith("chunkbench: parsing financial_annual_report.pdf: 7/7 pages (100%)")


def test_the_terminal_bar_redraws_with_carriage_returns_under_the_cli_escaping(monkeypatch):
    """The CLI escapes CR in what it prints; tqdm's bar writes beneath that (its CR must stay), and
    the file name in it is escaped on its own."""
    import io

    from chunkbench.ui.cli import terminal_streams

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with terminal_streams(), progress(3, "parsing a\x1bb.pdf", "page") as bar:
        bar.update(3)
    out = term.getvalue()
    assert "\r" in out and "\\x0d" not in out
    assert "\x1b" not in out and "a\\x1bb.pdf" in out
