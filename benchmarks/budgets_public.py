"""Issue 57's table: recall at a context budget, chunkbench's settings and return policies against
the peers at equal budgets, on the project's public-domain retrieval corpus (every question set:
tests/data/retrieval and its heldout/ and fresh/ folders) or on a Chroma-format corpus.

    python -m benchmarks.budgets_public [--retriever bm25|dense|both] [--budgets 500,1000,2000]
                                        [--questions all] [--chroma DIR] [--quick] [-o FILE.md]

Each setting's ranking is made once per retriever; each return policy (retrieval.budget.POLICIES)
then fills each budget from it. Per row: recall@B pooled over every question (each weighs the same)
with tokens sent, and recall@1000 per document. The verdict compares the retrieval default (with
each policy) with the best peer row at each budget: the difference with its paired bootstrap 95%
interval, and the documents where the default is below that peer. The issue's goal: at every
budget, default ≥ best peer + 3 points pooled, with both retrievers, and below it on at most one
document."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from chunkbench.app.defaults import RETRIEVAL_DEFAULT
from chunkbench.evaluate.benchmark import Case, Setting, baseline, score_questions
from chunkbench.evaluate.benchmark.formats import _pct
from chunkbench.evaluate.intervals import PairedBootstrap
from chunkbench.evaluate.retrieval.budget import BUDGETS, BudgetSpec
from chunkbench.io.return_policy import POLICIES
from chunkbench.strategies import get_strategy

from .retrieval_public import QUESTION_SETS, chroma_cases, emit, load_cases

#: the goal's margin over the best peer, pooled (a share: 3 points)
GOAL_MARGIN = 0.03
#: the peers at the issue's sizes: LangChain's recursive splitter with sentence separators (Chroma's
#: RecursiveTokenChunker layout) at 200, 400, 800 and 1,000 characters, chonkie's recursive, token
#: and semantic chunkers, semchunk, and Docling's HybridChunker where installed
PEERS: tuple[tuple[str, Setting], ...] = (
    ("LangChain splitter 200 chars", baseline(200)),
    ("LangChain splitter 400 chars", baseline(400)),
    ("LangChain splitter 800 chars", baseline(800)),
    ("LangChain splitter 1000 chars", baseline(1000)),
    ("chonkie recursive 512 chars", Setting("chonkie:RecursiveChunker", {"chunk_size": 512})),
    ("chonkie token 128", Setting("chonkie:TokenChunker", {"chunk_size": 128})),
    ("chonkie token 256", Setting("chonkie:TokenChunker", {"chunk_size": 256})),
    ("chonkie semantic (MiniLM)", Setting("chonkie:SemanticChunker", {"chunk_size": 256})),
    ("semchunk 128", Setting("semchunk:chunkerify", {"chunk_size": 128})),
    ("semchunk 256", Setting("semchunk:chunkerify", {"chunk_size": 256})),
    ("Docling HybridChunker 256", Setting("docling:HybridChunker", {"max_tokens": 256})),
)
#: chunkbench's rows: the retrieval default first, then strategies at their defaults and sizes near the peers'
OWN: tuple[tuple[str, Setting], ...] = (
    ("retrieval default", RETRIEVAL_DEFAULT),
    ("recursive 150", Setting("recursive", {"chunk_size": 150})),
    ("recursive 400", Setting("recursive", {"chunk_size": 400})),
    ("sentences", Setting("sentences", {})),
    ("elements", Setting("elements", {})),
    ("headers", Setting("headers", {})),
    ("tokens 256", Setting("tokens", {"chunk_size": 256, "overlap": 0})),
)
#: --quick: the default, one strategy and three peers, BM25 (a smoke run)
QUICK = ("retrieval default", "elements", "LangChain splitter 200 chars", "LangChain splitter 800 chars", "semchunk 256")


def available(rows: Sequence[tuple[str, Setting]]) -> list[tuple[str, Setting]]:
    """The rows whose strategy (a peer's library) is installed."""
    out = []
    for label, setting in rows:
        if setting.strategy is not None:
            try:
                get_strategy(setting.strategy)
            except Exception:  # noqa: BLE001 - a peer not installed: left out, and said
                print(f"left out (not installed): {label}", flush=True)
                continue
        out.append((label, setting))
    return out


def measure(cases: Sequence[Case], rows: Sequence[tuple[str, Setting]], retriever: str, budgets: Sequence[int],
            policies: Sequence[str], units: dict, rankers: dict) -> dict[tuple[str, str], dict]:
    """(row label, policy) → {"pooled": {measure: value}, "documents": [...], "questions": [rows]}."""
    out = {}
    for label, setting in rows:
        for policy in policies:
            row, questions = score_questions(setting, cases, 5, retriever, units, rankers,
                                             budget=BudgetSpec(tuple(budgets), policy))
            out[(label, policy)] = {"pooled": row, "questions": [q for q in questions if "token_iou" in q]}
    return out


def table(scores: dict, budgets: Sequence[int], documents: Sequence[str]) -> str:
    head = ["row", "policy", *(f"recall@{b}" for b in budgets), *(f"tokens@{b}" for b in budgets),
            *(f"@1000 {d}" for d in documents)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (label, policy), s in scores.items():
        p = s["pooled"]
        docs = [_pct(d.get("budget_recall@1000")) for d in p["documents"]] if 1000 in budgets else []
        lines.append("| " + " | ".join([label, policy, *(_pct(p.get(f"budget_recall@{b}")) for b in budgets),
                                        *(f"{p.get(f'budget_tokens@{b}') or 0:,.0f}" for b in budgets), *docs]) + " |")
    return "\n".join(lines)


def verdict(scores: dict, budgets: Sequence[int], peers: list[tuple[str, str]], n_documents: int) -> tuple[str, bool]:
    """Per budget: the best of the `peers` rows ((label, policy) keys), the retrieval default's best
    policy there, their difference with its paired 95% interval, and the documents where the default
    is below that peer; whether the goal is met at every budget."""
    lines, met_all = [], True
    defaults = [key for key in scores if key[0] == "retrieval default"]
    for b in budgets:
        key = f"budget_recall@{b}"
        best = max(peers, key=lambda k: scores[k]["pooled"].get(key) or 0)
        mine = max(defaults, key=lambda k: scores[k]["pooled"].get(key) or 0)
        best_q, mine_q = scores[best]["questions"], scores[mine]["questions"]
        ci = PairedBootstrap([q["case"] for q in best_q]).difference_interval([q[key] for q in mine_q],
                                                                              [q[key] for q in best_q])
        diff = (scores[mine]["pooled"][key] or 0) - (scores[best]["pooled"][key] or 0)
        below = [doc["source"] for doc, other in zip(scores[mine]["pooled"]["documents"],
                                                     scores[best]["pooled"]["documents"])
                 if (doc.get(key) or 0) < (other.get(key) or 0) - 1e-9]
        met = diff >= GOAL_MARGIN - 1e-9 and len(below) <= 1
        met_all &= met
        lines.append(f"- recall@{b}: default ({mine[1]}) {_pct(scores[mine]['pooled'][key])} vs {best[0]} ({best[1]}) "
                     f"{_pct(scores[best]['pooled'][key])}: {100 * diff:+.1f} pt (95% CI {100 * ci[0]:+.1f} to "
                     f"{100 * ci[1]:+.1f} pt); below it on {len(below)} of {n_documents} documents"
                     f"{': ' + ', '.join(below) if below else ''}: goal {'met' if met else 'not met'}")
    return "\n".join(lines), met_all


def best_own(scores: dict, own: set[str], budget: int = 1000) -> str:
    """The chunkbench row and policy with the most recall@budget pooled (what names the retrieval default)."""
    key = f"budget_recall@{budget}"
    rows = [k for k in scores if k[0] in own and scores[k]["pooled"].get(key) is not None]
    if not rows:
        return ""
    top = max(rows, key=lambda k: scores[k]["pooled"][key])
    return f"most recall@{budget} pooled among chunkbench's rows: {top[0]} ({top[1]}), {_pct(scores[top]['pooled'][key])}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--retriever", default="bm25", choices=("bm25", "dense", "both"))
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)), metavar="B1,B2,...")
    ap.add_argument("--questions", default="all", metavar="SET", help="a question set of retrieval_public (default all)")
    ap.add_argument("--chroma", default=None, metavar="DIR", help="a Chroma-format corpus instead (retrieval_public --chroma)")
    ap.add_argument("--quick", action="store_true", help="a few rows, for a smoke run")
    ap.add_argument("-o", "--output", default=None, help="write the Markdown here (default: print it)")
    args = ap.parse_args(argv)
    budgets = BudgetSpec.parse(args.budgets).budgets
    if args.questions not in QUESTION_SETS:
        ap.error(f"--questions {args.questions}: one of {', '.join(QUESTION_SETS)}")
    cases = chroma_cases(ap, args.chroma) if args.chroma else load_cases((args.questions,))[args.questions]
    own, peers = available(OWN), available(PEERS)
    if args.quick:
        own, peers = [r for r in own if r[0] in QUICK], [r for r in peers if r[0] in QUICK]
    retrievers = ("bm25", "dense") if args.retriever == "both" else (args.retriever,)
    started = time.perf_counter()
    questions = sum(len(c.resolved) for c in cases)
    parts = [f"{questions} questions on {len(cases)} documents ({args.chroma or args.questions}); budgets in cl100k "
             f"tokens; return policies: " + "; ".join(f"`{k}` {v}" for k, v in POLICIES.items()) + ".", ""]
    units: dict = {}
    rankers: dict = {}
    goal = []
    for retriever in retrievers:
        scores = measure(cases, own, retriever, budgets, tuple(POLICIES), units, rankers)
        scores.update(measure(cases, peers, retriever, budgets, ("hits", "window", "section"), units, rankers))
        peer_keys = [k for k in scores if k[0] in {label for label, _ in peers}]
        native, _ = verdict(scores, budgets, [k for k in peer_keys if k[1] == "hits"], len(cases))
        strict, met = verdict(scores, budgets, peer_keys, len(cases))
        goal.append(met)
        parts += [f"## {retriever}", "", table(scores, budgets, [c.name for c in cases]), "",
                  best_own(scores, {label for label, _ in own}), "",
                  "Against the best peer as it returns (each hit alone):", "", native, "",
                  "Against the best peer with any return policy (a window or its section, as chunkbench's wrappers "
                  "or LlamaIndex's PrevNextNodePostprocessor give it): the goal's comparison", "", strict, ""]
        print(f"{retriever}: {time.perf_counter() - started:.0f} s", flush=True)
    parts.append(f"Goal (default ≥ best peer + {100 * GOAL_MARGIN:.0f} pt at every budget, below it on at most one "
                 f"document): {'met' if all(goal) else 'not met'} with " + ", ".join(
                     f"{r}: {'met' if m else 'not met'}" for r, m in zip(retrievers, goal)) + ".")
    emit("\n".join(parts) + "\n", args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
