"""Compare chunking settings on a retrieval benchmark: documents with questions and reference spans.

`chunkbench evaluate` answers "which setting retrieves the answer best on MY documents?": each
document comes with a questions file (`<stem>.questions.json`, reference spans as exact text),
every setting (a strategy with parameters, or the LangChain RecursiveCharacterTextSplitter
baseline) cuts every document, the units are ranked per question (BM25 by default) and the top
`token_k` are scored with the token-range precision / recall / IoU of retrieval.evaluate (Chroma's
chunking-evaluation measure) plus recall@k and MRR. Scores are pooled over all questions of all
documents (each question weighs the same), and per document (a corpus, in Chroma's terms), each
difference from the baseline with a paired bootstrap 95% interval (`intervals`). The best setting
is the one with the highest IoU among those whose token recall is at least the baseline's (plus a
margin, when one is asked for: `margin`).
Questions come as `<stem>.questions.json` per document or as one Chroma chunking-evaluation CSV
(`question`, `references`, `corpus_id`) for a folder of corpus files.

Modules, one idea each: `cases` (the documents and their questions), `baseline` (the baseline and
a grid's settings), `scoring` (one setting scored per question and pooled), `compare` (settings
against the baseline, the best one, retrievers, misses), `health` (what the corpus can tell),
`report` and `formats` (the text the CLI prints).
"""

from __future__ import annotations

from chunkbench.strategies.peers import BASELINE_UNITS

from ..retrieval import KS, TOKEN_K, evaluate
from ..retrieval.scoring import INDEX_ALONE, INDEX_CONTEXT, INDEX_GROUPS, INDEX_HEADINGS, INDEX_WINDOWS
from ..settings import BASELINE, Setting
from .baseline import BASELINE_SIZE, baseline, equally_indexed, grid_settings
from .cases import DOCUMENT_SUFFIXES, Case, find_cases
from .compare import (
    beats_baseline,
    candidates,
    clears_margin,
    compare_retrievers,
    compare_scored,
    compare_settings,
    miss_setting,
    misses_of,
    result_margin,
)
from .health import FEW_QUESTIONS, corpus_health
from .report import format_documents, format_report, format_table, holdout_line, proxy_line, summary_line
from .scoring import MEASURES, PAIRED, PROTOCOLS, pooled_measures, score_questions, score_setting, units_for

__all__ = [
    "BASELINE",
    "BASELINE_SIZE",
    "BASELINE_UNITS",
    "Case",
    "DOCUMENT_SUFFIXES",
    "FEW_QUESTIONS",
    "INDEX_ALONE",
    "INDEX_CONTEXT",
    "INDEX_GROUPS",
    "INDEX_HEADINGS",
    "INDEX_WINDOWS",
    "KS",
    "MEASURES",
    "PAIRED",
    "PROTOCOLS",
    "Setting",
    "TOKEN_K",
    "baseline",
    "beats_baseline",
    "candidates",
    "clears_margin",
    "compare_retrievers",
    "compare_scored",
    "compare_settings",
    "corpus_health",
    "equally_indexed",
    "evaluate",
    "find_cases",
    "format_documents",
    "format_report",
    "format_table",
    "grid_settings",
    "holdout_line",
    "miss_setting",
    "misses_of",
    "pooled_measures",
    "proxy_line",
    "result_margin",
    "score_questions",
    "score_setting",
    "summary_line",
    "units_for",
]
