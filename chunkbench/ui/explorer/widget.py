"""The explorer's view: ipywidgets around `state.ExplorerState`, page overlay and chunk list side by
side, parameters as controls.

`explore(doc_or_path, strategy, **params)` loads the input once and keeps the Document; changing
the strategy or a parameter re-chunks that cached Document (never re-parses) and keeps the page.
Clicking a chunk in the list selects its region on the page; clicking a region on the page
(ipyevents) selects its chunk; shift-click on a word splits its chunk there, alt-click moves the
selected chunk's start to it (reviewer edits). Built from ipywidgets, so it works in JupyterLab and headless.
The view binds to its state (`ex.state`, an `app.explore.ExplorerState`): code calls
`ex.state.set_params(...)`, `select`, `go_to_page`, `set_strategy`, `edit`, as the controls do, and the
view redraws what the change moved; `ex.click(x, y)` is a click on the page image.
"""

from __future__ import annotations

import contextlib
import functools
import html
import threading
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from chunkbench.app.explore import ExplorerState
from chunkbench.app.opening import load, open_as_it_arrives
from chunkbench.errors import ChunkbenchError
from chunkbench.strategies import DEFAULT_STRATEGY, get_strategy, strategy_names
from chunkbench.strategies.base import Param
from chunkbench.types.document import Document
from chunkbench.ui.styles import banner

from .cards import STYLE, chunk_label, detail_html, error_html, summary_html

#: keys over the page that edit the selected chunk's boundary: (kind, words)
EDIT_KEYS = {"m": ("merge", 0), "[": ("move", -1), "]": ("move", 1), "s": ("split", 0)}
#: sliders stop at this multiple of the default (the number box beside it takes any allowed value):
#: at 2, the 460 px slider's track (258 px beside its name and readout in JupyterLab) moves a
#: 2,000-character default 15 characters a pixel (at 5 on 340 px it was about 70)
SLIDER_SPAN = 2
SLIDER_WIDTH = "460px"
#: gutter label size (points) of the explorer's page: a notebook beside JupyterLab's file browser
#: shows a 1,280 px window's page at about 1.2 px per point, so 9-point labels would read at 10.6 px
LABEL_SIZE = 10.5

if TYPE_CHECKING:
    from chunkbench.app.opening import Progress
    from chunkbench.ui.render import PageImage


def _locked(method):
    """Run an Explorer method holding its state's lock: a background parse hands over Documents
    (`show_progress`) while the user works the controls."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with self.state.lock:
            return method(self, *args, **kwargs)

    return run


def chunk_at(image, x_px: float, y_px: float) -> int | None:
    """Index of the chunk drawn at pixel (x_px, y_px) of a rendered PageImage, or None.

    Where regions overlap (token-window overlap, nested boxes) the smallest chunk region wins."""
    hit = image.region_at(x_px, y_px, kinds=("chunk", "overlap", "boundary"))
    return None if hit is None else hit.chunk_index


def number_box(p: Param, slider: w.Widget) -> w.Widget:
    """A box to type the exact value of a numeric parameter, beside its slider (one slider pixel is
    tens of characters on a size parameter): kept in step with the slider both ways; a typed value
    above the slider's end moves that end. Values outside the parameter's bounds are refused there."""
    cls = w.BoundedIntText if p.type is int else w.BoundedFloatText
    box = cls(value=slider.value, min=p.min, max=p.max, step=slider.step, layout=w.Layout(width="96px"),
              tooltip=f"type an exact {p.name}")
    box.add_class("cb-number")

    def typed(change) -> None:
        if change["new"] == slider.value:
            return
        if change["new"] > slider.max:
            slider.max = change["new"]
        slider.value = change["new"]

    box.observe(typed, names="value")
    # the slider's value now, not the event's: a refused value has put the slider back already
    slider.observe(lambda _change: setattr(box, "value", slider.value), names="value")
    return box


def param_control(p: Param, value: Any) -> w.Widget:
    """The widget for one strategy parameter: slider, checkbox, dropdown or text box."""
    style = {"description_width": "initial"}
    common = dict(description=p.name, tooltip=p.doc, style=style, layout=w.Layout(width="auto"))
    if p.type is bool:
        return w.Checkbox(value=bool(value), indent=False, **common)
    if p.choices is not None and p.type is not tuple:  # a list parameter is typed in a text box
        return w.Dropdown(options=list(p.choices), value=value, **common)
    if p.type in (int, float) and p.min is not None and p.max is not None:
        hi = p.max
        if p.default and p.max > p.default * SLIDER_SPAN:
            hi = max(p.default * SLIDER_SPAN, value)
        cls = w.IntSlider if p.type is int else w.FloatSlider
        return cls(value=value, min=p.min, max=hi, step=p.slider_step, continuous_update=False,
                   layout=w.Layout(width=SLIDER_WIDTH), description=p.name, tooltip=p.doc, style=style)
    if p.type is int:
        return w.IntText(value=value, **common)
    if p.type is float:
        return w.FloatText(value=value, **common)
    text = ", ".join(value) if isinstance(value, (list, tuple)) else str(value)
    return w.Text(value=text, continuous_update=False, **common)


class Explorer:
    """The explorer's widgets for one Document, over an `ExplorerState` (see the module docstring).
    Each API call changes the state, then redraws what depends on it."""

    def __init__(self, doc: Document, strategy: str = DEFAULT_STRATEGY, params: dict | None = None, *,
                 dpi: int = 90, image_width: int = 900, workspace=None, reviewer: str = "",
                 page_count: int | None = None):
        self.state = ExplorerState(doc, strategy, params, workspace=workspace, reviewer=reviewer,
                                   page_count=page_count)
        self.doc = doc
        #: what the parse has done so far (loaders.progressive), None when the Document came whole
        self.progress: Progress | None = None
        self.dpi = dpi
        self._syncing = False
        self.image: PageImage | None = None  # the PageImage on screen (None without a PDF)
        self.has_pdf = bool(doc.pdf_path) and bool(doc.pages)
        self.error: str | None = None
        #: the overlay layers drawn (render.DEFAULT_SHOW: defects among them; `show_defects` switches them)
        from chunkbench.ui.render import DEFAULT_SHOW

        self.layers: tuple[str, ...] = tuple(DEFAULT_SHOW)
        #: the page raster on screen (path, page, dpi) and the overlay's pixels left of it
        self._page_key: tuple | None = None
        self._page_px = (0, 0, 0, 0)
        self._left_px = 0
        self._build(image_width)
        # under the state's lock: the defects of the first chunks, searched on the state's thread,
        # are either in before the first drawing or told to this view after it, never in between
        with self.state.lock:
            self.state.on_change(self._on_state)
            self._show_strategy()

    # ------------------------------------------------------------------ the state changed: redraw
    def _on_state(self, what: str) -> None:
        """Redraw what a change of the state moved (called holding the state's lock)."""
        if what == "strategy":
            self._show_strategy()
        elif what == "chunks":  # the page first (what a slider's user watches), the controls after
            self._show_chunks()
            self._show_params()
        elif what == "defects":
            failed = self.state.defects_error
            if failed is not None:
                self.status_w.value = error_html(f"finding the defects failed: {failed}")
            self._render()
        else:
            self._sync_selection()
            self._render()

    def _edit(self, kind: str, word: int = 0, *, at: int | None = None) -> None:
        """An edit button, key or click: a refused edit shows why and changes nothing."""
        try:
            self.state.edit(kind, word, at=at)
        except ChunkbenchError as exc:
            self.status_w.value = error_html(str(exc))

    @_locked
    def click(self, x_px: float, y_px: float, *, shift: bool = False, alt: bool = False) -> int | None:
        """What a click on the page image at pixel (x, y) does: select the chunk there (if any).
        Shift-click splits the chunk holding the clicked word before that word; alt-click moves
        the selected chunk's start to it (both stored as the explorer's reviewer's edits)."""
        if self.image is None:
            return None
        if shift or alt:
            return self._edit_at_click(x_px, y_px, "split" if shift else "move")
        hit = chunk_at(self.image, x_px, y_px)
        if hit is not None:
            self.state.select(hit)
        return hit

    def _edit_at_click(self, x_px: float, y_px: float, kind: str) -> int | None:
        from chunkbench.loaders.regions import position_at

        assert self.image is not None
        pos = position_at(self.doc, self.state.page, *self.image.to_points(x_px, y_px))
        if pos is None:
            self.status_w.value = error_html("no word of the text there: click on a word")
            return None
        if kind == "split":
            holder = self.state.chunk_holding(pos)
            if holder is None:
                self.status_w.value = error_html("that word is in no chunk (skipped as page furniture?)")
                return None
            self.state.select(holder)
        self._edit(kind, at=pos)
        return self.state.selected

    @_locked
    def show_progress(self, progress: Progress) -> None:
        """Show a bigger (or the final) parse of the PDF: re-chunked with the same settings, on
        the same page; a banner says it is provisional until every page is in."""
        if self.progress is not None and len(progress.parsed) < len(self.progress.parsed):
            return  # an older hand-over arriving late
        if progress.doc is not self.doc:
            self.doc = progress.doc
            self.state.replace_document(progress.doc)  # redraws (_on_state)
        self.progress_w.value = "" if progress.final else banner(html.escape(progress.describe()), "cb-provisional")
        self.progress = progress  # last: who sees it final sees the final view

    def _parse_failed(self, exc: Exception) -> None:
        with self.state.lock:
            self.progress_w.value = error_html(f"parsing the rest of the PDF failed: {exc}")

    # ------------------------------------------------------------------ redraw
    @contextlib.contextmanager
    def _quiet(self):
        """Widget updates made by the API must not fire the widgets' own callbacks."""
        prev, self._syncing = self._syncing, True
        try:
            yield
        finally:
            self._syncing = prev

    def _show_strategy(self) -> None:
        """The strategy's controls, rebuilt from the registry, then its chunks."""
        state = self.state
        with self._quiet():
            self.strategy_w.value = state.strategy
        params = get_strategy(state.strategy).params
        self._controls = {p.name: param_control(p, state.params[p.name]) for p in params}
        for name_, ctl in self._controls.items():
            ctl.observe(lambda e, n=name_: self._on_control(n, e["new"]), names="value")
        #: the typed-value box beside each slider
        self._boxes = {p.name: number_box(p, ctl) for p in params
                       if isinstance(ctl := self._controls[p.name], (w.IntSlider, w.FloatSlider))}
        self.params_box.children = [w.HBox([ctl, self._boxes[n]]) if n in self._boxes else ctl
                                    for n, ctl in self._controls.items()]
        self._show_chunks()

    def _show_params(self) -> None:
        """The controls show the parameters the chunks on screen were made with."""
        with self._quiet():
            for name, ctl in self._controls.items():
                value = self.state.params[name]
                if isinstance(ctl, (w.IntSlider, w.FloatSlider)) and value > ctl.max:
                    ctl.max = value
                ctl.value = ", ".join(value) if isinstance(value, tuple) else value

    def _show_chunks(self) -> None:
        """New chunks: the page in view first (what a slider's user watches), then the chunk list
        and the summary, which cover the whole document."""
        self.error = None
        notes = self.state.edit_messages
        self.status_w.value = error_html("; ".join(notes)) if notes else ""
        self._render()
        with self._quiet():
            self.list_w.options = [(chunk_label(c), c.index) for c in self.state.chunkset]
        self._sync_selection()
        self.summary_w.value = summary_html(self.state.chunkset)

    def _sync_selection(self) -> None:
        with self._quiet():
            self.page_w.value = self.state.page
            self.list_w.value = self.state.selected

    def settle(self, timeout: float | None = None) -> Explorer:
        """Wait until what is drawn after a change (the defects layer) is on screen: for scripts and
        tests that read `ex.image` right after a change; a notebook need not call it."""
        self.state.settle(timeout)
        return self

    @_locked
    def show_defects(self, on: bool = True) -> None:
        """Draw the defects layer (red boxes with their codes: evaluate.defects) or not, and redraw;
        the state looks for the defects of each chunking only while they are drawn."""
        self.layers = tuple(x for x in self.layers if x != "defects") + (("defects",) if on else ())
        if self.defects_w.value != on:
            self.defects_w.value = on
        self.state.find_defects(on)  # redraws (_on_state)

    def _render(self) -> None:
        from chunkbench.ui.render import render_page, render_text_view
        from chunkbench.ui.render.overlay import mark_places

        cs, page, selected = self.state.chunkset, self.state.page, self.state.selected
        if self.has_pdf:
            try:
                self.image = render_page(self.doc, cs, page=page, dpi=self.dpi, selected=selected,
                                         label_size=LABEL_SIZE, show=self.layers,
                                         defects=(self.state.defects or []) if "defects" in self.layers else [])
                mark_places(self.image, self.doc, self.state.conflict_places, LABEL_SIZE)
                self._show_page(self.image)
            except ChunkbenchError as exc:  # e.g. the PDF moved since it was parsed
                self.image = None
                self.status_w.value = error_html(f"no page image: {exc}")
        else:
            self.image = None
            self.textview_w.value = render_text_view(self.doc, cs)
        self.prev_w.disabled = page <= 1
        self.next_w.disabled = page >= self.state.n_pages
        self.detail_w.value = detail_html(cs, selected, page)

    def _show_page(self, image: PageImage) -> None:
        """Put `image` on screen: the page's own raster (PNG) only when the page or its size
        changed, the drawing over it as SVG (a change of chunks sends a few kB of text, not a
        page), with the gutters' widths setting the columns the page and the overlay share."""
        from chunkbench.ui.render import PageImage

        key = (image.pdf_path, image.page, image.dpi)
        if self._page_key != key:  # the page alone: a PageImage with nothing drawn on it
            bare = PageImage(image.pdf_path, image.page, image.dpi)
            self.image_w.value = bare.png()
            self._page_key, self._page_px = key, bare.pixel_box
        page_px = self._page_px
        x0, _, x1, _ = image.pixel_box
        left, page, right = -x0, page_px[2] - page_px[0], x1 - page_px[2]
        self.overlay_w.value = image.overlay_svg()
        layout = self.canvas_w.layout
        layout.grid_template_columns = f"minmax(0,{left}fr) minmax(0,{page}fr) minmax(0,{right}fr)"
        # as wide as its column, never wider than its pixels: labels show at >= 11 CSS px
        layout.max_width = f"{image.width + 2}px"
        #: pixels of the overlay left of the page raster (a click on the raster is that far right on `image`)
        self._left_px = left

    # ------------------------------------------------------------------ widget callbacks
    def _on_control(self, name: str, value: Any) -> None:
        if self._syncing:
            return
        try:
            self.state.set_params(**{name: value})
        except ChunkbenchError as exc:
            # the value is refused: the control goes back to the value the chunks on screen were made
            # with, so what the sliders show and what the page shows never disagree
            kept = self.state.params[name]
            with self._quiet():
                self._controls[name].value = ", ".join(kept) if isinstance(kept, tuple) else kept
            self.error = str(exc)
            self.status_w.value = error_html(f"{exc} (kept {name} = {kept!r})")

    def _on_strategy(self, change) -> None:
        if self._syncing or change["new"] == self.state.strategy:
            return
        try:
            self.state.set_strategy(change["new"])
        except ChunkbenchError as exc:
            self.status_w.value = error_html(str(exc))

    def _on_list(self, change) -> None:
        if not self._syncing and change["new"] != self.state.selected:
            self.state.select(change["new"])

    def _on_page(self, change) -> None:
        if not self._syncing:
            self.state.go_to_page(change["new"])

    def _on_image_event(self, event: dict) -> None:
        if event.get("type") == "keydown":
            action = EDIT_KEYS.get(str(event.get("key", "")))
            if action is not None:
                kind, word = action
                self._edit(kind, int(self.split_w.value) if kind == "split" else word)
            return
        x, y = event.get("dataX"), event.get("dataY")
        if x is not None and y is not None:  # pixels of the page raster: the drawing starts at the left gutter
            self.click(float(x) + self._left_px, float(y), shift=bool(event.get("shiftKey")),
                       alt=bool(event.get("altKey")))

    # ------------------------------------------------------------------ widgets
    def _build_page(self) -> None:
        """Page navigation, and the page canvas: the page raster in the middle column, the SVG of the
        drawing over all three (gutters, page)."""
        self.prev_w = w.Button(description="◀", layout=w.Layout(width="40px"), tooltip="previous page")
        self.next_w = w.Button(description="▶", layout=w.Layout(width="40px"), tooltip="next page")
        self.page_w = w.BoundedIntText(value=1, min=1, max=self.state.n_pages, description="page",
                                       layout=w.Layout(width="130px"))
        self.page_w.add_class("cb-page-number")
        self.prev_w.on_click(lambda _b: self.state.go_to_page(self.state.page - 1))
        self.next_w.on_click(lambda _b: self.state.go_to_page(self.state.page + 1))
        self.page_w.observe(self._on_page, names="value")
        self.pages_label = w.HTML(f"of {self.state.n_pages}")
        self.image_w = w.Image(format="png", layout=w.Layout(width="100%", height="auto", grid_area="1 / 2 / 2 / 3"))
        self.overlay_w = w.HTML(layout=w.Layout(width="100%", grid_area="1 / 1 / 2 / 4"))
        self.overlay_w.add_class("cb-overlay")
        self.canvas_w = w.GridBox([self.image_w, self.overlay_w], layout=w.Layout(
            width="100%", grid_template_columns="minmax(0,0fr) minmax(0,1fr) minmax(0,0fr)", grid_template_rows="auto"))
        self.canvas_w.add_class("cb-page-canvas")

    def _build_edit_row(self) -> w.Widget:
        """The buttons that edit the selected chunk's boundary (stored in the workspace)."""
        buttons = {"merge into previous (m)": ("merge", 0), "← a word earlier ([)": ("move", -1),
                   "a word later (]) →": ("move", 1)}
        self.edit_buttons = []
        for label, (kind, word) in buttons.items():
            b = w.Button(description=label, layout=w.Layout(width="auto"))
            b.on_click(lambda _b, k=kind, n=word: self._edit(k, n))
            b.add_class(f"cb-edit-{kind}{'-earlier' if word < 0 else '-later' if word > 0 else ''}")
            self.edit_buttons.append(b)
        self.split_w = w.BoundedIntText(value=2, min=2, max=100_000, layout=w.Layout(width="80px"))
        split_b = w.Button(description="split before word (s)", layout=w.Layout(width="auto"))
        split_b.on_click(lambda _b: self._edit("split", int(self.split_w.value)))
        split_b.add_class("cb-edit-split")
        self.edit_buttons.append(split_b)
        return w.HBox([*self.edit_buttons, self.split_w], layout=w.Layout(flex_flow="row wrap"))

    def _build(self, image_width: int) -> None:
        names = strategy_names(slow=True)  # peers' libraries are imported when one is picked
        self.strategy_w = w.Dropdown(options=names, description="strategy", layout=w.Layout(width="220px"))
        self.strategy_w.observe(self._on_strategy, names="value")
        self.params_box = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.summary_w = w.HTML()
        self.status_w = w.HTML()
        self.progress_w = w.HTML()
        self._build_page()
        self.textview_w = w.HTML(layout=w.Layout(width="100%", max_height="780px", overflow="auto"))
        self.list_w = w.Select(options=[], rows=14, layout=w.Layout(width="100%"))
        self.list_w.add_class("cb-chunk-list")
        self.list_w.observe(self._on_list, names="value")
        self.detail_w = w.HTML(layout=w.Layout(width="100%"))
        edits_row = self._build_edit_row()
        self._events = None
        if self.has_pdf:
            try:
                from ipyevents import Event

                self._events = Event(source=self.image_w, watched_events=["click", "keydown"])
                self._events.on_dom_event(self._on_image_event)
            except ImportError:  # clicking regions needs ipyevents; the list still selects
                self._events = None
        self.defects_w = w.Checkbox(value=True, description="defects", indent=False, layout=w.Layout(width="90px"),
                                    tooltip="box what a reviewer would object to in red, with its code")
        self.defects_w.observe(lambda change: self.show_defects(change["new"]), names="value")
        nav = w.HBox([self.prev_w, self.page_w, self.pages_label, self.next_w, self.defects_w])
        # the page takes the room (at 560 px its labels showed at 6 px): it asks for
        # `image_width` px and the chunk list beside it for 360 px; when the row has less than
        # both, the list goes below the page rather than the page shrinking
        left = w.VBox([nav, self.canvas_w] if self.has_pdf else [self.textview_w],
                      layout=w.Layout(flex=f"1 1 {image_width}px", min_width="0"))
        right = w.VBox([w.HTML("<b>Chunks</b> (click one to select it; click the page to pick a region)"),
                        self.list_w, w.HTML("<b>Fix the selected chunk's boundary</b> (keys over the page: m, [, ], s; "
                               "shift-click a word: split before it; alt-click: move the boundary there)"),
                        edits_row, self.detail_w], layout=w.Layout(flex="1 1 360px", min_width="0"))
        self.widget = w.VBox([
            w.HBox([self.strategy_w, self.params_box]),
            self.progress_w,
            self.summary_w,
            self.status_w,
            w.HBox([left, right], layout=w.Layout(flex_flow="row wrap", width="100%")),
            w.HTML(STYLE),
        ])
        self.widget.add_class("cb-explorer")

    # ------------------------------------------------------------------ display
    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def explore(doc_or_path: Document | str, strategy: str = DEFAULT_STRATEGY, *, dpi: int = 90, workspace=None,
            reviewer: str = "", progressive: bool = True, **params: Any) -> Explorer:
    """Open the linked explorer on a Document or any loadable path (parsed once, then cached);
    reviewers' boundary edits stored in `workspace` are applied, and new ones are `reviewer`'s.
    An uncached PDF shows its first pages within seconds (`progressive`): they are parsed first,
    the rest in the background, and the chunks follow as pages arrive (app.opening)."""
    if isinstance(doc_or_path, Document) or not progressive:
        doc = doc_or_path if isinstance(doc_or_path, Document) else load(doc_or_path)
        return Explorer(doc, strategy, params, dpi=dpi, workspace=workspace, reviewer=reviewer)
    holder: dict[str, Explorer] = {}  # the explorer, once built (the parse goes on only after)

    def update(progress: Progress) -> None:
        holder["ex"].show_progress(progress)

    def failed(exc: Exception) -> None:
        holder["ex"]._parse_failed(exc)

    begin = threading.Event()  # the rest is parsed once the first view is drawn
    first = open_as_it_arrives(doc_or_path, update, on_error=failed, begin=begin, around=0)
    ex = Explorer(first.doc, strategy, params, dpi=dpi, workspace=workspace, reviewer=reviewer,
                  page_count=first.page_count)
    holder["ex"] = ex
    if not first.final:
        ex.show_progress(first)
    begin.set()
    return ex
