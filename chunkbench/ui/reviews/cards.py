"""The review app's HTML pieces: the boundary's page crop as data, the reason and verdict card, the
text on each side of the boundary (all text escaped; styles inline, since every Panel pane has its own
shadow root)."""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable

from chunkbench.types.chunk import Chunk
from chunkbench.types.review import VERDICT_LABELS, Verdict
from chunkbench.ui.styles import TEXT_STYLE, banner

#: characters of text shown on each side of the boundary
CONTEXT_CHARS = 700

_BADGE_STYLE = ("background:#1f5fa8;color:#fff;border-radius:4px;padding:1px 7px;font-family:monospace;"
                "font-size:13px")


def data_url(png: bytes) -> str:
    """A PNG as a data: URL (the app works offline, with no file server)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def png_width(png: bytes) -> int:
    """A PNG's own width in pixels (from its IHDR), 0 when unreadable: the image is shown as wide
    as the app up to this, so its labels show at the overlay's size (>= 11 CSS px)."""
    return int.from_bytes(png[16:20], "big") if png[12:16] == b"IHDR" else 0


def info_html(c: Chunk, mine: Verdict | None, others: Iterable[Verdict], earlier: Iterable[Verdict],
              defects: Iterable = ()) -> str:
    """Why the chunk starts here, its type and size, the defects found in it (evaluate.defects), the
    reviewer's verdict, the other reviewers' verdicts, and the verdicts of earlier runs whose
    boundary is unchanged."""
    e = html.escape
    rows = [
        f'<div class="cb-reason" style="font-size:15px;margin-bottom:4px">Starts here because '
        f'<span class="cb-badge" style="{_BADGE_STYLE}">{e(c.boundary.reason.value)}</span> '
        f'{e(c.boundary.detail)}</div>',
        f'<div>type <b>{e(c.type)}</b> · {c.char_len} chars · {c.tokens_est} tokens'
        + (f' · section {e(" › ".join(c.section_path))}' if c.section_path else "") + "</div>",
    ]
    defects = list(defects)
    if defects:
        rows.append('<div class="cb-defects" style="color:#b01e1e">Defects: ' + "; ".join(
            f"<b>{e(f.code.value)}</b> {e(f.detail)}" for f in defects) + "</div>")
    if mine is not None:
        rows.append(f'<div class="cb-verdict">Your verdict: <b>{e(VERDICT_LABELS[mine.verdict])}</b>'
                    + (f' — “{e(mine.comment)}”' if mine.comment else "") + "</div>")
    else:
        rows.append('<div class="cb-verdict">Your verdict: <i>none yet</i></div>')
    others = list(others)
    if others:
        rows.append("<div>Other reviewers: " + "; ".join(
            f"{e(v.reviewer or '(anonymous)')}: {e(VERDICT_LABELS[v.verdict])}" for v in others) + "</div>")
    earlier = list(earlier)
    if earlier:
        rows.append(banner("This boundary is unchanged from earlier runs with other parameters; their verdicts "
                           "still apply: " + "; ".join(f"{e(VERDICT_LABELS[v.verdict])} by {e(v.reviewer or '(anonymous)')} "
                                                       f"(params {short_hash(v.params_hash)})" for v in earlier),
                           "cb-earlier"))
    return "".join(rows)


def pre(text: str, css_class: str) -> str:
    """Escaped text in a scrolling box."""
    return f'<pre class="{css_class}" style="{TEXT_STYLE}">{html.escape(text)}</pre>'


def short_hash(params_hash: str) -> str:
    return params_hash[:10]


def tail(text: str, n: int = CONTEXT_CHARS) -> str:
    """The last ~n characters of `text`, starting at a word."""
    if len(text) <= n:
        return text
    cut = text[-n:]
    space = cut.find(" ")
    return "…" + (cut[space + 1:] if 0 <= space < 40 else cut)


def head(text: str, n: int = CONTEXT_CHARS) -> str:
    """The first ~n characters of `text`, ending at a word."""
    if len(text) <= n:
        return text
    cut = text[:n]
    space = cut.rfind(" ")
    return (cut[:space] if space > n - 40 else cut) + "…"


def pages_label(c: Chunk) -> str:
    if c.page_start is None:
        return "no page"
    if c.page_end and c.page_end != c.page_start:
        return f"pages {c.page_start}–{c.page_end}"
    return f"page {c.page_start}"
