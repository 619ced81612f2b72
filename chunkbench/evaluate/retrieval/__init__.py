"""Retrieval check: BM25 over chunks vs raw elements vs a plain-text splitter, scored on evidence.

Answers specs/2's "search improves vs raw blocks". Each question carries evidence (a 1-based page
and/or a text span). The evidence text is located in the document's canonical text ignoring
whitespace, case and typographic quotes, so every evidence item becomes character ranges of
`doc.text`. Units (chunks, elements, baseline pieces) are ranked with BM25 (bm25s, own offline
tokenizer), or with dense all-MiniLM-L6-v2 embeddings (`retriever="dense"`, the optional extra
`chunkbench[dense]`), and scored with:

- recall@k: share of questions with a relevant unit in the top k (relevant = its character range
  overlaps an evidence range; when no evidence text could be located, it covers the evidence page);
- MRR: mean of 1/rank of the first relevant unit (0 when none is retrieved);
- token-level precision / recall / IoU of the top `token_k` units' character ranges against the
  evidence ranges, as in Chroma's chunking evaluation: intersection = characters of the evidence
  covered by retrieved ranges; precision divides by the summed length of the retrieved ranges
  (overlapping retrieved chunks count twice, as stored), IoU by that sum plus the evidence missed.

Modules: `questions` (question files), `locate` (evidence → ranges of doc.text), `ranking` (BM25,
dense), `scoring` (units, evaluate, retrieval_metrics). Range math is chunkbench.text.ranges.
"""

from .locate import Resolved, locate, normalize, normalized_text, page_ranges, pages_of, resolve
from .questions import FINANCEBENCH_FILE, Evidence, Question, default_questions_path, load_questions, matches_doc_name
from .ranking import DENSE_EXTRA, RETRIEVERS, BM25Ranker, DenseRanker, UnitRanker, dense_model, make_ranker, tokenize
from .scoring import (
    KS,
    TOKEN_K,
    Indexing,
    RetrievalUnit,
    baseline_units,
    chunk_units,
    element_units,
    evaluate,
    indexed_units,
    retrieval_metrics,
    token_scores,
)

__all__ = [
    "DENSE_EXTRA", "FINANCEBENCH_FILE", "KS", "RETRIEVERS", "TOKEN_K", "BM25Ranker", "DenseRanker", "Evidence",
    "Indexing", "normalized_text", "Question", "Resolved", "RetrievalUnit", "UnitRanker", "baseline_units", "chunk_units", "default_questions_path",
    "dense_model", "element_units", "evaluate", "indexed_units", "load_questions", "locate",
    "make_ranker", "matches_doc_name", "normalize", "page_ranges", "pages_of", "resolve", "retrieval_metrics",
    "token_scores", "tokenize",
]
