"""`render_page`: a PDF page with the chunks drawn on it, so a reviewer sees where and why they cut.

Layers, bottom to top (each switched on by a name in `show`):

* `elements` – the parser's raw elements outlined in a colour per type, with a legend; with
  `elements_of=` a second parse of the same PDF (e.g. MinerU) is drawn dashed on top of it.
* `noise` – elements the strategy skipped (ChunkSet.skipped): dashed grey, labelled with the reason.
* `chunks` – each chunk's regions (sub-element precise, see `loaders/regions.py`) lightly filled and
  outlined in the chunk's palette colour, its number at the top-left.
* `overlap` – text two neighbouring chunks share (`[start_char, previous.end_char)`) hatched.
* `reasons` – where a chunk starts, a bar in its colour and its reason code next to the number;
  chunks continuing from / onto another page are marked "from p.N" / "p.N".
* `defects` – what a reviewer would object to (evaluate.defects: a lead-in apart from its table, a
  footnote inside a table piece, a cut mid-sentence, …): a red box at the place with its code.
* `gold` – where the parse disagrees with the document's structured twin (`gold=`, evaluate.gold.disagree:
  a missed or extra heading, a wrong level, a table cell that differs, blocks out of order): a violet
  box over the place's lines with its code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunkbench.errors import UsageError
from chunkbench.types.chunk import BBox, Chunk
from chunkbench.types.document import Document

from .image import PageImage, Region

if TYPE_CHECKING:
    from chunkbench.evaluate.defects import Finding
    from chunkbench.evaluate.gold.disagree import Disagreement
from chunkbench.loaders.regions import chunk_regions, position_box, span_regions

from .palette import (
    CHUNK_PALETTE,
    ELEMENT_COLORS,
    FILL_ALPHA,
    NOISE_GREY,
    OVERLAP_COLOR,
    chunk_color,
    darker,
    label_color,
    readable_on_white,
)
from .pdfpages import page_size, pdf_path_of

#: a rectangle in points (x0, y0, x1, y1): a label's or a box's place
Rect = tuple[float, float, float, float]

LAYERS = ("chunks", "elements", "reasons", "overlap", "noise", "defects", "gold")
DEFAULT_SHOW = ("chunks", "reasons", "overlap", "noise", "defects")
#: label font size in points (chunk labels sit in gutters beside the page, so they can be this big)
LABEL_SIZE = 9.0
#: widest gutter (points) beside the page for chunk labels; longer labels are shortened with "…"
GUTTER_MAX = 170.0
#: gap (points) between a gutter label and the page edge, crossed by its leader line
GUTTER_GAP = 6.0


def check_show(show: Iterable[str]) -> frozenset[str]:
    """The set of layer names, or UsageError naming the unknown ones."""
    if isinstance(show, str):
        show = (show,)
    layers = frozenset(show)
    unknown = sorted(layers - set(LAYERS))
    if unknown:
        raise UsageError(f"unknown overlay layer(s) {', '.join(unknown)}; choose from {', '.join(LAYERS)}")
    return layers


def chunks_on_page(chunks, page: int) -> list[Chunk]:
    """The chunks whose pages include `page` (1-based), in order."""
    out = []
    for c in chunks:
        if c.page_start is not None and c.page_start <= page <= (c.page_end or c.page_start) or c.page_start is None and any(b.page == page for b in c.bbox):
            out.append(c)
    return out


def render_page(doc: Document, chunks=None, page: int = 1, dpi: float = 100, show: Iterable[str] = DEFAULT_SHOW,
                *, selected: int | None = None, elements_of: Document | None = None,
                label_size: float = LABEL_SIZE, defects: Iterable[Finding] | None = None,
                cite: Any = None, gold: Iterable[Disagreement] | None = None) -> PageImage:
    """Render 1-based `page` of `doc`'s PDF at `dpi` with the `show` layers of `chunks` (a ChunkSet,
    a sequence of Chunks, or None for the bare page / raw elements). `selected` emphasises one
    chunk (by index); `elements_of` adds another parse of the same PDF as a dashed element layer;
    `label_size` is the gutter labels' font size in points (a view that shows the page smaller than
    its pixels asks for bigger ones); `defects`, the findings of `chunks` (evaluate.defects) when
    the caller has them (a report of many pages finds them once), else found here; `cite`, a
    Citation (`cb.cite`) or several, highlights exactly their words' lines on this page; `gold`, the
    disagreements of the parse with its structured twin (evaluate.gold.disagree), drawn as the `gold`
    layer (added to `show` when given).

    Raises InputError when the document has no PDF (use `render_text_view` then)."""
    layers = check_show(show) | ({"gold"} if gold is not None else set())
    _check_request(doc, chunks, page, dpi)
    path = pdf_path_of(doc)
    width, height = page_size(path, page)
    all_chunks = list(chunks) if chunks is not None else []
    on_page = chunks_on_page(all_chunks, page)
    regions = {c.index: [b for b in chunk_regions(doc, c) if b.page == page] for c in on_page}
    labels = (plan_labels(on_page, regions, page, width, with_reason="reasons" in layers, size=label_size)
              if "chunks" in layers or "reasons" in layers else [])
    codes = [_defect_code(doc, f, page, label_size) for f in _page_findings(chunks, layers, defects, page)]
    left = _gutter(labels, "left")
    right = max(_gutter(labels, "right"), _defects_gutter(codes, width))
    img = PageImage(path, page, dpi, doc=doc, page_size=(width, height), clip=(-left, 0.0, width + right, height))
    if "elements" in layers:
        _draw_element_layers(img, doc, elements_of)
    if chunks is not None:
        _draw_chunk_layers(img, doc, chunks, on_page, regions, layers, selected)
    if codes:  # in the right gutter, off its chunk labels
        _draw_defects(img, codes, label_size, [_label_rect(label, width) for label in labels if label.side == "right"])
    if "gold" in layers and gold is not None:
        _draw_gold(img, doc, gold, label_size)
    draw_quote(img, _cited_boxes(cite, page))
    for label in labels:
        _draw_label(img, label, left, width)
    return img


def _draw_chunk_layers(img: PageImage, doc: Document, chunks: Any, on_page: list, regions: dict,
                       layers: AbstractSet[str], selected: int | None) -> None:
    """What the strategy skipped, the chunks on the page (the selected one emphasised) and their overlaps."""
    if "noise" in layers:
        _draw_noise(img, doc, getattr(chunks, "skipped", {}) or {}, img.page)
    if "chunks" in layers:
        for c in on_page:
            _draw_chunk(img, c, regions[c.index], emphasis=c.index == selected)
    if "overlap" in layers:
        _draw_overlaps(img, doc, list(chunks), on_page, img.page)


def _page_findings(chunks: Any, layers: AbstractSet[str], defects: Iterable[Finding] | None, page: int) -> list[Finding]:
    """The defects drawn on `page`: of `chunks`, given or found here, with a place on the page."""
    if chunks is None or "defects" not in layers:
        return []
    found = defects if defects is not None else chunkset_defects(chunks)
    return [f for f in found if f.page == page and f.box is not None]


def _draw_element_layers(img: PageImage, doc: Document, elements_of: Document | None) -> None:
    """The parse's elements (and, dashed, another parse's of the same PDF) with their type tags kept
    apart, and the legend."""
    tags: list[Rect] = []
    _draw_elements(img, doc, img.page, dashed=False, tags=tags)
    if elements_of is not None:
        _draw_elements(img, elements_of, img.page, dashed=True, target=page_size(img.pdf_path, img.page), tags=tags)
    _legend(img, doc, elements_of, img.page)


def _check_request(doc: Document, chunks: Any, page: Any, dpi: Any) -> None:
    """A UsageError for a page that is no 1-based integer, a dpi outside 10-600, or chunks of another document."""
    if not isinstance(page, int) or isinstance(page, bool):
        raise UsageError(f"page must be a 1-based integer, got {page!r}")
    if not 10 <= float(dpi) <= 600:
        raise UsageError(f"dpi must be between 10 and 600, got {dpi!r}")
    chunk_doc = getattr(chunks, "doc", None)
    if chunk_doc is not None and chunk_doc.doc_id != doc.doc_id:
        raise UsageError(f"these chunks belong to {chunk_doc.source}, not to {doc.source}")


def _label_rect(label: Any, page_width: float) -> Rect:
    """Where a right-gutter chunk label lies, in points."""
    x = page_width + GUTTER_GAP
    return (x, label.y, x + _label_width(label), label.y + _label_height(label.size))


#: a quote's highlight: a marker's yellow over each line of its words, with a thin amber edge
QUOTE_FILL = (255, 214, 0, 120)
QUOTE_EDGE = (200, 120, 0, 255)


def draw_quote(img: PageImage, boxes: Sequence[BBox], label: str | None = None) -> PageImage:
    """Highlight `boxes` (a quote's or a reference span's line boxes on img's page), the one
    highlight of cited words: citations, the misses report's evidence."""
    on = [b for b in boxes if b.page == img.page]
    if on:
        img.draw_rects([(b.x0, b.y0, b.x1, b.y1) for b in on], stroke=QUOTE_EDGE, fill=QUOTE_FILL, width=1)
        if label:
            img.draw_text(label, (on[0].x0, max(on[0].y0 - 12, 0)), color=(255, 255, 255), size=8, background=QUOTE_EDGE)
    return img


def _cited_boxes(cite: Any, page: int) -> list[BBox]:
    if cite is None:
        return []
    citations = [cite] if hasattr(cite, "boxes") else list(cite)
    return [b for c in citations for b in c.boxes if b.page == page]


def chunkset_defects(chunks) -> list[Finding]:
    """The defects of a ChunkSet (none for a bare list of chunks: the detectors read the document)."""
    if getattr(chunks, "doc", None) is None:
        return []
    from chunkbench.evaluate.defects import find_defects

    return find_defects(chunks)


#: the colour of the defects layer: not one of the chunk colours
DEFECT_COLOR = (200, 30, 30)


#: characters before a cut whose words a mid_sentence or mid_word box outlines (a few words, not the paragraph)
CUT_WORDS_CHARS = 24


def defect_box(doc: Document, f: Finding, page: int) -> tuple[float, float, float, float]:
    """Where a finding is drawn: for a cut inside a sentence or a word, the last words before the cut
    on its page (the whole last element said nothing about where the cut is); else its own box."""
    from chunkbench.evaluate.defects import Defect

    assert f.box is not None
    if f.code not in (Defect.MID_SENTENCE, Defect.MID_WORD) or f.end_char is None or not doc.pdf_path:
        return f.box
    text_end = len(doc.text[:f.end_char].rstrip())
    words = [b for b in span_regions(doc, max(0, text_end - CUT_WORDS_CHARS), text_end) if b.page == page]
    if not words:
        return f.box
    last = words[-1]  # the line the cut is on
    return (last.x0, last.y0, last.x1, last.y1)


@dataclass(frozen=True)
class _DefectCode:
    """A finding on a page: the box drawn round its place, and where its code is written before
    stacking (right of its text, on the box's line)."""

    finding: Finding
    box: Rect
    label: Rect


def _defect_code(doc: Document, f: Finding, page: int, label_size: float) -> _DefectCode:
    x0, y0, x1, y1 = defect_box(doc, f, page)
    size = label_size * 0.85
    beside = max(x1, f.box[2]) + 4 if f.box is not None else x1 + 4  # past the element's text
    label = (beside, y0 - 1.5, beside + PageImage.text_width(f.code.value, size) + size * 0.4, y0 - 1.5 + size * 1.5)
    return _DefectCode(f, (x0, y0, x1, y1), label)


def _defects_gutter(codes: list[_DefectCode], page_width: float) -> float:
    """Width (points) right of the page that the findings' codes need, beside their lines: the codes
    go there rather than over the text above (a mid_sentence tag sat on the body text)."""
    right = max((c.label[2] for c in codes), default=page_width)
    return min(GUTTER_MAX, right - page_width + 2.0) if right > page_width else 0.0


def free_place(rect: Rect, taken: list[Rect], gap: float = 1.5, *, rightwards: bool = False) -> Rect:
    """`rect` moved down (`rightwards`: along its line) until it overlaps none of `taken` (labels
    that touched read as one word: "table_row_cutmissing")."""
    x0, y0, x1, y1 = rect
    moved = True
    while moved:
        moved = False
        for a0, b0, a1, b1 in taken:
            if x0 < a1 + gap and a0 < x1 + gap and y0 < b1 + gap and b0 < y1 + gap:
                if rightwards:
                    x0, x1 = a1 + gap, a1 + gap + (x1 - x0)
                else:
                    y0, y1 = b1 + gap, b1 + gap + (y1 - y0)
                moved = True
    return x0, y0, x1, y1


def _draw_defects(img: PageImage, codes: list[_DefectCode], label_size: float, taken: list[Rect]) -> None:
    """Each finding's place boxed in red with its code beside it, right of its line (in the right
    gutter when the line runs to the margin), below any label already there (`taken`: points)."""
    size = label_size * 0.85
    for code in codes:
        x0, y0, x1, y1 = code.box
        img.draw_rect((x0 - 1.5, y0 - 1.5, x1 + 1.5, y1 + 1.5), stroke=DEFECT_COLOR, width=2)
        at = free_place(code.label, taken)
        taken.append(at)
        img.draw_text(code.finding.code.value, at[:2], color=(255, 255, 255), size=size, background=DEFECT_COLOR)


#: the colour of the gold layer: not a chunk colour, apart from the defects' red
GOLD_COLOR = (120, 40, 170)


def _draw_gold(img: PageImage, doc: Document, found: Iterable[Disagreement], label_size: float) -> None:
    """Each disagreement with the twin on this page: its lines boxed in violet, its code above the first."""
    size = label_size * 0.85
    for d in found:
        boxes = [b for b in span_regions(doc, d.start, d.end) if b.page == img.page]
        if not boxes:
            continue
        img.draw_rects([(b.x0 - 1, b.y0 - 1, b.x1 + 1, b.y1 + 1) for b in boxes], stroke=GOLD_COLOR, width=2, dash=3)
        first = boxes[0]
        img.draw_text(d.code, (first.x0, max(first.y0 - size * 1.5 - 1, 0)), color=(255, 255, 255), size=size,
                      background=GOLD_COLOR)
        x0, y0, x1, y1 = img.to_pixels(first)
        img.add_region(Region(None, img.page, x0, y0, x1, y1, "gold", f"{d.code}: {d.detail}"))


def _draw_chunk(img: PageImage, c: Chunk, boxes: list[BBox], emphasis: bool) -> None:
    color = chunk_color(c.index)
    # the selected chunk gets a heavier, darker outline, never a heavier fill: its text stays readable
    img.draw_region(boxes, stroke=darker(color, 0.5) if emphasis else color,
                    fill=(*color, int(255 * FILL_ALPHA)), width=5 if emphasis else 2)
    for b in boxes:
        x0, y0, x1, y1 = img.to_pixels(b)
        img.add_region(Region(c.index, img.page, x0, y0, x1, y1, "chunk", c.boundary.reason.value))


def _draw_overlaps(img: PageImage, doc: Document, all_chunks: list[Chunk], on_page: list[Chunk], page: int) -> None:
    pos = {id(c): i for i, c in enumerate(all_chunks)}
    for c in on_page:
        i = pos[id(c)]
        if i == 0 or c.start_char is None:
            continue
        prev = all_chunks[i - 1]
        if prev.end_char is None or c.start_char >= prev.end_char:
            continue
        elements = [doc.element(e) for e in c.source_blocks if e in doc._by_id]
        for b in span_regions(doc, c.start_char, prev.end_char, elements):
            if b.page != page:
                continue
            img.draw_rect(b, stroke=None, hatch=(*OVERLAP_COLOR, 120))
            x0, y0, x1, y1 = img.to_pixels(b)
            img.add_region(Region(c.index, page, x0, y0, x1, y1, "overlap", f"overlap of {prev.index} and {c.index}"))


@dataclass(frozen=True)
class GutterLabel:
    """A chunk's label in the gutter left or right of the page: its text, where it points to on
    the page (`anchor`, points) and its top `y` after stacking; `start` marks where the chunk starts."""

    chunk: Chunk
    side: str
    text: str
    anchor: tuple[float, float]
    y: float
    start: BBox | None = None
    arrow: str = ""
    #: the label's font size in points
    size: float = LABEL_SIZE


def _label_height(size: float = LABEL_SIZE) -> float:
    return size * 1.15 + size * 0.4


def _shorten(text: str, size: float, room: float) -> str:
    """`text`, cut with "…" so that it sets in `room` points at `size`."""
    if PageImage.text_width(text, size) <= room:
        return text
    while text and PageImage.text_width(text + "…", size) > room:
        text = text[:-1]
    return text + "…"


def plan_labels(on_page: list[Chunk], regions: dict[int, list[BBox]], page: int, page_width: float,
                with_reason: bool, size: float = LABEL_SIZE) -> list[GutterLabel]:
    """One label per chunk on the page (number, and reason where it starts; "from p.N" where it
    continues from the previous page) plus "p.N" where it goes on to the next, in the gutter on
    the side of the page nearer to the chunk, stacked so that no two labels overlap. Labels sit
    outside the page, so they never cover its text, and a leader line joins each to its chunk."""
    wanted: list[GutterLabel] = []
    room = GUTTER_MAX - GUTTER_GAP - size
    for c in on_page:
        boxes = regions.get(c.index) or []
        if not boxes:
            continue
        first, last = boxes[0], boxes[-1]
        side = "left" if (first.x0 + first.x1) / 2 < page_width / 2 else "right"
        starts_here = c.page_start in (None, page)
        if starts_here:
            text, arrow = (f"{c.index} {c.boundary.reason.value}" if with_reason else f"{c.index}"), ""
        else:
            text, arrow = f"{c.index} from p.{page - 1}", "up"
        edge = first.x0 if side == "left" else first.x1
        wanted.append(GutterLabel(c, side, _shorten(text, size, room), (edge, first.y0 + 1),
                                  first.y0 - _label_height(size) / 2, first if starts_here and with_reason else None,
                                  arrow, size))
        if c.page_end is not None and c.page_end > page:
            edge = last.x0 if side == "left" else last.x1
            wanted.append(GutterLabel(c, side, f"{c.index} p.{page + 1}", (edge, last.y1 - 1),
                                      last.y1 - _label_height(size), None, "down", size))
    placed: list[GutterLabel] = []
    for side in ("left", "right"):
        bottom = 0.0
        for label in sorted((w for w in wanted if w.side == side), key=lambda w: (w.y, w.chunk.index)):
            y = max(label.y, bottom + 1.0, 0.0)
            placed.append(dataclasses.replace(label, y=y))
            bottom = y + _label_height(size)
    return placed


def _label_width(label: GutterLabel) -> float:
    return PageImage.text_width(label.text, label.size) + label.size * (1.2 if label.arrow else 0.4)


def _gutter(labels: list[GutterLabel], side: str) -> float:
    """Width (points) of the gutter the labels of `side` need: 0 when there are none."""
    widths = [_label_width(label) for label in labels if label.side == side]
    return min(GUTTER_MAX, max(widths) + GUTTER_GAP + 2.0) if widths else 0.0


def _draw_label(img: PageImage, label: GutterLabel, left_gutter: float, page_width: float) -> None:
    """A gutter label on the chunk's colour (text colour by WCAG contrast), its leader line to
    the chunk, and where the chunk starts here: a bar over its first line and a tick at the start."""
    color = chunk_color(label.chunk.index)
    w, h = _label_width(label), _label_height(label.size)
    x = -w - GUTTER_GAP if label.side == "left" else page_width + GUTTER_GAP
    leader_from = (x + w, label.y + h / 2) if label.side == "left" else (x, label.y + h / 2)
    img.draw_line([leader_from, label.anchor], stroke=darker(color, 0.8), width=1.2)
    if label.start is not None:
        first, bar = label.start, darker(color, 0.8)
        # just above the first line and left of its first letter: on them, they hid the letters' tops
        img.draw_hline(first.x0, first.x1, first.y0 - 1.5, stroke=bar, width=3)
        img.draw_rect((first.x0 - 2.2, first.y0 - 1.5, first.x0 - 0.2, min(first.y1, first.y0 + 12)),
                      stroke=None, fill=(*bar, 255))
    img.draw_text(label.text, (x, label.y), color=label_color(color), size=label.size,
                  background=(*color, 255), arrow=label.arrow)
    x0, y0, x1, y1 = img.to_pixels((x, label.y, x + w, label.y + h))
    img.add_region(Region(label.chunk.index, img.page, x0, y0, x1, y1, "chunk", "label"))


#: points between a skipped element's text and its dashed frame
NOISE_MARGIN = 2.5


def _draw_noise(img: PageImage, doc: Document, skipped, page: int) -> None:
    for eid, reason in skipped.items():
        try:
            e = next((p for p in doc.element(eid).parts if p.page_idx is not None and p.page_idx + 1 == page), None)
        except KeyError:
            continue
        if e is None or e.bbox is None:
            continue
        # the dashes frame the text a little away from it: drawn on a tight box they run through
        # small print like a strike-through
        x0, y0, x1, y1 = e.bbox
        box = (x0 - NOISE_MARGIN, y0 - NOISE_MARGIN, x1 + NOISE_MARGIN, y1 + NOISE_MARGIN)
        img.draw_rect(box, stroke=(*NOISE_GREY, 255), fill=(*NOISE_GREY, 30), width=1, dash=4)
        label = f"skipped: {e.type}"
        img.draw_text(label, (box[0], max(box[1] - LABEL_SIZE * 1.4, 0)), color=readable_on_white(NOISE_GREY),
                      size=LABEL_SIZE * 0.85, background=(255, 255, 255, 200))
        x0, y0, x1, y1 = img.to_pixels(e.bbox)
        img.add_region(Region(None, page, x0, y0, x1, y1, "noise", f"{e.id}: {reason}"))


def _draw_elements(img: PageImage, doc: Document, page: int, dashed: bool,
                   target: tuple[float, float] | None = None,
                   tags: list[Rect] | None = None) -> None:
    """Each element's box in its type's colour (another parse's dashed) with a type tag right of
    its first line (dashed: its last), clear of the other tags in `tags`."""
    tags = [] if tags is None else tags
    page_right = img.to_points(img.width, 0)[0]
    sx = sy = 1.0
    p = doc.page(page - 1)
    if target is not None and p is not None and p.width and p.height:
        sx, sy = target[0] / p.width, target[1] / p.height
    for e in (part for el in doc.elements for part in el.parts):
        if e.bbox is None or e.page_idx is None or e.page_idx + 1 != page:
            continue
        box = (e.bbox[0] * sx, e.bbox[1] * sy, e.bbox[2] * sx, e.bbox[3] * sy)
        color = ELEMENT_COLORS.get(e.type, ELEMENT_COLORS["other"])
        if dashed:
            img.draw_rect(box, stroke=color, width=2, dash=6)
        else:
            img.draw_rect(box, stroke=color, fill=(*color, 22), width=1)
        tag = f"{doc.parser.name}:{e.type}" if dashed else e.type
        size = LABEL_SIZE * 0.75
        tw = PageImage.text_width(tag, size) + size * 0.4
        # type tags sit right of the box, where a line ends (over a list's items they hid the text),
        # each clear of the tags already placed
        th = size * 1.55
        ty = box[3] - th if dashed else box[1]
        tx = min(box[2] + 2, page_right - tw)
        at = free_place((tx, max(ty, 0), tx + tw, max(ty, 0) + th), tags, rightwards=True)
        tags.append(at)
        img.draw_text(tag, at[:2], color=readable_on_white(color), size=size, background=(255, 255, 255, 200))
        x0, y0, x1, y1 = img.to_pixels(box)
        img.add_region(Region(None, page, x0, y0, x1, y1, "element", f"{'other:' if dashed else ''}{e.type} {e.id}"))


def _legend(img: PageImage, doc: Document, other: Document | None, page: int) -> None:
    types = []
    for d in (doc, other):
        if d is None:
            continue
        for e in (part for el in d.elements for part in el.parts):
            if e.page_idx is not None and e.page_idx + 1 == page and e.bbox is not None and e.type not in types:
                types.append(e.type)
    lines = [(t, ELEMENT_COLORS.get(t, ELEMENT_COLORS["other"])) for t in types]
    if other is not None:
        lines.append((f"solid: {doc.parser.name}, dashed: {other.parser.name}", (0, 0, 0)))
    size = LABEL_SIZE * 0.9
    width_pts = img.clip[2]
    wmax = max((PageImage.text_width(t, size) for t, _ in lines), default=0) + size * 3.5
    x, y = width_pts - wmax - 10, 6.0
    img.draw_rect((x - 2, y - 2, x + wmax + 2, y + len(lines) * size * 1.5 + 2), stroke=(90, 90, 90),
                  fill=(255, 255, 255, 230), width=1)
    for n, (t, color) in enumerate(lines):
        yy = y + n * size * 1.5
        img.draw_rect((x + 2, yy + 2, x + size + 1, yy + size + 1), stroke=color, fill=(*color, 255), width=1)
        img.draw_text(t, (x + size * 1.6, yy), color=(0, 0, 0), size=size, background=None)


__all__ = ["render_page", "DEFAULT_SHOW", "LAYERS", "chunks_on_page", "CHUNK_PALETTE"]


#: the colour of places marked on a page (reviewers' conflicts): not one of the chunk colours
MARK_COLOR = (214, 39, 40)


def mark_places(img: PageImage, doc: Document, places: Iterable[tuple[int, str]], label_size: float = LABEL_SIZE) -> None:
    """Mark canonical offsets of `doc` on `img` (its page only): a thick box around the word at
    each place, with its label above it, e.g. where two reviewers disagree about a boundary."""
    for pos, label in places:
        box = position_box(doc, pos)
        if box is None or box.page != img.page:
            continue
        img.draw_rect((box.x0 - 2, box.y0 - 2, box.x1 + 2, box.y1 + 2), stroke=MARK_COLOR, width=3)
        img.draw_text(label, (box.x0 - 2, max(0.0, box.y0 - label_size * 1.6 - 2)), color=(255, 255, 255),
                      size=label_size, background=MARK_COLOR)
