"""The `chunkbench` command line: one module per command group, dispatched from here.

Errors a user can cause print one line naming the file and the problem and exit with the code
of docs/contracts.md (2 usage, 3 input, 4 external tool); `--debug` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import sys
import traceback
import warnings

from chunkbench.errors import ChunkbenchError, RenderWarning, UsageError
from chunkbench.strategies import DEFAULT_STRATEGY  # written once there; app.defaults re-exports it
from chunkbench.text.terminal import terminal_safe


def command_modules() -> list[str]:
    """Modules of this package that define `register(subparsers)`: one per command group.

    Found by listing the package, so adding a command is adding a module."""
    import pkgutil

    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


class _Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and one line, as docs/contracts.md asks."""

    def error(self, message: str):  # noqa: D102
        self.exit(2, f"chunkbench: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="chunkbench", description="Inspect, tune and review document chunking.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    from chunkbench.version import __version__

    parser.add_argument("--version", action="version", version=f"chunkbench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in command_modules():
        module = importlib.import_module(f"{__name__}.{name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with terminal_streams():
        return _main(argv)


@contextlib.contextmanager
def terminal_streams():
    """stdout and stderr escape control and format characters (ESC, CR, bidi overrides, ...) while
    the command runs: whatever a file name or a document holds reaches the terminal as text.
    Line breaks are kept; the messages that carry user text escape theirs where they are made."""
    saved = sys.stdout, sys.stderr
    sys.stdout = _SafeStream(saved[0] if saved[0] is not None else _ClosedStream("standard output"))
    sys.stderr = _SafeStream(saved[1] if saved[1] is not None else _ClosedStream(None))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


class _SafeStream:
    """A text stream that writes `terminal_safe(text, keep_newlines=True)` to the stream it wraps."""

    def __init__(self, stream):
        self._stream = stream
        #: the stream itself, for output chunkbench draws and escapes on its own (tqdm's bar uses CR)
        self.unescaped = stream

    def write(self, text: str) -> int:
        safe = terminal_safe(text, keep_newlines=True)
        try:
            self._stream.write(safe)
        except UnicodeEncodeError:  # PYTHONIOENCODING=ascii, a C locale: what the encoding lacks as \u escapes
            encoding = getattr(self._stream, "encoding", None) or "ascii"
            self._stream.write(safe.encode(encoding, "backslashreplace").decode(encoding))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


class _ClosedStream:
    """Stands for a stream the command was started without (`>&-`, `2>&-`: Python makes it None).
    Writing to a closed stdout is an OSError naming it (exit 2, said on stderr); a closed stderr
    takes its messages nowhere, and the exit code still says what happened."""

    encoding = "utf-8"

    def __init__(self, name: str | None):
        self._name = name

    def write(self, text: str) -> int:
        if self._name is not None and text:
            raise OSError(errno.EBADF, "it is closed (the command was started with it closed)", self._name)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "closed", self._name)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """chunkbench's own warnings as one `chunkbench: warning:` line; others as Python shows them."""
    if issubclass(category, RenderWarning):
        print(f"chunkbench: warning: {message}", file=sys.stderr)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _main(argv: list[str]) -> int:
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(argv)
        with warnings.catch_warnings():
            warnings.simplefilter("default", RenderWarning)
            warnings.showwarning = _show_warning
            return int(args.func(args) or 0)
    except ChunkbenchError as exc:
        if debug:
            traceback.print_exc()
        print(f"chunkbench: error: {exc}", file=sys.stderr)
        tail = getattr(exc, "stderr_tail", "")
        if tail:
            print(tail.rstrip(), file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # the reader went away (`chunkbench info x.pdf | head`): stop quietly
        _silence_stdout()
        return 0
    except OSError as exc:  # an output that cannot be written (inputs that cannot be read are InputErrors)
        if debug:
            traceback.print_exc()
        where = f"{terminal_safe(os.fsdecode(exc.filename))}: " if exc.filename is not None else ""
        print(f"chunkbench: error: {where}cannot write: {exc.strerror or exc}", file=sys.stderr)
        return UsageError.exit_code
    except KeyboardInterrupt:
        print("chunkbench: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - last line of defence for the CLI
        if debug:
            traceback.print_exc()
        else:
            print(f"chunkbench: internal error: {type(exc).__name__}: {exc} (rerun with --debug)", file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush at exit does not fail on the
    closed pipe again (Python's documented recipe for SIGPIPE)."""
    stdout = sys.__stdout__
    if stdout is None:
        return
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())
    except (OSError, ValueError):
        pass


def add_set_option(parser: argparse.ArgumentParser) -> None:
    """`--strategy NAME --set KEY=VALUE ...` shared by chunk, render, review, store, sweep."""
    parser.add_argument("--strategy", default=DEFAULT_STRATEGY, help="strategy name (see `chunkbench strategies`)")
    parser.add_argument(
        "--set", dest="params", action="append", default=[], metavar="KEY=VALUE",
        help="strategy parameter, repeatable",
    )


def parse_sets(items: list[str]) -> dict[str, str]:
    """`["k=v", ...]` → dict; a malformed item is a usage error."""

    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def add_input_options(parser: argparse.ArgumentParser, many: bool = False) -> None:
    """Options every command that loads an INPUT accepts (`many`: one or more, as `inputs`)."""
    what = ("a .pdf, .md, .txt, MinerU output (content_list, middle JSON, zip, folder), a DoclingDocument "
            "JSON, a document.json or an elements.json")
    if many:
        parser.add_argument("inputs", nargs="+", metavar="INPUT",
                            help=what + "; or a corpus: several PDFs, a folder of PDFs or a glob ('pdfs/**/*.pdf')")
    else:
        parser.add_argument("input", help=what)
    parser.add_argument("--backend", default="pymupdf", choices=("pymupdf", "mineru"), help="PDF parser")
    parser.add_argument(
        "--mineru-tier", default=None, choices=("flash", "basic", "standard", "advanced"),
        help="MinerU 4 tier (default flash: the only one that runs without a GPU and downloaded models)",
    )
    parser.add_argument("--ocr-mode", default=None, choices=("auto", "txt", "ocr"), help="MinerU 4 OCR mode (default auto)")
    parser.add_argument(
        "--mineru-pages", default=None, help="MinerU 4: pages to parse, e.g. 1-5,8 or r3-r1 (default all)"
    )
    parser.add_argument("--mineru-url", default=None, help="MinerU 4 API server (mineru-api), or the 2.x/3.x server URL")
    parser.add_argument("--mineru-backend", default=None, help="MinerU 2.x/3.x backend (default vlm-vllm-engine)")
    parser.add_argument(
        "--mineru-command", default=None, metavar="PATH",
        help="the MinerU executable to run (mineru-kit of 4.x, mineru of 2.x/3.x; default: found, or $CHUNKBENCH_MINERU)",
    )
    parser.add_argument("--mineru-timeout", type=float, default=None, help="seconds before MinerU is killed")
    parser.add_argument("--pdf", default=None, help="source PDF of MinerU output / document.json")
    parser.add_argument("--password", default=None, help="password of an encrypted PDF")
    parser.add_argument(
        "--page-timeout", type=float, default=None, metavar="SECONDS",
        help="PyMuPDF backend: stop with an error when parsing takes longer than this per page "
        "(default 120, or $CHUNKBENCH_PAGE_TIMEOUT; 0: no limit)",
    )
    parser.add_argument("--no-stitch-tables", action="store_true",
                        help="keep a table that continues on the next page as the parser gave it, one table per page "
                             "(default: joined into one table marked on both pages)")
    parser.add_argument("--no-cache", action="store_true", help="do not use the parse cache")
    parser.add_argument("--cache-dir", default=None, help="parse cache folder (default ~/.cache/chunkbench)")
    add_document_id_option(parser)


def add_document_id_option(parser: argparse.ArgumentParser) -> None:
    """`--document-id ID`: the document's name in its chunks' ids, whatever the file is called."""
    parser.add_argument("--document-id", default=None, metavar="ID",
                        help="name the document in its chunks' ids (default: the file's stem), so versions under "
                             "other file names (report_2024.pdf, report_2025.pdf) share their unchanged chunks' ids "
                             "(docs/lineage.md)")


def load_options(args: argparse.Namespace) -> dict:
    """`load`'s options from the command line of `add_input_options` (a `--cache-dir` is set as
    $CHUNKBENCH_CACHE_DIR, where every parse looks)."""
    import os

    if getattr(args, "cache_dir", None):
        os.environ["CHUNKBENCH_CACHE_DIR"] = args.cache_dir
    return {
        "backend": args.backend,
        "cache": not args.no_cache,
        "password": args.password,
        "pdf": args.pdf,
        "mineru_backend": args.mineru_backend,
        "mineru_url": args.mineru_url,
        "mineru_timeout": args.mineru_timeout,
        "mineru_tier": args.mineru_tier,
        "mineru_ocr_mode": args.ocr_mode,
        "mineru_pages": args.mineru_pages,
        "mineru_command": args.mineru_command,
        "page_timeout": getattr(args, "page_timeout", None),
        "stitch_tables": not getattr(args, "no_stitch_tables", False),
        "document_id": getattr(args, "document_id", None),
    }


def load_input(args: argparse.Namespace):
    """Load `args.input` with the options of `add_input_options`; the parse's warnings on stderr."""
    from chunkbench.app.opening import load

    doc = load(args.input, **load_options(args))
    print_warnings(doc)
    return doc


def add_fail_on_empty(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fail-on-empty", action="store_true",
        help="exit with code 5 (after writing nothing) when there are no chunks, so a script can tell",
    )


def check_not_empty(chunkset, args) -> None:
    """0 chunks: a warning saying why on stderr; with --fail-on-empty, exit 5 before writing."""
    from chunkbench.errors import EmptyResultError
    from chunkbench.evaluate.stats import why_no_chunks

    why = why_no_chunks(chunkset)
    if not why:
        return
    if getattr(args, "fail_on_empty", False):
        raise EmptyResultError(f"0 chunks: {why}", chunkset.doc.source)
    doc = chunkset.doc
    if doc.warnings and all(e.is_empty for e in doc.elements):
        return  # the loader's warnings (no text layer, garbled fonts) already said why
    print(f"chunkbench: warning: {terminal_safe(chunkset.doc.source)}: 0 chunks: {why}", file=sys.stderr)


def print_warnings(doc) -> None:
    """The Document's warnings (pages without a text layer, garbled fonts, ...) on stderr, one
    line each naming the file: every command that loads an input says why chunks may be missing."""
    for warning in doc.warnings:
        print(f"chunkbench: warning: {terminal_safe(doc.source)}: {warning}", file=sys.stderr)


def add_chunks_option(parser: argparse.ArgumentParser, what: str,
                      role: str = "instead of a strategy's (--strategy and --set are then not used)") -> None:
    """`--chunks FILE` and `--chunker NAME`: another chunker's chunks, instead of a strategy's or beside them."""
    parser.add_argument(
        "--chunks", default=None, metavar="FILE",
        help=f"{what} another chunker's chunks: a JSON list of strings or of objects with text (or page_content), "
             "metadata, start_index, or JSON Lines of them (a chunks.json too); each is located in INPUT and its "
             f"boundary reason inferred; {role}",
    )
    parser.add_argument("--chunker", default="foreign", metavar="NAME", type=_printable_name,
                        help="with --chunks: the name the chunks are shown under "
                             "(e.g. langchain:RecursiveCharacterTextSplitter)")


def _printable_name(value: str) -> str:
    """A name shown in tables, titles and file names: printable text of at most 100 characters,
    else a usage error (a newline or an escape in it would forge or colour the lines it is printed on)."""
    if not value or len(value) > 100 or not value.isprintable():
        raise argparse.ArgumentTypeError("a name of 1 to 100 printable characters (no newline, tab or escape)")
    return value


def located_chunks(doc, path: str, chunker: str):
    """A chunk file's chunks located in `doc`: one line of counts on stderr, a warning per chunk not
    found or only partly found; exit 3 when not one chunk could be placed."""
    from chunkbench.foreign import inspect, match_summary, require_located
    from chunkbench.text.segment import one_line

    chunkset = inspect(doc, path, name=chunker, params={"chunks_file": os.path.basename(path)})
    require_located(chunkset, path)
    print(f"{terminal_safe(path)}: {match_summary(chunkset)}", file=sys.stderr)
    for c in chunkset:
        if c.extra["match"] in ("partial", "unlocated"):
            state = "not found" if c.extra["match"] == "unlocated" else f"only {c.extra['match_score']:.0%} found"
            print(f"chunkbench: warning: {terminal_safe(path)}: chunk {c.index} {state}: {one_line(c.text, 60)!r}",
                  file=sys.stderr)
    return chunkset


def add_edits_option(parser: argparse.ArgumentParser, *, workspace: bool = True, reviewer: bool = True) -> None:
    """`--apply-edits [--workspace DB] [--reviewer NAME]`, the same on every command that shows a
    strategy's chunks, so one document, setting and workspace show the same chunks everywhere
    (`workspace`/`reviewer` False where the command has those options already)."""
    parser.add_argument("--apply-edits", action="store_true",
                        help="apply the reviewers' boundary edits stored in the workspace for this document and "
                             "strategy (`chunkbench edit`, the review app); each edit that cannot be applied is a "
                             "warning line")
    if workspace:
        parser.add_argument("--workspace", default=None,
                            help="with --apply-edits: workspace database (default $CHUNKBENCH_WORKSPACE or "
                                 "./.chunkbench/workspace.db)")
    if reviewer:
        parser.add_argument("--reviewer", default=None, help="with --apply-edits: only this reviewer's edits")


def strategy_chunks(doc, args: argparse.Namespace, strategy: str | None = None, params: dict | None = None):
    """A strategy's chunks of `doc` as every command shows them: through app.chunking, with the
    reviewers' stored edits when `--apply-edits` was given (each edit that cannot be applied a
    warning line). `strategy` and `params` default to `--strategy` and `--set`."""
    from chunkbench.app.chunking import chunk_with_edits

    apply = getattr(args, "apply_edits", False)
    outcome = chunk_with_edits(doc, strategy or args.strategy, edits="apply" if apply else None,
                               workspace=getattr(args, "workspace", None) if apply else None,
                               reviewer=(getattr(args, "reviewer", None) or None) if apply else None,
                               **(parse_sets(args.params) if params is None else params))
    for message in outcome.messages():
        print(f"chunkbench: warning: {terminal_safe(doc.source)}: {terminal_safe(message)}", file=sys.stderr)
    return outcome.chunkset


def chunks_for(doc, args: argparse.Namespace):
    """What a command shows: the `--chunks` file's chunks located in `doc`, or the strategy's chunks
    with the `--set` parameters (and the stored edits with `--apply-edits`)."""
    if getattr(args, "chunks", None):
        return located_chunks(doc, args.chunks, args.chunker)
    return strategy_chunks(doc, args)

