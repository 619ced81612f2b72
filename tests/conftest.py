"""pytest's hooks and fixtures for the whole suite: the hypothesis profile, one parse cache for the
test session, the `fuzz` and `extended` marks, and no process outliving the suite. What tests
import (paths, documents built by hand, browsers, the suites' lists) is in tests/support."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from tests.support.paths import ROOT
from tests.support.processes import child_processes
from tests.support.suites import EXTENDED, KEPT_BROWSER, KEPT_INPUTS

# Hypothesis: a modest example count in `make test`, many more under `make fuzz`
# (CHUNKBENCH_FUZZ_EXAMPLES); no deadline, since the machine is shared and timing is not tested.
settings.register_profile(
    "chunkbench",
    max_examples=int(os.environ.get("CHUNKBENCH_FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize="CHUNKBENCH_FUZZ_EXAMPLES" not in os.environ,  # CI: the same examples every run
)
settings.load_profile("chunkbench")

# One parse cache for every test (and xdist worker): real PDFs are parsed once per clone.
os.environ.setdefault("CHUNKBENCH_CACHE_DIR", str(ROOT / ".cache" / "test-parse"))


def _extended(item: pytest.Item) -> bool:
    if item.nodeid.split("@")[0] in EXTENDED:  # one parameter of a test
        return True
    path, _, name = item.nodeid.partition("::")
    name = name.split("[")[0].split("@")[0]  # parameters, and xdist's group suffix
    if path == "tests/ui/test_review_browser.py":
        return name not in KEPT_BROWSER
    if f"{path}::{name}" == "tests/strategies/test_strategies_all_inputs.py::test_strategy_on_input":
        return not any(f"[{kept}-" in item.nodeid for kept in KEPT_INPUTS)
    return path in EXTENDED or f"{path}::{name}" in EXTENDED


def pytest_collection_modifyitems(items):
    """Mark every hypothesis test `fuzz`, so `make fuzz` runs all the property tests (every
    strategy's invariants, the packer, sentences, ranges…) with many examples, not a hand-kept list;
    and the tests of EXTENDED `extended`."""
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.fuzz)
        if _extended(item):
            item.add_marker(pytest.mark.extended)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty parse cache private to one test."""
    monkeypatch.setenv("CHUNKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def no_workers_left():
    """The test starts and ends without child processes of this one (parse workers reaped)."""
    assert child_processes() == []
    yield
    assert child_processes() == []


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_suite():
    """No process a test started may outlive the suite: a child process still alive
    at the end (a parse worker, a server, a stuck subprocess) is killed, named, and reported as an
    error of the session, in each xdist worker too."""
    yield
    import psutil

    left = child_processes()
    if not left:
        return
    names = []
    for proc in left:
        try:
            names.append(f"{proc.pid} {' '.join(proc.cmdline())[:160]}")
            proc.kill()
        except psutil.NoSuchProcess:
            continue
    psutil.wait_procs(left, timeout=30)
    pytest.fail("processes left running by the tests (killed now):\n  " + "\n  ".join(names))
