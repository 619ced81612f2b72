"""Defects drawn on the page (the `defects` overlay layer, on by default) and the review queue
ordered worst first, on a sample PDF whose token windows cut mid-sentence and mid-word."""

from __future__ import annotations

import numpy as np
import pytest

import chunkbench as cb
from chunkbench.evaluate.defects import find_defects
from chunkbench.ui.render import DEFAULT_SHOW, render_page
from chunkbench.ui.render.overlay import DEFECT_COLOR
from tests.support.paths import SAMPLE_PDFS

PDF = SAMPLE_PDFS / "technical_manual.pdf"


@pytest.fixture(scope="module")
def windows():
    return cb.chunk(cb.load(PDF), "tokens", chunk_size=64)


def _red(img) -> int:
    """Pixels of the defect colour in a rendered page."""
    a = img.to_array()[:, :, :3].astype(int)
    return int((np.abs(a - np.array(DEFECT_COLOR)).sum(axis=2) < 30).sum())


def test_the_defects_layer_is_on_by_default_boxes_each_place_and_can_be_left_off(windows):
    found = [f for f in find_defects(windows) if f.page == 1 and f.box is not None]
    assert found and "defects" in DEFAULT_SHOW
    on = render_page(windows.doc, windows, page=1, dpi=60)
    off = render_page(windows.doc, windows, page=1, dpi=60, show=[s for s in DEFAULT_SHOW if s != "defects"])
    assert _red(on) > 500 and _red(off) < _red(on) / 10
    # the box is drawn at the finding's place (the words before a cut, for mid_sentence): its
    # top-left corner is defect-coloured
    from chunkbench.ui.render.overlay import defect_box

    f = found[0]
    x, y = (round(v) for v in on.to_pixels(defect_box(windows.doc, f, 1))[:2])
    patch = on.to_array()[max(0, y - 3):y + 3, max(0, x - 3):x + 3, :3].astype(int)
    assert (np.abs(patch - np.array(DEFECT_COLOR)).sum(axis=2) < 30).any()
    # findings passed in are what is drawn: none given, none drawn
    assert _red(render_page(windows.doc, windows, page=1, dpi=60, defects=[])) == _red(off)


def test_the_report_lists_the_defects_it_draws(windows, tmp_path):
    from chunkbench.ui.report import write_report

    index = write_report(windows.doc, windows, tmp_path / "r", pages=[1], dpi=40)
    page = index.read_text()
    assert f"{len(find_defects(windows))} defects (boxed in red" in page and "<code>mid_sentence</code>" in page
    bare = write_report(windows.doc, windows, tmp_path / "b", pages=[1], dpi=40, show=["chunks", "reasons"])
    assert "defects (boxed in red" not in bare.read_text()
    from chunkbench.ui.report import defects_table

    assert defects_table(find_defects(windows)[:1]).startswith("<details><summary>1 defect (boxed in red")


def test_the_review_queue_goes_worst_first_and_back_to_the_documents_order(windows, tmp_path):
    from chunkbench.app.review import ReviewSession

    session = ReviewSession(windows, reviewer="ann", workspace=tmp_path / "ws")
    counts = {i: len(fs) for i, fs in session.defects.items()}
    assert session.visible() == list(range(len(windows)))
    session.set_order("worst first")
    order = session.visible()
    assert sorted(order) == list(range(len(windows)))
    assert [counts.get(i, 0) for i in order] == sorted((counts.get(i, 0) for i in order), reverse=True)
    assert session.current == order[0] and counts[order[0]] == max(counts.values())
    session.go_to(order[0])
    assert session.neighbour(+1) == order[1] and session.neighbour(-1) is None
    session.give("ok")
    assert session.current == order[1]
    session.set_filter("unreviewed")
    session.step(+1)
    assert session.current == order[2]
    with pytest.raises(ValueError, match="order must be one of"):
        session.set_order("random")
    session.set_order("document")
    assert session.visible() == sorted(session.visible())


def test_the_explorer_switches_the_defects_layer(windows):
    from chunkbench.ui.explorer import Explorer

    ex = Explorer(windows.doc, "tokens", {"chunk_size": 64})
    assert "defects" in ex.layers and ex.defects_w.value
    # the chunks are drawn at once, their defects when found (on the explorer's thread)
    assert _red(ex.image) < 100 or ex.state.defects is not None
    with_boxes = _red(ex.settle().image)
    assert with_boxes > 500
    ex.defects_w.value = False
    assert "defects" not in ex.layers and _red(ex.image) < with_boxes / 10
    ex.show_defects(True)
    assert ex.defects_w.value and _red(ex.image) == with_boxes


def test_defects_found_while_the_first_view_is_drawn_are_drawn(windows, monkeypatch):
    """The first chunks' defects are searched on the state's thread as the view is built: found
    before the first drawing they are in it, found after it the view is told and draws them, even
    when the search ends just as that drawing does."""
    import threading

    import chunkbench.evaluate.defects as defects
    from chunkbench.ui.explorer import Explorer

    drawn, found = threading.Event(), threading.Event()
    real_search, first_drawing = defects.find_defects, Explorer._show_strategy

    def search_after_the_drawing(chunkset, codes=None):
        drawn.wait(30)
        out = real_search(chunkset, codes)
        found.set()
        return out

    def drawing_that_ends_as_the_search_does(self) -> None:
        first_drawing(self)
        drawn.set()
        found.wait(30)

    monkeypatch.setattr(defects, "find_defects", search_after_the_drawing)
    monkeypatch.setattr(Explorer, "_show_strategy", drawing_that_ends_as_the_search_does)
    ex = Explorer(windows.doc, "tokens", {"chunk_size": 64})
    assert found.is_set() and _red(ex.settle(30).image) > 500


def test_a_cut_mid_sentence_is_boxed_at_its_words_not_its_paragraph():
    """The red box of a mid_sentence cut outlines the line the cut is on, inside the element's box,
    where the element's own box said nothing about where in the paragraph the cut is."""
    from chunkbench.ui.render.overlay import defect_box

    doc = cb.load(SAMPLE_PDFS / "technical_manual.pdf")
    cuts = [f for f in find_defects(cb.chunk(doc, "tokens", chunk_size=120, overlap=0, restart_at="none"))
            if f.code.value == "mid_sentence" and f.box is not None and f.box[3] - f.box[1] > 40]
    assert cuts, "a 120-token window ends inside a tall paragraph somewhere in the manual"
    for f in cuts:
        x0, y0, x1, y1 = defect_box(doc, f, f.page)
        assert y1 - y0 < 20 and (y1 - y0) < (f.box[3] - f.box[1]) / 2  # one line, not the paragraph
        assert f.box[0] - 1 <= x0 <= x1 <= f.box[2] + 1 and f.box[1] - 1 <= y0 <= y1 <= f.box[3] + 1
