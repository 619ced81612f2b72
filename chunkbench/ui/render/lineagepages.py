"""Drawing a lineage (chunkbench.evaluate.lineage) on the pages of two versions: each chunk filled in
the colour of what became of it (the old version) or of where it came from (the new one), tagged
with its index and kind, as the boundary diff draws two settings of one version."""

from __future__ import annotations

from chunkbench.evaluate.lineage import KINDS, Lineage
from chunkbench.types.chunkset import ChunkSet

from .image import PageImage, Region
from .overlay import LABEL_SIZE, chunks_on_page, render_page
from .palette import DIFF_A, DIFF_B, DIFF_SAME

#: one colour per lineage kind: kept green, changed orange, new blue, gone red
KIND_COLORS = {
    "unchanged": DIFF_SAME, "moved": (60, 160, 150), "edited": DIFF_B, "split": (200, 130, 0),
    "merged": (150, 90, 170), "added": DIFF_A, "removed": (190, 30, 40),
}
assert set(KIND_COLORS) == set(KINDS)
#: tag size in points: two versions side by side show each page at half the width, so 12 pt reads at 11 px
TAG_SIZE = LABEL_SIZE * 4 / 3
#: the side of a lineage a chunk set is
SIDES = ("old", "new")


def kinds_by_chunk(result: Lineage, side: str) -> dict[str, str]:
    """chunk id → its link's kind, for the old or the new side."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {', '.join(SIDES)}, got {side!r}")
    return {cid: link.kind for link in result.links for cid in (link.old if side == "old" else link.new)}


def render_lineage(result: Lineage, chunks: ChunkSet, page: int, side: str, dpi: float = 100) -> PageImage:
    """Page `page` of one version (`chunks` is the lineage's old or new set, `side` says which) with
    each chunk on it filled in its kind's colour and tagged "12 edited" in the left margin; regions
    of kind "chunk" carry the chunk index and its lineage kind."""
    kind_of = kinds_by_chunk(result, side)
    img = render_page(chunks.doc, None, page=page, dpi=dpi)
    size = TAG_SIZE
    for c in chunks_on_page(chunks.chunks, page):
        kind = kind_of.get(c.chunk_id, "unchanged")
        color = KIND_COLORS[kind]
        boxes = [b for b in c.bbox if b.page == page]
        if not boxes:
            continue
        img.draw_region(boxes, stroke=color, fill=(*color, 45 if kind in ("unchanged", "moved") else 90), width=2)
        tag = f"{c.index} {kind}"
        first = boxes[0]
        w, h = PageImage.text_width(tag, size) + size * 0.4, size * 1.55
        x, y = max(first.x0 - w - 3, 1), max(first.y0, 0)
        img.draw_text(tag, (x, y), color=(255, 255, 255), size=size, background=(*color, 235))
        img.add_region(Region(c.index, page, *img.to_pixels((x, y, x + w, y + h)), "chunk", kind))
    return img


def changed_pages(result: Lineage, chunks: ChunkSet, side: str) -> list[int]:
    """The pages of one version holding a chunk that is not unchanged, in order."""
    kind_of = kinds_by_chunk(result, side)
    pages: set[int] = set()
    for c in chunks.chunks:
        if kind_of.get(c.chunk_id, "unchanged") != "unchanged":
            pages.update(b.page for b in c.bbox)
    return sorted(pages)
