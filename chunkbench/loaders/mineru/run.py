"""Run the MinerU command line on a PDF and load what it writes (`load(..., backend="mineru")`).

`mineru -p X.pdf -o OUT -b BACKEND [-u URL]` runs in its own process group inside a temporary
folder; the whole group is killed when it outlives its timeout. The result goes through the parse
cache keyed by the PDF's sha256, the MinerU version and the backend options, so a PDF is sent to
MinerU once. A missing `mineru`, a failed or timed-out run and unusable output are an
ExternalToolError (exit code 4) carrying the tail of MinerU's log; an unreadable PDF is an
InputError, as with every other loader.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from chunkbench.errors import ExternalToolError, InputError, UsageError
from chunkbench.loaders.cache import cached_parse
from chunkbench.types.document import Document, ParserInfo, sha256_file

from . import find_content_list, load_mineru, pdf_page_sizes

DEFAULT_BACKEND = "vlm-vllm-engine"
TIMEOUT_ENV = "CHUNKBENCH_MINERU_TIMEOUT"
#: default timeout: a fixed start-up allowance plus time per page and per MB of PDF
TIMEOUT_BASE_S, TIMEOUT_PER_PAGE_S, TIMEOUT_PER_MB_S = 60.0, 10.0, 2.0
#: after SIGTERM, how long MinerU (and vLLM workers) may take to exit before SIGKILL
KILL_GRACE_S = 5.0
VERSION_TIMEOUT_S = 60.0
STDERR_TAIL_LINES = 20


def load_with_mineru(
    pdf_path: str | os.PathLike,
    *,
    backend: str | None = None,
    url: str | None = None,
    timeout: float | None = None,
    cache: bool = True,
) -> Document:
    """Parse a PDF with the `mineru` CLI (cached); the Document's doc_id is the PDF's sha256."""
    pdf = Path(pdf_path)
    backend = backend or DEFAULT_BACKEND
    exe = shutil.which("mineru")
    if exe is None:
        raise ExternalToolError("mineru not found on PATH (install it with: pip install 'chunkbench[mineru]')", pdf)
    pages = len(pdf_page_sizes(pdf))
    seconds = _timeout(pdf, pages, timeout)
    version = mineru_version(exe)
    options = {"backend": backend, "url": url}
    doc_id = sha256_file(pdf)

    def parse() -> Document:
        doc = _run_and_load(exe, pdf, backend, url, seconds)
        parser = ParserInfo("mineru", version, {**doc.parser.options, **options})
        return dataclasses.replace(doc, doc_id=doc_id, source=pdf.name, parser=parser)

    return cached_parse(pdf, doc_id, "mineru", version, options, parse, use_cache=cache)


def mineru_version(exe: str) -> str:
    """`mineru --version` reduced to its version number, or "unknown" when it cannot be read."""
    try:
        done = subprocess.run(
            [exe, "--version"], capture_output=True, text=True, errors="replace", timeout=VERSION_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    out = (done.stdout + done.stderr).strip()
    if done.returncode != 0 or not out:
        return "unknown"
    match = re.search(r"\d+(?:\.\d+)+\S*", out)  # "mineru, version 2.5.4" -> "2.5.4"
    return match.group(0) if match else out.splitlines()[-1][:100]


def _timeout(pdf: Path, pages: int, explicit: float | None) -> float:
    """Seconds MinerU may run: `explicit`, else $CHUNKBENCH_MINERU_TIMEOUT, else grown with the PDF."""
    if explicit is None and os.environ.get(TIMEOUT_ENV):
        try:
            explicit = float(os.environ[TIMEOUT_ENV])
        except ValueError:
            raise UsageError(f"{TIMEOUT_ENV} must be a number of seconds, got {os.environ[TIMEOUT_ENV]!r}") from None
    if explicit is not None:
        if not explicit > 0:
            raise UsageError(f"MinerU timeout must be a positive number of seconds, got {explicit}")
        return float(explicit)
    megabytes = pdf.stat().st_size / 1e6
    return TIMEOUT_BASE_S + TIMEOUT_PER_PAGE_S * pages + TIMEOUT_PER_MB_S * megabytes


def _run_and_load(exe: str, pdf: Path, backend: str, url: str | None, seconds: float) -> Document:
    """Run MinerU into a temporary folder and load the content_list it wrote."""
    with tempfile.TemporaryDirectory(prefix="chunkbench-mineru-") as tmp:
        out = Path(tmp) / "out"
        stderr_file = Path(tmp) / "stderr.log"
        cmd = [exe, "-p", os.fspath(pdf.resolve()), "-o", os.fspath(out), "-b", backend]
        if url:
            cmd += ["-u", url]
        _run(cmd, stderr_file, seconds, pdf)
        tail = _tail(stderr_file)
        try:
            content_list = find_content_list(out) if out.is_dir() else None
        except InputError as exc:
            raise ExternalToolError(f"mineru exited 0 but wrote no usable content_list: {exc.message}", pdf,
                                    tail) from None
        if content_list is None:
            raise ExternalToolError("mineru exited 0 but wrote nothing to its output folder", pdf, tail)
        try:
            return load_mineru(content_list, pdf=pdf)
        except InputError as exc:
            problem = f"mineru wrote an unreadable {content_list.name}: {exc.message}"
            raise ExternalToolError(problem, pdf, tail) from None


def _run(cmd: list[str], stderr_file: Path, seconds: float, pdf: Path) -> None:
    """Run `cmd` in a new session; whatever of its process group is left at the end is killed."""
    with open(stderr_file, "wb") as err:
        try:
            proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=err, stderr=subprocess.STDOUT, start_new_session=True
            )
        except OSError as exc:
            raise ExternalToolError(f"cannot start mineru: {exc.strerror or exc}", pdf) from None
        try:
            code = proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            code = None
        finally:  # also on Ctrl-C: leave no MinerU (nor its workers) behind
            _kill_group(proc)
    tail = _tail(stderr_file)
    if code is None:
        raise ExternalToolError(
            f"mineru timed out after {seconds:g} s and was stopped (raise the limit with --mineru-timeout "
            f"or {TIMEOUT_ENV})",
            pdf,
            tail,
        )
    if code != 0:
        how = f"was killed by signal {-code}" if code < 0 else f"failed with exit code {code}"
        last = tail.splitlines()[-1].strip() if tail else ""
        raise ExternalToolError(f"mineru {how}" + (f": {last}" if last else ""), pdf, tail)


def _kill_group(proc: subprocess.Popen) -> None:
    """Stop MinerU's process group: SIGTERM a running leader, wait a grace period, SIGKILL the rest.

    SIGKILL goes to the group even when the leader has exited: its workers may have outlived it.
    """
    if proc.poll() is None:
        _signal_group(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            pass
    _signal_group(proc.pid, signal.SIGKILL)
    proc.wait()


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def _tail(log: Path, lines: int = STDERR_TAIL_LINES) -> str:
    """The last non-empty lines of MinerU's output (progress bars redraw with \\r: split on it)."""
    try:
        with open(log, "rb") as fh:
            fh.seek(max(0, log.stat().st_size - 64 * 1024))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    kept = [line.rstrip() for line in text.splitlines() if line.strip()]
    return "\n".join(kept[-lines:])
