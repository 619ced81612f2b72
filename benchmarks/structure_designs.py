"""Issue 76's comparison: designs for one retrieval default that serves both kinds of question, the
short ones with one short evidence span and those that need structure (a table cell with its header
row, a whole list, a section, a definition), at 1,000 tokens, with BM25 and dense retrieval.

    python -m benchmarks.structure_designs [--retriever bm25|dense|both] [--corpora gold-tuned,gold-held-out,project,chroma]
                                           [--budget 1000] [-o FILE.md]

The designs, all but the last four on the units of the retrieval default (`recursive` 150
characters, each ranked with its neighbours, `index_context=1`, and since issue 76 by its group
texts, `index_groups=1000`) or of the previous default (the same without group texts):

- `grow` (the policy the docs recommended until issue 76), `section`, and `structure` (shipped:
  io.return_policy), each a return policy around the same ranking;
- **group texts** (shipped: `index_groups`, text.context.group_texts): each chunk also ranked by the
  text of its structural block and of its section (each of at most 1,000 tokens), so a question whose
  words are spread over a group ranks all its chunks together;
- **several granularities** (measured, not shipped): the default's units and, beside them, one unit
  for each structural block (types.blocks.blocks_at) and each section, ranked together so the ranking
  chooses the size; what is sent skips text already sent, and a unit partly sent costs the tokens
  of its new part (its share of the unit's tokens);
- large units as they come (`sections`, `headers`, each hit alone) and the strongest peers.

The corpora: the gold questions of the tuned five twin pairs (the constants of `structure` were chosen
on them) and of the held-out three (nothing was chosen on them), both phrasings (questions.PHRASINGS);
the project's 762 short-span questions (the retrieval default was chosen on them); Chroma's
state-of-the-union corpus in tests/data/chroma and the FinanceBench subset of ../shared/pdfs (7
questions on two filings), nothing chosen on either."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from statistics import mean

from chunkbench.app.defaults import RETRIEVAL_DEFAULT
from chunkbench.evaluate.benchmark import INDEX_GROUPS, Case, Setting, baseline, find_cases
from chunkbench.evaluate.benchmark.formats import markdown_table
from chunkbench.evaluate.benchmark.scoring import units_for
from chunkbench.evaluate.gold import make_gold
from chunkbench.evaluate.gold.answers import gold_case, kind_of
from chunkbench.evaluate.gold.questions import PHRASINGS, QUESTION_KINDS
from chunkbench.evaluate.retrieval.budget import sent, unit_tokens
from chunkbench.evaluate.retrieval.scoring import RetrievalUnit, token_scores, unit_ranker
from chunkbench.loaders import load
from chunkbench.text.ranges import Span
from chunkbench.types.blocks import blocks_at
from chunkbench.types.document import Document, is_noise

from .gold_public import pairs
from .retrieval_public import chroma_cases, emit, load_cases

#: (label, setting, policy); policy "granularities" is the several-granularities design
#: the retrieval default before issue 76: its chunks ranked with their neighbours only (no group texts)
PREVIOUS = Setting(str(RETRIEVAL_DEFAULT.strategy),
                   {k: v for k, v in RETRIEVAL_DEFAULT.params.items() if k != INDEX_GROUPS})
DESIGNS: tuple[tuple[str, Setting, str], ...] = (
    ("retrieval default", RETRIEVAL_DEFAULT, "grow"),
    ("retrieval default", RETRIEVAL_DEFAULT, "hits"),
    ("retrieval default", RETRIEVAL_DEFAULT, "structure"),
    ("previous default", PREVIOUS, "hits"),
    ("previous default", PREVIOUS, "grow"),
    ("previous default", PREVIOUS, "section"),
    ("previous default", PREVIOUS, "structure"),
    ("previous default", PREVIOUS, "granularities"),
    ("sections", Setting("sections", {}), "hits"),
    ("headers", Setting("headers", {}), "hits"),
    ("LangChain splitter 400 chars", baseline(400), "grow"),
    ("semchunk 256", Setting("semchunk:chunkerify", {"chunk_size": 256}), "hits"),
)
CORPORA = ("gold-tuned", "gold-held-out", "project", "chroma", "financebench")
CHROMA = "tests/data/chroma"
#: the FinanceBench subset beside the project (../shared/pdfs): its questions and the two PDFs they ask of
FINANCEBENCH = Path(__file__).resolve().parents[2] / "shared" / "pdfs"
FINANCEBENCH_PDFS = ("financial_bestbuy-2023-10k.pdf", "financial_ulta-2023q4-earnings.pdf")


def parent_units(doc: Document) -> list[RetrievalUnit]:
    """One unit per structural block and per section of `doc` (page furniture left out), each the
    document's text from its first element to its last: the coarser granularities."""
    els = [e for e in doc.elements if e.text and not is_noise(e)]
    out: list[RetrievalUnit] = []
    for keys in (blocks_at(doc, [e.char_start for e in els]), [p or None for p in doc.section_paths(e.char_start for e in els)]):
        spans: dict = {}
        for e, key in zip(els, keys):
            if key is not None:
                a, b = spans.get(key, (e.char_start, e.char_end))
                spans[key] = (min(a, e.char_start), max(b, e.char_end))
        out += [RetrievalUnit(doc.text[a:b], a, b, frozenset()) for a, b in spans.values()]
    return out


def sent_once(units: Sequence[RetrievalUnit], tokens: Sequence[int], ranking: Sequence[int], budget: int) -> list[Span]:
    """The ranges sent for `ranking` when text already sent is not sent again: a unit's new part
    costs its share of the unit's tokens; the last one is cut at the budget."""
    covered: list[Span] = []
    spent = 0
    for i in ranking:
        u = units[i]
        if u.start is None or u.end is None:
            continue
        pieces = [(u.start, u.end)]
        for a, b in covered:
            pieces = [p for x, y in pieces for p in ((x, min(y, a)), (max(x, b), y)) if p[1] > p[0]]
        new = sum(y - x for x, y in pieces)
        if new <= 0:
            continue
        cost = max(1, tokens[i] * new // max(1, u.end - u.start))
        if spent + cost >= budget:
            keep = (budget - spent) * new // cost
            for x, y in pieces:
                if keep <= 0:
                    break
                covered.append((x, min(y, x + keep)))
                keep -= y - x
            return covered
        covered += pieces
        spent += cost
    return covered


def recall(cases: Sequence[Case], setting: Setting, policy: str, retriever: str, budget: int,
           kept: dict) -> dict[str, list[float]]:
    """Recall at `budget` of every question of `cases`, by question kind (gold ids name it; "short"
    else). `kept` holds each (setting, granularities, document, retriever)'s units, tokens and rankings."""
    out: dict[str, list[float]] = {}
    for case in cases:
        key = (setting.name, policy == "granularities", case.doc.source, retriever)
        if key not in kept:
            units = units_for(setting, case.doc)
            if policy == "granularities":
                units = units + parent_units(case.doc)
            kept[key] = (units, unit_tokens(units), unit_ranker(retriever, units), {})
        units, tokens, ranker, rankings = kept[key]
        for r in case.resolved:
            if not r.spans:
                continue
            ask = r.question.question
            ranking = rankings[ask] if ask in rankings else rankings.setdefault(ask, ranker.rank(ask))
            ranges = sent_once(units, tokens, ranking, budget) if policy == "granularities" else \
                sent(units, tokens, ranking, budget, policy)[0]
            kind = kind_of(r.question.id) if r.question.id.split("/", 1)[0] in QUESTION_KINDS else "short"
            out.setdefault(kind, []).append(token_scores(ranges, r.spans, case.doc.text)[1])
    return out


def corpus_cases(name: str, ap: argparse.ArgumentParser) -> dict[str, list[Case]]:
    """The cases of one corpus, per phrasing for gold ("" for the others)."""
    if name.startswith("gold-"):
        out: dict[str, list[Case]] = {p: [] for p in PHRASINGS}
        for d in pairs("tuned" if name == "gold-tuned" else "held_out"):
            doc = load(d["pdf"])
            gold = make_gold(doc, [load(d["twin"])])
            for p in PHRASINGS:
                out[p].append(gold_case(doc, gold, phrasing=p).case)
        return out
    if name == "project":
        return {"": load_cases(("all",))["all"]}
    if name == "financebench":
        questions = FINANCEBENCH / "financebench_qa_subset.jsonl"
        if not questions.is_file():
            ap.error(f"financebench: {questions} not found (the shared folder beside the project)")
        return {"": [c for pdf in FINANCEBENCH_PDFS for c in find_cases([FINANCEBENCH / pdf], questions)]}
    return {"": chroma_cases(ap, CHROMA)}


def table(scores: dict[tuple[str, str], dict[str, list[float]]]) -> str:
    kinds = [k for k in (*QUESTION_KINDS, "short") if any(k in s for s in scores.values())]
    counts = {k: max(len(s.get(k, [])) for s in scores.values()) for k in kinds}
    head = ["design", *(f"{k} ({counts[k]})" for k in kinds if k != "short"), f"all ({sum(counts.values())})"]
    rows = []
    for (label, policy), by_kind in scores.items():
        every = [v for vs in by_kind.values() for v in vs]
        rows.append([f"{label} (`{policy}`)", *(f"{100 * mean(by_kind[k]):.1f}" if by_kind.get(k) else "–"
                                                 for k in kinds if k != "short"), f"{100 * mean(every):.1f}"])
    return markdown_table(head, rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--retriever", default="bm25", choices=("bm25", "dense", "both"))
    ap.add_argument("--corpora", default=",".join(CORPORA), help=f"comma-separated, of {', '.join(CORPORA)}")
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--designs", default=None, metavar="TEXT", help="only the designs whose label contains TEXT")
    ap.add_argument("--policies", default=None, metavar="P1,P2", help="only these policies (granularities included)")
    ap.add_argument("-o", "--output", default=None)
    args = ap.parse_args(argv)
    corpora = [c.strip() for c in args.corpora.split(",") if c.strip()]
    if not corpora or set(corpora) - set(CORPORA):
        ap.error(f"--corpora takes {', '.join(CORPORA)}")
    retrievers = ("bm25", "dense") if args.retriever == "both" else (args.retriever,)
    started = time.perf_counter()
    parts = [f"Recall at {args.budget:,} cl100k tokens per question kind (percent; each question weighs the same).", ""]
    kept: dict = {}
    for corpus in corpora:
        for phrasing, cases in corpus_cases(corpus, ap).items():
            for retriever in retrievers:
                scores = {}
                for label, setting, policy in DESIGNS:
                    if args.designs and args.designs not in label:
                        continue
                    if args.policies and policy not in args.policies.split(","):
                        continue
                    scores[(label, policy)] = recall(cases, setting, policy, retriever, args.budget, kept)
                    print(f"{corpus} {phrasing} {retriever} {label} {policy}: {time.perf_counter() - started:.0f} s",
                          flush=True)
                title = f"### {corpus}" + (f", {phrasing} questions" if phrasing else "") + f", {retriever}"
                parts += [title, "", table(scores), ""]
    parts.append(f"{time.perf_counter() - started:.0f} s in all.")
    emit("\n".join(parts) + "\n", args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
