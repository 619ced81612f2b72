"""Every notebook in notebooks/: committed without outputs, only calls the package, and runs with
papermill on small parameters (in a scratch folder, so nothing is written into the repository)."""

from __future__ import annotations

import ast
import json
import os
import re

import pytest

from chunkbench.app.sweep import execute_notebook
from tests.support.paths import ROOT, SAMPLE_PDFS

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: a small sample every notebook can run on
SMALL_INPUT = SAMPLE_PDFS / "technical_manual.pdf"
#: parameter names that name the input / an output folder, whatever the notebook
INPUT_NAMES = {"input", "input_path", "pdf", "pdf_path", "path", "source"}
OUTPUT_NAMES = {"out", "out_dir", "output", "output_dir", "outdir"}
#: AST nodes that mean a notebook holds algorithm code instead of calling the package
FORBIDDEN = {
    ast.FunctionDef: "def", ast.AsyncFunctionDef: "async def", ast.ClassDef: "class", ast.For: "for loop",
    ast.AsyncFor: "for loop", ast.While: "while loop", ast.Lambda: "lambda", ast.ListComp: "comprehension",
    ast.SetComp: "comprehension", ast.DictComp: "comprehension", ast.GeneratorExp: "generator expression",
}

def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def _code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _source(cell) -> str:
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def test_the_sweep_notebook_is_there():
    assert ROOT / "notebooks" / "02_sweep.ipynb" in NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    nb = _load(path)
    for n, cell in enumerate(_code_cells(nb)):
        assert cell.get("outputs") == [], f"{path.name} code cell {n} has outputs"
        assert cell.get("execution_count") is None, f"{path.name} code cell {n} has an execution count"
    assert "papermill" not in nb.get("metadata", {}), f"{path.name} is an executed papermill copy"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_has_a_papermill_parameters_cell(path):
    tagged = [c for c in _code_cells(_load(path)) if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name} needs exactly one code cell tagged 'parameters'"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_algorithm_code_in_notebooks(path):
    for n, cell in enumerate(_code_cells(_load(path))):
        code = "\n".join(line for line in _source(cell).splitlines() if not line.lstrip().startswith(("%", "!")))
        tree = ast.parse(code, filename=f"{path.name}[{n}]")
        found = sorted({FORBIDDEN[type(node)] for node in ast.walk(tree) if type(node) in FORBIDDEN})
        assert not found, f"{path.name} code cell {n} holds algorithm code ({', '.join(found)}): move it into the package"


def test_the_static_checks_catch_what_they_should():
    code = "def f(x):\n    return [e for e in x]\n"
    found = {FORBIDDEN[type(n)] for n in ast.walk(ast.parse(code)) if type(n) in FORBIDDEN}
    assert found == {"def", "comprehension"}


def small_parameters(path, out_dir) -> dict:
    """Parameters that make a notebook small: the smallest sample as input, outputs in a scratch folder."""
    import papermill as pm

    params = {}
    for name in pm.inspect_notebook(str(path)):
        if name in INPUT_NAMES:
            params[name] = str(SMALL_INPUT)
        elif name in OUTPUT_NAMES:
            params[name] = str(out_dir)
    return params


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_with_small_parameters(path, tmp_path):
    work = tmp_path / "notebooks"
    work.mkdir()
    os.symlink(SAMPLE_PDFS, tmp_path / "sample_pdfs")  # relative defaults like ../sample_pdfs/x.pdf still work
    out = tmp_path / "out"
    params = small_parameters(path, out)
    if path.name == "02_sweep.ipynb":
        params["max_chunk_size"] = 900  # a strategy parameter passed by name, not in the params dict
    executed = tmp_path / f"executed-{path.name}"
    execute_notebook(path, executed, params, cwd=work, timeout=300, kernel_log=tmp_path / "kernel.log")
    nb = _load(executed)
    errors = [o for c in _code_cells(nb) for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    if path.name == "04_your_chunker.ipynb":  # LangChain's chunks located, shown, diffed and written
        data = json.loads((out / "your_chunks.json").read_text())
        assert data["chunking"]["strategy"] == "langchain:RecursiveCharacterTextSplitter" and data["chunks"]
        printed = json.dumps([o.get("text") or o.get("data", {}).get("text/plain") for c in _code_cells(nb)
                              for o in c.get("outputs", [])])
        # how the chunks were found (match kind counts), then the chunks table
        assert re.search(r"(exact|normalised) +\d+", printed) and "reason" in printed
        assert sum("image/png" in o.get("data", {}) for c in _code_cells(nb) for o in c.get("outputs", [])) >= 3
    if path.name == "02_sweep.ipynb":
        metrics = json.loads((out / "metrics.json").read_text())
        assert metrics["metrics"]["chunks"] > 0 and (out / "chunks.json").exists()
        assert metrics["params"]["max_chunk_size"] == 900 and metrics["metrics"]["chars_max"] <= 900
        kinds = {o.get("output_type") for c in _code_cells(nb) for o in c.get("outputs", [])}
        assert "display_data" in kinds or "execute_result" in kinds  # the histogram / tables / page were shown
        images = [o for c in _code_cells(nb) for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
        assert len(images) >= 2  # size histogram and the overlay page
    if path.name == "05_parsers.ipynb":  # both parsers compared and drawn on one page
        import csv

        rows = {r["parse"]: r for r in csv.DictReader((out / "parsers.csv").open(encoding="utf-8"))}
        assert rows["default"]["parser"].startswith("pymupdf") and rows["mineru"]["parser"].startswith("mineru 4.")
        assert int(rows["mineru"]["elements"]) > 10 and int(rows["mineru"]["heading"]) > 3
        images = [o for c in _code_cells(nb) for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
        assert images
    if path.name == "01_explore.ipynb":
        data = json.loads((out / "explore.chunks.json").read_text(encoding="utf-8"))
        assert data["chunking"]["strategy"] == "elements" and data["chunking"]["params"]["max_chunk_size"] == 1200
        assert len(data["chunks"]) > 5
        mimes = {m for c in _code_cells(nb) for o in c.get("outputs", []) for m in o.get("data", {})}
        assert "application/vnd.jupyter.widget-view+json" in mimes and "image/png" in mimes
    if path.name == "03_review.ipynb":
        import csv

        rows = list(csv.DictReader((out / "verdicts.csv").open(encoding="utf-8")))
        assert [(r["chunk_index"], r["verdict"], r["reviewer"]) for r in rows] == [
            ("0", "ok", "demo"), ("1", "should_merge", "demo"), ("2", "ok", "demo")]
        assert len(json.loads((out / "verdicts.json").read_text(encoding="utf-8"))) == 3


def test_the_parsers_notebook_without_mineru_shows_the_default_parse_and_says_how(tmp_path, monkeypatch):
    """`make demo` does not install MinerU; 05_parsers then says so in one message,
    names the way to get it, and runs everything else on the default parse."""
    from chunkbench.loaders.mineru.run import COMMAND_ENV

    monkeypatch.setenv(COMMAND_ENV, str(tmp_path / "no-mineru-here"))  # as if MinerU were not installed
    monkeypatch.setenv("CHUNKBENCH_CACHE_DIR", str(tmp_path / "cache"))  # no MinerU parse from the cache either
    path = ROOT / "notebooks" / "05_parsers.ipynb"
    out, executed = tmp_path / "out", tmp_path / "executed.ipynb"
    execute_notebook(path, executed, small_parameters(path, out), cwd=path.parent, timeout=300,
                     kernel_log=tmp_path / "kernel.log")
    cells = _code_cells(_load(executed))
    outputs = [o for c in cells for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    printed = "".join("".join(o.get("text", "")) for o in outputs)
    assert "MinerU could not run" in printed and "make lab" in printed
    assert [line.split(",")[0] for line in (out / "parsers.csv").read_text("utf-8").splitlines()[1:]] == ["default"]
    assert any("image/png" in o.get("data", {}) for o in outputs)
