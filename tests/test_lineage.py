"""Issue 56.1: the lineage of two chunk sets, on two versions of real documents (a paragraph
inserted, deleted, edited), as `cb.lineage` and `chunkbench lineage`; invariants by hypothesis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.errors import InputError
from chunkbench.evaluate.lineage import KINDS, REEMBED, lineage, similarity
from chunkbench.ui.cli import main
from tests.conftest import ROOT, SAMPLE_PDFS, make_doc

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
    old, new = tmp_path / "guide_v1.md", tmp_path / "guide_v2.md"
    old.write_text(text, "utf-8")
    new.write_text("\n\n".join(paras), "utf-8")
    return old, new


def check_every_chunk_once(result, old, new) -> None:
    """Each old chunk in exactly one link, each new chunk in exactly one; kinds shaped as named."""
    olds = [cid for link in result.links for cid in link.old]
    news = [cid for link in result.links for cid in link.new]
    assert sorted(olds) == sorted(c.chunk_id for c in old) and sorted(news) == sorted(c.chunk_id for c in new)
    # two settings of one file share ids (the file's hash and the index): keep each side's apart
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


@pytest.mark.parametrize("how", ["inserted", "deleted", "edited"])
@pytest.mark.parametrize("strategy", ["elements", "recursive", "sentences", "headers"])
def test_one_changed_paragraph_changes_only_the_chunks_around_it(tmp_path, how, strategy):
    old_path, new_path = versions(tmp_path, how)
    old, new = cb.chunk(cb.load(old_path), strategy), cb.chunk(cb.load(new_path), strategy)
    result = cb.lineage(old, new)
    check_every_chunk_once(result, old, new)
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
    """Issue 56.3 for `tokens`: one run of windows slides every window after a change; runs that
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
