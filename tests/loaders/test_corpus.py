"""Parsing a corpus of PDFs in this process, on local Dask workers or on a Dask
scheduler's workers: a failure recorded per file, a run that resumes, outputs identical whatever
runs them, parses that land in this machine's cache (loaders/corpus.py, `chunkbench parse`)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import chunkbench as cb
from chunkbench.errors import InputError
from chunkbench.loaders.corpus import MANIFEST, expand_inputs, parse_corpus, prime_cache
from chunkbench.ui.cli import main
from tests.support.paths import SAMPLE_PDFS


@pytest.fixture
def corpus(tmp_path):
    """Three sample PDFs (one in a sub-folder) and a damaged one."""
    folder = tmp_path / "pdfs"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(SAMPLE_PDFS / "contract_services_agreement.pdf", folder / "contract.pdf")
    shutil.copy(SAMPLE_PDFS / "rfp_it_services.pdf", folder / "rfp.pdf")
    shutil.copy(SAMPLE_PDFS / "technical_manual.pdf", folder / "sub" / "manual.pdf")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\ntruncated")
    (folder / "notes.txt").write_text("not part of a PDF corpus", encoding="utf-8")
    return folder


def test_a_corpus_is_files_globs_and_folders(corpus):
    every = expand_inputs([corpus])
    assert [os.path.relpath(p, corpus) for p in every] == ["broken.pdf", "contract.pdf", "rfp.pdf", "sub/manual.pdf"]
    assert expand_inputs([str(corpus / "*.pdf"), corpus / "rfp.pdf"]) == every[:3]  # duplicates dropped
    assert expand_inputs([str(corpus / "**" / "man*.pdf")]) == [str(corpus / "sub" / "manual.pdf")]
    with pytest.raises(InputError, match="matches no file") as err:
        expand_inputs([str(corpus / "*.docx")])
    assert "*.docx" in str(err.value.path)
    with pytest.raises(InputError, match="no such file"):
        expand_inputs([corpus / "gone"])


def test_a_corpus_parse_records_each_file_and_resumes(corpus, tmp_path):
    out = tmp_path / "out"
    first = parse_corpus([corpus], out, progress=False)
    by_name = {os.path.basename(r.file): r for r in first}
    assert by_name["broken.pdf"].status == "failed" and by_name["broken.pdf"].error.startswith("InputError")
    assert by_name["broken.pdf"].output is None and not (out / "broken.elements.json").exists()
    for name in ("contract.pdf", "rfp.pdf", "manual.pdf"):
        r = by_name[name]
        assert r.status == "ok" and r.pages > 0 and r.elements > 0 and not r.skipped
        written = json.loads((out / name.replace(".pdf", ".elements.json")).read_text("utf-8"))
        assert written == cb.load(r.file).to_dict()  # what `load` gives, tables stitched
    lines = [json.loads(x) for x in (out / MANIFEST).read_text("utf-8").splitlines()]
    assert sorted(os.path.basename(x["file"]) for x in lines) == sorted(by_name)
    # again: what is done is skipped, the failed file is tried again; a changed file is parsed again
    again = parse_corpus([corpus], out, progress=False)
    assert [r.skipped for r in again] == [False, True, True, True]
    os.utime(corpus / "rfp.pdf", ns=(1, 1))
    (out / MANIFEST).write_text((out / MANIFEST).read_text("utf-8") + '{"file": "cut sh', encoding="utf-8")
    third = {os.path.basename(r.file): r for r in parse_corpus([corpus], out, progress=False)}
    assert not third["rfp.pdf"].skipped and third["contract.pdf"].skipped and third["rfp.pdf"].status == "ok"
    # the line after a torn one is a line of its own: rfp is not parsed a third time; a tail of bytes
    # that are not UTF-8 (a crash mid-write) is a torn line too, not a failed run
    with open(out / MANIFEST, "ab") as fh:
        fh.write(b'{"file": "\xe2\x82')
    fourth = {os.path.basename(r.file): r for r in parse_corpus([corpus], out, progress=False)}
    assert all(r.skipped for name, r in fourth.items() if name != "broken.pdf")
    fresh = parse_corpus([corpus], out, progress=False, resume=False)
    assert not any(r.skipped for r in fresh)


def test_the_cli_parses_a_folder_and_says_which_file_failed(corpus, tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["parse", str(corpus), "-o", str(out), "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "broken.pdf" in captured.err and captured.err.count("\n") == 1
    assert "parsed 3 of 4 files" in captured.out and "1 failed" in captured.out
    assert sorted(p.name for p in out.glob("*.elements.json")) == ["contract.elements.json", "manual.elements.json",
                                                                  "rfp.elements.json"]
    os.remove(corpus / "broken.pdf")
    assert main(["parse", str(corpus / "*.pdf"), str(corpus / "sub"), "-o", str(out), "--no-progress"]) == 0
    assert "3 done in an earlier run" in capsys.readouterr().out
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert main(["parse", str(corpus), "-o", str(tmp_path / "file"), "--no-progress"]) == 2
    assert "is a file" in capsys.readouterr().err


def test_a_parse_made_elsewhere_lands_in_this_machines_cache(tmp_path, monkeypatch):
    from chunkbench.loaders import pdf as pdf_loader

    path = str(SAMPLE_PDFS / "rfp_it_services.pdf")
    raw = pdf_loader.load_pdf(path, cache=False, progress=False, workers=1)
    monkeypatch.setenv("CHUNKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    assert prime_cache(path, raw) is True
    assert prime_cache(path, raw) is False  # already there
    monkeypatch.setattr(pdf_loader, "_parse_pages", lambda *a, **k: pytest.fail("parsed again"))
    assert pdf_loader.load_pdf(path).to_dict() == raw.to_dict()
    other = pdf_loader.ParserInfo(raw.parser.name, "pymupdf 0.0.1", raw.parser.options)
    import dataclasses

    assert prime_cache(str(SAMPLE_PDFS / "technical_manual.pdf"), raw) is False  # another file
    assert pdf_loader.cache_entry_for(path, dataclasses.replace(raw, parser=other)) is None  # other versions


def test_local_workers_and_a_scheduler_give_the_same_documents(corpus, tmp_path, monkeypatch):
    """The same elements.json whether a file is parsed here, by one worker, or as page ranges
    across the workers (split_pages=2 splits every sample); the client lets each parse go on the
    cluster as it arrives."""
    distributed = pytest.importorskip("distributed")
    from chunkbench.loaders import corpus as corpus_module

    planned = []
    plan = corpus_module.plan_split
    monkeypatch.setattr(corpus_module, "plan_split", lambda *a, **k: planned.append(plan(*a, **k)) or planned[-1])
    os.remove(corpus / "broken.pdf")
    here = {os.path.basename(r.file): r for r in parse_corpus([corpus], tmp_path / "one", progress=False)}
    held = []  # the futures the client still holds as each Document arrives: the finished ones are let go

    def arrived(_file, _doc):
        held.append(len(distributed.Client.current().futures))

    two = {os.path.basename(r.file): r for r in parse_corpus([corpus], tmp_path / "two", workers=2, progress=False,
                                                            options={"cache": False}, on_document=arrived,
                                                            split_pages=2)}
    assert {k: r.status for k, r in two.items()} == {k: "ok" for k in here}
    assert held == sorted(held, reverse=True) and held[-1] == 0
    assert sorted(len(p.ranges) for p in planned) == sorted(-(-r.pages // 4) for r in here.values())  # ranges of 4
    for name in here:
        stem = name.replace(".pdf", ".elements.json")
        assert (tmp_path / "two" / stem).read_bytes() == (tmp_path / "one" / stem).read_bytes()
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = parse_corpus([corpus / "contract.pdf"], tmp_path / "remote", dask=cluster.scheduler_address,
                              progress=False, options={"cache": False})
    assert remote[0].status == "ok"
    assert (tmp_path / "remote" / "contract.elements.json").read_bytes() == \
        (tmp_path / "one" / "contract.elements.json").read_bytes()


def test_a_sweep_and_an_evaluation_over_a_glob_parse_on_workers_first(corpus, tmp_path, monkeypatch, capsys):
    from chunkbench.loaders.pdf import is_cached

    os.remove(corpus / "broken.pdf")
    monkeypatch.setenv("CHUNKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    pdfs = expand_inputs([corpus])
    assert not any(is_cached(p) for p in pdfs)
    assert main(["sweep", str(corpus / "**" / "*.pdf"), "--grid", "max_chunk_size=800,1600", "-o",
                 str(tmp_path / "sweep"), "--workers", "2", "--notebooks", "none", "--questions", "none",
                 "--workspace", "none", "--no-progress"]) == 0
    assert all(is_cached(p) for p in pdfs)  # parsed by the workers into the shared cache
    rows = (tmp_path / "sweep" / "results.csv").read_text("utf-8").splitlines()
    assert len(rows) == 1 + 2 * len(pdfs) and all(",ok," in r for r in rows[1:])
    capsys.readouterr()
    monkeypatch.setenv("CHUNKBENCH_CACHE_DIR", str(tmp_path / "cache2"))
    one = str(SAMPLE_PDFS / "contract_services_agreement.pdf")
    assert main(["evaluate", one, "--questions-dir", str(SAMPLE_PDFS), "--workers", "1", "--no-progress",
                 "--strategy", "recursive", "--grid", "chunk_size=400"]) == 0
    assert is_cached(one)


def test_a_worker_killed_mid_run_loses_and_repeats_no_file(tmp_path):
    """SIGKILL of a LocalCluster worker once the first Document is in: its nanny restarts it, the
    scheduler gives its task to a worker again, and every file is done once (one manifest line each)."""
    import signal

    distributed = pytest.importorskip("distributed")
    folder = tmp_path / "pdfs"
    folder.mkdir()
    for i in range(6):
        shutil.copy(SAMPLE_PDFS / "technical_manual.pdf", folder / f"m{i}.pdf")
    killed = []

    def arrived(_file, _doc):
        if not killed:
            pids = distributed.Client.current().run(os.getpid)
            killed.append(min(pids.values()))
            os.kill(killed[0], signal.SIGKILL)

    out = tmp_path / "out"
    results = parse_corpus([folder], out, workers=2, progress=False, options={"cache": False}, on_document=arrived)
    assert killed and [r.status for r in results] == ["ok"] * 6
    lines = [json.loads(x) for x in (out / MANIFEST).read_text("utf-8").splitlines()]
    assert sorted(x["file"] for x in lines) == sorted(r.file for r in results)
