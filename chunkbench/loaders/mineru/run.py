"""Run MinerU on a PDF and load what it writes (`load(..., backend="mineru")`).

Which MinerU runs (the first found):

1. `$CHUNKBENCH_MINERU` or `command=`: that executable (a MinerU 4 `mineru-kit`, or the `mineru`
   of MinerU 2.x/3.x), its version read from `--version`;
2. MinerU 4's Python SDK in this interpreter: `mineru.parser.parse` (or `MinerUApiParser` for a
   URL), run in a child process (`sdk_child`) so a hang or crash can be stopped;
3. `mineru-kit` beside the running interpreter, then on PATH (`mineru-kit parse -f middle_json`);
4. `mineru` beside the interpreter, then on PATH: 2.x/3.x is run as `mineru -p X.pdf -o OUT -b
   BACKEND [-u URL]`; any other version is an error naming it.

MinerU 4 takes a tier (default `flash`: the only one that needs no model download and no GPU,
though in OCR mode auto it fetches OCR models for pages without a usable text layer, and a failed
download is explained: `_download_hint`), an OCR mode (auto, txt, ocr), a page range and an API
server URL (`mineru-api`). Every run is in its own process group inside a temporary folder; the
whole group is killed when it outlives its timeout. The result goes through the parse cache keyed
by the PDF's sha256, the MinerU version and the options that change the parse (tier, OCR mode,
pages, URL; backend for 2.x/3.x), so a PDF is sent to MinerU once. A missing MinerU, a failed or timed-out run and unusable output are an
ExternalToolError (exit code 4) carrying the tail of MinerU's log; an unreadable PDF is an
InputError, as with every other loader.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from chunkbench.errors import ExternalToolError, InputError, UsageError
from chunkbench.loaders.cache import cached_parse
from chunkbench.loaders.paragraphs import REPAIR_RULES
from chunkbench.runtime import env_number
from chunkbench.types.document import Document, ParserInfo, sha256_file

from . import LOAD_RULES, find_content_list, load_mineru, pdf_page_sizes

DEFAULT_BACKEND = "vlm-vllm-engine"
DEFAULT_TIER = "flash"
TIERS = ("flash", "basic", "standard", "advanced")
OCR_MODES = ("auto", "txt", "ocr")
COMMAND_ENV = "CHUNKBENCH_MINERU"
TIMEOUT_ENV = "CHUNKBENCH_MINERU_TIMEOUT"
#: default timeout: a fixed start-up allowance plus time per page and per MB of PDF
TIMEOUT_BASE_S, TIMEOUT_PER_PAGE_S, TIMEOUT_PER_MB_S = 60.0, 10.0, 2.0
#: after SIGTERM, how long MinerU (and vLLM workers) may take to exit before SIGKILL
KILL_GRACE_S = 5.0
VERSION_TIMEOUT_S = 60.0
STDERR_TAIL_LINES = 20
#: MinerU's page ranges: "1-5,8", "r3-r1" (from the end), "all"
_PAGES = re.compile(r"all|r?\d{1,6}(-r?\d{1,6})?(,r?\d{1,6}(-r?\d{1,6})?)*")


@dataclass(frozen=True)
class Engine:
    """How MinerU is run: `sdk` (MinerU 4 in a child Python), `kit` (mineru-kit), `legacy` (2.x/3.x)."""

    kind: str
    exe: str
    version: str


def load_with_mineru(
    pdf_path: str | os.PathLike,
    *,
    backend: str | None = None,
    url: str | None = None,
    timeout: float | None = None,
    cache: bool = True,
    tier: str | None = None,
    ocr_mode: str | None = None,
    pages: str | None = None,
    command: str | os.PathLike | None = None,
) -> Document:
    """Parse a PDF with MinerU (cached); the Document's doc_id is the PDF's sha256."""
    pdf = Path(pdf_path)
    tier, ocr_mode, pages = _checked_options(tier, ocr_mode, pages)
    page_count = len(pdf_page_sizes(pdf))
    seconds = _timeout(pdf, page_count, timeout)
    engine = find_engine(command)
    if engine.kind == "legacy":
        options = {"backend": backend or DEFAULT_BACKEND, "url": url}
    else:
        if backend is not None:
            raise UsageError(f"--mineru-backend is for MinerU 2.x/3.x; MinerU {engine.version} takes --mineru-tier")
        options = {"tier": tier, "ocr_mode": ocr_mode, "pages": pages, "url": url}
    doc_id = sha256_file(pdf)

    def parse() -> Document:
        doc = _run_and_load(engine, pdf, options, seconds)
        parser = ParserInfo("mineru", engine.version, {**doc.parser.options, **options, "engine": engine.kind})
        return dataclasses.replace(doc, doc_id=doc_id, source=pdf.name, parser=parser)

    return cached_parse(pdf, doc_id, "mineru", f"{engine.version}; rules {LOAD_RULES}; repairs {REPAIR_RULES}", options, parse, use_cache=cache)


def _checked_options(tier: str | None, ocr_mode: str | None, pages: str | None) -> tuple[str, str, str]:
    tier = tier or os.environ.get("CHUNKBENCH_MINERU_TIER") or DEFAULT_TIER
    if tier not in TIERS:
        raise UsageError(f"unknown MinerU tier {tier!r}; choose one of {', '.join(TIERS)}")
    ocr_mode = ocr_mode or "auto"
    if ocr_mode not in OCR_MODES:
        raise UsageError(f"unknown OCR mode {ocr_mode!r}; choose one of {', '.join(OCR_MODES)}")
    pages = (pages or "").replace(" ", "")
    if pages and not _PAGES.fullmatch(pages):
        raise UsageError(f"page range {pages!r} is not like 1-5,8 or r3-r1 or all")
    return tier, ocr_mode, "" if pages == "all" else pages


def find_engine(command: str | os.PathLike | None = None) -> Engine:
    """The MinerU to run (see the module doc for the order); ExternalToolError when there is none."""
    command = command or os.environ.get(COMMAND_ENV) or None
    if command is not None:
        exe = shutil.which(os.fspath(command))
        if exe is None:
            raise ExternalToolError(f"MinerU command not found or not executable: {os.fspath(command)}")
        return _cli_engine(exe)
    if importlib.util.find_spec("mineru") is not None:
        try:
            version = importlib.metadata.version("mineru")
        except importlib.metadata.PackageNotFoundError:
            version = ""
        if _major(version) >= 4:
            return Engine("sdk", sys.executable, version)
    for name in ("mineru-kit", "mineru"):
        exe = _beside_interpreter(name) or shutil.which(name)
        if exe is not None:
            return _cli_engine(exe)
    raise ExternalToolError(
        "MinerU not found: no MinerU 4 SDK in this Python, no mineru-kit or mineru beside it or on PATH "
        "(install it with: pip install 'chunkbench[mineru]')"
    )


def _beside_interpreter(name: str) -> str | None:
    """`name` in the running interpreter's bin folder (a venv used without activating it)."""
    candidate = Path(sys.executable).parent / name
    return os.fspath(candidate) if candidate.is_file() and os.access(candidate, os.X_OK) else None


def _cli_engine(exe: str) -> Engine:
    version = mineru_version(exe)
    major = _major(version)
    if major >= 4:
        if Path(exe).name.startswith("mineru-kit"):
            return Engine("kit", exe, version)
        kit = Path(exe).parent / "mineru-kit"
        if kit.is_file():
            return Engine("kit", os.fspath(kit), version)
        raise ExternalToolError(f"{exe} is MinerU {version}, but its mineru-kit command is not beside it")
    if major in (2, 3):
        return Engine("legacy", exe, version)
    raise ExternalToolError(
        f"{exe} reports MinerU version {version!r}: supported are MinerU 4 (SDK or mineru-kit) and the "
        "MinerU 2.x/3.x command line"
    )


def _major(version: str) -> int:
    match = re.match(r"(\d+)\.", version)
    return int(match.group(1)) if match else -1


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
    match = re.search(r"\d+(?:\.\d+)+\S*", out)  # "mineru, version 2.5.4" / "MinerU version: 4.0.12"
    return match.group(0) if match else out.splitlines()[-1][:100]


def _timeout(pdf: Path, pages: int, explicit: float | None) -> float:
    """Seconds MinerU may run: `explicit`, else $CHUNKBENCH_MINERU_TIMEOUT, else grown with the PDF."""
    if explicit is None and os.environ.get(TIMEOUT_ENV, "").strip():
        explicit = env_number(TIMEOUT_ENV, 0, minimum=1e-3, unit=" (seconds)")
    if explicit is not None:
        if not explicit > 0:
            raise UsageError(f"MinerU timeout must be a positive number of seconds, got {explicit}")
        return float(explicit)
    megabytes = pdf.stat().st_size / 1e6
    return TIMEOUT_BASE_S + TIMEOUT_PER_PAGE_S * pages + TIMEOUT_PER_MB_S * megabytes


def _run_and_load(engine: Engine, pdf: Path, options: dict, seconds: float) -> Document:
    """Run MinerU into a temporary folder and load what it wrote."""
    with tempfile.TemporaryDirectory(prefix="chunkbench-mineru-") as tmp:
        out = Path(tmp) / "out"
        stderr_file = Path(tmp) / "stderr.log"
        cmd, expected = _command(engine, pdf.resolve(), out, options)
        _run(cmd, stderr_file, seconds, pdf, _hint(engine, options))
        tail = _tail(stderr_file)
        if expected is not None:  # MinerU 4: one middle JSON
            if not expected.is_file():
                raise ExternalToolError(f"mineru {engine.version} exited 0 but wrote no {expected.name}", pdf, tail)
            result = expected
        elif not out.is_dir():
            raise ExternalToolError("mineru exited 0 but wrote nothing to its output folder", pdf, tail)
        else:
            try:
                result = find_content_list(out)
            except InputError as exc:
                raise ExternalToolError(f"mineru exited 0 but wrote no usable content_list: {exc.message}", pdf,
                                        tail) from None
        try:
            return load_mineru(result, pdf=pdf)
        except InputError as exc:
            problem = f"mineru wrote an unreadable {result.name}: {exc.message}"
            raise ExternalToolError(problem, pdf, tail) from None


def _command(engine: Engine, pdf: Path, out: Path, options: dict) -> tuple[list[str], Path | None]:
    """The command line of one run, and the middle JSON file it writes (None: a 2.x/3.x folder)."""
    if engine.kind == "legacy":
        cmd = [engine.exe, "-p", os.fspath(pdf), "-o", os.fspath(out), "-b", options["backend"]]
        if options["url"]:
            cmd += ["-u", options["url"]]
        return cmd, None
    out.mkdir(parents=True)
    if engine.kind == "sdk":
        target = out / "middle.json"
        cmd = [engine.exe, "-m", "chunkbench.loaders.mineru.sdk_child", os.fspath(pdf), os.fspath(target),
               options["tier"], options["ocr_mode"], options["pages"], options["url"] or ""]
        return cmd, target
    cmd = [engine.exe, "parse", os.fspath(pdf), "-o", os.fspath(out), "-f", "middle_json",
           "--tier", options["tier"], "--ocr-mode", options["ocr_mode"]]
    if options["pages"]:
        cmd += ["-p", options["pages"]]
    if options["url"]:
        cmd += ["--remote-url", options["url"]]
    return cmd, out / f"{pdf.stem}.json"


def _hint(engine: Engine, options: dict) -> str:
    """Advice added to a failed run: higher MinerU 4 tiers need a GPU and downloaded models."""
    higher_tier = engine.kind != "legacy" and options.get("tier") != DEFAULT_TIER and not options.get("url")
    if higher_tier and shutil.which("nvidia-smi") is None:
        return f" (tier {options['tier']} needs models from a hub and a GPU, and none was found: try --mineru-tier flash)"
    return ""


def _run(cmd: list[str], stderr_file: Path, seconds: float, pdf: Path, hint: str = "") -> None:
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
        hint = hint or _download_hint(tail)
        raise ExternalToolError(f"mineru {how}" + (f": {last}" if last else "") + hint, pdf, tail)


#: a failed download of models in MinerU's log (its hubs: modelscope, Hugging Face)
_FAILED_DOWNLOAD = re.compile(r"(modelscope|huggingface|hf_hub).*(NetworkError|Connection|resolve|Max retries)", re.I)


def _download_hint(tail: str) -> str:
    """Advice added when MinerU failed to download models: the flash tier needs none for a PDF's
    text layer, but in OCR mode auto it fetches OCR models for a page it judges has no usable text."""
    if not _FAILED_DOWNLOAD.search(tail):
        return ""
    return (" (MinerU could not download models, which it fetches to OCR pages without a usable text"
            " layer: --ocr-mode txt reads the PDF's text only; the pymupdf backend needs no download)")


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
