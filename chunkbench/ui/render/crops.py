"""Boundary crops: the band of a page around where a chunk starts (the review app's picture of
a boundary), with the previous page's end stacked above when the boundary crosses a page."""

from __future__ import annotations

from chunkbench.types.chunkset import ChunkSet


def boundary_png(chunkset: ChunkSet, index: int, dpi: int = 110) -> bytes | None:
    """The page where chunk `index` starts, overlay drawn with that chunk selected, cropped to a
    band around the boundary (the end of the previous chunk above, the new chunk below). When the
    previous chunk ends on an earlier page, the bottom of that page is stacked above the top of
    this one, with a strip naming both pages."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont

    from .overlay import render_page
    from .pdfpages import png_bytes

    c = chunkset.chunks[index]
    doc = chunkset.doc
    if c.page_start is None or not doc.pdf_path:
        return None
    img = render_page(doc, chunkset, page=c.page_start, dpi=dpi, selected=index)
    pixels = img.to_array()
    height, width = pixels.shape[:2]
    tops = [r.y0 for r in img.regions if r.chunk_index == index and r.kind in ("chunk", "boundary")]
    y = min(tops) if tops else 0
    band = min(height, max(int(height * 0.45), 320))
    prev = chunkset.chunks[index - 1] if index > 0 else None
    if prev is None or prev.page_end is None or prev.page_end >= c.page_start:
        top = int(max(0, min(y - band * 0.4, height - band)))
        return png_bytes(pixels[top:top + band])
    half = band // 2
    pimg = render_page(doc, chunkset, page=prev.page_end, dpi=dpi, selected=index)
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
    return png_bytes(np.asarray(out_img))
