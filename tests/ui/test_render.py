"""Page overlays: pixels show the right chunk colours, sub-element boxes, hatched overlaps, errors."""

from __future__ import annotations

import numpy as np
import pytest
from element_streams import element_documents
from hypothesis import assume, given
from hypothesis import strategies as st

import chunkbench as cb
from chunkbench.errors import InputError, UsageError
from chunkbench.ui.render import chunk_regions, position_box, render_page, render_text_view
from chunkbench.ui.render.palette import CHUNK_PALETTE, FILL_ALPHA, chunk_color, luminance
from tests.support.builders import hand_chunks
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS

MANUAL = SAMPLE_PDFS / "technical_manual.pdf"


@pytest.fixture(scope="module")
def manual():
    return cb.load(MANUAL)


def blended(color, alpha=FILL_ALPHA):
    """What a palette colour's fill looks like over white paper."""
    return np.array([255 * (1 - alpha) + c * alpha for c in color])


def test_each_chunk_region_shows_its_own_palette_colour(manual):
    chunks = cb.chunk(manual, "elements")
    page = 2
    plain = render_page(manual, None, page=page).to_array()
    img = render_page(manual, chunks, page=page)
    arr = img.to_array()
    palette = np.array([blended(c) for c in CHUNK_PALETTE])
    checked = 0
    for c in chunks:
        regions = [r for r in img.regions_of(c.index) if r.kind == "chunk" and r.label != "label"]
        if not regions:
            continue
        votes = []
        for r in regions:
            x0, y0, x1, y1 = int(r.x0) + 5, int(r.y0) + 5, int(r.x1) - 5, int(r.y1) - 5
            if x1 <= x0 or y1 <= y0:
                continue
            white = (plain[y0:y1, x0:x1] == 255).all(axis=2)
            votes.extend(arr[y0:y1, x0:x1][white].tolist())
        if len(votes) < 50:
            continue
        pixel = np.median(np.array(votes), axis=0)
        nearest = int(np.argmin(((palette - pixel) ** 2).sum(axis=1)))
        assert nearest == c.index % len(CHUNK_PALETTE), (c.index, pixel)
        assert np.abs(pixel - blended(chunk_color(c.index))).max() <= 3
        checked += 1
    assert checked >= 3


def test_page_without_chunks_has_no_overlay(manual):
    page1 = [e for e in manual.elements if e.page_idx == 0 and e.text]
    chunks = hand_chunks(manual, [(page1[0].char_start, page1[-1].char_end)])
    plain = render_page(manual, None, page=3).to_array()
    overlaid = render_page(manual, chunks, page=3)
    assert overlaid.regions == ()
    assert np.array_equal(overlaid.to_array(), plain)
    # ...while the page that has the chunk does change
    assert not np.array_equal(render_page(manual, chunks, page=1).to_array(), render_page(manual, None, page=1).to_array())


def test_chunk_ending_mid_paragraph_covers_only_part_of_it(manual):
    para = max((e for e in manual.elements if e.type == "paragraph" and e.page_idx == 0), key=lambda e: len(e.text))
    half = para.char_start + len(para.text) // 2
    chunks = hand_chunks(manual, [(para.char_start, half), (half, para.char_end)])
    first, second = (chunk_regions(manual, c) for c in chunks)
    ex0, ey0, ex1, ey1 = para.bbox
    area = (ex1 - ex0) * (ey1 - ey0)
    for boxes in (first, second):
        assert boxes
        for b in boxes:
            assert b.page == para.page_idx + 1
            assert ex0 - 0.01 <= b.x0 < b.x1 <= ex1 + 0.01 and ey0 - 0.01 <= b.y0 < b.y1 <= ey1 + 0.01
        assert sum((b.x1 - b.x0) * (b.y1 - b.y0) for b in boxes) < 0.8 * area
    # the first half starts at the top of the paragraph, the second half ends at its bottom
    assert min(b.y0 for b in first) == pytest.approx(ey0, abs=0.5)
    assert max(b.y1 for b in second) == pytest.approx(ey1, abs=0.5)
    assert max(b.y1 for b in first) <= max(b.y1 for b in second)
    # the start of the second half is the word at that character
    word = manual.text[half:].split()[0]
    start = position_box(manual, half)
    assert start is not None and start.y0 >= ey0 - 0.01 and word


def test_token_chunks_lie_within_their_elements(manual):
    chunks = cb.chunk(manual, "tokens", chunk_size=120, overlap=20)
    partial = 0
    for c in chunks:
        els = [manual.element(e) for e in c.source_blocks]
        for b in chunk_regions(manual, c):
            assert any(
                e.bbox is not None and e.page_idx + 1 == b.page and e.bbox[0] - 0.01 <= b.x0 and b.x1 <= e.bbox[2] + 0.01
                and e.bbox[1] - 0.01 <= b.y0 and b.y1 <= e.bbox[3] + 0.01 for e in els
            ), (c.index, b)
        e0 = manual.element(c.source_blocks[0])
        if e0.char_start < c.start_char:
            partial += 1
    assert partial >= 5  # token windows mostly start inside an element


def test_overlap_is_hatched(manual):
    chunks = cb.chunk(manual, "tokens", chunk_size=120, overlap=20, restart_at="none")  # one run: windows overlap
    with_overlap = render_page(manual, chunks, page=1)
    without = render_page(manual, chunks, page=1, show=("chunks", "reasons", "noise"))
    overlaps = [r for r in with_overlap.regions if r.kind == "overlap"]
    assert overlaps and all(r.chunk_index > 0 for r in overlaps)
    assert not any(r.kind == "overlap" for r in without.regions)
    a, b = with_overlap.to_array().astype(int), without.to_array().astype(int)
    r = max(overlaps, key=lambda r: r.area)
    ys, xs = slice(int(r.y0) + 2, int(r.y1) - 2), slice(int(r.x0) + 2, int(r.x1) - 2)
    changed = (np.abs(a[ys, xs] - b[ys, xs]).sum(axis=2) > 30).mean()
    assert 0.1 < changed < 0.6  # diagonal stripes, not a solid fill
    # no hatching when the windows do not overlap
    no_overlap = cb.chunk(manual, "tokens", chunk_size=120, overlap=0)
    assert not any(r.kind == "overlap" for r in render_page(manual, no_overlap, page=1).regions)


def test_noise_elements_are_drawn_and_clickable(manual):
    chunks = cb.chunk(manual, "elements")
    img = render_page(manual, chunks, page=1)
    noise = [r for r in img.regions if r.kind == "noise"]
    skipped_on_page = [e for e in chunks.skipped if manual.element(e).page_idx == 0]
    assert len(noise) == len(skipped_on_page) > 0
    r = noise[0]
    assert img.region_at((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2).kind == "noise"
    plain = render_page(manual, chunks, page=1, show=("chunks",))
    assert not any(r.kind == "noise" for r in plain.regions)


def test_region_at_maps_a_click_to_the_chunk(manual):
    chunks = cb.chunk(manual, "elements")
    img = render_page(manual, chunks, page=1)
    for c in chunks:
        regions = [r for r in img.regions_of(c.index) if r.kind == "chunk" and r.label != "label"]
        for r in regions:
            hit = img.region_at((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2)
            assert hit is not None and hit.chunk_index == c.index
    assert all(r.kind in {"chunk", "overlap", "element", "noise"} for r in img.regions)


def test_selected_chunk_has_a_thicker_outline(manual):
    chunks = cb.chunk(manual, "elements")
    base = render_page(manual, chunks, page=1).to_array().astype(int)
    sel = render_page(manual, chunks, page=1, selected=1).to_array().astype(int)
    changed = np.abs(base - sel).sum(axis=2) > 0
    r = [r for r in render_page(manual, chunks, page=1).regions_of(1) if r.kind == "chunk"]
    ys, xs = np.nonzero(changed)
    assert len(ys) > 500
    assert min(r.x0 for r in r) - 10 <= xs.min() and xs.max() <= max(r.x1 for r in r) + 10


def test_the_selected_outline_leaves_the_text_it_frames_uncovered(manual):
    """The selected chunk's 5 px outline lies outside its text (it hid each line's first and last
    letters): every ink pixel of its lines is ink still, under the chunk's light fill."""
    chunks = cb.chunk(manual, "elements")
    bare = render_page(manual, None, page=1)
    plain = bare.to_array().astype(int)
    img = render_page(manual, chunks, page=1, selected=1)  # with gutters for its labels: other pixels
    sel = img.to_array().astype(int)
    lines = [b for b in chunk_regions(manual, chunks[1]) if b.page == 1]
    assert lines
    for b in lines:
        x0, y0, x1, y1 = (int(v) for v in bare.to_pixels((b.x0, b.y0, b.x1, b.y1)))
        u0, v0 = (int(v) for v in img.to_pixels((b.x0, b.y0, b.x1, b.y1))[:2])
        ink = plain[y0:y1, x0:x1].sum(axis=2) < 150
        assert ink.sum() > 0
        assert (sel[v0:v0 + y1 - y0, u0:u0 + x1 - x0].sum(axis=2)[ink] < 250).all(), b


def test_labels_are_stacked_apart():
    from chunkbench.ui.render.overlay import free_place

    taken = [(100.0, 50.0, 180.0, 62.0)]
    moved = free_place((120.0, 55.0, 200.0, 67.0), taken)  # overlaps: goes below, a gap between
    assert moved[1] >= 62.0 + 1 and moved[0] == 120.0 and moved[3] - moved[1] == 12.0
    assert free_place((190.0, 55.0, 260.0, 67.0), taken) == (190.0, 55.0, 260.0, 67.0)  # clear of it


def test_defect_codes_on_a_page_never_cover_each_other():
    from chunkbench.evaluate.defects import find_defects
    from chunkbench.ui.render.overlay import _defect_code, free_place

    rfp = cb.load(SAMPLE_PDFS / "rfp_it_services.pdf")
    found = [f for f in find_defects(cb.chunk(rfp, "recursive", chunk_size=150)) if f.page == 4 and f.box]
    assert len(found) >= 8
    taken: list = []
    for f in found:
        taken.append(free_place(_defect_code(rfp, f, 4, 8.0).label, taken))
    for i, a in enumerate(taken):
        for b in taken[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] < b[1] or b[3] < a[1], (a, b)


def test_element_tags_of_two_parses_stay_off_the_text_and_each_other(manual):
    """05_parsers draws two parses' boxes on one page: each type tag sits where its line ends, clear
    of every element's box and of the other tags (tags above and below the boxes sat on list items)."""
    from chunkbench.ui.render.image import PageImage
    from chunkbench.ui.render.overlay import _draw_elements

    other = cb.load(MANUAL, stitch_tables=False)
    img = PageImage(manual.pdf_path, 1, 100, doc=manual)
    tags: list = []
    _draw_elements(img, manual, 1, dashed=False, tags=tags)
    _draw_elements(img, other, 1, dashed=True, tags=tags)
    boxes = [part.bbox for e in manual.elements for part in e.parts if part.page_idx == 0 and part.bbox]
    assert len(tags) == 2 * len(boxes) > 20
    apart = lambda a, b: a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]  # noqa: E731
    for i, tag in enumerate(tags):
        assert all(apart(tag, other_tag) for other_tag in tags[i + 1:]), tag
        assert all(apart(tag, (x0 + 1, y0 + 1, x1 - 1, y1 - 1)) for x0, y0, x1, y1 in boxes), tag


def test_page_image_api(manual, tmp_path):
    img = render_page(manual, None, page=1, dpi=72)
    assert (img.width, img.height) == (612, 792) and img.scale == pytest.approx(1.0) and img.page == 1
    png = img.png()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and img._repr_png_() == png
    before = img.to_array()
    out = img.draw_rect((10, 10, 50, 50), stroke="#ff0000", fill=(0, 0, 255, 255), width=2) \
             .draw_line([(60, 60), (120, 60)], stroke="#00ff00", width=3) \
             .draw_text("hello <b>", (200, 200), size=12)
    assert out is img
    arr = img.to_array()
    assert tuple(arr[30, 30]) == (0, 0, 255)
    assert tuple(arr[10, 30]) == (255, 0, 0)
    assert tuple(arr[60, 90]) == (0, 255, 0)
    assert (arr[200:215, 200:240] != before[200:215, 200:240]).any()
    path = tmp_path / "sub" / "p1.png"
    img.save(path)
    assert path.read_bytes() == img.png() and not list(path.parent.glob(".*tmp"))
    crop = img.crop((10, 10, 50, 50))
    assert (crop.width, crop.height) == (40, 40) and tuple(crop.to_array()[20, 20]) == (0, 0, 255)


def test_outline_chunk_and_chainable_calls(manual):
    chunks = cb.chunk(manual, "elements")
    img = render_page(manual, None, page=1)
    before = img.to_array()
    assert img.outline_chunk(chunks[1]).draw_rects([(0, 0, 5, 5)]) is img
    assert (img.to_array() != before).any()


def test_elements_layer_and_second_parser():
    from tests.support.paths import mineru_fixture

    folder = mineru_fixture("naacl-long-122")
    mineru = cb.load(folder / "naacl-long-122_content_list.json")
    pymu = cb.load(folder / "naacl-long-122.pdf")
    one = render_page(pymu, None, page=2, show=("elements",))
    two = render_page(pymu, None, page=2, show=("elements",), elements_of=mineru)
    # one box per part on the page: a paragraph joined across the columns has two (Element.parts)
    n_pymu = sum(1 for e in pymu.elements for p in e.parts if p.page_idx == 1 and p.bbox)
    n_mineru = sum(1 for e in mineru.elements for p in e.parts if p.page_idx == 1 and p.bbox)
    assert n_pymu > sum(1 for e in pymu.elements if e.page_idx == 1 and e.bbox)
    assert len([r for r in one.regions if r.kind == "element"]) == n_pymu
    assert len([r for r in two.regions if r.kind == "element"]) == n_pymu + n_mineru
    assert sum(r.label.startswith("other:") for r in two.regions) == n_mineru


def test_no_pdf_raises_and_points_to_the_text_view():
    doc = make_doc([{"type": "paragraph", "text": "hello"}])
    with pytest.raises(InputError, match="render_text_view"):
        render_page(doc, None, page=1)


def test_bad_arguments(manual):
    with pytest.raises(UsageError, match="unknown overlay layer"):
        render_page(manual, None, page=1, show=("chunks", "glitter"))
    with pytest.raises(InputError, match="page 99"):
        render_page(manual, None, page=99)
    other = make_doc([{"type": "paragraph", "text": "x"}])
    with pytest.raises(UsageError, match="belong to"):
        render_page(manual, hand_chunks(other, [(0, 1)]), page=1)


def test_text_view_escapes_and_marks_overlap_and_gaps():
    doc = make_doc([
        {"type": "header", "text": "Running header"},
        {"type": "paragraph", "text": "<script>alert(1)</script> first paragraph"},
        {"type": "paragraph", "text": "second <img src=x onerror=alert(2)> paragraph"},
    ])
    e = doc.elements
    chunks = hand_chunks(doc, [(e[1].char_start, e[2].char_start + 7), (e[2].char_start, e[2].char_end)])
    html = render_text_view(doc, chunks)
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    assert html.count('class="cbtv-row"') == 3  # the header before the first chunk + two chunks
    assert "cbtv-ov" in html and "also in chunk 0" in html
    assert "cbtv-gap" in html and "token_window" in html
    page = render_text_view(doc, chunks, standalone=True)
    assert page.startswith("<!DOCTYPE html>") and "http" not in page


def test_palette_separates_neighbours_in_lightness():
    for a, b in zip(CHUNK_PALETTE, CHUNK_PALETTE[1:] + CHUNK_PALETTE[:1]):
        assert abs(luminance(a) - luminance(b)) >= 50
        assert a != b


def test_no_chunk_colour_reads_as_the_defects_red():
    import colorsys

    from chunkbench.ui.render.overlay import DEFECT_COLOR

    red_hue = colorsys.rgb_to_hsv(*(c / 255 for c in DEFECT_COLOR))[0]
    for color in CHUNK_PALETTE:
        hue, saturation, _ = colorsys.rgb_to_hsv(*(c / 255 for c in color))
        distance = min(abs(hue - red_hue), 1 - abs(hue - red_hue)) * 360
        assert distance >= 25 or saturation < 0.3, color


def test_lazy_public_names():
    assert cb.render_page is render_page


@given(doc=element_documents(max_elements=25), size=st.integers(40, 400), overlap=st.integers(0, 30))
def test_text_view_shows_the_canonical_text_exactly_once(doc, size, overlap):
    """Whatever the document and chunking, the text view's text (tags stripped, entities undone) is
    the canonical text: rows run from each chunk's start to the next one's, nothing lost or doubled."""
    import html as html_mod
    import re

    assume(overlap < size)
    for chunks in (cb.chunk(doc, "elements"), cb.chunk(doc, "tokens", chunk_size=size, overlap=overlap)):
        view = render_text_view(doc, chunks)
        body = view.split('<div class="cbtv">', 1)[1]
        texts = re.findall(r'<div class="cbtv-t">(.*?)</div></div>', body, flags=re.S)
        shown = html_mod.unescape("".join(re.sub(r"<[^>]+>", "", t) for t in texts))
        assert shown == doc.text
        assert "<script" not in view


def test_crop_keeps_drawing_and_regions(manual):
    chunks = cb.chunk(manual, "elements")
    img = render_page(manual, chunks, page=1)
    r = max((r for r in img.regions if r.kind == "chunk"), key=lambda r: r.area)
    x0, y0 = img.to_points(r.x0, r.y0)
    x1, y1 = img.to_points(r.x1, r.y1)
    crop = img.crop((x0, y0, x1, y1), margin=10)
    assert abs(crop.width - (r.x1 - r.x0 + 20 * img.scale)) <= 2
    assert any(c.chunk_index == r.chunk_index and c.kind == "chunk" for c in crop.regions)
    full = img.to_array()
    ox, oy = int(round(r.x0 - 10 * img.scale)), int(round(r.y0 - 10 * img.scale))
    assert np.abs(crop.to_array().astype(int) - full[oy:oy + crop.height, ox:ox + crop.width]).mean() < 3
    sharp = img.crop((x0, y0, x1, y1), dpi=200)
    assert sharp.width == pytest.approx((x1 - x0) * 200 / 72, abs=2)


def test_renders_from_threads_match_sequential_ones(manual):
    from concurrent.futures import ThreadPoolExecutor

    chunks = cb.chunk(manual, "tokens", chunk_size=150, overlap=10)
    expected = {p: render_page(manual, chunks, page=p).to_array() for p in (1, 2, 3)}
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda p: (p, render_page(manual, chunks, page=p).to_array()), [1, 2, 3, 1, 2, 3]))
    for p, arr in got:
        assert np.array_equal(arr, expected[p])


def test_text_view_of_a_document_with_only_skipped_elements():
    doc = make_doc([{"type": "header", "text": "Header <1>"}, {"type": "page_number", "text": "1"}])
    chunks = cb.chunk(doc, "elements")
    assert len(chunks) == 0
    view = render_text_view(doc, chunks)
    assert "Header &lt;1&gt;" in view and "no chunks" in view


def test_rotated_page_word_boxes_follow_the_rotation(tmp_path):
    import pymupdf

    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    for i in range(6):
        page.insert_text((72, 100 + i * 40), f"Line {i} of a paragraph that is long enough to be cut into token windows.",
                         fontsize=11)
    page.set_rotation(90)
    pdf.save(tmp_path / "rotated.pdf")
    doc = cb.load(tmp_path / "rotated.pdf")
    chunks = cb.chunk(doc, "tokens", chunk_size=25, overlap=0)
    assert len(chunks) >= 3
    el = next(e for e in doc.elements if e.text)
    for c in chunks:
        boxes = chunk_regions(doc, c)
        assert boxes
        for b in boxes:  # inside the element, and (text runs vertically) narrower than it
            assert el.bbox[0] - 0.01 <= b.x0 < b.x1 <= el.bbox[2] + 0.01
            assert el.bbox[1] - 0.01 <= b.y0 < b.y1 <= el.bbox[3] + 0.01
    middle = chunks[1]
    assert sum(b.x1 - b.x0 for b in chunk_regions(doc, middle)) < 0.8 * (el.bbox[2] - el.bbox[0])
