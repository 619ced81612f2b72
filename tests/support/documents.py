"""Documents built by hand for tests: element dicts to a Document, and element streams the
fuzzing found."""

from __future__ import annotations

#: a caption, then page furniture carrying an identifier the body never states, then the table the
#: caption titles (found by `make fuzz`: the header parted the caption from its table)
CAPTION_HEADER_TABLE = [
    {"type": "paragraph", "text": "The charges the Supplier may invoice are below.", "page_idx": 0},
    {"type": "caption", "text": "Table 1: Charges", "page_idx": 0},
    {"type": "header", "text": "Agreement ABC-123", "page_idx": 0},
    {"type": "table", "text": "Item Fee", "page_idx": 0},
    {"type": "heading", "text": "1 DEFINITIONS", "page_idx": 0},
]


def make_doc(elements, pages=None, *, source="test.json", metadata=None):
    """A Document from element dicts (id, type, text, page_idx, bbox, text_level, ...) for tests.

    Missing ids become `e{n}`; pages default to A4-sized pages covering every page_idx used.
    """
    import hashlib

    from chunkbench.types.document import Document, Element, Page, ParserInfo, with_offsets

    els = []
    for n, d in enumerate(elements):
        d = {"id": f"e{n}", "text": "", "page_idx": 0, **d}
        els.append(Element.from_dict(d))
    if pages is None:
        used = [e.last_page_idx for e in els if e.last_page_idx is not None]
        pages = [Page(i, 595.0, 842.0) for i in range(max(used) + 1)] if used else []
    doc_id = hashlib.sha256(repr([e.to_dict() for e in els]).encode()).hexdigest()
    return Document(
        doc_id=doc_id, source=source, pages=tuple(pages), elements=with_offsets(els),
        parser=ParserInfo("test"), metadata=dict(metadata or {}),
    )
