"""`chunkbench pick` / `cb.pick` (app.pick): the comparison evaluate runs, its best setting written
as chunks.json with index texts, and the printed lines that load it, run here with LangChain's and
LlamaIndex's own fake embeddings."""

from __future__ import annotations

import shutil

import chunkbench as cb
from chunkbench.app.pick import loading_lines
from chunkbench.io.export import load_chunks_json
from chunkbench.text.tokenizer import count_tokens
from chunkbench.ui.cli import main
from tests.support.paths import SAMPLE_PDFS

MANUAL = SAMPLE_PDFS / "technical_manual.pdf"


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_pick_writes_the_best_setting_and_the_lines_it_prints_load_it(tmp_path, capsys):
    out = tmp_path / "chunks.json"
    code, stdout, _ = run_cli(capsys, "pick", str(MANUAL), "-o", str(out))
    assert code == 0 and out.is_file()
    chosen = cb.pick(MANUAL)
    assert f"chosen: {chosen.why}" in stdout and chosen.comparison["best"] in (chosen.setting.name, None)
    data = load_chunks_json(out)
    assert data["chunking"]["retrieval"].startswith("embed each")  # the chosen setting's index texts
    assert [c["text"] for c in data["chunks"]] == [c.text for c in chosen.chunks.chunks]  # what cb.pick makes
    lines = stdout[stdout.index("import chunkbench as cb"):].strip().splitlines()
    assert lines == loading_lines(str(out), str(MANUAL.resolve())).splitlines() and len(lines) == 4

    from langchain_core.embeddings import DeterministicFakeEmbedding
    from llama_index.core.embeddings import MockEmbedding

    scope = {"embeddings": DeterministicFakeEmbedding(size=16), "embed_model": MockEmbedding(embed_dim=8)}
    exec("\n".join(lines[:3]), scope)  # LangChain
    sent = scope["retriever"].invoke("how do I mount the logger on a pole?")
    ids = {c.chunk_id for c in chosen.chunks.chunks}
    assert sent and all(d.id in ids for d in sent)
    assert sum(count_tokens(d.page_content) for d in sent) <= 1000 + 1
    exec("\n".join([*lines[:2], lines[3]]), scope)  # LlamaIndex
    nodes = scope["post"].postprocess_nodes(scope["retriever"].retrieve("battery"), query_str="battery")
    assert nodes and all(n.node.node_id in ids for n in nodes)


def test_pick_without_questions_says_what_it_rests_on_and_bad_input_is_a_clear_error(tmp_path, capsys):
    alone = tmp_path / "manual.pdf"
    shutil.copy(MANUAL, alone)  # no questions file beside it
    code, stdout, _ = run_cli(capsys, "pick", str(alone), "-o", str(tmp_path / "c.json"))
    assert code == 0 and "No questions file for manual.pdf" in stdout and (tmp_path / "c.json").is_file()
    code, _, stderr = run_cli(capsys, "pick", str(tmp_path / "missing.pdf"), "-o", str(tmp_path / "m.json"))
    assert code == 3 and "missing.pdf" in stderr and "Traceback" not in stderr
    assert not (tmp_path / "m.json").exists()
    code, _, stderr = run_cli(capsys, "pick", str(MANUAL), "--budget", "0", "-o", str(tmp_path / "b.json"))
    assert code == 2 and "--budget" in stderr and not (tmp_path / "b.json").exists()
