"""Issue 19.5's table: chunkbench settings against the sentence splitter at each of its sizes, on
the project's public-domain retrieval corpus (tests/data/retrieval), with BM25 and dense retrieval.

    python -m benchmarks.retrieval_public [--retriever bm25|dense|both] [--questions SET[,SET…]]
                                          [--only TEXT] [--headings] [--semantic | --grid] [--oracle]
                                          [--chroma DIR]
                                          [-o FILE.md]

Each block is one baseline: Chroma's RecursiveTokenChunker layout (LangChain's recursive splitter
with sentence separators) at 200, 400 and 800 characters (overlap 400, as Chroma ran it) and at
200 cl100k tokens. Under it: the same splitter with each piece indexed as the chunkbench rows
below it are (what the indexing alone buys), then the best chunkbench settings without and with
index context (and, at 400 and 800 characters, also indexed alone and by pieces of their
sentences) of the grids docs/evaluation.md describes. Every gain has its paired bootstrap 95%
interval (`--headings`: every row again indexed under the headings above each chunk). The
settings were chosen on the "tuned" questions (tests/data/retrieval); `--questions
heldout` scores them on the held-out ones, written afterwards (tests/data/retrieval/heldout),
`fresh` on those written later still (tests/data/retrieval/fresh), `untuned` on both of these,
`tuned_heldout` on the first two sets (what "all" was before the fresh ones), `all` on every
question, and `tuned,heldout,fresh,untuned,all` gives each table per block from one index of each
setting. The output ends with issue 19.5's goal counted per question set: the
size × retriever pairs and the document cells where some setting has the splitter's recall and
1.2× its IoU. `--chroma DIR` runs the same blocks on Chroma's general benchmark instead (DIR: its
`general_evaluation_data` folder, from repository brandonstarxel/chunking_evaluation, with
`corpora/` and `questions_df.csv`; not in this repository, but for its speech, tests/data/chroma:
docs/evaluation.md). `--semantic` puts the `semantic` strategy's rows (SEMANTIC_ROWS) under every
splitter instead: issue 19.8's comparison (docs/strategy-semantic.md). `--grid` puts the whole
grid of benchmarks/selection_rules.py (69 settings) under every splitter: whether the goal can be
met at all, each best chosen on the questions it is scored on (selection_rules says how often such
a choice holds on other questions).
Dense retrieval embeds every text indexed with MiniLM on CPU: about 45 minutes for the four
blocks here, most of it the rows with index context (their texts are four chunks long)."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence

from chunkbench.app.defaults import RETRIEVAL_DEFAULT
from chunkbench.evaluate.benchmark import (
    Case,
    Setting,
    baseline,
    beats_baseline,
    candidates,
    compare_settings,
    find_cases,
    format_report,
    pooled_measures,
)
from chunkbench.evaluate.retrieval import KS, TOKEN_K, baseline_units, evaluate
from chunkbench.evaluate.retrieval.budget import BudgetSpec
from chunkbench.io.atomic import write_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "data", "retrieval")
#: questions written after the settings below were chosen on CORPUS's: an unbiased check of them
HELDOUT = os.path.join(CORPUS, "heldout")
#: these tables are top-k's: recall at a context budget is benchmarks.budgets_public's
TOP_K_ONLY = BudgetSpec(())
#: --questions: which question sets score the settings
#: questions written later still (2026-11-27), before any setting was chosen again: a second check
FRESH = os.path.join(CORPUS, "fresh")
QUESTION_SETS = {"tuned": (CORPUS,), "heldout": (HELDOUT,), "fresh": (FRESH,), "untuned": (HELDOUT, FRESH),
                 "tuned_heldout": (CORPUS, HELDOUT), "all": (CORPUS, HELDOUT, FRESH)}
SHARED_PDF = os.path.join(ROOT, "..", "shared", "pdfs", "req_federal-register-2020-17221.pdf")

#: the corpus's documents: the 5 public-domain ones of issue 19.4, the speech, and the FAA rule
#: when ../shared is present
DOCUMENTS = ("us_constitution.txt", "fomc_minutes_2019_07.txt", "apollo13_air_to_ground.txt",
             "factbook_iceland.txt", "sqlite_how_to_corrupt.md", "sotu_2024.txt")

#: index context, each chunk also indexed alone and by pieces of its sentences up to 200 characters
WITH_WINDOWS = {"index_context": 1, "index_alone": True, "index_windows": 200}

#: (label, baseline, settings compared with it): first the splitter indexed with its neighbours as
#: the index_context settings are, at the size of the best chunkbench setting (and at 200, its own:
#: reference rows, what the indexing alone buys), then the best settings without and with index
#: context of the BM25 grids docs/evaluation.md describes (with dense retrieval an index_context
#: row takes about 5 minutes here: its texts are four chunks long)
BLOCKS = (
    ("splitter at 200 characters", baseline(200), (
        baseline(200, index_context=1),
        baseline(150, index_context=1),
        Setting("sentences", {"join_dependent": False, "max_chars": 250, "min_chars": 60}),
        Setting("sentences", {"join_dependent": False, "max_chars": 150, "min_chars": 30, "index_context": 1}),
        RETRIEVAL_DEFAULT,
        # the one candidate taken to the held-out questions after them, chosen on the tuned ones
        Setting(RETRIEVAL_DEFAULT.strategy, {**RETRIEVAL_DEFAULT.params, "index_alone": True}),
    )),
    ("splitter at 400 characters", baseline(400), (
        baseline(300, index_context=1),
        baseline(300, index_context=1, index_alone=True),
        Setting("recursive", {"chunk_size": 350}),
        Setting("recursive", {"chunk_size": 310, "index_context": 1}),
        Setting("recursive", {"chunk_size": 280, "index_context": 1}),
        Setting("recursive", {"chunk_size": 280, "index_context": 1, "index_alone": True}),
        Setting("recursive", {"chunk_size": 300, "index_context": 1, "index_alone": True}),
    )),
    ("splitter at 800 characters, overlap 400", baseline(800, 400), (
        baseline(700, index_context=1),
        baseline(620, index_context=1, index_alone=True, index_windows=200),
        Setting("recursive", {"chunk_size": 700}),
        Setting("recursive", {"chunk_size": 700, "index_context": 1}),
        Setting("recursive", {"chunk_size": 600, **WITH_WINDOWS}),
        Setting("recursive", {"chunk_size": 620, **WITH_WINDOWS}),
    )),
    ("splitter at 200 cl100k tokens", baseline(200, unit="tokens"), (
        baseline(400, index_context=1),
        Setting("recursive", {"chunk_size": 500}),
        Setting("recursive", {"chunk_size": 400, "index_context": 1}),
        Setting("recursive", {"chunk_size": 450, "index_context": 1, "index_alone": True}),
        # picked on the tuned questions (BM25: all 7 documents) after the held-out ones were written
        Setting("recursive", {"chunk_size": 500, **WITH_WINDOWS}),
    )),
)


def grid(small: bool = False) -> list[Setting]:
    """The settings a best is chosen among: the families of docs/evaluation.md's grids, coarsely
    (69 settings); `small`: `recursive` 150-400 characters, plain, with index context, and also
    indexed alone (18, among them the tables' dense picks at 200 and 400 characters; for dense
    retrieval, which embeds every setting's index texts: about 20 minutes here)."""
    if small:
        return [Setting("recursive", {"chunk_size": size, **indexing}) for size in (150, 200, 250, 300, 350, 400)
                for indexing in ({}, {"index_context": 1}, {"index_context": 1, "index_alone": True})]
    settings = []
    for size in (100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600, 650, 700, 750, 800, 900):
        for indexing in ({}, {"index_context": 1}, {"index_context": 1, "index_alone": True}, WITH_WINDOWS):
            settings.append(Setting("recursive", {"chunk_size": size, **indexing}))
    for most, least in ((150, 30), (250, 60), (400, 100), (600, 200), (800, 300)):
        settings.append(Setting("sentences", {"join_dependent": False, "max_chars": most, "min_chars": least,
                                              "index_context": 1}))
    return settings


#: `--semantic` (issue 19.8): the `semantic` strategy under every block instead, at its defaults
#: (context-sized chunks), at the settings docs/strategy-semantic.md found best on the speech and
#: the FAA rule, and at one of them with index context as the best rows above have
SEMANTIC_ROWS = (
    Setting("semantic", {}),
    Setting("semantic", {"breakpoint_percentile": 50, "min_chars": 0}),
    Setting("semantic", {"breakpoint_percentile": 50, "min_chars": 0, "max_chars": 400}),
    Setting("semantic", {"breakpoint_percentile": 30, "min_chars": 0, "max_chars": 400}),
    Setting("semantic", {"breakpoint_percentile": 30, "min_chars": 0, "max_chars": 400, "index_context": 1}),
)


def with_heading_rows(settings: Sequence[Setting]) -> tuple[Setting, ...]:
    """`settings`, then each of them indexed under the headings above each of its chunks
    (`index_headings=true`: what the document's structure adds to the ranking)."""
    return (*settings, *(Setting(s.strategy, {**s.params, "index_headings": True}) for s in settings))


def semantic_blocks() -> tuple[tuple[str, Setting, tuple[Setting, ...]], ...]:
    """BLOCKS with the semantic rows under each baseline instead of its own."""
    return tuple((label, base, SEMANTIC_ROWS) for label, base, _ in BLOCKS)


def grid_blocks() -> tuple[tuple[str, Setting, tuple[Setting, ...]], ...]:
    """BLOCKS with the whole grid under each baseline instead of its own rows (`--grid`)."""
    return tuple((label, base, tuple(grid())) for label, base, _ in BLOCKS)


def inputs() -> list[str]:
    paths = [os.path.join(CORPUS, name) for name in DOCUMENTS]
    return paths + ([SHARED_PDF] if os.path.exists(SHARED_PDF) else [])


def load_cases(which: Sequence[str] = ("tuned",)) -> dict[str, list[Case]]:
    """The corpus's documents with the questions of each set named (QUESTION_SETS), by set: a set
    of several folders pools each document's questions of all of them (find_cases)."""
    return {w: find_cases(inputs(), questions_dir=QUESTION_SETS[w]) for w in which}


#: issue 19.5's bar: a chunkbench setting with at least the splitter's token recall and at least
#: this relative token IoU gain over it
GOAL_GAIN = 0.2


def goal_counts(result: dict) -> tuple[bool, int]:
    """(pooled: some chunkbench setting meets the bar, how many documents one does) of one block."""
    rows = candidates(result["rows"][1:])
    pooled = any(beats_baseline(r, GOAL_GAIN) for r in rows)
    documents = sum(any(beats_baseline(r["documents"][n], GOAL_GAIN) for r in rows)
                    for n in range(len(result["documents"])))
    return pooled, documents


def goal_markdown(counts: dict[tuple[str, str], list[tuple[bool, int]]], retrievers: Sequence[str],
                  n_documents: int) -> str:
    """The summary table of issue 19.5's goal: per question set, the size × retriever pairs met
    pooled and the document cells met per retriever (`counts`: (set, retriever) → goal_counts of
    each block)."""
    sets = list(dict.fromkeys(w for w, _ in counts))
    head = ["questions", "pairs met", *[f"cells met, {r}" for r in retrievers]]
    lines = ["## Issue 19.5's goal", "",
             f"A pair (splitter size × retriever) or a cell (a pair on one document) is met when some "
             f"chunkbench setting has at least the splitter's token recall and {1 + GOAL_GAIN:g}× its token IoU.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for w in sets:
        pairs = [p for r in retrievers for p, _ in counts[(w, r)]]
        cells = [sum(d for _, d in counts[(w, r)]) for r in retrievers]
        lines.append(f"| {w} | {sum(pairs)} of {len(pairs)} | "
                     + " | ".join(f"{c} of {n_documents * len(counts[(w, r)])}" for c, r in zip(cells, retrievers)) + " |")
    return "\n".join(lines) + "\n"


def block_markdown(label: str, result: dict, questions: str | None = None) -> str:
    """One baseline's comparison as `chunkbench evaluate` reports it, under a heading naming both
    (and the question set, when several are run)."""
    body = format_report(result, per_document=False).split("\n\n", 1)[1]  # its heading names the retriever only
    which = f" ({questions} questions)" if questions else ""
    return f"### {result['retriever']}: {label}{which}\n\n{body}\n"


def oracle_markdown(cases: list, retrievers: tuple[str, ...], blocks: Sequence[tuple] = BLOCKS) -> str:
    """What placing boundaries alone can buy: each splitter against itself with a cut, besides its
    own, at the start and end of every reference span (knowledge no chunker has)."""
    out = ["| splitter | retriever | token IoU | token recall | with cuts at the answers: IoU | recall | IoU ratio |",
           "|---|---|---|---|---|---|---|"]
    for label, base, _ in blocks:
        p = base.params
        for retriever in retrievers:
            scores = []
            for cut in (False, True):
                rows = []
                for case in cases:
                    cuts = [x for r in case.resolved for span in r.spans for x in span] if cut else ()
                    units = baseline_units(case.doc, p["chunk_size"], p["chunk_overlap"], p["separators"],
                                           p.get("unit", "chars"), cuts)
                    rows += evaluate(units, case.resolved, KS, TOKEN_K, retriever, text=case.doc.text)[1]
                pooled = pooled_measures(rows, 0, 0)
                scores.append([pooled["token_iou"], pooled["token_recall"]])
            (iou, recall), (cut_iou, cut_recall) = scores
            out.append(f"| {label.removeprefix('splitter at ')} | {retriever} | {iou:.1%} | {recall:.1%} | "
                       f"{cut_iou:.1%} | {cut_recall:.1%} | {cut_iou / iou:.2f}× |")
    return "\n".join(out) + "\n"


def chroma_cases(ap: argparse.ArgumentParser, folder: str) -> list[Case]:
    """Chroma's general benchmark as cases: `folder` holds questions_df.csv and corpora/ (or the
    corpus files beside the CSV); a usage error through `ap` otherwise."""
    corpora, questions = os.path.join(folder, "corpora"), os.path.join(folder, "questions_df.csv")
    if not os.path.isfile(questions):
        ap.error(f"--chroma {folder}: expected questions_df.csv (and corpora/) in it")
    return find_cases([corpora if os.path.isdir(corpora) else folder], questions=questions)


def emit(text: str, output: str | None) -> None:
    """The benchmark's Markdown written to `output` (atomically), or printed without one."""
    if output:
        write_text(output, text)
    else:
        print(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--retriever", default="bm25", choices=("bm25", "dense", "both"))
    ap.add_argument("-o", "--output", default=None, help="write the Markdown here (default: print it)")
    ap.add_argument("--only", default=None, metavar="TEXT",
                    help="run only the blocks whose label contains TEXT (e.g. 'tokens', '400')")
    ap.add_argument("--questions", default="tuned", metavar="SET[,SET…]",
                    help="the questions the settings were chosen on (tuned, the default), the held-out "
                         "ones written afterwards (heldout), those written later still (fresh), both of "
                         "these (untuned), or all; several, comma-separated, share each setting's index")
    ap.add_argument("--chroma", default=None, metavar="DIR",
                    help="instead of the project's corpus: Chroma's general benchmark, DIR holding its "
                         "questions_df.csv and corpora/ (chunking_evaluation's general_evaluation_data), or the "
                         "corpus files beside the CSV (tests/data/chroma: its speech)")
    ap.add_argument("--headings", action="store_true",
                    help="also every row of each block indexed under the headings above each chunk "
                         "(index_headings=true), after the rows as they are")
    ap.add_argument("--semantic", action="store_true",
                    help="instead of each block's chunkbench rows: the semantic strategy's (SEMANTIC_ROWS; "
                         "issue 19.8's comparison)")
    ap.add_argument("--grid", action="store_true",
                    help="instead of each block's chunkbench rows: the whole grid benchmarks.selection_rules "
                         "chooses among (grid(), 69 settings) under every block: whether some setting meets "
                         "the goal at all, chosen on the very questions it is scored on")
    ap.add_argument("--oracle", action="store_true",
                    help="instead: each splitter with and without extra cuts at every reference span")
    args = ap.parse_args(argv)
    if args.semantic and args.grid:
        ap.error("--semantic and --grid each replace the blocks' rows: choose one")
    chosen = semantic_blocks() if args.semantic else grid_blocks() if args.grid else BLOCKS
    blocks = [(label, base, with_heading_rows(rows) if args.headings else rows) for label, base, rows in chosen]
    blocks = [b for b in blocks if args.only is None or args.only in b[0]]
    if not blocks:
        ap.error(f"--only {args.only!r} matches none of: " + "; ".join(label for label, _, _ in BLOCKS))
    retrievers = ("bm25", "dense") if args.retriever == "both" else (args.retriever,)
    which = args.questions.split(",")
    if unknown := [w for w in which if w not in QUESTION_SETS]:
        ap.error(f"--questions {','.join(unknown)}: one of {', '.join(QUESTION_SETS)}")
    started = time.perf_counter()
    if args.chroma:
        which = ["chroma"]
        cases = {"chroma": chroma_cases(ap, args.chroma)}
    else:
        cases = load_cases(which)
    if args.oracle:
        parts = [oracle_markdown(cases[which[0]], retrievers, blocks)]
    else:
        counts = ", ".join(f"{sum(len(c.resolved) for c in cases[w])} questions ({w})" for w in which)
        parts = [f"{counts} on {len(cases[which[0]])} documents; top 5.", ""]
        goal: dict[tuple[str, str], list[tuple[bool, int]]] = {(w, r): [] for w in which for r in retrievers}
        units: dict = {}  # each setting cuts each document once, for every block and retriever
        rankers: dict = {}  # one index per setting, document and retriever, for every question set
        for label, base, settings in blocks:
            for retriever in retrievers:
                for w in which:
                    result = compare_settings(cases[w], list(settings), base, 5, retriever, units, rankers,
                                              budget=TOP_K_ONLY)
                    parts.append(block_markdown(label, result, w if len(which) > 1 else None))
                    goal[(w, retriever)].append(goal_counts(result))
                    print(f"{label} ({retriever}, {w}): {time.perf_counter() - started:.0f} s", flush=True)
        parts.append(goal_markdown(goal, retrievers, len(cases[which[0]])))
    emit("\n".join(parts), args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
