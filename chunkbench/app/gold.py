"""Gold from a structured twin, for a person: load the PDF (or any parse of it) and its twins
(HTML files or folders, Markdown), place the twins' blocks in the parse (evaluate.gold), and read
or write gold.json. `cb.gold` and `chunkbench gold` call this."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from chunkbench.errors import UsageError
from chunkbench.evaluate.gold import Gold, make_gold
from chunkbench.evaluate.gold.answers import GoldCase, gold_case, score_on_gold
from chunkbench.evaluate.gold.parse import parse_scores
from chunkbench.evaluate.retrieval.budget import BudgetSpec
from chunkbench.evaluate.settings import Setting
from chunkbench.loaders import detect_kind, load
from chunkbench.types.document import Document

__all__ = ["TWIN_KINDS", "evaluate_on_gold", "gold", "gold_cases", "load_twin", "read_gold"]

#: the inputs a twin may be: the structured forms a PDF is made from
TWIN_KINDS = ("html", "markdown")


def gold(document: Document | str | os.PathLike, twins: Sequence[Document | str | os.PathLike] | str | os.PathLike,
         **load_options: Any) -> Gold:
    """The blocks of `twins` (HTML files, folders of chunked HTML pages, Markdown; in reading order)
    placed in `document` (a Document, or any input `cb.load` reads, loaded with `load_options`).
    An InputError names both when under half of the twins' blocks are found: not the same document."""
    doc = document if isinstance(document, Document) else load(document, **load_options)
    items = [twins] if isinstance(twins, (str, os.PathLike, Document)) else list(twins)
    if not items:
        raise UsageError("gold needs at least one twin: the HTML or Markdown the PDF was made from")
    return make_gold(doc, [load_twin(t) for t in items])


def load_twin(twin: Document | str | os.PathLike) -> Document:
    """A twin as a Document: HTML (a file or a folder of pages) or Markdown; anything else is a usage error."""
    if isinstance(twin, Document):
        return twin
    kind = detect_kind(twin)
    if kind not in TWIN_KINDS:
        raise UsageError(f"{os.fspath(twin)}: a twin is the structured form the PDF was made from, an HTML file, "
                         f"a folder of HTML pages or a Markdown file (this is read as {kind})")
    return load(twin)


def read_gold(path: str | os.PathLike) -> Gold:
    """A gold.json written by `chunkbench gold` or `Gold.write`."""
    return Gold.read(path)


def gold_cases(inputs: Sequence[str | os.PathLike], golds: Sequence[str | os.PathLike],
               **load_options: Any) -> list[GoldCase]:
    """Each input (a file) with its gold file, in the order given: the gold's questions asked of it.
    A gold made on another parse of the same PDF is placed in this one first."""
    if len(golds) != len(inputs):
        raise UsageError(f"--gold names one gold file per INPUT, in their order: {len(inputs)} input(s), "
                         f"{len(golds)} gold file(s)")
    cases = []
    for item, path in zip(inputs, golds):
        doc = load(item, **load_options)
        cases.append(gold_case(doc, read_gold(path), os.fspath(path)))
    return cases


def evaluate_on_gold(cases: Sequence[GoldCase], settings: Sequence[Setting], retrievers: Sequence[str] = ("bm25",),
                     budget: BudgetSpec | None = None) -> dict[str, Any]:
    """Every setting on the gold cases with each retriever (score_on_gold), and each document's parse
    scores; each document cut once per setting for every retriever."""
    units: dict = {}
    results = {retriever: [score_on_gold(s, cases, retriever, budget, units) for s in settings]
               for retriever in retrievers}
    parse = [(c.doc.source, parse_scores(c.doc, c.gold)) for c in cases]
    asked = [q for c in cases for q in c.questions]
    given = sum((c.giveaway or 0.0) * len(c.questions) for c in cases)
    return {"parse": parse, "results": results, "budgets": list((budget or BudgetSpec()).budgets),
            "giveaway": round(given / len(asked), 4) if asked else None}
