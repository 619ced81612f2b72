"""The PageImage's recorded drawing as SVG, the page itself left out (`PageImage.overlay_svg`).

`painter.py` paints the operations into the page's pixels with MuPDF; this writes the same
operations as SVG elements in PDF points, so a view that already shows the page raster (the
explorer) sends only the overlay when the chunks change: a few kilobytes of text instead of
drawing and PNG-encoding the whole page again. Fills of many rectangles are one path (nonzero
winding, as MuPDF fills them: overlaps painted once); hatching is an SVG pattern.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from .painter import hatch_pixels

Box = tuple[float, float, float, float]

#: labels are laid out with Helvetica's advance widths (glyphs.py); these faces share its metrics
FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', 'Nimbus Sans', sans-serif"


def _n(v: float) -> str:
    """A coordinate in points, to a hundredth (a hundredth of a point is under a pixel at 600 dpi)."""
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _paint(rgba: Sequence[int], attr: str) -> str:
    """`fill="#rrggbb"` (or stroke) with its opacity when not opaque."""
    out = f'{attr}="#{rgba[0]:02x}{rgba[1]:02x}{rgba[2]:02x}"'
    return out if rgba[3] >= 255 else f'{out} {attr}-opacity="{rgba[3] / 255:.3f}"'


def _rects_path(rects: Sequence[Box]) -> str:
    return "".join(f"M{_n(x0)} {_n(y0)}H{_n(x1)}V{_n(y1)}H{_n(x0)}Z" for x0, y0, x1, y1 in rects if x1 > x0 and y1 > y0)


def _hatch(box: Box, rgba: Sequence[int], scale: float, key: int) -> tuple[str, str]:
    """A pattern of diagonal strokes as `PageImage._hatch` draws them into pixels (`hatch_pixels`
    apart and wide) and the rectangle filled with it."""
    step, thick = (px / scale for px in hatch_pixels(scale))
    pid = f"cb-hatch-{key}"
    s = _n(step)
    pattern = (f'<pattern id="{pid}" patternUnits="userSpaceOnUse" width="{s}" height="{s}">'
               f'<path d="M0 {s}L{s} 0M-1 1L1 -1M{_n(step - 1)} {_n(step + 1)}L{_n(step + 1)} {_n(step - 1)}" '
               f'{_paint(rgba, "stroke")} stroke-width="{_n(thick)}"/></pattern>')
    x0, y0, x1, y1 = box
    return pattern, f'<rect x="{_n(x0)}" y="{_n(y0)}" width="{_n(x1 - x0)}" height="{_n(y1 - y0)}" fill="url(#{pid})"/>'


def ops_svg(ops: Sequence[tuple], view: Box, scale: float) -> str:
    """An SVG document of the drawing operations `ops` (PageImage's, in points) over the area
    `view` (x0, y0, x1, y1 in points): it scales with its box, so it lies exactly over a raster
    of the same area shown at the same width."""
    body: list[str] = []
    defs: list[str] = []
    for op in ops:
        kind = op[0]
        if kind == "fill":
            body.append(f'<path d="{_rects_path(op[1])}" {_paint(op[2], "fill")}/>')
        elif kind == "lines":
            d = "".join("M" + "L".join(f"{_n(x)} {_n(y)}" for x, y in pts) for pts in op[1] if len(pts) >= 2)
            dash = f' stroke-dasharray="{_n(op[4])}"' if op[4] > 0 else ""
            body.append(f'<path d="{d}" fill="none" {_paint(op[2], "stroke")} stroke-width="{_n(op[3])}"{dash}/>')
        elif kind == "poly":
            points = " ".join(f"{_n(x)},{_n(y)}" for x, y in op[1])
            body.append(f'<polygon points="{points}" {_paint(op[2], "fill")}/>')
        elif kind == "text":
            x, baseline, size, text, rgba = op[1:]
            body.append(f'<text x="{_n(x)}" y="{_n(baseline)}" font-size="{_n(size)}" {_paint(rgba, "fill")}>'
                        f"{html.escape(text)}</text>")
        elif kind == "hatch":
            pattern, rect = _hatch(op[1], op[2], scale, len(defs))
            defs.append(pattern)
            body.append(rect)
    x0, y0, x1, y1 = view
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{_n(x0)} {_n(y0)} {_n(x1 - x0)} {_n(y1 - y0)}" '
            f'width="100%" preserveAspectRatio="none" font-family="{FONT_FAMILY}" style="display:block;white-space:pre">'
            + (f"<defs>{''.join(defs)}</defs>" if defs else "") + "".join(body) + "</svg>")
