"""Per-strategy checks shared by a strategy's own tests and the all-inputs matrix, and the
parameters the matrix runs each strategy with (its defaults, and the `small` ones it declares)."""

from __future__ import annotations

from typing import Any

from chunkbench.strategies import get_strategy
from chunkbench.strategies.contract_rules import normalize
from chunkbench.text.segment import pipe_table
from chunkbench.types.document import is_noise

#: the parameter sets of the matrix: a strategy's defaults, and the small sizes it declares
VARIANTS = ("default", "small")


def variant_params(strategy: str, variant: str = "default") -> dict[str, Any]:
    """The parameters of `variant` for `strategy` (declare(..., small=...) for "small")."""
    return dict(get_strategy(strategy).small) if variant == "small" else {}


def contract_words(doc, skipped):
    """The words `contract` must keep, in order: every element not skipped, normalised as it normalises
    (a table as its pipe table)."""
    parts = []
    for e in doc.elements:
        if e.id in skipped:
            continue
        parts.append(pipe_table(e.rows) if e.type == "table" and e.rows else normalize(e.text))
    return " ".join(parts).split()


def headers_own(c) -> str:
    """The chunk's own content: its text without the overlap with the previous sibling."""
    return c.text[c.extra["overlap_chars"]:]


def headers_coverage(doc, cs):
    """Every content character in exactly one chunk's own text, in order (whitespace aside)."""
    own = "".join("".join(headers_own(c).split()) for c in cs)
    content = "".join("".join(e.text.split()) for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped)
    assert own == content


def sections_coverage(doc, cs):
    """Each chunked character in exactly one chunk, in reading order (whitespace aside)."""
    got = "".join("".join(c.span_text.split()) for c in cs)
    content = "".join("".join(e.text.split()) for e in doc.elements if not e.is_empty and not is_noise(e) and e.id not in cs.skipped)
    assert got == content
