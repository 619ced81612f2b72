"""The lineage of two chunk sets, on two versions of real documents (a paragraph
inserted, deleted, edited), as `cb.lineage` and `chunkbench lineage`; invariants by hypothesis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.errors import InputError
from chunkbench.evaluate.lineage import KINDS, REEMBED, lineage, similarity, stability
from chunkbench.ui.cli import main
from tests.support.documents import make_doc
from tests.support.paths import ROOT, SAMPLE_PDFS, without_page

GUIDE = ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"
NEW_PARAGRAPH = "A paragraph only the second version has, about rotating the signing keys every ninety days."


def versions(tmp_path: Path, how: str) -> tuple[Path, Path]:
    """The deployment guide and a second version of it with one paragraph inserted, deleted or edited half-way."""
    text = GUIDE.read_text("utf-8")
    paras = text.split("\n\n")
    mid = next(i for i in range(len(paras) // 2, len(paras)) if paras[i][:1].isalpha())
    if how == "inserted":
        paras.insert(mid, NEW_PARAGRAPH)
    elif how == "deleted":
        del paras[mid]
    else:
        paras[mid] = paras[mid].replace(" ", " newly ", 1)
    old, new = tmp_path / "v1" / "guide.md", tmp_path / "v2" / "guide.md"  # one file, replaced by its new version
    old.parent.mkdir(exist_ok=True)
    new.parent.mkdir(exist_ok=True)
    old.write_text(text, "utf-8")
    new.write_text("\n\n".join(paras), "utf-8")
    return old, new


def check_every_chunk_once(result, old, new) -> None:
    """Each old chunk in exactly one link, each new chunk in exactly one; kinds shaped as named."""
    olds = [cid for link in result.links for cid in link.old]
    news = [cid for link in result.links for cid in link.new]
    assert sorted(olds) == sorted(c.chunk_id for c in old) and sorted(news) == sorted(c.chunk_id for c in new)
    # the sides share the ids of the chunks they share: keep each side's apart
    text_old = {c.chunk_id: " ".join(c.text.split()) for c in old}
    text_new = {c.chunk_id: " ".join(c.text.split()) for c in new}
    for link in result.links:
        n_old, n_new = len(link.old), len(link.new)
        assert link.kind in KINDS
        if link.kind in ("unchanged", "moved"):
            assert n_old == n_new == 1 and text_old[link.old[0]] == text_new[link.new[0]] and link.similarity == 1.0
        shape = {"split": n_old == 1 < n_new, "merged": n_new == 1 < n_old, "removed": n_old == 1 and n_new == 0,
                 "added": n_old == 0 and n_new == 1, "edited": n_old >= 1 and n_new >= 1}
        assert shape.get(link.kind, True), link
    assert result.to_embed == [cid for link in result.links if link.kind in REEMBED for cid in link.new]


def check_ids_follow_the_text(result, old, new) -> None:
    """A chunk whose text and section stay keeps its id; a chunk whose text changed has
    an id no old chunk had (so a store keyed by id never keeps a stale vector under it)."""
    old_by_id, new_by_id = {c.chunk_id: c for c in old}, {c.chunk_id: c for c in new}
    for link in result.links:
        if link.kind == "unchanged" and old_by_id[link.old[0]].section_path == new_by_id[link.new[0]].section_path:
            assert link.old == link.new, link
        if link.kind in REEMBED:
            assert not set(link.new) & set(old_by_id), link
    assert sorted(result.to_delete) == sorted(set(old_by_id) - set(new_by_id))


@pytest.mark.parametrize("how", ["inserted", "deleted", "edited"])
@pytest.mark.parametrize("strategy", ["elements", "recursive", "sentences", "headers"])
def test_one_changed_paragraph_changes_only_the_chunks_around_it(tmp_path, how, strategy):
    old_path, new_path = versions(tmp_path, how)
    old, new = cb.chunk(cb.load(old_path), strategy), cb.chunk(cb.load(new_path), strategy)
    result = cb.lineage(old, new)
    check_every_chunk_once(result, old, new)
    check_ids_follow_the_text(result, old, new)
    counts = result.counts()
    assert counts["unchanged"] + counts["moved"] >= len(new) - 2, result.summary()
    assert 1 <= len(result.to_embed) <= 2, result.summary()
    changed = [link for link in result.links if link.kind in REEMBED]
    if how == "inserted":
        assert any(NEW_PARAGRAPH[:40] in next(c.text for c in new if c.chunk_id == cid)
                   for link in changed for cid in link.new)
    if how == "deleted":
        assert counts["removed"] + counts["edited"] + counts["merged"] >= 1


def test_a_document_against_itself_and_two_settings_of_one_pdf():
    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    elements = cb.chunk(doc, "elements")
    same = lineage(elements, elements)
    assert same.counts()["unchanged"] == len(elements) and same.to_embed == [] and same.kept == 1.0
    finer = cb.chunk(doc, "elements", max_chunk_size=600)
    result = lineage(elements, finer)
    check_every_chunk_once(result, elements, finer)
    assert result.counts()["split"] >= 1 and all(link.old_pages and link.new_pages for link in result.links)
    tokens = lineage(elements, cb.chunk(doc, "tokens"))
    assert "(chunked by elements before, tokens now)" in tokens.summary()


def test_repeated_texts_pair_in_order_and_unrelated_sets_are_refused():
    repeated = make_doc([{"type": "paragraph", "text": t} for t in
                         ("Reserved.", "Alpha clause text here.", "Reserved.", "Beta clause text here.", "Reserved.")])
    cs = cb.chunk(repeated, "elements", max_chunk_size=50)
    result = lineage(cs, cs)
    assert [(link.old, link.new) for link in result.links] == [((c.chunk_id,), (c.chunk_id,)) for c in cs]
    other = cb.chunk(make_doc([{"type": "paragraph", "text": "Nothing in common with the other one at all."}]), "elements")
    with pytest.raises(InputError, match="share no text"):
        lineage(cs, other)
    forced = lineage(cs, other, force=True)
    assert forced.counts()["removed"] == len(cs) and forced.counts()["added"] == 1


def test_similarity_is_the_share_of_words_kept():
    assert similarity("a b c d", "a b c d") == 1.0 and similarity("a b", "c d") == 0.0
    assert similarity("one two three four", "one two three five") == 0.75


def test_cli_writes_one_line_per_link_and_refuses_unrelated_inputs(tmp_path, capsys):
    old, new = versions(tmp_path, "inserted")
    out = tmp_path / "lineage.jsonl"
    assert main(["lineage", str(old), str(new), "--a", "strategy=sentences", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    lines = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    result = lineage(cb.chunk(cb.load(old), "sentences"), cb.chunk(cb.load(new), "sentences"))
    assert lines == [link.to_dict() for link in result.links]
    assert result.summary() in printed and "re-embed" in printed
    # chunks.json files on both sides (their documents beside them)
    for path in (old, new):
        assert main(["chunk", str(path), "--strategy", "recursive", "-o", str(path.with_suffix(".chunks.json"))]) == 0
    capsys.readouterr()
    assert main(["lineage", str(old.with_suffix(".chunks.json")), str(new.with_suffix(".chunks.json"))]) == 0
    assert "unchanged" in capsys.readouterr().out
    unrelated = tmp_path / "unrelated.jsonl"
    assert main(["lineage", str(old), str(SAMPLE_PDFS / "technical_manual.pdf"), "-o", str(unrelated)]) == 3
    err = capsys.readouterr().err
    assert "share no text" in err and err.count("\n") == 1 and not unrelated.exists()
    assert main(["lineage", str(old), str(SAMPLE_PDFS / "technical_manual.pdf"), "--force"]) == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["alpha beta gamma delta", "epsilon zeta eta theta", "iota kappa lambda mu",
                                 "nu xi omicron pi", "rho sigma tau upsilon", "phi chi psi omega"]),
                min_size=1, max_size=12),
       st.lists(st.tuples(st.sampled_from(["insert", "delete", "edit"]), st.integers(0, 20)), max_size=4),
       st.sampled_from(["elements", "recursive", "sentences"]))
def test_every_chunk_is_in_one_link_whatever_changed(paragraphs, edits, strategy):
    changed = list(paragraphs)
    for kind, at in edits:
        at = at % (len(changed) + 1)
        if kind == "insert":
            changed.insert(at, "a new paragraph of its own words")
        elif changed and at < len(changed):
            if kind == "delete" and len(changed) > 1:
                del changed[at]
            else:
                changed[at] = changed[at] + " amended"
    old = cb.chunk(make_doc([{"type": "paragraph", "text": p + "."} for p in paragraphs]), strategy, **(
        {"max_chunk_size": 60} if strategy == "elements" else {}))
    new = cb.chunk(make_doc([{"type": "paragraph", "text": p + "."} for p in changed], source="v2.json"), strategy, **(
        {"max_chunk_size": 60} if strategy == "elements" else {}))
    check_every_chunk_once(lineage(old, new, force=True), old, new)


def test_token_windows_that_restart_at_headings_keep_the_other_sections(tmp_path):
    """For `tokens`: one run of windows slides every window after a change; runs that
    start again at each heading move only the changed section's windows."""
    old_path, new_path = versions(tmp_path, "inserted")
    old_doc, new_doc = cb.load(old_path), cb.load(new_path)
    kept = {}
    for restart in ("none", "headings"):
        old = cb.chunk(old_doc, "tokens", chunk_size=24, overlap=4, restart_at=restart)
        new = cb.chunk(new_doc, "tokens", chunk_size=24, overlap=4, restart_at=restart)
        result = lineage(old, new)
        check_every_chunk_once(result, old, new)
        kept[restart] = result.kept
    assert kept["headings"] >= 0.8 > kept["none"], kept
    windows = cb.chunk(new_doc, "tokens", chunk_size=24, overlap=4, restart_at="headings")
    starts = {c.start_char for c in windows}
    for h in (e for e in new_doc.elements if e.is_heading and e.char_start > 0):
        assert h.char_start in starts and not any(c.start_char < h.char_start < c.end_char for c in windows), h.text
    heading_led = [c for c in windows if c.boundary.reason.value == "heading"]
    assert heading_led and all("the windows start again" in c.boundary.detail for c in heading_led)
    assert all(c.text == new_doc.text[c.start_char:c.end_char] and c.extra["tokens"] <= 24 for c in windows)


OWN_SETTINGS = [("elements", {}), ("contract", {}), ("headers", {}), ("sections", {}),
                ("tokens", {"restart_at": "headings"}), ("recursive", {}), ("sentences", {})]


@pytest.mark.parametrize(("strategy", "params"), OWN_SETTINGS, ids=[s for s, _ in OWN_SETTINGS])
def test_a_new_version_keeps_the_ids_of_the_chunks_it_keeps(tmp_path, strategy, params):
    """The file replaced by a version with one paragraph inserted: every chunk whose
    text is kept keeps its id; the same under two file names given one `document_id`."""
    old_path, new_path = versions(tmp_path, "inserted")
    old, new = cb.chunk(cb.load(old_path), strategy, **params), cb.chunk(cb.load(new_path), strategy, **params)
    result = cb.lineage(old, new)
    check_ids_follow_the_text(result, old, new)
    same = {(c.chunk_id, c.text) for c in old} & {(c.chunk_id, c.text) for c in new}
    assert len(same) == round(result.kept * len(new)) >= len(new) - 2, result.summary()
    renamed = tmp_path / "v2" / "guide_rev2.md"
    new_path.rename(renamed)
    assert not {c.chunk_id for c in cb.chunk(cb.load(renamed), strategy, **params)} & {c.chunk_id for c in old}
    keyed = [cb.chunk(cb.load(p, metadata={"document_id": "guide"}), strategy, **params) for p in (old_path, renamed)]
    assert all(c.chunk_id.startswith("guide_") or "-" in c.chunk_id for c in keyed[0])  # contract: UUIDs
    assert len({c.chunk_id for c in keyed[0]} & {c.chunk_id for c in keyed[1]}) == len(same)


def test_a_setting_that_moves_a_chunk_changes_its_id_and_only_then():
    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    a, b = cb.chunk(doc, "elements"), cb.chunk(doc, "elements", max_chunk_size=1300)
    by_text = {c.text: c.chunk_id for c in a}
    shared = [c for c in b if c.text in by_text]
    assert shared and len(shared) < len(b)  # the setting moves some chunks, not all
    assert all(by_text[c.text] == c.chunk_id for c in shared)
    assert not {c.chunk_id for c in b if c.text not in by_text} & set(by_text.values())


def test_langchain_index_with_a_record_manager_re_embeds_only_what_changed(tmp_path):
    """LangChain's indexing API keyed by chunkbench's ids (`key_encoder=lambda d: d.id`),
    incremental cleanup: the new version embeds exactly the lineage's `to_embed` and deletes its
    `to_delete`."""
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from langchain_core.indexing import InMemoryRecordManager, index
    from langchain_core.vectorstores import InMemoryVectorStore

    class Counting(DeterministicFakeEmbedding):
        embedded: int = 0

        def embed_documents(self, texts):
            self.embedded += len(texts)
            return super().embed_documents(texts)

    old_path, new_path = versions(tmp_path, "inserted")
    old, new = cb.chunk(cb.load(old_path), "recursive"), cb.chunk(cb.load(new_path), "recursive")
    embeddings = Counting(size=8)
    store, records = InMemoryVectorStore(embeddings), InMemoryRecordManager(namespace="guide")
    records.create_schema()
    kwargs = {"cleanup": "incremental", "source_id_key": "source", "key_encoder": lambda d: d.id}
    first = index(old.to_langchain(stable=True), records, store, **kwargs)
    assert first["num_added"] == embeddings.embedded == len(old)
    embeddings.embedded = 0
    second = index(new.to_langchain(stable=True), records, store, **kwargs)
    result = cb.lineage(old, new)
    assert second["num_added"] == embeddings.embedded == len(result.to_embed) >= 1
    assert second["num_deleted"] == len(result.to_delete) and second["num_skipped"] == len(new) - len(result.to_embed)
    assert sorted(store.store) == sorted(c.chunk_id for c in new)


def test_llama_index_docstore_re_embeds_only_what_changed(tmp_path):
    """LlamaIndex's IngestionPipeline with a docstore (upserts and deletes) over
    `to_llama_index(stable=True)`; the vectors of lost chunks go with `delete_nodes(to_delete)`."""
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.ingestion import DocstoreStrategy, IngestionPipeline
    from llama_index.core.schema import MetadataMode
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from llama_index.core.vector_stores import SimpleVectorStore

    embedded: list[str] = []

    class Counting(MockEmbedding):
        def _get_text_embeddings(self, texts):
            embedded.extend(texts)
            return super()._get_text_embeddings(texts)

    old_path, new_path = versions(tmp_path, "inserted")
    old, new = cb.chunk(cb.load(old_path), "sentences"), cb.chunk(cb.load(new_path), "sentences")
    vectors = SimpleVectorStore()
    pipeline = IngestionPipeline(transformations=[Counting(embed_dim=8)], docstore=SimpleDocumentStore(),
                                 vector_store=vectors, docstore_strategy=DocstoreStrategy.UPSERTS_AND_DELETE)
    assert len(pipeline.run(nodes=old.to_llama_index(stable=True))) == len(embedded) == len(old)
    embedded.clear()
    nodes = new.to_llama_index(stable=True)
    pipeline.run(nodes=nodes)
    result = cb.lineage(old, new)
    by_id = {n.node_id: n.get_content(metadata_mode=MetadataMode.EMBED) for n in nodes}  # the section path too
    assert sorted(embedded) == sorted(by_id[cid] for cid in result.to_embed) and embedded
    assert sorted(pipeline.docstore.docs) == sorted(by_id)
    vectors.delete_nodes(result.to_delete)
    assert sorted(vectors.data.embedding_dict) == sorted(by_id)


def test_sweep_stability_against_another_version_and_against_a_setting(tmp_path, capsys):
    """`sweep --stability-against` adds a `stability` column, the share of each point's
    chunks keeping a baseline chunk's id and text: against the previous version of the input,
    chunked with the point's setting, or against one setting."""
    import pandas as pd

    old_path, new_path = versions(tmp_path, "inserted")
    out = tmp_path / "sweep"
    grid = ["--grid", "strategy=recursive,tokens", "--grid", "restart_at=none,headings", "--notebooks", "none",
            "--jobs", "1", "--no-progress", "--questions", "none"]
    assert main(["sweep", str(new_path), *grid, "--stability-against", str(old_path), "-o", str(out)]) == 0
    df = pd.read_csv(out / "results.csv")
    for _, row in df.iterrows():
        params = json.loads(row["params"])
        expected = stability(cb.chunk(cb.load(new_path), row["strategy"], **params),
                                cb.chunk(cb.load(old_path), row["strategy"], **params))
        assert row["stability"] == pytest.approx(expected, abs=1e-4)
    by = {(r.strategy, r.restart_at if isinstance(r.restart_at, str) else ""): r.stability for r in df.itertuples()}
    assert by[("tokens", "headings")] > by[("tokens", "none")] and by[("recursive", "")] >= 0.8
    setting = "strategy=recursive"
    assert main(["sweep", str(new_path), "--grid", "strategy=recursive,sentences", "--notebooks", "none", "--jobs",
                 "1", "--no-progress", "--questions", "none", "--stability-against", setting,
                 "-o", str(tmp_path / "s2")]) == 0
    df = pd.read_csv(tmp_path / "s2" / "results.csv").set_index("strategy")
    assert df.loc["recursive", "stability"] == 1.0 and df.loc["sentences", "stability"] < 1.0
    capsys.readouterr()
    assert main(["sweep", str(new_path), str(old_path), *grid, "--stability-against", str(old_path),
                 "-o", str(tmp_path / "s3")]) == 2
    assert "exactly one INPUT" in capsys.readouterr().err and not (tmp_path / "s3").exists()
    assert main(["sweep", str(new_path), *grid, "--stability-against", "strategy=nope", "-o", str(tmp_path / "s4")]) == 2
    assert not (tmp_path / "s4").exists()


def test_reviews_follow_the_new_version_and_those_that_no_longer_apply_are_listed(tmp_path, capsys):
    """Verdicts on chunks whose text the new version keeps, and edits whose text it
    keeps, are saved for the new version; the others are listed as no longer applying."""
    from chunkbench.app.carry_over import CARRIES, carry_reviews
    from chunkbench.db import edits as edit_store
    from chunkbench.db import verdicts as verdict_store
    from chunkbench.db.workspace import open_workspace
    from chunkbench.types.chunk import boundary_key
    from chunkbench.types.review import Edit, anchor_at, resolve

    old_path, new_path = versions(tmp_path, "deleted")
    old, new = cb.chunk(cb.load(old_path), "sentences"), cb.chunk(cb.load(new_path), "sentences")
    result = cb.lineage(old, new)
    ws = tmp_path / "ws.db"
    lost = next(link for link in result.links if link.kind not in CARRIES and link.old)
    lost_chunk = next(c for c in old if c.chunk_id == lost.old[0])
    kept_chunk = next(c for c in old if c.chunk_id == next(link.old[0] for link in result.links
                                                              if link.kind == "unchanged" and link.old[0] != old[0].chunk_id))
    with open_workspace(ws) as conn:
        for c in old:
            verdict_store.record_for_chunk(conn, old, c.index, "should_merge" if c is lost_chunk else "ok", reviewer="ann")
        for c in (kept_chunk, lost_chunk):  # a split in the middle of each
            middle = c.start_char + len(c.text) // 2
            edit_store.record(conn, old.doc.doc_id, old.strategy, Edit("split", anchor_at(old.doc, middle), reviewer="bob"))
        heading = next(e for e in old.doc.elements if e.text == "Rollback procedure")  # the version deletes it
        edit_store.record(conn, old.doc.doc_id, old.strategy,
                          Edit("merge", anchor_at(old.doc, heading.char_start + 3), reviewer="cy"))
    carried = carry_reviews(old, new, workspace=ws, result=result)
    expected = sum(1 for link in result.links if link.kind in CARRIES)
    assert len(carried.verdicts) == expected and len(carried.edits) >= 1
    assert any("'should_merge' by ann" in line and f"is {lost.kind}" in line for line in carried.not_applying)
    assert any(line.startswith("edit 'merge' by cy") and "gone" in line for line in carried.not_applying)
    with open_workspace(ws) as conn:
        given = verdict_store.for_chunkset(conn, new)
        assert set(given) == {boundary_key(c) for c in new if c.chunk_id in {link.new[0] for link in result.links
                                                                              if link.kind in CARRIES}}
        new_edits = edit_store.query(conn, new.doc.doc_id, new.strategy)
    assert all(resolve(new.doc, e.at) is not None and e.reviewer == "bob" for e in new_edits)
    assert len(new_edits) == len(carried.edits) == 3 - sum(line.startswith("edit") for line in carried.not_applying)
    again = carry_reviews(old, new, workspace=ws, result=result)  # nothing saved twice
    with open_workspace(ws) as conn:
        assert len(edit_store.query(conn, new.doc.doc_id, new.strategy)) == len(new_edits)
    assert again.edits == () and len(again.verdicts) == len(carried.verdicts)
    assert main(["lineage", str(old_path), str(new_path), "--a", "strategy=sentences", "--carry-reviews",
                 "--workspace", str(ws)]) == 0
    out = capsys.readouterr().out
    assert again.summary() in out and "no longer applies: verdict 'should_merge'" in out


def test_the_lineage_is_drawn_on_both_versions_pages(tmp_path):
    """A version of the sample contract without its page 3: `lineage --html` draws the
    changed pages of both versions side by side, each chunk in its kind's colour and tagged; the
    page of the lost text shows it removed (or merged away), the pages after it moved."""
    from chunkbench.ui.render.lineagepages import changed_pages, render_lineage

    v1 = SAMPLE_PDFS / "contract_services_agreement.pdf"
    v2 = without_page(v1, 3, tmp_path / "v2")
    out = tmp_path / "html"
    assert main(["lineage", str(v1), str(v2), "--html", str(out)]) == 0
    old, new = cb.chunk(cb.load(v1), "elements"), cb.chunk(cb.load(v2), "elements")
    result = cb.lineage(old, new)
    html = (out / "index.html").read_text("utf-8")
    assert result.summary() in html and "old-page-003.png" in html
    expected = [f"{side}-page-{n:03d}.png" for side, cs in (("old", old), ("new", new))
                for n in changed_pages(result, cs, side)]
    assert sorted(p.name for p in out.glob("*.png")) == sorted(expected) and "old-page-003.png" in expected
    drawn = render_lineage(result, old, 3, "old")
    kinds = {r.label for r in drawn.regions if r.kind == "chunk"}
    assert kinds and kinds <= {"removed", "merged", "edited", "split"} and "removed" in kinds
    later = render_lineage(result, new, 4, "new")
    assert {r.label for r in later.regions if r.kind == "chunk"} & {"moved"}


def test_the_lineage_page_escapes_the_text_it_shows(tmp_path):
    old_path, new_path = versions(tmp_path, "inserted")
    new_path.write_text(new_path.read_text("utf-8").replace(NEW_PARAGRAPH, "<script>alert(1)</script> " + NEW_PARAGRAPH),
                        "utf-8")
    assert main(["lineage", str(old_path), str(new_path), "--html", str(tmp_path / "html")]) == 0
    html = (tmp_path / "html" / "index.html").read_text("utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert" not in html
    assert "has no pages to draw" in html


def test_versions_under_other_file_names_share_ids_when_named_as_one_document(tmp_path, capsys):
    """report_2024.pdf and report_2025.pdf shared no chunk id (the id starts with the file's stem):
    `--document-id` on parse, chunk and lineage, `document_id=` in Python, names the document so an
    unchanged chunk keeps its id; an id that cannot start a chunk id is a usage error."""
    import shutil

    from chunkbench.ui.cli import main

    old = Path(shutil.copyfile(SAMPLE_PDFS / "contract_services_agreement.pdf", tmp_path / "report_2024.pdf"))
    new = Path(shutil.copyfile(old, tmp_path / "report_2025.pdf"))
    apart = [c.chunk_id for c in cb.chunk(cb.load(old), "elements")], [c.chunk_id for c in cb.chunk(cb.load(new), "elements")]
    assert not set(apart[0]) & set(apart[1])
    named = [c.chunk_id for c in cb.chunk(cb.load(new, document_id="report"), "elements")]
    assert all(i.startswith("report_") for i in named)
    for path in (old, new):
        assert main(["chunk", str(path), "--document-id", "report", "-o", str(tmp_path / f"{path.stem}.json")]) == 0
    ids = [[c["chunk_id"] for c in json.loads((tmp_path / f"{p.stem}.json").read_text("utf-8"))["chunks"]]
           for p in (old, new)]
    assert ids[0] == ids[1] == named
    assert main(["parse", str(new), "--document-id", "report", "-o", str(tmp_path / "new.elements.json")]) == 0
    assert [c.chunk_id for c in cb.chunk(cb.load(tmp_path / "new.elements.json"), "elements")] == named
    lines = tmp_path / "lineage.jsonl"
    assert main(["lineage", str(old), str(new), "--a", "strategy=elements", "--document-id", "report",
                 "-o", str(lines)]) == 0
    assert all(row["old"] == row["new"] for row in map(json.loads, lines.read_text("utf-8").splitlines()))
    capsys.readouterr()
    assert main(["chunk", str(new), "--document-id", "a b", "-o", str(tmp_path / "bad.json")]) == 2
    assert "a document id is 1 to 64 letters" in capsys.readouterr().err
