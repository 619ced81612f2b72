"""The text an index sees for a chunk indexed with its neighbours (the `index_context` of a setting).

A small chunk ranked by its own words and those of the chunks around it, while the chunk alone is
returned, keeps what a reader is given short and still lets the ranking see the words that say what
the chunk is about (often in the sentence before it). The chunk's own text comes first and twice:
twice so that it outranks the neighbours that share its context, first so that a model that reads
only the start of a text (MiniLM: 256 word pieces) still reads it. docs/evaluation.md measures
what this buys.
"""

from __future__ import annotations

from collections.abc import Sequence


def with_neighbours(texts: Sequence[str], context: int) -> list[str]:
    """Each text twice, then the `context` texts before it and after it in order, joined by line
    breaks; `context` 0 gives the texts unchanged."""
    if context < 0:
        raise ValueError(f"index context must be 0 or more chunks, got {context}")
    if not context:
        return list(texts)
    return ["\n".join([text, text, *texts[max(0, i - context):i], *texts[i + 1:i + context + 1]])
            for i, text in enumerate(texts)]
