"""Word classes shared by the loaders and the metrics."""

from __future__ import annotations

#: words that neither end a sentence nor stand alone as a heading: a chunk ending in one was cut
#: mid-sentence; a "heading" that is one of them is a connective between two blocks ("or")
FUNCTION_WORDS = frozenset(
    ["a", "an", "the", "and", "or", "nor", "but", "of", "to", "in", "on", "at", "by", "for", "from", "with",
     "without", "into", "onto", "upon", "over", "under", "between", "among", "than", "that", "which", "who",
     "whom", "whose", "this", "these", "those", "such", "any", "each", "every", "its", "their", "his", "her",
     "our", "your", "is", "are", "was", "were", "be", "been", "being", "shall", "will", "would", "may",
     "might", "must", "can", "could", "should", "not", "as", "if"]
)
