"""The review server answers only to its own names: a guard in front of every route.

A web page on any name that resolves to 127.0.0.1 (DNS rebinding) could otherwise load the review
app and open its websocket with that name as Host and Origin, and read the reviewer's documents.
Every request, page, resource or websocket, is matched first against the names the server answers
to (127.0.0.1, localhost, [::1], the address it is bound to, and names given with `--allow-host`);
a Host or an Origin naming anything else gets 403 before Panel or Bokeh sees the request.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from tornado.httputil import HTTPServerRequest
from tornado.routing import Matcher, Rule
from tornado.web import RequestHandler

#: the names a server bound to this machine always answers to
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
#: what a refused request is told
REFUSED = ("403: this review server answers only to the names it was started for "
           "(127.0.0.1, localhost, its --address, and names given with --allow-host)")


def allowed_names(address: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The host names (lower case, IPv6 without brackets) a server bound to `address` answers to."""
    names = {*LOOPBACK_NAMES, *(n for n in (address, *extra) if n and n not in ("0.0.0.0", "::"))}
    return frozenset(n.strip().strip("[]").lower() for n in names if n.strip())


def split_host(value: str) -> tuple[str, int | None] | None:
    """("name", port or None) of a Host header's value, None when it is malformed."""
    try:
        parts = urlsplit(f"//{value.strip()}")
        return (parts.hostname or "", parts.port) if parts.hostname else None
    except ValueError:
        return None


def host_allowed(value: str | None, names: frozenset[str], port: int | None) -> bool:
    """Whether a Host header (or an Origin's host) names this server: one of `names`, at `port` or at none."""
    if not value:
        return False
    found = split_host(value)
    return found is not None and found[0] in names and (found[1] is None or port is None or found[1] == port)


def request_allowed(request: HTTPServerRequest, names: frozenset[str], port: int | None) -> bool:
    """The request's Host names this server, and so does its Origin if it has one."""
    if not host_allowed(request.headers.get("Host"), names, port):
        return False
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    if origin == "null":
        return False
    netloc = urlsplit(origin).netloc
    return host_allowed(netloc, names, port)


class ForeignHost(Matcher):
    """Matches (so the request goes to `Refused`) whatever does not name this server."""

    def __init__(self, names: frozenset[str], port: int | None):
        self.names, self.port = names, port

    def match(self, request: HTTPServerRequest) -> dict[str, Any] | None:
        if not request_allowed(request, self.names, self.port):
            return {}
        if request.host.startswith("["):  # "[::1]:5006": Panel's location splits the host at ":" (a 500)
            request.host = f"localhost:{self.port}" if self.port else "localhost"
        return None


class Refused(RequestHandler):
    """403 for any method, the websocket handshake included, before any other handler runs."""

    def prepare(self) -> None:
        self.set_status(403)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(REFUSED)


def guard_hosts(tornado_app: Any, names: frozenset[str], port: int | None) -> None:
    """Put the host check in front of every route of a Tornado application (Bokeh's server's)."""
    router = tornado_app.default_router
    router.rules.insert(0, router.process_rule(Rule(ForeignHost(names, port), Refused)))
