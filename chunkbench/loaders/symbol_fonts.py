"""Glyphs of symbol fonts read as the letters of their codes, given back the symbols they draw.

A PDF that sets a bullet or a check box in Wingdings without a Unicode map for it gives the
glyph's code as text: a 10-K's cover reads "Yes x No ¨" where the page shows "Yes ⌧ No ◻"
(Wingdings 0x78 and 0xA8), and bullets come out as "l", "§" or "Ø". Windows symbol fonts may
also map their codes to U+F020–U+F0FF (private use: "\\uf078", "\\uf0b7"). Wingdings has no
letters at all, so any code of a span set in it is a symbol: the common ones (bullets, boxes,
check marks, arrows) are mapped after the Unicode correspondences of the Wingdings code page
(Unicode 7.0 encoded them); other codes are left as they are. Symbol's private-use bullet
(U+F0B7) becomes "•"; its plain codes are left alone, since Symbol with a Unicode map gives
Greek and mathematics as they should be.

A bullet drawn from a font with no Unicode map at all (a Type 3 font: pdfTeX's bitmap TS1 font
sets \\textbullet at code 0x88; ReportMill numbers its glyphs from 0) reads as a control
character, which is never text: one that opens a line before a space and a word is the list's
marker and becomes "•" (`bullet_codes`; gnuplot's manual has 132 such items). TeX's math
extension and picture fonts draw big delimiters and line slopes at control codes too, so their
codes are left as they are.
"""

from __future__ import annotations

import functools
import re

#: Wingdings code → the character it draws: bullets, boxes, check marks and arrows used as bullets
WINGDINGS = {
    0x6C: "●", 0x6D: "❍", 0x6E: "■", 0x6F: "□", 0x71: "❑", 0x72: "❒", 0x73: "⬧", 0x74: "⧫",
    0x75: "◆", 0x76: "❖", 0x77: "⬥", 0x78: "⌧", 0x9E: "·", 0x9F: "•", 0xA0: "▪", 0xA1: "○",
    0xA4: "◉", 0xA5: "◎", 0xA7: "▪", 0xA8: "◻", 0xD8: "➢", 0xE8: "➔", 0xF0: "⇨", 0xFA: "▫",
    0xFB: "✗", 0xFC: "✓", 0xFD: "☒", 0xFE: "☑",
}
#: Symbol code → character, for the private-use code points only (U+F000 + code)
SYMBOL = {0xB7: "•"}
_SUBSET = re.compile(r"^[A-Z]{6}\+")
#: the C0 and C1 control characters that are not whitespace to Python (str.split keeps them): a
#: glyph's code read as text, never text itself (a regex character class's contents)
CONTROL_GLYPHS = r"\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f"
#: a control character opening a line, then a space, on a line with a word
_MARKER_CODE = re.compile(f"^[{CONTROL_GLYPHS}](?=[ \\t]+[^\\n]*?[^\\W\\d_]{{2}})", re.MULTILINE)
#: fonts that draw other glyphs at control codes: math extension (CMEX, LM/TeX Gyre MathExtension,
#: MathEx), the picture mode's line and circle fonts
_CONTROL_GLYPH_FONT = re.compile(r"cmex|math ?ex|line(?:w)?10|lcircle", re.IGNORECASE)
_PRIVATE_BASE = 0xF000


@functools.lru_cache(maxsize=256)  # called for every span; a document has a handful of fonts
def _table(font: str) -> tuple[dict[int, str], bool] | None:
    """The code table of `font` (a PDF font name, subset prefix and style allowed), and whether
    its plain (not private-use) codes are symbols too; None for any other font."""
    name = _SUBSET.sub("", font).lower().replace(" ", "").replace("-", "")
    if name.startswith("wingdings") and not name.startswith(("wingdings2", "wingdings3")):
        return WINGDINGS, True
    if name.startswith("symbol"):
        return SYMBOL, False
    return None


def symbol_text(font: str, text: str) -> str:
    """`text` of a span set in `font`, with the symbol-font codes it holds as the characters they
    draw (unchanged for other fonts and codes)."""
    table = _table(font) if font else None
    if table is None:
        return text
    codes, plain = table
    out = []
    for ch in text:
        n = ord(ch)
        if _PRIVATE_BASE + 0x20 <= n <= _PRIVATE_BASE + 0xFF:  # the font's code, mapped to private use
            out.append(codes.get(n - _PRIVATE_BASE, ch))
        elif plain and n <= 0xFF:  # the code itself, read as a Latin-1 letter
            out.append(codes.get(n, ch))
        else:
            out.append(ch)
    return "".join(out)


def bullet_codes(text: str, font: str = "") -> str:
    """`text` with a control character that opens a line before a space and a word (a list
    marker's glyph code, from a font with no Unicode map) given as "•"; a word is two letters
    in a row anywhere on the line ("\\x88 3D plot style", "\\x88 (5.4.2) …"). `font`, the font the
    text opens in, if known."""
    if font and _CONTROL_GLYPH_FONT.search(font):
        return text
    return _MARKER_CODE.sub("•", text)
