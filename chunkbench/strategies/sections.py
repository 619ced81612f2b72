"""Strategy `sections` (specs/4): sections by detected headings, 400–600 cl100k tokens per chunk,
section classification, requirement flags and table handling.

Headings: layout heading elements (any loader), plus paragraph lines that are all caps, numbered
sections ("SECTION 1:", "Article II.", "Part 3 -") or short labels ending with a colon. A heading
followed directly by another heading has no text of its own and is carried into the next
section's first chunk. Paragraphs: the elements, and blank-line breaks inside them.

Chunks: a section of at most `max_tokens` is one chunk, however small (the spec's "each section
= one chunk"); a larger one is packed at paragraph boundaries up to `max_tokens`, then at
sentences when one paragraph is too big, and the last piece is topped up towards `min_tokens`
with whole paragraphs from the piece before. Tables (layout tables, text with `|` or tab
columns, runs of CLIN / line item lines) are chunks of their own, `is_table` and `embed: false`,
type `pricing_table` when pricing keywords appear in the table, its caption or its section name.
Without any heading the paragraphs are grouped by the same token budget (`fallback_paragraphs`).

Section type: keywords in the section's own name decide first, then the names of the sections
above it (nearest first), then keyword counts in the section's text; ties go to the spec's order.
`is_critical` = type requirement or evaluation_criteria, or `requirement_flag`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from chunkbench.errors import ParamError
from chunkbench.text.headings import HeadingStack
from chunkbench.text.segment import one_line
from chunkbench.text.tokenizer import count_tokens
from chunkbench.types.chunk import Boundary, Chunk, Reason, build_chunk
from chunkbench.types.document import Document
from chunkbench.types.ids import document_key

from .base import Param, StrategyResult, always, declare
from .spans import HARD, HEADING, PARAGRAPH, ROW, SENTENCE, SKIP_CONTENTS, TABLE, TITLE, ContentText, Packer, PackUnit

#: section types with their keywords, in the spec's order (the order also breaks ties)
SECTION_KEYWORDS: dict[str, re.Pattern] = {
    "requirement": re.compile(r"\b(?:requirements?|shall|must)\b", re.I),
    "specification": re.compile(r"\b(?:technical\s+specs?|specifications?|specs?)\b", re.I),
    "condition": re.compile(r"\b(?:conditions?|terms|clauses?)\b", re.I),
    "evaluation_criteria": re.compile(r"\b(?:evaluations?|criteria|scoring)\b", re.I),
    "scope_of_work": re.compile(r"\b(?:scope|statement\s+of\s+work|sow)\b", re.I),
}
SECTION_TYPES = (*SECTION_KEYWORDS, "other")
#: the longest cl100k token is 128 bytes, so a span of n tokens has at most 128 n characters
MAX_TOKEN_CHARS = 128
CRITICAL_TYPES = frozenset({"requirement", "evaluation_criteria"})
REQUIREMENT = re.compile(r"\b(?:shall|must|required|requirements?|mandatory)\b", re.I)
PRICING = re.compile(r"\b(?:pricing|clins?|line[\s-]+items?)\b", re.I)
_COLUMNS = re.compile(r"[|\t]")
_NUMBERED = re.compile(r"^(?:SECTION|Section|ARTICLE|Article|PART|Part)\s+(?:\d+(?:\.\d+)*|[IVXLC]+)\s*[:.\-–—]")
_CAPS_WORD = re.compile(r"[^\W\d_]{4,}")
_SENTENCE_INSIDE = re.compile(r"[.!?]\s+\S")
#: types whose text may hold heuristic headings, and types never read as text tables
_HEADING_SOURCES = frozenset({"paragraph", "other"})
_NOT_TABLES = frozenset({"code", "equation"})

FILE_INCLUDE = ("scope", "requirement", "specification", "solicitation", "terms", "condition", "work",
                "technical", "statement", "criteria", "evaluation")
FILE_EXCLUDE = ("questionnaire", "form", "template", "blank", "example", "sample")


def file_is_relevant(filename: str) -> bool:
    """The spec's file filter: a name word from the include list and none from the exclude list.

    Words are the file stem split at non-letters and camelCase; a word matches a keyword exactly
    or with a plural "s" ("Forms" is excluded, "Information" and "Platform" are not)."""
    stem = Path(filename).stem
    words = {w.lower() for w in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])", stem)}
    def has(keys):
        return any(k in words or k + "s" in words for k in keys)
    return has(FILE_INCLUDE) and not has(FILE_EXCLUDE)


def vector_metadata(chunk: Chunk) -> dict[str, str] | None:
    """The minimal vector-store metadata of specs/4 (Pinecone style, booleans as "true"/"false"),
    or None for a chunk that is not embedded (tables)."""
    e = chunk.extra
    if not e.get("embed", True):
        return None
    flag = {True: "true", False: "false"}
    return {"chunk_id": chunk.chunk_id, "noticeId": str(e["notice_id"]), "filename": str(e["filename"]),
            "section_type": str(e["section_type"]), "is_critical": flag[bool(e["is_critical"])],
            "requirement_flag": flag[bool(e["requirement_flag"])]}


def heading_kind(text: str) -> str | None:
    """Which spec heuristic makes one line a heading: numbered section, all caps, trailing colon."""
    t = text.strip()
    if not t or "\n" in t or len(t) > 120:
        return None
    words = t.split()
    if len(words) > 15:
        return None
    numbered = _NUMBERED.match(t)
    if numbered:
        rest = t[numbered.end():]
        if not _SENTENCE_INSIDE.search(rest) and not (rest.rstrip()[-1:] in (".", "!", "?") and
                                                        any(c.islower() for c in rest)):
            return "numbered section"
        return None
    if len(words) <= 12 and not any(c.islower() for c in t) and any(
            w.isupper() for w in _CAPS_WORD.findall(t)):
        return "all caps"
    if t.endswith(":") and len(words) <= 6 and (t[0].isupper() or t[0].isdigit()) \
            and not _SENTENCE_INSIDE.search(t):
        return "trailing colon"
    return None


def is_text_table(text: str) -> bool:
    """Column text (two or more lines with `|` or a tab), or text whose lines are mostly (at
    least half, and two or more) CLIN / line item / pricing lines: a price list without columns."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if len(lines) < 2:
        return False
    if sum(1 for ln in lines if _COLUMNS.search(ln)) >= 2:
        return True
    keyed = sum(1 for ln in lines if PRICING.search(ln))
    return keyed >= 2 and 2 * keyed >= len(lines)


def classify(name: str, ancestors: list[str], body: str) -> tuple[str, str]:
    """(section type, what decided it): own name, then parent names, then body keyword counts."""
    for label, text in [("name", name)] + [("parent", a) for a in ancestors]:
        best = _best(text)
        if best:
            return best[0], f"{label} '{one_line(text, 50)}'"
    best = _best(body)
    if best:
        return best[0], f"text: {best[1]} {best[0]} keyword{'s' if best[1] > 1 else ''}"
    return "other", "no keywords"


def _best(text: str) -> tuple[str, int] | None:
    counts = [(t, len(p.findall(text))) for t, p in SECTION_KEYWORDS.items()] if text else []
    top = max((n for _, n in counts), default=0)
    return next(((t, n) for t, n in counts if n == top), None) if top else None


@dataclass
class _Item:
    """A unit of the content text with its role: heading (level, how found), table, or text."""

    unit: PackUnit
    level: int = 0
    how: str = ""
    pricing: bool = False


@dataclass
class _Section:
    name: str
    path: tuple[str, ...]
    how: str
    level: int
    headings: list[_Item] = field(default_factory=list)
    body: list[_Item] = field(default_factory=list)
    #: the names of the small sections after it merged into it (`_merge_small`)
    merged: list[str] = field(default_factory=list)

    def span(self) -> tuple[int, int]:
        units = [it.unit for it in self.headings + self.body]
        return units[0].start, units[-1].end


def _check(params: dict) -> None:
    if params["min_tokens"] > params["max_tokens"]:
        raise ParamError(
            f"strategy 'sections' parameter 'min_tokens' ({params['min_tokens']}) must be "
            f"<= max_tokens ({params['max_tokens']})"
        )


def chunk_sections(
    doc: Document,
    *,
    min_tokens: int,
    max_tokens: int,
    notice_id: str,
    amendment_number: int,
    skip_contents: bool,
) -> StrategyResult:
    """Detect and classify sections, then cut them into token-bounded chunks."""
    _check({"min_tokens": min_tokens, "max_tokens": max_tokens})
    ct, skipped = ContentText.of(doc, skip_contents=skip_contents)
    if not ct.elements:
        return StrategyResult(chunks=[], skipped=skipped)
    items = _items(ct)
    sections = _sections(ct, items)
    builder = _Builder(doc, ct, min_tokens, max_tokens, notice_id or document_key(doc), amendment_number)
    fallback = not any(s.headings for s in sections)
    if not fallback:
        sections = _merge_small(ct, sections, builder.tokens, min_tokens, max_tokens)
    for sec in sections:
        builder.add_section(sec, fallback)
    return StrategyResult(chunks=builder.chunks, skipped=skipped)


def _items(ct: ContentText) -> list[_Item]:
    """Every element as headings, tables and paragraphs, in reading order."""
    items: list[_Item] = []
    style_levels: dict[str, int] = {}  # heuristic heading kind -> level, fixed at first sight
    top = 0  # level of the innermost heading so far

    def heading(unit: PackUnit, level: int, how: str) -> None:
        nonlocal top
        items.append(_Item(PackUnit(unit.start, unit.end, HEADING), level, how))
        top = level

    for i, el in enumerate(ct.elements):
        if ct.kind(i) == TITLE:  # a caption or lead-in: it goes with what follows, even in capitals
            items.append(_Item(ct.element_units(i, TITLE)[0]))
            continue
        if el.type == "table":
            u = ct.element_units(i, TABLE)[0]
            caption = el.attrs.get("caption")
            context = ct.text[u.start : u.end] + (" " + caption if isinstance(caption, str) else "")
            items.append(_Item(u, pricing=bool(PRICING.search(context))))
            continue
        if el.is_heading:
            level = el.text_level or 1
            heading(ct.element_units(i, HEADING)[0], level, f"layout heading level {level}")
            continue
        for u in ct.element_units(i):
            text = ct.text[u.start : u.end]
            line_end = text.find("\n")
            first = text if line_end < 0 else text[:line_end]
            kind = heading_kind(first) if el.type in _HEADING_SOURCES else None
            if kind and (line_end < 0 or kind != "trailing colon"):
                level = style_levels.setdefault(kind, top + 1 if top else 1)
                if line_end < 0:
                    heading(u, level, kind)
                    continue
                heading(PackUnit(u.start, u.start + len(first.rstrip()), HEADING), level, kind)
                rest = len(first) + 1
                while rest < len(text) and text[rest].isspace():
                    rest += 1
                u = PackUnit(u.start + rest, u.end, PARAGRAPH)
                text = text[rest:]
            if el.type not in _NOT_TABLES and is_text_table(text):
                items.append(_Item(PackUnit(u.start, u.end, TABLE), pricing=bool(PRICING.search(text))))
            else:
                items.append(_Item(u))
    return items


def _sections(ct: ContentText, items: list[_Item]) -> list[_Section]:
    """A section per heading with text of its own; text-less headings join the next section."""
    sections: list[_Section] = []
    stack = HeadingStack()
    cur: _Section | None = None
    for it in items:
        if it.unit.kind == HEADING:
            carried = cur.headings if cur is not None and not cur.body else []
            if cur is not None and cur.body:
                sections.append(cur)
            name = " ".join(ct.text[it.unit.start : it.unit.end].split())
            cur = _Section(name, stack.push(it.level, name), it.how, it.level, carried + [it])
        else:
            if cur is None:
                cur = _Section("", (), "", 0)
            cur.body.append(it)
    if cur is not None:
        sections.append(cur)
    return sections


def _merge_small(ct: ContentText, sections: list[_Section], tokens: Callable[[int, int], int], minimum: int,
                 maximum: int) -> list[_Section]:
    """Sections below `minimum` tokens merged with the sections after them, the spec's 400-600
    token budget: a section joins the one before while that one is below the minimum, the two fit
    in `maximum`, it is no shallower in the outline than the one that opens the chunk (a chunk does
    not climb out of its parent section), it has the same section type (an "EVALUATION
    CRITERIA" section stays apart from "REQUIREMENTS", so the chunk's type holds for all of it) and
    neither holds a table (a chunk of its own, which parts the text anyway). A
    merged section keeps the first one's name, path and type and lists the names of the others
    (`merged`)."""
    out: list[_Section] = []
    size = 0
    kind = ""
    for sec in sections:
        own = tokens(*sec.span())
        prev = out[-1] if out else None
        sec_kind = classify(sec.name, list(reversed(sec.path[:-1])), _body_text(ct, sec))[0]
        if (prev is not None and prev.headings and sec.headings and size < minimum and sec.level >= prev.level
                and sec_kind == kind and not _has_table(prev) and not _has_table(sec)
                and tokens(prev.span()[0], sec.span()[1]) <= maximum):
            prev.body += sec.headings + sec.body
            prev.merged.append(sec.name)
            size = tokens(*prev.span())
            continue
        out.append(_Section(sec.name, sec.path, sec.how, sec.level, list(sec.headings), list(sec.body)))
        size, kind = own, sec_kind
    return out


def _has_table(sec: _Section) -> bool:
    """Whether a section holds a table: a chunk of its own, which would part the merged text anyway
    and leave the runs after it under the first section's name."""
    return any(it.unit.kind == TABLE for it in sec.body)


def _body_text(ct: ContentText, sec: _Section) -> str:
    """A section's own text, headings aside: what its type is read from when its names say nothing."""
    return "\n\n".join(ct.text[it.unit.start : it.unit.end] for it in sec.body)


def _leads_to_table(body: list[_Item], n: int) -> bool:
    """Whether the lead-in or heading `body[n]` and the lead-ins and headings right after it end in
    a table (a heading of a merged section, and the sentence introducing its table)."""
    while n < len(body) and body[n].unit.kind in (TITLE, HEADING):
        n += 1
    return n < len(body) and body[n].unit.kind == TABLE


def _runs(sec: _Section) -> list[tuple[str, list[_Item]]]:
    """The section's runs: its tables (each with the headings and lead-ins that open it) and the
    paragraphs between them, in order."""
    runs: list[tuple[str, list[_Item]]] = []
    lead = list(sec.headings)
    for n, it in enumerate(sec.body):
        if it.unit.kind == TABLE:
            runs.append((TABLE, lead + [it]))
            lead = []
        elif it.unit.kind in (TITLE, HEADING) and _leads_to_table(sec.body, n):
            lead.append(it)  # the table after it (and the lead-ins and headings between) opens a run with it
        elif runs and runs[-1][0] == PARAGRAPH:
            runs[-1][1].append(it)
        else:
            runs.append((PARAGRAPH, lead + [it]))
            lead = []
    if lead:
        runs.append((PARAGRAPH, lead))
    return runs


class _Builder:
    """Cuts sections into token-bounded chunks and fills in the spec's metadata."""

    def __init__(self, doc: Document, ct: ContentText, min_tokens: int, max_tokens: int, notice_id: str,
                 amendment_number: int):
        self.doc, self.ct = doc, ct
        self.min_tokens, self.max_tokens = min_tokens, max_tokens
        self.notice_id, self.amendment_number = notice_id, amendment_number
        self.filename = Path(doc.source).stem
        self.packer = Packer(ct.text, max_tokens, self.tokens, chars_per_unit=MAX_TOKEN_CHARS, header_room=True)
        self.chunks: list[Chunk] = []

    def tokens(self, start: int, end: int) -> int:
        return count_tokens(self.ct.text[start:end])

    def add_section(self, sec: _Section, fallback: bool) -> None:
        """The section's runs of text and its tables, each cut to the token budget."""
        runs = _runs(sec)
        ct = self.ct
        ancestors = list(reversed(sec.path[:-1]))
        classified = None if fallback else classify(sec.name, ancestors, _body_text(ct, sec))
        label = f"section '{one_line(sec.name, 60)}'" if sec.name else "the text before the first heading"
        for r, (kind, items) in enumerate(runs):
            units = [it.unit for it in items]
            total = self.tokens(units[0].start, units[-1].end)
            if total <= self.max_tokens:
                pieces = [units]
            else:
                pieces = self.packer.pack(units)
                if kind == PARAGRAPH:
                    pieces = self.packer.rebalance(pieces, self.min_tokens)
            is_table = kind == TABLE
            pricing = is_table and (any(it.pricing for it in items) or bool(PRICING.search(sec.name)))
            for k, piece in enumerate(pieces):
                if k == 0 and r == 0:
                    b = self._section_boundary(sec, label, fallback)
                elif k == 0 and piece[0].kind == TITLE:
                    b = ct.lead_in_boundary(piece[0].start, f"{'pricing ' if pricing else ''}table in {label}")
                elif k == 0:
                    b = Boundary(Reason.TABLE, f"{'pricing ' if pricing else ''}table in {label}") if is_table \
                        else Boundary(Reason.AFTER_TABLE, f"text after a table in {label}")
                elif piece[0].kind == TITLE:
                    b = ct.lead_in_boundary(piece[0].start, f"{label} ({total} tokens > {self.max_tokens}), "
                                                            f"part {k + 1} of {len(pieces)}")
                else:
                    b = self._split_boundary(piece[0].kind, label, total, k, len(pieces), fallback)
                    b = Boundary(b.reason, b.detail + self.packer.why_moved(piece[0].start))
                if not self.chunks:
                    b = Boundary(Reason.DOCUMENT_START, f"first chunk: {b.detail}")
                self._add(sec, piece, b, is_table, pricing, classified)

    def _section_boundary(self, sec: _Section, label: str, fallback: bool) -> Boundary:
        """Why the section's first chunk starts: small sections merged into it, its heading (with the
        text-less headings before it), or no headings at all."""
        if sec.merged:
            names = ", ".join(f"'{one_line(n, 40)}'" for n in sec.merged)
            return Boundary(Reason.MERGED_SMALL, f"{label} ({sec.how}) with the section(s) after it, "
                                                 f"merged while below {self.min_tokens} tokens: {names}")
        if sec.headings:
            carried = [self.ct.text[h.unit.start : h.unit.end] for h in sec.headings[:-1]]
            detail = f"{label} ({sec.how})"
            if carried:
                detail += "; with the text-less heading " + ", ".join(f"'{one_line(t, 40)}'" for t in carried)
            return Boundary(Reason.HEADING, detail)
        return Boundary(Reason.FALLBACK_PARAGRAPHS if fallback else Reason.HEADING,
                        "no headings: paragraphs grouped by token budget" if fallback else label)

    def _split_boundary(self, kind: str, label: str, total: int, k: int, n: int, fallback: bool) -> Boundary:
        part = f"part {k + 1} of {n}"
        where = f"{label} ({total} tokens > {self.max_tokens})"
        if kind == SENTENCE:
            return Boundary(Reason.SENTENCE_SPLIT, f"{where} split at a sentence, {part}")
        if kind == ROW:
            return Boundary(Reason.TABLE_ROW_SPLIT, f"table in {where} split at a row, {part}")
        if kind == HARD:
            return Boundary(Reason.SIZE_LIMIT, f"{where}: one sentence exceeds the limit, hard cut at a line "
                                               f"break or space, {part}")
        if fallback:
            return Boundary(Reason.FALLBACK_PARAGRAPHS,
                            f"no headings: paragraphs grouped up to {self.max_tokens} tokens, {part}")
        return Boundary(Reason.PARAGRAPH_SPLIT, f"{where} split at a paragraph, {part}")

    def _add(self, sec: _Section, piece: list[PackUnit], boundary: Boundary, is_table: bool, pricing: bool,
             classified: tuple[str, str] | None) -> None:
        ct = self.ct
        start, end = piece[0].start, piece[-1].end
        text = ct.text[start:end]
        section_type, basis = classified or classify("", [], text)
        requirement = bool(REQUIREMENT.search(text))
        index = len(self.chunks)
        extra = {
            "section_name": sec.name,
            "section_type": section_type,
            "section_type_basis": basis,
            "is_critical": section_type in CRITICAL_TYPES or requirement,
            "requirement_flag": requirement,
            "is_table": is_table,
            "embed": not is_table,
            "amendment_number": self.amendment_number,
            "is_latest_version": True,
            "chunk_index": index,
            "notice_id": self.notice_id,
            "filename": self.filename,
            "merged_sections": list(sec.merged),
        }
        ctype = ("pricing_table" if pricing else "table") if is_table else "text"
        self.chunks.append(build_chunk(
            self.doc, index=index, chunk_id=f"chunk_{index}", type=ctype, text=text,
            elements=ct.elements_in(start, end), boundary=boundary, section_path=sec.path,
            heading=sec.name or None, start_char=ct.canonical(start), end_char=ct.canonical(end, end=True),
            extra=extra,
        ))


STRATEGY = declare(
    chunk_sections,
    "sections",
    small={"min_tokens": 60, "max_tokens": 100},
    params=[
        SKIP_CONTENTS,
        Param("min_tokens", int, 400, "split pieces are topped up towards this many tokens (cl100k)",
              min=1, max=100_000, ui_step=50),
        Param("max_tokens", int, 600, "a section above this many tokens is split (cl100k)",
              min=10, max=100_000, ui_step=50),
        Param("notice_id", str, "", "notice id: chunk ids are `{notice_id}_{document key}_...`; empty = the document key alone"),
        Param("amendment_number", int, 0, "0 for the original, 1, 2, ... for amendments", min=0, max=10_000,
              ui_step=1),
    ],
    doc="sections by detected headings, 400–600 cl100k tokens (some 1,600–2,400 characters), classification, requirement/table flags",
    spec="docs/specs/4-section-token-chunking.md",
    ruleset="sections/2026-12-05",
    offsets="slice_without_skipped",
    check=_check,
    boundaries='detected headings (layout, ALL CAPS, `SECTION 1:`, trailing colon), 400–600 cl100k tokens, split at paragraphs then sentences; no headings → paragraph fallback',
    fields='`section_name`, `section_type`, `requirement_flag`, `is_critical`, `is_table`, `embed`, `amendment_number`, `is_latest_version`',
    size_limit=lambda p: (p["max_tokens"], "tokens"),
    # spec 4's ids are noticeId_filename_...: the document key is the file name unless metadata names one
    id_prefix=lambda doc, p: f"{p['notice_id']}_{document_key(doc)}" if p["notice_id"] else document_key(doc),
    keeps_lead_ins=always,
)
