"""The text of a piece of HTML as a reader sees it: runs of white space collapsed to one space,
line breaks where a block ends or a `<br>` stands, comments left out."""

from __future__ import annotations

from collections.abc import Iterable

from lxml import etree

#: elements that start a new line of text (the HTML block-level elements, list and table parts)
BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "dir",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hgroup", "hr", "html", "li", "listing", "main", "menu", "nav", "ol", "p", "plaintext", "pre",
    "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul", "xmp",
})


def flat_text(element: etree._Element, *, lines: bool = True) -> str:
    """The element's text with white space collapsed: one line per block inside it (`lines`), or
    everything on one line (a table cell, a heading). Text inside `<pre>` keeps its line breaks."""
    return run_text([element], lines=lines, tails=False)


def run_text(run: Iterable[str | etree._Element], *, lines: bool = True, tails: bool = True) -> str:
    """The text of a run of strings and elements (each element with its tail, unless not `tails`),
    white space collapsed as `flat_text` does."""
    out: list[list[str]] = [[]]
    for piece in run:
        if isinstance(piece, str):
            out[-1].append(piece)
        else:
            _walk(piece, out)
            if tails and piece.tail:
                out[-1].append(piece.tail)
    texts = [" ".join("".join(parts).split()) for parts in out]
    return ("\n" if lines else " ").join(t for t in texts if t)


def _walk(element: etree._Element, out: list[list[str]]) -> None:
    """The text inside `element` (not its tail) into `out`, a new line at each block and `<br>`."""
    in_pre = 0
    for event, node in etree.iterwalk(element, events=("start", "end")):
        tag = node.tag if isinstance(node.tag, str) else None
        if event == "start":
            if tag is None:  # a comment or processing instruction: its text is not shown
                continue
            if tag in BLOCK_TAGS or tag == "br":
                out.append([])
            if tag == "pre":
                in_pre += 1
            if node.text:
                _add(out, node.text, in_pre > 0)
        else:
            if tag in BLOCK_TAGS:
                out.append([])
            if tag == "pre":
                in_pre -= 1
            if node is not element and node.tail:
                _add(out, node.tail, in_pre > 0)


def _add(out: list[list[str]], text: str, verbatim: bool) -> None:
    """Text into the open line; inside `<pre>` each of its line breaks opens a new line."""
    if not verbatim:
        out[-1].append(text)
        return
    first, *rest = text.split("\n")
    out[-1].append(first)
    for piece in rest:
        out.append([piece])
