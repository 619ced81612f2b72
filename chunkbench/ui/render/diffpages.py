"""Drawing a boundary diff (chunkbench.evaluate.diff) on a page: the two configurations' boundaries
in two colours, shared ones in a third, moved pairs joined."""

from __future__ import annotations

from chunkbench.evaluate.diff import BoundaryDiff
from chunkbench.loaders.regions import element_at, position_box

from .image import PageImage, Region
from .overlay import LABEL_SIZE, free_place, render_page
from .palette import DIFF_A, DIFF_B, DIFF_SAME


def render_diff(d: BoundaryDiff, page: int, dpi: float = 100):
    """Page `page` with every boundary on it: a's tagged in blue in the left margin, b's in orange
    in the right margin, shared ones in green ("a3 vanished", "b4 appeared", "a5 moved to p.3");
    each with a bar just above its line and a tick at the exact character; a moved pair is
    joined by a grey line. Regions of kind "boundary" carry the chunk index of a (of b for
    appeared boundaries)."""
    img = render_page(d.doc, None, page=page, dpi=dpi)
    size = LABEL_SIZE  # the overlay's label size: >= 11 CSS px where the report shows the page at its width
    page_w = img.width / img.scale
    taken: list[tuple[float, float, float, float]] = []  # the tags drawn: the next one keeps off them

    def mark(pos, box, color, tag, side, index, label):
        e = element_at(d.doc, pos)
        left = min(e.bbox[0], box.x0) if e is not None and e.bbox else box.x0
        right = max(e.bbox[2], box.x1) if e is not None and e.bbox else box.x1
        w = PageImage.text_width(tag, size) + size * 0.4
        h = size * 1.55
        top = box.y0 - 1.2  # in the gap above the line: a bar at the glyphs' height struck the text through
        if side == "left":
            x = max(left - w - 3, 1)
            img.draw_hline(x + w, max(box.x1, box.x0 + 24), top, stroke=color, width=2)
        else:
            x = min(right + 3, page_w - w - 1)
            img.draw_hline(box.x0, x, top, stroke=color, width=2)
        img.draw_rect((box.x0 - 2.2, top, box.x0 - 0.2, box.y1), stroke=None, fill=(*color, 255))  # left of the letter
        x, y, _, _ = free_place((x, max(top - h / 2, 0), x + w, max(top - h / 2, 0) + h), taken)
        taken.append((x, y, x + w, y + h))
        img.draw_text(tag, (x, y), color=(255, 255, 255), size=size, background=(*color, 235))
        img.add_region(Region(index, page, *img.to_pixels((x, y, x + w, y + h)), "boundary", label))

    for r in d.rows:
        pa = r["position"] if r["status"] != "appeared" else None
        pb = r["position_b"]
        box_a = position_box(d.doc, pa) if pa is not None else None
        box_b = position_box(d.doc, pb) if pb is not None else None
        if r["status"] == "stayed":
            if box_a is not None and box_a.page == page:
                mark(pa, box_a, DIFF_SAME, f"= a{r['chunk_a']} b{r['chunk_b']}", "left", r["chunk_a"], "stayed")
            continue
        if box_a is not None and box_a.page == page:
            where = f" to p.{box_b.page}" if box_b is not None and box_b.page != page else ""
            mark(pa, box_a, DIFF_A, f"a{r['chunk_a']} {r['status']}{where}", "left",
                 r["chunk_a"], r["status"])
        if box_b is not None and box_b.page == page:
            where = f" from p.{box_a.page}" if box_a is not None and box_a.page != page else ""
            mark(pb, box_b, DIFF_B, f"b{r['chunk_b']} {r['status']}{where}", "right",
                 r["chunk_b"] if r["status"] == "appeared" else r["chunk_a"], r["status"])
        if r["status"] == "moved" and box_a is not None and box_b is not None and box_a.page == box_b.page == page:
            img.draw_line([(box_a.x0, box_a.y1), (box_b.x0, box_b.y1)], stroke=(90, 90, 90), width=1)
    return img
