"""Drawing straight onto a MuPDF draw device (PyMuPDF's low-level `mupdf` bindings).

The overlay is painted into the same pixmap right after the page's display list, without building
a PDF: opening or modifying any PyMuPDF document purges MuPDF's glyph cache, which made every page
render re-rasterise its fonts (5-10x slower). Coordinates are PDF points, origin top-left; `ctm`
maps them to pixels. Callers hold `loaders.pagewords.LOCK`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from chunkbench.loaders.pdflib import pymupdf

mu = pymupdf.mupdf

Box = tuple[float, float, float, float]


@functools.lru_cache(maxsize=1)
def _rgb_space():
    return mu.fz_device_rgb()


@functools.lru_cache(maxsize=1)
def _font():
    return mu.fz_new_base14_font("Helvetica")


@functools.lru_cache(maxsize=1)
def _color_params():
    return mu.FzColorParams()


def _floats(rgb: Sequence[int]):
    arr = mu.new_floats(3)
    for i, v in enumerate(rgb[:3]):
        mu.floats_setitem(arr, i, v / 255.0)
    return arr


def fill_rects(dev, ctm, rects: Iterable[Box], rgba: Sequence[int]) -> None:
    """Fill the union of rectangles once (nonzero winding: overlaps are not painted twice)."""
    path = mu.fz_new_path()
    n = 0
    for x0, y0, x1, y1 in rects:
        if x1 > x0 and y1 > y0:
            mu.fz_rectto(path, x0, y0, x1, y1)
            n += 1
    if n:
        _fill(dev, ctm, path, rgba)


def fill_polygon(dev, ctm, points: Sequence[tuple[float, float]], rgba: Sequence[int]) -> None:
    path = mu.fz_new_path()
    mu.fz_moveto(path, *points[0])
    for x, y in points[1:]:
        mu.fz_lineto(path, x, y)
    mu.fz_closepath(path)
    _fill(dev, ctm, path, rgba)


def _fill(dev, ctm, path, rgba: Sequence[int]) -> None:
    col = _floats(rgba)
    try:
        mu.ll_fz_fill_path(dev.m_internal, path.m_internal, 0, ctm.internal(), _rgb_space().m_internal, col,
                           rgba[3] / 255.0, _color_params().internal())
    finally:
        mu.delete_floats(col)


def stroke_lines(dev, ctm, segments: Iterable[Sequence[tuple[float, float]]], rgba: Sequence[int],
                 width: float, dash: float = 0.0) -> None:
    """Stroke polylines (each a sequence of points) `width` points wide; `dash` > 0 strokes them
    as dashes `dash` long and `dash` apart, each polyline starting with a dash (MuPDF's own dasher,
    one path for all: drawing the dashes as separate segments cost 3x more)."""
    path = mu.fz_new_path()
    n = 0
    for pts in segments:
        if len(pts) < 2:
            continue
        mu.fz_moveto(path, *pts[0])
        for x, y in pts[1:]:
            mu.fz_lineto(path, x, y)
        n += 1
    if not n:
        return
    stroke = mu.fz_new_stroke_state_with_dash_len(2 if dash > 0 else 0)
    state = stroke.m_internal
    state.linewidth = float(width)
    if dash > 0:
        state.dash_len = 2
        mu.floats_setitem(state.dash_list, 0, float(dash))
        mu.floats_setitem(state.dash_list, 1, float(dash))
    col = _floats(rgba)
    try:
        mu.ll_fz_stroke_path(dev.m_internal, path.m_internal, state, ctm.internal(),
                             _rgb_space().m_internal, col, rgba[3] / 255.0, _color_params().internal())
    finally:
        mu.delete_floats(col)


def text(dev, ctm, x: float, baseline: float, size: float, string: str, rgba: Sequence[int]) -> None:
    """`string` in Helvetica at `size` points, starting at x on `baseline` (top-left coordinates)."""
    t = mu.fz_new_text()
    trm = mu.FzMatrix(size, 0, 0, -size, x, baseline)
    mu.fz_show_string(t, _font(), trm, string, 0, 0, mu.FZ_BIDI_LTR, mu.FZ_LANG_UNSET)
    mu.fz_fill_text(dev, t, ctm, _rgb_space(), [v / 255.0 for v in rgba[:3]], rgba[3] / 255.0, _color_params())


def hatch_pixels(scale: float) -> tuple[int, int]:
    """Overlap hatching at `scale` pixels per point: (step, stroke width) in whole pixels, diagonal
    strokes every 5 points 1.1 points wide, at least 4 and 1 pixels (the raster and the SVG alike)."""
    return max(4, int(round(5.0 * scale))), max(1, int(round(1.1 * scale)))


def box_sides(box: Box) -> list[list[tuple[float, float]]]:
    """The four sides of `box` as separate segments, clockwise from the top-left corner (dashes
    restart at every corner)."""
    x0, y0, x1, y1 = box
    return [[(x0, y0), (x1, y0)], [(x1, y0), (x1, y1)], [(x1, y1), (x0, y1)], [(x0, y1), (x0, y0)]]
