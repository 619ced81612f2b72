"""The linked notebook explorer: page overlay and chunk list side by side, parameters as controls.

`explore(doc_or_path, strategy, **params)` loads the input once and keeps the Document; changing
the strategy or a parameter re-chunks that cached Document (never re-parses) and keeps the page.
Clicking a chunk in the list selects its region on the page; clicking a region on the page
(ipyevents) selects its chunk. Built from ipywidgets, so it works in JupyterLab and headless; the
`Explorer` object has a small Python API (`set_params`, `select`, `go_to_page`, `click`) that the
controls call and tests drive.
"""

from __future__ import annotations

import contextlib
import html
import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from chunkbench import loaders
from chunkbench.errors import ChunkbenchError
from chunkbench.strategies import all_strategies, chunk, get_strategy
from chunkbench.strategies.base import Param
from chunkbench.types.chunk import Chunk
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.document import Document

#: re-chunked results kept per (strategy, params_hash), so going back to a setting is instant
CACHE_SIZE = 16
#: sliders stop at this multiple of the default (the number box beside it takes any allowed value)
SLIDER_SPAN = 5

if TYPE_CHECKING:
    from .render import PageImage


def chunk_at(image, x_px: float, y_px: float) -> int | None:
    """Index of the chunk drawn at pixel (x_px, y_px) of a rendered PageImage, or None.

    Where regions overlap (token-window overlap, nested boxes) the smallest chunk region wins."""
    hit = image.region_at(x_px, y_px, kinds=("chunk", "overlap", "boundary"))
    return None if hit is None else hit.chunk_index


def param_control(p: Param, value: Any) -> w.Widget:
    """The widget for one strategy parameter: slider, checkbox, dropdown or text box."""
    style = {"description_width": "initial"}
    common = dict(description=p.name, tooltip=p.doc, style=style, layout=w.Layout(width="auto"))
    if p.type is bool:
        return w.Checkbox(value=bool(value), indent=False, **common)
    if p.choices is not None:
        return w.Dropdown(options=list(p.choices), value=value, **common)
    if p.type in (int, float) and p.min is not None and p.max is not None:
        hi = p.max
        if p.default and p.max > p.default * SLIDER_SPAN:
            hi = max(p.default * SLIDER_SPAN, value)
        cls = w.IntSlider if p.type is int else w.FloatSlider
        step = p.ui_step or (1 if p.type is int else (p.max - p.min) / 100)
        return cls(value=value, min=p.min, max=hi, step=step, continuous_update=False,
                   layout=w.Layout(width="340px"), description=p.name, tooltip=p.doc, style=style)
    if p.type is int:
        return w.IntText(value=value, **common)
    if p.type is float:
        return w.FloatText(value=value, **common)
    text = ", ".join(value) if isinstance(value, (list, tuple)) else str(value)
    return w.Text(value=text, continuous_update=False, **common)


def _label(c: Chunk) -> str:
    pages = "" if c.page_start is None else (
        f"p{c.page_start}" if c.page_end in (None, c.page_start) else f"p{c.page_start}-{c.page_end}")
    head = c.text.strip().replace("\n", " ")[:40]
    return f"#{c.index:<3} {pages:<5} {c.boundary.reason.value:<14} {c.char_len:>5}  {head}"


def _field_row(key: str, value: Any, limit: int = 140) -> str:
    """One escaped `key: value` table row; long values (a strategy's copy of the text) are cut."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text)} chars)"
    return (f"<tr><td style='color:#555;padding:0 8px 0 0;vertical-align:top'>{html.escape(key)}</td>"
            f"<td style='padding:0'>{html.escape(text)}</td></tr>")


class Explorer:
    """The explorer's state and widgets for one Document (see module docstring)."""

    def __init__(self, doc: Document, strategy: str = "elements", params: dict | None = None, *,
                 dpi: int = 90, image_width: int = 560):
        self.doc = doc
        self.dpi = dpi
        self._cache: OrderedDict[tuple[str, str], ChunkSet] = OrderedDict()
        self._syncing = False
        self.page = 1
        self.selected: int | None = None
        self.image: PageImage | None = None  # the PageImage on screen (None without a PDF)
        self._chunkset: ChunkSet  # set by set_strategy below, before anything reads it
        self.has_pdf = bool(doc.pdf_path) and bool(doc.pages)
        self.error: str | None = None
        self._build(image_width)
        self.set_strategy(strategy, **(params or {}))

    # ------------------------------------------------------------------ API
    @property
    def chunkset(self) -> ChunkSet:
        return self._chunkset

    @property
    def n_pages(self) -> int:
        return max(1, len(self.doc.pages))

    def set_strategy(self, name: str, **params: Any) -> ChunkSet:
        """Switch strategy (its controls are rebuilt from the registry) and re-chunk."""
        strat = get_strategy(name)
        resolved = strat.resolve(params)  # ParamError for bad values, before anything changes
        self.strategy = strat.name
        self.params = resolved
        with self._quiet():
            self.strategy_w.value = strat.name
        self._controls = {p.name: param_control(p, resolved[p.name]) for p in strat.params}
        for name_, ctl in self._controls.items():
            ctl.observe(lambda e, n=name_: self._on_control(n, e["new"]), names="value")
        self.params_box.children = list(self._controls.values())
        return self._rechunk()

    def set_params(self, **params: Any) -> ChunkSet:
        """Change some parameters of the current strategy and re-chunk the cached Document."""
        resolved = get_strategy(self.strategy).resolve({**self.params, **params})
        self.params = resolved
        with self._quiet():
            for name, value in params.items():
                ctl = self._controls[name]
                value = resolved[name]
                if isinstance(ctl, (w.IntSlider, w.FloatSlider)) and value > ctl.max:
                    ctl.max = value
                ctl.value = ", ".join(value) if isinstance(value, tuple) else value
        return self._rechunk()

    def go_to_page(self, n: int) -> None:
        """Show 1-based page `n` (clamped to the document). A selected chunk that is not on that
        page is let go, so the detail panel never shows a chunk of another page."""
        self.page = min(max(1, int(n)), self.n_pages)
        if self.selected is not None and self.selected not in self.chunks_on_page(self.page):
            self.selected = None
        with self._quiet():
            self.page_w.value = self.page
            self.list_w.value = self.selected
        self._render()

    def chunks_on_page(self, n: int | None = None) -> list[int]:
        """Indices of the chunks that touch 1-based page `n` (default: the page shown)."""
        n = self.page if n is None else n
        return [c.index for c in self._chunkset if c.page_start is not None
                and c.page_start <= n <= (c.page_end or c.page_start)]

    def select(self, index: int | None) -> None:
        """Select chunk `index` (None clears): its region is emphasised, its page shown, its text,
        reason and metadata listed."""
        if index is not None:
            if not 0 <= index < len(self._chunkset):
                raise IndexError(f"no chunk {index}; this setting has {len(self._chunkset)} chunks")
            c = self._chunkset[index]
            if c.page_start is not None and not c.page_start <= self.page <= (c.page_end or c.page_start):
                self.page = c.page_start
                with self._quiet():
                    self.page_w.value = self.page
        self.selected = index
        with self._quiet():
            self.list_w.value = index
        self._render()

    def click(self, x_px: float, y_px: float) -> int | None:
        """What a click on the page image at pixel (x, y) does: select the chunk there (if any)."""
        if self.image is None:
            return None
        hit = chunk_at(self.image, x_px, y_px)
        if hit is not None:
            self.select(hit)
        return hit

    # ------------------------------------------------------------------ internals
    @contextlib.contextmanager
    def _quiet(self):
        """Widget updates made by the API must not fire the widgets' own callbacks."""
        prev, self._syncing = self._syncing, True
        try:
            yield
        finally:
            self._syncing = prev

    def _rechunk(self) -> ChunkSet:
        key = (self.strategy, json.dumps(self.params, sort_keys=True, default=list))
        cs = self._cache.get(key)
        if cs is None:
            cs = chunk(self.doc, self.strategy, **self.params)
            self._cache[key] = cs
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        old = self._chunkset.chunks[self.selected] if getattr(self, "_chunkset", None) and self.selected is not None else None
        self._chunkset = cs
        self.selected = self._follow(old)
        with self._quiet():
            self.list_w.options = [(_label(c), c.index) for c in cs]
            self.list_w.value = self.selected
        self.error = None
        self._summary()
        self._render()
        return cs

    def _follow(self, old: Chunk | None) -> int | None:
        """After re-chunking, keep selecting the chunk that now holds the old selection's start."""
        if old is None or old.start_char is None:
            return None
        for c in self._chunkset:
            if c.start_char is not None and c.end_char is not None and c.start_char <= old.start_char < c.end_char:
                return c.index
        return None

    def _on_control(self, name: str, value: Any) -> None:
        if self._syncing:
            return
        try:
            self.set_params(**{name: value})
        except ChunkbenchError as exc:
            self.error = str(exc)
            self.status_w.value = f'<span style="color:#b00020">{html.escape(str(exc))}</span>'

    def _on_strategy(self, change) -> None:
        if self._syncing or change["new"] == self.strategy:
            return
        try:
            self.set_strategy(change["new"])
        except ChunkbenchError as exc:
            self.status_w.value = f'<span style="color:#b00020">{html.escape(str(exc))}</span>'

    def _on_list(self, change) -> None:
        if not self._syncing and change["new"] != self.selected:
            self.select(change["new"])

    def _on_page(self, change) -> None:
        if not self._syncing:
            self.go_to_page(change["new"])

    def _on_image_event(self, event: dict) -> None:
        x, y = event.get("dataX"), event.get("dataY")
        if x is not None and y is not None:
            self.click(float(x), float(y))

    # ------------------------------------------------------------------ widgets
    def _build(self, image_width: int) -> None:
        names = [s.name for s in all_strategies()]
        self.strategy_w = w.Dropdown(options=names, description="strategy", layout=w.Layout(width="220px"))
        self.strategy_w.observe(self._on_strategy, names="value")
        self.params_box = w.HBox(layout=w.Layout(flex_flow="row wrap"))
        self.summary_w = w.HTML()
        self.status_w = w.HTML()
        self.prev_w = w.Button(description="◀", layout=w.Layout(width="40px"), tooltip="previous page")
        self.next_w = w.Button(description="▶", layout=w.Layout(width="40px"), tooltip="next page")
        self.page_w = w.BoundedIntText(value=1, min=1, max=self.n_pages, description="page",
                                       layout=w.Layout(width="130px"))
        self.prev_w.on_click(lambda _b: self.go_to_page(self.page - 1))
        self.next_w.on_click(lambda _b: self.go_to_page(self.page + 1))
        self.page_w.observe(self._on_page, names="value")
        self.pages_label = w.HTML(f"of {self.n_pages}")
        self.image_w = w.Image(format="png", layout=w.Layout(width=f"{image_width}px", border="1px solid #ccc"))
        self.textview_w = w.HTML(layout=w.Layout(width=f"{image_width}px", max_height="780px", overflow="auto"))
        self.list_w = w.Select(options=[], rows=14, layout=w.Layout(width="440px"))
        self.list_w.add_class("cb-chunk-list")
        self.list_w.observe(self._on_list, names="value")
        self.detail_w = w.HTML(layout=w.Layout(width="440px"))
        self._events = None
        if self.has_pdf:
            try:
                from ipyevents import Event

                self._events = Event(source=self.image_w, watched_events=["click"])
                self._events.on_dom_event(self._on_image_event)
            except ImportError:  # clicking regions needs ipyevents; the list still selects
                self._events = None
        nav = w.HBox([self.prev_w, self.page_w, self.pages_label, self.next_w])
        left = w.VBox([nav, self.image_w] if self.has_pdf else [self.textview_w])
        right = w.VBox([w.HTML("<b>Chunks</b> (click one to select it; click the page to pick a region)"),
                        self.list_w, self.detail_w])
        self.widget = w.VBox([
            w.HBox([self.strategy_w, self.params_box]),
            self.summary_w,
            self.status_w,
            w.HBox([left, right]),
            w.HTML("<style>.cb-chunk-list select{font-family:ui-monospace,monospace;font-size:12px}"
                   ".cb-explorer .widget-hbox>.widget-vbox+.widget-vbox{margin-left:12px}</style>"),
        ])
        self.widget.add_class("cb-explorer")

    def _summary(self) -> None:
        from chunkbench.evaluate.stats import quality_targets, size_summary

        s = size_summary(self._chunkset)
        marks = []
        for t in quality_targets(self._chunkset):
            value = "–" if t.value is None else (f"{t.value:.0%}" if t.value <= 1 and "share" in t.name else f"{t.value:g}")
            color = "#1b7f3b" if t.passed else "#b00020"
            marks.append(f'<span style="color:{color}" title="expected {html.escape(t.expected)}">'
                         f'{"✔" if t.passed else "✘"} {html.escape(t.name)} {value}</span>')
        med = "–" if s.chars.median is None else f"{s.chars.median:g}"
        p95 = "–" if s.chars.p95 is None else f"{s.chars.p95:g}"
        self.summary_w.value = (
            f'<div style="padding:4px 6px;background:#f3f5f8;border-radius:4px">'
            f"<b>{s.count}</b> chunks · median <b>{med}</b> chars · p95 <b>{p95}</b> chars · "
            f"{len(self._chunkset.skipped)} elements skipped &nbsp;|&nbsp; " + " &nbsp; ".join(marks) + "</div>"
        )
        self.status_w.value = ""

    def _render(self) -> None:
        from .render import render_page, render_text_view

        cs = self._chunkset
        if self.has_pdf:
            try:
                self.image = render_page(self.doc, cs, page=self.page, dpi=self.dpi, selected=self.selected)
                self.image_w.value = self.image.png()
            except ChunkbenchError as exc:  # e.g. the PDF moved since it was parsed
                self.image = None
                self.status_w.value = f'<span style="color:#b00020">no page image: {html.escape(str(exc))}</span>'
        else:
            self.image = None
            self.textview_w.value = render_text_view(self.doc, cs)
        self.prev_w.disabled = self.page <= 1
        self.next_w.disabled = self.page >= self.n_pages
        self.detail_w.value = self._detail_html()

    def _detail_html(self) -> str:
        e = html.escape
        if self.selected is None:
            on_page = sum(c.page_start is not None and c.page_start <= self.page <= (c.page_end or c.page_start)
                          for c in self._chunkset)
            return f"<i>{on_page} chunks on page {self.page}. Select one to see its text and reason.</i>"
        c = self._chunkset[self.selected]
        spans = ""
        if c.page_start is not None and (c.page_end or c.page_start) > c.page_start:
            spans = (f'<div style="font-size:12px;color:#555">spans pages {c.page_start}–{c.page_end}; '
                     f"this is page {self.page}</div>")
        d = c.to_dict()
        fields = {k: v for k, v in d.items() if k not in ("text", "boundary", "bbox", "metadata")}
        rows = "".join(_field_row(k, v) for k, v in fields.items())
        meta = "".join(_field_row(k, v) for k, v in c.metadata.items())
        return (
            '<div style="line-height:1.35">'
            f'<div style="font-size:14px;margin:4px 0">Chunk <b>#{c.index}</b> starts here because '
            f'<code style="background:#1f5fa8;color:#fff;padding:1px 6px;border-radius:3px">{e(c.boundary.reason.value)}</code> '
            f"{e(c.boundary.detail)}</div>{spans}"
            f'<pre style="white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;max-height:220px;overflow:auto;background:#f7f7f5;border:1px solid #ddd;'
            f'padding:6px;font-size:12px;margin:0">{e(c.text)}</pre>'
            f'<table style="font-size:12px;margin-top:4px">{rows}</table>'
            + (f'<div style="margin-top:4px"><b>metadata</b></div><table style="font-size:12px">{meta}</table>' if meta else "")
            + "</div>"
        )

    # ------------------------------------------------------------------ display
    def _repr_mimebundle_(self, **kwargs):
        return self.widget._repr_mimebundle_(**kwargs)


def explore(doc_or_path: Document | str, strategy: str = "elements", *, dpi: int = 90, **params: Any) -> Explorer:
    """Open the linked explorer on a Document or any loadable path (parsed once, then cached)."""
    doc = doc_or_path if isinstance(doc_or_path, Document) else loaders.load(doc_or_path)
    return Explorer(doc, strategy, params, dpi=dpi)
