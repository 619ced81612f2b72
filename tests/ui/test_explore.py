"""The linked explorer, driven through its Python API (what its controls call)."""

from __future__ import annotations

import json

import ipywidgets as w
import pytest

import chunkbench as cb
from chunkbench import loaders
from chunkbench.errors import ParamError
from chunkbench.evaluate.stats import size_summary
from chunkbench.ui.explorer import Explorer, chunk_at
from tests.support.documents import make_doc
from tests.support.paths import SAMPLE_PDFS

CONTRACT = SAMPLE_PDFS / "contract_services_agreement.pdf"


@pytest.fixture(scope="module")
def contract():
    return cb.load(CONTRACT)


def test_changing_params_rechunks_the_cached_document_and_keeps_the_page(monkeypatch):
    calls = []
    real = loaders.load

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(loaders, "load", counting)
    ex = cb.explore(str(CONTRACT))
    assert isinstance(ex, Explorer) and len(calls) == 1
    ex.state.go_to_page(3)
    before = ex.state.chunkset
    after = ex.state.set_params(max_chunk_size=600)
    assert len(after) > len(before) and after.params["max_chunk_size"] == 600
    assert ex.state.page == 3 and ex.page_w.value == 3
    # the user's path: moving the slider re-chunks too
    ex._controls["max_chunk_size"].value = 1200
    assert ex.state.chunkset.params["max_chunk_size"] == 1200 and ex.state.page == 3
    ex._controls["heading_level"].value = 1
    assert ex.state.chunkset.params["heading_level"] == 1
    ex.state.set_strategy("tokens")
    assert ex.state.chunkset.strategy == "tokens" and ex.state.page == 3
    ex.state.set_strategy("elements", max_chunk_size=600)
    assert ex.state.chunkset is after  # an earlier setting comes from the cache
    assert len(calls) == 1, "the explorer must never re-parse"
    assert all(c.page_start is not None for c in ex.state.chunkset)


def test_controls_are_generated_from_the_registry(contract):
    ex = Explorer(contract)
    for strat in cb.all_strategies():
        ex.state.set_strategy(strat.name)
        controls = list(ex._controls.values())
        assert [c.description for c in controls] == [p.name for p in strat.params]
        assert len(ex.params_box.children) == len(controls)  # a slider sits in a row with its number box
        for p, c in zip(strat.params, controls):
            if p.type is bool:
                assert isinstance(c, w.Checkbox)
            elif p.choices is not None and p.type is not tuple:  # a list of choices is typed
                assert isinstance(c, w.Dropdown) and tuple(c.options) == tuple(p.choices)
            elif p.type is int and p.min is not None and p.max is not None:
                assert isinstance(c, w.IntSlider) and c.min == p.min and c.step == (p.ui_step or 1)
            elif p.type is float and p.min is not None and p.max is not None:
                assert isinstance(c, w.FloatSlider)
            if not isinstance(c, w.Text):
                assert c.value == p.default


def test_bad_value_is_refused_and_nothing_changes(contract):
    ex = Explorer(contract)
    cs = ex.state.chunkset
    with pytest.raises(ParamError, match="max_chunk_size"):
        ex.state.set_params(max_chunk_size=1)
    assert ex.state.chunkset is cs and ex.state.params == cs.params


def test_a_refused_slider_value_goes_back_to_the_shown_chunks(contract):
    """tokens chunk_size 1 with overlap 50 is refused: the slider returns to the value the chunks on
    screen were made with, and the message says so (never a new value over the old chunks)."""
    ex = Explorer(contract, "tokens")
    cs, size = ex.state.chunkset, ex.state.params["chunk_size"]
    ex._controls["chunk_size"].value = 1  # what a drag of the slider does
    assert ex.state.chunkset is cs and ex._controls["chunk_size"].value == size == ex.state.params["chunk_size"]
    assert "chunk_size" in ex.status_w.value and f"kept chunk_size = {size}" in ex.status_w.value
    ex._controls["chunk_size"].value = size + 100  # a valid value clears the message and re-chunks
    assert ex.state.chunkset is not cs and ex.status_w.value == "" and ex.error is None


def test_chunk_at_maps_each_region_centre_to_its_chunk(contract):
    ex = Explorer(contract)
    ex.state.go_to_page(2)
    regions = [r for r in ex.image.regions if r.kind == "chunk"]
    assert len({r.chunk_index for r in regions}) >= 3
    for r in regions:
        assert chunk_at(ex.image, (r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2) == r.chunk_index
    assert chunk_at(ex.image, 1, 1) is None  # the page margin
    # a click on a region selects its chunk, emphasised on the re-rendered page
    target = regions[len(regions) // 2]
    plain = ex.image.to_array().copy()
    assert ex.click((target.x0 + target.x1) / 2, (target.y0 + target.y1) / 2) == target.chunk_index
    assert ex.state.selected == target.chunk_index and ex.list_w.value == target.chunk_index
    assert (ex.image.to_array() != plain).any()
    assert f"#{target.chunk_index}</b>" in ex.detail_w.value


def test_selecting_a_chunk_shows_its_page_text_and_reason(contract):
    ex = Explorer(contract)
    last = ex.state.chunkset[-1]
    ex.list_w.value = last.index  # the user clicks it in the list
    assert ex.state.selected == last.index and ex.state.page == last.page_start
    assert last.boundary.reason.value in ex.detail_w.value
    assert last.boundary.detail.replace("'", "&#x27;") in ex.detail_w.value
    # re-chunking keeps selecting the chunk that holds the old selection's start
    start = last.start_char
    ex.state.set_params(max_chunk_size=700)
    c = ex.state.chunkset[ex.state.selected]
    assert c.start_char <= start < c.end_char


def test_summary_strip_matches_stats(contract):
    ex = Explorer(contract, params={"max_chunk_size": 900})
    s = size_summary(ex.state.chunkset)
    assert f"<b>{s.count}</b> chunks" in ex.summary_w.value
    assert f"median <b>{s.chars.median:g}</b>" in ex.summary_w.value and f"p95 <b>{s.chars.p95:g}</b>" in ex.summary_w.value
    assert "median_chars" in ex.summary_w.value


def test_document_without_pdf_uses_the_text_view_escaped():
    doc = make_doc([
        {"type": "heading", "text": "Intro <script>alert(1)</script>", "text_level": 1},
        {"type": "paragraph", "text": "x <img src=x onerror=alert(2)> y " * 5},
    ])
    ex = cb.explore(doc)
    assert ex.image is None and ex.click(5, 5) is None
    assert "&lt;script&gt;" in ex.textview_w.value and "<script>alert" not in ex.textview_w.value
    assert "<img src=x" not in ex.textview_w.value
    ex.state.select(0)
    assert "&lt;script&gt;" in ex.detail_w.value and "<script>" not in ex.detail_w.value


def test_page_clicks_arrive_through_ipyevents(contract):
    """ipyevents sends image clicks with dataX/dataY in the PNG's own pixels (whatever its display
    size): the page's raster, which starts right of the left gutter the drawing (`ex.image`) has."""
    ipyevents = pytest.importorskip("ipyevents")
    ex = Explorer(contract)
    assert isinstance(ex._events, ipyevents.Event)
    assert ex._events.source is ex.image_w and "click" in ex._events.watched_events
    r = [r for r in ex.image.regions if r.kind == "chunk" and r.label != "label"][-1]
    gutter = -ex.image.pixel_box[0]
    assert gutter > 0  # chunk labels on the left of this page
    ex._on_image_event({"type": "click", "dataX": (r.x0 + r.x1) / 2 - gutter, "dataY": (r.y0 + r.y1) / 2,
                        "relativeX": 10, "relativeY": 10})
    assert ex.state.selected == r.chunk_index
    ex._on_image_event({"type": "click", "dataX": 1, "dataY": 1})  # the margin: nothing changes
    assert ex.state.selected == r.chunk_index


def test_missing_pdf_file_is_reported_not_raised(contract, tmp_path):
    import dataclasses

    ex = Explorer(dataclasses.replace(contract, pdf_path=str(tmp_path / "gone.pdf")))
    assert ex.image is None and "gone.pdf" in ex.status_w.value and len(ex.state.chunkset) > 0
    ex.state.select(1)  # the list and the detail still work
    assert ex.state.selected == 1 and "#1</b>" in ex.detail_w.value


def test_paging_lets_go_of_a_chunk_that_is_not_on_the_new_page(contract):
    """After the user pages on, the detail panel shows no chunk of the old page; a
    chunk that spans both pages stays selected and says so."""
    ex = Explorer(contract)
    one_page = next(c for c in ex.state.chunkset if c.page_start == c.page_end == 1)
    ex.state.select(one_page.index)
    assert f"Chunk <b>#{one_page.index}</b>" in ex.detail_w.value
    ex.next_w.click()  # the user pages on
    assert ex.state.page == 2 and ex.state.selected is None and ex.list_w.value is None
    assert "Chunk <b>#" not in ex.detail_w.value and "chunks on page 2" in ex.detail_w.value
    spanning = next((c for c in ex.state.chunkset if c.page_start == 1 and (c.page_end or 1) >= 2), None)
    if spanning is not None:
        ex.state.go_to_page(1)
        ex.state.select(spanning.index)
        ex.state.go_to_page(2)
        assert ex.state.selected == spanning.index and f"spans pages 1–{spanning.page_end}" in ex.detail_w.value


def test_the_selected_chunk_keeps_its_text_readable(contract):
    """The selected chunk is outlined, not filled darker: the darkest text pixels in
    its region are as dark as in the same region unselected."""
    import numpy as np

    ex = Explorer(contract)
    c = next(c for c in ex.state.chunkset if c.page_start == 1 and len(c.text) > 200)
    plain = cb.render_page(contract, ex.state.chunkset, page=1, dpi=90).to_array()
    chosen = cb.render_page(contract, ex.state.chunkset, page=1, dpi=90, selected=c.index)
    box = max((r for r in chosen.regions if r.chunk_index == c.index and r.kind == "chunk" and r.label != "label"),
              key=lambda r: (r.x1 - r.x0) * (r.y1 - r.y0))
    x0, y0, x1, y1 = (int(v) for v in (box.x0 + 8, box.y0 + 8, box.x1 - 8, box.y1 - 8))
    inside_plain = plain[y0:y1, x0:x1].astype(int).sum(axis=2)
    inside_chosen = chosen.to_array()[y0:y1, x0:x1].astype(int).sum(axis=2)
    text = inside_plain < 200  # dark pixels: the text
    assert text.sum() > 50
    assert np.median(inside_chosen[text]) <= np.median(inside_plain[text]) + 30
    background = inside_plain > 600
    assert np.median(inside_chosen[background]) >= 650  # a light tint at most (the old 2x fill: 616)


def test_the_state_runs_without_any_widget(contract):
    """State apart from view. The explorer's model imports no widget library and keeps
    its rules alone: bad values change nothing, the selection follows a re-chunk, paging lets go of a
    chunk that is not on the new page, and a re-visited setting comes from its cache."""
    import subprocess
    import sys

    probe = ("import sys, chunkbench.app.explore as s; "
             "print(sorted(m for m in ('ipywidgets', 'ipyevents', 'panel', 'IPython') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip() == "[]"

    from chunkbench.ui.explorer import ExplorerState

    state = ExplorerState(contract, "elements")
    first = state.chunkset
    with pytest.raises(ParamError):
        state.set_params(max_chunk_size=-5)
    assert state.chunkset is first and state.params == dict(first.params)
    last = len(first) - 1
    state.select(last)
    assert state.page == first[last].page_start
    smaller = state.set_params(max_chunk_size=600)
    moved = smaller[state.selected]
    assert moved.start_char <= first[last].start_char < moved.end_char  # the selection followed its text
    state.go_to_page(1)
    assert state.selected is None or state.selected in state.chunks_on_page(1)
    assert state.set_params(max_chunk_size=first.params["max_chunk_size"]) is first  # from the cache


def test_the_state_finds_the_defects_of_what_it_shows_on_its_own_thread(contract):
    """The defects of each chunking shown are found by the state, not a view: after the change,
    on the state's thread, told to the listeners as "defects"; a search of a chunking no longer
    shown is never shown; and while they are not wanted none are looked for."""
    import threading

    from chunkbench.evaluate.defects import find_defects
    from chunkbench.ui.explorer import ExplorerState

    state = ExplorerState(contract, "tokens", {"chunk_size": 48, "overlap": 8})
    told: list[tuple[str, str]] = []
    state.settle(30)  # the first chunking's, before anyone listens
    state.on_change(lambda what: told.append((what, threading.current_thread().name)))
    state.set_params(chunk_size=40)
    state.set_params(chunk_size=32)  # the 40-token chunking's search is dropped or its result kept from view
    found = state.settle(30).defects
    assert found is not None and found == find_defects(state.chunkset) and found
    assert [name for what, name in told if what == "chunks"] == [threading.current_thread().name] * 2
    defects_told = [name for what, name in told if what == "defects"]
    assert defects_told and all(name.startswith("chunkbench-explorer") for name in defects_told)
    assert len(defects_told) <= 2  # the 32-token chunking's, and at most the 40-token one's while it was shown

    state.find_defects(False)
    state.set_params(chunk_size=56)
    assert state.settle(30).defects is None
    state.find_defects(True)  # looked for again: the chunks shown now
    assert state.settle(30).defects == find_defects(state.chunkset)


def test_a_slider_step_is_chunked_ahead_and_shows_the_same_chunks(contract, monkeypatch):
    """After a slider moves, the settings one step either side are chunked on the state's thread
    (a selection meanwhile keeps them); the next step is then taken from the cache, not chunked
    while the user waits, and its chunks are byte for byte those a fresh chunking gives."""
    import threading

    import chunkbench.app.explore as explore_state
    from chunkbench.strategies import chunk, get_strategy
    from chunkbench.ui.explorer import ExplorerState

    step = next(p.slider_step for p in get_strategy("elements").params if p.name == "max_chunk_size")
    state = ExplorerState(contract, "elements")
    state.set_params(max_chunk_size=900)
    state.settle(30)
    made_here: list[int] = []
    real_chunk = explore_state.chunk

    def counted(*args, **kwargs):
        if threading.current_thread() is threading.main_thread():
            made_here.append(kwargs["max_chunk_size"])
        return real_chunk(*args, **kwargs)

    monkeypatch.setattr(explore_state, "chunk", counted)
    for value in (900 + step, 900 + 2 * step, 900 + step, 900):  # up two steps, back down
        shown = state.set_params(max_chunk_size=value)
        state.select(0)  # a selection (or a page turn) right after keeps what is being chunked ahead
        state.settle(30)
        fresh = chunk(contract, "elements", max_chunk_size=value)
        assert json.dumps(shown.to_dict(chunked_at="-"), sort_keys=True) == json.dumps(fresh.to_dict(chunked_at="-"), sort_keys=True)
    assert made_here == []  # every step came from the cache
    state.set_params(max_chunk_size=900 + 7 * step)  # a jump: chunked while the user waits
    assert made_here == [900 + 7 * step]


def test_a_typed_value_sets_a_numeric_parameter_exactly():
    """One slider pixel is tens of characters on a size parameter; the box beside it
    takes the exact value, both stay in step, and a value past the slider's end moves the end."""
    from chunkbench.ui.explorer.widget import Explorer

    ex = Explorer(cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf"), "elements")
    slider, box = ex._controls["max_chunk_size"], ex._boxes["max_chunk_size"]
    box.value = 1234
    assert slider.value == 1234 and ex.state.params["max_chunk_size"] == 1234 and ex.state.chunkset.params["max_chunk_size"] == 1234
    far = slider.max + 5000
    box.value = far
    assert slider.max == far and ex.state.params["max_chunk_size"] == far
    slider.value = 800  # a drag of the slider shows in the box
    assert box.value == 800 == ex.state.params["max_chunk_size"]
    box.value = 10 ** 9  # past the parameter's bound: the box holds its maximum
    assert box.value == box.max == ex._controls["max_chunk_size"].value == ex.state.params["max_chunk_size"]
    assert set(ex._boxes) == {"max_chunk_size", "heading_level"}  # every slider has one, nothing else


def test_the_selected_chunk_is_merged_moved_and_split_by_buttons_and_keys(tmp_path):
    """In the explorer, the edit buttons and the keys over the page (m, [, ], s) store an
    edit of the selected chunk and show the chunks with the stored edits applied."""
    from chunkbench.db.edits import edits_of
    from chunkbench.ui.explorer.widget import Explorer

    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    ws = tmp_path / "ws.db"
    ex = Explorer(doc, "elements", workspace=ws, reviewer="ivy")
    n = len(ex.state.chunkset)
    ex.edit_buttons[0].click()  # merge, with nothing selected: refused, said, nothing stored
    assert "select a chunk first" in ex.status_w.value and len(ex.state.chunkset) == n
    ex.state.select(3)
    ex.edit_buttons[0].click()  # merge into previous
    assert len(ex.state.chunkset) == n - 1 and ex.state.chunkset[ex.state.selected].boundary.reason.value == "reviewer_edit"
    ex.state.select(5)
    ex._on_image_event({"type": "keydown", "key": "]"})  # its start a word later
    assert ex.state.chunkset[ex.state.selected].boundary.detail.startswith("boundary moved here by ivy")
    ex.split_w.value = 4
    ex._on_image_event({"type": "keydown", "key": "s"})
    assert len(ex.state.chunkset) == n
    assert [e.kind for e in edits_of(doc, "elements", ws)] == ["merge", "move", "split"]
    again = Explorer(doc, "elements", workspace=ws)  # opens with the stored edits applied
    assert [c.text for c in again.state.chunkset] == [c.text for c in ex.state.chunkset]
    ex.state.set_params(max_chunk_size=1500)  # another setting: the same edits, applied where they still can be
    assert any(c.boundary.reason.value == "reviewer_edit" for c in ex.state.chunkset)


def test_the_strategy_list_names_every_strategy_without_importing_the_peers():
    """Listing the installed peers imported LangChain, LlamaIndex, chonkie and
    docling-core (3.5 s before the first page showed); the names come from the peer table now."""
    import subprocess
    import sys

    from chunkbench.strategies import all_strategies, strategy_names

    assert strategy_names(slow=True) == [s.name for s in all_strategies(slow=True)]
    assert strategy_names() == [s.name for s in all_strategies()]
    code = ("import sys; from chunkbench.strategies import strategy_names; strategy_names(slow=True); "
            "print(sorted(m for m in ('llama_index', 'chonkie', 'langchain_text_splitters', 'docling_core') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_change_sends_the_drawing_over_the_page_not_the_page(contract):
    """The page's raster goes to the image widget once per page; a re-chunk or a selection changes
    only the SVG over it, which covers exactly the drawing's area (gutters and page) in points and
    holds the labels as escaped text."""
    import re

    ex = Explorer(contract, "elements")
    page_png, first_svg = bytes(ex.image_w.value), ex.overlay_w.value
    assert page_png.startswith(b"\x89PNG") and first_svg.startswith("<svg")
    sent = []
    ex.image_w.observe(sent.append, names="value")
    ex.state.set_params(max_chunk_size=600)
    ex.state.select(3)
    assert not sent and ex.overlay_w.value != first_svg
    x0, y0, x1, y1 = ex.image.pixel_box
    view = [float(v) for v in re.search(r'viewBox="([^"]+)"', ex.overlay_w.value).group(1).split()]
    s = ex.image.scale
    assert view == pytest.approx([x0 / s, y0 / s, (x1 - x0) / s, (y1 - y0) / s], abs=0.01)
    # the page raster is the page alone: the drawing less its gutters
    import io

    from PIL import Image

    assert ex._left_px == -x0 > 0  # chunk labels left of this page
    assert Image.open(io.BytesIO(page_png)).width < ex.image.width - ex._left_px + 1
    labels = re.findall(r"<text[^>]*>([^<]*)</text>", ex.overlay_w.value)
    assert any(t.startswith("0 document_start") for t in labels)
    ex.state.go_to_page(2)
    assert len(sent) == 1 and bytes(ex.image_w.value) != page_png


def test_text_drawn_into_the_svg_is_escaped(contract):
    from chunkbench.ui.render import render_page

    img = render_page(contract, None, page=1, dpi=50)
    img.draw_text("<script>alert(1)</script> & co", (10, 10))
    svg = img.overlay_svg()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in svg and "<script>" not in svg
