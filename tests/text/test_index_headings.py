"""Headings in the index (`index_headings`): every text a chunk is ranked by opens with the headings
above it, its section path in the document, while the chunk alone is returned and scored."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkbench.evaluate.benchmark import Setting, baseline, compare_settings, find_cases, units_for
from chunkbench.loaders import load
from chunkbench.strategies import chunk
from chunkbench.text.context import Indexing, with_headings
from chunkbench.ui.cli import main
from tests.support.corpora import CORPUS

MANUAL = CORPUS / "sqlite_how_to_corrupt.md"


def test_section_paths_are_the_headings_open_at_each_offset():
    doc = load(MANUAL)
    headings = [e for e in doc.elements if e.text_level]
    assert len(headings) > 20
    first, overview, rogue, sub = headings[:4]
    second = next(e for e in headings if e.text.startswith("2. "))
    assert (first.text, overview.text) == ("How To Corrupt An SQLite Database File", "Overview")
    paths = doc.section_paths([first.char_start - 1, first.char_start, overview.char_end + 5, sub.char_end + 5,
                               second.char_end + 5, None])
    assert paths[0] == () and paths[-1] == ()
    assert paths[1] == (first.text,) and paths[2] == (first.text, overview.text)
    # a heading closes the open ones of its level and deeper: 1.1 sits under 1 only, 2 closes both
    assert paths[3] == (rogue.text, sub.text) and rogue.text.startswith("1. ") and sub.text.startswith("1.1. ")
    assert paths[4] == (second.text,)
    # the `elements` strategy records the same rule (one HeadingStack) for its chunks; a chunk that
    # opens with two headings records the path down to the second, which starts after its start
    chunks = chunk(doc, "elements").chunks
    at_start = doc.section_paths(c.start_char for c in chunks)
    assert all(c.section_path[:len(p)] == p for c, p in zip(chunks, at_start))
    assert sum(c.section_path == p for c, p in zip(chunks, at_start)) == len(chunks) - 1


@given(st.lists(st.text(alphabet="ab .", max_size=30), max_size=8), st.data(), st.integers(0, 2), st.booleans(),
       st.sampled_from([0, 10]))
def test_with_headings_each_indexed_text_opens_with_the_chunks_section_path(texts, data, context, alone, windows):
    paths = [tuple(data.draw(st.lists(st.sampled_from(["Intro", "2. Locks", "2.1 POSIX"]), max_size=3)))
             for _ in texts]
    plain = Indexing(context, alone and context > 0, windows)
    headed = Indexing(context, alone and context > 0, windows, headings=True)
    out = headed.texts(texts, paths)
    assert out == [with_headings(t, p) for t, p in zip(plain.texts(texts), paths)]
    for indexed, plain_texts, path in zip(out, plain.texts(texts), paths):
        head = " > ".join(path)
        assert indexed == (plain_texts if not path else tuple(f"{head}\n{t}" for t in plain_texts))
    if texts:
        with pytest.raises(ValueError, match="section path"):
            headed.texts(texts)


def test_a_setting_indexed_under_its_headings_ranks_by_them_and_returns_the_same_chunks():
    cases = find_cases([MANUAL])
    plain, headed = (units_for(Setting("recursive", {"chunk_size": 300, **extra}), cases[0].doc)
                     for extra in ({}, {"index_headings": True}))
    assert [(u.text, u.start, u.end) for u in plain] == [(u.text, u.start, u.end) for u in headed]
    paths = cases[0].doc.section_paths(u.start for u in headed)
    assert [u.ranked_texts for u in headed] == [with_headings((u.text,), p) for u, p in zip(headed, paths)]
    assert all(paths)  # every chunk of the manual sits under its title, at least


def test_on_the_sqlite_manual_headings_in_the_index_reach_the_400_character_splitters_recall():
    # measured: recursive 300 ranked by its own text 85.9% token recall, under its headings 92.4%,
    # the 400-character splitter 92.2%; on the Constitution ("Article. I.", "Section. 2.") nothing changes
    cases = find_cases([MANUAL])
    settings = [Setting("recursive", {"chunk_size": 300}), Setting("recursive", {"chunk_size": 300, "index_headings": True})]
    base, plain, headed = compare_settings(cases, settings, baseline(400))["rows"]
    assert plain["token_recall"] < base["token_recall"] <= headed["token_recall"]
    assert headed["token_iou"] >= 1.2 * base["token_iou"]
    assert (plain["units"], plain["mean_chars"]) == (headed["units"], headed["mean_chars"])


def test_chunks_json_gets_texts_to_index_under_their_headings(tmp_path, capsys):
    from chunkbench.io.export import load_chunks_json

    out = tmp_path / "chunks.json"
    doc = load(MANUAL)
    for flags, indexing in ((["--index-headings"], Indexing(headings=True)),
                            (["--index-context", "1", "--index-headings"], Indexing(1, headings=True))):
        assert main(["chunk", str(MANUAL), "--strategy", "recursive", "--set", "chunk_size=400", *flags,
                     "-o", str(out)]) == 0
        chunks = load_chunks_json(out)["chunks"]  # valid against the shipped schema
        paths = doc.section_paths(c["start_char"] for c in chunks)
        assert [(c["index_text"],) for c in chunks] == indexing.texts([c["text"] for c in chunks], paths)
        assert all(c["index_text"].startswith(" > ".join(p) + "\n") for c, p in zip(chunks, paths) if p)


def test_evaluate_takes_index_headings_for_settings_and_the_baseline(capsys):
    rc = main(["evaluate", str(MANUAL), "--strategy", "recursive", "--set", "chunk_size=300",
               "--grid", "index_headings=false,true", "--baseline-index-headings", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "| langchain:RecursiveCharacterTextSplitter chunk_overlap=0 chunk_size=200 index_headings=True separators=sentences |" in out
    assert "| recursive chunk_size=300 index_headings=true |" in out
    rc = main(["evaluate", str(MANUAL), "--strategy", "recursive", "--set", "index_headings=maybe", "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "parameter 'index_headings' must be true or false" in err and "Traceback" not in err
    assert main(["strategies"]) == 0
    assert "index_headings" in capsys.readouterr().out


def test_a_sweep_ranks_each_point_under_its_headings_as_evaluate_does(tmp_path):
    from chunkbench.app import sweep
    from chunkbench.evaluate.benchmark import score_setting

    fixed = {"chunk_size": 300}
    df = sweep.run_sweep([MANUAL], {"index_headings": [False, True]}, tmp_path / "out", strategy="recursive",
                         fixed=fixed, jobs=1, progress=False, notebooks="none")
    assert list(df.status) == ["ok", "ok"]
    cases = find_cases([MANUAL])
    for row in df.itertuples():
        scored = score_setting(Setting("recursive", {**fixed, "index_headings": row.index_headings}), cases)
        assert row.ret_chunks_token_recall == pytest.approx(scored["token_recall"], abs=1e-4)
    plain, headed = df.sort_values("index_headings").itertuples()
    assert headed.ret_chunks_token_recall > plain.ret_chunks_token_recall
