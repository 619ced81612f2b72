"""The MinerU 2.x/3.x runner path against a stand-in `mineru` (tests/fake_mineru/mineru), chosen
with $CHUNKBENCH_MINERU; the real MinerU 4 is tested in test_mineru4.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import chunkbench
from chunkbench.errors import ExternalToolError, InputError, UsageError
from chunkbench.loaders.mineru import run
from chunkbench.loaders.mineru.run import STDERR_TAIL_LINES, TIMEOUT_ENV, _timeout, load_with_mineru
from chunkbench.types.document import sha256_file
from tests.support import paths
from tests.support.paths import MINERU_FIXTURES, ROOT, mineru_fixture

FAKE_MINERU = paths.FAKE_MINERU / "mineru"
PAPER = MINERU_FIXTURES / "naacl-long-122"


@pytest.fixture
def pdf(tmp_path) -> Path:
    """The fixture PDF under another name: MinerU names its output after the PDF."""
    return Path(shutil.copyfile(mineru_fixture(PAPER.name, f"{PAPER.name}.pdf"), tmp_path / "paper.pdf"))


@pytest.fixture
def fake(tmp_path, monkeypatch, fresh_cache):
    """Put the stand-in `mineru` first on PATH; returns a function that sets its mode."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "mineru"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_MINERU}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CHUNKBENCH_MINERU", os.fspath(wrapper))  # chosen over the MinerU 4 SDK installed here
    monkeypatch.setenv("FAKE_MINERU_FIXTURE", os.fspath(PAPER))
    monkeypatch.setenv("FAKE_MINERU_LOG", os.fspath(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("FAKE_MINERU_PIDS", os.fspath(tmp_path / "pids"))
    monkeypatch.delenv("CHUNKBENCH_MINERU_TIMEOUT", raising=False)

    def set_mode(mode: str) -> None:
        monkeypatch.setenv("FAKE_MINERU_MODE", mode)

    set_mode("ok")
    return set_mode


def calls(tmp_path) -> list[dict]:
    """The parse calls the stand-in received: {"argv": [...], "parse_dir": "paper/vlm"}."""
    log = tmp_path / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def option(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def started_pids(tmp_path) -> list[int]:
    """The stand-in's pid and that of the child it started (hang and orphan modes)."""
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert len(pids) == 2
    return pids


def assert_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + 5  # the orphaned child is reaped by init, not by us
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in pids)


@pytest.mark.parametrize(
    "backend, parse_dir",
    [(None, "vlm"), ("pipeline", "auto"), ("hybrid-auto-engine", "hybrid_auto"), ("vlm-http-client", "vlm")],
)
def test_success_loads_the_output_of_each_backend(tmp_path, fake, pdf, backend, parse_dir):
    url = "http://127.0.0.1:30000" if backend and backend.endswith("http-client") else None
    doc = load_with_mineru(pdf, backend=backend, url=url)
    (call,) = calls(tmp_path)
    argv = call["argv"]
    assert call["parse_dir"] == f"paper/{parse_dir}"
    assert option(argv, "-p") == os.fspath(pdf.resolve())
    assert option(argv, "-b") == (backend or "vlm-vllm-engine")
    assert option(argv, "-u") == url
    raw = json.loads((PAPER / "naacl-long-122_content_list.json").read_text("utf-8"))
    assert len(doc.elements) == len(raw)
    assert doc.doc_id == sha256_file(pdf) and doc.source == "paper.pdf" and doc.pdf_path == os.fspath(pdf)
    assert doc.parser.name == "mineru" and doc.parser.version == "2.5.4"
    assert doc.parser.options["backend"] == (backend or "vlm-vllm-engine")
    assert doc.warnings == () and all(e.bbox is not None for e in doc.elements)
    assert [(p.width, p.height) for p in doc.pages] == [(p.width, p.height) for p in chunkbench.load(PAPER).pages]


def test_second_load_comes_from_the_cache(tmp_path, fake, pdf):
    first = load_with_mineru(pdf)
    fake("fail")
    again = load_with_mineru(pdf)
    assert again.to_dict() == first.to_dict()
    assert len(calls(tmp_path)) == 1
    with pytest.raises(ExternalToolError):
        load_with_mineru(pdf, cache=False)


def test_failure_reports_exit_code_and_stderr_tail(fake, pdf):
    fake("fail")
    with pytest.raises(ExternalToolError) as info:
        load_with_mineru(pdf)
    err = info.value
    assert err.exit_code == 4 and err.path == os.fspath(pdf)
    assert err.message == "mineru failed with exit code 1: RuntimeError: CUDA out of memory"
    lines = err.stderr_tail.splitlines()
    assert len(lines) == STDERR_TAIL_LINES
    assert lines[-1] == "RuntimeError: CUDA out of memory" and "processing batch 29" in lines[-2]
    assert "Using backend" not in err.stderr_tail  # the head of the log is cut


def test_a_failed_model_download_says_what_to_do_offline(fake, pdf, monkeypatch):
    """MinerU 4's flash tier in OCR mode auto fetches OCR models for a page it judges has no usable
    text; offline, it dies in modelscope (its real log, replayed by the stand-in)."""
    log = ROOT / "tests" / "data" / "mineru_logs" / "ocr_models_offline.log"
    monkeypatch.setenv("FAKE_MINERU_STDERR", os.fspath(log))
    fake("fail")
    with pytest.raises(ExternalToolError) as info:
        load_with_mineru(pdf)
    message = info.value.message
    assert message.startswith("mineru failed with exit code 1: modelscope_hub.errors.NetworkError")
    assert message.endswith("--ocr-mode txt reads the PDF's text only; the pymupdf backend needs no download)")
    # a failure that is not a download gets no such advice
    monkeypatch.delenv("FAKE_MINERU_STDERR")
    with pytest.raises(ExternalToolError) as info:
        load_with_mineru(pdf, cache=False)
    assert "download" not in info.value.message


def test_timeout_kills_the_whole_process_group(tmp_path, fake, pdf):
    fake("hang")
    start = time.monotonic()
    with pytest.raises(ExternalToolError, match="timed out after 2 s") as info:
        load_with_mineru(pdf, timeout=2)
    elapsed = time.monotonic() - start
    assert 2 <= elapsed < 6  # SIGTERM ends the stand-in at once: no need for the SIGKILL grace
    assert "loading model" in info.value.stderr_tail
    assert_gone(started_pids(tmp_path))


def test_workers_left_behind_by_a_successful_run_are_stopped(tmp_path, fake, pdf):
    fake("orphan")
    assert load_with_mineru(pdf).elements
    assert_gone(started_pids(tmp_path))


def test_timeout_from_the_environment(fake, pdf, monkeypatch):
    fake("hang")
    monkeypatch.setenv("CHUNKBENCH_MINERU_TIMEOUT", "1.5")
    with pytest.raises(ExternalToolError, match="timed out after 1.5 s"):
        load_with_mineru(pdf)


def test_timeout_precedence_and_default_growth(pdf, monkeypatch):
    monkeypatch.delenv(TIMEOUT_ENV, raising=False)
    megabytes = pdf.stat().st_size / 1e6
    assert _timeout(pdf, 11, None) == pytest.approx(60 + 10 * 11 + 2 * megabytes)
    assert _timeout(pdf, 300, None) > _timeout(pdf, 11, None)
    monkeypatch.setenv(TIMEOUT_ENV, "42")
    assert _timeout(pdf, 11, None) == 42 and _timeout(pdf, 11, 7) == 7
    monkeypatch.setenv(TIMEOUT_ENV, "soon")
    with pytest.raises(UsageError, match=TIMEOUT_ENV):
        _timeout(pdf, 11, None)
    with pytest.raises(UsageError, match="positive"):
        _timeout(pdf, 11, 0)


def test_a_broken_pdf_is_an_input_error_not_a_mineru_run(tmp_path, fake):
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7 truncated")
    with pytest.raises(InputError, match="cannot open PDF"):
        load_with_mineru(broken)
    assert calls(tmp_path) == []


def test_no_content_list_written(fake, pdf):
    fake("empty")
    with pytest.raises(ExternalToolError, match="mineru exited 0 but wrote no usable content_list"):
        load_with_mineru(pdf)


def test_unreadable_content_list(fake, pdf):
    fake("garbage")
    with pytest.raises(ExternalToolError, match="unreadable paper_content_list.json: not valid JSON"):
        load_with_mineru(pdf)


def test_missing_executable(tmp_path, monkeypatch, pdf, fresh_cache):
    """No SDK in this Python, nothing beside the interpreter, nothing on PATH: one error, exit 4."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", os.fspath(empty))
    monkeypatch.delenv("CHUNKBENCH_MINERU", raising=False)
    monkeypatch.setattr(run.importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(run, "_beside_interpreter", lambda name: None)
    with pytest.raises(ExternalToolError, match="MinerU not found: no MinerU 4 SDK") as info:
        chunkbench.load(pdf, backend="mineru")
    assert info.value.exit_code == 4


def test_cli_parse_exits_4_with_one_error_line(tmp_path, fake, pdf):
    fake("fail")
    env = {**os.environ, "CHUNKBENCH_CACHE_DIR": os.fspath(tmp_path / "cli-cache")}
    done = subprocess.run(
        [sys.executable, "-m", "chunkbench", "parse", os.fspath(pdf), "--backend", "mineru"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120,
    )
    assert done.returncode == 4, done.stderr
    first, *tail = done.stderr.splitlines()
    assert first == f"chunkbench: error: {pdf}: mineru failed with exit code 1: RuntimeError: CUDA out of memory"
    assert not any(line.startswith("chunkbench:") for line in tail)  # the rest is MinerU's own log tail
    assert tail[-1] == "RuntimeError: CUDA out of memory" and len(tail) == STDERR_TAIL_LINES
    assert done.stdout == ""
