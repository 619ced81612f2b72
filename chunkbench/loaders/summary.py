"""One-screen text summary of a Document: pages, elements by type, heading outline, warnings."""

from __future__ import annotations

from collections import Counter

from chunkbench.types.document import Document

from .contents import OPTION as CONTENTS
from .dehyphenate import OPTION_DROPPED, OPTION_KEPT
from .footnotes import OPTION as FOOTNOTES
from .footnotes import OPTION_PLACED as FOOTNOTES_PLACED
from .paragraphs import OPTION as JOINED_PARAGRAPHS
from .running_headers import OPTION as FURNITURE_HEADINGS
from .stitch import OPTION as STITCHED_TABLES
from .table_titles import OPTION as TABLE_TITLES
from .title_page import OPTION as TITLE_PAGE

#: what the loader put back together, as ParserInfo.options counts it, and how `info` says it
REPAIRS = (
    (FURNITURE_HEADINGS, "running header(s) read as a heading (or set apart as a masthead) made furniture"),
    (TABLE_TITLES, "table title(s) read as a heading made caption(s)"),
    (FOOTNOTES, "paragraph(s) at a column's foot in small type made footnotes"),
    (STITCHED_TABLES, "table(s) continued on the next page joined"),
    (CONTENTS, "block(s) of a table of contents or index typed toc / index (strategies skip them)"),
    (TITLE_PAGE, "title-page line(s) read as headings made paragraphs"),
    (FOOTNOTES_PLACED, "footnote(s) moved next to the text that cites them, out of a table or paragraph they interrupted"),
    (JOINED_PARAGRAPHS, "paragraph(s) split by a column or page break (or by the parser) joined"),
    (OPTION_DROPPED, "line-end hyphen(s) dropped"),
    (OPTION_KEPT, "kept"),
)


def document_summary(doc: Document, max_outline: int = 40) -> dict:
    """The facts `chunkbench info` prints, as a dict (also used by --json)."""
    by_type = Counter(e.type for e in doc.elements)
    outline = [
        {"level": e.text_level or 1, "text": " ".join(e.text.split())[:100], "page": (e.page_idx or 0) + 1}
        for e in doc.elements
        if e.type == "heading" and e.text.strip()
    ]
    return {
        "source": doc.source,
        "doc_id": doc.doc_id,
        "parser": doc.parser.to_dict(),
        "pages": len(doc.pages),
        "elements": len(doc.elements),
        "empty_elements": sum(1 for e in doc.elements if e.is_empty),
        "by_type": dict(sorted(by_type.items())),
        "pages_without_text": [i + 1 for i in doc.pages_without_text],
        "repairs": {key: doc.parser.options[key] for key, _ in REPAIRS if doc.parser.options.get(key)},
        "outline": outline[:max_outline],
        "outline_total": len(outline),
        "warnings": list(doc.warnings),
    }


def format_summary(doc: Document, max_outline: int = 40) -> str:
    """Human-readable summary that fits one screen."""
    s = document_summary(doc, max_outline)
    lines = [
        f"{s['source']}  ({doc.parser.label})",
        f"  doc_id   {s['doc_id'][:16]}…",
        f"  pages    {s['pages']}",
        f"  elements {s['elements']}" + (f" ({s['empty_elements']} empty)" if s["empty_elements"] else ""),
        "  by type  " + ", ".join(f"{k} {v}" for k, v in s["by_type"].items()),
    ]
    if s["pages_without_text"]:
        pages = s["pages_without_text"]
        shown = ", ".join(map(str, pages[:20])) + (" …" if len(pages) > 20 else "")
        lines.append(f"  no text  {len(pages)} page(s): {shown}")
    if s["repairs"]:
        repairs = s["repairs"]
        labels = dict(REPAIRS)
        if OPTION_DROPPED not in repairs:  # a bare "kept" reads only after "… hyphen(s) dropped"
            labels[OPTION_KEPT] = "line-end hyphen(s) kept"
        lines.append("  repaired " + ", ".join(f"{repairs[key]} {labels[key]}" for key, _ in REPAIRS if key in repairs))
    for w in s["warnings"]:
        lines.append(f"  warning  {w}")
    if s["outline"]:
        lines.append("  outline")
        for h in s["outline"]:
            lines.append(f"    {'  ' * (h['level'] - 1)}{h['text']}  (p. {h['page']})")
        if s["outline_total"] > len(s["outline"]):
            lines.append(f"    … {s['outline_total'] - len(s['outline'])} more headings")
    else:
        lines.append("  outline  (no headings found)")
    return "\n".join(lines)


def parse_table(docs: dict[str, Document]) -> list[dict]:
    """One row per parse of the same PDF (name -> Document): parser, pages, elements by type, headings
    by level, so two parsers can be compared side by side (`pandas.DataFrame(parse_table(...))`)."""
    types = sorted({e.type for doc in docs.values() for e in doc.elements})
    rows = []
    for name, doc in docs.items():
        by_type = Counter(e.type for e in doc.elements)
        levels = Counter(e.text_level for e in doc.elements if e.type == "heading")
        row = {
            "parse": name,
            "parser": doc.parser.label,
            "pages": len(doc.pages),
            "elements": len(doc.elements),
            "characters": len(doc.text),
            "heading levels": " ".join(f"h{lv}:{n}" for lv, n in sorted(levels.items(), key=lambda x: x[0] or 0)),
        }
        row.update({t: by_type.get(t, 0) for t in types})
        rows.append(row)
    return rows
