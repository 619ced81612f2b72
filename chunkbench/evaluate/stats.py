"""Chunk statistics: size distribution, the seed-2 quality targets, clause_ref rate, type/reason counts.

Every function accepts a `ChunkSet`, a loaded chunks.json dict (`{"chunks": [...]}`) or a plain
list of chunk dicts, so the CLI (`chunkbench stats chunks.json`), the explorer and the metrics
module compute the same numbers from whichever they hold.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

#: Seed-2 quality targets (specs/2 "Quality targets"), as data.
MEDIAN_CHARS_RANGE = (700, 1500)  #: median chunk length in chars must lie in this closed range
P95_CHARS_LIMIT = 2500  #: this share of chunks must be strictly shorter than this many chars ...
P95_SHARE = 0.95  #: ... namely this share
EVIDENCE_SHARE = 1.0  #: share of chunks that must carry pages and source blocks


@dataclass(frozen=True)
class Target:
    """One quality target: measured `value`, what is `expected` (human text), and whether it holds."""

    name: str
    value: float | None
    expected: str
    passed: bool

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Distribution:
    """min / median / p95 / max of one size measure (None when there are no chunks).

    p95 is the nearest-rank percentile: the smallest value with at least 95% of values <= it."""

    min: float | None
    median: float | None
    p95: float | None
    max: float | None
    mean: float | None

    @classmethod
    def of(cls, values: Iterable[float]) -> Distribution:
        v = sorted(values)
        if not v:
            return cls(None, None, None, None, None)
        return cls(v[0], statistics.median(v), percentile(v, 95), v[-1], round(sum(v) / len(v), 1))

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SizeSummary:
    """Chunk count and the char and token size distributions."""

    count: int
    chars: Distribution
    tokens: Distribution

    def to_dict(self) -> dict:
        return {"count": self.count, "chars": self.chars.to_dict(), "tokens": self.tokens.to_dict()}


@dataclass(frozen=True)
class _Row:
    """The few facts of one chunk the statistics need, from a Chunk or a chunk dict."""

    char_len: int
    tokens: int
    has_pages: bool
    has_sources: bool
    type: str
    reason: str
    #: None: the strategy has no clause_ref field; False/True: the chunk has none / has one
    clause_ref: bool | None


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile `q` (0–100] of already sorted values."""
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def _rows(chunks: Any) -> list[_Row]:
    """Normalise a ChunkSet, a chunks.json dict or a list of chunk dicts/Chunks into rows."""
    from chunkbench.types.chunk import Chunk
    from chunkbench.types.chunkset import ChunkSet

    if isinstance(chunks, ChunkSet):
        items: Iterable = chunks.chunks
    elif isinstance(chunks, Mapping):
        if "chunks" not in chunks:
            raise ValueError("expected a chunks.json document with a 'chunks' list")
        items = chunks["chunks"]
    else:
        items = chunks
    rows = []
    for c in items:
        if isinstance(c, Chunk):
            rows.append(_Row(
                c.char_len, c.tokens_est, c.page_start is not None and c.page_end is not None,
                bool(c.source_blocks), c.type, c.boundary.reason.value,
                None if "clause_ref" not in c.extra else bool(c.extra["clause_ref"]),
            ))
        else:
            text = c.get("text") or ""
            rows.append(_Row(
                int(c.get("char_len", len(text))), int(c.get("tokens_est") or 0),
                c.get("page_start") is not None and c.get("page_end") is not None,
                bool(c.get("source_blocks")), str(c.get("type")),
                str((c.get("boundary") or {}).get("reason")),
                None if "clause_ref" not in c else bool(c["clause_ref"]),
            ))
    return rows


def size_summary(chunks: Any) -> SizeSummary:
    """Count plus min/median/p95/max/mean of chars and of cl100k tokens."""
    rows = _rows(chunks)
    return SizeSummary(
        len(rows), Distribution.of(r.char_len for r in rows), Distribution.of(r.tokens for r in rows)
    )


def ratio(part: float, whole: float) -> float | None:
    """part / whole rounded to 4 places, None when there is no whole: the one share rule of the
    stats, the metrics and the sweep tables."""
    return round(part / whole, 4) if whole else None


def _share(flags: list[bool]) -> float | None:
    return ratio(sum(flags), len(flags))


#: the four targets in words, for every place that explains "targets 3/4"
TARGETS_TEXT = (f"median chunk {MEDIAN_CHARS_RANGE[0]}–{MEDIAN_CHARS_RANGE[1]} chars, {P95_SHARE:.0%} of chunks under "
                f"{P95_CHARS_LIMIT:,} chars, every chunk with its pages, every chunk with its source elements")


def quality_targets(chunks: Any) -> list[Target]:
    """The seed-2 targets: median 700–1500 chars, 95% < 2500 chars, 100% pages, 100% source_blocks.

    With no chunks every target fails (value None): an empty result is never "good"."""
    rows = _rows(chunks)
    lo, hi = MEDIAN_CHARS_RANGE
    median = statistics.median(r.char_len for r in rows) if rows else None
    under = _share([r.char_len < P95_CHARS_LIMIT for r in rows])
    pages = _share([r.has_pages for r in rows])
    sources = _share([r.has_sources for r in rows])
    return [
        Target("median_chars", median, f"{lo}–{hi}", median is not None and lo <= median <= hi),
        Target(f"share_under_{P95_CHARS_LIMIT}_chars", under, f">= {P95_SHARE:.0%}",
               under is not None and under >= P95_SHARE),
        Target("share_with_pages", pages, f"{EVIDENCE_SHARE:.0%}", pages is not None and pages >= EVIDENCE_SHARE),
        Target("share_with_source_blocks", sources, f"{EVIDENCE_SHARE:.0%}",
               sources is not None and sources >= EVIDENCE_SHARE),
    ]


def clause_ref_rate(chunks: Any) -> float | None:
    """Chunks with a clause_ref / chunks whose strategy has that field; None when none has it."""
    flags = [r.clause_ref for r in _rows(chunks) if r.clause_ref is not None]
    return _share(flags)


def _counts(values: Iterable[str]) -> dict[str, int]:
    """Counts, most frequent first, ties by name (deterministic)."""
    return dict(sorted(Counter(values).items(), key=lambda kv: (-kv[1], kv[0])))


def by_type(chunks: Any) -> dict[str, int]:
    return _counts(r.type for r in _rows(chunks))


def by_reason(chunks: Any) -> dict[str, int]:
    return _counts(r.reason for r in _rows(chunks))


def chunk_stats(chunks: Any) -> dict:
    """Everything `chunkbench stats` shows, as a JSON-ready dict."""
    targets = quality_targets(chunks)
    return {
        "size": size_summary(chunks).to_dict(),
        "targets": [t.to_dict() for t in targets],
        "targets_passed": sum(t.passed for t in targets),
        "targets_total": len(targets),
        "clause_ref_rate": clause_ref_rate(chunks),
        "by_type": by_type(chunks),
        "by_reason": by_reason(chunks),
    }


def fmt_num(v: float | None) -> str:
    """A statistic for display: integers without '.0', '-' for None."""
    if v is None:
        return "-"
    return f"{v:g}" if isinstance(v, float) and not v.is_integer() else f"{int(v)}"


def format_stats(stats: Mapping, title: str | None = None) -> str:
    """`chunk_stats()` output as a short human-readable report."""
    size = stats["size"]
    lines = [title] if title else []
    if "verdict" in stats:  # the targets and the defects in one word (evaluate.verdict)
        lines.append(f"verdict  {stats['verdict']['line']}")
    lines.append(f"chunks   {size['count']}")
    for label in ("chars", "tokens"):
        d = size[label]
        lines.append(
            f"{label:<8} min {fmt_num(d['min'])}  median {fmt_num(d['median'])}  p95 {fmt_num(d['p95'])}  max {fmt_num(d['max'])}"
        )
    lines.append(f"targets  {stats['targets_passed']}/{stats['targets_total']} passed")
    for t in stats["targets"]:
        value = t["value"]
        shown = "-" if value is None else (f"{value:.1%}" if t["name"].startswith("share") else fmt_num(value))
        lines.append(f"  {'PASS' if t['passed'] else 'FAIL'}  {t['name']:<28} {shown:>8}  (expected {t['expected']})")
    rate = stats["clause_ref_rate"]
    lines.append("clause_ref rate  " + ("n/a (strategy has no clause_ref)" if rate is None else f"{rate:.1%}"))
    lines.append("by type    " + ", ".join(f"{k} {v}" for k, v in stats["by_type"].items()))
    lines.append("by reason  " + ", ".join(f"{k} {v}" for k, v in stats["by_reason"].items()))
    defects = stats.get("defects")
    if defects and "note" in defects:
        lines.append(f"defects    {defects['note']}")
    elif defects:
        by_code = ", ".join(f"{k} {fmt_num(v)}" for k, v in defects["by_code"].items()) or "none"
        lines.append(f"defects    {defects['count']}: {fmt_num(defects['per_100'])} per 100 chunks ({by_code})")
    return "\n".join(lines)


def why_no_chunks(chunks: Any) -> str:
    """Why a ChunkSet has no chunks, in one sentence a user can act on ("" when it has some)."""
    if len(chunks.chunks):
        return ""
    doc = chunks.doc
    with_text = [e for e in doc.elements if not e.is_empty]
    if not doc.elements:
        return "the parser found no elements in the document"
    if not with_text:
        pages = len(doc.pages_without_text)
        return "no element has text" + (f" ({pages} page(s) without a text layer: OCR them first)" if pages else "")
    from chunkbench.types.document import NOISE_TYPES

    if all(e.type in NOISE_TYPES for e in with_text):
        kinds = ", ".join(sorted({e.type for e in with_text}))
        hint = " (--set skip_noise=false keeps them)" if "skip_noise" in chunks.params else ""
        return (f"all {len(with_text)} element(s) with text are page furniture ({kinds}), which "
                f"{chunks.strategy} skips{hint}")
    return f"{chunks.strategy} made no chunk from {len(with_text)} element(s) with text"
