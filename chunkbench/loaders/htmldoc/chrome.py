"""What of an HTML page is not the document: navigation, tables of contents, menus, indexes,
sidebars, header links and page chrome, as Texinfo, DocBook-XSL, Sphinx and pandoc write them; and
the boxes that are part of it but read differently: admonitions and footnotes.

Rules by tag, class token, role and id, never by position: a page from any of those generators
(or written by hand with the same conventions) loses the same parts."""

from __future__ import annotations

from lxml import etree

#: elements that never hold the document's text (scripts, media, forms, navigation)
DROPPED_TAGS = frozenset({
    "head", "script", "style", "noscript", "template", "nav", "img", "svg", "canvas", "video", "audio", "iframe",
    "object", "embed", "form", "button", "input", "select", "textarea", "link", "meta", "footer", "map", "area",
})

#: class tokens of page chrome, by generator
DROPPED_CLASSES = frozenset({
    # Sphinx: sidebars, the related-pages bars, the permalink signs, local tables of contents, index pages
    "sphinxsidebar", "sphinxsidebarwrapper", "related", "footer", "headerlink", "contents", "clearer",
    "indextable", "genindex-jumpbox", "modindex-jumpbox", "toctree-wrapper-placeholder",
    # Texinfo: node navigation, tables of contents, menus, mini tables of contents, indexes, anchors
    "header", "nav-panel", "shortcontents", "Contents_element", "Overview_element", "menu", "mini-toc",
    "section-toc", "printindex", "copiable-anchor", "copiable-link", "index-entry-id",
    # DocBook-XSL: navigation headers and footers, tables of contents and lists of tables/figures, the index
    "navheader", "navfooter", "toc", "list-of-tables", "list-of-figures", "list-of-examples",
    "list-of-equations", "list-of-procedures", "index", "legalnotice",
    # pandoc: the way back from a footnote
    "footnote-back",
})
#: class token prefixes of chrome (Sphinx's toctree entries `toctree-l1`...; Texinfo's index tables
#: `index-cp`, `cp-entries-printindex`...)
DROPPED_CLASS_PREFIXES = ("toctree-l", "index-")
DROPPED_CLASS_SUFFIXES = ("-printindex",)
#: ARIA roles of chrome
DROPPED_ROLES = frozenset({"navigation", "search", "banner", "contentinfo", "doc-backlink", "doc-toc"})
#: `rel` values of links that move between pages (a "Next" link in the page's body is navigation)
NAVIGATION_RELS = frozenset({"next", "prev", "previous", "up", "contents", "index", "start", "home", "first", "last"})
#: parts of a table: their classes say how a row looks, never that it is chrome
_TABLE_PARTS = frozenset({"tr", "td", "th", "thead", "tbody", "tfoot"})
#: ids of tables of contents
DROPPED_IDS = frozenset({"toc", "TOC", "table-of-contents", "sidebar"})

#: class tokens naming an admonition's kind (Sphinx, DocBook-XSL, pandoc fenced divs, MkDocs)
ADMONITION_KINDS = frozenset({
    "note", "tip", "warning", "caution", "important", "attention", "danger", "error", "hint", "seealso", "notice",
})
#: class tokens of an admonition whose kind its title says
ADMONITION_BOXES = frozenset({"admonition", "markdown-alert"})
#: class tokens of an admonition's title (Sphinx and MkDocs; GitHub alerts)
ADMONITION_TITLES = frozenset({"admonition-title", "markdown-alert-title"})

#: class tokens and roles of a footnote, or of the block holding a page's footnotes
FOOTNOTE_CLASSES = frozenset({"footnote", "footnotes", "footnote-list", "footnotes-end-of-document"})
FOOTNOTE_ROLES = frozenset({"doc-endnotes", "doc-footnote", "doc-endnote"})
#: class tokens of a footnote's mark inside it (Sphinx's label)
FOOTNOTE_MARKS = frozenset({"label", "fn-bracket"})


def classes(element: etree._Element) -> frozenset[str]:
    """The class tokens of an element."""
    value = element.get("class")
    return frozenset(value.split()) if value else frozenset()


def is_chrome(element: etree._Element) -> bool:
    """Whether the element (and all inside it) is page chrome, not document text."""
    tag = element.tag
    if not isinstance(tag, str):
        return True  # comments and processing instructions
    if tag in DROPPED_TAGS:
        return True
    if element.get("role") in DROPPED_ROLES or element.get("id") in DROPPED_IDS:
        return True
    if element.get("aria-hidden") == "true":
        return True
    if tag == "a" and set((element.get("rel") or "").lower().split()) & NAVIGATION_RELS:
        return True
    if tag in _TABLE_PARTS:
        return False  # a row classed "header" (pandoc's) is the table's header row, not page chrome
    tokens = classes(element)
    if tokens & DROPPED_CLASSES or any(t.startswith(DROPPED_CLASS_PREFIXES) or t.endswith(DROPPED_CLASS_SUFFIXES)
                                       for t in tokens):
        return True
    # Texinfo's index "Jump to:" bars: a table of letter links with no class of its own
    return tag == "table" and element.find(".//a[@class='summary-letter']") is not None


def strip_chrome(body: etree._Element) -> int:
    """Remove every chrome element under `body` (their tails, text between elements, stay);
    the number removed."""
    doomed = [e for e in body.iter() if e is not body and is_chrome(e)]
    dropped = 0
    for element in doomed:
        parent = element.getparent()
        if parent is None:
            continue  # already gone with an ancestor
        _remove_keeping_tail(element, parent)
        dropped += 1
    return dropped


def _remove_keeping_tail(element: etree._Element, parent: etree._Element) -> None:
    tail = element.tail
    previous = element.getprevious()
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def admonition_kind(element: etree._Element) -> str | None:
    """The kind of the admonition `element` is ("note", "warning", ...), or None: a class naming a
    kind, or an admonition box (its kind said by its title, else "admonition"). A `<table>` is never
    one itself (DocBook's is the table inside a `div.note`)."""
    if element.tag not in ("div", "aside", "section", "blockquote"):
        return None
    tokens = classes(element)
    kinds = sorted(tokens & ADMONITION_KINDS)
    if kinds:
        return kinds[0]
    if tokens & ADMONITION_BOXES:
        return "admonition"
    return None


def is_admonition_title(element: etree._Element) -> bool:
    return bool(classes(element) & ADMONITION_TITLES)


def is_footnotes(element: etree._Element) -> bool:
    """Whether `element` is a footnote or the block of a page's footnotes."""
    if element.tag in ("a", "sup", "span"):
        return False  # a citation's mark (`a.footnote-reference`) is text, not the note
    return bool(classes(element) & FOOTNOTE_CLASSES) or element.get("role") in FOOTNOTE_ROLES
