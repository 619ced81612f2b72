"""PageImage: a rendered page you can draw on (chainable, like pdfplumber's `page.to_image()`).

Shapes are blended straight into the page's pixel array with numpy (fills, outlines, dashes,
hatching): exact, deterministic and fast. Text labels are queued and drawn in one go on a blank
overlay page by PyMuPDF (real fonts, no other imaging library), rasterised with alpha at the same
scale and blended into the label boxes only. Coordinates given to drawing calls are PDF points
(origin top-left, as element and chunk bboxes); `Region`s are pixels, for mapping clicks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np
import pymupdf

from ..atomic import write_bytes
from ..chunks import BBox
from .palette import chunk_color, parse_color

REGION_KINDS = ("chunk", "overlap", "element", "noise", "boundary")


@dataclass(frozen=True)
class Region:
    """A drawn area in PIXELS of its PageImage: what a click at (x, y) hits.

    `kind` is chunk, overlap, element, noise or boundary; `chunk_index` is the chunk's index
    (None for element and noise regions); `label` names the element id / type or the reason."""

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


@dataclass
class _Text:
    text: str
    x: float  # points
    y: float
    size: float
    color: tuple[int, int, int, int]
    background: tuple[int, int, int, int] | None
    arrow: str = ""  # "up" / "down": a small triangle before the text


def _as_box(bbox: Any) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) in points from a BBox, a dict, a pymupdf.Rect or a 4-sequence."""
    if isinstance(bbox, BBox):
        return (bbox.x0, bbox.y0, bbox.x1, bbox.y1)
    if isinstance(bbox, dict):
        return (float(bbox["x0"]), float(bbox["y0"]), float(bbox["x1"]), float(bbox["y1"]))
    x0, y0, x1, y1 = (float(v) for v in tuple(bbox)[:4])
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _disjoint(rects: Sequence[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """The union of integer rectangles as disjoint rectangles (horizontal bands of merged x-runs),
    so a union is blended exactly once."""
    ys = sorted({y for r in rects for y in (r[1], r[3])})
    out = []
    for top, bottom in zip(ys, ys[1:]):
        runs = sorted((r[0], r[2]) for r in rects if r[1] <= top and r[3] >= bottom)
        cur = None
        for x0, x1 in runs:
            if cur is not None and x0 <= cur[1]:
                cur[1] = max(cur[1], x1)
            else:
                if cur is not None:
                    out.append((cur[0], top, cur[1], bottom))
                cur = [x0, x1]
        if cur is not None:
            out.append((cur[0], top, cur[1], bottom))
    return out


def _latin1(text: str) -> str:
    """Base-14 Helvetica covers Latin-1; other characters become '?' so a label never breaks."""
    return text.encode("latin-1", "replace").decode("latin-1")


class PageImage:
    """One rendered page plus what was drawn on it.

    `width`/`height` in pixels, `scale` in pixels per PDF point, `page` 1-based, `regions` the
    clickable areas. Drawing methods return the PageImage so calls chain; `png()`, `save(path)`
    and `_repr_png_()` (Jupyter) give the result."""

    def __init__(self, pixels: np.ndarray, *, scale: float, page: int, doc=None,
                 origin: tuple[float, float] = (0.0, 0.0), regions: Iterable[Region] = ()):
        self._px = np.array(pixels[:, :, :3], dtype=np.uint8, copy=True, order="C")
        self.scale = float(scale)
        self.page = int(page)
        self.doc = doc
        self.origin = (float(origin[0]), float(origin[1]))
        self._regions: list[Region] = list(regions)
        self._texts: list[_Text] = []

    # --- basic properties ------------------------------------------------------------------
    @property
    def width(self) -> int:
        return int(self._px.shape[1])

    @property
    def height(self) -> int:
        return int(self._px.shape[0])

    @property
    def dpi(self) -> float:
        return self.scale * 72.0

    @property
    def regions(self) -> tuple[Region, ...]:
        return tuple(self._regions)

    def __repr__(self) -> str:
        return f"<PageImage page={self.page} {self.width}x{self.height}px scale={self.scale:.3f} regions={len(self._regions)}>"

    # --- coordinates -----------------------------------------------------------------------
    def to_pixels(self, bbox: Any) -> tuple[float, float, float, float]:
        """A box in points → the same box in this image's pixels (float)."""
        x0, y0, x1, y1 = _as_box(bbox)
        ox, oy = self.origin
        s = self.scale
        return ((x0 - ox) * s, (y0 - oy) * s, (x1 - ox) * s, (y1 - oy) * s)

    def to_points(self, x: float, y: float) -> tuple[float, float]:
        """A pixel position → PDF points (e.g. a click)."""
        return (x / self.scale + self.origin[0], y / self.scale + self.origin[1])

    def _ipx(self, bbox: Any) -> tuple[int, int, int, int] | None:
        x0, y0, x1, y1 = self.to_pixels(bbox)
        ix0, iy0 = max(int(np.floor(x0)), 0), max(int(np.floor(y0)), 0)
        ix1, iy1 = min(int(np.ceil(x1)), self.width), min(int(np.ceil(y1)), self.height)
        if ix1 <= ix0 or iy1 <= iy0:
            return None
        return ix0, iy0, ix1, iy1

    # --- pixel primitives ------------------------------------------------------------------
    def _blend(self, ys: slice, xs: slice, rgba: tuple[int, int, int, int], mask: np.ndarray | None = None) -> None:
        """Alpha-blend a colour into a slice of the pixels: the whole slice through per-channel lookup
        tables, or (sparse `mask`: outlines, hatching, dashes) only the masked pixels."""
        r, g, b, a = rgba
        if a <= 0:
            return
        view = self._px[ys, xs]
        if view.size == 0:
            return
        color = np.array((r, g, b), dtype=np.uint32)
        if mask is not None:
            idx = np.nonzero(mask)
            if a >= 255:
                view[idx] = color.astype(np.uint8)
            else:
                sel = view[idx].astype(np.uint32)
                view[idx] = ((sel * (255 - a) + color * a + 127) // 255).astype(np.uint8)
            return
        if a >= 255:
            view[...] = color.astype(np.uint8)
            return
        levels = np.arange(256, dtype=np.uint32)
        for ch in range(3):
            lut = ((levels * (255 - a) + int(color[ch]) * a + 127) // 255).astype(np.uint8)
            view[..., ch] = lut[view[..., ch]]

    def _outline(self, box: tuple[int, int, int, int], rgba, width: int, dash: int = 0) -> None:
        x0, y0, x1, y1 = box
        w = max(1, min(width, (x1 - x0 + 1) // 2, (y1 - y0 + 1) // 2))
        edges = [
            (slice(y0, y0 + w), slice(x0, x1), 1), (slice(y1 - w, y1), slice(x0, x1), 1),
            (slice(y0 + w, y1 - w), slice(x0, x0 + w), 0), (slice(y0 + w, y1 - w), slice(x1 - w, x1), 0),
        ]
        for ys, xs, horizontal in edges:
            mask = None
            if dash:
                if horizontal:
                    n = xs.stop - xs.start
                    on = (np.arange(n) // dash) % 2 == 0
                    mask = np.broadcast_to(on[None, :], (max(ys.stop - ys.start, 0), n))
                else:
                    n = max(ys.stop - ys.start, 0)
                    on = ((np.arange(n) + w) // dash) % 2 == 0
                    mask = np.broadcast_to(on[:, None], (n, xs.stop - xs.start))
            self._blend(ys, xs, rgba, mask)

    def _hatch(self, box: tuple[int, int, int, int], rgba, spacing: int = 7, thickness: int = 2) -> None:
        x0, y0, x1, y1 = box
        yy, xx = np.ogrid[y0:y1, x0:x1]
        mask = ((xx + yy) % spacing) < thickness
        self._blend(slice(y0, y1), slice(x0, x1), rgba, mask)

    # --- public drawing calls (points in, self out) ----------------------------------------
    def draw_rect(self, bbox: Any, stroke: Any = "red", fill: Any = None, width: float = 1,
                  *, dash: float = 0, hatch: Any = None) -> "PageImage":
        """Outline (`stroke`, `width` px, `dash` px segments) and/or fill (`fill`, with alpha) a box
        given in points; `hatch` a colour draws diagonal hatching. Colours: '#rrggbb[aa]', a name,
        (r, g, b) or (r, g, b, a)."""
        if isinstance(bbox, BBox) and bbox.page != self.page:
            return self
        box = self._ipx(bbox)
        if box is None:
            return self
        fill_c = parse_color(fill, default_alpha=60)
        if fill_c is not None:
            self._blend(slice(box[1], box[3]), slice(box[0], box[2]), fill_c)
        hatch_c = parse_color(hatch, default_alpha=150)
        if hatch_c is not None:
            self._hatch(box, hatch_c, spacing=max(5, int(round(7 * self.scale / 1.39))))
        stroke_c = parse_color(stroke)
        if stroke_c is not None and width > 0:
            self._outline(box, stroke_c, int(round(width)), int(round(dash)))
        return self

    def draw_region(self, bboxes: Sequence[Any], stroke: Any = "red", fill: Any = None, width: float = 2,
                    *, pad: float = 1.5, bridge: float = 24.0) -> "PageImage":
        """Fill and outline the UNION of boxes (points) as one shape: each box grown by `pad`
        points, and consecutive boxes of the same column less than `bridge` points apart joined, so
        a chunk reads as one frame (a text-selection shape when it starts or ends mid-line)."""
        boxes = [_as_box(b) for b in bboxes if not (isinstance(b, BBox) and b.page != self.page)]
        if not boxes:
            return self
        rects = [(x0 - pad, y0 - pad, x1 + pad, y1 + pad) for x0, y0, x1, y1 in boxes]
        for a, b in zip(rects, rects[1:]):
            gap = b[1] - a[3]
            lo, hi = max(a[0], b[0]), min(a[2], b[2])
            if 0 < gap <= bridge and hi > lo:
                rects.append((lo, a[3] - 0.5, hi, b[1] + 0.5))
        px = [self._ipx(r) for r in rects]
        px = [p for p in px if p is not None]
        if not px:
            return self
        X0, Y0 = min(p[0] for p in px), min(p[1] for p in px)
        X1, Y1 = max(p[2] for p in px), max(p[3] for p in px)
        mask = np.zeros((Y1 - Y0, X1 - X0), dtype=bool)
        for x0, y0, x1, y1 in px:
            mask[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0] = True
        ys, xs = slice(Y0, Y1), slice(X0, X1)
        fill_c = parse_color(fill, default_alpha=60)
        if fill_c is not None:
            for x0, y0, x1, y1 in _disjoint(px):
                self._blend(slice(y0, y1), slice(x0, x1), fill_c)
        stroke_c = parse_color(stroke)
        if stroke_c is not None and width > 0:
            inner = mask.copy()
            for _ in range(max(1, int(round(width)))):
                shrunk = np.zeros_like(inner)
                shrunk[1:-1, 1:-1] = inner[1:-1, 1:-1] & inner[:-2, 1:-1] & inner[2:, 1:-1] & inner[1:-1, :-2] & inner[1:-1, 2:]
                inner = shrunk
            self._blend(ys, xs, stroke_c, mask & ~inner)
        return self

    def draw_rects(self, bboxes: Iterable[Any], stroke: Any = "red", fill: Any = None, width: float = 1,
                   *, dash: float = 0, hatch: Any = None) -> "PageImage":
        """`draw_rect` for each box."""
        for bbox in bboxes:
            self.draw_rect(bbox, stroke=stroke, fill=fill, width=width, dash=dash, hatch=hatch)
        return self

    def draw_line(self, points: Sequence[Any], stroke: Any = "red", width: float = 1) -> "PageImage":
        """A polyline through `points` ((x, y) in points; or one (x0, y0, x1, y1))."""
        pts = list(points)
        if len(pts) == 4 and all(isinstance(v, (int, float)) for v in pts):
            pts = [(pts[0], pts[1]), (pts[2], pts[3])]
        rgba = parse_color(stroke)
        w = max(1, int(round(width)))
        for (ax, ay), (bx, by) in zip(pts, pts[1:]):
            px0, py0, px1, py1 = self.to_pixels((ax, ay, bx, by))
            if ax > bx:
                px0, px1 = px1, px0
            if ay > by:
                py0, py1 = py1, py0
            n = int(max(abs(px1 - px0), abs(py1 - py0))) + 1
            xs = np.rint(np.linspace(px0, px1, n)).astype(int)
            ys = np.rint(np.linspace(py0, py1, n)).astype(int)
            mask = np.zeros((self.height, self.width), dtype=bool)
            half = w // 2
            for dx in range(-half, w - half):
                for dy in range(-half, w - half):
                    x = np.clip(xs + dx, 0, self.width - 1)
                    y = np.clip(ys + dy, 0, self.height - 1)
                    mask[y, x] = True
            self._blend(slice(None), slice(None), rgba, mask)
        return self

    def draw_hline(self, x0: float, x1: float, y: float, stroke: Any = "red", width: float = 2) -> "PageImage":
        """A horizontal bar from x0 to x1 at y (points), `width` pixels thick, centred on y."""
        (px0, py, px1, _) = self.to_pixels((x0, y, x1, y))
        w = max(1, int(round(width)))
        top = int(round(py)) - w // 2
        ys = slice(max(top, 0), max(min(top + w, self.height), 0))
        xs = slice(max(int(px0), 0), max(min(int(np.ceil(px1)), self.width), 0))
        self._blend(ys, xs, parse_color(stroke))
        return self

    def outline_chunk(self, chunk, stroke: Any = None, width: float = 3, fill: Any = None) -> "PageImage":
        """Outline a chunk's regions on this page (sub-element precision); colour: the chunk's own."""
        from .regions import chunk_regions

        if self.doc is None:
            raise ValueError("outline_chunk needs a PageImage made by render_page (it knows the document)")
        color = stroke if stroke is not None else chunk_color(chunk.index)
        for box in chunk_regions(self.doc, chunk):
            if box.page == self.page:
                self.draw_rect(box, stroke=color, fill=fill, width=width)
        return self

    def draw_text(self, text: str, xy: Sequence[float], color: Any = "black", size: float = 8,
                  background: Any = (255, 255, 255, 210), *, arrow: str = "") -> "PageImage":
        """Text with its top-left at `xy` (points), `size` in points, on an optional background box."""
        self._texts.append(_Text(_latin1(str(text)), float(xy[0]), float(xy[1]), float(size),
                                 parse_color(color), parse_color(background, default_alpha=210), arrow))
        return self

    @staticmethod
    def text_width(text: str, size: float) -> float:
        """Width in points of `text` as draw_text sets it (Helvetica)."""
        return pymupdf.get_text_length(_latin1(text), fontname="helv", fontsize=size)

    def add_region(self, region: Region) -> "PageImage":
        self._regions.append(region)
        return self

    # --- text labels: one overlay page for all of them -------------------------------------
    def _flush(self) -> None:
        if not self._texts:
            return
        texts, self._texts = self._texts, []
        wpt, hpt = self.width / self.scale, self.height / self.scale
        tmp = pymupdf.open()
        try:
            page = tmp.new_page(width=wpt, height=hpt)
            boxes = []
            for t in texts:
                pad = t.size * 0.2
                aw = t.size * 0.8 if t.arrow else 0.0
                tw = self.text_width(t.text, t.size) + aw
                x = t.x - self.origin[0]
                y = t.y - self.origin[1]
                rect = pymupdf.Rect(x, y, x + tw + 2 * pad, y + t.size * 1.15 + 2 * pad)
                col = tuple(c / 255 for c in t.color[:3])
                if t.background is not None:
                    page.draw_rect(rect, color=None, fill=tuple(c / 255 for c in t.background[:3]),
                                   fill_opacity=t.background[3] / 255, width=0)
                if t.arrow:
                    cx, cy, h = x + pad + aw * 0.45, y + pad + t.size * 0.58, t.size * 0.35
                    tri = ([(cx - h, cy + h * 0.7), (cx + h, cy + h * 0.7), (cx, cy - h * 0.9)] if t.arrow == "up"
                           else [(cx - h, cy - h * 0.7), (cx + h, cy - h * 0.7), (cx, cy + h * 0.9)])
                    page.draw_polyline(tri + [tri[0]], color=None, fill=col, width=0, closePath=True)
                page.insert_text((x + pad + aw, y + pad + t.size * 0.9), t.text, fontsize=t.size,
                                 fontname="helv", color=col)
                boxes.append(rect)
            # one display list, rasterised only inside each label's box (not the whole page)
            dlist = page.get_displaylist()
            matrix = pymupdf.Matrix(self.scale, self.scale)
            for rect in boxes:
                x0, y0 = max(int(rect.x0 * self.scale), 0), max(int(rect.y0 * self.scale), 0)
                x1 = min(int(np.ceil(rect.x1 * self.scale)) + 1, self.width)
                y1 = min(int(np.ceil(rect.y1 * self.scale)) + 1, self.height)
                if x1 <= x0 or y1 <= y0:
                    continue
                clip = pymupdf.IRect(x0, y0, x1, y1)
                pix = dlist.get_pixmap(matrix=matrix, alpha=True, clip=pymupdf.Rect(clip) / self.scale)
                src = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 4)
                px0, py0 = pix.x, pix.y
                sx0, sy0 = max(x0 - px0, 0), max(y0 - py0, 0)
                h, w = min(pix.height - sy0, y1 - y0), min(pix.width - sx0, x1 - x0)
                if h <= 0 or w <= 0:
                    continue
                src = src[sy0:sy0 + h, sx0:sx0 + w]
                a = src[:, :, 3:4].astype(np.uint16)
                # MuPDF's alpha pixmaps are premultiplied: out = src + dst * (1 - a)
                dst = self._px[y0:y0 + h, x0:x0 + w].astype(np.uint16)
                self._px[y0:y0 + h, x0:x0 + w] = np.minimum(src[:, :, :3] + (dst * (255 - a) + 127) // 255, 255).astype(np.uint8)
        finally:
            tmp.close()

    # --- output ----------------------------------------------------------------------------
    def to_array(self) -> np.ndarray:
        """A copy of the pixels, (height, width, 3) uint8 RGB."""
        self._flush()
        return self._px.copy()

    def png(self) -> bytes:
        """The image as PNG bytes."""
        self._flush()
        pix = pymupdf.Pixmap(pymupdf.csRGB, self.width, self.height, self._px.tobytes(), False)
        return pix.tobytes("png")

    def _repr_png_(self) -> bytes:
        return self.png()

    def save(self, path: str | os.PathLike) -> "PageImage":
        """Write the PNG atomically."""
        write_bytes(path, self.png())
        return self

    # --- regions ---------------------------------------------------------------------------
    def region_at(self, x: float, y: float, kinds: Sequence[str] = ("chunk", "overlap", "noise", "element")) -> Region | None:
        """The region under pixel (x, y): the first kind in `kinds` that has one, smallest first."""
        for kind in kinds:
            hits = [r for r in self._regions if r.kind == kind and r.contains(x, y)]
            if hits:
                return min(hits, key=lambda r: r.area)
        return None

    def regions_of(self, chunk_index: int) -> list[Region]:
        return [r for r in self._regions if r.chunk_index == chunk_index]

    def crop(self, bbox: Any, margin: float = 0.0) -> "PageImage":
        """A new PageImage of the box (points, plus `margin` points around it); regions shifted."""
        self._flush()
        x0, y0, x1, y1 = _as_box(bbox)
        box = self._ipx((x0 - margin, y0 - margin, x1 + margin, y1 + margin))
        if box is None:
            raise ValueError(f"crop box {bbox!r} is outside the page")
        ix0, iy0, ix1, iy1 = box
        regions = []
        for r in self._regions:
            nx0, ny0 = max(r.x0, ix0) - ix0, max(r.y0, iy0) - iy0
            nx1, ny1 = min(r.x1, ix1) - ix0, min(r.y1, iy1) - iy0
            if nx1 > nx0 and ny1 > ny0:
                regions.append(Region(r.chunk_index, r.page, nx0, ny0, nx1, ny1, r.kind, r.label))
        origin = self.to_points(ix0, iy0)
        return PageImage(self._px[iy0:iy1, ix0:ix1], scale=self.scale, page=self.page, doc=self.doc,
                         origin=origin, regions=regions)
