"""Run tasks (page-range parses) in worker processes, each task with its own time limit.

`ProcessPoolExecutor` cannot stop a task once it runs, so a page that makes the layout model run
for ever would hang the whole load. Here each worker is a process of our own, fed one task at a
time over a pipe, so the parent knows when each task started; when a task outlives its budget
every worker is killed (SIGKILL) and reaped, and `Overrun` names the task. The workers are
always reaped on the way out (normal end, error, Ctrl-C), and on Linux they also die with the
parent if it is killed itself, so no orphan is left to finish a parse nobody waits for.

A forked worker can deadlock before it computes anything (a lock another thread of the parent
held at the fork stays held in the child; seen once in CI: a one-page parse of 0.3 s waited out
its 120 s budget). A busy worker that uses no CPU time for `stall_seconds` is therefore killed
and its task given to a new worker once; a second stall raises `Stalled`.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, cast

import psutil

log = logging.getLogger(__name__)

#: longest wait without looking up: Ctrl-C delivered to another thread (ONNX Runtime's) does not
#: interrupt the main thread's wait, so the KeyboardInterrupt is only raised when it wakes
_POLL = 0.5
#: how long a worker may take to exit after its pipe is closed before it is killed
_EXIT_GRACE = 5.0
#: a busy worker that used no CPU time for this long is stuck (a parse always computes)
STALL_SECONDS = 30.0


class WorkerFailure(Exception):
    """A worker, rather than the task's own code, failed on task `index`."""

    index: int


class Overrun(WorkerFailure):
    """Task `index` ran longer than its budget of `budget` seconds (its workers are killed)."""

    def __init__(self, index: int, budget: float):
        super().__init__(f"task {index} took longer than {budget:g} s")
        self.index = index
        self.budget = budget


class Stalled(WorkerFailure):
    """Task `index` stalled twice: its worker used no CPU time for `seconds` seconds, and so
    did the fresh worker it was given to."""

    def __init__(self, index: int, seconds: float):
        super().__init__(f"task {index}: worker used no CPU time for {seconds:g} s, twice")
        self.index = index
        self.seconds = seconds


class WorkerDied(WorkerFailure):
    """The worker running task `index` ended without an answer (killed, crashed in C code)."""

    def __init__(self, index: int, exitcode: int | None):
        super().__init__(f"task {index}: worker process ended with exit code {exitcode}")
        self.index = index
        self.exitcode = exitcode


def run_tasks(
    fn: Callable[..., Any],
    tasks: Sequence[tuple],
    budgets: Sequence[float | None],
    workers: int,
    context: Any,  # a multiprocessing context (fork or spawn): typeshed's BaseContext has no Process
    on_done: Callable[[int, Any], None] = lambda index, result: None,
    stall_seconds: float | None = None,
) -> list[Any]:
    """`[fn(*task) for task in tasks]`, computed by `workers` processes of `context`.

    Task i may run `budgets[i]` seconds (None: no limit) from the moment a worker takes it;
    `Overrun` is raised when one runs longer. A task whose worker uses no CPU time for
    `stall_seconds` (None: STALL_SECONDS) is run again by a new worker, once; `Stalled` the
    second time. An exception raised by `fn` is raised here (the first in task order among those
    seen); `on_done(i, result)` is called as each task finishes."""
    pool = _Pool(fn, tasks, budgets, context, on_done, STALL_SECONDS if stall_seconds is None else stall_seconds)
    ok = False
    try:
        for _ in range(max(1, min(workers, len(tasks)))):
            pool.start_worker()
        while pool.pending or pool.busy:
            pool.hand_out()
            pool.collect()
            pool.check_deadlines()
            pool.replace_stuck()
        ok = True
        return pool.results
    finally:
        pool.close(ok)


class _Pool:
    """The worker processes of one `run_tasks` call: which are idle, which run which task since when,
    and what came back."""

    def __init__(self, fn: Callable[..., Any], tasks: Sequence[tuple], budgets: Sequence[float | None],
                 context: Any, on_done: Callable[[int, Any], None], stall_seconds: float):
        self.fn, self.tasks, self.budgets, self.context, self.on_done = fn, tasks, budgets, context, on_done
        self.stall_seconds = stall_seconds
        self.results: list[Any] = [None] * len(tasks)
        self.pending = collections.deque(range(len(tasks)))
        self.procs: list[multiprocessing.process.BaseProcess] = []
        self.idle: list[multiprocessing.connection.Connection] = []
        #: each busy worker's pipe: its task and that task's deadline (None: no limit)
        self.busy: dict[multiprocessing.connection.Connection, tuple[int, float | None]] = {}
        self.proc_of: dict[multiprocessing.connection.Connection, multiprocessing.process.BaseProcess] = {}
        self.watch: dict[multiprocessing.connection.Connection, _CpuWatch] = {}
        self.stalled: set[int] = set()  # tasks already given to a new worker after a stall

    def start_worker(self) -> None:
        parent_end, child_end = self.context.Pipe()
        proc = self.context.Process(target=_worker, args=(self.fn, child_end), daemon=True)
        proc.start()
        child_end.close()  # so the parent sees EOF when the worker dies
        self.procs.append(proc)
        self.proc_of[parent_end] = proc
        self.idle.append(parent_end)

    def hand_out(self) -> None:
        """Give the next tasks to the idle workers, each with its deadline."""
        while self.pending and self.idle:
            conn = self.idle.pop()
            index = self.pending.popleft()
            budget = self.budgets[index]
            try:
                conn.send((index, self.tasks[index]))
            except OSError:  # the idle worker is gone (killed from outside)
                self.proc_of[conn].join(_EXIT_GRACE)
                raise WorkerDied(index, self.proc_of[conn].exitcode) from None
            self.busy[conn] = (index, None if budget is None else time.monotonic() + budget)
            self.watch[conn] = _CpuWatch(self.proc_of[conn].pid)

    def collect(self) -> None:
        """Wait for answers until the nearest deadline (at most _POLL); keep each result, raise an error."""
        deadlines = [d for _, d in self.busy.values() if d is not None]
        timeout = min([_POLL, *(max(0.0, d - time.monotonic()) for d in deadlines)])
        ready = cast("list[multiprocessing.connection.Connection]",
                     multiprocessing.connection.wait(list(self.busy), timeout))
        for conn in sorted(ready, key=lambda c: self.busy[c][0]):
            index, _ = self.busy.pop(conn)
            try:
                answer_index, status, value = conn.recv()
            except EOFError:
                proc = self.proc_of[conn]
                proc.join(_EXIT_GRACE)
                raise WorkerDied(index, proc.exitcode) from None
            if status == "error":
                raise value
            self.results[answer_index] = value
            self.on_done(answer_index, value)
            self.idle.append(conn)

    def check_deadlines(self) -> None:
        """`Overrun` for the first task (in task order) past its budget."""
        now = time.monotonic()
        overdue = sorted(i for i, d in self.busy.values() if d is not None and d <= now)
        if overdue:
            budget = self.budgets[overdue[0]]
            assert budget is not None, "only tasks with a budget have a deadline"
            raise Overrun(overdue[0], budget)

    def replace_stuck(self) -> None:
        """A worker that used no CPU time for `stall_seconds` is killed and its task given to a new
        one, at the front of the queue; `Stalled` when that task stalled before."""
        now = time.monotonic()
        stuck = sorted((c for c in self.busy if self.watch[c].idle_for(now) >= self.stall_seconds),
                       key=lambda c: self.busy[c][0])
        again = [self.busy[c][0] for c in stuck if self.busy[c][0] in self.stalled]
        if again:
            raise Stalled(again[0], self.stall_seconds)
        for conn in reversed(stuck):  # to the front of the queue, in task order
            index, _ = self.busy.pop(conn)
            self.stalled.add(index)
            log.warning("a parse worker used no CPU time for %g s on task %d: given to a new worker",
                        self.stall_seconds, index)
            proc = self.proc_of.pop(conn)
            del self.watch[conn]
            proc.kill()
            proc.join()
            self.procs.remove(proc)
            conn.close()
            self.pending.appendleft(index)
            self.start_worker()

    def close(self, ok: bool) -> None:
        """Stop every worker: told to after a run that ended well, killed after a failure."""
        for conn in self.proc_of:
            if ok:
                with contextlib.suppress(OSError):
                    conn.send(None)  # stop (forked workers hold copies of each other's pipe ends: no EOF)
            conn.close()
        for proc in self.procs:
            if not ok:
                proc.kill()  # running tasks cannot be stopped any other way
            proc.join(_EXIT_GRACE)
            if proc.exitcode is None:
                proc.kill()
                proc.join()


class _CpuWatch:
    """When a worker process last used CPU time (psutil), to tell a stuck worker from a slow one."""

    def __init__(self, pid: int | None):
        try:
            self._process: psutil.Process | None = psutil.Process(pid) if pid is not None else None
        except psutil.Error:  # gone already: its pipe's EOF reports it
            self._process = None
        self._cpu = self._cpu_seconds()
        self._since = time.monotonic()

    def _cpu_seconds(self) -> float | None:
        if self._process is None:
            return None
        try:
            times = self._process.cpu_times()
        except psutil.Error:  # gone: its pipe's EOF reports it
            return None
        return times.user + times.system

    def idle_for(self, now: float) -> float:
        """Seconds since the worker's CPU time last grew (0 when it cannot be read)."""
        cpu = self._cpu_seconds()
        if cpu is None or cpu != self._cpu:
            self._cpu, self._since = cpu, now
            return 0.0
        return now - self._since


def _worker(fn: Callable[..., Any], conn: multiprocessing.connection.Connection) -> None:
    """Worker loop: run each task received, send back `(index, "ok", result)` or
    `(index, "error", exception)`; stop at None or EOF."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it kills us
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        index, args = task
        try:
            answer = (index, "ok", fn(*args))
        except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
            answer = (index, "error", exc)
        try:
            conn.send(answer)
        except Exception as exc:  # noqa: BLE001 - the exception (or result) would not pickle
            conn.send((index, "error", RuntimeError(f"{type(exc).__name__}: {exc}")))


def _die_with_parent() -> None:
    """Linux: have the kernel SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG),
    so a killed parent leaves no worker behind. Elsewhere the pipe's EOF ends an idle worker."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # the parent died before the prctl
        os._exit(1)
