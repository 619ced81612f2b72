"""Reading JSON text that came from outside: one InputError naming the file for what no output of
chunkbench could hold or no document backs (too deep, a lone surrogate, NaN or Infinity, a number
that overflows to infinity or an integer of thousands of digits). Every JSON input is read here."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError

#: the most digits an integer of a JSON input may have (Python refuses more than 4,300 with a
#: ValueError; no count, page or offset chunkbench reads comes near 100)
MAX_DIGITS = 100


#: what a number of more than MAX_DIGITS digits or one beyond a float's range (1e309) must contain
_BIG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1}}}|[eE]\+?\d{{3}}")
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

    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_DIGITS:
            raise InputError(f"holds a number of {len(digits.lstrip('-')):,} digits{_where(text, digits[:MAX_DIGITS])}: "
                             f"no count, page or offset has more than {MAX_DIGITS}", file)
        return int(digits)

    def number(written: str) -> float | None:
        value = float(written)
        if math.isfinite(value):
            return value
        if non_finite_as_null:
            return None
        raise InputError(f"holds {written[:40]}{_where(text, written[:MAX_DIGITS])}, beyond the largest number "
                         "(it reads as infinity): write null or a number", file)

    # the number checks cost a Python call per number: only text that could hold such a number pays
    careful = _BIG_NUMBER.search(text) is not None
    try:
        data = json.loads(text, parse_constant=constant, parse_int=integer if careful else None,
                          parse_float=number if careful else None)
    except RecursionError:
        raise InputError("JSON nested too deeply", file) from None
    if _SURROGATE_ESCAPE.search(text):  # rare: only then are the strings walked
        _refuse_lone_surrogates(data, file)
    return data


def _where(text: str, name: str) -> str:
    """' at line L, column C' of the first `name` standing as a value in `text` (json gives no place)."""
    found = re.search(r"[\[:,]\s*(" + re.escape(name) + r")", text)
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
