"""A parse worker that is stuck, not slow (a forked child waiting on a lock that another thread of
the parent held at the fork: in CI a one-page parse of 0.3 s once waited out its 120 s budget), is
replaced once; a second stall is an error naming the file and pages (loaders/parse_workers.py).

Stuck is simulated by sleeping (no CPU time), slow by spinning; the workers are forked, so they
run the functions defined here. Every test checks that no worker is left."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

from chunkbench.errors import InputError
from chunkbench.loaders import parse_workers, pdf_layout
from chunkbench.loaders.pdf import load_pdf
from tests.support.paths import SAMPLE_PDFS

FORK = multiprocessing.get_context("fork")
CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"


pytestmark = pytest.mark.usefixtures("no_workers_left")  # conftest: no worker outlives a test


def stuck_the_first_time(log: Path, answer, stuck_on=None):
    """A task that records each start in `log` and, on the first start of the task whose first
    argument is `stuck_on` (None: the first task started), sleeps for ever."""

    def task(*args):
        with log.open("a") as f:
            f.write(f"start {args[0]!r}\n")
        lines = log.read_text().splitlines()
        first = lines[0].split(" ", 1)[1] == repr(args[0]) if stuck_on is None else args[0] == stuck_on
        if first and lines.count(f"start {args[0]!r}") == 1:
            time.sleep(3600)
        return answer(*args)

    return task


def test_a_stuck_worker_is_replaced_and_its_task_done_by_the_new_one(tmp_path, caplog):
    log = tmp_path / "starts"
    began = time.monotonic()
    results = parse_workers.run_tasks(stuck_the_first_time(log, lambda x: x * 2, stuck_on=2), [(1,), (2,), (3,)],
                                      [None] * 3, 2, FORK, stall_seconds=1)
    assert results == [2, 4, 6]
    assert log.read_text().count("start") == 4  # the stuck task ran again, the others once
    assert [r.getMessage() for r in caplog.records if r.name == parse_workers.__name__] == [
        "a parse worker used no CPU time for 1 s on task 1: given to a new worker"]
    assert time.monotonic() - began < 30


def test_a_task_stuck_twice_raises_stalled(tmp_path):
    def always_stuck(x):
        time.sleep(3600)

    began = time.monotonic()
    with pytest.raises(parse_workers.Stalled) as caught:
        parse_workers.run_tasks(always_stuck, [(1,)], [None], 1, FORK, stall_seconds=1)
    assert caught.value.index == 0 and caught.value.seconds == 1
    assert time.monotonic() - began < 30


def test_a_slow_worker_that_computes_is_not_stuck(tmp_path):
    log = tmp_path / "starts"

    def spin(x):
        with log.open("a") as f:
            f.write("start\n")
        end = time.monotonic() + 2.5
        while time.monotonic() < end:
            pass
        return x

    assert parse_workers.run_tasks(spin, [(7,)], [None], 1, FORK, stall_seconds=0.5) == [7]
    assert log.read_text().count("start") == 1


def test_a_pdf_parse_with_a_stuck_worker_gives_the_same_document(tmp_path, monkeypatch):
    expected = load_pdf(CONTRACT, cache=False, progress=False)
    monkeypatch.setattr(parse_workers, "STALL_SECONDS", 1.0)
    monkeypatch.setattr(pdf_layout, "parse_range", stuck_the_first_time(tmp_path / "starts", pdf_layout.parse_range))
    assert load_pdf(CONTRACT, cache=False, progress=False) == expected


def test_a_pdf_parse_stuck_twice_names_the_file_and_pages(monkeypatch):
    real = pdf_layout.parse_range

    def always_stuck(path, password, first, stop, ocr):
        if first == 0:
            time.sleep(3600)
        return real(path, password, first, stop, ocr)

    monkeypatch.setattr(parse_workers, "STALL_SECONDS", 1.0)
    monkeypatch.setattr(pdf_layout, "parse_range", always_stuck)
    with pytest.raises(InputError) as caught:
        load_pdf(CONTRACT, cache=False, progress=False)
    assert str(caught.value) == (
        f"{CONTRACT}: the parser process stopped working on pages 1-4 (it used no CPU time for 1 s, "
        "and so did a second one; run it again)"
    )
