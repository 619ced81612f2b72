"""`make test` runs the suite in two workers with `--dist loadgroup`: the tests that share one
chromium, one set of MinerU runs, a notebook kernel or Dask workers carry an `xdist_group` mark and
must run in one worker. pytest 9.2 with pytest-xdist 3.8 ignores the mark without a word
(pytest-xdist #1386), which doubled the suite's time and ran those tests side by side."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.xdist_group("review_browser")


def test_a_grouped_test_is_scheduled_by_its_group(request):
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run by an xdist worker with --dist loadgroup")
    assert request.node.nodeid.endswith("@review_browser"), (
        f"{request.node.nodeid}: --dist loadgroup did not group this test (pytest {pytest.__version__}); "
        "see the pytest pin in pyproject.toml")
