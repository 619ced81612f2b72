"""Index context: a unit ranked by its own text and its neighbours', while only the unit
is returned and scored. `index_context` is a parameter of any evaluated setting and of the baseline."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkbench.errors import UsageError
from chunkbench.evaluate.benchmark import (
    Setting,
    baseline,
    compare_settings,
    find_cases,
    misses_of,
    score_setting,
    units_for,
)
from chunkbench.evaluate.retrieval import evaluate
from chunkbench.text.context import sentence_windows, with_neighbours
from chunkbench.ui.cli import main
from tests.support.corpora import CORPUS, PUBLIC


def test_each_text_is_indexed_as_itself_twice_then_its_neighbours():
    texts = ["a", "b", "c", "d"]
    assert with_neighbours(texts, 0) == texts
    assert with_neighbours(texts, 1) == ["a\na\nb", "b\nb\na\nc", "c\nc\nb\nd", "d\nd\nc"]
    assert with_neighbours(texts, 2)[1] == "b\nb\na\nc\nd"
    with pytest.raises(ValueError, match="0 or more"):
        with_neighbours(texts, -1)


@given(st.lists(st.text(alphabet="xyz ", max_size=6), max_size=12), st.integers(0, 4))
def test_the_indexed_text_is_the_text_twice_then_its_neighbours_in_order(texts, context):
    out = with_neighbours(texts, context)
    assert len(out) == len(texts)
    for i, text in enumerate(texts):
        before, after = texts[max(0, i - context):i], texts[i + 1:i + context + 1]
        assert out[i] == ("\n".join([text, text, *before, *after]) if context else text)


@given(st.lists(st.sampled_from(["It rained.", "Dogs bark at the postman every day.", "Why?", "No.", "e.g. this one",
                                  "A long sentence that goes on and on about the weather in the valley."]),
                min_size=1, max_size=10).map(" ".join), st.integers(1, 120))
def test_sentence_windows_are_the_texts_sentences_in_order_packed_up_to_the_limit(text, limit):
    from chunkbench.text.sentences import sentence_spans

    pieces, spans = sentence_windows(text, limit), sentence_spans(text)
    if len(pieces) == 1:
        assert pieces == [text]
        return
    at, pos = 0, []
    for piece in pieces:  # consecutive slices of the text, apart only by white space
        a = text.index(piece, at)
        assert not text[at:a].strip()
        pos.append((a, a + len(piece)))
        at = a + len(piece)
    starts, ends = {a for a, _ in spans}, {b for _, b in spans}
    assert all(a in starts and b in ends for a, b in pos)  # whole sentences
    assert pos[0][0] == spans[0][0] and pos[-1][1] == spans[-1][1]
    for a, b in pos:  # only a sentence longer than the limit is a piece over it
        assert b - a <= limit or sum(a <= x and y <= b for x, y in spans) == 1
    for (a, _), (a2, _) in zip(pos, pos[1:]):  # packed: the next piece's first sentence did not fit
        assert min(y for x, y in spans if x >= a2) - a > limit


def test_windows_add_the_chunks_sentences_to_what_is_indexed():
    (case,) = find_cases([CORPUS / "us_constitution.txt"])
    plain = units_for(Setting("recursive", {"chunk_size": 700}), case.doc)
    windowed = units_for(Setting("recursive", {"chunk_size": 700, "index_windows": 200}), case.doc)
    both = units_for(Setting("recursive", {"chunk_size": 700, "index_windows": 200, "index_context": 1,
                                           "index_alone": True}), case.doc)
    assert [(u.text, u.start, u.end) for u in plain] == [(u.text, u.start, u.end) for u in windowed]
    for u, w, b, joined in zip(plain, windowed, both, with_neighbours([u.text for u in plain], 1)):
        pieces = [p for p in sentence_windows(u.text, 200) if p != u.text]
        assert w.indexed == (u.text, *pieces) and b.indexed == (u.text, joined, *pieces)
    assert sum(len(w.indexed) > 1 for w in windowed) > len(plain) / 2


def _answer_after_its_subject(tmp_path):
    """A document whose answer does not name its subject (the paragraph before does), and whose
    other paragraphs share the answer's one word with the question."""
    text = ("The Halden reactor in Norway was built by the Institute for Energy Technology.\n\n"
            "It reached criticality in June 1958.\n\n"
            "Grain prices in the valley rose in the same year.\n\n"
            "Criticality safety.\n\n"
            "Criticality accidents are rare.")
    (tmp_path / "halden.txt").write_text(text + "\n", encoding="utf-8")
    questions = [{"id": "q1", "question": "When did the Halden reactor reach criticality?",
                  "evidence_text": "It reached criticality in June 1958."}]
    (tmp_path / "halden.questions.json").write_text(json.dumps(questions), encoding="utf-8")
    return find_cases([tmp_path / "halden.txt"])


def test_index_context_changes_what_is_ranked_not_the_units(tmp_path):
    (case,) = _answer_after_its_subject(tmp_path)
    plain, indexed = (units_for(Setting("sentences", {"max_chars": 80, "min_chars": 0, "join_dependent": False, "index_context": n}), case.doc) for n in (0, 1))
    assert len(plain) == 5
    assert [(u.text, u.start, u.end) for u in plain] == [(u.text, u.start, u.end) for u in indexed]
    assert all(u.indexed == () and u.ranked_texts == (u.text,) for u in plain)
    assert [u.indexed for u in indexed] == [(t,) for t in with_neighbours([u.text for u in plain], 1)]
    alone = units_for(Setting("sentences", {"max_chars": 80, "min_chars": 0, "join_dependent": False,
                                            "index_context": 1, "index_alone": "true"}), case.doc)
    assert [(u.text, u.start, u.end) for u in alone] == [(u.text, u.start, u.end) for u in plain]
    assert [u.indexed for u in alone] == [(u.text, t) for u, t in zip(plain, with_neighbours([u.text for u in plain], 1))]


@given(st.lists(st.lists(st.sampled_from(["dogs bark", "cats", "dogs", "a dog barks at cats", "rain", ""]),
                         min_size=1, max_size=3), max_size=8),
       st.sampled_from(["dogs", "cats bark", "rain dogs", "zebra"]))
def test_a_unit_indexed_by_several_texts_ranks_by_the_best_of_their_scores(views, query):
    """Each unit's score is the best its texts get in one index of all their distinct texts (a
    text shared by several units, as a section's text is with index_groups, indexed once; BM25:
    units with no positive score are not ranked); ties keep unit order."""
    import bm25s
    import numpy as np

    from chunkbench.evaluate.retrieval import make_ranker, tokenize

    flat = list(dict.fromkeys(t for texts in views for t in texts))
    order = make_ranker("bm25", views).rank(query)
    known = [t for t in tokenize(query) if any(t in tokenize(x) for x in flat)]
    if not known:
        assert order == []
        return
    index = bm25s.BM25()
    index.index([tokenize(t) or ["\x00"] for t in flat], show_progress=False)
    scores = index.get_scores(known)
    best = [max(float(scores[flat.index(t)]) for t in texts) for texts in views]
    assert order == [i for i in sorted(range(len(views)), key=lambda i: (-best[i], i)) if best[i] > 0]
    assert order == make_ranker("bm25", [tuple(v) for v in views]).rank(query)  # deterministic
    assert np.all(np.diff([best[i] for i in order]) <= 0)


def test_an_answer_whose_subject_is_in_the_paragraph_before_is_retrieved_only_with_its_context(tmp_path):
    """Top 2: without context the subject paragraph and the shortest "criticality" paragraph rank
    first; with it, the answer's index holds the subject too and it ranks second."""
    cases = _answer_after_its_subject(tmp_path)
    rows = [score_setting(Setting("sentences", {"max_chars": 80, "min_chars": 0, "join_dependent": False, "index_context": n}), cases, token_k=2)
            for n in (0, 1)]
    assert rows[0]["units"] == rows[1]["units"] and rows[0]["mean_chars"] == rows[1]["mean_chars"]
    assert rows[0]["token_recall"] == 0.0 and rows[1]["token_recall"] == 1.0


def test_on_the_public_corpus_small_chunks_with_context_beat_the_200_character_splitter():
    """At 200 characters, BM25: more IoU and no less recall than the splitter, which
    small chunks without context do not reach (they lose recall)."""
    cases = find_cases([CORPUS / name for name in PUBLIC])
    settings = [Setting("recursive", {"chunk_size": 150}), Setting("recursive", {"chunk_size": 150, "index_context": 1})]
    result = compare_settings(cases, settings, baseline(200))
    base, plain, indexed = result["rows"]
    assert plain["token_recall"] < base["token_recall"] <= indexed["token_recall"]
    assert indexed["token_iou"] >= 1.2 * base["token_iou"] and indexed["iou_gain_ci"][0] > 0
    assert result["best"] == indexed["setting"] == "recursive chunk_size=150 index_context=1"


def test_on_the_public_corpus_chunks_indexed_also_alone_beat_the_400_character_splitter():
    """At 400 characters, BM25: `index_alone` (each chunk ranked by the better of its
    own text and its text with neighbours) has no less recall than the splitter and 1.2× its IoU,
    and the chunks are those of the same setting without it."""
    cases = find_cases([CORPUS / name for name in PUBLIC])
    with_context = {"chunk_size": 280, "index_context": 1}
    settings = [Setting("recursive", with_context), Setting("recursive", {**with_context, "index_alone": True})]
    result = compare_settings(cases, settings, baseline(400))
    base, context, alone = result["rows"]
    assert (context["units"], context["mean_chars"]) == (alone["units"], alone["mean_chars"])
    assert alone["token_recall"] >= base["token_recall"] and alone["token_iou"] >= 1.2 * base["token_iou"]
    assert alone["iou_gain_ci"][0] > 0.2


def test_the_splitter_with_context_is_a_reference_row_never_the_best():
    cases = find_cases([CORPUS / "us_constitution.txt"])
    reference = baseline(200, index_context=1)
    result = compare_settings(cases, [reference, Setting("recursive", {"chunk_size": 1000})], baseline(200))
    row = result["rows"][1]
    assert row["setting"] == reference.name and row["recall_ok"] and row["iou_gain"] > 0
    assert result["best"] is None and result["documents"][0]["best"] is None  # recursive 1000 loses


def test_misses_are_those_of_the_ranking_with_context():
    cases = find_cases([CORPUS / "sqlite_how_to_corrupt.md"])
    for n in (0, 1):
        setting = Setting("recursive", {"chunk_size": 150, "index_context": n})
        (_, misses, judged), = misses_of(setting, cases)
        rows = evaluate(units_for(setting, cases[0].doc), cases[0].resolved, text=cases[0].doc.text)[1]
        assert judged == len(rows)
        assert sorted(m.question_id for m in misses) == sorted(r["id"] for r in rows if r["token_recall"] < 1)


@pytest.mark.parametrize("value", ["-1", "one", "1.5"])
def test_a_bad_index_context_is_a_usage_error_naming_it(value, capsys):
    rc = main(["evaluate", str(CORPUS / "us_constitution.txt"), "--strategy", "recursive",
               "--set", f"index_context={value}", "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "parameter 'index_context' must be" in err and "Traceback" not in err
    with pytest.raises(UsageError, match="index_context"):
        baseline(200, index_context=-1)


def test_a_bad_index_alone_is_a_usage_error_naming_it(capsys):
    rc = main(["evaluate", str(CORPUS / "us_constitution.txt"), "--strategy", "recursive",
               "--set", "index_context=1", "--set", "index_alone=maybe", "--no-progress"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "parameter 'index_alone' must be true or false" in err and "Traceback" not in err


def test_the_baseline_takes_an_index_context_on_the_command_line(capsys):
    rc = main(["evaluate", str(CORPUS / "us_constitution.txt"), "--strategy", "recursive",
               "--grid", "index_context=0,1", "--set", "chunk_size=150", "--baseline-index-context", "1",
               "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "| langchain:RecursiveCharacterTextSplitter chunk_overlap=0 chunk_size=200 index_context=1 separators=sentences |" in out
    assert "| recursive chunk_size=150 index_context=0 |" in out and "| recursive chunk_size=150 index_context=1" in out
    capsys.readouterr()
    rc = main(["evaluate", str(CORPUS / "us_constitution.txt"), "--strategy", "recursive",
               "--grid", "index_alone=false,true", "--set", "chunk_size=150", "--set", "index_context=1",
               "--baseline-index-context", "1", "--baseline-index-alone", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "| langchain:RecursiveCharacterTextSplitter chunk_overlap=0 chunk_size=200 index_alone=True index_context=1 separators=sentences |" in out
    assert "| recursive chunk_size=150 index_alone=false index_context=1 |" in out
    assert "| recursive chunk_size=150 index_alone=true index_context=1" in out


def test_chunks_get_an_index_text_in_chunks_json_and_jsonl(tmp_path, capsys):
    from chunkbench.io.export import load_chunks_json

    source = CORPUS / "us_constitution.txt"
    out, lines = tmp_path / "chunks.json", tmp_path / "chunks.jsonl"
    assert main(["chunk", str(source), "--strategy", "sentences", "--index-context", "1", "-o", str(out),
                 "--jsonl", str(lines)]) == 0
    data = load_chunks_json(out)  # valid against the shipped schema
    texts = [c["text"] for c in data["chunks"]]
    assert [c["index_text"] for c in data["chunks"]] == with_neighbours(texts, 1)
    assert [json.loads(line)["index_text"] for line in lines.read_text("utf-8").splitlines()] == with_neighbours(texts, 1)
    # the chunks themselves are those of the same run without it
    assert main(["chunk", str(source), "--strategy", "sentences", "-o", str(tmp_path / "plain.json")]) == 0
    plain = load_chunks_json(tmp_path / "plain.json")
    assert [{k: v for k, v in c.items() if k != "index_text"} for c in data["chunks"]] == plain["chunks"]
    assert all("index_text" not in c for c in plain["chunks"])


def test_chunks_get_every_text_to_index_them_by_with_index_alone_or_windows(tmp_path, capsys):
    from chunkbench.io.export import load_chunks_json
    from chunkbench.text.context import Indexing

    source = CORPUS / "us_constitution.txt"
    for flags, indexing in ((["--index-context", "1", "--index-alone", "--index-windows", "120"], Indexing(1, True, 120)),
                            (["--index-windows", "120"], Indexing(0, False, 120))):
        out = tmp_path / "chunks.json"
        assert main(["chunk", str(source), "--strategy", "recursive", "--set", "chunk_size=400", *flags, "-o", str(out)]) == 0
        chunks = load_chunks_json(out)["chunks"]  # valid against the shipped schema
        texts = [c["text"] for c in chunks]
        assert [tuple(c["index_texts"]) for c in chunks] == indexing.texts(texts)
        assert all("index_text" not in c and c["index_texts"][0] == c["text"] for c in chunks)
        assert sum(len(c["index_texts"]) > (2 if indexing.context else 1) for c in chunks) > len(chunks) / 4  # pieces
    capsys.readouterr()
    assert main(["chunk", str(source), "--index-alone", "-o", str(tmp_path / "x.json")]) == 2
    assert "give --index-context N too" in capsys.readouterr().err
    assert main(["chunk", str(source), "--index-windows", "-5", "-o", str(tmp_path / "x.json")]) == 2
    assert "--index-windows must be >= 0" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_for_retrieval_chunks_with_the_retrieval_default(tmp_path, capsys):
    from chunkbench.app.defaults import RETRIEVAL_DEFAULT
    from chunkbench.io.export import load_chunks_json
    from chunkbench.loaders import load
    from chunkbench.strategies import chunk

    source = CORPUS / "sqlite_how_to_corrupt.md"
    out = tmp_path / "chunks.json"
    assert main(["chunk", str(source), "--for-retrieval", "-o", str(out)]) == 0
    data = load_chunks_json(out)
    expected = chunk(load(source), RETRIEVAL_DEFAULT.strategy, **RETRIEVAL_DEFAULT.strategy_params)
    expected = expected.with_index_texts(RETRIEVAL_DEFAULT.indexing)
    assert data["chunking"]["strategy"] == RETRIEVAL_DEFAULT.strategy
    assert data["chunks"] == [c.to_dict() for c in expected]
    assert RETRIEVAL_DEFAULT.indexing.context == 1 and RETRIEVAL_DEFAULT.indexing.groups == 1000
    assert all(c["index_texts"][0].startswith(c["text"]) for c in data["chunks"])  # its context text first
    assert any(len(c["index_texts"]) > 1 for c in data["chunks"])  # then its block's and section's texts
    capsys.readouterr()
    assert main(["chunk", str(source), "--for-retrieval", "--set", "max_chars=300", "-o", str(out)]) == 2
    assert "--for-retrieval chooses the strategy" in capsys.readouterr().err
    assert main(["chunk", str(source), "--index-context", "-1", "-o", str(tmp_path / "x.json")]) == 2
    assert not (tmp_path / "x.json").exists()
    capsys.readouterr()
    assert main(["strategies"]) == 0  # where a user finds it
    listing = capsys.readouterr().out
    assert f"retrieval default (`chunkbench chunk --for-retrieval`): {RETRIEVAL_DEFAULT.name};" in listing
    assert all(f"    {name} " in listing for name in ("index_context", "index_alone", "index_windows", "index_groups"))


def test_a_sweep_ranks_each_point_with_its_index_context_as_evaluate_does(tmp_path):
    """`--grid index_context=0,1` in `chunkbench sweep`: the same chunks, ranked with their
    neighbours; its numbers are evaluate's for the same setting, and its chunks.json carries
    each chunk's index_text."""
    from chunkbench.app import sweep

    cases = _answer_after_its_subject(tmp_path)
    fixed = {"max_chars": 80, "min_chars": 0, "join_dependent": False}
    df = sweep.run_sweep([tmp_path / "halden.txt"], {"index_context": [0, 1, "-1"]}, tmp_path / "out",
                         strategy="sentences", fixed=fixed, jobs=1, progress=False, notebooks="none")
    ok = df[df.status == "ok"]
    assert list(ok.index_context) == [0, 1]
    assert "index_context" in df[df.status == "failed"].error.iloc[0]  # -1: refused before running
    files = [json.loads((tmp_path / "out" / "points" / "halden" / f"sentences__index_context={n}" / "chunks.json")
                        .read_text())["chunks"] for n in (0, 1)]
    assert [c["text"] for c in files[0]] == [c["text"] for c in files[1]]
    assert "index_text" not in files[0][1]
    assert [c["index_text"] for c in files[1]] == with_neighbours([c["text"] for c in files[1]], 1)
    plain, indexed = ok.ret_chunks_mrr
    assert indexed > plain  # the answer's index holds its subject
    for n, row in zip((0, 1), ok.itertuples()):
        scored = score_setting(Setting("sentences", {**fixed, "index_context": n}), cases)
        assert row.ret_chunks_token_iou == pytest.approx(scored["token_iou"], abs=1e-4)


def test_a_sweep_takes_index_alone_and_index_windows_as_evaluate_does(tmp_path):
    from chunkbench.app import sweep

    cases = _answer_after_its_subject(tmp_path)
    fixed = {"max_chars": 200, "min_chars": 0, "join_dependent": False, "index_context": 1}
    df = sweep.run_sweep([tmp_path / "halden.txt"], {"index_alone": [False, True], "index_windows": [0, 40, "x"]},
                         tmp_path / "out", strategy="sentences", fixed=fixed, jobs=1, progress=False, notebooks="none")
    ok = df[df.status == "ok"]
    assert len(ok) == 4 and (df.status == "failed").sum() == 2
    assert all("index_windows" in e for e in df[df.status == "failed"].error)
    for row in ok.itertuples():
        setting = Setting("sentences", {**fixed, "index_alone": row.index_alone, "index_windows": row.index_windows})
        scored = score_setting(setting, cases)
        assert row.ret_chunks_token_iou == pytest.approx(scored["token_iou"], abs=1e-4)
        assert row.ret_chunks_mrr == pytest.approx(scored["mrr"], abs=1e-4)


@given(st.lists(st.tuples(st.text(alphabet="xyz ", min_size=1, max_size=8), st.sampled_from(["a", "b", None]),
                          st.sampled_from(["S", "T", None])), max_size=14),
       st.integers(1, 40))
def test_group_texts_are_runs_of_two_or_more_chunks_sharing_a_key_within_the_limit(spec, limit):
    """index_groups: each group text is the run of consecutive chunks around the chunk that share its
    block (or its section), at least two of them, at most `limit` tokens; never a run of no key."""
    from chunkbench.text.context import group_texts
    from chunkbench.text.tokenizer import count_tokens

    texts = [t for t, _, _ in spec]
    keys = [(b, s) for _, b, s in spec]
    out = group_texts(texts, keys, limit)
    assert len(out) == len(texts)
    for n, groups in enumerate(out):
        assert len(groups) == len(set(groups)) <= 2
        for g in groups:
            assert count_tokens(g) <= limit
            runs = []
            for kind in (0, 1):
                key = keys[n][kind]
                if key is None:
                    continue
                lo = hi = n
                while lo > 0 and keys[lo - 1][kind] == key:
                    lo -= 1
                while hi + 1 < len(keys) and keys[hi + 1][kind] == key:
                    hi += 1
                if hi > lo:
                    runs.append("\n".join(texts[lo:hi + 1]))
            assert g in runs


def test_chunks_indexed_by_their_groups_in_chunks_json_and_as_the_measure_ranks_them(tmp_path, capsys):
    """`--index-groups N` (any setting's index_groups=N): a chunk of a list also ranked by the whole
    list with its lead-in, and by its section; the chunks.json index_texts are what the measure ranks."""
    import chunkbench as cb
    from chunkbench.evaluate.retrieval.scoring import chunk_units, indexed_units
    from chunkbench.text.context import Indexing
    from tests.support.paths import SAMPLE_PDFS

    pdf = SAMPLE_PDFS / "technical_manual.pdf"
    out = tmp_path / "g.json"
    assert main(["chunk", str(pdf), "--for-retrieval", "--index-groups", "1000", "-o", str(out)]) == 0
    chunks = json.loads(out.read_text("utf-8"))["chunks"]
    step = next(c for c in chunks if "Choose a location" in c["text"])
    assert any("Choose a location" in t and "4. Fit the antenna" in t and "2.2 Mounting" not in t
               for t in step["index_texts"])  # the list, its four steps over the page break
    assert any(t.startswith("2.2 Mounting the logger") for t in step["index_texts"])  # its section, heading and all
    doc = cb.load(pdf)
    chunkset = cb.chunk(doc, "recursive", chunk_size=150)
    indexing = Indexing(context=1, groups=1000)
    measured = indexed_units(chunk_units(chunkset), indexing, doc)
    handed = chunkset.with_index_texts(indexing)
    assert [u.indexed for u in measured] == [tuple(c.extra["index_texts"]) for c in handed.chunks]
    assert [c["index_texts"] for c in chunks] == [c.extra["index_texts"] for c in handed.chunks]
    assert main(["chunk", str(pdf), "--index-groups", "-1", "-o", str(tmp_path / "bad.json")]) == 2
    assert "--index-groups" in capsys.readouterr().err and not (tmp_path / "bad.json").exists()
