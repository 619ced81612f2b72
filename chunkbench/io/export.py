"""chunks.json (schema-validated, atomic), chunks.jsonl and chunk_debug.md, and reading chunks.json back.

The JSON Schema ships in the package (`chunkbench/schema/chunks.schema.json`): strict on the common
chunk fields and the boundary reason codes, open to the fields each strategy adds. The dict
that gets written is validated first (tuples count as arrays), so a file chunkbench writes always
matches the schema; `load_chunks_json` validates what it reads the same way.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from chunkbench.errors import ChunkbenchError, InputError
from chunkbench.io.jsonin import loads_checked
from chunkbench.text.segment import one_line
from chunkbench.types.chunk import ChunkedDocument

from .atomic import dumps_json, write_json, write_text
from .inputs import check_input_file

SCHEMA_NAME = "chunks.schema.json"


@functools.lru_cache(maxsize=1)
def chunks_schema() -> dict:
    """The chunks.json JSON Schema (draft 2020-12) shipped in the package."""
    return json.loads(resources.files("chunkbench").joinpath("schema", SCHEMA_NAME).read_text("utf-8"))


@functools.lru_cache(maxsize=1)
def _validator():
    jsonschema = _import_jsonschema()
    base = jsonschema.Draft202012Validator
    # dicts straight from Chunk.to_dict() may hold tuples in strategy fields: JSON arrays too
    checker = base.TYPE_CHECKER.redefine("array", lambda _checker, value: isinstance(value, (list, tuple)))
    return jsonschema.validators.extend(base, type_checker=checker)(chunks_schema())


def _import_jsonschema():
    """Import jsonschema without `rfc3987_syntax`, whose import alone takes seconds.

    jsonschema imports it (when installed) only to check the "iri" string format, which the
    chunks schema does not use; it is hidden for the duration of this import only."""
    import sys

    hide = "jsonschema" not in sys.modules and "rfc3987_syntax" not in sys.modules
    if hide:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # None: its import raises ImportError
    try:
        import jsonschema
    finally:
        if hide and sys.modules.get("rfc3987_syntax", 0) is None:
            del sys.modules["rfc3987_syntax"]
    return jsonschema


def _where(path) -> str:
    """A JSON path like `chunks[3].boundary.reason` for a jsonschema error path."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


@functools.lru_cache(maxsize=1)
def _fast_check():
    """The schema compiled to Python by fastjsonschema (about 14 times faster than jsonschema on
    a large document), or None without it. It only answers valid or not: the listing of every
    problem comes from jsonschema."""
    try:
        import fastjsonschema
    except ImportError:
        return None
    return fastjsonschema.compile(chunks_schema()), fastjsonschema.JsonSchemaException


def _schema_valid(data: Any) -> bool:
    """True when `data` surely matches the schema (fastjsonschema says so); False means: ask jsonschema."""
    fast = _fast_check()
    if fast is None:
        return False
    check, failure = fast
    try:
        check(data)
    except failure:
        return False
    return True


def schema_errors(data: Any) -> list[str]:
    """Every schema violation plus the checks a schema cannot express, as `where: problem` lines.

    Ordered by position in the file, so the first line is the first problem."""
    errors = [] if _schema_valid(data) else sorted(
        _validator().iter_errors(data), key=lambda e: [_path_key(p) for p in e.absolute_path])
    out = [f"{_where(e.absolute_path)}: {_shorten(e.message)}" for e in errors]
    if out or not isinstance(data, dict):
        return out
    seen: set[str] = set()
    for i, c in enumerate(data["chunks"]):
        if c["index"] != i:
            out.append(f"chunks[{i}].index: is {c['index']}, expected its position {i}")
        if c["char_len"] != len(c["text"]):
            out.append(f"chunks[{i}].char_len: is {c['char_len']}, but the text has {len(c['text'])} characters")
        if c["chunk_id"] in seen:
            out.append(f"chunks[{i}].chunk_id: {c['chunk_id']!r} is used by an earlier chunk")
        seen.add(c["chunk_id"])
        ps, pe = c["page_start"], c["page_end"]
        if (ps is None) != (pe is None) or (ps is not None and pe < ps):
            out.append(f"chunks[{i}].page_end: {pe!r} does not fit page_start {ps!r}")
        sc, ec = c["start_char"], c["end_char"]
        if sc is not None and ec is not None and ec < sc:
            out.append(f"chunks[{i}].end_char: {ec} is before start_char {sc}")
    return out


def _path_key(part) -> tuple:
    """Sort key of one path element: list indices numerically (chunks[2] before chunks[10])."""
    return (0, part, "") if isinstance(part, int) else (1, 0, str(part))


def _shorten(message: str, limit: int = 200) -> str:
    return one_line(message, limit)


def validate_chunks(data: Any, path: str | os.PathLike | None = None) -> None:
    """Raise InputError naming `path` and the first problem when `data` is not a valid chunks.json."""
    errors = schema_errors(data)
    if errors:
        more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
        raise InputError(f"not a valid chunks.json: {errors[0]}{more}", path)


def validated_dict(chunkset: ChunkedDocument, chunked_at: str | None = None) -> dict:
    """`chunkset.to_dict()` checked against the schema (validated in memory: no JSON round trip,
    so a 50 MB document is not held three times over).

    A violation here is a bug in a strategy, not bad input, so it raises a ChunkbenchError
    (exit code 1) naming the strategy and the problem."""
    data = chunkset.to_dict(chunked_at)
    errors = schema_errors(data)
    if errors:
        raise ChunkbenchError(
            f"strategy {chunkset.strategy!r} produced chunks that do not match {SCHEMA_NAME}: {errors[0]}"
        )
    return data


def _json_text(chunkset: ChunkedDocument, dump, value) -> str:
    try:
        return dump(value)
    except (TypeError, ValueError) as exc:  # a set, NaN, an object: not representable in JSON
        raise ChunkbenchError(f"strategy {chunkset.strategy!r} produced a value JSON cannot hold: {exc}") from None


def chunks_json_text(chunkset: ChunkedDocument, chunked_at: str | None = None) -> str:
    """The chunks.json text of `chunkset`, validated against the schema."""
    return _json_text(chunkset, dumps_json, validated_dict(chunkset, chunked_at))


def write_chunks_json(chunkset: ChunkedDocument, path: str | os.PathLike, chunked_at: str | None = None) -> Path:
    """Validate and atomically write chunks.json (the old file or the new one, never a partial one).

    The text is the same as `chunks_json_text`, streamed by `atomic.write_json`."""
    data = validated_dict(chunkset, chunked_at)
    try:
        write_json(path, data)
    except (TypeError, ValueError) as exc:  # a set, NaN, an object: not representable in JSON
        raise ChunkbenchError(f"strategy {chunkset.strategy!r} produced a value JSON cannot hold: {exc}") from None
    return Path(path)


def write_jsonl(chunkset: ChunkedDocument, path: str | os.PathLike) -> Path:
    """One validated chunk dict per line, written atomically (the envelope is not repeated)."""
    data = validated_dict(chunkset, chunked_at="1970-01-01T00:00:00Z")
    dump = functools.partial(json.dumps, ensure_ascii=False, allow_nan=False)
    return write_text(path, "".join(_json_text(chunkset, dump, c) + "\n" for c in data["chunks"]))


def load_chunks_json(path: str | os.PathLike) -> dict:
    """Read and validate a chunks.json; InputError naming the file and the first problem."""
    p = Path(path)
    try:
        data = loads_checked(check_input_file(p).read_bytes().decode("utf-8"), p)
    except FileNotFoundError:
        raise InputError("no such file", p) from None
    except IsADirectoryError:
        raise InputError("is a folder, expected a chunks.json file", p) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", p) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", p) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", p) from None
    validate_chunks(data, p)
    return data


# ---------------------------------------------------------------------------------------------
# chunk_debug.md


def _longest_run(text: str, char: str) -> int:
    runs = re.findall(f"{re.escape(char)}+", text)
    return max((len(r) for r in runs), default=0)


def code_span(value: Any, limit: int = 300) -> str:
    """`value` on one line as a Markdown code span that no backtick inside can close.

    Document text in the debug file is always inside code spans or fences, so a Markdown viewer
    shows it literally and never renders it as HTML."""
    s = one_line(str(value), limit)
    ticks = "`" * (_longest_run(s, "`") + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    return f"{ticks}{pad}{s}{pad}{ticks}"


def fenced(text: str, info: str = "text") -> str:
    """`text` in a fenced code block whose fence is longer than any backtick run inside."""
    fence = "`" * max(3, _longest_run(text, "`") + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{info}\n{body}{fence}"


def _pages(c) -> str:
    """The chunk's pages: "5", "5–7", or "5, 7" when its boxes skip a page of its range (a
    paragraph joined across a page of tables, which the chunk does not hold)."""
    if c.page_start is None:
        return "none"
    if c.page_end in (None, c.page_start):
        return str(c.page_start)
    boxed = sorted({b.page for b in c.bbox})
    if boxed and boxed[0] == c.page_start and boxed[-1] == c.page_end and len(boxed) < c.page_end - c.page_start + 1:
        return ", ".join(map(str, boxed))
    return f"{c.page_start}–{c.page_end}"


def _extra_value(value: Any) -> str:
    if isinstance(value, (dict, list, tuple)):
        value = json.dumps(value, ensure_ascii=False, default=str)
    return code_span(value)


#: the labels debug_markdown gives every chunk, which a strategy's own field of that name must not repeat
_DEBUG_LABELS = frozenset({"type", "boundary", "pages", "section_path", "heading", "size", "span", "source elements"})


def debug_markdown(chunkset: ChunkedDocument, path: str | os.PathLike | None = None,
                   defects: Sequence[Mapping[str, Any]] = ()) -> str:
    """chunk_debug.md: a header, then every chunk with metadata, source elements, boundary, the
    defects found in it (`defects`: `evaluate.defects.Finding.to_dict()`s) and its text."""
    doc = chunkset.doc
    by_chunk: dict[int, list[Mapping[str, Any]]] = {}
    for d in defects:
        for i in d["chunks"]:
            by_chunk.setdefault(i, []).append(d)
    lines = _debug_header(chunkset, defects)
    for c in chunkset.chunks:
        lines += _debug_chunk(doc, c, by_chunk.get(c.index, ()))
    if chunkset.skipped:
        lines += ["", "## Skipped elements", ""]
        lines += [f"- {code_span(eid)} {_element_type(doc, eid)}: {code_span(why)}"
                  for eid, why in chunkset.skipped.items()]
    out = "\n".join(lines) + "\n"
    if path is not None:
        write_text(path, out)
    return out


def _debug_header(chunkset: ChunkedDocument, defects: Sequence[Mapping[str, Any]]) -> list[str]:
    """chunk_debug.md's first lines: the document, the setting, the counts, warnings and defects."""
    doc = chunkset.doc
    header = chunkset.header(chunked_at="-")["chunking"]
    lines = [
        f"# Chunk debug: {code_span(doc.source)}",
        "",
        f"- **source**: {code_span(doc.source)}",
        f"- **doc_id**: `{doc.doc_id}`",
        f"- **strategy**: `{chunkset.strategy}` (ruleset `{chunkset.ruleset or '-'}`)",
        f"- **params**: {code_span(json.dumps(header['params'], sort_keys=True, ensure_ascii=False))}",
        f"- **params_hash**: `{chunkset.params_hash}`",
        f"- **parser**: {code_span(doc.parser.label)}",
        f"- **pages**: {len(doc.pages)}; **elements**: {len(doc.elements)}; **chunks**: {len(chunkset)}",
    ]
    if doc.metadata:
        lines.append(f"- **metadata**: {_extra_value(dict(doc.metadata))}")
    lines += [f"- **warning**: {code_span(warning)}" for warning in doc.warnings]
    if chunkset.skipped:
        lines.append(f"- **skipped elements**: {len(chunkset.skipped)} (listed at the end)")
    if defects:
        counts: dict[str, int] = {}
        for d in defects:
            counts[d["code"]] = counts.get(d["code"], 0) + 1
        lines.append(f"- **defects**: {len(defects)} (" + ", ".join(f"`{k}` {v}" for k, v in sorted(counts.items()))
                     + "; each under its chunk)")
    return lines


def _debug_chunk(doc, c, defects: Sequence[Mapping[str, Any]]) -> list[str]:
    """One chunk's section of chunk_debug.md: its metadata, source elements, defects and text."""
    lines = ["", f"## Chunk {c.index}: {code_span(c.chunk_id)}", ""]
    lines.append(f"- **type**: `{c.type}`")
    lines.append(f"- **boundary**: `{c.boundary.reason.value}`: {code_span(c.boundary.detail)}")
    lines.append(f"- **pages**: {_pages(c)}")
    if c.section_path:
        lines.append(f"- **section_path**: {code_span(' > '.join(c.section_path))}")
    if c.heading:
        lines.append(f"- **heading**: {code_span(c.heading)}")
    lines.append(f"- **size**: {c.char_len} chars, {c.tokens_est} tokens")
    if c.start_char is not None:
        lines.append(f"- **span**: chars {c.start_char}–{c.end_char} of the canonical text")
    for key, value in c.extra.items():
        shown = "(same as text)" if value == c.text and isinstance(value, str) else _extra_value(value)
        label = f"{key} (strategy field)" if key in _DEBUG_LABELS else key  # recursive's own `size`
        lines.append(f"- **{label}**: {shown}")
    lines.append(f"- **source elements** ({len(c.source_blocks)}): " + (", ".join(
        f"{code_span(eid)} {_element_type(doc, eid)}" for eid in c.source_blocks) or "none"))
    for d in defects:
        where = f" (p. {d['page']})" if d.get("page") is not None else ""
        lines.append(f"- **defect** `{d['code']}`{where}: {code_span(d['detail'])}")
    return [*lines, "", fenced(c.text)]


def _element_type(doc, element_id: str) -> str:
    try:
        return doc.element(element_id).type
    except KeyError:
        return "(not in document)"
