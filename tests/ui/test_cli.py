"""The CLI: chunk, strategies, stats, parse, info — outputs, exit codes 0/2/3, one-line errors.

A few tests run the real `python -m chunkbench` in a subprocess (entry point, stderr, tracebacks);
the rest call `chunkbench.ui.cli.main` in-process, which is the same code without the import cost.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import chunkbench as cb
from chunkbench.io.export import load_chunks_json
from chunkbench.strategies import REGISTRY, all_strategies
from chunkbench.ui.cli import main
from tests.support.paths import ROOT, SAMPLE_PDFS

MD = ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"
CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"
REGISTERED = {s.name for s in all_strategies(slow=True)}  # the one list of strategies, slow peers too


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "chunkbench", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)


def assert_one_line_error(stderr: str, *needles: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("chunkbench: error: ") and "Traceback" not in stderr
    for n in needles:
        assert n in lines[0], lines[0]


def test_chunk_writes_valid_files_with_params_and_metadata(tmp_path):
    out, dbg = tmp_path / "o" / "chunks.json", tmp_path / "chunk_debug.md"
    r = run_cli("chunk", CONTRACT, "--strategy", "elements", "--set", "max_chunk_size=1200", "-o", out,
                "--debug-md", dbg, "--meta", "company=ACME", "--meta", "fiscal_year:=2023")
    assert r.returncode == 0, r.stderr
    assert "wrote" in r.stdout and "targets" in r.stdout
    data = load_chunks_json(out)
    assert data["chunking"]["params"]["max_chunk_size"] == 1200
    assert all(c["char_len"] <= 1200 or c["boundary"]["reason"] == "oversize_element" for c in data["chunks"])
    assert {json.dumps(c["metadata"], sort_keys=True) for c in data["chunks"]} == {
        '{"company": "ACME", "fiscal_year": 2023}'}
    md = dbg.read_text("utf-8")
    assert md.count("\n## Chunk ") == len(data["chunks"])
    assert sorted(p.name for p in out.parent.iterdir()) == ["chunks.json"]  # no temp file left


def test_errors_are_one_line_without_traceback_and_with_it_under_debug(tmp_path):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"this is not a pdf at all\n" * 10)
    r = run_cli("chunk", bad, "-o", tmp_path / "c.json")
    assert r.returncode == 3
    assert_one_line_error(r.stderr, str(bad))
    assert not (tmp_path / "c.json").exists()
    r = run_cli("--debug", "parse", bad)
    assert r.returncode == 3 and "Traceback (most recent call last)" in r.stderr
    r = run_cli("chunk", MD, "--strategy", "nope")
    assert r.returncode == 2
    assert_one_line_error(r.stderr, "unknown strategy 'nope'", "elements")


def test_info_and_stats_through_the_entry_point(tmp_path):
    r = run_cli("info", MD)
    assert r.returncode == 0 and r.stdout.startswith("deployment_guide.md") and "outline" in r.stdout
    bad = tmp_path / "chunks.json"
    bad.write_text('{"doc_id": "x"}')
    r = run_cli("stats", bad)
    assert r.returncode == 3
    assert_one_line_error(r.stderr, str(bad), "not a valid chunks.json")


def test_strategies_lists_every_registered_one_with_params():
    r = run_cli("strategies", "--json")
    assert r.returncode == 0, r.stderr
    reg = json.loads(r.stdout)
    assert {s["name"] for s in reg} == REGISTERED >= {"elements", "contract", "headers", "sections", "tokens"}
    for s in reg:
        assert s["doc"] and s["spec"].startswith("docs/") and (ROOT / s["spec"]).exists() and s["params"]
        assert s["offsets"] in ("slice", "slice_without_skipped", "rewritten")
        for p in s["params"]:
            assert {"name", "type", "default", "doc"} <= set(p)


def test_strategies_text(capsys):
    assert main(["strategies"]) == 0
    out = capsys.readouterr().out
    assert "max_chunk_size" in out and "[50..100000]" in out
    for name in REGISTERED:
        assert any(line.startswith(name + "  (docs/") for line in out.splitlines()), name


def test_one_peer_or_another_chunkers_chunks_import_no_other_peers_library(tmp_path):
    """Asking for one peer imports its library alone, and `stats` of another chunker's chunks.json
    (whose strategy is no peer) imports none: all of them took 3.5 s of every such command."""
    chunks_json = tmp_path / "chunks.json"
    assert main(["chunk", str(CONTRACT), "--chunks", str(_foreign_file(tmp_path)), "-o", str(chunks_json)]) == 0
    probe = ("import sys; from chunkbench.ui.cli import main; from chunkbench.strategies import get_strategy; "
             f"main(['stats', {str(chunks_json)!r}, '--doc', {str(CONTRACT)!r}]); "
             "get_strategy('semchunk:chunkerify'); "
             "print(sorted(m for m in ('langchain_text_splitters', 'chonkie', 'llama_index', 'docling_core', "
             "'semchunk') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert r.stdout.strip().splitlines()[-1] == "['semchunk']"


def _foreign_file(folder):
    """Chunks another chunker made of the sample contract's text: 600-character pieces at spaces."""
    import textwrap

    text = " ".join(cb.load(CONTRACT).text.split())
    path = folder / "pieces.json"
    path.write_text(json.dumps(textwrap.wrap(text, 600)), encoding="utf-8")
    return path


def test_strategies_lists_peers_without_importing_them(capsys):
    """The listing names every installed peer from its distribution, importing none of their
    libraries (seconds each); `chunkbench strategies NAME` imports one to show its parameters."""
    probe = ("import sys; from chunkbench.ui.cli import main; main(['strategies']); "
             "print(sorted(m for m in ('langchain_text_splitters', 'chonkie', 'llama_index', 'docling_core', "
             "'semchunk') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
    assert r.stdout.strip().splitlines()[-1] == "[]"
    peers = sorted(REGISTERED - set(REGISTRY))
    for name in peers:
        assert f"parameters: chunkbench strategies {name}" in r.stdout, name
    if peers:
        assert main(["strategies", peers[0]]) == 0
        out = capsys.readouterr().out
        assert out.startswith(peers[0] + "  (docs/") and "parameters: chunkbench" not in out
        assert len(out.splitlines()) > 3  # its parameters, read from its class
    assert main(["strategies", "no-such-chunker"]) == 2
    assert "unknown strategy 'no-such-chunker'" in capsys.readouterr().err


def test_chunk_without_output_prints_a_table(capsys):
    assert main(["chunk", str(MD), "--strategy", "elements"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("deployment_guide.md: ") and "strategy elements" in out[0]
    assert out[1].split()[:4] == ["#", "type", "reason", "pages"]
    n = int(out[0].split(": ")[1].split()[0])
    assert len(out) == n + 2 and out[2].split()[:3] == ["0", out[2].split()[1], "document_start"]


def test_stats_text_and_json(tmp_path, capsys):
    path = tmp_path / "c.json"
    assert main(["chunk", str(CONTRACT), "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["stats", str(path)]) == 0
    text = capsys.readouterr().out
    assert "targets  4/4 passed" in text and "PASS  median_chars" in text
    assert "by reason  " in text and "document_start 1" in text
    assert main(["stats", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    n = len(load_chunks_json(path)["chunks"])
    assert data["size"]["count"] == n == sum(data["by_type"].values()) == sum(data["by_reason"].values())
    assert data["chunking"]["strategy"] == "elements" and data["clause_ref_rate"] is None


@pytest.mark.parametrize(
    "argv,code,needle",
    [
        (["chunk", "{missing}"], 3, "no such file"),
        (["chunk", "{md}", "--set", "max_chunk_size=-5"], 2, "must be >= 50"),
        (["chunk", "{md}", "--set", "max_chunk_size=big"], 2, "must be an integer"),
        (["chunk", "{md}", "--set", "nokey"], 2, "--set expects KEY=VALUE"),
        (["chunk", "{md}", "--meta", "=x"], 2, "--meta expects KEY=VALUE"),
        (["chunk", "{md}", "--meta", "year:=20x"], 2, "expects a JSON value"),
        (["chunk", "{md}", "-o", "{tmp}"], 2, "--output is a folder, expected a file name"),
        (["stats", "{md}"], 3, "not valid JSON"),
        (["stats", "{emptyjson}"], 3, "not a valid chunks.json: (top level): 'doc_id' is a required property"),
        (["info", "{rtf}"], 3, "unsupported input type '.rtf'"),
        (["parse", "{missing}"], 3, "no such file"),
    ],
)
def test_exit_codes_and_one_line_errors(tmp_path, capsys, argv, code, needle):
    (tmp_path / "e.json").write_text("{}")
    (tmp_path / "notes.rtf").write_text("hello")
    subst = {"{missing}": str(tmp_path / "missing.pdf"), "{md}": str(MD), "{tmp}": str(tmp_path),
             "{emptyjson}": str(tmp_path / "e.json"), "{rtf}": str(tmp_path / "notes.rtf")}
    assert main([subst.get(a, a) for a in argv]) == code
    err = capsys.readouterr().err
    assert_one_line_error(err, needle)


def test_usage_error_from_argparse_is_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["chunk"])
    assert exc.value.code == 2
    assert_one_line_error(capsys.readouterr().err, "input")


def test_parse_writes_elements_json_atomically_and_info_reads_it(tmp_path, capsys):
    out = tmp_path / "elements.json"
    out.write_text("old content")
    assert main(["parse", str(MD), "-o", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text("utf-8"))["format"] == "chunkbench.elements/1"
    assert list(tmp_path.iterdir()) == [out]
    assert main(["info", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["source"] == "deployment_guide.md" and info["by_type"]["heading"] >= 1


def test_demo_runs_every_strategy_and_reports_failures(tmp_path, capsys):
    from chunkbench.ui import demo

    folder = tmp_path / "pdfs"
    folder.mkdir()
    (folder / "a.pdf").symlink_to(SAMPLE_PDFS / "technical_manual.pdf")
    (folder / "b.pdf").write_bytes(b"%PDF-1.7\nnot really\n")
    assert demo.main([str(folder), str(tmp_path / "out"), "--strategies", "elements,tokens", "--no-sweep"]) == 1
    captured = capsys.readouterr()
    assert "b.pdf: " in captured.err and "1 of 2 document(s) had errors" in captured.err
    for name in ("elements", "tokens"):
        load_chunks_json(tmp_path / "out" / "a" / name / "chunks.json")
        assert (tmp_path / "out" / "a" / name / "chunk_debug.md").stat().st_size > 0
    assert (tmp_path / "out" / "a" / "elements.json").exists()
    for name in ("elements", "tokens"):  # an overlay report per strategy, linked from out/index.html
        report = tmp_path / "out" / "a" / name / "report"
        assert (report / "index.html").exists() and list(report.glob("*.png"))
        assert f"a/{name}/report/index.html" in (tmp_path / "out" / "index.html").read_text("utf-8")
    table = (tmp_path / "out" / "summary.txt").read_text("utf-8").splitlines()
    assert table[0].split() == ["document", "strategy", "chunks", "median", "p95", "targets", "defects", "verdict"]
    assert [row.split()[:2] for row in table[1:-3]] == [["a", "elements"], ["a", "tokens"]]
    assert table[-3].startswith("targets: of 4 checks met")  # what "targets 3/4" means
    assert table[-1].startswith("verdict: good: every size target met")  # and the verdict of both
    assert demo.main([str(tmp_path / "nothing-here"), str(tmp_path / "out")]) == 2


def test_a_scanned_pdf_says_why_it_has_no_chunks_on_every_command(tmp_path):
    """A PDF without a text layer gives 0 chunks, and every command says why (pages,
    Tesseract) on stderr, naming the file; chunks.json and chunk_debug.md carry the warning."""
    from chunkbench.loaders.pdf import ocr_available
    from tests.support.paths import shared_pdf

    if ocr_available():
        pytest.skip("Tesseract is installed here: the scan is OCRed, not left empty")
    scan = shared_pdf("scan_huckfinn-c03-29.pdf")
    out, dbg = tmp_path / "chunks.json", tmp_path / "chunk_debug.md"
    runs = {
        "chunk": run_cli("chunk", scan, "-o", out, "--debug-md", dbg),
        "parse": run_cli("parse", scan, "-o", tmp_path / "elements.json"),
        "render": run_cli("render", scan, "-o", tmp_path / "render"),
    }
    runs["stats"] = run_cli("stats", out)
    for command, r in runs.items():
        assert r.returncode == 0, (command, r.stderr)
        warning = [line for line in r.stderr.splitlines() if line.startswith("chunkbench: warning: ")]
        assert len(warning) == 1, (command, r.stderr)
        assert f"{scan.name}: 1 page(s) have no text layer: 1" in warning[0], command
        assert "install Tesseract" in warning[0], command
    assert "0 chunks" in runs["chunk"].stdout and "see the warnings on stderr" in runs["chunk"].stdout
    data = load_chunks_json(out)
    assert data["chunks"] == [] and len(data["warnings"]) == 1 and "no text layer" in data["warnings"][0]
    assert "- **warning**: `1 page(s) have no text layer: 1;" in dbg.read_text("utf-8")


def test_a_pdf_with_text_has_no_warnings(tmp_path):
    out = tmp_path / "chunks.json"
    r = run_cli("chunk", CONTRACT, "-o", out)
    assert r.returncode == 0 and "warning" not in r.stderr and "see the warnings" not in r.stdout
    assert load_chunks_json(out)["warnings"] == []


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    """`chunkbench chunk big.txt | head -1`: the table is far longer than the pipe holds, the
    reader closes it after one line, and the command stops with no error and no traceback."""
    text = tmp_path / "big.txt"
    text.write_text("\n\n".join(f"Paragraph {i} says something about topic {i % 7}." for i in range(4000)), "utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "chunkbench", "chunk", str(text), "--strategy", "recursive",
                             "--set", "chunk_size=60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err.decode()) == (0, "")
