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

from chunkbench.errors import ChunkbenchError
from chunkbench.types.chunk import Chunk
from chunkbench.types.chunkset import ChunkSet
from chunkbench.ui.render.crops import boundary_png

from .cards import head, image_html, info_html, pages_label, pre, short_hash, tail
from .keys import KEYS, NAV_KEYS, KeyboardShortcuts
from .offline import OfflineHTML
from .session import ANY_REASON, FILTERS, ReviewSession
from .verdicts import VERDICT_LABELS, VERDICTS, Verdict


def _discard_event(action: Callable[[], object]) -> Callable[[Any], None]:
    """A button callback that runs `action` and returns None, as panel's `on_click` expects."""

    def on_click(_event: Any) -> None:
        action()

    return on_click

class ReviewApp:
    """The Panel view of a `ReviewSession`: one per browser session (or notebook cell).

    The Python methods (`give`, `next`, `previous`, `go_to`, `set_filter`) are what the buttons and
    keys call: each changes the session, then redraws, so tests and notebooks can drive the app
    without a browser."""

    def __init__(self, chunkset: ChunkSet, *, reviewer: str = "", workspace: str | os.PathLike | None = None,
                 dpi: int = 110, inline: bool = False, image_cache: dict | None = None, apply_edits: bool = True):
        self.session = ReviewSession(chunkset, reviewer=reviewer, workspace=workspace, apply_edits=apply_edits)
        self.doc = chunkset.doc
        self.dpi = dpi
        #: chunk index → cropped PNG; shared by every session over the same ChunkSet
        self._images = image_cache if image_cache is not None else {}
        self._build(inline)
        self._show()

    # ---------------------------------------------------------------- the session's state
    @property
    def chunkset(self) -> ChunkSet:
        """The chunks under review: the strategy's, with the stored boundary edits applied."""
        return self.session.chunkset

    @property
    def current(self) -> int:
        return self.session.current

    @property
    def reviewer(self) -> str:
        return self.session.reviewer

    @property
    def keys(self) -> list[str]:
        return self.session.keys

    @property
    def reviewed(self) -> int:
        return self.session.reviewed

    @property
    def progress_text(self) -> str:
        return self.session.progress_text

    def visible(self) -> list[int]:
        """Chunk indices whose boundary passes the current filters."""
        return self.session.visible()

    # ---------------------------------------------------------------- actions (session, then redraw)
    def give(self, verdict: str, comment: str | None = None, *, advance: bool = True) -> Verdict:
        """Save `verdict` on the current boundary (with the comment box's text), then move on."""
        saved = self.session.give(verdict, self._comment_text if comment is None else comment, advance=advance)
        self._show()
        return saved

    def edit(self, kind: str, word: int = 0) -> None:
        """Merge the current chunk into the one before (`merge`), split it before its `word`-th word
        (`split`) or move its start by `word` words (`move`); stored at once, applied to the chunks
        shown. A refused edit (no such word) shows its reason and changes nothing."""
        try:
            self.session.edit(kind, word=word, comment=self._comment_text)
        except ChunkbenchError as exc:
            self.edit_note.object = f'<div class="cb-edit-note">{html.escape(str(exc))}</div>'
            return
        self.edit_note.object = ""
        self.bar.max = max(1, len(self.keys))
        self.reason_w.options = [ANY_REASON, *sorted({c.boundary.reason.value for c in self.chunkset.chunks})]
        self._show()

    def apply_earlier(self) -> Verdict | None:
        """Give the current boundary the newest verdict it had under other parameters."""
        earlier = self.session.earlier_verdict()
        return None if earlier is None else self.give(earlier.verdict, earlier.comment)

    def next(self) -> int:
        self.session.step(+1)
        self._show()
        return self.current

    def previous(self) -> int:
        self.session.step(-1)
        self._show()
        return self.current

    def go_to(self, index: int) -> None:
        """Show the boundary where chunk `index` starts."""
        self.session.go_to(index)
        self._show()

    def set_filter(self, which: str = "all", reason: str = ANY_REASON) -> None:
        """Filter the boundaries shown (see `ReviewSession.set_filter`) and keep the controls in step."""
        self.session.set_filter(which, reason)
        if self.filter_w.value != which:
            self.filter_w.value = which
        if self.reason_w.value != reason:
            self.reason_w.value = reason
        self._show()

    def verdicts(self, all_reviewers: bool = True) -> list[Verdict]:
        """The verdicts stored on this chunking (everyone's, or only this reviewer's)."""
        return self.session.verdicts(all_reviewers)

    def dataframe(self, all_reviewers: bool = True):
        """`verdicts()` as a pandas DataFrame."""
        return self.session.dataframe(all_reviewers)

    def earlier_dataframe(self):
        """Verdicts given under other parameters on boundaries this chunking kept, one row each."""
        return self.session.earlier_dataframe()

    # ---------------------------------------------------------------- UI
    def _build(self, inline: bool) -> None:
        cs = self.chunkset
        params = ", ".join(f"{k}={v}" for k, v in cs.params.items())
        who = html.escape(self.reviewer) if self.reviewer else "(anonymous)"
        self.title = OfflineHTML(
            f'<div class="cb-title"><b>Review</b> · {html.escape(self.doc.source)} · strategy '
            f'<b>{html.escape(cs.strategy)}</b> ({html.escape(params)}; params {short_hash(cs.params_hash)}) · '
            f'reviewer <b class="cb-reviewer">{who}</b></div>',
            sizing_mode="stretch_width",
        )
        self.progress = OfflineHTML("", css_classes=["cb-progress"])
        self.bar = pn.indicators.Progress(value=0, max=max(1, len(self.keys)), width=260, height=14)
        self.filter_w = pn.widgets.RadioButtonGroup(options=list(FILTERS), value="all", color="default")
        reasons = sorted({c.boundary.reason.value for c in cs.chunks})
        self.reason_w = pn.widgets.Select(options=[ANY_REASON, *reasons], value=ANY_REASON, width=200)
        self.filter_w.param.watch(lambda e: self.set_filter(e.new, self.session.reason), "value")
        self.reason_w.param.watch(lambda e: self.set_filter(self.session.filter, e.new), "value")
        self.position = OfflineHTML("", css_classes=["cb-position"])
        # an <img> in an HTML pane sizes itself with inline styles (no theme CSS needed offline)
        # the page crop takes the app's width (issue 20.4: at 640 px its labels showed at 8 px)
        self.image = OfflineHTML("", sizing_mode="stretch_width", css_classes=["cb-page"])
        self.info = OfflineHTML("", sizing_mode="stretch_width", css_classes=["cb-info"])
        self.before = OfflineHTML("", sizing_mode="stretch_width", css_classes=["cb-before"])
        self.after = OfflineHTML("", sizing_mode="stretch_width", css_classes=["cb-after"])
        self.buttons = {}
        for n, code in enumerate(VERDICTS, 1):
            b = pn.widgets.Button(label=f"{n} · {VERDICT_LABELS[code]}", width=175, css_classes=[f"cb-v-{code}"])
            b.on_click(_discard_event(functools.partial(self.give, code)))
            self.buttons[code] = b
        self.comment = pn.widgets.TextInput(placeholder="optional comment, saved with the verdict", width=520)
        self._comment_text = ""
        # what is typed counts even before Enter (value_input), and so does a value set from Python
        self.comment.param.watch(lambda *events: setattr(self, "_comment_text", events[-1].new or ""),
                                 ["value", "value_input"])
        self.prev_b = pn.widgets.Button(label="← p previous", width=120, css_classes=["cb-prev"])
        self.next_b = pn.widgets.Button(label="n next →", width=120, css_classes=["cb-next"])
        self.prev_b.on_click(_discard_event(self.previous))
        self.next_b.on_click(_discard_event(self.next))
        self.earlier_b = pn.widgets.Button(label="apply earlier verdict", width=180, visible=False,
                                           css_classes=["cb-apply-earlier"])
        self.earlier_b.on_click(_discard_event(self.apply_earlier))
        # boundary edits (issue 20.1): stored in the workspace, applied to the chunks shown
        self.merge_b = pn.widgets.Button(label="merge into previous", width=170, css_classes=["cb-merge"])
        self.earlier_word_b = pn.widgets.Button(label="← start a word earlier", width=180, css_classes=["cb-move-earlier"])
        self.later_word_b = pn.widgets.Button(label="start a word later →", width=170, css_classes=["cb-move-later"])
        self.split_word = pn.widgets.IntInput(value=2, start=2, width=90, css_classes=["cb-split-word"])
        self.split_b = pn.widgets.Button(label="split before word", width=150, css_classes=["cb-split"])
        self.merge_b.on_click(_discard_event(functools.partial(self.edit, "merge")))
        self.earlier_word_b.on_click(_discard_event(functools.partial(self.edit, "move", -1)))
        self.later_word_b.on_click(_discard_event(functools.partial(self.edit, "move", 1)))
        self.split_b.on_click(_discard_event(lambda: self.edit("split", int(self.split_word.value or 2))))
        self.edit_note = OfflineHTML("", sizing_mode="stretch_width", css_classes=["cb-edit-note"])
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
            pn.Row(self.progress, self.bar, pn.Spacer(width=20), self.filter_w, self.reason_w),
            self.position,
            self.info,
            pn.Row(*self.buttons.values()),
            pn.Row(self.comment, self.earlier_b, self.prev_b, self.next_b),
            pn.Row(OfflineHTML("<b>Fix the boundary:</b>"), self.merge_b, self.earlier_word_b, self.later_word_b,
                   self.split_b, self.split_word),
            self.edit_note,
            self.image,
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

    def _on_key(self, key: str) -> None:
        if key in KEYS:
            self.give(KEYS[key])
        elif NAV_KEYS.get(key) == "next":
            self.next()
        elif NAV_KEYS.get(key) == "previous":
            self.previous()

    def _show(self) -> None:
        """Refresh every pane for the current boundary and the stored verdicts."""
        i = self.current
        cs = self.chunkset
        c = cs.chunks[i] if cs.chunks else None
        self.progress.object = f'<span class="cb-progress-text">{html.escape(self.progress_text)}</span>'
        self.bar.value = min(self.reviewed, self.bar.max)
        shown = self.visible()
        if c is None:
            self.position.object = "<i>This chunking has no chunks.</i>"
            return
        where = f"{shown.index(i) + 1} of {len(shown)} shown" if i in shown else "not in the current filter"
        self.position.object = (
            f'<div class="cb-pos">Boundary <b>{i + 1}</b> of {len(self.keys)} ({where}) · chunk #{i} · '
            f'{pages_label(c)}</div>'
        )
        self.image.object = self._image_html(i, c)
        notes = self.session.edit_messages
        if notes and not self.edit_note.object.startswith('<div class="cb-edit-note">'):
            self.edit_note.object = ('<div class="cb-edit-conflicts">' + "<br>".join(html.escape(m) for m in notes)
                                     + "</div>")
        self.merge_b.disabled = self.earlier_word_b.disabled = i == 0
        key = self.keys[i]
        mine = self.session.mine.get(key)
        for code, b in self.buttons.items():
            b.color = "primary" if mine is not None and mine.verdict == code else "default"
        self.comment.value = mine.comment if mine else ""
        self.info.object = self._info_html(c, key, mine)
        prev = cs.chunks[i - 1].text if i > 0 else ""
        self.before.object = pre(tail(prev) if prev else "(start of the document)", "cb-text")
        self.after.object = pre(head(c.text), "cb-text")
        self.earlier_b.visible = mine is None and key in self.session.earlier
        self.prev_b.disabled = self.session.neighbour(-1) is None
        self.next_b.disabled = self.session.neighbour(+1) is None

    def _image_html(self, i: int, c: Chunk) -> str:
        """The cropped page image (rendered once per boundary), or a line saying why there is none."""
        if not self.doc.pdf_path:
            return "<i>No page image: this input has no PDF. Judge from the text on the right.</i>"
        # the crop shows the chunking around the boundary: keyed by the chunking's cuts, so an edit
        # (which changes them) draws anew, and sessions over the same cuts share it
        key = (i, tuple(ch.start_char for ch in self.chunkset.chunks))
        if key not in self._images:
            try:
                self._images[key] = boundary_png(self.chunkset, i, self.dpi)
            except ChunkbenchError as exc:  # e.g. the PDF moved since it was parsed: review the text
                return f"<i>No page image: {html.escape(str(exc))}</i>"
        return image_html(self._images[key], c, i)

    def _info_html(self, c: Chunk, key: str, mine: Verdict | None) -> str:
        return info_html(c, mine, self.session.others(key), self.session.earlier.get(key) or ())

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
