"""`make test` runs the suite in two workers with `--dist loadgroup`: MinerU 4's tests share one
set of MinerU runs (about 30 s each time they are made), so they carry an `xdist_group` mark and
must run in one worker. pytest 9.2 with pytest-xdist 3.8 ignores the mark without a word
(pytest-xdist #1386): this test fails when that happens again."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("mineru4")


def test_a_grouped_test_is_scheduled_by_its_group(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by an xdist worker with --dist loadgroup")
    assert request.node.nodeid.endswith("@mineru4"), (
        f"{request.node.nodeid}: --dist loadgroup did not group this test (pytest {pytest.__version__}); "
        "see the pytest pin in pyproject.toml")
