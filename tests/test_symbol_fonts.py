"""Symbol-font codes read as letters (loaders/symbol_fonts.py), on a real 10-K cover."""

from __future__ import annotations

import pymupdf

import chunkbench as cb
from chunkbench.loaders.symbol_fonts import symbol_text
from tests.conftest import shared_pdf


def test_a_10k_covers_check_boxes_read_as_boxes_not_letters():
    """Best Buy's 10-K sets its cover's check boxes in Wingdings: PyMuPDF reads the checked box as
    "x" (code 0x78) and the empty one as "¨" (0xA8)."""
    path = shared_pdf("financial_bestbuy-2023-10k.pdf")
    page = pymupdf.open(path)[0]
    raw = [s["text"] for b in page.get_text("dict")["blocks"] for ln in b.get("lines", ()) for s in ln["spans"]
           if s["font"].startswith("Wingdings")]
    assert {"x", "¨"} <= set(raw)  # what the PDF itself gives, so the test cannot pass vacuously
    doc = cb.load(path)
    cover = [e.text for e in doc.elements if e.page_idx == 0]
    well_known = next(t for t in cover if "well-known seasoned issuer" in t)
    assert well_known.endswith("Securities Act. Yes ⌧ No")
    assert any("◻" in t for t in cover)
    assert not any(t.endswith(("Yes x No", "No x")) or "¨" in t for t in cover)
    # nothing else of the filing changes: its prose keeps every "x" it has
    assert "tax" in doc.text and "exhibit" in doc.text.lower()


def test_only_symbol_font_codes_change():
    assert symbol_text("ABCDEF+Wingdings-Regular", "x") == "⌧"
    assert symbol_text("Wingdings", "\uf0fe \uf0a8") == "☑ ◻"  # private-use codes too
    assert symbol_text("Wingdings-Regular", "l") == "●" and symbol_text("Wingdings", "\uf0d8") == "➢"
    assert symbol_text("Wingdings", "%") == "%"  # a code with no symbol mapped here stays
    assert symbol_text("Wingdings2", "x") == "x" and symbol_text("Wingdings-3", "x") == "x"  # other code pages
    assert symbol_text("SymbolMT", "\uf0b7") == "•" and symbol_text("Symbol", "a") == "a"  # mapped Greek stays
    assert symbol_text("TimesNewRomanPSMT", "x ¨ \uf078") == "x ¨ \uf078"
    assert symbol_text("", "x") == "x"
