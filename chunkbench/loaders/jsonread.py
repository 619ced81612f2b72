"""Reading JSON inputs (MinerU output, document.json): one error per problem, naming the file, and
the value checks both loaders use."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeGuard

from chunkbench.errors import InputError
from chunkbench.io.jsonin import loads_checked

from .textfile import read_bytes

__all__ = ["loads_checked", "read_json"]


def read_json(file: Path) -> Any:
    """The parsed JSON of `file`; InputError for unreadable, empty, non-UTF-8, invalid or too deep."""
    raw = read_bytes(file)
    if not raw.strip():
        raise InputError("empty file", file)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file) from None
    try:
        return loads_checked(text, file)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc}", file) from None


#: the highest page count a JSON input is believed without its PDF: a page object is made for every
#: page up to the highest index, so an absurd one must not be (the longest real PDFs have some 10^4)
MAX_PAGES = 100_000


def top_left_box(box: Sequence[float], height: float | None = None) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) with corners ordered and the origin top-left: `height` given, y was measured
    from the bottom (Docling's BOTTOMLEFT) and is flipped with that page height."""
    x0, y0, x1, y1 = (float(v) for v in box)
    if height is not None:
        y0, y1 = height - y0, height - y1
    (x0, x1), (y0, y1) = sorted((x0, x1)), sorted((y0, y1))
    return x0, y0, x1, y1


def is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def json_type(v: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(v), "a number")
