"""Every Python block in README.md and docs/*.md runs as written (Sybil), in a scratch folder that
holds the sample PDFs and tests/data, as a newcomer's clone does: no undefined names, no ../shared,
no file that is not there. A block that cannot run as it stands says why in a skip comment above it:
`<!-- skip: next "synopsis: ..." -->` (a shape with placeholders, a server that blocks) or
`<!-- skip: next "slow: ..." -->` (minutes of work another command runs: make demo)."""

from __future__ import annotations

import signal
import unittest

import pytest
from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

from tests.conftest import ROOT

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
