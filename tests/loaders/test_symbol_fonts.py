"""Symbol-font codes read as letters (loaders/symbol_fonts.py), on a real 10-K cover."""

from __future__ import annotations

import pymupdf

import chunkbench as cb
from chunkbench.loaders.symbol_fonts import bullet_codes, symbol_text
from tests.support.paths import shared_pdf


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


def test_a_control_character_opening_a_line_before_a_word_is_a_bullet():
    """The marker's code from a font with no Unicode map (gnuplot's, on a real PDF: test_loader_pdf)."""
    assert bullet_codes("\x88 All evaluation\n\x03\tthe claim") == "• All evaluation\n•\tthe claim"
    assert bullet_codes("dell\x00Assicurato") == "dell\x00Assicurato"  # inside a line: not a marker
    assert bullet_codes("\x00Assicurato") == "\x00Assicurato"  # no space after it
    assert bullet_codes("\x12 x") == "\x12 x" and bullet_codes("\x05 0") == "\x05 0"  # math, not words
    assert bullet_codes("\x85 next") == "\x85 next"  # NEL is a line break, not a glyph
    # TeX's math extension and picture fonts draw delimiters and slopes at control codes
    for font in ("CMEX10", "LMMathExtension10-Regular", "TMMathEx", "LINE10", "LINEW10"):
        assert bullet_codes("\x10 ac", font) == "\x10 ac"
    assert bullet_codes("\x88 All", "F43") == "• All"
    assert bullet_codes("\x88 3D plot style\n\x88 (5.4.2) in context\n\x88 ^R initiates") == (
        "• 3D plot style\n• (5.4.2) in context\n• ^R initiates"
    )
