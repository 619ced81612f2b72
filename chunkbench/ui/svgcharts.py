"""Small charts as inline SVG that the browser draws: lines, grouped bars and scatter points in a
panel with axes, ticks and a hover title on every mark. summary.html and the sweep notebook use
them instead of matplotlib figures: a sweep's page is written in milliseconds rather than seconds
and stays sharp at any zoom. Every text is escaped."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

#: matplotlib's tab10, so the colours read as they did
COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
          "#17becf")
#: panel size in CSS pixels, and the margins that hold the axes' labels
WIDTH, HEIGHT = 300, 210
LEFT, RIGHT, TOP, BOTTOM = 46, 10, 24, 38


@dataclass(frozen=True)
class Series:
    """One named set of marks: `kind` line (points joined), bar (grouped with the panel's other
    bar series), scatter (points only) or path (a line without points, e.g. a Pareto front over
    the scatter); `color` fixes its colour (else one per name)."""

    name: str
    xs: Sequence
    ys: Sequence[float | None]
    kind: str = "line"
    color: str = ""


@dataclass(frozen=True)
class Panel:
    """One chart: a title, its series, axis labels; `note` instead of a chart says why there is none."""

    title: str
    series: Sequence[Series] = field(default_factory=tuple)
    x_label: str = ""
    y_label: str = ""
    note: str = ""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _num(v) -> str:
    """A tick or value label: at most 3 significant digits, no trailing zeros."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, (int, float)):
        if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
            return f"{v:.2g}"
        return f"{v:.3g}"
    return str(v)


def nice_ticks(lo: float, hi: float, n: int = 4) -> list[float]:
    """About `n` round tick values covering [lo, hi]."""
    if hi <= lo or (hi - lo) / n == 0:  # one value (or a span that underflows): a band around it
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step) * step
    ticks, t = [], first
    while t <= hi + step * 1e-9:
        ticks.append(round(t, 12))
        t += step
    if ticks[-1] < hi:
        ticks.append(round(ticks[-1] + step, 12))
    return ticks


def _finite(ys) -> list[float]:
    return [float(y) for y in ys if y is not None and not (isinstance(y, float) and math.isnan(y))]


def color_map(names: Sequence[str]) -> dict[str, str]:
    """A colour per name, in order (the same name the same colour on every panel of a page)."""
    return {n: COLORS[i % len(COLORS)] for i, n in enumerate(dict.fromkeys(names))}


def panel_svg(p: Panel, colors: dict[str, str] | None = None, width: int = WIDTH, height: int = HEIGHT) -> str:
    """The panel as an <svg> element."""
    colors = colors or color_map([s.name for s in p.series])
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{_e(p.title)}" style="font-family:sans-serif;font-size:10px;background:#fff">',
           f'<text x="{width / 2}" y="14" text-anchor="middle" font-size="11">{_e(p.title)}</text>']
    values = [y for s in p.series for y in _finite(s.ys)]
    if p.note or not values:
        out.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" fill="#555">'
                   f'{_e(p.note or "no values")}</text></svg>')
        return "".join(out)
    x0, x1, y0, y1 = LEFT, width - RIGHT, TOP, height - BOTTOM
    bars = [s for s in p.series if s.kind == "bar"]
    lo = min(values + ([0.0] if bars or min(values) >= 0 and min(values) < max(values) * 0.5 else []))
    ticks = nice_ticks(lo, max(values))
    ylo, yhi = ticks[0], ticks[-1]

    def ty(v: float) -> float:
        return y1 - (v - ylo) / ((yhi - ylo) or 1) * (y1 - y0)

    tx, xlabels = _x_axis(p.series, bool(bars), x0, x1)
    for t in ticks:  # grid lines and y labels
        out.append(f'<line x1="{x0}" x2="{x1}" y1="{ty(t):.1f}" y2="{ty(t):.1f}" stroke="#e5e5e5"/>'
                   f'<text x="{x0 - 4}" y="{ty(t) + 3:.1f}" text-anchor="end" fill="#333">{_e(_num(t))}</text>')
    out.append(f'<line x1="{x0}" x2="{x0}" y1="{y0}" y2="{y1}" stroke="#999"/>'
               f'<line x1="{x0}" x2="{x1}" y1="{y1}" y2="{y1}" stroke="#999"/>')
    for x, label in xlabels:
        out.append(f'<text x="{x:.1f}" y="{y1 + 13}" text-anchor="middle" fill="#333">{_e(label)}</text>')
    if p.x_label:
        out.append(f'<text x="{(x0 + x1) / 2}" y="{height - 6}" text-anchor="middle" fill="#333">{_e(p.x_label)}</text>')
    if p.y_label:
        out.append(f'<text transform="translate(10 {(y0 + y1) / 2}) rotate(-90)" text-anchor="middle" '
                   f'fill="#333">{_e(p.y_label)}</text>')
    if bars:
        out += _bars(bars, colors, tx, ty, ylo, (x1 - x0) / max(1, len({str(x) for s in bars for x in s.xs})))
    for s in p.series:
        if s.kind != "bar":
            out += _marks(s, s.color or colors.get(s.name, COLORS[0]), tx, ty)
    out.append("</svg>")
    return "".join(out)


def _x_axis(series: Sequence[Series], bars: bool, x0: float, x1: float) -> tuple[Callable[[Any], float], list]:
    """Where an x value is drawn, and the x axis' labels: a numeric scale with nice ticks, or a slot
    per category (always for bars)."""
    xs_all = [x for s in series for x in s.xs]
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs_all) and not bars:
        xt = nice_ticks(min(xs_all), max(xs_all))

        def tx(v) -> float:
            return x0 + (float(v) - xt[0]) / ((xt[-1] - xt[0]) or 1) * (x1 - x0)

        return tx, [(tx(t), _num(t)) for t in xt]
    cats = list(dict.fromkeys(str(x) for x in xs_all))
    slot = (x1 - x0) / max(1, len(cats))

    def tx_cat(v) -> float:
        return x0 + slot * (cats.index(str(v)) + 0.5)

    return tx_cat, [(tx_cat(c), c if len(c) <= 12 else c[:11] + "…") for c in cats]


def _present(y: float | None) -> TypeGuard[float]:
    """Whether a series has a value here (not None, not NaN)."""
    return y is not None and not (isinstance(y, float) and math.isnan(y))


def _bars(bars: Sequence[Series], colors: dict[str, str], tx: Callable[[Any], float], ty: Callable[[float], float],
          ylo: float, slot: float) -> list[str]:
    """Bar series side by side in each category's slot, from zero (or the axis' bottom) up."""
    out = []
    w = slot * 0.8 / len(bars)
    for k, s in enumerate(bars):
        c = s.color or colors.get(s.name, COLORS[0])
        for x, y in zip(s.xs, s.ys):
            if not _present(y):
                continue
            left = tx(x) - slot * 0.4 + k * w
            top, base = ty(float(y)), ty(max(ylo, 0.0))
            out.append(f'<rect x="{left:.1f}" y="{min(top, base):.1f}" width="{w:.1f}" height="{abs(base - top):.1f}" '
                       f'fill="{c}"><title>{_e(s.name)}: {_e(x)} → {_e(_num(y))}</title></rect>')
    return out


def _marks(s: Series, c: str, tx: Callable[[Any], float], ty: Callable[[float], float]) -> list[str]:
    """A line, path or scatter series: its polyline and (line, scatter) a dot with a tooltip per point."""
    out = []
    pts = [(tx(x), ty(float(y)), x, y) for x, y in zip(s.xs, s.ys) if _present(y)]
    if s.kind in ("line", "path") and len(pts) > 1:
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="1.6" points="'
                   + " ".join(f"{a:.1f},{b:.1f}" for a, b, _, _ in pts) + '"/>')
    if s.kind in ("line", "scatter"):
        out += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{c}"><title>{_e(s.name)}: '
                f'{_e(_num(x))} → {_e(_num(y))}</title></circle>' for a, b, x, y in pts]
    return out


def legend_html(colors: dict[str, str]) -> str:
    """One line naming each series' colour."""
    return ('<div class="cb-legend" style="font-size:12px;margin:2px 0 6px">' + " ".join(
        f'<span style="white-space:nowrap;margin-right:12px"><span style="display:inline-block;width:10px;'
        f'height:10px;background:{c};margin-right:4px"></span>{_e(n)}</span>' for n, c in colors.items()) + "</div>")


def panels_html(panels: Sequence[Panel], caption: str = "") -> str:
    """Panels side by side (wrapping), one legend for all their series, an optional caption."""
    colors = color_map([s.name for p in panels for s in p.series if not s.color])
    fixed = {s.name: s.color for p in panels for s in p.series if s.color}
    body = "".join(f'<div style="display:inline-block;margin:0 6px 6px 0">{panel_svg(p, colors)}</div>' for p in panels)
    head = f'<div class="note">{_e(caption)}</div>' if caption else ""
    return f'<div class="cb-charts">{head}{legend_html({**colors, **fixed}) if colors or fixed else ""}<div>{body}</div></div>'
