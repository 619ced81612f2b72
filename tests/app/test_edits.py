"""Reviewers' boundary edits, anchored to the text, stored in the workspace and
applied from Python and the CLI (strategies/edits.py, store/edits.py, `chunkbench edit`)."""

from __future__ import annotations

import csv
import json
import warnings

import pytest
from element_streams import element_documents
from hypothesis import given
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.app.chunking import add_edit
from chunkbench.db.edits import edits_of
from chunkbench.errors import EditWarning
from chunkbench.strategies.edits import Anchor, Edit, anchor_at, apply_edits, make_edit, resolve, span_text
from chunkbench.ui.cli import main
from tests.support.paths import SAMPLE_PDFS

PDF = SAMPLE_PDFS / "contract_services_agreement.pdf"


def _squeeze(s: str) -> str:
    return "".join(s.split())


def _starts(cs) -> set[int]:
    text = cs.doc.text
    out = set()
    for c in cs.chunks[1:]:
        p = c.start_char
        while text[p].isspace():
            p += 1
        out.add(p)
    return out


@pytest.fixture
def contract():
    doc = cb.load(PDF)
    return doc, cb.chunk(doc, "elements")


def test_merge_split_and_move_change_exactly_their_boundary(contract, tmp_path):
    doc, cs = contract
    ws = tmp_path / "ws.db"
    merged_at = cs.chunks[3].start_char
    split = add_edit(cs, "split", 5, word=12, reviewer="ben", comment="two topics", workspace=ws)
    add_edit(cs, "merge", 3, reviewer="ana", workspace=ws)
    add_edit(cs, "move", 8, word=-4, reviewer="ana", workspace=ws)
    edited = cb.chunk(doc, "elements", edits="apply", workspace=ws)
    before, after = _starts(cs), _starts(edited)
    split_at = resolve(doc, split.at)
    moved_from = cs.chunks[8].start_char
    assert after == (before - {merged_at, moved_from}) | {split_at, resolve(doc, edits_of(doc, "elements", ws)[2].to)}
    assert len(edited) == len(cs)  # one merged away, one split off, one moved
    assert [c.index for c in edited] == list(range(len(edited)))
    made = [c for c in edited if c.boundary.reason.value == "reviewer_edit"]
    assert {c.extra["edit"]["reviewer"] for c in made} == {"ana", "ben"}
    piece = next(c for c in edited if c.start_char == split_at)
    assert "split here by ben on " in piece.boundary.detail and piece.boundary.detail.endswith("two topics")
    # nothing lost, nothing repeated: the edited chunks hold the same text as the strategy's
    assert _squeeze("".join(c.text for c in edited)) == _squeeze("".join(c.text for c in cs))
    merged = next(c for c in edited if c.start_char == cs.chunks[2].start_char)
    assert "the next chunk merged into the chunk before by ana" in merged.boundary.detail
    assert cs.chunks[3].text.split()[0] in merged.text


def test_edits_survive_other_parameters_and_a_changed_text(contract, tmp_path):
    doc, cs = contract
    split = make_edit(cs, "split", 5, word=12, reviewer="ben")
    other = cb.chunk(doc, "elements", max_chunk_size=900)
    outcome = apply_edits(other, [split])
    assert outcome.applied == (split,) and resolve(doc, split.at) in _starts(outcome.chunkset)
    # the same words in a document where the element id is gone and the text moved: found by the text
    md = tmp_path / "a.md"
    md.write_text("# Title\n\nAlpha beta gamma delta epsilon. Zeta eta theta iota kappa lambda.\n", encoding="utf-8")
    one = cb.load(md)
    anchor = anchor_at(one, one.text.index("Zeta"))
    md.write_text("# Title\n\nA new first paragraph.\n\nAlpha beta gamma delta epsilon. Zeta eta theta iota kappa "
                  "lambda.\n", encoding="utf-8")
    two = cb.load(md)
    assert two.text[resolve(two, anchor):].startswith("Zeta")
    md.write_text("# Title\n\nSomething else entirely now.\n", encoding="utf-8")
    assert resolve(cb.load(md), anchor) is None


def test_an_edit_whose_text_is_gone_or_has_no_boundary_is_reported(contract):
    doc, cs = contract
    gone = Edit("merge", Anchor("nowhere", 0, "", "text that is not in the document at all"))
    merge = make_edit(cs, "merge", 3, reviewer="ana")
    coarse = cb.chunk(doc, "elements", max_chunk_size=100_000, heading_level=1, table_boundary=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = cb.chunk(doc, "elements", edits=[gone, merge])
    messages = [str(w.message) for w in caught if issubclass(w.category, EditWarning)]
    assert len(messages) == 1 and "its text is gone" in messages[0]
    assert len(out) == len(cs) - 1
    kept = {c.start_char for c in coarse.chunks}
    lost = next(c.index for c in cs.chunks[1:] if c.start_char not in kept)  # a cut the coarse setting does not make
    outcome = apply_edits(coarse, [make_edit(cs, "merge", lost, reviewer="ana")])
    assert outcome.stale and "no boundary" in outcome.stale[0][1] and outcome.chunkset.chunks == coarse.chunks


def test_reviewers_who_disagree_are_shown_not_settled_by_the_last(contract, tmp_path):
    doc, cs = contract
    ws = tmp_path / "ws.db"
    add_edit(cs, "merge", 3, reviewer="ana", workspace=ws)
    # ben wants a cut exactly where ana removes one: moving the next boundary back onto it
    place = anchor_at(doc, cs.chunks[3].start_char)
    from chunkbench.db.edits import record
    from chunkbench.db.workspace import open_workspace

    with open_workspace(ws) as conn:
        record(conn, doc.doc_id, "elements", Edit("split", place, None, "ben"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        both = cb.chunk(doc, "elements", edits="apply", workspace=ws)
    conflicts = [str(w.message) for w in caught if "conflict" in str(w.message)]
    assert len(conflicts) == 2 and all("ana, ben disagree" in m for m in conflicts)
    quote = " ".join(doc.text[cs.chunks[3].start_char:].split())[:20]
    assert all(f"before “{quote}" in m and "\\n" not in m for m in conflicts)  # one line of plain text, no repr
    assert _starts(both) == _starts(cs)  # neither applied
    only_ana = cb.chunk(doc, "elements", edits="apply", workspace=ws, reviewer="ana")
    assert len(only_ana) == len(cs) - 1


def test_edited_chunks_export_as_ordinary_chunks_json(contract, tmp_path):
    doc, cs = contract
    edited = apply_edits(cs, [make_edit(cs, "split", 5, word=12, reviewer="ben")]).chunkset
    path = tmp_path / "chunks.json"
    edited.to_json(path)  # validated against the schema while writing
    data = json.loads(path.read_text())
    assert any(c["boundary"]["reason"] == "reviewer_edit" for c in data["chunks"])
    back = cb.ChunkSet.from_dict(data, doc)
    assert [c.text for c in back.chunks] == [c.text for c in edited.chunks]


@given(element_documents(), st.lists(st.tuples(st.sampled_from(["merge", "split", "move"]), st.integers(0, 40),
                                               st.integers(-6, 6)), max_size=6))
def test_edits_keep_every_character_once_in_order(doc, wanted):
    """Whatever edits apply, the chunks keep the strategy's text, in order, none empty, numbered."""
    cs = cb.chunk(doc, "recursive", chunk_size=120)
    edits = []
    for kind, index, word in wanted:
        if not cs.chunks:
            break
        try:
            edits.append(make_edit(cs, kind, index % len(cs.chunks), word=word if kind != "split" else abs(word) + 2))
        except ValueError:
            continue
    out = apply_edits(cs, edits).chunkset
    assert _squeeze("".join(c.span_text for c in out)) == _squeeze("".join(c.span_text for c in cs))
    assert all(c.text.strip() for c in out) and [c.index for c in out] == list(range(len(out)))
    assert all(a.start_char <= b.start_char for a, b in zip(out.chunks, out.chunks[1:]))


def test_span_text_leaves_out_skipped_furniture(contract):
    doc, cs = contract
    page2 = next(c for c in cs if c.page_start == 2)
    skipped = [e for e in doc.elements if e.id in cs.skipped and e.page_idx == 1 and e.text]
    assert skipped
    start = min(e.char_start for e in skipped) - 50
    text = span_text(doc, start, max(e.char_end for e in skipped) + 50, cs.skipped)
    assert all(e.text not in text for e in skipped) and page2


def test_cli_edit_list_remove_and_apply(tmp_path, capsys):
    ws = str(tmp_path / "ws.db")
    base = [str(PDF), "--strategy", "elements", "--workspace", ws]
    assert main(["edit", *base, "--merge", "3", "--reviewer", "ana"]) == 0
    assert main(["edit", *base, "--split", "5:12", "--reviewer", "ben", "--comment", "two topics"]) == 0
    assert main(["edit", *base, "--move", "8:-4", "--reviewer", "ana"]) == 0
    capsys.readouterr()
    assert main(["edit", *base, "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[1:3] for line in listed] == [["merge", "ana"], ["split", "ben"], ["move", "ana"]]
    out = tmp_path / "chunks.json"
    assert main(["chunk", str(PDF), "--strategy", "elements", "--apply-edits", "--workspace", ws, "-o", str(out)]) == 0
    reasons = [c["boundary"]["reason"] for c in json.loads(out.read_text())["chunks"]]
    assert reasons.count("reviewer_edit") >= 3
    capsys.readouterr()
    assert main(["edit", *base, "--remove", listed[0].split("\t")[0]]) == 0
    assert capsys.readouterr().out == f"removed edit {listed[0].split(chr(9))[0]}\n"
    assert main(["edit", *base, "--list", "--reviewer", "ana"]) == 0
    assert [line.split("\t")[1] for line in capsys.readouterr().out.splitlines()] == ["move"]
    for bad, message in ((["--split", "5:1"], "split before word 2"), (["--merge", "0"], "starts the document"),
                         (["--move", "x:1"], "--move expects N:K"), (["--remove", "999"], "no edit 999")):
        assert main(["edit", *base, *bad]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_listing_or_removing_edits_of_a_workspace_never_made_makes_none(tmp_path, capsys):
    """A listing of a workspace never stored in is empty, a removal from it says there is none:
    neither leaves a database or folder behind."""
    ws = tmp_path / "nowhere" / "ws.db"
    base = [str(PDF), "--strategy", "elements", "--workspace", str(ws)]
    assert main(["edit", *base, "--list"]) == 0
    assert capsys.readouterr().out == ""
    assert main(["edit", *base, "--remove", "1"]) == 3
    err = capsys.readouterr().err
    assert "no workspace database" in err and str(ws) in err and err.count("\n") == 1
    assert not (tmp_path / "nowhere").exists()


def test_every_command_shows_the_same_edited_chunks(tmp_path, capsys):
    """One document, setting and workspace give the same chunks in every command that shows a
    strategy's chunks (`--apply-edits`): render, diff, cite, lineage and store save used to chunk
    without the reviewers' edits while chunk applied them."""
    from chunkbench.app import runs as store

    ws = str(tmp_path / "ws.db")
    setting = ["--strategy", "elements", "--set", "max_chunk_size=600"]
    base = [str(PDF), *setting]
    assert main(["edit", *base, "--workspace", ws, "--merge", "3"]) == 0
    assert main(["edit", *base, "--workspace", ws, "--merge", "8"]) == 0
    edited = [*base, "--apply-edits", "--workspace", ws]
    out = tmp_path / "chunks.json"
    assert main(["chunk", *edited, "-o", str(out)]) == 0
    chunks = json.loads(out.read_text("utf-8"))["chunks"]
    plain = cb.chunk(cb.load(PDF), "elements", max_chunk_size=600)
    assert len(chunks) == len(plain) - 2  # two merges: every count below tells edited from plain
    capsys.readouterr()
    assert main(["render", *edited, "--pages", "1", "-o", str(tmp_path / "r")]) == 0
    assert f"({len(chunks)} chunks" in capsys.readouterr().out
    spec = "strategy=elements,max_chunk_size=600"
    assert main(["diff", str(PDF), "--a", spec, "--b", str(out), "--apply-edits", "--workspace", ws,
                 "-o", str(tmp_path / "d")]) == 0
    with open(tmp_path / "d" / "diff.csv", encoding="utf-8", newline="") as fh:
        assert {row["status"] for row in csv.DictReader(fh)} == {"stayed"}  # the edited setting is the chunks.json
    capsys.readouterr()
    assert main(["cite", *edited, "--chunk", "5", chunks[5]["text"][:60]]) == 0
    assert " in chunk 5" in capsys.readouterr().out
    lines = tmp_path / "lineage.jsonl"
    assert main(["lineage", str(PDF), str(PDF), "--a", spec, "--apply-edits", "--workspace", ws, "-o", str(lines)]) == 0
    assert len(lines.read_text("utf-8").splitlines()) == len(chunks)
    assert main(["store", "save", *edited]) == 0
    assert store.runs(ws)["n_chunks"].tolist() == [len(chunks)]
