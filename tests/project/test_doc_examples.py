"""Every Python block in README.md and docs/*.md runs as written (Sybil), in a scratch folder that
holds the sample PDFs and tests/data, as a newcomer's clone does: no undefined names, no ../shared,
no file that is not there. A block that cannot run as it stands says why in a skip comment above it:
`<!-- skip: next "synopsis: ..." -->` (a shape with placeholders, a server that blocks) or
`<!-- skip: next "slow: ..." -->` (minutes of work another command runs: make demo).

Every `chunkbench ...` line of the shell blocks is parsed by the CLI's own parser (its subcommand,
options and value types exist), and the quick ones whose input is in the clone run as written;
synopsis lines (with `[...]`, `a|b` or `...`) are shapes and are left out."""

from __future__ import annotations

import os
import signal
import unittest

import pytest
from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

from tests.support.paths import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
WITH_PYTHON = [p for p in PAGES if "```python" in p.read_text("utf-8")]
#: the reasons a block may give for not running
REASONS = ("synopsis:", "slow:")
#: a block that takes longer is stuck (a server, a prompt): fail rather than hang the suite
BLOCK_SECONDS = 120


@pytest.fixture
def newcomer(tmp_path, monkeypatch):
    """A scratch folder laid out like the repository's top (sample_pdfs, tests/data, notebooks),
    with its own workspace, as the working directory."""
    for name in ("sample_pdfs", "tests", "notebooks"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CHUNKBENCH_WORKSPACE", str(tmp_path / "workspace.db"))
    return tmp_path


def _too_long(*_args):
    raise TimeoutError(f"the block ran past {BLOCK_SECONDS} s")


@pytest.mark.xdist_group("doc-examples")
@pytest.mark.parametrize("page", WITH_PYTHON, ids=lambda p: p.name)
def test_every_python_block_runs_as_written(page, newcomer):
    document = Sybil(parsers=[PythonCodeBlockParser(), SkipParser()]).parse(page)
    ran, skipped = 0, []
    previous = signal.signal(signal.SIGALRM, _too_long)
    try:
        for example in document:
            signal.alarm(BLOCK_SECONDS)
            try:
                example.evaluate()
                ran += not isinstance(example.parsed, tuple)  # a code block, not a skip directive
            except unittest.SkipTest as why:
                skipped.append(f"line {example.line}: {why}")
            except Exception as exc:
                raise AssertionError(f"{page.name}, the block at line {example.line}: {type(exc).__name__}: {exc}") \
                    from exc
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    unexplained = [s for s in skipped if not s.split(": ", 1)[1].startswith(REASONS)]
    assert unexplained == [], f"{page.name}: a skipped block must say synopsis: or slow: and why"
    assert ran + len(skipped) == sum(1 for e in document if not isinstance(e.parsed, tuple))


# --- the command lines of the shell blocks ------------------------------------------------------

#: what marks a line as a synopsis (a shape), not a command: optional parts, choices, repetition
SYNOPSIS = ("[", "|", "...")
#: commands run as written (in the newcomer's folder) when every file they name is there: the
#: quick ones; sweeps, evaluations, corpus parses and the review server are only parsed
RUN = {"chunk", "stats", "render", "diff", "info", "strategies", "edit", "cite"}


def command_lines(page) -> list[tuple[int, str]]:
    """(line, command) of every `chunkbench ...` line in the page's shell blocks (fences with no
    language, bash, sh, shell or console), continuation lines joined and a trailing comment dropped;
    synopsis lines left out."""
    import re
    import shlex

    out, fence, pending, start = [], None, "", 0
    for number, line in enumerate(page.read_text("utf-8").splitlines(), 1):
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
            continue
        if fence not in ("", "bash", "sh", "shell", "console"):
            continue
        if not pending:
            start = number
        pending += line.rstrip().removesuffix("\\") + " "
        if line.rstrip().endswith("\\"):
            continue
        command, pending = re.split(r"\s{2,}\(", pending.strip())[0], ""  # a note in parentheses after it
        if command.startswith("chunkbench ") and not any(mark in command.split(" #")[0] for mark in SYNOPSIS):
            out.append((start, " ".join(shlex.quote(a) for a in shlex.split(command, comments=True))))
    return out


def _argv(command: str) -> list[str]:
    import shlex

    return shlex.split(command)[1:]


COMMANDS = [(page, line, command) for page in PAGES for line, command in command_lines(page)]


def test_the_shell_blocks_hold_commands():
    """The extraction finds the commands newcomers copy (it would pass vacuously otherwise)."""
    assert len(COMMANDS) > 40 and {_argv(c)[0] for _, _, c in COMMANDS} >= {"chunk", "render", "diff", "sweep", "evaluate"}
    runnable = [c for _, _, c in COMMANDS if _argv(c)[0] in RUN and (_argv(c)[0] == "strategies" or (
        len(_argv(c)) > 1 and (ROOT / _argv(c)[1]).exists()))]
    assert len(runnable) >= 5, runnable


@pytest.mark.parametrize("page", [p for p in PAGES if any(p == q for q, _, _ in COMMANDS)], ids=lambda p: p.name)
def test_every_command_line_is_one_the_cli_takes(page, newcomer, capsys):
    """Each command line of the page parses (its subcommand and options exist, values of the right
    type); the quick ones whose files are all there run as written and exit 0."""
    import glob

    from chunkbench.ui.cli import build_parser, main

    parser = build_parser()
    for line, command in ((n, c) for p, n, c in COMMANDS if p == page):
        argv = [a for arg in _argv(command) for a in (sorted(glob.glob(arg)) or [arg] if "*" in arg else [arg])]
        try:
            parser.parse_args(argv)
        except SystemExit:
            raise AssertionError(f"{page.name}, line {line}: the CLI refuses {command!r}: "
                                 f"{capsys.readouterr().err.strip()}") from None
        runs = argv[0] in RUN and (argv[0] == "strategies" or (len(argv) > 1 and os.path.exists(argv[1])))
        if runs:
            code = main(argv)
            assert code == 0, f"{page.name}, line {line}: {command!r} exited {code}: {capsys.readouterr().err.strip()}"
