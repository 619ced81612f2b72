"""MinerU 4 for real: its flash tier (CPU, offline) run by chunkbench and by `mineru-kit`, and every
file it saves (zip, folder, middle JSON, structured_content, content_list v1/v2 from its own
renderers) loaded; documents with every block type built with MinerU's own schema classes."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unicodedata
import zipfile
from collections import Counter
from pathlib import Path

import pytest

import chunkbench
from chunkbench.errors import ExternalToolError, InputError, UsageError
from chunkbench.loaders.mineru import run
from chunkbench.types.document import is_noise
from tests.support.paths import SAMPLE_PDFS, shared_pdf
from tests.support.processes import free_port, wait_for_port

mineru = pytest.importorskip("mineru", reason="the mineru extra is not installed")
from mineru.render import render_content_list, render_content_list_v2  # noqa: E402
from mineru.types import MiddleJson  # noqa: E402

pytestmark = pytest.mark.xdist_group("mineru4")  # one worker runs MinerU; its outputs are made once

CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"
KIT = Path(sys.executable).parent / "mineru-kit"
CLI = [sys.executable, "-m", "chunkbench"]


def kit_parse(pdf: Path, out: Path, fmt: str) -> Path:
    """Run the real `mineru-kit parse` (flash tier, text layer) and return what it wrote."""
    subprocess.run(
        [os.fspath(KIT), "parse", os.fspath(pdf), "-o", os.fspath(out), "--tier", "flash", "--ocr-mode", "txt",
         "-f", fmt],
        check=True, capture_output=True, timeout=300,
    )
    return out / f"{pdf.stem}.{'zip' if fmt == 'zip' else 'json'}"


@pytest.fixture(scope="session")
def outputs(tmp_path_factory) -> dict[str, dict[str, Path]]:
    """Every shape of MinerU 4 output of two PDFs, written by MinerU itself, once per session (in
    the one worker their xdist group runs in; tests/project/test_xdist_groups.py checks the grouping)."""
    root = tmp_path_factory.mktemp("mineru4")
    found = {}
    pdfs = [CONTRACT]
    try:
        pdfs.append(shared_pdf("paper_hotos17-baumann.pdf"))
    except pytest.skip.Exception:
        pass
    for pdf in pdfs:
        d = root / pdf.stem
        zipped = kit_parse(pdf, d / "zip", "zip")
        folder = d / "unzipped" / pdf.stem
        with zipfile.ZipFile(zipped) as z:
            z.extractall(folder)
        middle = kit_parse(pdf, d / "middle", "middle_json")
        model = MiddleJson.from_dict(json.loads(middle.read_text("utf-8")))
        lists = d / "lists"
        lists.mkdir()
        v1 = lists / f"{pdf.stem}_content_list.json"
        v2 = lists / f"{pdf.stem}_content_list_v2.json"
        v1.write_text(json.dumps(render_content_list(model), ensure_ascii=False), "utf-8")
        v2.write_text(json.dumps(render_content_list_v2(model), ensure_ascii=False), "utf-8")
        found[pdf.stem] = {
            "pdf": pdf, "zip": zipped, "folder": folder, "middle_json.json": folder / "middle_json.json",
            "structured": folder / "structured_content.json", "kit_json": middle, "v1": v1, "v2": v2,
        }
    return found


def _same_elements(doc, reference, label) -> None:
    """Element by element: type, page, heading level and box agree."""
    assert [e.type for e in doc.elements] == [e.type for e in reference.elements], label
    assert [e.page_idx for e in doc.elements] == [e.page_idx for e in reference.elements], label
    assert [e.text_level for e in doc.elements] == [e.text_level for e in reference.elements], label
    for a, b in zip(doc.elements, reference.elements):
        assert a.bbox == pytest.approx(b.bbox, abs=0.6), (label, a.id)  # v1/v2 round to 0-1000 ints


def test_every_saved_shape_loads_the_same_elements(outputs):
    for name, files in outputs.items():
        docs = {shape: chunkbench.load(files[shape], pdf=files["pdf"]) for shape in
                ("zip", "folder", "middle_json.json", "structured", "kit_json", "v1", "v2")}
        reference = docs["zip"]
        assert reference.parser.name == "mineru" and reference.parser.version.startswith("4.")
        assert reference.parser.options["tier"] == "flash" and reference.parser.options["ocr_mode"] == "txt"
        # the middle JSON's shapes carry MinerU's `continues_prev`, whose paragraphs are joined;
        # its content lists drop the flag, so a continuation only the flag marks stays apart there
        for shape in ("folder", "middle_json.json", "structured", "kit_json"):
            _same_elements(docs[shape], reference, (name, shape))
        _same_elements(docs["v1"], docs["v2"], (name, "v1"))
        # the middle JSON and v2 carry spans: their texts agree exactly, but for the joins;
        # v1 and structured_content carry MinerU's Markdown (**bold**), kept as MinerU wrote it
        assert _content(docs["v2"]) == _content(reference)
        assert [e.text for e in docs["kit_json"].elements] == [e.text for e in reference.elements]
        assert _content(docs["structured"]) == _content(docs["v1"])


def _content(doc) -> str:
    """The document's text but page furniture (a join moves a continuation before the furniture
    it passed over), without MinerU's Markdown bold marks."""
    return " ".join(e.text.replace("**", "") for e in doc.elements if not is_noise(e))


def test_contract_reads_as_the_pdf_says(outputs):
    """Headings with levels, tables as rows, furniture typed, bboxes in points over the right words."""
    import pymupdf

    files = outputs[CONTRACT.stem]
    doc = chunkbench.load(files["zip"])  # the PDF is not beside the zip: page sizes from the middle JSON
    assert doc.warnings == ()
    types = Counter(e.type for e in doc.elements)
    assert types["heading"] >= 15 and types["table"] == 3 and types["header"] and types["page_number"]
    title = doc.elements[[e.type for e in doc.elements].index("heading")]
    assert title.text == "MASTER SERVICES AGREEMENT" and title.text_level == 1
    assert {e.text_level for e in doc.elements if e.type == "heading"} >= {1, 2}
    table = next(e for e in doc.elements if e.type == "table")
    assert table.rows[0] == ("Ref.", "Service", "Charging basis", "Monthly charge (GBP)")
    assert "<table>" in table.attrs["html"]
    with pymupdf.open(CONTRACT) as pdf:
        assert [(p.width, p.height) for p in doc.pages] == [(pg.rect.width, pg.rect.height) for pg in pdf]
        for e in doc.elements:
            if e.type == "paragraph" and len(e.text) > 40:
                words = pdf[e.page_idx].get_text("text", clip=pymupdf.Rect(e.bbox) + (-2, -2, 2, 2))
                first = e.text.replace("**", "").split()[0]
                assert first in unicodedata.normalize("NFKC", words), (e.id, first, e.bbox)


def test_paper_figures_are_found_by_their_captions(outputs):
    if "paper_hotos17-baumann" not in outputs:
        pytest.skip("../shared not beside this clone")
    doc = chunkbench.load(outputs["paper_hotos17-baumann"]["zip"])
    figures = [e for e in doc.elements if e.type == "image" and e.attrs.get("caption")]
    assert figures and figures[0].text.startswith("Figure 1")
    assert figures[0].attrs["img_path"].startswith("images/")


def test_paragraphs_mineru_splits_are_joined(outputs):
    """MinerU 4 marks a paragraph continued on the next page (`continues_prev`): the contract's
    "within forty-eight | (48) hours" over pages 3–4 is one paragraph, drawn on both pages."""
    doc = chunkbench.load(outputs[CONTRACT.stem]["zip"])
    breach = next(e for e in doc.elements if "within forty-eight (48) hours, after becoming aware" in e.text)
    assert [(p.page_idx, p.text.split()[-1]) for p in breach.parts] == [(2, "forty-eight"), (3, "breach.")]
    assert len(breach.attrs["stitched"]) == 2 and doc.parser.options["joined_paragraphs"] >= 3


def test_a_word_hyphenated_at_a_column_break_is_whole_once_joined(outputs):
    """HotOS: MinerU leaves "… the re-" at a column's foot and "cent 2015–2016 jump" at the next
    column's head; joined, the document's own words drop the hyphen, as the PDF loader's do."""
    if "paper_hotos17-baumann" not in outputs:
        pytest.skip("../shared not beside this clone")
    doc = chunkbench.load(outputs["paper_hotos17-baumann"]["zip"])
    assert "recent 2015–2016 jump" in doc.text and "re-cent" not in doc.text
    assert doc.parser.options["line_end_hyphens_dropped"] >= 1


def test_paragraphs_mineru_splits_inside_a_column_are_joined(fresh_cache):
    """MinerU 4's flash tier splits the Federal Register's paragraphs inside a column ("… to the
    person identified" | "in the FOR FURTHER INFORMATION CONTACT …"); each is joined, and no
    paragraph ending open is left with its lower-case rest on the line right under it."""
    doc = chunkbench.load(shared_pdf("req_federal-register-2020-17221.pdf"), backend="mineru")
    texts = [e.text for e in doc.elements if e.type == "paragraph"]
    for sentence in ("The FAA will consider the report and the comments submitted",
                     "sent to the person identified in the FOR FURTHER INFORMATION",
                     "I certify that the proposed regulation: (1) Is not a ‘‘significant regulatory action’’ under "
                     "Executive Order 12866, (2) Will not affect intrastate aviation in Alaska, and (3) Will not have "
                     "a significant economic impact",
                     # across a run of the sentence MinerU typed as a title (paragraph_title)
                     "contained in the Indonesian accident report (http://knkt.dephub.go.id/",
                     "Report.pdf), indicated that a single erroneously high angle of attack",
                     # a capital goes on a paragraph that stops on a function word, on the next line
                     "the availability of it in the Federal Register. The FAA will consider"):
        assert any(sentence in t for t in texts), sentence
    # but not a column away, where MinerU's reading order put other text after "… portion of the"
    assert not any("portion of the Except for" in t for t in texts)
    assert doc.parser.options["joined_paragraphs"] >= 20
    content = [e for e in doc.elements if e.type == "paragraph"]
    for a, b in zip(content, content[1:]):
        last = a.parts[-1]
        if b.page_idx == last.page_idx and b.text[:1].islower() and a.text[-1:].isalpha():
            assert not (-2 <= b.bbox[1] - last.bbox[3] <= 3 and abs(b.bbox[0] - last.bbox[0]) <= 20), (a.text, b.text)


def test_chunkbench_runs_mineru_and_caches_by_its_options(fresh_cache):
    doc = chunkbench.load(CONTRACT, backend="mineru", mineru_ocr_mode="txt")
    assert doc.parser.options["engine"] == "sdk" and doc.parser.options["tier"] == "flash"
    assert doc.source == CONTRACT.name and doc.pdf_path and len(doc.pages) == 6
    assert sum(e.type == "table" for e in doc.elements) == 3
    again = chunkbench.load(CONTRACT, backend="mineru", mineru_ocr_mode="txt")
    assert again == doc
    assert len(list(fresh_cache.rglob("*.json*"))) == 1  # one parse in the cache
    pages = chunkbench.load(CONTRACT, backend="mineru", mineru_ocr_mode="txt", mineru_pages="2-3")
    assert {e.page_idx for e in pages.elements} == {1, 2} and len(pages.pages) == 6
    assert len(list(fresh_cache.rglob("*.json*"))) == 2  # other pages: another cache entry


def test_cli_chunk_with_mineru_end_to_end(tmp_path, fresh_cache):
    out = tmp_path / "chunks.json"
    done = subprocess.run(
        CLI + ["chunk", os.fspath(CONTRACT), "--backend", "mineru", "--ocr-mode", "txt", "-o", os.fspath(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["chunking"]["parser"] == {"name": "mineru", "version": importlib.metadata.version("mineru")}
    assert data["chunks"] and all(c["page_start"] >= 1 and c["bbox"] for c in data["chunks"])


def test_mineru_kit_beside_the_interpreter_is_used_without_the_sdk(fresh_cache, monkeypatch):
    """A venv used without activating it: mineru-kit beside the running Python, not on PATH."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setattr(run.importlib.util, "find_spec", lambda name: None)
    engine = run.find_engine()
    assert engine.kind == "kit" and Path(engine.exe) == KIT and engine.version.startswith("4.")
    doc = chunkbench.load(CONTRACT, backend="mineru", mineru_ocr_mode="txt", mineru_pages="1")
    assert doc.parser.options["engine"] == "kit" and {e.page_idx for e in doc.elements} == {0}


def test_a_hung_mineru_4_is_killed_at_its_timeout(fresh_cache, monkeypatch):
    mark = f"{os.getpid()}-{time.monotonic_ns()}"  # inherited by this test's MinerU only, not another suite's
    monkeypatch.setenv("CHUNKBENCH_TEST_MARK", mark)
    started = time.monotonic()
    with pytest.raises(ExternalToolError, match="timed out after 0.5 s") as info:
        chunkbench.load(CONTRACT, backend="mineru", mineru_timeout=0.5)
    assert info.value.exit_code == 4 and time.monotonic() - started < 30
    assert not [p for p in Path("/proc").glob("[0-9]*") if _is_our_sdk_child(p, mark)]


def _is_our_sdk_child(proc: Path, mark: str) -> bool:
    """A MinerU child started by this test: its command line and the environment mark it inherited."""
    try:
        return (b"chunkbench.loaders.mineru.sdk_child" in (proc / "cmdline").read_bytes()
                and f"CHUNKBENCH_TEST_MARK={mark}".encode() in (proc / "environ").read_bytes().split(b"\0"))
    except OSError:
        return False


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"mineru_tier": "turbo"}, "unknown MinerU tier 'turbo'"),
        ({"mineru_ocr_mode": "maybe"}, "unknown OCR mode 'maybe'"),
        ({"mineru_pages": "1-;rm"}, "page range '1-;rm' is not like"),
        ({"mineru_backend": "pipeline"}, "--mineru-backend is for MinerU 2.x/3.x"),
    ],
)
def test_bad_mineru_options_are_usage_errors(kwargs, needle, fresh_cache):
    with pytest.raises(UsageError, match=needle.replace("(", r"\(")):
        chunkbench.load(CONTRACT, backend="mineru", **kwargs)


def _stand_in(tmp_path: Path, name: str, version: str) -> Path:
    exe = tmp_path / name
    exe.write_text(f"#!/bin/sh\necho 'mineru, version {version}'\n")
    exe.chmod(0o755)
    return exe


@pytest.mark.parametrize(
    "name, version, needle",
    [
        ("mineru", "1.3.12", "reports MinerU version '1.3.12': supported are MinerU 4"),
        ("mineru", "4.0.12", "is MinerU 4.0.12, but its mineru-kit command is not beside it"),
    ],
)
def test_unsupported_mineru_versions_are_named(tmp_path, name, version, needle, fresh_cache):
    exe = _stand_in(tmp_path, name, version)
    with pytest.raises(ExternalToolError, match=needle):
        chunkbench.load(CONTRACT, backend="mineru", mineru_command=exe)


def test_mineru_api_server(tmp_path, fresh_cache):
    """`--mineru-url` against a real MinerU 4 API server (`mineru-api --tier flash`) on localhost."""
    port = free_port()
    api = Path(sys.executable).parent / "mineru-api"
    server = subprocess.Popen(
        [os.fspath(api), "--host", "127.0.0.1", "--port", str(port), "--tier", "flash",
         "--upload-dir", os.fspath(tmp_path / "uploads")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        if not wait_for_port(port, 90, server):
            pytest.fail("mineru-api did not start within 90 s")
        url = f"http://127.0.0.1:{port}"
        doc = chunkbench.load(CONTRACT, backend="mineru", mineru_url=url, mineru_ocr_mode="txt")
        local = chunkbench.load(CONTRACT, backend="mineru", mineru_ocr_mode="txt")
        assert doc.parser.options["url"] == url
        assert [e.text for e in doc.elements] == [e.text for e in local.elements]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


# -- every block type, in documents MinerU's own schema validates ------------------------------

def _span(text, **kw):
    return {"type": "text", "content": text, **kw}


def _every_block_type() -> dict:
    """A two-page middle JSON with each block type MinerU 4 emits, validated by MinerU's MiddleJson."""
    page0 = [
        {"type": "header", "index": 0, "bbox": [0.1, 0.02, 0.5, 0.04], "content": [_span("Running head")]},
        {"type": "doc_title", "index": 1, "bbox": [0.1, 0.05, 0.9, 0.1], "level": 1, "content": [_span("Title")]},
        {"type": "paragraph_title", "index": 2, "bbox": [0.1, 0.11, 0.9, 0.13], "level": 3,
         "content": [_span("1.1 Scope")]},
        {"type": "text", "index": 3, "bbox": [0.1, 0.14, 0.9, 0.2], "content": [
            _span("The "), _span("Customer", styles=["bold"]), _span(" pays "),
            {"type": "equation_inline", "content": "x^2"}, _span(" per "),
            {"type": "hyperlink", "url": "https://example.org", "content": [_span("unit")]},
            _span(" via "), {"type": "code_inline", "content": "pay()"}, _span(".")]},
        {"type": "list", "index": 4, "bbox": [0.1, 0.21, 0.9, 0.3], "content": [
            {"type": "text", "content": [_span("first")]},
            {"type": "list", "content": [{"type": "text", "content": [_span("nested")]}]},
            {"type": "text", "content": [_span("last")]}]},
        {"type": "equation", "index": 5, "bbox": [0.2, 0.31, 0.8, 0.35], "content": "E = mc^2"},
        {"type": "table", "index": 6, "bbox": [0.1, 0.36, 0.9, 0.5], "content": [
            {"type": "table_caption", "content": [_span("Table 1: Fees")]},
            {"type": "table_body", "index": 6, "bbox": [0.1, 0.36, 0.9, 0.5],
             "content": "<table><tr><td>Item</td><td>GBP</td></tr><tr><td>A</td><td>10</td></tr></table>"},
            {"type": "table_footnote", "content": [_span("Excluding VAT")]}]},
        {"type": "page_footnote", "index": 7, "bbox": [0.1, 0.9, 0.9, 0.93], "content": [_span("1 A footnote.")]},
        {"type": "page_number", "index": 8, "bbox": [0.45, 0.95, 0.55, 0.97], "content": [_span("1")]},
    ]
    page1 = [
        {"type": "text", "index": 0, "bbox": [0.1, 0.05, 0.9, 0.1], "continues_prev": True,
         "content": [_span("continued from page one.")]},
        {"type": "image", "index": 1, "bbox": [0.1, 0.11, 0.5, 0.3], "content": [
            {"type": "image_body", "index": 1, "bbox": [0.1, 0.11, 0.5, 0.3], "content": "",
             "image_path": "images/fig1.jpg"},
            {"type": "image_caption", "content": [_span("Figure 1: A cat")]}]},
        {"type": "chart", "index": 2, "bbox": [0.5, 0.11, 0.9, 0.3], "content": [
            {"type": "chart_body", "index": 2, "bbox": [0.5, 0.11, 0.9, 0.3], "content": "sales rise"},
            {"type": "chart_caption", "content": [_span("Chart 1: Sales")]}]},
        {"type": "code", "index": 3, "bbox": [0.1, 0.31, 0.9, 0.4], "sub_type": "code", "guess_lang": "python",
         "content": [{"type": "code_caption", "content": [_span("Listing 1")]},
                     {"type": "code_body", "index": 3, "bbox": [0.1, 0.31, 0.9, 0.4], "content": "print(1)\nprint(2)"}]},
        {"type": "ref_text", "index": 4, "bbox": [0.1, 0.41, 0.9, 0.45], "content": [_span("[1] A reference.")]},
        {"type": "index", "index": 5, "bbox": [0.1, 0.46, 0.9, 0.5], "content": [
            {"type": "text", "content": [_span("Intro .... 1")]}]},
        {"type": "aside_text", "index": 6, "bbox": [0.95, 0.1, 0.99, 0.9], "content": [_span("arXiv:1234")]},
        {"type": "footer", "index": 7, "bbox": [0.1, 0.95, 0.9, 0.97], "content": [_span("Footer text")]},
    ]
    data = {
        "schema": "docvortex.middle", "schema_version": "2.0", "is_full_document": True,
        "metadata": {"file_suffix": "pdf", "producer": {"name": "mineru", "version": "4.0.12"}},
        "extensions": {"mineru": {"tier": "flash", "parse_mode": "txt"}, "docvortex_layout": {
            "version": 1, "pages": [{"page_idx": i, "width_pt": 600.0, "height_pt": 800.0} for i in (0, 1)]}},
        "pages": [{"page_idx": 0, "blocks": page0}, {"page_idx": 1, "blocks": page1}],
    }
    return MiddleJson.from_dict(data).to_dict()  # MinerU's own validation and serialisation


def test_every_block_type_mineru_4_emits(tmp_path):
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(_every_block_type()), "utf-8")
    doc = chunkbench.load(path)
    got = [(e.raw_type, e.type, e.text) for e in doc.elements]
    assert got == [
        ("header", "header", "Running head"),
        ("doc_title", "heading", "Title"),
        ("paragraph_title", "heading", "1.1 Scope"),
        ("text", "paragraph", "The Customer pays $x^2$ per unit via pay()."),
        ("list", "list", "first\nnested\nlast"),
        ("equation", "equation", "E = mc^2"),
        ("table", "table", "| Item | GBP |\n|---|---|\n| A | 10 |"),
        ("page_footnote", "footnote", "1 A footnote."),
        ("page_number", "page_number", "1"),
        ("text", "paragraph", "continued from page one."),
        ("image", "image", "Figure 1: A cat"),
        ("chart", "image", "Chart 1: Sales\nsales rise"),
        ("code", "code", "Listing 1\nprint(1)\nprint(2)"),
        ("ref_text", "paragraph", "[1] A reference."),
        ("index", "list", "Intro .... 1"),
        ("aside_text", "other", "arXiv:1234"),
        ("footer", "footer", "Footer text"),
    ]
    by_text = {e.text: e for e in doc.elements}
    assert [e.text_level for e in doc.elements[1:3]] == [1, 3]
    assert by_text["| Item | GBP |\n|---|---|\n| A | 10 |"].attrs["caption"] == ["Table 1: Fees"]
    assert by_text["| Item | GBP |\n|---|---|\n| A | 10 |"].attrs["footnote"] == ["Excluding VAT"]
    assert by_text["continued from page one."].attrs["continues_prev"] is True
    assert by_text["Figure 1: A cat"].attrs["img_path"] == "images/fig1.jpg"
    assert by_text["Title"].bbox == pytest.approx((60, 40, 540, 80))
    assert [(p.width, p.height) for p in doc.pages] == [(600, 800), (600, 800)]
    assert doc.warnings == ()


# -- bad input: one line naming the file, the version or shape found, what is supported ----------

def _write(tmp_path, name, data) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, "utf-8")
    return path


@pytest.mark.parametrize(
    "mutate, needle",
    [
        (lambda d: {**d, "schema_version": "3.0"}, "schema_version '3.0' is not supported (supported: 2.0"),
        (lambda d: {**d, "schema": "docvortex.model"}, "found schema 'docvortex.model' version '2.0'"),
        (lambda d: {"pdf_info": [], "_version_name": "2.5.4"}, "a MinerU 2.x/3.x _middle.json"),
        (lambda d: {**d, "pages": {"0": []}}, "'pages' must be a list, got an object"),
        (lambda d: {**d, "pages": [{"page_idx": -1, "blocks": []}]}, "'page_idx' must be a non-negative"),
        (lambda d: {**d, "pages": [{"page_idx": 0, "blocks": [{"type": "text", "content": 5}]}]},
         "'content' must be a list of spans"),
        (lambda d: {**d, "pages": [{"page_idx": 0, "blocks": [{"type": "table", "content": []}]}]},
         "a table block needs a table_body child"),
        (lambda d: {**d, "pages": [{"page_idx": 0, "blocks": [{"type": "text", "bbox": [0, 0, "a", 1]}]}]},
         "'bbox' must be 4 numbers"),
        (lambda d: {**d, "pages": [{"page_idx": 10 ** 9, "blocks": []}], "extensions": {}},
         "beyond any real document"),
    ],
)
def test_malformed_mineru_4_files(tmp_path, mutate, needle):
    path = _write(tmp_path, "middle.json", mutate(_every_block_type()))
    with pytest.raises(InputError, match=needle.replace("(", r"\(").replace(")", r"\)")) as info:
        chunkbench.load(path)
    assert os.fspath(path) in str(info.value) and info.value.exit_code == 3


def test_deeply_nested_lists_are_refused_not_a_crash(tmp_path):
    data = _every_block_type()
    nested: dict = {"type": "text", "content": [_span("deep")]}
    for _ in range(100):
        nested = {"type": "list", "content": [nested]}
    data["pages"][0]["blocks"][4]["content"] = [nested]
    with pytest.raises(InputError, match="lists nested deeper than 64 levels"):
        chunkbench.load(_write(tmp_path, "deep.json", data))
    raw = '{"schema": "docvortex.middle", "pages": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(InputError, match="JSON nested too deeply"):  # beyond what the JSON parser takes
        chunkbench.load(_write(tmp_path, "deeper.json", raw))


def test_huge_page_idx_in_a_content_list_without_pdf_fails_fast(tmp_path):
    """A 40-byte content_list naming page 10^9 must not build 10^9 page objects."""
    path = _write(tmp_path, "x_content_list.json", '[{"type":"text","text":"a","page_idx":1000000000}]')
    started = time.monotonic()
    with pytest.raises(InputError, match="page_idx 1000000000 is beyond any real document"):
        chunkbench.load(path)
    assert time.monotonic() - started < 5


def test_zips_without_mineru_output_or_too_large(tmp_path):
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as z:
        z.writestr("markdown.md", "# hi")
    with pytest.raises(InputError, match="not a MinerU 4 zip: no middle_json.json or structured_content.json"):
        chunkbench.load(empty)
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as z, \
            z.open("middle_json.json", "w", force_zip64=True) as fh:
        chunk = b" " * (1 << 20)
        for _ in range(1100):  # 1.1 GiB of spaces, a few MB compressed
            fh.write(chunk)
    with pytest.raises(InputError, match="too large"):
        chunkbench.load(bomb)
    not_zip = _write(tmp_path, "fake.zip", "hello")
    with pytest.raises(InputError, match="not a readable zip"):
        chunkbench.load(not_zip)


def test_cli_names_file_and_version_exit_3(tmp_path):
    path = _write(tmp_path, "middle.json", {**_every_block_type(), "schema_version": "9.9"})
    out = tmp_path / "chunks.json"
    done = subprocess.run(CLI + ["chunk", os.fspath(path), "-o", os.fspath(out)], capture_output=True, text=True)
    assert done.returncode == 3
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and os.fspath(path) in lines[0] and "'9.9'" in lines[0]
    assert not out.exists() and not list(tmp_path.glob(".*"))


def test_shapes_kit_writes_without_pdf_beside(outputs, tmp_path):
    """A zip copied alone elsewhere still has page sizes (from MinerU's layout extension)."""
    files = outputs[CONTRACT.stem]
    alone = Path(shutil.copyfile(files["zip"], tmp_path / "copy.zip"))
    doc = chunkbench.load(alone)
    assert doc.pdf_path is None and all(p.width > 0 for p in doc.pages)
    assert all(e.bbox is not None for e in doc.elements)


def test_explorer_and_a_sweep_on_mineru_output(outputs, tmp_path):
    """MinerU's parse in the explorer (its boxes drawn on the PDF) and in a sweep over its zip."""
    from chunkbench.app import sweep
    from chunkbench.ui.explorer import Explorer

    files = outputs[CONTRACT.stem]
    doc = chunkbench.load(files["zip"], pdf=CONTRACT)
    ex = Explorer(doc, "elements")
    assert ex.has_pdf and ex.image is not None and len(ex.state.chunkset) > 3
    assert [r for r in ex.image.regions if r.kind == "chunk"]
    ex.state.set_params(max_chunk_size=800)
    assert max(c.char_len for c in ex.state.chunkset) <= 800
    df = sweep.run_sweep([files["zip"]], {"max_chunk_size": [800, 1600]}, tmp_path / "sweep", jobs=1,
                         progress=False, notebooks="none", questions=None)
    assert list(df["status"]) == ["ok", "ok"] and df["chunks"].iloc[0] > df["chunks"].iloc[1]
