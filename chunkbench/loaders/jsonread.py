"""Reading JSON inputs (MinerU output, document.json): one error per problem, naming the file, and
the value checks both loaders use."""

from __future__ import annotations

import json
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
        return json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", file) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc}", file) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", file) from None


def is_int(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def json_type(v: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(v), "a number")
