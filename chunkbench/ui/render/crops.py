"""Boundary crops: the band of a page around where a chunk starts (the review app's picture of
a boundary), with the previous page's end stacked above when the boundary crosses a page. A crop
knows which page and point each of its pixels shows, so a click on it names a word."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chunkbench.types.chunkset import ChunkSet


@dataclass(frozen=True)
class CropBand:
    """Rows [y0, y1) of a crop show `page`: crop pixel (x, y) is point
    (origin_x + (x - dx) / scale, origin_y + (y - y0 + top) / scale)."""

    page: int
    y0: int
    y1: int
    top: int
    dx: int
    origin_x: float
    origin_y: float
    scale: float


@dataclass(frozen=True)
class BoundaryCrop:
    """A boundary's picture (PNG) and where on which page each band of it lies."""

    png: bytes
    bands: tuple[CropBand, ...]

    def to_page(self, x: float, y: float) -> tuple[int, float, float] | None:
        """Crop pixel (x, y) → (1-based page, x, y in points), or None (the strip between pages)."""
        for b in self.bands:
            if b.y0 <= y < b.y1:
                return b.page, b.origin_x + (x - b.dx) / b.scale, b.origin_y + (y - b.y0 + b.top) / b.scale
        return None

    def to_pixel(self, page: int, x: float, y: float) -> tuple[float, float] | None:
        """Point (x, y) of 1-based `page` → crop pixel (the inverse of `to_page`), or None when
        the crop does not show that page."""
        for b in self.bands:
            if b.page == page:
                return (x - b.origin_x) * b.scale + b.dx, (y - b.origin_y) * b.scale - b.top + b.y0
        return None


def _band(img, y0: int, y1: int, top: int, dx: int = 0) -> CropBand:
    ox, oy = img.to_points(0.0, 0.0)
    return CropBand(img.page, y0, y1, top, dx, ox, oy, img.scale)


def boundary_crop(chunkset: ChunkSet, index: int, dpi: int = 110,
                  marks: Sequence[tuple[int, str]] = (), defects: Sequence | None = None) -> BoundaryCrop | None:
    """The page where chunk `index` starts, overlay drawn with that chunk selected, its defects
    boxed (`defects`: the chunking's findings when the caller has them) and `marks`
    (canonical offset, label: reviewers' conflicts) marked, cropped to a band around the boundary
    (the end of the previous chunk above, the new chunk below). When the previous chunk ends on an
    earlier page, the bottom of that page is stacked above the top of this one, with a strip
    naming both pages. None when the chunk has no page or the document no PDF."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    from .overlay import mark_places, render_page
    from .pdfpages import png_bytes

    c = chunkset.chunks[index]
    doc = chunkset.doc
    if c.page_start is None or not doc.pdf_path:
        return None
    img = render_page(doc, chunkset, page=c.page_start, dpi=dpi, selected=index, defects=defects)
    mark_places(img, doc, marks)
    pixels = img.to_array()
    height, width = pixels.shape[:2]
    tops = [r.y0 for r in img.regions if r.chunk_index == index and r.kind in ("chunk", "boundary")]
    y = min(tops) if tops else 0
    band = min(height, max(int(height * 0.45), 320))
    prev = chunkset.chunks[index - 1] if index > 0 else None
    if prev is None or prev.page_end is None or prev.page_end >= c.page_start:
        top = int(max(0, min(y - band * 0.4, height - band)))
        shown = pixels[top:top + band]
        return BoundaryCrop(png_bytes(shown), (_band(img, 0, shown.shape[0], top),))
    half = band // 2
    pimg = render_page(doc, chunkset, page=prev.page_end, dpi=dpi, selected=index, defects=defects)
    mark_places(pimg, doc, marks)
    ppil = Image.fromarray(pimg.to_array())
    bottoms = [r.y1 for r in pimg.regions if r.chunk_index == prev.index and r.kind == "chunk"]
    yb = max(bottoms) if bottoms else ppil.size[1]
    ptop = int(max(0, min(yb - half * 0.85, ppil.size[1] - half)))
    ctop = int(max(0, min(y - half * 0.15, height - half)))
    strip = 18
    out_img = Image.new("RGB", (width, 2 * half + strip), (235, 235, 235))
    shift = round((pimg.clip[0] - img.clip[0]) * img.scale)  # the pages' label gutters may differ
    out_img.paste(ppil.crop((0, ptop, ppil.size[0], ptop + half)), (shift, 0))
    out_img.paste(Image.fromarray(pixels[ctop:ctop + half]), (0, half + strip))
    draw = ImageDraw.Draw(out_img)
    font = ImageFont.load_default(size=13)
    draw.text((8, half + 2), f"above: end of page {prev.page_end}   |   below: page {c.page_start}", fill=(50, 50, 50), font=font)
    bands = (_band(pimg, 0, half, ptop, shift), _band(img, half + strip, 2 * half + strip, ctop))
    return BoundaryCrop(png_bytes(np.asarray(out_img)), bands)
