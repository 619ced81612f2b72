"""PageImage: a rendered page you can draw on (chainable, like pdfplumber's `page.to_image()`).

Drawing calls do not touch pixels: they record vector operations (in points, origin top-left).
The page is rasterised lazily and the operations are painted onto the same MuPDF draw device right
after it (`pdfpages.rasterise`, `painter.py`): fills with transparency, outlines, dashes, hatching and
label text are all done by MuPDF's C rasteriser, so an overlay costs little beyond the page itself. Widths in
drawing calls are in PIXELS (as pdfplumber's); positions and boxes in PDF points; `Region`s in
pixels of this image, for mapping clicks.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from chunkbench.errors import RenderWarning
from chunkbench.io.atomic import write_bytes
from chunkbench.types.chunk import BBox

from . import glyphs, painter
from .palette import chunk_color, parse_color
from .pdfpages import pixel_box, png_bytes, rasterise

Box = tuple[float, float, float, float]

#: the most pixels one page raster holds (3 bytes each: 150 MB); a larger page (a 200-inch poster,
#: an A0 plan at 600 dpi) is drawn at the dpi that fits, as MuPDF refuses an "overly large image"
MAX_PAGE_PIXELS = 50_000_000


def fitting_dpi(width: float, height: float, dpi: float) -> float:
    """`dpi`, lowered (to a whole number) when an area of width × height points would make more
    than MAX_PAGE_PIXELS pixels at it."""
    pixels = (width * dpi / 72.0) * (height * dpi / 72.0)
    if pixels <= MAX_PAGE_PIXELS:
        return float(dpi)
    return float(max(1, int(dpi * (MAX_PAGE_PIXELS / pixels) ** 0.5)))


@dataclass(frozen=True)
class Region:
    """A drawn area in PIXELS of its PageImage: what a click at (x, y) hits.

    `kind` is chunk, overlap, element, noise, gold (render_page) or boundary (diff drawings);
    `chunk_index` is the chunk's index (None for element and noise regions); `label` names the
    reason, the element ("type id") or the skip reason ("id: why")."""

    chunk_index: int | None
    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    kind: str
    label: str = ""

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    @property
    def area(self) -> float:
        return max(self.x1 - self.x0, 0.0) * max(self.y1 - self.y0, 0.0)


def _as_box(bbox: Any) -> Box:
    """(x0, y0, x1, y1) in points from a BBox, a dict, a pymupdf.Rect or a 4-sequence."""
    if isinstance(bbox, BBox):
        return (bbox.x0, bbox.y0, bbox.x1, bbox.y1)
    if isinstance(bbox, dict):
        return (float(bbox["x0"]), float(bbox["y0"]), float(bbox["x1"]), float(bbox["y1"]))
    x0, y0, x1, y1 = (float(v) for v in tuple(bbox)[:4])
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _disjoint(rects: Sequence[Box]) -> list[Box]:
    """The union of rectangles as disjoint rectangles: horizontal bands of merged x-runs, with
    consecutive bands of the same runs joined (so a union is filled once, in few rectangles)."""
    ys = sorted({y for r in rects for y in (r[1], r[3])})
    rows: list[tuple[float, float, list[tuple[float, float]]]] = []
    for top, bottom in zip(ys, ys[1:]):
        runs: list[tuple[float, float]] = []
        for x0, x1 in sorted((r[0], r[2]) for r in rects if r[1] <= top and r[3] >= bottom):
            if runs and x0 <= runs[-1][1]:
                runs[-1] = (runs[-1][0], max(runs[-1][1], x1))
            else:
                runs.append((x0, x1))
        if not runs:
            continue
        if rows and rows[-1][1] == top and rows[-1][2] == runs:
            rows[-1] = (rows[-1][0], bottom, runs)
        else:
            rows.append((top, bottom, runs))
    return [(x0, top, x1, bottom) for top, bottom, runs in rows for x0, x1 in runs]


def _band_edges(bands: Sequence[Box], w: float) -> list[Box]:
    """Outline of a union given as disjoint bands (from `_disjoint`): `w`-wide strips along every
    run's left and right side, and along the parts of its top / bottom that no touching band covers."""
    rows: dict[tuple[float, float], list[tuple[float, float]]] = {}
    for x0, y0, x1, y1 in bands:
        rows.setdefault((y0, y1), []).append((x0, x1))
    keys = sorted(rows)
    out = []
    for k, (top, bottom) in enumerate(keys):
        above = rows[keys[k - 1]] if k and keys[k - 1][1] == top else []
        below = rows[keys[k + 1]] if k + 1 < len(keys) and keys[k + 1][0] == bottom else []
        for x0, x1 in rows[(top, bottom)]:
            out.append((x0, top, min(x0 + w, x1), bottom))
            out.append((max(x1 - w, x0), top, x1, bottom))
            out.extend((a, top, b, min(top + w, bottom)) for a, b in _subtract(x0, x1, above))
            out.extend((a, max(bottom - w, top), b, bottom) for a, b in _subtract(x0, x1, below))
    return out


def _outline_strips(box: Box, width: float) -> list[Box]:
    """A box's outline as four strips inside it (exact corners, no line joins)."""
    x0, y0, x1, y1 = box
    w = min(width, (x1 - x0) / 2, (y1 - y0) / 2)
    return [(x0, y0, x1, y0 + w), (x0, y1 - w, x1, y1), (x0, y0 + w, x0 + w, y1 - w), (x1 - w, y0 + w, x1, y1 - w)]


def _subtract(x0: float, x1: float, runs: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Parts of [x0, x1) not covered by `runs` (sorted, disjoint)."""
    out, pos = [], x0
    for a, b in runs:
        if b <= pos or a >= x1:
            continue
        if a > pos:
            out.append((pos, a))
        pos = max(pos, b)
    if pos < x1:
        out.append((pos, x1))
    return out


class PageImage:
    """One rendered page plus what is drawn on it.

    `width`/`height` in pixels, `scale` in pixels per PDF point, `page` 1-based, `regions` the
    clickable areas. Drawing methods return the PageImage so calls chain; `png()`, `save(path)`,
    `to_array()` and `_repr_png_()` (Jupyter) rasterise page and drawing together (once, cached
    until the next drawing call)."""

    def __init__(self, pdf_path: str, page: int, dpi: float, *, doc=None, clip: Box | None = None,
                 page_size: tuple[float, float] | None = None, regions: Iterable[Region] = ()):
        self._path = pdf_path
        self.page = int(page)
        self.scale = float(dpi) / 72.0
        self.doc = doc
        if clip is None:
            from .pdfpages import page_size as _size

            w, h = page_size or _size(pdf_path, page)
            clip = (0.0, 0.0, w, h)
        self.clip: Box = tuple(float(v) for v in clip)  # type: ignore[assignment]
        fitted = fitting_dpi(self.clip[2] - self.clip[0], self.clip[3] - self.clip[1], dpi)
        if fitted < dpi:
            asked = (self.clip[2] - self.clip[0]) * (self.clip[3] - self.clip[1]) * (dpi / 72.0) ** 2
            warnings.warn(f"{pdf_path}: page {self.page} drawn at {fitted:.0f} dpi, not {dpi:g}: its image would "
                          f"hold {asked:,.0f} pixels, above the bound of {MAX_PAGE_PIXELS:,}", RenderWarning, stacklevel=2)
            dpi = fitted
            self.scale = dpi / 72.0
        self._pixbox = pixel_box(self.clip, dpi)
        self._ops: list[tuple] = []
        self._pixels: np.ndarray | None = None
        self._regions: list[Region] = list(regions)

    # --- basic properties ------------------------------------------------------------------
    @property
    def width(self) -> int:
        return int(self._pixbox[2] - self._pixbox[0])

    @property
    def height(self) -> int:
        return int(self._pixbox[3] - self._pixbox[1])

    @property
    def dpi(self) -> float:
        return self.scale * 72.0

    @property
    def origin(self) -> tuple[float, float]:
        """Top-left of this image in points (not 0, 0 for crops)."""
        return (self._pixbox[0] / self.scale, self._pixbox[1] / self.scale)

    @property
    def regions(self) -> tuple[Region, ...]:
        return tuple(self._regions)

    def __repr__(self) -> str:
        return (f"<PageImage page={self.page} {self.width}x{self.height}px scale={self.scale:.3f} "
                f"regions={len(self._regions)} ops={len(self._ops)}>")

    # --- coordinates -----------------------------------------------------------------------
    def to_pixels(self, bbox: Any) -> Box:
        """A box in points → the same box in this image's pixels (float)."""
        x0, y0, x1, y1 = _as_box(bbox)
        s = self.scale
        ox, oy = self._pixbox[0], self._pixbox[1]
        return (x0 * s - ox, y0 * s - oy, x1 * s - ox, y1 * s - oy)

    def to_points(self, x: float, y: float) -> tuple[float, float]:
        """A pixel position (e.g. a click) → PDF points."""
        return ((x + self._pixbox[0]) / self.scale, (y + self._pixbox[1]) / self.scale)

    # --- the overlay -------------------------------------------------------------------------
    def _op(self, *op) -> None:
        self._ops.append(op)
        self._pixels = None

    def _fill(self, rgba, rects: Sequence[Box]) -> None:
        if rgba is not None and rgba[3] > 0 and rects:
            self._op("fill", list(rects), tuple(rgba))

    def _lines(self, rgba, segments, width_pts: float, dash_pts: float = 0.0) -> None:
        if rgba is not None and rgba[3] > 0 and segments:
            self._op("lines", list(segments), tuple(rgba), float(width_pts), float(dash_pts))

    def _paint(self, dev, ctm) -> None:
        """Replay the recorded operations onto a MuPDF draw device (called by `rasterise`)."""
        for op in self._ops:
            kind = op[0]
            if kind == "fill":
                painter.fill_rects(dev, ctm, op[1], op[2])
            elif kind == "lines":
                painter.stroke_lines(dev, ctm, op[1], op[2], op[3], op[4])
            elif kind == "poly":
                painter.fill_polygon(dev, ctm, op[1], op[2])
            elif kind == "text":
                painter.text(dev, ctm, *op[1:])

    def _hatch(self, box: Box, rgba: Sequence[int]) -> None:
        """Diagonal hatching blended into the pixels with numpy (after the vector overlay: as many
        thin diagonal strokes it costs MuPDF several times more)."""
        x0, y0, x1, y1 = (int(round(v)) for v in self.to_pixels(box))
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, self.width), min(y1, self.height)
        if x1 <= x0 or y1 <= y0:
            return
        step, thick = painter.hatch_pixels(self.scale)
        yy, xx = np.ogrid[y0:y1, x0:x1]
        mask = ((xx + yy) % step) < thick
        assert self._pixels is not None, "hatching runs on the rasterised page"
        view = self._pixels[y0:y1, x0:x1]
        a = rgba[3]
        sel = view[mask].astype(np.uint16)
        view[mask] = ((sel * (255 - a) + np.array(rgba[:3], dtype=np.uint16) * a + 127) // 255).astype(np.uint8)

    def _on_page(self, bbox: Any) -> bool:
        return not (isinstance(bbox, BBox) and bbox.page != self.page)

    # --- public drawing calls (points in, self out) ----------------------------------------
    def draw_rect(self, bbox: Any, stroke: Any = "red", fill: Any = None, width: float = 1,
                  *, dash: float = 0, hatch: Any = None) -> PageImage:
        """Fill (`fill`, with alpha) and/or outline (`stroke`, `width` px, inside the box, `dash`
        px segments) a box given in points; `hatch` a colour draws diagonal hatching.
        Colours: '#rrggbb[aa]', a name, (r, g, b) or (r, g, b, a) in 0-255."""
        if not self._on_page(bbox):
            return self
        x0, y0, x1, y1 = _as_box(bbox)
        if x1 <= x0 or y1 <= y0:
            return self
        self._fill(parse_color(fill, default_alpha=60), [(x0, y0, x1, y1)])
        hatch_c = parse_color(hatch, default_alpha=150)
        if hatch_c is not None and hatch_c[3] > 0:
            self._op("hatch", (x0, y0, x1, y1), tuple(hatch_c))
        stroke_c = parse_color(stroke)
        if stroke_c is not None and width > 0:
            if dash:
                w = min(width / self.scale, (x1 - x0) / 2, (y1 - y0) / 2)
                inset = (x0 + w / 2, y0 + w / 2, x1 - w / 2, y1 - w / 2)
                self._lines(stroke_c, painter.box_sides(inset), w, dash / self.scale)
            else:
                self._fill(stroke_c, _outline_strips((x0, y0, x1, y1), width / self.scale))
        return self

    def draw_rects(self, bboxes: Iterable[Any], stroke: Any = "red", fill: Any = None, width: float = 1,
                   *, dash: float = 0, hatch: Any = None) -> PageImage:
        """`draw_rect` for each box; solid fills and outlines are batched into one path each
        (overlapping fills of one call are painted once, not darkened)."""
        boxes = [_as_box(b) for b in bboxes if self._on_page(b)]
        boxes = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]
        if dash or hatch is not None:
            for box in boxes:
                self.draw_rect(box, stroke=stroke, fill=fill, width=width, dash=dash, hatch=hatch)
            return self
        self._fill(parse_color(fill, default_alpha=60), boxes)
        stroke_c = parse_color(stroke)
        if stroke_c is not None and width > 0:
            self._fill(stroke_c, [s for box in boxes for s in _outline_strips(box, width / self.scale)])
        return self

    def draw_region(self, bboxes: Sequence[Any], stroke: Any = "red", fill: Any = None, width: float = 2,
                    *, pad: float = 1.5, bridge: float = 24.0) -> PageImage:
        """Fill and outline the UNION of boxes (points) as one shape: each box grown by `pad`
        points, and consecutive boxes of the same column less than `bridge` points apart joined, so
        a chunk reads as one frame (a text-selection shape when it starts or ends mid-line). The
        outline lies inside the shape, which grows by at least its width: it never covers a box's
        edge (a selected chunk's 5 px outline hid each line's first and last letters)."""
        boxes = [_as_box(b) for b in bboxes if self._on_page(b)]
        if not boxes:
            return self
        pad = max(pad, width / self.scale + 0.25) if width > 0 else pad
        rects = [(x0 - pad, y0 - pad, x1 + pad, y1 + pad) for x0, y0, x1, y1 in boxes]
        for a, b in zip(rects, rects[1:]):
            gap = b[1] - a[3]
            lo, hi = max(a[0], b[0]), min(a[2], b[2])
            if 0 < gap <= bridge and hi > lo:
                rects.append((lo, a[3], hi, b[1]))
        bands = _disjoint(rects)
        self._fill(parse_color(fill, default_alpha=60), bands)
        if width > 0:
            self._fill(parse_color(stroke), _band_edges(bands, width / self.scale))
        return self

    def draw_line(self, points: Sequence[Any], stroke: Any = "red", width: float = 1) -> PageImage:
        """A polyline through `points` ((x, y) in points; or one (x0, y0, x1, y1)); `width` px."""
        pts = list(points)
        if len(pts) == 4 and all(isinstance(v, (int, float)) for v in pts):
            pts = [(pts[0], pts[1]), (pts[2], pts[3])]
        if len(pts) < 2:
            return self
        self._lines(parse_color(stroke), [[(float(x), float(y)) for x, y in pts]], width / self.scale)
        return self

    def draw_hline(self, x0: float, x1: float, y: float, stroke: Any = "red", width: float = 2) -> PageImage:
        """A horizontal bar from x0 to x1 at y (points), `width` pixels thick, centred on y."""
        h = width / self.scale
        self._fill(parse_color(stroke), [(x0, y - h / 2, x1, y + h / 2)])
        return self

    def outline_chunk(self, chunk, stroke: Any = None, width: float = 3, fill: Any = None) -> PageImage:
        """Outline a chunk's regions on this page (sub-element precision); colour: the chunk's own."""
        from chunkbench.loaders.regions import chunk_regions

        if self.doc is None:
            raise ValueError("outline_chunk needs a PageImage made by render_page (it knows the document)")
        color = stroke if stroke is not None else chunk_color(chunk.index)
        return self.draw_region(chunk_regions(self.doc, chunk), stroke=color, fill=fill, width=width)

    def draw_text(self, text: str, xy: Sequence[float], color: Any = "black", size: float = 8,
                  background: Any = (255, 255, 255, 210), *, arrow: str = "") -> PageImage:
        """Text with its top-left at `xy` (points), `size` in points (Helvetica; characters outside
        Windows-1252 show as '?'), on an optional background box; `arrow` "up"/"down" puts a small
        triangle before it."""
        text = glyphs.clean(str(text))
        x, y = float(xy[0]), float(xy[1])
        pad = size * 0.2
        aw = size * 0.8 if arrow else 0.0
        tw = glyphs.text_width(text, size)
        rgb = parse_color(color) or (0, 0, 0, 255)
        bg = parse_color(background, default_alpha=210)
        if bg is not None:
            self._fill(bg, [(x, y, x + aw + tw + 2 * pad, y + size * 1.15 + 2 * pad)])
        if arrow:
            cx, cy, h = x + pad + aw * 0.45, y + pad + size * 0.58, size * 0.35
            tri = ([(cx - h, cy + h * 0.7), (cx + h, cy + h * 0.7), (cx, cy - h * 0.9)] if arrow == "up"
                   else [(cx - h, cy - h * 0.7), (cx + h, cy - h * 0.7), (cx, cy + h * 0.9)])
            self._op("poly", tri, tuple(rgb))
        self._op("text", x + pad + aw, y + pad + size * 0.9, float(size), text, tuple(rgb))
        return self

    @staticmethod
    def text_width(text: str, size: float) -> float:
        """Width in points of `text` as draw_text sets it (Helvetica at `size` points)."""
        return glyphs.text_width(glyphs.clean(str(text)), size)

    def add_region(self, region: Region) -> PageImage:
        self._regions.append(region)
        return self

    # --- output ----------------------------------------------------------------------------
    def to_array(self) -> np.ndarray:
        """The pixels, (height, width, 3) uint8 RGB (a copy)."""
        return self._render().copy()

    def _render(self) -> np.ndarray:
        if self._pixels is None:
            vector = [op for op in self._ops if op[0] != "hatch"]
            self._pixels = rasterise(self._path, self.page, self.dpi, self._paint if vector else None,
                                     clip=self.clip)
            for op in self._ops:
                if op[0] == "hatch":
                    self._hatch(op[1], op[2])
        return self._pixels

    def png(self) -> bytes:
        """The image as PNG bytes."""
        return png_bytes(self._render())

    def _repr_png_(self) -> bytes:
        return self.png()

    def overlay_svg(self) -> str:
        """What is drawn on the page without the page: an SVG over exactly this image's area, for a
        view that shows the page raster once and only the overlay on each change (the explorer)."""
        from .svgpaint import ops_svg

        x0, y0, x1, y1 = self._pixbox
        s = self.scale
        return ops_svg(self._ops, (x0 / s, y0 / s, x1 / s, y1 / s), s)

    @property
    def pdf_path(self) -> str:
        """The PDF this page is drawn from."""
        return self._path

    @property
    def pixel_box(self) -> tuple[int, int, int, int]:
        """This image's area in pixels of the whole page at its dpi (x0, y0, x1, y1): negative x0
        where a gutter lies left of the page."""
        return tuple(int(v) for v in self._pixbox)  # type: ignore[return-value]

    def save(self, path: str | os.PathLike) -> PageImage:
        """Write the PNG atomically."""
        write_bytes(path, self.png())
        return self

    # --- regions ---------------------------------------------------------------------------
    def region_at(self, x: float, y: float,
                  kinds: Sequence[str] = ("chunk", "overlap", "noise", "element")) -> Region | None:
        """The region under pixel (x, y): the first kind in `kinds` that has one, smallest first."""
        for kind in kinds:
            hits = [r for r in self._regions if r.kind == kind and r.contains(x, y)]
            if hits:
                return min(hits, key=lambda r: r.area)
        return None

    def regions_of(self, chunk_index: int) -> list[Region]:
        return [r for r in self._regions if r.chunk_index == chunk_index]

    def crop(self, bbox: Any, margin: float = 0.0, dpi: float | None = None) -> PageImage:
        """A new PageImage of the box (points, plus `margin` points around it), with the drawing so
        far and the regions moved into it; `dpi` renders the crop sharper (e.g. a zoomed boundary)."""
        x0, y0, x1, y1 = _as_box(bbox)
        c = self.clip
        clip = (max(x0 - margin, c[0]), max(y0 - margin, c[1]), min(x1 + margin, c[2]), min(y1 + margin, c[3]))
        if clip[2] <= clip[0] or clip[3] <= clip[1]:
            raise ValueError(f"crop box {bbox!r} is outside the page")
        out = PageImage(self._path, self.page, dpi or self.dpi, doc=self.doc, clip=clip)
        out._ops = list(self._ops)
        k = out.scale / self.scale
        for r in self._regions:
            px0, py0 = self.to_points(r.x0, r.y0)
            px1, py1 = self.to_points(r.x1, r.y1)
            nx0, ny0, nx1, ny1 = out.to_pixels((px0, py0, px1, py1))
            nx0, ny0 = max(nx0, 0.0), max(ny0, 0.0)
            nx1, ny1 = min(nx1, float(out.width)), min(ny1, float(out.height))
            if nx1 > nx0 and ny1 > ny0 and k > 0:
                out._regions.append(Region(r.chunk_index, r.page, nx0, ny0, nx1, ny1, r.kind, r.label))
        return out
