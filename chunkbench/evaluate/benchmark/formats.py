"""Numbers, intervals and lists as the benchmark's text shows them."""

from __future__ import annotations

from collections.abc import Sequence


def _listed(names: Sequence[str], most: int = 3) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _interval(ci: Sequence[float] | None, fmt) -> str:
    return "-" if ci is None else f"{fmt(ci[0])} to {fmt(ci[1])}"


def _points(v: float | None) -> str:
    """A difference of two shares in percentage points; a nonzero one that rounds to 0.0 gets two
    decimals, so a shortfall never reads "-0.0 pt"."""
    if v is None:
        return "-"
    return f"{100 * v:+.1f} pt" if v == 0 or abs(100 * v) >= 0.05 else f"{100 * v:+.2f} pt"


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


def _signed(v: float | None) -> str:
    return "-" if v is None else f"{round(100 * v) or 0:+d}%"  # `or 0`: no "-0%"


def markdown_table(head: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    """A Markdown pipe table: the head row, the rule, one row per cell list (the benchmark's and gold's tables)."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines.extend("| " + " | ".join(cells) + " |" for cells in body)
    return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
