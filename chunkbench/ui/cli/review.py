"""`chunkbench review`: serve the reviewer QA app for one input and chunking (or export verdicts)."""

from __future__ import annotations

import errno
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from chunkbench.errors import UsageError

if TYPE_CHECKING:
    from chunkbench.types.document import Document

from . import (
    add_chunks_option,
    add_input_options,
    add_set_option,
    chunks_for,
    load_input,
    load_options,
    parse_sets,
    print_warnings,
)


def register(sub) -> None:
    p = sub.add_parser("review", help="review chunk boundaries in the browser (verdicts saved in the workspace)")
    add_input_options(p)
    add_set_option(p)
    p.add_argument("--reviewer", default="", help="your name, stored with every verdict (a ?reviewer= URL argument overrides it)")
    p.add_argument("--port", type=int, default=5006, help="port to serve on (default 5006)")
    p.add_argument("--address", default="127.0.0.1", help="address to serve on (default 127.0.0.1: this machine only)")
    p.add_argument("--workspace", default=None,
                   help="workspace database (default $CHUNKBENCH_WORKSPACE or ./.chunkbench/workspace.db)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="another host name the server answers to (repeatable); it answers to 127.0.0.1, "
                        "localhost, [::1] and --address, and refuses any other Host or Origin with 403")
    p.add_argument("--show", action="store_true", help="open a browser tab")
    p.add_argument("--max-sessions", type=int, default=None, metavar="N",
                   help="browser sessions served at once (default 32); more get a page saying the server is busy")
    p.add_argument("--export", default=None, metavar="FILE",
                   help="do not serve: write this chunking's verdicts to FILE (.csv or .json) and exit")
    add_chunks_option(p, "review")
    p.set_defaults(func=run_review)


def run_review(args) -> int:
    if args.export and Path(args.export).suffix.lower() not in (".csv", ".json"):
        raise UsageError(f"--export must name a .csv or .json file, got {args.export!r}")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be 0–65535, got {args.port}")
    if args.max_sessions is not None and args.max_sessions < 1:
        raise UsageError(f"--max-sessions must be at least 1, got {args.max_sessions}")
    params = parse_sets(args.params)
    if args.export or args.chunks:
        doc = load_input(args)
    elif (whole := _serve_as_it_arrives(args, params)) is None:
        return 0
    else:
        doc = whole
    cs = chunks_for(doc, args)
    if args.export:
        return _export(cs, args)
    print(f"reviewing {len(cs)} boundaries of {doc.source} ({cs.strategy}, params {cs.params_hash[:10]}) "
          f"at http://{args.address}:{args.port}/ — Ctrl-C to stop", file=sys.stderr)
    _serve(cs, args)
    return 0


#: why a server cannot listen where it was told: the port taken, an address not this machine's, a privileged port
_CANNOT_LISTEN = (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES)


def _serve(chunks, args) -> None:
    """Serve the review app with the command line's options until stopped; an address or port it
    cannot listen on (taken, not this machine's, privileged) is a usage error naming it."""
    from chunkbench.ui.reviews.serve import serve_app

    limits = {} if args.max_sessions is None else {"max_sessions": args.max_sessions}
    try:
        serve_app(chunks, reviewer=args.reviewer, workspace=args.workspace, port=args.port, address=args.address,
                  show=args.show, allow_hosts=tuple(args.allow_host), **limits)
    except OSError as exc:
        if not (isinstance(exc, socket.gaierror) or exc.errno in _CANNOT_LISTEN):
            raise
        raise UsageError(f"cannot serve on {args.address}:{args.port}: {exc.strerror or exc} "
                         "(choose another --port or --address)") from exc


def _serve_as_it_arrives(args, params: dict) -> Document | None:
    """Serve an uncached PDF's first pages' chunks at once (provisional: verdicts closed), the final
    chunks when the background parse has every page (app.opening), and say None once served; the
    strategy's parameters are checked before anything is parsed. An input that came whole (a cached
    parse, another parser's) is given back, to be served as any other."""
    from chunkbench.app.chunking import chunk
    from chunkbench.app.opening import Progress, open_as_it_arrives
    from chunkbench.strategies import get_strategy
    from chunkbench.ui.reviews.serve import LiveChunking

    get_strategy(args.strategy).resolve(params)
    live: LiveChunking | None = None

    def update(progress: Progress) -> None:
        assert live is not None
        live.update(chunk(progress.doc, args.strategy, **params), "" if progress.final else progress.describe())

    def failed(exc: Exception) -> None:
        print(f"chunkbench: {args.input}: parsing the rest of the PDF failed: {exc}", file=sys.stderr)

    begin = threading.Event()
    first = open_as_it_arrives(args.input, update, on_error=failed, begin=begin, **load_options(args))
    if first.final:
        print_warnings(first.doc)
        return first.doc
    live = LiveChunking(chunk(first.doc, args.strategy, **params), first.describe())
    print(f"reviewing {first.doc.source} ({args.strategy}) at http://{args.address}:{args.port}/ — the first "
          f"pages now, all {first.page_count} when parsed; Ctrl-C to stop", file=sys.stderr)
    begin.set()
    _serve(live, args)
    return None


def _export(cs, args) -> int:
    from chunkbench.app.review import stored_verdicts
    from chunkbench.io.outputs import check_outputs, write_output
    from chunkbench.io.verdicts import write_verdicts

    target = check_outputs({"--export": args.export}, inputs=[args.input, args.pdf, args.workspace])["--export"]
    rows = stored_verdicts(cs, args.workspace)
    write_output(target, lambda path: write_verdicts(rows, path))
    print(f"wrote {len(rows)} verdicts to {args.export}", file=sys.stderr)
    return 0
