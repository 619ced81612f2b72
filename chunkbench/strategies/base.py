"""The strategy kernel: what a strategy is (a plain function and its declared parameters) and the
types it returns.

A strategy is a plain function `fn(doc, **params) -> StrategyResult` whose parameters are declared
once, as `Param`s with their defaults, in a `Strategy` made by `declare` at the end of its module;
`chunkbench.strategies` lists those declarations explicitly (importing a module registers nothing).
`chunk()` resolves parameters against the declaration and wraps the result in a ChunkSet.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkbench.errors import ParamError
from chunkbench.types.chunk import Chunk
from chunkbench.types.document import Document


@dataclass(frozen=True)
class Param:
    """One strategy parameter: type, default, bounds and a line of documentation."""

    name: str
    type: type
    default: Any
    doc: str
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    #: shown as a slider in the explorer when numeric
    ui_step: float | None = None

    @property
    def slider_step(self) -> float | None:
        """One step of this parameter's slider in the explorer (None: not a slider): `ui_step`, or
        1 for an integer and a hundredth of the range for a number."""
        if self.type not in (int, float) or self.min is None or self.max is None:
            return None
        return self.ui_step or (1 if self.type is int else (self.max - self.min) / 100)

    def coerce(self, value: Any, strategy: str) -> Any:
        """Return `value` converted to this parameter's type, or raise ParamError saying why."""
        where = f"strategy {strategy!r} parameter {self.name!r}"
        out = _CONVERTERS.get(self.type, _as_text)(value, where)
        if self.min is not None and out < self.min:
            raise ParamError(f"{where} must be >= {self.min}, got {out!r}")
        if self.max is not None and out > self.max:
            raise ParamError(f"{where} must be <= {self.max}, got {out!r}")
        if self.choices is not None and self.type is tuple:  # a list: each of its items is one of the choices
            unknown = [v for v in out if v not in self.choices]
            if unknown:
                raise ParamError(f"{where} lists {', '.join(map(repr, unknown))}, not one of "
                                 f"{', '.join(map(str, self.choices))}")
        elif self.choices is not None and out not in self.choices:
            raise ParamError(f"{where} must be one of {', '.join(map(str, self.choices))}, got {out!r}")
        return out

    def describe(self) -> dict:
        d = {"name": self.name, "type": self.type.__name__, "default": self.default, "doc": self.doc}
        if self.min is not None:
            d["min"] = self.min
        if self.max is not None:
            d["max"] = self.max
        if self.choices is not None:
            d["choices"] = list(self.choices)
        return d


#: the words a true-or-false parameter takes, and which of them mean true
_BOOL_WORDS = {"true", "1", "yes", "on", "false", "0", "no", "off"}
_TRUE_WORDS = {"true", "1", "yes", "on"}


def _as_bool(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _BOOL_WORDS:
        return value.lower() in _TRUE_WORDS
    raise ParamError(f"{where} must be true or false, got {value!r}")


def _as_int(value: Any, where: str) -> int:
    """A whole number: an int, a float with no fraction, or its digits (never a bool)."""
    number = None
    if isinstance(value, (int, str, float)) and not isinstance(value, bool):
        try:
            number = int(value) if not isinstance(value, float) or value.is_integer() else None
        except ValueError:
            number = None
    if number is None:
        raise ParamError(f"{where} must be an integer, got {value!r}")
    return number


def _as_float(value: Any, where: str) -> float:
    """A finite number (never a bool)."""
    if isinstance(value, bool):
        raise ParamError(f"{where} must be a number, got {value!r}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ParamError(f"{where} must be a number, got {value!r}") from None
    if out != out or out in (float("inf"), float("-inf")):
        raise ParamError(f"{where} must be a finite number, got {value!r}")
    return out


def _as_list(value: Any, where: str) -> tuple[str, ...]:
    """A list of words: a comma-separated text or a list."""
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, (list, tuple)):
        return tuple(str(v) for v in value)
    raise ParamError(f"{where} must be a comma-separated list, got {value!r}")


def _as_text(value: Any, where: str) -> str:
    if not isinstance(value, (str, int, float)):
        raise ParamError(f"{where} must be text, got {value!r}")
    return str(value)


#: each parameter type's conversion of a given value (a text parameter takes the rest)
_CONVERTERS: dict[type, Callable[[Any, str], Any]] = {
    bool: _as_bool, int: _as_int, float: _as_float, tuple: _as_list, str: _as_text}


@dataclass(frozen=True)
class StrategyResult:
    """What a strategy function returns: its chunks plus the element ids it skipped and why."""

    chunks: Sequence[Chunk]
    #: element id → why it is not in any chunk (noise type, empty text, ...)
    skipped: Mapping[str, str] = field(default_factory=dict)


#: what a strategy's `start_char`/`end_char` mean for its chunk text (each strategy states one)
OFFSET_RULES = {
    "slice": "the chunk text is exactly the canonical text [start_char, end_char)",
    "slice_without_skipped": "the chunk text is the canonical text [start_char, end_char) with the elements the "
                             "strategy skipped (page furniture) left out, whitespace between pieces aside; a table "
                             "chunk is its rows as a pipe table; a chunk with extra.table_header_repeated starts "
                             "with its table's header row and |---| line, then that text",
    "rewritten": "[start_char, end_char) bounds the chunk's source text, but the text is rewritten (a header "
                 "prefix, an overlap, re-joined sentences, normalized text); see the strategy's documentation",
}


def offsets_violations(doc: Document, chunks: Sequence[Chunk], rule: str, skipped: Iterable[str] = ()
                       ) -> list[tuple[int, str]]:
    """(index, why) of every chunk that breaks the offsets `rule`; linear in the chunks and the
    skipped elements (the skipped spans are found once, not once per chunk)."""
    spans = _skipped_spans(doc, skipped) if rule == "slice_without_skipped" else []
    return [(c.index, why) for c in chunks if (why := _violation(doc, c, rule, spans))]


def _skipped_spans(doc: Document, skipped: Iterable[str]) -> list[tuple[int, int]]:
    """The canonical [start, end) of the skipped elements that have one, in document order."""
    ids = set(skipped)
    return sorted((e.char_start, e.char_end) for e in doc.elements
                  if e.id in ids and e.char_start is not None and e.char_end is not None)


def _violation(doc: Document, chunk: Chunk, rule: str, skipped_spans: list[tuple[int, int]]) -> str | None:
    if chunk.start_char is None or chunk.end_char is None:
        return "no offsets"
    span = doc.text[chunk.start_char:chunk.end_char]
    text = chunk.span_text  # a repeated table header aside
    if rule == "slice":
        return None if text == span else "text is not the canonical span"
    if rule == "slice_without_skipped":
        if chunk.type == "table":
            return None
        first = bisect.bisect_left(skipped_spans, (chunk.start_char, -1))
        kept, at = [], chunk.start_char
        for start, end in skipped_spans[first:]:
            if start >= chunk.end_char:
                break
            if end <= chunk.end_char and start >= at:
                kept.append(doc.text[at:start])
                at = end
        kept.append(doc.text[at:chunk.end_char])
        same = "".join(text.split()) == "".join("".join(kept).split())
        return None if same else "text is not the canonical span less the skipped elements"
    if rule == "rewritten":
        return None if chunk.start_char < chunk.end_char <= len(doc.text) else "empty or out-of-range span"
    raise ValueError(f"unknown offsets rule {rule!r}")


@dataclass(frozen=True)
class Strategy:
    """A registered chunking strategy."""

    name: str
    func: Callable[..., StrategyResult]
    params: tuple[Param, ...]
    doc: str
    spec: str
    ruleset: str
    #: cross-parameter check run after per-parameter coercion; raises ParamError
    check: Callable[[dict], None] | None = None
    #: what start_char/end_char mean for the chunk text: a key of OFFSET_RULES
    offsets: str = "slice"
    #: what decides a boundary, and the chunk fields the strategy adds (Markdown; docs/guide.md's
    #: strategy table is generated from these, `python -m chunkbench.ui.doctables`)
    boundaries: str = ""
    fields: str = ""
    #: why it is slow, if it is (an embedder run on every sentence): listed by
    #: `all_strategies(slow=True)` only, so UIs offer it and loops over every strategy (tests) do not
    slow: str = ""
    #: the chunk size limit its resolved parameters set, and its unit ("chars" or "tokens"): a
    #: strategy that declares one has each piece of a table cut at rows repeat the table's header
    #: within that limit (its Packer leaves room for it: `header_room=True`)
    size_limit: Callable[[Mapping[str, Any]], tuple[int, str]] | None = None
    #: the chunk size its resolved parameters aim at, and its unit: what the `tiny` and `oversize`
    #: defects are judged against (a strategy's `size_limit`; a peer's size parameter)
    target_size: Callable[[Mapping[str, Any]], tuple[int, str]] | None = None
    #: parameters that make it split, overlap and merge often: the test matrix runs every strategy
    #: with its defaults and with these (tests/strategies/test_strategies_all_inputs.py), and the ruleset
    #: fingerprints are taken under both
    small: Mapping[str, Any] = field(default_factory=dict)
    #: the prefix of its chunk ids, when its spec names one (sections: notice id and file name);
    #: else the document key (types/ids.py)
    id_prefix: Callable[[Document, Mapping[str, Any]], str] | None = None
    #: its spec asks for UUID chunk ids (contract): the UUID5 of the stable id
    uuid_ids: bool = False
    #: under which resolved parameters it keeps a lead-in (a caption, a sentence introducing a table,
    #: list or display) in the chunk of what it introduces (the property tests hold it to that);
    #: None: never promised (exact token windows, other libraries' chunkers)
    keeps_lead_ins: Callable[[Mapping[str, Any]], bool] | None = None
    #: `func` takes `kept=` (a strategies.kept.KeptState or None): what it may keep between
    #: re-chunks of one Document by one owner (the elements walk, the tokens layout)
    uses_kept: bool = False

    def resolve(self, params: Mapping[str, Any]) -> dict:
        """Defaults overlaid with `params`, each coerced and checked; unknown names rejected."""
        known = {p.name: p for p in self.params}
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise ParamError(
                f"strategy {self.name!r} has no parameter {', '.join(map(repr, unknown))}; "
                f"allowed: {', '.join(known) or 'none'}"
            )
        out = {p.name: p.default for p in self.params}
        for name, value in params.items():
            out[name] = known[name].coerce(value, self.name)
        if self.check:
            self.check(out)
        return out


def declare(
    func: Callable[..., StrategyResult],
    name: str,
    *,
    params: Sequence[Param],
    doc: str,
    spec: str,
    ruleset: str,
    check: Callable[[dict], None] | None = None,
    offsets: str = "slice",
    boundaries: str = "",
    fields: str = "",
    slow: str = "",
    size_limit: Callable[[Mapping[str, Any]], tuple[int, str]] | None = None,
    target_size: Callable[[Mapping[str, Any]], tuple[int, str]] | None = None,
    small: Mapping[str, Any] | None = None,
    id_prefix: Callable[[Document, Mapping[str, Any]], str] | None = None,
    uuid_ids: bool = False,
    keeps_lead_ins: Callable[[Mapping[str, Any]], bool] | None = None,
    uses_kept: bool = False,
) -> Strategy:
    """The declaration of strategy `name`: `func` receives every parameter, resolved, as a keyword
    (its signature states no defaults: the `Param`s are the one place they are written). `small`:
    the parameters the tests run it with besides its defaults (every strategy but the slow ones
    needs them: tests/strategies/test_rulesets.py)."""
    if offsets not in OFFSET_RULES:
        raise ValueError(f"strategy {name!r}: unknown offsets rule {offsets!r}")
    unknown = sorted(set(small or {}) - {p.name for p in params})
    if unknown:
        raise ValueError(f"strategy {name!r}: `small` names no parameter {', '.join(unknown)}")
    return Strategy(name, func, tuple(params), doc, spec, ruleset, check, offsets, boundaries, fields, slow, size_limit,
                    target_size or size_limit, dict(small or {}), id_prefix, uuid_ids, keeps_lead_ins,
                    uses_kept)


def always(_params: Mapping[str, Any]) -> bool:
    """A promise that holds under every parameter (`Strategy.keeps_lead_ins`)."""
    return True
