"""Reading JSON inputs (MinerU output, document.json): one error per problem, naming the file, and
the value checks both loaders use."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeGuard

from chunkbench.errors import InputError

from .textfile import read_bytes


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


#: a JSON escape of a surrogate code point: the only way a str from JSON can hold one
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def loads_checked(text: str, file: Path | None, non_finite_as_null: bool = False) -> Any:
    """`json.loads(text)` for an input file: too deep nesting, strings holding a lone surrogate
    (`"\\ud800"`, which no UTF-8 output can hold) and NaN or Infinity (which Python's json.dump
    writes but JSON does not allow, and no output of chunkbench can hold) are an InputError naming
    the file; `non_finite_as_null` reads NaN and Infinity as null instead.
    A JSONDecodeError is left to the caller (some inputs try JSON Lines next)."""
    def constant(name: str) -> None:
        if non_finite_as_null:
            return None
        raise InputError(f"holds {name}{_where(text, name)}, which JSON does not allow: write null or a number", file)

    try:
        data = json.loads(text, parse_constant=constant)
    except RecursionError:
        raise InputError("JSON nested too deeply", file) from None
    if _SURROGATE_ESCAPE.search(text):  # rare: only then are the strings walked
        _refuse_lone_surrogates(data, file)
    return data


def _where(text: str, name: str) -> str:
    """' at line L, column C' of the first `name` standing as a value in `text` (json gives no place)."""
    found = re.search(r"[\[:,]\s*(" + re.escape(name) + r")\b", text)
    if found is None:
        return ""
    at = found.start(1)
    line = text.count("\n", 0, at) + 1
    return f" at line {line}, column {at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def _refuse_lone_surrogates(data: Any, file: Path | None) -> None:
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError as exc:
                code = ord(node[exc.start])
                raise InputError(
                    f"a string holds a lone surrogate (\\u{code:04x}): not valid Unicode text; fix the file's encoding",
                    file,
                ) from None
        elif isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


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
