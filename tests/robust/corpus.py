"""The hostile-input corpus, generated (nothing binary is committed).

Each builder writes one input into a folder and returns its path; `build_all(folder)` writes the
cheap ones. Run `python tests/robust/corpus.py DIR` to look at them by hand. Deterministic: the
same bytes every run (fixed seeds, no timestamps in the PDFs).
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path

import pymupdf

PASSWORD = "s3cret"
#: text a document could contain that must never run as code or be lost
HOSTILE_LINES = (
    "Arabic RTL: مرحبا بالعالم and Hebrew: שלום עולם",
    "CJK: 数据处理协议第一条。日本語のテキスト。한국어 텍스트",
    "Emoji: 😀👩‍👩‍👧‍👦🇬🇧 and combining: e\u0301 a\u0308",
    "Zero-width: a\u200bb\u200cc\u200dd\ufeffe and controls: x\x01y\x07z\x1bw",
    "<script>alert('x')</script> <img src=x onerror=alert(1)>",
    "[click](javascript:alert(1)) <a href=\"javascript:alert(2)\">link</a>",
    "<!-- an HTML comment --> after the comment",
)

BUILDERS: dict[str, Callable[[Path], Path]] = {}


def builder(name: str):
    def register(fn: Callable[[Path], Path]) -> Callable[[Path], Path]:
        BUILDERS[name] = fn
        return fn

    return register


def _save(doc: pymupdf.Document, path: Path, **kw) -> Path:
    doc.set_metadata({})  # no creation date: same bytes every run
    doc.save(path, garbage=3, deflate=True, no_new_id=True, **kw)
    doc.close()
    return path


def body_text(page: pymupdf.Page, label: str, x: float = 72, y: float = 72, paragraphs: int = 3) -> None:
    """A heading and a few wrapped paragraphs that a layout model reads as body text.

    Every paragraph contains `label`, so a test can find each one in the loaded text."""
    page.insert_text((x, y + 20), f"{label} heading", fontsize=18)
    for i in range(paragraphs):
        top = y + 50 + 90 * i
        words = f"Paragraph {i} of {label}: the supplier shall deliver the services described here. " * 4
        page.insert_textbox(pymupdf.Rect(x, top, x + 450, top + 80), words, fontsize=10)


def text_pdf(path: Path, pages: int = 3, **kw) -> Path:
    """An ordinary PDF with a heading and a few paragraphs per page."""
    doc = pymupdf.open()
    for p in range(pages):
        body_text(doc.new_page(), f"page {p + 1}")
    return _save(doc, path, **kw)


@builder("corrupt.pdf")
def corrupt_pdf(folder: Path) -> Path:
    """A PDF header followed by random bytes."""
    rnd = random.Random(7)
    path = folder / "corrupt.pdf"
    path.write_bytes(b"%PDF-1.7\n" + bytes(rnd.randrange(256) for _ in range(4000)))
    return path


@builder("truncated.pdf")
def truncated_pdf(folder: Path) -> Path:
    """A valid 3-page PDF cut after 60% of its bytes (no xref, no trailer)."""
    full = text_pdf(folder / "full_for_truncation.pdf")
    data = full.read_bytes()
    full.unlink()
    path = folder / "truncated.pdf"
    path.write_bytes(data[: int(len(data) * 0.6)])
    return path


def raw_pdf(objs: list[bytes]) -> bytes:
    """A PDF written by hand from object bodies (object 1 is the catalog), with a correct xref:
    for files PyMuPDF refuses to make."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for n, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


@builder("zero_pages.pdf")
def zero_pages_pdf(folder: Path) -> Path:
    """A syntactically valid PDF whose page tree is empty (PyMuPDF refuses to save one)."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    path = folder / "zero_pages.pdf"
    path.write_bytes(raw_pdf(objs))
    return path


@builder("encrypted_user.pdf")
def encrypted_user_pdf(folder: Path) -> Path:
    """Needs PASSWORD to open (user password)."""
    return text_pdf(folder / "encrypted_user.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256,
                    user_pw=PASSWORD, owner_pw=PASSWORD + "-owner")


@builder("encrypted_owner.pdf")
def encrypted_owner_pdf(folder: Path) -> Path:
    """Opens without a password; only an owner password restricts copying and printing."""
    return text_pdf(folder / "encrypted_owner.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256,
                    owner_pw=PASSWORD, permissions=0)


@builder("image_only.pdf")
def image_only_pdf(folder: Path) -> Path:
    """Page 1 has text; page 2 is only a picture of text (a scan): no text layer."""
    src = pymupdf.open(text_pdf(folder / "src_for_image.pdf", pages=1))
    pix = src[0].get_pixmap(dpi=72)
    src.close()
    (folder / "src_for_image.pdf").unlink()
    doc = pymupdf.open()
    body_text(doc.new_page(), "the text page")
    doc.new_page().insert_image(pymupdf.Rect(0, 0, 595, 842), pixmap=pix)
    return _save(doc, folder / "image_only.pdf")


@builder("huge_page.pdf")
def huge_page_pdf(folder: Path) -> Path:
    """One page at PDF's maximum size (14,400 pt square) with text near the far corner."""
    doc = pymupdf.open()
    page = doc.new_page(width=14400, height=14400)
    body_text(page, "the near corner")
    body_text(page, "the far corner", x=13800, y=14000)
    return _save(doc, folder / "huge_page.pdf")


@builder("rotated.pdf")
def rotated_pdf(folder: Path) -> Path:
    """Four pages rotated 0, 90, 180 and 270 degrees, each with its number in its text."""
    doc = pymupdf.open()
    for rot in (0, 90, 180, 270):
        page = doc.new_page()
        body_text(page, f"rotation {rot}")
        page.set_rotation(rot)
    return _save(doc, folder / "rotated.pdf")


@builder("slanted.pdf")
def slanted_pdf(folder: Path) -> Path:
    """One page of lines set at 45 degrees: a text layer the layout model reads nothing of."""
    doc = pymupdf.open()
    page = doc.new_page()
    for i in range(8):  # this very text: the layout model finds a box of it with none of its lines
        at = pymupdf.Point(100, 150 + 40 * i)
        page.insert_text(at, "The supplier shall deliver the goods within thirty days.", fontsize=11,
                         morph=(at, pymupdf.Matrix(45)))
    return _save(doc, folder / "slanted.pdf")


@builder("deep_outline.pdf")
def deep_outline_pdf(folder: Path) -> Path:
    """A page of body text under an outline nested 5,000 levels deep (PyMuPDF reads outlines by recursion)."""
    doc = pymupdf.open()
    body_text(doc.new_page(), "Deep outline")
    root, items = doc.get_new_xref(), [doc.get_new_xref() for _ in range(5000)]
    for i, xref in enumerate(items):
        child = f"/First {items[i + 1]} 0 R /Last {items[i + 1]} 0 R /Count 1" if i + 1 < len(items) else ""
        parent = items[i - 1] if i else root
        doc.update_object(xref, f"<< /Title (Level {i}) /Parent {parent} 0 R /Dest [{doc[0].xref} 0 R /Fit] {child} >>")
    doc.update_object(root, f"<< /Type /Outlines /First {items[0]} 0 R /Last {items[0]} 0 R /Count 5000 >>")
    doc.xref_set_key(doc.pdf_catalog(), "Outlines", f"{root} 0 R")
    return _save(doc, folder / "deep_outline.pdf")


@builder("annotated_page.pdf")
def annotated_page_pdf(folder: Path) -> Path:
    """A page of body text under 2,000 FreeText annotations, each with an appearance, tiling the page."""
    doc = pymupdf.open()
    page = doc.new_page()
    body_text(page, "Annotated page")
    look = doc.get_new_xref()
    doc.update_object(look, "<< /Type /XObject /Subtype /Form /BBox [0 0 12 12] >>")
    doc.update_stream(look, b"0 0 1 rg 0 0 3 3 re f")
    annots = []
    for i in range(2000):
        x, y = (i % 50) * 12, (i // 50) * 21
        annots.append(doc.get_new_xref())
        doc.update_object(annots[-1], f"<< /Type /Annot /Subtype /FreeText /Rect [{x} {y} {x + 12} {y + 12}] "
                                      f"/Contents (note {i}) /DA (/Helv 4 Tf 0 g) /AP << /N {look} 0 R >> >>")
    doc.xref_set_key(page.xref, "Annots", "[" + " ".join(f"{x} 0 R" for x in annots) + "]")
    return _save(doc, folder / "annotated_page.pdf")


@builder("square_annotations.pdf")
def square_annotations_pdf(folder: Path) -> Path:
    """A page of body text under 5,000 small `Square` annotations without appearance streams (MuPDF
    draws them), one every point along a diagonal band: the layout model saw the text as pictures."""
    doc = pymupdf.open()
    page = doc.new_page()
    body_text(page, "Square annotations")
    annots = []
    for i in range(5000):
        x, y = i % 500, i % 700
        annots.append(doc.get_new_xref())
        doc.update_object(annots[-1], f"<< /Type /Annot /Subtype /Square /Rect [{x} {y} {x + 5} {y + 5}] /C [1 0 0] >>")
    doc.xref_set_key(page.xref, "Annots", "[" + " ".join(f"{x} 0 R" for x in annots) + "]")
    return _save(doc, folder / "square_annotations.pdf")


@builder("dense_page.pdf")
def dense_page_pdf(folder: Path) -> Path:
    """One page carrying about 100,000 characters of text in a tiny font."""
    doc = pymupdf.open()
    page = doc.new_page()
    words = " ".join(f"word{i % 997}" for i in range(13_000))  # ~100k chars
    rect = pymupdf.Rect(5, 5, 590, 837)
    page.insert_textbox(rect, words, fontsize=1.6)
    return _save(doc, folder / "dense_page.pdf")


def _stream(data: bytes) -> bytes:
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def one_font_page_pdf(content: bytes, font: bytes, *more: bytes) -> bytes:
    """A one-page PDF written by hand whose page draws `content` with one font, /F1 (object 5);
    `more` are objects 6 and on, which the font may refer to."""
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >>"
        b" /Contents 4 0 R >>",
        _stream(content),
        font,
        *more,
    ]
    return raw_pdf(objs)


@builder("no_unicode.pdf")
def no_unicode_pdf(folder: Path) -> Path:
    """A font whose glyph names mean nothing and no ToUnicode map: text extracts as garbage."""
    # names MuPDF cannot read (it takes "g12" for a glyph id and maps some of those to ASCII)
    glyphs = " ".join(f"/x{i}" for i in range(26))
    font = (
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding"
        b" /Differences [65 " + glyphs.encode() + b"] >> >>"
    )
    content = b"BT /F1 14 Tf 72 760 Td (ABCDEFG HIJKLMN OPQRST) Tj 0 -20 Td (UVWXYZ ABC) Tj ET"
    path = folder / "no_unicode.pdf"
    path.write_bytes(one_font_page_pdf(content, font))
    return path


@builder("control_codes.pdf")
def control_codes_pdf(folder: Path) -> Path:
    """A Type 3 font that numbers its glyphs from 1 (names "/1", "/2", …) with no ToUnicode map, as
    some producers subset a font: its text extracts as control characters and the ASCII after
    them (a line of nothing but control characters is dropped as blank by pymupdf4llm)."""
    glyphs = range(1, 61)
    font = (
        b"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 600 700] /FontMatrix [0.001 0 0 0.001 0 0]"
        b" /CharProcs << " + b" ".join(b"/%d 6 0 R" % g for g in glyphs) + b" >>"
        b" /Encoding << /Type /Encoding /Differences [1 " + b" ".join(b"/%d" % g for g in glyphs) + b"] >>"
        b" /FirstChar 1 /LastChar 60 /Widths [" + b" ".join(b"600" for _ in glyphs) + b"] >>"
    )
    box = _stream(b"600 0 0 0 500 700 d1 50 0 450 700 re f")  # object 6: every code draws a filled box
    line = bytes(glyphs).replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    content = b"BT /F1 14 Tf 72 760 Td " + b" ".join(b"(%s) Tj 0 -20 Td" % line for _ in range(12)) + b" ET"
    path = folder / "control_codes.pdf"
    path.write_bytes(one_font_page_pdf(content, font, box))
    return path


@builder("not_a_pdf.pdf")
def not_a_pdf(folder: Path) -> Path:
    """A PNG image with a .pdf name."""
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 8, 8), False)
    path = folder / "not_a_pdf.pdf"
    path.write_bytes(pix.tobytes("png"))
    return path


@builder("hostile_text.pdf")
def hostile_text_pdf(folder: Path) -> Path:
    """The HOSTILE_LINES as PDF text (with a CJK-capable font)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Hostile text", fontsize=18)
    html = "".join(f"<p>{_html_escape(line)}</p>" for line in HOSTILE_LINES)
    page.insert_htmlbox(pymupdf.Rect(72, 100, 520, 800), html)
    return _save(doc, folder / "hostile_text.pdf")


def _html_escape(s: str) -> str:
    import html

    return html.escape("".join(ch for ch in s if ch >= " " or ch in "\n\t"))


def long_pdf(folder: Path, pages: int = 2500) -> Path:
    """A PDF with `pages` pages of one short heading and line each (not in build_all: slow to parse)."""
    doc = pymupdf.open()
    for p in range(pages):
        page = doc.new_page(width=300, height=200)
        page.insert_text((20, 40), f"Part {p + 1}", fontsize=14)
        page.insert_text((20, 70), f"Line on page {p + 1}.", fontsize=9)
    return _save(doc, folder / f"long_{pages}.pdf")


# ---------------------------------------------------------------------------------------------
# MinerU content_list JSON


def content_list(folder: Path, name: str, items, *, raw: bytes | None = None) -> Path:
    """Write `items` (or `raw` bytes) as `{name}_content_list.json` in its own folder."""
    sub = folder / name
    sub.mkdir(parents=True, exist_ok=True)
    path = sub / f"{name}_content_list.json"
    path.write_bytes(raw if raw is not None else json.dumps(items, ensure_ascii=False).encode("utf-8"))
    return path


def _item(text="Some text.", **kw) -> dict:
    return {"type": "text", "text": text, "bbox": [100, 100, 900, 200], "page_idx": 0, **kw}


@builder("mineru_not_json")
def mineru_not_json(folder: Path) -> Path:
    return content_list(folder, "not_json", None, raw=b"[{\"type\": \"text\", \"text\": ")


@builder("mineru_not_list")
def mineru_not_list(folder: Path) -> Path:
    return content_list(folder, "not_list", {"type": "text", "text": "a dict, not a list"})


@builder("mineru_empty")
def mineru_empty(folder: Path) -> Path:
    return content_list(folder, "empty", None, raw=b"")


@builder("mineru_missing_keys")
def mineru_missing_keys(folder: Path) -> Path:
    """Items without `type`, without `page_idx`, and a non-dict item."""
    items = [_item("Good first."), {"text": "no type", "page_idx": 0}, {"type": "text", "text": "no page_idx"}]
    return content_list(folder, "missing_keys", items)


@builder("mineru_wrong_types")
def mineru_wrong_types(folder: Path) -> Path:
    items = [_item("ok"), _item(12345), _item("x", page_idx="3"), _item("y", text_level="big"), "a string item"]
    return content_list(folder, "wrong_types", items)


@builder("mineru_nan_bbox")
def mineru_nan_bbox(folder: Path) -> Path:
    raw = b'[{"type": "text", "text": "nan box", "bbox": [NaN, 0, 10, 10], "page_idx": 0}]'
    return content_list(folder, "nan_bbox", None, raw=raw)


@builder("mineru_odd_bboxes")
def mineru_odd_bboxes(folder: Path) -> Path:
    """Negative, reversed and outside-the-page bboxes (with a PDF beside, so they become points)."""
    items = [_item("negative", bbox=[-50, -20, 300, 400]), _item("reversed", bbox=[900, 800, 100, 200]),
             _item("outside", bbox=[500, 500, 4000, 2500])]
    path = content_list(folder, "odd_bboxes", items)
    text_pdf(path.parent / "odd_bboxes.pdf", pages=1)
    return path


@builder("mineru_page_beyond_pdf")
def mineru_page_beyond_pdf(folder: Path) -> Path:
    items = [_item("page one"), _item("page nine", page_idx=8)]
    path = content_list(folder, "page_beyond", items)
    text_pdf(path.parent / "page_beyond.pdf", pages=2)
    return path


@builder("mineru_img_paths")
def mineru_img_paths(folder: Path) -> Path:
    """`img_path` escaping the output folder: `../`, absolute, and a symlink pointing out."""
    items = [
        {"type": "image", "img_path": "../../../../etc/passwd", "image_caption": ["Figure 1 dotdot"], "page_idx": 0,
         "bbox": [0, 0, 10, 10]},
        {"type": "image", "img_path": "/etc/passwd", "image_caption": ["Figure 2 absolute"], "page_idx": 0,
         "bbox": [0, 0, 10, 10]},
        {"type": "image", "img_path": "images/link.jpg", "image_caption": ["Figure 3 symlink"], "page_idx": 0,
         "bbox": [0, 0, 10, 10]},
        {"type": "image", "img_path": "images/ok.jpg", "image_caption": ["Figure 4 fine"], "page_idx": 0,
         "bbox": [0, 0, 10, 10]},
    ]
    path = content_list(folder, "img_paths", items)
    (path.parent / "images").mkdir(exist_ok=True)
    (path.parent / "images" / "ok.jpg").write_bytes(b"\xff\xd8\xff")
    link = path.parent / "images" / "link.jpg"
    if not link.is_symlink():
        link.symlink_to("/etc/passwd")
    return path


@builder("mineru_hostile_text")
def mineru_hostile_text(folder: Path) -> Path:
    items = [_item("Hostile text", text_level=1)] + [_item(line) for line in HOSTILE_LINES]
    items.append({"type": "table", "table_body": "<table><tr><td><script>alert(3)</script></td>"
                  "<td onclick=\"x()\">cell</td></tr></table>", "page_idx": 0, "bbox": [0, 0, 10, 10]})
    return content_list(folder, "hostile_text", items)


def big_content_list(folder: Path, megabytes: float = 50) -> Path:
    """A content_list of about `megabytes` MB: many pages of ordinary items (not in build_all)."""
    rnd = random.Random(3)
    words = ["shall", "supplier", "revenue", "clause", "table", "section", "数据", "😀"]
    items, size = [], 0
    while size < megabytes * 1_000_000:
        n = len(items)
        text = " ".join(rnd.choice(words) for _ in range(120))
        item = _item(text, page_idx=n // 40, text_level=1 if n % 40 == 0 else None)
        if item["text_level"] is None:
            del item["text_level"]
        items.append(item)
        size += len(json.dumps(item, ensure_ascii=False).encode("utf-8")) + 2  # ", " between items
    return content_list(folder, f"big_{megabytes:g}mb", items)


# ---------------------------------------------------------------------------------------------
# Markdown


def markdown(folder: Path, name: str, data: bytes | str) -> Path:
    path = folder / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


@builder("non_utf8.md")
def md_non_utf8(folder: Path) -> Path:
    return markdown(folder, "non_utf8.md", "# Caf\u00e9 menu\n\nCr\u00e8me br\u00fbl\u00e9e, 5 \u20ac.\n".encode("cp1252"))


@builder("single_line.md")
def md_single_line(folder: Path, megabytes: float = 10) -> Path:
    unit = "lorem ipsum dolor sit amet 数据 "
    n = int(megabytes * 1_000_000 / len(unit.encode("utf-8")))
    return markdown(folder, "single_line.md", unit * n)


@builder("nested_lists.md")
def md_nested_lists(folder: Path) -> Path:
    """10,000 nested list levels on one line ("- - - ... deep"), then 200 indented levels."""
    deep = "- " * 10_000 + "deepest item\n\n"
    indented = "".join("  " * i + f"- level {i}\n" for i in range(200))
    return markdown(folder, "nested_lists.md", "# Nested\n\n" + deep + indented)


@builder("headings_only.md")
def md_headings_only(folder: Path) -> Path:
    text = "".join(f"{'#' * (1 + i % 6)} Heading {i}\n\n" for i in range(60))
    return markdown(folder, "headings_only.md", text)


@builder("hostile_text.md")
def md_hostile_text(folder: Path) -> Path:
    body = "\n\n".join(HOSTILE_LINES)
    return markdown(folder, "hostile_text.md", f"# Hostile <b>text</b>\n\n{body}\n\n## After\n\nThe end.\n")


@builder("big_table.md")
def md_big_table(folder: Path, chars: int = 200_000) -> Path:
    """One pipe table of about `chars` characters."""
    rows = ["| CLIN | Item | Qty | Price |", "|---|---|---|---|"]
    n = 0
    while sum(map(len, rows)) < chars:
        rows.append(f"| {n:04d} | Service line item {n} | {n % 9 + 1} | ${n * 7.5:,.2f} |")
        n += 1
    return markdown(folder, "big_table.md", "# Pricing\n\n" + "\n".join(rows) + "\n")


def build_all(folder: Path) -> dict[str, Path]:
    """Write every cheap corpus input into `folder`; name → path."""
    folder.mkdir(parents=True, exist_ok=True)
    return {name: fn(folder) for name, fn in BUILDERS.items()}


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "robust-corpus")
    for name, path in build_all(out).items():
        print(f"{name:<24} {path} ({path.stat().st_size} bytes)")
