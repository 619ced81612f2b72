"""A reviewer splits a chunk or moves its boundary by clicking a word, on the page (the
review app's crop, the explorer's page) or in the text; conflicts between reviewers are marked on
the page. Driven through the Python API the clicks call; tests/ui/test_review_browser.py clicks in a
real browser."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

import chunkbench as cb
from chunkbench.app.chunking import add_edit
from chunkbench.db.edits import edits_of
from chunkbench.errors import UsageError
from chunkbench.loaders.regions import position_at, position_box
from chunkbench.strategies.edits import make_edit_at, resolve
from chunkbench.ui.render.crops import boundary_crop
from chunkbench.ui.render.overlay import MARK_COLOR
from tests.support.paths import SAMPLE_PDFS, SHARED_PDFS

CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"


@pytest.fixture(scope="module")
def contract():
    doc = cb.load(CONTRACT)
    return doc, cb.chunk(doc, "elements")


def _words(doc, start: int = 0, end: int | None = None) -> list[int]:
    return [start + m.start() for m in re.finditer(r"\S+", doc.text[start:end])]


def _centre(box) -> tuple[float, float]:
    return (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2


def _crop_pixel(crop, page: int, x: float, y: float) -> tuple[float, float]:
    """Where point (x, y) of `page` shows in a boundary crop."""
    pixel = crop.to_pixel(page, x, y)
    assert pixel is not None, f"the crop does not show page {page}"
    return pixel


@pytest.mark.parametrize("path", [
    SAMPLE_PDFS / "contract_services_agreement.pdf",
    SAMPLE_PDFS / "financial_annual_report.pdf",  # ligatures: "ﬀ" on the page, "ff" in the text
    SHARED_PDFS / "paper_hotos17-baumann.pdf",  # two columns
    SHARED_PDFS / "legal_ukgov-example-mutual-nda.pdf",
])
def test_a_click_on_a_word_names_that_word(path):
    if not path.exists():
        pytest.skip(f"{path.name} is not here")
    doc = cb.load(path)
    text_elements = {e.id for e in doc.elements if e.type not in ("table", "picture", "formula")}
    checked, wrong = 0, []
    for pos in _words(doc)[::5][:600]:
        e = doc.element_at(pos)
        if e is None or e.id not in text_elements:
            continue
        box = position_box(doc, pos)
        if box is None:
            continue
        checked += 1
        hit = position_at(doc, box.page, *_centre(box))
        if hit != pos:
            wrong.append((doc.text[pos:pos + 20], None if hit is None else doc.text[hit:hit + 20]))
    assert checked > 100
    # a word the layout model cut in two (a hyphenated line end) may answer with its first half
    assert len(wrong) <= checked * 0.02, wrong[:10]
    # the margin of the page holds no word
    assert position_at(doc, 1, 1.0, 1.0) is None


def test_an_edit_at_a_word_splits_or_moves_exactly_there(contract):
    doc, cs = contract
    c = cs.chunks[5]
    words = _words(doc, c.start_char, c.end_char)
    mid = words[len(words) // 2] + 1  # inside a word: the word's start is meant
    split = make_edit_at(cs, "split", 5, mid, reviewer="kim")
    assert resolve(doc, split.at) == words[len(words) // 2]
    edited = cb.chunk(doc, "elements", edits=[split])
    assert len(edited) == len(cs) + 1
    assert edited.chunks[6].start_char == words[len(words) // 2]
    prev = _words(doc, cs.chunks[4].start_char, c.start_char)
    move = make_edit_at(cs, "move", 5, prev[-2], reviewer="kim")
    moved = cb.chunk(doc, "elements", edits=[move])
    assert len(moved) == len(cs) and moved.chunks[5].start_char == prev[-2]
    assert moved.chunks[5].boundary.reason.value == "reviewer_edit"
    with pytest.raises(UsageError, match="nothing to split"):
        make_edit_at(cs, "split", 5, words[0])  # its first word is already the boundary
    with pytest.raises(UsageError, match="not a new place"):
        make_edit_at(cs, "move", 5, cs.chunks[2].start_char + 1)  # a word two chunks back
    with pytest.raises(UsageError, match="outside the text"):
        make_edit_at(cs, "split", 5, len(doc.text) + 5)


def test_the_crop_maps_each_of_its_pixels_back_to_the_page(contract):
    doc, cs = contract
    same = next(c.index for c in cs if c.index > 2 and cs[c.index - 1].page_end == c.page_start)
    crossing = next(c.index for c in cs if c.index and cs[c.index - 1].page_end < c.page_start)
    for index in (same, crossing):
        crop = boundary_crop(cs, index, 110)
        pages = {b.page for b in crop.bands}
        assert pages == {cs[index].page_start, cs[index - 1].page_end}
        c = cs[index]
        pos = _words(doc, c.start_char, c.end_char)[1]
        box = position_box(doc, pos)
        assert position_at(doc, *crop.to_page(*_crop_pixel(crop, box.page, *_centre(box)))) == pos
    crop = boundary_crop(cs, crossing, 110)
    strip_y = crop.bands[0].y1 + 5  # the grey strip naming both pages
    assert crop.to_page(10, strip_y) is None


def test_the_review_app_picks_the_clicked_word_then_splits_or_moves(contract, tmp_path):
    from chunkbench.ui.reviews.app import ReviewApp

    doc, cs = contract
    ws = tmp_path / "ws.db"
    app = ReviewApp(cs, reviewer="ana", workspace=ws)
    app.session.go_to(5)
    c = app.session.chunkset.chunks[5]
    target = _words(doc, c.start_char, c.end_char)[3]
    box = position_box(doc, target)
    assert app.click_image(*_crop_pixel(app._crop, box.page, *_centre(box))) == target
    assert not app.split_here_b.disabled and not app.move_here_b.disabled
    assert "in this chunk" in app.pick_note.object
    assert edits_of(doc, "elements", ws) == []  # a plain click only picks
    app.split_here_b.clicks += 1  # the user presses "split before the picked word"
    assert len(app.session.chunkset) == len(cs) + 1 and app.session.current == 6
    assert app.session.chunkset.chunks[6].start_char == target
    # in the text below the page: a shift-click on a word of the chunk before moves the boundary there
    before = [int(p) for p in re.findall(r'data-pos="(\d+)"', app.before.html)]
    assert before and all(app.session.chunkset.chunks[5].start_char <= p < app.session.chunkset.chunks[6].start_char for p in before)
    app._on_word_click(before[-2], shift=True)
    kinds = [e.kind for e in edits_of(doc, "elements", ws)]
    assert kinds == ["split", "move"]
    assert app.session.chunkset.chunks[app.session.current].start_char == before[-2]
    # ana moved the cut she made herself: that takes it back, it is no disagreement
    assert app.session.edit_messages == [] and len(app.session.chunkset) == len(cs) + 1
    # a click where there is no word says so and picks nothing
    assert app.click_image(1, 1) is None and "No word" in app.pick_note.object


def test_a_reviewer_who_undoes_their_own_cut_is_no_conflict(contract):
    from chunkbench.strategies.edits import apply_edits, make_edit

    doc, cs = contract
    merge = make_edit(cs, "merge", 5, reviewer="ana")
    merged = apply_edits(cs, [merge]).chunkset
    holder = next(c.index for c in merged if c.start_char < cs.chunks[5].start_char < c.end_char)
    undo = make_edit_at(merged, "split", holder, cs.chunks[5].start_char, reviewer="ana")
    out = apply_edits(cs, [merge, undo])
    assert not out.conflicts and [c.start_char for c in out.chunkset] == [c.start_char for c in cs]
    other = apply_edits(cs, [merge, make_edit_at(merged, "split", holder, cs.chunks[5].start_char, reviewer="ben")])
    assert len(out.chunkset) == len(cs) and len(other.conflicts) == 2


def test_the_words_of_the_text_panes_are_escaped(tmp_path):
    from chunkbench.ui.reviews.app import ReviewApp

    md = tmp_path / "evil.md"
    md.write_text("# T\n\n" + "<script>alert(1)</script> word " * 30 + "\n\nSecond <b>para</b>.\n", encoding="utf-8")
    cs = cb.chunk(cb.load(md), "elements", max_chunk_size=80)
    app = ReviewApp(cs, reviewer="x", workspace=tmp_path / "ws.db")
    app.session.go_to(2)
    shown = app.before.html + app.after.html
    assert "&lt;script&gt;" in shown and "<script" not in shown and "<b>" not in shown


def test_conflicts_are_marked_on_the_page(contract, tmp_path):
    """Ana merges chunk 5 into 4; Ben, who sees the merged chunk, splits it again at that word:
    neither edit applies, and both apps draw the disputed word in the conflict colour."""
    from PIL import Image

    from chunkbench.ui.explorer import Explorer
    from chunkbench.ui.reviews.app import ReviewApp

    doc, cs = contract
    ws = tmp_path / "ws.db"
    place = cs.chunks[5].start_char
    add_edit(cs, "merge", 5, reviewer="ana", workspace=ws)
    merged = cb.chunk(doc, "elements", edits="apply", workspace=ws)
    holder = next(c.index for c in merged if c.start_char < place < c.end_char)
    add_edit(merged, "split", holder, at=place, reviewer="ben", workspace=ws)
    app = ReviewApp(cs, reviewer="cy", workspace=ws)
    assert app.session.conflict_places and app.session.conflict_places[0][0] == place
    assert "ana: merge" in app.session.conflict_places[0][1] and "ben: split" in app.session.conflict_places[0][1]
    app.session.go_to(5)
    box = position_box(doc, place)
    crop = Image.open(io.BytesIO(app._crop.png)).convert("RGB")
    x, y = _crop_pixel(app._crop, box.page, box.x0 - 1, box.y0 - 1)  # the mark's outline, just outside the word
    patch = np.asarray(crop)[int(y) - 3:int(y) + 4, int(x) - 3:int(x) + 4].reshape(-1, 3)
    assert any(tuple(p) == MARK_COLOR for p in patch)
    fresh = ReviewApp(cs, reviewer="cy", workspace=tmp_path / "none.db")
    fresh.session.go_to(5)
    plain = np.asarray(Image.open(io.BytesIO(fresh._crop.png)).convert("RGB"))
    assert not (plain == np.asarray(MARK_COLOR)).all(axis=2).any()  # no conflict, no mark
    ex = Explorer(doc, workspace=ws, reviewer="cy")
    ex.state.go_to_page(box.page)
    page = ex.image.to_array()[..., :3]
    px0, py0, px1, py1 = ex.image.to_pixels((box.x0 - 2, box.y0 - 2, box.x1 + 2, box.y1 + 2))
    assert (page[int(py0):int(py1) + 1, int(px0):int(px1) + 1] == np.asarray(MARK_COLOR)).all(axis=2).any()


def test_the_explorer_splits_at_a_shift_clicked_word_and_moves_at_an_alt_click(contract, tmp_path):
    from chunkbench.ui.explorer import Explorer

    doc, cs = contract
    ws = tmp_path / "ws.db"
    ex = Explorer(doc, workspace=ws, reviewer="dee")
    c = ex.state.chunkset.chunks[5]
    ex.state.go_to_page(c.page_start)
    target = _words(doc, c.start_char, c.end_char)[4]
    box = position_box(doc, target)
    x0, y0, x1, y1 = ex.image.to_pixels((box.x0, box.y0, box.x1, box.y1))
    # ipyevents gives pixels of the page's raster, which starts where the drawing's left gutter ends
    gutter = ex.image.pixel_box[0]
    ex._on_image_event({"type": "click", "dataX": (x0 + x1) / 2 + gutter, "dataY": (y0 + y1) / 2, "shiftKey": True})
    assert len(ex.state.chunkset) == len(cs) + 1
    assert ex.state.selected is not None and ex.state.chunkset[ex.state.selected].start_char == target
    assert [e.kind for e in edits_of(doc, "elements", ws)] == ["split"]
    # alt-click two words further on: the selected chunk's start moves there
    later = _words(doc, target, c.end_char)[2]
    box = position_box(doc, later)
    x0, y0, x1, y1 = ex.image.to_pixels((box.x0, box.y0, box.x1, box.y1))
    ex._on_image_event({"type": "click", "dataX": (x0 + x1) / 2 + ex.image.pixel_box[0], "dataY": (y0 + y1) / 2,
                        "altKey": True})
    assert ex.state.chunkset[ex.state.selected].start_char == later
    assert len(ex.state.chunkset) == len(cs) + 1
    # a shift-click in the margin: no word, nothing stored, the reason shown
    ex._on_image_event({"type": "click", "dataX": 1, "dataY": 1, "shiftKey": True})
    assert len(edits_of(doc, "elements", ws)) == 2 and "no word" in ex.status_w.value
