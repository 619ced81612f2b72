"""Clicks on words in the review app: the page crop and the text on each side of the boundary
report which word was clicked (Panel JSComponents), so a reviewer splits a chunk or moves its
boundary by pointing at the word rather than counting words."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import panel as pn
import param

from chunkbench.strategies.edits import word_starts
from chunkbench.types.chunkset import ChunkSet
from chunkbench.ui.styles import TEXT_STYLE

from .cards import CONTEXT_CHARS


class ClickableImage(pn.custom.JSComponent):
    """An image as wide as its pane (up to its own width) that reports clicks in the image's own
    pixels: `callback(x, y, shift)`."""

    src = param.String(default="")
    alt = param.String(default="")
    natural_width = param.Integer(default=0)

    _esm = """
    export function render({ model, el }) {
      const img = document.createElement('img');
      img.className = 'cb-page-img';
      img.style.cssText = 'width:100%;height:auto;border:1px solid #ccc;display:block;cursor:crosshair';
      const draw = () => {
        img.src = model.src; img.alt = model.alt;
        img.style.maxWidth = model.natural_width ? model.natural_width + 'px' : '';
        img.style.display = model.src ? 'block' : 'none';
      };
      img.addEventListener('click', (e) => {
        const r = img.getBoundingClientRect();
        if (!r.width || !r.height) return;
        model.send_msg({x: (e.clientX - r.left) * img.naturalWidth / r.width,
                        y: (e.clientY - r.top) * img.naturalHeight / r.height, shift: e.shiftKey});
      });
      model.on('src', draw); model.on('alt', draw);
      draw();
      el.appendChild(img);
    }
    """

    def __init__(self, callback: Callable[[float, float, bool], None], **params):
        super().__init__(**params)
        self._callback = callback

    def _handle_msg(self, msg) -> None:
        msg = msg or {}
        try:
            x, y = float(msg["x"]), float(msg["y"])
        except (KeyError, TypeError, ValueError):
            return
        self._callback(x, y, bool(msg.get("shift")))


class WordText(pn.custom.JSComponent):
    """Text whose words report clicks: `html` holds escaped text with each word in a
    `<span data-pos=N>` (N: its canonical offset); `callback(N, shift)`."""

    html = param.String(default="")

    _esm = """
    export function render({ model, el }) {
      const box = document.createElement('pre');
      box.className = 'cb-text';
      box.style.cssText = 'TEXT_STYLE;cursor:pointer';
      const draw = () => { box.innerHTML = model.html; };
      box.addEventListener('click', (e) => {
        const w = e.target.closest ? e.target.closest('[data-pos]') : null;
        if (w) model.send_msg({pos: Number(w.dataset.pos), shift: e.shiftKey});
      });
      model.on('html', draw);
      draw();
      el.appendChild(box);
    }
    """.replace("TEXT_STYLE", TEXT_STYLE)

    def __init__(self, callback: Callable[[int, bool], None], **params):
        super().__init__(**params)
        self._callback = callback

    def _handle_msg(self, msg) -> None:
        try:
            pos = int((msg or {})["pos"])
        except (KeyError, TypeError, ValueError):
            return
        self._callback(pos, bool((msg or {}).get("shift")))


def words_html(chunkset: ChunkSet, start: int, end: int, *, from_end: bool = False, limit: int = CONTEXT_CHARS) -> str:
    """Canonical text [start, end) (the strategy's skipped elements left out) as escaped HTML with
    every word in a `<span data-pos>`: its first ~`limit` characters, or its last (`from_end`)."""
    doc = chunkset.doc
    starts = word_starts(chunkset, start, end)
    if not starts:
        return ""
    picked: list[tuple[int, str]] = []
    used = 0
    for pos in (reversed(starts) if from_end else starts):
        m = re.match(r"\S+", doc.text[pos:end])
        word = m.group(0) if m else ""
        used += len(word) + 1
        if used > limit and picked:
            break
        picked.append((pos, word))
    picked.sort()
    out = ["…"] if from_end and picked[0][0] > starts[0] else []
    for k, (pos, word) in enumerate(picked):
        if k:
            gap = doc.text[picked[k - 1][0] + len(picked[k - 1][1]):pos]
            out.append("\n\n" if "\n\n" in gap else "\n" if "\n" in gap else " ")
        out.append(f'<span data-pos="{pos}">{html.escape(word)}</span>')
    if not from_end and picked[-1][0] < starts[-1]:
        out.append("…")
    return "".join(out)
