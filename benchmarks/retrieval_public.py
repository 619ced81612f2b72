"""Issue 19.5's table: chunkbench settings against the sentence splitter at each of its sizes, on
the project's public-domain retrieval corpus (tests/data/retrieval), with BM25 and dense retrieval.

    python -m benchmarks.retrieval_public [--retriever bm25|dense|both] [-o FILE.md]

Each block is one baseline: Chroma's RecursiveTokenChunker layout (LangChain's recursive splitter
with sentence separators) at 200, 400 and 800 characters (overlap 400, as Chroma ran it) and at
200 cl100k tokens; the settings next to it are the size-matched ones and the best of a wider grid
(docs/evaluation.md says how they were found). Every gain has its paired bootstrap 95% interval.
Dense retrieval embeds every unit with MiniLM on CPU: about 7 minutes per block here."""

from __future__ import annotations

import argparse
import os
import time

from chunkbench.evaluate.benchmark import Setting, baseline, compare_retrievers, find_cases
from chunkbench.io.atomic import write_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "data", "retrieval")
SHARED_PDF = os.path.join(ROOT, "..", "shared", "pdfs", "req_federal-register-2020-17221.pdf")

#: the corpus's documents: the 5 public-domain ones of issue 19.4, the speech, and the FAA rule
#: when ../shared is present
DOCUMENTS = ("us_constitution.txt", "fomc_minutes_2019_07.txt", "apollo13_air_to_ground.txt",
             "factbook_iceland.txt", "sqlite_how_to_corrupt.md", "sotu_2024.txt")

#: (label, baseline, settings compared with it)
BLOCKS = (
    ("splitter at 200 characters", baseline(200), (
        Setting("recursive", {"chunk_size": 200}),
        Setting("sentences", {}),
        Setting("sentences", {"join_dependent": False, "max_chars": 250, "min_chars": 60}),
        Setting("tokens", {"chunk_size": 50, "overlap": 0}),
    )),
    ("splitter at 400 characters", baseline(400), (
        Setting("recursive", {"chunk_size": 350}),
        Setting("recursive", {"chunk_size": 400}),
        Setting("sentences", {"join_dependent": False, "max_chars": 400, "min_chars": 150}),
        Setting("tokens", {"chunk_size": 100, "overlap": 0}),
    )),
    ("splitter at 800 characters, overlap 400", baseline(800, 400), (
        Setting("recursive", {"chunk_size": 700}),
        Setting("recursive", {"chunk_size": 800}),
        Setting("tokens", {"chunk_size": 200, "overlap": 0}),
    )),
    ("splitter at 200 cl100k tokens", baseline(200, unit="tokens"), (
        Setting("recursive", {"chunk_size": 500}),
        Setting("recursive", {"chunk_size": 700}),
        Setting("tokens", {"chunk_size": 200, "overlap": 0}),
    )),
)


def inputs() -> list[str]:
    paths = [os.path.join(CORPUS, name) for name in DOCUMENTS]
    return paths + ([SHARED_PDF] if os.path.exists(SHARED_PDF) else [])


def block_markdown(label: str, result: dict) -> str:
    """One baseline's table: the pooled rows, then each document's best ratio."""
    base = result["rows"][0]
    out = [f"### {result['retriever']}: {label}", "",
           "| setting | mean chars | token recall | token IoU | IoU vs splitter (95% CI) | recall Δ (95% CI) |",
           "|---|---|---|---|---|---|"]
    for row in result["rows"]:
        is_base = row is base
        gain = "baseline" if is_base else _ratio(row["token_iou"], base["token_iou"], row.get("iou_gain_ci"))
        diff = "" if is_base else _points(row["token_recall"] - base["token_recall"], row.get("recall_diff_ci"))
        out.append(f"| {row['setting']} | {row['mean_chars']:.0f} | {row['token_recall']:.1%} | "
                   f"{row['token_iou']:.1%} | {gain} | {diff} |")
    out += ["", "Per document, the best IoU ratio at no less token recall than the splitter's:", ""]
    for n, doc in enumerate(base["documents"]):
        ratios = [(r["documents"][n]["token_iou"] / doc["token_iou"] if doc["token_iou"] else 0.0, r["setting"])
                  for r in result["rows"][1:] if r["documents"][n]["token_recall"] >= doc["token_recall"]]
        best = max(ratios, default=None)
        out.append(f"- {doc['source']} ({doc['questions']} questions): "
                   + (f"{best[0]:.2f}× ({best[1]})" if best else "no setting reaches its recall"))
    return "\n".join(out) + "\n"


def _ratio(value: float, reference: float, ci) -> str:
    text = f"{value / reference:.2f}×" if reference else "n/a"
    return text + (f" ({1 + ci[0]:.2f}–{1 + ci[1]:.2f})" if ci else "")


def _points(diff: float, ci) -> str:
    text = f"{diff * 100:+.1f} pt"
    return text + (f" ({ci[0] * 100:+.1f} to {ci[1] * 100:+.1f})" if ci else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--retriever", default="bm25", choices=("bm25", "dense", "both"))
    ap.add_argument("-o", "--output", default=None, help="write the Markdown here (default: print it)")
    args = ap.parse_args(argv)
    retrievers = ("bm25", "dense") if args.retriever == "both" else (args.retriever,)
    started = time.perf_counter()
    cases = find_cases(inputs(), questions_dir=CORPUS)
    parts = [f"{sum(len(c.resolved) for c in cases)} questions on {len(cases)} documents; top 5.", ""]
    for label, base, settings in BLOCKS:
        for result in compare_retrievers(cases, list(settings), base, 5, retrievers):
            parts.append(block_markdown(label, result))
            print(f"{label} ({result['retriever']}): {time.perf_counter() - started:.0f} s", flush=True)
    text = "\n".join(parts)
    if args.output:
        write_text(args.output, text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
