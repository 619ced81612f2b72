"""Hostile and careless command lines: each case asserts the exit code, that stderr is one
line naming the file and the problem (escaped), and that no output file was written or clobbered.

Classes: the output-path policy, loaders bounded by their document's evidence, text escaped before
it reaches the terminal, malformed PDFs, --meta values, empty results, stale temp files."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT, SAMPLE_PDFS

MANUAL = SAMPLE_PDFS / "technical_manual.pdf"


def cli(*args, cwd=None) -> subprocess.CompletedProcess:
    """The command run in this process, as `python -m chunkbench` runs it: its exit code, stdout and
    stderr (a process of its own costs a second of CPU each; `cli_process` where one is needed)."""
    from chunkbench.ui.cli import main

    argv = [os.fspath(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd or os.getcwd()), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 1
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def cli_process(*args, cwd=None) -> subprocess.CompletedProcess:
    """The command in a process of its own: for what only a process shows (its streams, its end)."""
    return subprocess.run([sys.executable, "-m", "chunkbench", *map(os.fspath, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def one_error(done: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    """The run exited `code` with exactly one stderr line (no traceback) holding every needle."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == code, (done.returncode, done.stderr)
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("chunkbench: error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


@pytest.fixture
def pdf(tmp_path) -> Path:
    return Path(shutil.copyfile(MANUAL, tmp_path / "manual.pdf"))


@pytest.fixture
def text_input(tmp_path) -> Path:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n\nSome text that makes a chunk.\n\n## More\n\nAnother paragraph.\n")
    return path


# -- output-path policy --------------------------------------------------------------------------

def test_output_is_the_input_pdf(pdf):
    before = pdf.read_bytes()
    one_error(cli("chunk", pdf, "-o", pdf), 2, "--output is the input file", "refusing to overwrite")
    assert pdf.read_bytes() == before


def test_output_is_the_input_spelled_otherwise(pdf, tmp_path):
    before = pdf.read_bytes()
    (tmp_path / "sub").mkdir()
    one_error(cli("chunk", pdf, "-o", tmp_path / "sub" / ".." / "manual.pdf"), 2, "is the input file")
    one_error(cli("chunk", "manual.pdf", "-o", "./manual.pdf", cwd=tmp_path), 2, "is the input file")
    assert pdf.read_bytes() == before


def test_output_is_a_hard_link_or_symlink_to_the_input(pdf, tmp_path):
    before = pdf.read_bytes()
    os.link(pdf, tmp_path / "hard.json")
    (tmp_path / "soft.json").symlink_to(pdf)
    one_error(cli("chunk", pdf, "-o", tmp_path / "hard.json"), 2, "is the input file")
    one_error(cli("chunk", pdf, "-o", tmp_path / "soft.json"), 2, "is the input file")
    assert pdf.read_bytes() == before


def test_parse_output_is_the_input(text_input):
    before = text_input.read_text()
    one_error(cli("parse", text_input, "-o", text_input), 2, "is the input file")
    assert text_input.read_text() == before


def test_two_outputs_on_one_path(text_input, tmp_path):
    out = tmp_path / "x"
    one_error(cli("chunk", text_input, "-o", out, "--debug-md", out), 2, "--output and --debug-md name the same path")
    one_error(cli("chunk", text_input, "-o", out, "--jsonl", tmp_path / "." / "x"), 2, "--output and --jsonl")
    assert not out.exists()


def test_two_outputs_one_through_a_symlink(text_input, tmp_path):
    (tmp_path / "link.md").symlink_to(tmp_path / "real.json")
    one_error(cli("chunk", text_input, "-o", tmp_path / "real.json", "--debug-md", tmp_path / "link.md"), 2,
              "name the same path")


def test_symlink_output_is_written_through(text_input, tmp_path):
    target = tmp_path / "store" / "chunks.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    done = cli("chunk", text_input, "-o", link)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and json.loads(target.read_text())["chunks"]


def test_dangling_symlink_output_creates_its_target(text_input, tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    assert cli("chunk", text_input, "-o", link).returncode == 0
    assert link.is_symlink() and json.loads((tmp_path / "new.json").read_text())["chunks"]


def test_symlink_loop_output(text_input, tmp_path):
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    one_error(cli("chunk", text_input, "-o", tmp_path / "a.json"), 2, "symlink loop")


@pytest.mark.parametrize("device", ["/dev/stdout", "/dev/null", "/proc/self/fd/1"])
def test_devices_are_refused(text_input, device):
    one_error(cli_process("chunk", text_input, "-o", device), 2, "device or system path")  # its own fd 1


def test_a_dash_is_not_a_file_named_dash(text_input, tmp_path, capsys):
    """`-o -` wrote a file named '-' in the working folder, exit 0, where the user meant stdout."""
    from chunkbench.ui.cli import main

    for argv in (["chunk", str(text_input), "-o", "-"], ["render", str(text_input), "-o", "-"]):
        assert main(argv) == 2, argv
        assert "would write a file named '-'" in capsys.readouterr().err
    assert not Path("-").exists()


def test_fifo_is_refused(text_input, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    one_error(cli("chunk", text_input, "-o", fifo), 2, "not a regular file")


def test_output_is_an_existing_folder(text_input, tmp_path):
    one_error(cli("chunk", text_input, "-o", tmp_path), 2, "--output is a folder, expected a file name")
    one_error(cli("parse", text_input, "-o", tmp_path), 2, "--output is a folder")


@pytest.mark.parametrize("command", [
    ["render", "--pages", "1"], ["diff", "--a", "strategy=tokens", "--b", "strategy=recursive"],
])
def test_folder_outputs_that_are_files(pdf, tmp_path, command):
    existing = tmp_path / "report"
    existing.write_text("a file")
    one_error(cli(command[0], pdf, *command[1:], "-o", existing), 2, "--output is a file, expected a folder")
    assert existing.read_text() == "a file"


def test_sweep_output_is_a_file(text_input, tmp_path):
    existing = tmp_path / "sweep"
    existing.write_text("x")
    one_error(cli("sweep", text_input, "--grid", "max_chunk_size=500", "-o", existing), 2, "is a file, expected a folder")


def test_output_under_a_file_is_an_os_error_exit_2(text_input, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    line = one_error(cli("chunk", text_input, "-o", blocker / "chunks.json"), 2, "cannot write")
    assert os.fspath(blocker) in line
    one_error(cli("parse", text_input, "-o", blocker / "elements.json"), 2, "cannot write")
    one_error(cli("render", text_input, "-o", blocker / "report"), 2, "cannot write")


# -- loaders bounded by their document's evidence ------------------------------------------------

@pytest.mark.parametrize("name, content, needle", [
    ("x_content_list.json", '[{"type":"text","text":"a","page_idx":1000000000}]', "beyond any real document"),
    ("middle.json", json.dumps({"schema": "docvortex.middle", "schema_version": "2.0", "pages": [
        {"page_idx": 10 ** 9, "blocks": [{"type": "text", "content": [{"type": "text", "content": "a"}]}]}]}),
     "beyond any real document"),
    ("docling.json", json.dumps({"schema_name": "DoclingDocument", "version": "1.10.0", "pages": {
        "1000000000": {"page_no": 1000000000, "size": {"width": 1, "height": 1}}}}), "page_no must be between 1 and"),
    ("deep.json", "[" * 200_000 + "]" * 200_000, "nested too deeply"),
    ("deep_object.json", '{"a":' * 200_000 + "1" + "}" * 200_000, "nested too deeply"),
], ids=["page_idx_1e9", "middle_page_idx_1e9", "docling_page_no_1e9", "deep_list", "deep_object"])  # the id goes into its environment
def test_absurd_documents_fail_fast(tmp_path, name, content, needle):
    path = tmp_path / name
    path.write_text(content)
    one_error(cli("chunk", path, "-o", tmp_path / "out.json"), 3, needle, os.fspath(path))
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("name, content", [
    ("x_content_list.json", '[{"type":"text","text":"a\\ud800b","page_idx":0}]'),
    ("document.json", '{"blocks":[{"block_id":"b1","type":"paragraph","text":"\\udc00"}]}'),
    ("docling.json", '{"schema_name":"DoclingDocument","version":"1.10.0","name":"\\ud83d"}'),
])
def test_lone_surrogates_in_json_inputs(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content)
    one_error(cli("chunk", path, "-o", tmp_path / "out.json"), 3, "lone surrogate", os.fspath(path))


def test_lone_surrogate_in_a_chunk_file(text_input, tmp_path):
    chunks = tmp_path / "chunks.json"
    chunks.write_text('["Some text\\ud800"]')
    one_error(cli("chunk", text_input, "--chunks", chunks, "-o", tmp_path / "out.json"), 3, "lone surrogate",
              os.fspath(chunks))


def test_a_surrogate_pair_is_fine(tmp_path):
    path = tmp_path / "x_content_list.json"
    path.write_text('[{"type":"text","text":"smile \\ud83d\\ude00 please","page_idx":0}]')
    done = cli("chunk", path, "-o", tmp_path / "out.json")
    assert done.returncode == 0 and "\U0001F600" in (tmp_path / "out.json").read_text(encoding="utf-8")


# -- text escaped before it reaches the terminal --------------------------------------------------

@pytest.mark.parametrize("name", ["bad\nchunkbench: error: forged.json", "esc\x1b[31mred.json", "bidi\u202etxt.json",
                                  "cr\rover.json"])
def test_file_names_cannot_forge_or_colour_lines(tmp_path, name):
    path = tmp_path / name
    path.write_text("")  # empty: an input error naming the file
    line = one_error(cli("chunk", path, "-o", tmp_path / "o.json"), 3, "not a JSON object or list")
    assert not any(c in line for c in "\x1b\r\u202e")
    assert "\\x0a" in line or "\\x1b" in line or "\\u202e" in line or "\\x0d" in line


def test_document_text_is_escaped_on_stdout(tmp_path):
    path = tmp_path / "evil.md"
    path.write_text("# Title \x1b]0;pwned\x07 here\n\nBody \x1b[2J text.\n")
    done = cli("info", path)
    assert done.returncode == 0
    assert "\x1b" not in done.stdout and "\\x1b" in done.stdout
    table = cli("chunk", path)
    assert table.returncode == 0 and "\x1b" not in table.stdout


def test_warnings_escape_the_file_name(tmp_path):
    path = tmp_path / "a\x1bb.pdf"
    shutil.copyfile(SAMPLE_PDFS / "technical_manual.pdf", path)
    done = cli("chunk", path, "--mineru-pages", "1", "-o", tmp_path / "o.json", "--fail-on-empty")
    assert "\x1b" not in done.stderr and "\x1b" not in done.stdout


# -- malformed PDFs: exit 3, not a crash ----------------------------------------------------------

def _broken_pdf(tmp_path, old: bytes, new: bytes, name: str) -> Path:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 400), "Hello world")
    raw = doc.tobytes(garbage=0, deflate=False, no_new_id=True)
    assert old in raw
    path = tmp_path / name
    path.write_bytes(raw.replace(old, new))  # offsets shift: MuPDF repairs the xref, as for real broken files
    return path


@pytest.mark.parametrize("new, needle", [
    (b"/Count 1000000000/Kids[4 0 R]", "damaged page tree"),
    (b"/Count 1/Kids[2 0 R]", "cycle in page tree"),
    (b"/Count 2/Kids[4 0 R 2 0 R]", "cycle in page tree"),
])
def test_damaged_page_trees(tmp_path, new, needle):
    path = _broken_pdf(tmp_path, b"/Count 1/Kids[4 0 R]", new, "broken.pdf")
    one_error(cli("chunk", path, "--no-cache", "-o", tmp_path / "o.json"), 3, needle, os.fspath(path))
    assert not (tmp_path / "o.json").exists()


# -- --meta values --------------------------------------------------------------------------------

@pytest.mark.parametrize("value, needle", [
    ("x:=NaN", "finite numbers"), ("x:=1e999", "finite numbers"), ("x:=-Infinity", "finite numbers"),
    ("x:=" + "[" * 5000 + "]" * 5000, "nested at most 16 deep"), ("x:={oops", "expects a JSON value"),
    ("=value", "expects KEY=VALUE"), ("x:=" + "9" * 5000, "a number of 5,000 digits"),
])
def test_bad_meta_values(text_input, tmp_path, value, needle):
    one_error(cli("chunk", text_input, "--meta", value, "-o", tmp_path / "o.json"), 2, needle)
    assert not (tmp_path / "o.json").exists()


# -- empty results --------------------------------------------------------------------------------

@pytest.fixture
def furniture_only(tmp_path) -> Path:
    """A one-page PDF whose only text sits where the layout model reads page furniture."""
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Hello world")
    path = tmp_path / "furniture.pdf"
    doc.save(path)
    return path


def test_zero_chunks_warns_why(furniture_only, tmp_path):
    done = cli("chunk", furniture_only, "--no-cache", "-o", tmp_path / "o.json")
    assert done.returncode == 0
    assert "0 chunks: all 1 element(s) with text are page furniture" in done.stderr
    assert "--set skip_noise=false keeps them" in done.stderr


def test_fail_on_empty_exits_5_and_writes_nothing(furniture_only, tmp_path):
    one_error(cli("chunk", furniture_only, "--fail-on-empty", "-o", tmp_path / "o.json"), 5, "0 chunks")
    assert not (tmp_path / "o.json").exists()
    one_error(cli("render", furniture_only, "--fail-on-empty", "-o", tmp_path / "r"), 5, "0 chunks")
    assert not (tmp_path / "r").exists()
    assert cli("chunk", furniture_only, "--fail-on-empty", "--set", "skip_noise=false",
               "-o", tmp_path / "o.json").returncode == 0


# -- stale temp files -----------------------------------------------------------------------------

def test_temp_files_of_killed_runs_are_swept(text_input, tmp_path):
    out = tmp_path / "chunks.json"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp_path / f".chunks.json.{int(dead.stdout)}.abc123.tmp"
    stale.write_bytes(b"x" * 1000)
    alive = tmp_path / f".chunks.json.{os.getpid()}.def456.tmp"  # this test process still runs
    alive.write_bytes(b"y")
    assert cli("chunk", text_input, "-o", out).returncode == 0
    assert not stale.exists() and alive.exists() and out.exists()


# -- bounds at the boundary of the input (robustness round 3) -------------------------------------

def test_devices_named_as_inputs_are_refused_before_any_read(text_input, tmp_path, capsys):
    """/dev/zero as INPUT, as a symlink named .md or _content_list.json, as --chunks or as a
    questions file: one line naming it, exit 3, nothing read (it would never end)."""
    from chunkbench.ui.cli import main

    md, content_list = tmp_path / "zero.md", tmp_path / "zero_content_list.json"
    md.symlink_to("/dev/zero")
    content_list.symlink_to("/dev/zero")
    for argv in (["chunk", "/dev/zero"], ["chunk", str(md)], ["chunk", str(content_list)],
                 ["chunk", str(text_input), "--chunks", "/dev/urandom"],
                 ["evaluate", str(text_input), "--questions", "/dev/zero"]):
        assert main(argv) == 3, argv
        err = capsys.readouterr().err
        assert "not a regular file" in err and err.count("\n") == 1, err


def test_an_input_above_the_size_bound_is_refused(text_input, monkeypatch, capsys):
    from chunkbench.ui.cli import main

    monkeypatch.setenv("CHUNKBENCH_MAX_INPUT_BYTES", "10")
    assert main(["chunk", str(text_input)]) == 3
    assert "above the input bound of 10 (set CHUNKBENCH_MAX_INPUT_BYTES" in capsys.readouterr().err


def test_a_full_disk_names_the_file_being_written(text_input, tmp_path, monkeypatch, capsys):
    import errno

    from chunkbench.ui.cli import main

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "chunks.json"
    assert main(["chunk", str(text_input), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}: cannot write: No space left on device" in err and err.count("\n") == 1
    assert not out.exists() and not list(tmp_path.glob(".chunks.json.*.tmp"))


def test_the_workspace_says_what_is_wrong_with_it(text_input, tmp_path, capsys):
    import sqlite3

    from chunkbench.db.workspace import database_error
    from chunkbench.errors import InputError, UsageError
    from chunkbench.ui.cli import main

    full = database_error(sqlite3.OperationalError("database or disk is full"), tmp_path / "ws.db")
    readonly = database_error(sqlite3.OperationalError("attempt to write a readonly database"), tmp_path / "ws.db")
    assert isinstance(full, UsageError) and isinstance(readonly, UsageError) and full.exit_code == 2
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"SQLite format 3\x00" + b"\x07" * 4000)
    assert isinstance(database_error(sqlite3.DatabaseError("database disk image is malformed"), broken), InputError)
    assert main(["store", "save", str(text_input), "--workspace", str(broken)]) == 3
    err = capsys.readouterr().err
    assert "not a usable workspace database" in err and str(broken) in err and err.count("\n") == 1


def test_names_and_grids_that_would_forge_lines_or_run_forever_are_refused(text_input, tmp_path, capsys):
    from chunkbench.ui.cli import main

    chunks = tmp_path / "c.json"
    chunks.write_text('[{"text": "x"}]', "utf-8")
    for name in ("evil\nchunkbench: error: forged", "esc\x1b[31mred", ""):
        with pytest.raises(SystemExit) as stop:  # argparse's own exit, as from the shell
            main(["chunk", str(text_input), "--chunks", str(chunks), "--chunker", name])
        assert stop.value.code == 2 and "printable" in capsys.readouterr().err
    big = ",".join(str(n) for n in range(100, 10_200))
    out = tmp_path / "sweep"
    assert main(["sweep", str(text_input), "--grid", f"max_chunk_size={big}", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "the grid makes 10,100 points" in err and "--max-points" in err and not out.exists()
    assert main(["chunk", str(text_input), "--index-context", "1000000", "-o", str(tmp_path / "x.json")]) == 2
    assert "--index-context must be <= 20" in capsys.readouterr().err


def test_an_unknown_item_of_a_list_parameter_is_refused(text_input, capsys):
    from chunkbench.ui.cli import main

    assert main(["chunk", str(text_input), "--strategy", "contract", "--set", "noise_types=headers,footers"]) == 2
    err = capsys.readouterr().err
    assert "lists 'headers', 'footers', not one of" in err and err.count("\n") == 1
    assert main(["chunk", str(text_input), "--strategy", "contract", "--set", "noise_types=header,footer"]) == 0


@pytest.mark.parametrize("evidence, needle", [
    ('[{"evidence_page_num": "abc", "evidence_text": "t"}]', "evidence_page_num must be a 0-based page number, got 'abc'"),
    ('[{"evidence_page_num": 1e999}]', "holds 1e999 at line 1, column 101, beyond the largest number"),
    ('[{"evidence_page_num": Infinity}]', "holds Infinity at line 1, column 101, which JSON does not allow"),
    ('"the text"', "evidence must be a list"),
    ('[{"evidence_page_num": 1, "evidence_text": 5}]', "evidence_text must be a text, got int"),
])
def test_question_fields_of_the_wrong_type_are_input_errors(text_input, tmp_path, capsys, evidence, needle):
    """A FinanceBench row with a page 'abc' or Infinity, or evidence as a string, was a ValueError,
    OverflowError or AttributeError (exit 1); a sweep beside such a file failed every point so."""
    from chunkbench.ui.cli import main

    questions = tmp_path / "notes.questions.json"
    questions.write_text(f'[{{"financebench_id": "a", "doc_name": "notes", "question": "q?", "evidence": {evidence}}}]')
    assert main(["evaluate", str(text_input), "--questions", str(questions)]) == 3
    err = capsys.readouterr().err
    assert needle in err and str(questions) in err and err.count("\n") == 1
    assert main(["sweep", str(text_input), "--grid", "max_chunk_size=200,400", "-o", str(tmp_path / "s"),
                 "--notebooks", "none", "--no-progress"]) == 3
    assert needle in capsys.readouterr().err


def test_nan_and_infinity_are_refused_in_documents_and_null_in_chunk_metadata(text_input, tmp_path, capsys):
    """NaN and Infinity (Python's json.dump writes them; JSON does not allow them) in a MinerU page
    size were exit 1 "produced a value JSON cannot hold" at export: a document holding them is exit 3
    naming the file; in a chunk file (metadata from pandas, say) they are read as null."""
    from chunkbench.ui.cli import main

    middle = tmp_path / "x_middle.json"
    block = {"type": "text", "bbox": [10, 10, 100, 30], "lines": [{"bbox": [10, 10, 100, 30], "spans": [
        {"type": "text", "content": "Hello world", "bbox": [10, 10, 100, 30]}]}]}
    middle.write_text(json.dumps({"pdf_info": [{"page_idx": 0, "page_size": [float("inf"), 792],
                                               "para_blocks": [block]}], "_backend": "pipeline"}))
    out = tmp_path / "out.json"
    assert main(["chunk", str(middle), "-o", str(out)]) == 3
    err = capsys.readouterr().err
    assert "holds Infinity at line 1, column 45, which JSON does not allow" in err and str(middle) in err and not out.exists()
    chunks = tmp_path / "chunks.json"
    chunks.write_text('[{"text": "Some text that makes a chunk.", "metadata": {"score": NaN, "w": -Infinity}}]')
    assert main(["chunk", str(text_input), "--chunks", str(chunks), "-o", str(out)]) == 0
    [chunk] = json.loads(out.read_text())["chunks"]
    assert chunk["foreign_metadata"] == {"score": None, "w": None}


def test_a_page_too_large_for_the_dpi_is_drawn_at_a_lower_one(tmp_path, monkeypatch, capsys):
    """A 200-inch page at 600 dpi was MuPDF's "Overly large image" (exit 1): the page is drawn at the
    dpi that fits the raster bound, with one warning line saying so."""
    import pymupdf

    from chunkbench.ui.cli import main
    from chunkbench.ui.render import image

    assert image.fitting_dpi(14_400, 14_400, 600) * 200 <= 1.01 * image.MAX_PAGE_PIXELS ** 0.5
    assert image.fitting_dpi(612, 792, 600) == 600
    monkeypatch.setattr(image, "MAX_PAGE_PIXELS", 2_000_000)  # the same path, on a page that renders fast
    pdf = pymupdf.open()
    pdf.new_page(width=1440, height=1440).insert_text((100, 100), "A poster with one line of text on it.", fontsize=40)
    pdf.save(tmp_path / "poster.pdf")
    out = tmp_path / "out"
    assert main(["render", str(tmp_path / "poster.pdf"), "--dpi", "600", "-o", str(out),
                 "--set", "skip_noise=false"]) == 0
    warning = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warning) == 1 and "page 1 drawn at 68 dpi, not 600: its image would hold" in warning[0]
    png = (out / "page-001.png").read_bytes()
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width * height <= 2_000_000 * 1.02 and height > 1000


# -- the environment and the standard streams ------------------------------------------------------

ENV_INPUTS = {"CHUNKBENCH_MAX_INPUT_BYTES": "text", "CHUNKBENCH_MAX_HTML_BYTES": "html",
              "CHUNKBENCH_PAGE_TIMEOUT": "pdf", "CHUNKBENCH_PROGRESS_SECONDS": "pdf"}


@pytest.mark.parametrize("name", sorted(ENV_INPUTS))
@pytest.mark.parametrize("value", ["abc", "nan", "1e999", "-1", "0x10", "9" * 200])
def test_a_bad_number_in_the_environment_is_a_usage_error_naming_it(text_input, pdf, tmp_path, monkeypatch,
                                                                      capsys, name, value):
    """Every number chunkbench reads from the environment (runtime.env_number): a value that is no
    number, not finite, negative or absurdly long is exit 2 and one line naming the variable
    (`abc`, `1e3` were exit 1 with a ValueError; `-1` refused every input)."""
    from chunkbench.ui.cli import main

    inputs = {"text": text_input, "html": ROOT / "tests/data/html/pandoc.html", "pdf": pdf}
    monkeypatch.setenv("CHUNKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(name, value)
    assert main(["chunk", str(inputs[ENV_INPUTS[name]]), "-o", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"the environment variable {name} must be" in err[0], err
    assert not (tmp_path / "c.json").exists()


def test_numbers_in_the_environment_may_be_written_as_people_write_them(text_input, monkeypatch, capsys):
    from chunkbench.ui.cli import main

    size = text_input.stat().st_size
    monkeypatch.setenv("CHUNKBENCH_MAX_INPUT_BYTES", "1e1")
    assert main(["chunk", str(text_input)]) == 3
    assert "above the input bound of 10 " in capsys.readouterr().err
    for value in (f"{size}", f"{size}.0", "1_000_000", f" {size} "):
        monkeypatch.setenv("CHUNKBENCH_MAX_INPUT_BYTES", value)
        assert main(["chunk", str(text_input)]) == 0, value
    monkeypatch.setenv("CHUNKBENCH_MAX_INPUT_BYTES", "0")  # a bound of no bytes refuses every input: a usage error
    assert main(["chunk", str(text_input)]) == 2


def test_no_module_reads_a_number_from_the_environment_by_itself():
    """The class, not the case: one reader of numbers from the environment (runtime.env_number)."""
    import re

    pattern = re.compile(r"\b(?:int|float)\(\s*os\.(?:environ|getenv)")
    found = [f"{path.relative_to(ROOT)}:{n}" for path in (ROOT / "chunkbench").rglob("*.py")
             for n, line in enumerate(path.read_text("utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, found


def test_an_encoding_without_the_document_s_characters_escapes_them():
    """PYTHONIOENCODING=ascii (or a C locale): document text that the encoding lacks is printed as
    \\u escapes, exit 0 (`info` of a PDF with an en dash in a heading was exit 1, UnicodeEncodeError)."""
    done = subprocess.run([sys.executable, "-m", "chunkbench", "info", os.fspath(SAMPLE_PDFS / "contract_services_agreement.pdf")],
                          capture_output=True, env={**os.environ, "PYTHONIOENCODING": "ascii"}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert b"SCHEDULE A \\u2013 FEES" in done.stdout and done.stdout.isascii()


@pytest.mark.parametrize("closed, found, code, message", [
    (">&-", True, 2, "chunkbench: error: standard output: cannot write: it is closed"),
    ("2>&-", False, 3, ""),
    (">&- 2>&-", True, 2, ""),
])
def test_a_command_started_with_a_closed_stream_says_so_or_keeps_its_exit_code(text_input, tmp_path, closed, found,
                                                                                 code, message):
    """`>&-` makes Python's stdout None: writing to it was exit 1 with AttributeError. A closed
    stdout is exit 2 said on stderr, after the chunks file is written; a closed stderr keeps the
    exit code of what happened (a missing input: 3)."""
    out = tmp_path / "c.json"
    given = text_input if found else tmp_path / "missing.md"
    line = f"{shlex.quote(sys.executable)} -m chunkbench chunk {shlex.quote(str(given))} -o {shlex.quote(str(out))} {closed}"
    done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=300)
    assert done.returncode == code, done.stderr
    assert done.stderr.startswith(message) and (message or not done.stderr) and done.stderr.count("\n") <= 1, done.stderr
    assert out.exists() == found


HUGE = "9" * 5000


@pytest.mark.parametrize("kind", ["content_list", "docling", "elements", "chunk_file", "chunks_json", "questions"])
@pytest.mark.parametrize("number, needle", [(HUGE, "a number of 5,000 digits"), ("1e999", "beyond the largest number")],
                         ids=["5000_digits", "1e999"])
def test_a_number_no_document_backs_is_refused_in_every_json_input(text_input, tmp_path, capsys, kind, number, needle):
    """A 5,000-digit integer (Python's json refuses more than 4,300 digits with a ValueError: exit 1)
    or a number beyond a float's range (read as infinity) in any JSON input chunkbench reads: exit 3,
    one line naming the file and where (io.jsonin, the one reader of JSON inputs). A chunk file
    (a chunks.json given to diff is one) reads an infinite value as null, as it does NaN."""
    from chunkbench.ui.cli import main

    out = tmp_path / "out"
    assert main(["parse", str(text_input), "-o", str(tmp_path / "notes.elements.json")]) == 0
    assert main(["chunk", str(text_input), "-o", str(tmp_path / "good.json")]) == 0
    good = json.loads((tmp_path / "good.json").read_text("utf-8"))
    bad = tmp_path / {"content_list": "x_content_list.json", "docling": "docling.json", "elements": "notes.elements.json",
                      "questions": "notes.questions.json"}.get(kind, "chunks.json")
    if kind == "content_list":
        bad.write_text(f'[{{"type":"text","text":"a","page_idx":{number}}}]')
    elif kind == "docling":
        bad.write_text('{"schema_name":"DoclingDocument","version":"1.10.0","pages":{"1":{"page_no":'
                       + number + ',"size":{"width":1,"height":1}}}}')
    elif kind == "elements":
        bad.write_text(re.sub(r'"char_end": \d+', f'"char_end": {number}', bad.read_text("utf-8"), count=1))
    elif kind == "questions":
        bad.write_text('[{"id":"q1","question":"What?","answer":"Some text","answer_page":' + number + '}]')
    else:
        good["chunks"][0]["index" if kind == "chunks_json" else "end_char"] = 0
        bad.write_text(json.dumps(good).replace('"index": 0', f'"index": {number}', 1).replace('"end_char": 0', f'"end_char": {number}', 1))
        assert number in bad.read_text("utf-8")
    argv = {"chunk_file": ["chunk", str(text_input), "--chunks", str(bad), "-o", str(out)],
            "chunks_json": ["diff", "--a", str(bad), "--b", str(tmp_path / "good.json"), str(text_input), "-o", str(out)],
            "questions": ["evaluate", str(text_input), "--questions", str(bad), "-o", str(out)]}.get(
        kind, ["chunk", str(bad), "-o", str(out)])
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    if kind in ("chunk_file", "chunks_json") and number == "1e999":
        assert code == 0, err  # chunk files are located by their text: a value beyond range is read as null
        return
    assert code == 3 and len(err) == 1 and str(bad) in err[0] and needle in err[0], (code, err)
    assert not out.exists()


def test_a_long_legal_output_name_is_written(text_input, tmp_path, capsys):
    """A 250-byte file name is legal (NAME_MAX 255); the temp file beside it was named after it and
    longer than that, so `-o` was refused "File name too long". The temp name is shortened, and a
    killed run's temp file is still swept by the next write of the same file."""
    from chunkbench.io.atomic import _temp_stem, sweep_stale_temps
    from chunkbench.ui.cli import main

    target = tmp_path / ("n" * 245 + ".json")
    assert main(["chunk", str(text_input), "-o", str(target)]) == 0
    assert json.loads(target.read_text("utf-8"))["chunks"]
    left = tmp_path / f".{_temp_stem(target)}.999999999.abcdefgh.tmp"
    left.write_text("partial")
    assert len(left.name.encode()) <= 255 and sweep_stale_temps(target) == [left]
    too_long = tmp_path / ("n" * 256 + ".json")
    assert main(["chunk", str(text_input), "-o", str(too_long)]) == 2
    assert "cannot write: File name too long" in capsys.readouterr().err


@pytest.mark.parametrize("make", ["long_folder", "long_name", "link_loop"])
def test_an_input_path_that_cannot_be_looked_at_is_an_input_error(tmp_path, capsys, make):
    """A path too long to open was "cannot write", exit 2 (the output check looked at it first and
    Path.is_file raised); it is the input's problem: exit 3, "cannot read: …", naming it."""
    from chunkbench.ui.cli import main

    if make == "link_loop":
        given = tmp_path / "a.md"
        given.symlink_to(tmp_path / "b.md")
        (tmp_path / "b.md").symlink_to(given)
    else:
        given = tmp_path / ("d" * 300) / "x.md" if make == "long_folder" else tmp_path / ("d" * 300 + ".md")
    assert main(["chunk", str(given), "-o", str(tmp_path / "out.json")]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot read: " in err[0] and str(given) in err[0], err
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("command", ["chunk", "parse", "render", "sweep", "evaluate", "info"])
def test_a_file_name_that_is_not_utf8_is_read_and_named_as_text(text_input, tmp_path, capsys, command):
    """A name with bytes that are not UTF-8 (os.fsdecode holds them as lone surrogates): MuPDF would
    not open the PDF ("Failed to open file"), chunks.json and elements.json could not hold its name
    (exit 1, UnicodeEncodeError), a sweep's results table neither. The PDF is opened through the
    process's descriptor of it, and the name is written as text (`c\\xff.pdf`) everywhere."""
    from chunkbench.ui.cli import main

    pdf = Path(shutil.copyfile(SAMPLE_PDFS / "contract_services_agreement.pdf", tmp_path / os.fsdecode(b"c\xff.pdf")))
    out = tmp_path / os.fsdecode(b"out\xfe")
    argv = {"chunk": ["chunk", str(pdf), "-o", str(out)], "parse": ["parse", str(pdf), "-o", str(out)],
            "render": ["render", str(pdf), "-o", str(out), "--pages", "1"],
            "sweep": ["sweep", str(pdf), "--grid", "max_chunk_size=300,600", "-o", str(out), "--notebooks", "none",
                      "--no-progress"],
            "evaluate": ["evaluate", str(pdf), "-o", str(out)], "info": ["info", str(pdf)]}[command]
    assert main(argv) == 0, capsys.readouterr().err
    if command in ("chunk", "parse"):
        data = json.loads(out.read_text("utf-8"))
        assert (data.get("source") or data["chunks"][0]["source"]) == "c\\xff.pdf"
    if command == "sweep":
        assert "c\\xff.pdf" in (out / "results.csv").read_text("utf-8")
