"""Processes and servers a test starts: its children, a free port, waiting for a server."""

from __future__ import annotations

#: helpers multiprocessing starts once per process and keeps until that process exits: not leaks
_MULTIPROCESSING_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def child_processes() -> list:
    """This process's descendants (psutil.Process), less multiprocessing's own per-process helpers."""
    import psutil

    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            cmdline = " ".join(proc.cmdline())
        except psutil.NoSuchProcess:
            continue
        if not any(helper in cmdline for helper in _MULTIPROCESSING_HELPERS):
            found.append(proc)
    return found


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (for a server a test starts)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, seconds: float, process=None) -> bool:
    """True once something listens on 127.0.0.1:`port` (a server a test started), False after
    `seconds` or as soon as `process` (its Popen, if given) has exited."""
    import socket
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            return False
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.3)
    return False
