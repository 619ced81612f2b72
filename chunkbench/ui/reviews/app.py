"""The reviewer QA app (Panel): step through boundaries, give verdicts, saved at once.

One `ReviewApp` per browser session (or notebook cell) over a shared ChunkSet: the view of a
`session.ReviewSession`, which holds the position and filters and stores every verdict straight in
the workspace SQLite file, re-reading it on every step, so two reviewers at once see each other's
progress and lose nothing.
Keyboard: 1–4 (or o/m/s/t) give a verdict, n/p (or →/←) move; typing in the comment box is
never taken for a shortcut.
"""

from __future__ import annotations

import functools
import html
import os
from collections.abc import Callable
from typing import Any

import panel as pn

from chunkbench.app.review import ANY_REASON, FILTERS, ORDERS, ReviewSession
from chunkbench.errors import ChunkbenchError
from chunkbench.types.chunk import Chunk
from chunkbench.types.chunkset import ChunkSet
from chunkbench.types.review import VERDICT_LABELS, VERDICTS
from chunkbench.ui.render.crops import BoundaryCrop, boundary_crop
from chunkbench.ui.styles import banner

from .cards import data_url, head, info_html, pages_label, png_width, short_hash, tail
from .clicks import ClickableImage, WordText, words_html
from .keys import KEYS, NAV_KEYS, KeyboardShortcuts
from .offline import OfflineHTML


def _discard_event(action: Callable[[], object]) -> Callable[[Any], None]:
    """A button callback that runs `action` and returns None, as panel's `on_click` expects."""

    def on_click(_event: Any) -> None:
        action()

    return on_click

_PICK_HINT = ('<div class="cb-pick">Click a word on the page or in the text to pick it; '
              '<kbd>shift</kbd>-click splits there at once.</div>')


def _words_or_text(chunkset: ChunkSet, c: Chunk, *, from_end: bool = False) -> str:
    """A chunk's words, clickable (its canonical text), or its escaped text when it has no place
    in the text."""
    if c.start_char is None or c.end_char is None:
        return html.escape(tail(c.text) if from_end else head(c.text))
    return words_html(chunkset, c.start_char, c.end_char, from_end=from_end) or html.escape(c.text)


def _wrapping_row(*objects: Any) -> Any:
    """A row of controls that goes on to the next line where the width ends (a notebook's output
    area is 848 px beside JupyterLab's file browser at 1,280: a plain Row cut "go to boundary #" off)."""
    return pn.FlexBox(*objects, flex_wrap="wrap", align_items="center", sizing_mode="stretch_width")


class ReviewApp:
    """The Panel view of a `ReviewSession`, one per browser session (or notebook cell): it binds to
    the session and redraws on every change, so a notebook or test drives `app.session` (`give`,
    `step`, `go_to`, `set_filter`, `edit`, `pick`, ...) and the page follows; the buttons and keys
    call the same methods."""

    def __init__(self, chunkset: ChunkSet, *, reviewer: str = "", workspace: str | os.PathLike | None = None,
                 dpi: int = 110, inline: bool = False, image_cache: dict | None = None, apply_edits: bool = True,
                 provisional: str = ""):
        self.session = ReviewSession(chunkset, reviewer=reviewer, workspace=workspace, apply_edits=apply_edits,
                                     provisional=provisional)
        self.doc = chunkset.doc
        self.dpi = dpi
        #: the crop shown (it maps a click to a word)
        self._crop: BoundaryCrop | None = None
        #: chunk index → cropped PNG; shared by every session over the same ChunkSet
        self._images = image_cache if image_cache is not None else {}
        self._build(inline)
        self.session.on_change(self._show)
        self._show()

    # ---------------------------------------------------------------- what the controls do
    def _give(self, verdict: str) -> None:
        """A verdict button or key: the verdict with the comment box's text."""
        if not self.session.provisional:
            self.session.give(verdict, self._comment_text)

    def _edit(self, kind: str, word: int = 0) -> None:
        """An edit button: a refused edit (no such word) shows its reason and changes nothing."""
        self._attempt(lambda: self.session.edit(kind, word=word, comment=self._comment_text))

    def _edit_picked(self, kind: str) -> None:
        self._attempt(lambda: self.session.edit_picked(kind, comment=self._comment_text))

    def _attempt(self, action: Callable[[], object]) -> None:
        """Run an edit; the session redraws on success, a refusal is shown in the edit note."""
        self.edit_note.object = ""
        try:
            action()
        except ChunkbenchError as exc:
            self.edit_note.object = f'<div class="cb-edit-note">{html.escape(str(exc))}</div>'

    # ---------------------------------------------------------------- UI
    def _build_edit_buttons(self) -> None:
        """The boundary edit buttons: stored in the workspace, applied to the chunks shown."""
        self.merge_b = pn.widgets.Button(label="merge into previous", width=170, css_classes=["cb-merge"])
        self.earlier_word_b = pn.widgets.Button(label="← start a word earlier", width=180, css_classes=["cb-move-earlier"])
        self.later_word_b = pn.widgets.Button(label="start a word later →", width=170, css_classes=["cb-move-later"])
        self.split_word = pn.widgets.IntInput(value=2, start=2, width=90, css_classes=["cb-split-word"])
        self.split_b = pn.widgets.Button(label="split before word", width=150, css_classes=["cb-split"])
        self.merge_b.on_click(_discard_event(functools.partial(self._edit, "merge")))
        self.earlier_word_b.on_click(_discard_event(functools.partial(self._edit, "move", -1)))
        self.later_word_b.on_click(_discard_event(functools.partial(self._edit, "move", 1)))
        self.split_b.on_click(_discard_event(lambda: self._edit("split", int(self.split_word.value or 2))))
        self.split_here_b = pn.widgets.Button(label="split before the picked word", width=220, disabled=True,
                                              css_classes=["cb-split-here"])
        self.move_here_b = pn.widgets.Button(label="move the boundary to the picked word", width=260, disabled=True,
                                             css_classes=["cb-move-here"])
        self.split_here_b.on_click(_discard_event(functools.partial(self._edit_picked, "split")))
        self.move_here_b.on_click(_discard_event(functools.partial(self._edit_picked, "move")))

    def _build(self, inline: bool) -> None:
        cs, session = self.session.chunkset, self.session
        params = ", ".join(f"{k}={v}" for k, v in cs.params.items())
        who = html.escape(session.reviewer) if session.reviewer else "(anonymous)"
        self.title = OfflineHTML(
            f'<div class="cb-title"><b>Review</b> · {html.escape(self.doc.source)} · strategy '
            f'<b>{html.escape(cs.strategy)}</b> ({html.escape(params)}; params {short_hash(cs.params_hash)}) · '
            f'reviewer <b class="cb-reviewer">{who}</b></div>',
            sizing_mode="stretch_width",
        )
        self.progress = OfflineHTML("", css_classes=["cb-progress"])
        self.bar = pn.indicators.Progress(value=0, max=max(1, len(session.keys)), width=260, height=14)
        self.filter_w = pn.widgets.RadioButtonGroup(options=list(FILTERS), value="all", color="default")
        reasons = sorted({c.boundary.reason.value for c in cs.chunks})
        self.reason_w = pn.widgets.Select(options=[ANY_REASON, *reasons], value=ANY_REASON, width=200)
        self._syncing = False  # True while _show puts the session's values into the controls
        self.filter_w.param.watch(lambda e: self._from_control(session.set_filter, e.new, session.reason), "value")
        self.reason_w.param.watch(lambda e: self._from_control(session.set_filter, session.filter, e.new), "value")
        self.order_w = pn.widgets.Select(options=list(ORDERS), value=ORDERS[0], width=130,
                                         description="the document's order, or the chunks with the most defects first")
        self.order_w.param.watch(lambda e: self._from_control(session.set_order, e.new), "value")
        self.position = OfflineHTML("", css_classes=["cb-position"])
        # straight to a boundary by its number (reaching the 26th took 25 presses of n)
        self.goto_w = pn.widgets.IntInput(label="go to boundary #", value=0, start=0, end=max(0, len(session.keys) - 1),
                                          width=120, css_classes=["cb-goto"])
        self.goto_w.param.watch(lambda e: self._from_control(self._go_to_number, e.new), "value")
        # an <img> in an HTML pane sizes itself with inline styles (no theme CSS needed offline)
        # the page crop takes the app's width (at 640 px its labels showed at 8 px)
        # a click on a word of the page or of the text picks it (shift-click: split there at once)
        self.page_img = ClickableImage(self._on_image_click, sizing_mode="stretch_width", css_classes=["cb-page"])
        self.image = OfflineHTML("", sizing_mode="stretch_width", css_classes=["cb-page-note"])
        self.info = OfflineHTML("", sizing_mode="stretch_width", css_classes=["cb-info"])
        self.before = WordText(self._on_word_click, sizing_mode="stretch_width", css_classes=["cb-before"])
        self.after = WordText(self._on_word_click, sizing_mode="stretch_width", css_classes=["cb-after"])
        self.buttons = {}
        for n, code in enumerate(VERDICTS, 1):
            b = pn.widgets.Button(label=f"{n} · {VERDICT_LABELS[code]}", width=175, css_classes=[f"cb-v-{code}"])
            b.on_click(_discard_event(functools.partial(self._give, code)))
            self.buttons[code] = b
        self.comment = pn.widgets.TextInput(placeholder="optional comment, saved with the verdict", width=520)
        self._comment_text = ""
        # what is typed counts even before Enter (value_input), and so does a value set from Python
        self.comment.param.watch(lambda *events: setattr(self, "_comment_text", events[-1].new or ""),
                                 ["value", "value_input"])
        self.prev_b = pn.widgets.Button(label="← p previous", width=120, css_classes=["cb-prev"])
        self.next_b = pn.widgets.Button(label="n next →", width=120, css_classes=["cb-next"])
        self.prev_b.on_click(_discard_event(functools.partial(session.step, -1)))
        self.next_b.on_click(_discard_event(functools.partial(session.step, +1)))
        self.earlier_b = pn.widgets.Button(label="apply earlier verdict", width=180, visible=False,
                                           css_classes=["cb-apply-earlier"])
        self.earlier_b.on_click(_discard_event(lambda: session.apply_earlier()))
        self._build_edit_buttons()
        self.pick_note = OfflineHTML(_PICK_HINT, sizing_mode="stretch_width", css_classes=["cb-pick-note"])
        self.edit_note = OfflineHTML("", sizing_mode="stretch_width", css_classes=["cb-edit-note"])
        self.provisional_note = OfflineHTML(self._provisional_html(), sizing_mode="stretch_width",
                                            css_classes=["cb-provisional"], visible=bool(session.provisional))
        self.shortcuts = KeyboardShortcuts(self._on_key, keys=[*KEYS, *NAV_KEYS], scoped=inline)
        help_line = OfflineHTML(
            '<div class="cb-help">Keys: <kbd>1</kbd>/<kbd>o</kbd> ok · <kbd>2</kbd>/<kbd>m</kbd> should merge · '
            '<kbd>3</kbd>/<kbd>s</kbd> should split elsewhere · <kbd>4</kbd>/<kbd>t</kbd> wrong type · '
            '<kbd>n</kbd>/<kbd>→</kbd> next · <kbd>p</kbd>/<kbd>←</kbd> previous</div>'
        )
        # the reason and the verdict controls above the page, the text on each side below it: the
        # page gets the whole width, and what a reviewer acts on stays on the first screen
        self.layout = pn.Column(
            self.title,
            self.provisional_note,
            _wrapping_row(self.progress, self.bar, pn.Spacer(width=20), self.filter_w, self.reason_w, self.order_w),
            self.position,
            self.info,
            _wrapping_row(*self.buttons.values()),
            _wrapping_row(self.comment, self.earlier_b, self.prev_b, self.next_b, self.goto_w),
            _wrapping_row(OfflineHTML("<b>Fix the boundary:</b>"), self.merge_b, self.earlier_word_b, self.later_word_b,
                          pn.Row(self.split_b, self.split_word)),
            _wrapping_row(self.pick_note, self.split_here_b, self.move_here_b),
            self.edit_note,
            self.image,
            self.page_img,
            pn.Row(
                pn.Column(OfflineHTML("<b>Before the boundary</b> (end of the previous chunk)"), self.before,
                          sizing_mode="stretch_width"),
                pn.Column(OfflineHTML("<b>After the boundary</b> (start of this chunk)"), self.after,
                          sizing_mode="stretch_width"),
                sizing_mode="stretch_width",
            ),
            help_line,
            self.shortcuts,
            sizing_mode="stretch_width",
            css_classes=["cb-review"],
        )

    def _from_control(self, action: Callable[..., None], *args: Any) -> None:
        """A filter or order control changed by the user (not by `_show` putting the session's value in)."""
        if not self._syncing:
            action(*args)

    def _go_to_number(self, number: int | None) -> None:
        """The "go to boundary #" box: a boundary has the number of the chunk it starts, as the page's
        labels and chunks.json's `index` number chunks (from 0)."""
        if number is not None and 0 <= number < len(self.session.keys):
            self.session.go_to(number)

    def _on_key(self, key: str) -> None:
        if key in KEYS:
            self._give(KEYS[key])
        elif key in NAV_KEYS:
            self.session.step(+1 if NAV_KEYS[key] == "next" else -1)

    def _show(self) -> None:
        """Refresh every pane for the session's boundary, verdicts, filters and pick."""
        session = self.session
        i, cs, final = session.current, session.chunkset, not session.provisional
        c = cs.chunks[i] if cs.chunks else None
        self.progress.object = f'<span class="cb-progress-text">{html.escape(session.progress_text)}</span>'
        self.bar.max = max(1, len(session.keys))
        self.bar.value = min(session.reviewed, self.bar.max)
        self.provisional_note.object = self._provisional_html()
        self.provisional_note.visible = not final
        for b in [*self.buttons.values(), self.later_word_b, self.split_b]:
            b.disabled = not final
        self._syncing = True
        try:
            self.filter_w.value, self.order_w.value = session.filter, session.order
            self.reason_w.options = [ANY_REASON, *sorted({ch.boundary.reason.value for ch in cs.chunks})]
            self.reason_w.value = session.reason
            self.goto_w.end = max(0, len(session.keys) - 1)
            self.goto_w.value = min(i, self.goto_w.end)
        finally:
            self._syncing = False
        shown = session.visible()
        if c is None:
            self.position.object = "<i>This chunking has no chunks.</i>"
            return
        where = f"{shown.index(i) + 1} of {len(shown)} shown" if i in shown else "not in the current filter"
        self.position.object = (
            f'<div class="cb-pos">Boundary <b>#{i}</b> (#0–#{len(session.keys) - 1}; {where}): where chunk #{i} '
            f'starts, labelled {i} on the page · {pages_label(c)}</div>'
        )
        self._show_image(i, c)
        self._show_pick()
        notes = session.edit_messages
        if notes and not self.edit_note.object.startswith('<div class="cb-edit-note">'):
            self.edit_note.object = ('<div class="cb-edit-conflicts">' + "<br>".join(html.escape(m) for m in notes)
                                     + "</div>")
        self.merge_b.disabled = self.earlier_word_b.disabled = i == 0 or not final
        key = session.keys[i]
        mine = session.mine.get(key)
        for code, b in self.buttons.items():
            b.color = "primary" if mine is not None and mine.verdict == code else "default"
        self.comment.value = mine.comment if mine else ""
        self.info.object = info_html(c, mine, session.others(key), session.earlier.get(key) or (),
                                     session.defects.get(c.index, ()))
        prev = cs.chunks[i - 1] if i > 0 else None
        self.before.html = (_words_or_text(cs, prev, from_end=True) if prev is not None
                            else "(start of the document)")
        self.after.html = _words_or_text(cs, c)
        self.earlier_b.visible = mine is None and key in session.earlier
        self.prev_b.disabled = session.neighbour(-1) is None
        self.next_b.disabled = session.neighbour(+1) is None

    def _provisional_html(self) -> str:
        note = self.session.provisional
        return banner(f"{html.escape(note)}; verdicts and edits open when every page is in (this page updates "
                      "itself).", "cb-provisional-text") if note else ""

    def _show_image(self, i: int, c: Chunk) -> None:
        """The cropped page image with reviewers' conflicts marked (rendered once per boundary and
        chunking), or a line saying why there is none."""
        self._crop = None
        if not self.doc.pdf_path:
            note = "<i>No page image: this input has no PDF. Judge from the text below.</i>"
        else:
            # keyed by the chunking's cuts and the marks, so an edit (which changes them) draws
            # anew, and sessions over the same cuts share it
            marks = tuple(self.session.conflict_places)
            key = (i, tuple(ch.start_char for ch in self.session.chunkset.chunks), marks)
            try:
                if key not in self._images:
                    self._images[key] = boundary_crop(self.session.chunkset, i, self.dpi, marks, self.session.findings)
                self._crop = self._images[key]
                note = "" if self._crop is not None else "<i>No page image: this chunk has no page.</i>"
            except ChunkbenchError as exc:  # e.g. the PDF moved since it was parsed: review the text
                note = f"<i>No page image: {html.escape(str(exc))}</i>"
        self.image.object = note
        self.image.visible = bool(note)
        crop = self._crop
        self.page_img.src = data_url(crop.png) if crop is not None else ""
        self.page_img.natural_width = png_width(crop.png) if crop is not None else 0
        self.page_img.alt = f"page {c.page_start} around boundary {i + 1}"
        self.page_img.visible = crop is not None

    # ---------------------------------------------------------------- picking a word
    def click_image(self, x: float, y: float, shift: bool = False) -> int | None:
        """A click on the page crop at its pixel (x, y): pick the word there (`session.pick`; with
        `shift`, edit there at once); its canonical offset, or None when no word of the text is there."""
        from chunkbench.loaders.regions import position_at

        where = self._crop.to_page(x, y) if self._crop is not None else None
        pos = position_at(self.doc, *where) if where is not None else None
        if pos is None:
            self.pick_note.object = '<div class="cb-pick">No word of the text there: click on a word.</div>'
            return None
        self._on_word_click(pos, shift)
        return pos

    def _on_image_click(self, x: float, y: float, shift: bool) -> None:
        self.click_image(x, y, shift)

    def _on_word_click(self, position: int, shift: bool) -> None:
        """A word clicked on the page or in the text: picked; with shift, split there at once (or
        move, when the word is in the chunk before)."""
        pick = self.session.pick(position)
        if shift and pick is not None and (pick.can_split or pick.can_move):
            self._edit_picked("")

    def _show_pick(self) -> None:
        """The picked word, and which of split / move it allows at the current boundary."""
        pick = self.session.picked
        self.split_here_b.disabled = pick is None or not pick.can_split
        self.move_here_b.disabled = pick is None or not pick.can_move
        self.pick_note.object = _PICK_HINT if pick is None else (
            f'<div class="cb-pick">Picked <b>«{html.escape(pick.word)}»</b> ({html.escape(pick.where)}).</div>')

    # ---------------------------------------------------------------- display
    def servable(self):
        return self.layout.servable()

    def __panel__(self):
        return self.layout

    def _repr_mimebundle_(self, include=None, exclude=None):
        # Shown in a notebook: Panel's stylesheets go inline, not as links to cdn.holoviz.org, which
        # an offline JupyterLab cannot reach; set for the session, so later updates stay inline too.
        pn.config.inline = True  # type: ignore[misc]  # a settable parameter; the stub calls it read-only
        return self.layout._repr_mimebundle_(include, exclude)
