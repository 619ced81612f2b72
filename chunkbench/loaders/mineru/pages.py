"""Page sizes for MinerU's 0-1000 bboxes (from the PDF, else `_middle.json`) and the MinerU
version and backend `_middle.json` records."""

from __future__ import annotations

import os
import re
from pathlib import Path

from chunkbench.errors import InputError
from chunkbench.loaders.jsonread import is_number, read_json


def pdf_page_sizes(pdf: str | os.PathLike) -> list[tuple[float, float]]:
    """Page (width, height) in points, as MinerU sees them (rotation applied); InputError if unreadable."""
    from chunkbench.loaders.pdflib import pymupdf_open

    pdf = Path(pdf)
    if not pdf.is_file():
        raise InputError("PDF not found", pdf)
    try:
        with pymupdf_open(pdf) as doc:
            if doc.needs_pass:
                raise InputError("PDF is encrypted: cannot read its page sizes", pdf)
            return [(page.rect.width, page.rect.height) for page in doc]
    except (RuntimeError, ValueError, OSError) as exc:  # pymupdf's FileDataError is a RuntimeError
        raise InputError(f"cannot open PDF: {exc}", pdf) from None


def middle_page_sizes(middle: Path) -> list[tuple[float, float]]:
    """Page sizes from `_middle.json`: `pdf_info[i].page_size` = [width, height] in points."""
    data = read_json(middle)
    info = data.get("pdf_info") if isinstance(data, dict) else None
    if not isinstance(info, list):
        raise InputError("not a MinerU _middle.json (no pdf_info list)", middle)
    sizes = []
    for i, page in enumerate(info):
        size = page.get("page_size") if isinstance(page, dict) else None
        if not (isinstance(size, list) and len(size) == 2 and all(is_number(v) and v > 0 for v in size)):
            raise InputError(f"pdf_info[{i}].page_size is not [width, height]", middle)
        sizes.append((float(size[0]), float(size[1])))
    return sizes


_MIDDLE_TAIL = 4096


_MIDDLE_KEYS = re.compile(r'"(_version_name|_backend)"\s*:\s*"([^"\\]{0,100})"')


def middle_version(middle: Path) -> tuple[str, str]:
    """(`_version_name`, `_backend`) from the tail of `_middle.json`, where MinerU writes them.

    Only the tail is read: the file is large (about 150 kB per page) and we need two keys.
    """
    try:
        with open(middle, "rb") as fh:
            fh.seek(max(0, middle.stat().st_size - _MIDDLE_TAIL))
            tail = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return "", ""
    found = dict(_MIDDLE_KEYS.findall(tail))
    return found.get("_version_name", ""), found.get("_backend", "")
