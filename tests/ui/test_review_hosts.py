"""The review server answers only to its own names (DNS rebinding): a page or a
websocket asked for under another Host, or from another Origin, gets 403 before Panel or Bokeh
handles it. Raw HTTP and a raw websocket handshake, forging Host and Origin, against a real server."""

from __future__ import annotations

import base64
import os
import re
import socket
import time

import pytest

import chunkbench as cb
from chunkbench.ui.reviews.hosts import REFUSED, allowed_names, host_allowed
from tests.support.paths import ROOT
from tests.support.processes import free_port

pytest.importorskip("panel")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A review server on a free loopback port that also answers to review.lan (its port)."""
    from chunkbench.ui.reviews.serve import serve_app

    cs = cb.chunk(cb.load(ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"), "elements")
    port = free_port()
    thread = serve_app(cs, workspace=tmp_path_factory.mktemp("ws") / "ws.db", port=port, threaded=True,
                       allow_hosts=["review.lan"])  # returns once the server listens
    yield port
    thread.stop()


def raw(port: int, request: bytes) -> bytes:
    """Send `request` to the server and read the whole answer (or its head, for a websocket)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(request)
        out = b""
        while b"\r\n\r\n" not in out or (b"Content-Length" in out and not _complete(out)):
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        return out


def _complete(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    length = re.search(rb"Content-Length: (\d+)", head)
    return length is None or len(body) >= int(length.group(1))


def status(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
    lines = [f"{method} {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items()),
             f"Content-Length: {len(body)}", "Connection: close", "", ""]
    answer = raw(port, "\r\n".join(lines).encode() + body)
    return int(answer.split(b" ", 2)[1]), answer


def websocket(port: int, token: str, host: str, origin: str) -> int:
    """The status of Bokeh's websocket handshake (the session token as its subprotocol, as the
    page's script sends it) with this Host and Origin (101: accepted)."""
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall("\r\n".join([
            "GET /ws HTTP/1.1", f"Host: {host}", f"Origin: {origin}", "Upgrade: websocket", "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13", f"Sec-WebSocket-Protocol: bokeh, {token}",
            "", ""]).encode())
        head = b""
        while b"\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                break
            head += chunk
    return int(head.split(b" ", 2)[1])


def test_the_page_is_served_under_its_own_names_only(server):
    port = server
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"review.lan:{port}", "localhost"):
        code, answer = status(port, "GET", "/", {"Host": host})
        assert code == 200 and b"deployment_guide.md" in answer, host
    for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}", f"localhost:{port + 1}",
                 "", "[::1", "a b"):
        code, answer = status(port, "GET", "/", {"Host": host})
        assert code in (400, 403) and b"deployment_guide.md" not in answer, host
    code, answer = status(port, "GET", "/", {"Host": f"evil.example:{port}"})
    assert code == 403 and REFUSED.encode() in answer


def test_resources_and_writes_under_another_name_are_refused_too(server):
    port = server
    for method, path in (("GET", "/static/js/bokeh.min.js"), ("POST", "/"), ("GET", "/ws"), ("GET", "/nothing")):
        assert status(port, method, path, {"Host": f"evil.example:{port}"}, b"x=1")[0] == 403, path


def test_another_origin_is_refused_even_under_a_right_name(server):
    port = server
    assert status(port, "GET", "/", {"Host": f"127.0.0.1:{port}", "Origin": "http://evil.example"})[0] == 403
    assert status(port, "GET", "/", {"Host": f"127.0.0.1:{port}", "Origin": "null"})[0] == 403
    assert status(port, "GET", "/", {"Host": f"127.0.0.1:{port}", "Origin": f"http://localhost:{port}"})[0] == 200


def test_a_websocket_under_a_forged_host_and_origin_gets_no_session(server):
    """The rebinding page's websocket: Host and Origin both the attacker's name, with a session
    token taken from a real page (the strongest case): 403, so nothing is read and no verdict written."""
    port = server

    def token() -> str:
        _, page = status(port, "GET", "/", {"Host": f"127.0.0.1:{port}"})
        found = re.search(rb'"token":\s*"([^"]+)"', page)
        assert found, "no session token in the page"
        return found.group(1).decode()

    evil, home = f"evil.example:{port}", f"127.0.0.1:{port}"
    assert websocket(port, token(), home, f"http://{home}") == 101  # the token opens a session here
    assert websocket(port, token(), evil, f"http://{evil}") == 403
    assert websocket(port, token(), home, f"http://{evil}") == 403


@pytest.mark.parametrize("value, ok", [
    ("127.0.0.1:5006", True), ("LOCALHOST:5006", True), ("[::1]:5006", True), ("localhost", True),
    ("localhost:5007", False), ("evil.example:5006", False), ("127.0.0.1@evil.example", False), ("", False),
    (None, False), ("[::1", False), ("localhost:99999", False),
])
def test_which_host_headers_name_the_server(value, ok):
    assert host_allowed(value, allowed_names("127.0.0.1"), 5006) is ok


def test_a_server_bound_to_every_interface_answers_to_loopback_and_named_hosts_only():
    assert allowed_names("0.0.0.0", ["review.lan"]) == {"127.0.0.1", "localhost", "::1", "review.lan"}


def test_a_threaded_server_listens_when_it_is_returned_and_a_taken_port_is_said(tmp_path, monkeypatch):
    """serve_app(threaded=True) returns once its server listens, however slowly the server is made
    (a browser sent at once was refused: seen in a test), and a server that cannot start, its port
    taken, raises in the caller instead of dying unseen in its thread."""
    import panel.io.server

    from chunkbench.ui.reviews.serve import serve_app

    real = panel.io.server.get_server

    def slow(*args, **kwargs):
        time.sleep(1.0)  # the server made a second late, as on a busy machine
        return real(*args, **kwargs)

    monkeypatch.setattr(panel.io.server, "get_server", slow)
    cs = cb.chunk(cb.load(ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"), "elements")
    port = free_port()
    thread = serve_app(cs, workspace=tmp_path / "ws.db", port=port, threaded=True)
    try:
        assert status(port, "GET", "/", {"Host": f"127.0.0.1:{port}"})[0] == 200  # at once, no waiting
        with pytest.raises(OSError, match="in use"):
            serve_app(cs, workspace=tmp_path / "ws.db", port=port, threaded=True)
    finally:
        thread.stop()


def test_chunkbench_review_on_a_taken_port_says_so_and_exits_2(capsys):
    """A port another program holds is a usage error naming the address and port, not a traceback
    nor "cannot write" (an OSError read as an output's)."""
    from chunkbench.ui.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["review", str(ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"), "--port", str(port)])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot serve on 127.0.0.1:{port}: Address already in use" in err and "Traceback" not in err
