"""Strategy `headers` (specs/3): header-based chunks, merged when small, split when large.

1. Every heading element (any loader: Markdown, PDF layout, MinerU) starts a section: the heading
   and the content up to the next heading. Its `header_path` is the heading stack by level,
   "A > B > C". Text before the first heading is a section with an empty path.
2. Adjacent sections below `min_chunk_chars` are merged into the next until the merged chunk
   reaches the minimum (`merged_small`); a small last section stays as it is (nothing follows
   it, and the one before already met the minimum). A merged chunk's `header_path` is the
   deepest path shared by its sections that have text besides their heading (so a bare chapter
   heading merged into its first subsection gives the subsection's path), or the first such
   section's path when they share none; `header_paths` lists every merged section's path.
3. A chunk above `max_chunk_chars` is split into sub-chunks `{id}_sub_{n}` at paragraph
   boundaries (element boundaries and blank lines), then at sentence boundaries when one
   paragraph is too big, then hard at a line break or whitespace when one sentence is.
4. Overlap only between sibling sub-chunks: sub-chunk N+1 starts up to `overlap_chars` characters
   earlier, inside sub-chunk N (moved forward to a word start when it falls mid-word; never before
   the section's start). The spec prepends the tail of N plus "\\n\\n" instead; here the chunk
   text stays a slice of the document, so the overlap is the same characters in place.
   Header-based chunks never overlap.
5. `include_parent_headers` records the breadcrumb "A > B" + "\\n\\n" (the headers above the
   chunk's first line that its text does not already start with) in the field `header_prefix`;
   it is NOT put into the chunk text (the spec prepends it): the text stays an exact slice and
   an embedder that wants the context uses `header_prefix + text`.
Without any heading the text is packed by paragraphs up to `max_chunk_chars` (`fallback_paragraphs`).
Document metadata (front matter: tags, aliases, ...) is inherited through `metadata`; `links` lists
the wikilink targets in the chunk's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from chunkbench.errors import ParamError
from chunkbench.text.headings import HeadingStack
from chunkbench.text.segment import one_line
from chunkbench.types.chunk import Boundary, Chunk, Reason, build_chunk
from chunkbench.types.document import SEPARATOR, Document, Element

from .base import Param, StrategyResult, always, declare
from .spans import (
    HARD,
    HEADING,
    ROW,
    SENTENCE,
    SKIP_CONTENTS,
    TITLE,
    ContentText,
    Packer,
    PackUnit,
    overlap_start,
)

#: Obsidian-style wikilink [[Target]], [[Target|label]], [[Target#heading]]: the target is kept
WIKILINK = re.compile(r"\[\[([^\[\]|#\n]+)(?:[#|][^\[\]\n]*)?\]\]")


def _check(params: dict) -> None:
    if params["min_chunk_chars"] > params["max_chunk_chars"]:
        raise ParamError(
            f"strategy 'headers' parameter 'min_chunk_chars' ({params['min_chunk_chars']}) must be "
            f"<= max_chunk_chars ({params['max_chunk_chars']})"
        )
    if params["overlap_chars"] >= params["max_chunk_chars"]:
        raise ParamError(
            f"strategy 'headers' parameter 'overlap_chars' ({params['overlap_chars']}) must be "
            f"< max_chunk_chars ({params['max_chunk_chars']})"
        )


@dataclass
class _Section:
    """A heading (None for the text before the first one) and the content elements under it."""

    first: int  # index of its first element in the ContentText
    last: int  # index of its last element
    path: tuple[str, ...]
    heading: Element | None


@dataclass
class _Group:
    """One header-based chunk: one section, or several merged because they were small."""

    sections: list[_Section]
    boundary: Boundary | None = None


@dataclass
class _Piece:
    """A chunk being assembled: its content span and where its overlap with the previous sibling starts."""

    start: int  # content-text span of the chunk's own content
    end: int
    kind: str  # kind of the unit that starts it (heading/paragraph/sentence/hard)
    lead: int = -1  # content-text start including the overlap (-1: no overlap, starts at `start`)

    @property
    def first(self) -> int:
        return self.start if self.lead < 0 else self.lead


def chunk_headers(
    doc: Document,
    *,
    min_chunk_chars: int,
    max_chunk_chars: int,
    overlap_chars: int,
    include_parent_headers: bool,
    skip_contents: bool,
) -> StrategyResult:
    """Chunk at header boundaries, merge small chunks, split large ones, overlap siblings."""
    _check({"min_chunk_chars": min_chunk_chars, "max_chunk_chars": max_chunk_chars, "overlap_chars": overlap_chars})
    ct, skipped = ContentText.of(doc, skip_contents=skip_contents)
    if not ct.elements:
        return StrategyResult(chunks=[], skipped=skipped)
    sections = _sections(ct.elements)
    builder = _Builder(doc, ct, max_chunk_chars, overlap_chars, include_parent_headers, sections)
    if any(s.heading is not None for s in sections):
        for n, group in enumerate(_merge(ct, sections, min_chunk_chars)):
            builder.add_group(n, group)
    else:
        builder.add_fallback()
    return StrategyResult(chunks=builder.chunks, skipped=skipped)


def _sections(content: list[Element]) -> list[_Section]:
    """Split the content at every heading; paths follow the heading levels (stack)."""
    sections: list[_Section] = []
    stack = HeadingStack()
    for i, el in enumerate(content):
        if el.is_heading:
            level = el.text_level or 1
            sections.append(_Section(i, i, stack.push(level, " ".join(el.text.split())), el))
        elif sections:
            sections[-1].last = i
        else:
            sections.append(_Section(i, i, (), None))
    return sections


def _span(ct: ContentText, sections: list[_Section]) -> tuple[int, int]:
    first, last = sections[0].first, sections[-1].last
    return ct.offsets[first], ct.offsets[last] + len(ct.elements[last].text)


def _merge(ct: ContentText, sections: list[_Section], minimum: int) -> list[_Group]:
    """Combine each section below `minimum` with the following ones until the minimum is met."""
    groups: list[_Group] = []
    current: _Group | None = None
    for sec in sections:
        if current is None:
            current = _Group([sec])
        elif _size(ct, current.sections) < minimum:
            current.sections.append(sec)
        else:
            groups.append(current)
            current = _Group([sec])
    if current is not None:
        groups.append(current)
    for n, g in enumerate(groups):
        g.boundary = _group_boundary(ct, n, g, minimum)
    return groups


def _size(ct: ContentText, sections: list[_Section]) -> int:
    a, b = _span(ct, sections)
    return b - a


def _group_boundary(ct: ContentText, n: int, g: _Group, minimum: int) -> Boundary:
    first = g.sections[0]
    if first.heading is not None:
        where = f"heading level {first.heading.text_level or 1} '{one_line(first.heading.text)}'"
    else:
        where = "text before the first heading"
    if len(g.sections) > 1:
        sizes = [_size(ct, [s]) for s in g.sections]
        names = ", ".join(f"'{one_line(s.path[-1], 30) if s.path else '(no heading)'}' ({z})"
                          for s, z in zip(g.sections, sizes))
        detail = f"{where}; sections merged until {minimum} chars: {names}"
        if n == 0:
            return Boundary(Reason.DOCUMENT_START, f"first chunk, {detail}")
        return Boundary(Reason.MERGED_SMALL, detail)
    if n == 0:
        return Boundary(Reason.DOCUMENT_START, f"first chunk, {where}")
    return Boundary(Reason.HEADING, where)


def _group_path(g: _Group) -> tuple[str, ...]:
    """The deepest path shared by the merged sections that have text besides their heading (a
    bare heading merged into its first subsection adds nothing), else the first one's path."""
    paths = [s.path for s in g.sections if s.last > s.first or s.heading is None] or [g.sections[0].path]
    common: list[str] = []
    for parts in zip(*paths):
        if any(p != parts[0] for p in parts):
            break
        common.append(parts[0])
    return tuple(common) if common else paths[0]


class _Builder:
    """Turns groups (or fallback paragraph runs) into Chunks: split, overlap, prefix, positions."""

    def __init__(self, doc: Document, ct: ContentText, maximum: int, overlap: int, parents: bool,
                 sections: list[_Section]):
        self.doc, self.ct, self.maximum, self.overlap, self.parents = doc, ct, maximum, overlap, parents
        self.chunks: list[Chunk] = []
        self.packer = Packer(ct.text, maximum)
        self.use_src = all("src_start" in e.attrs for e in ct.elements)
        # section of each content element, for the breadcrumb of chunks that start mid-section
        self.section_of: list[_Section] = []
        for s in sections:
            self.section_of.extend([s] * (s.last - s.first + 1))

    def add_group(self, n: int, g: _Group) -> None:
        start, end = _span(self.ct, g.sections)
        path = _group_path(g)
        extra = {"header_paths": [" > ".join(s.path) for s in g.sections]}
        heading = g.sections[0].heading.text if g.sections[0].heading is not None else None
        assert g.boundary is not None, "_merge sets every group's boundary"
        self._emit(n, start, end, g.boundary, path, heading, "section", extra)

    def add_fallback(self) -> None:
        """No headings: pack paragraphs up to the maximum; a paragraph above it is split alone."""
        ct = self.ct
        units = [u for i in range(len(ct.elements)) for u in ct.element_units(i)]
        groups: list[list[PackUnit]] = []
        for u in units:
            if groups and u.end - groups[-1][0].start <= self.maximum:
                groups[-1].append(u)
            elif groups and len(groups[-1]) > 1 and ct.kind(ct.index_at(groups[-1][-1].start)) == TITLE:
                lead: list[PackUnit] = []  # the lead-ins that end the group (a chain: "… Thus" | a display | "…:") open the next
                while len(groups[-1]) > 1 and ct.kind(ct.index_at(groups[-1][-1].start)) == TITLE:
                    lead.insert(0, groups[-1].pop())
                groups.append([*lead, u])
            else:
                groups.append([u])
        for n, g in enumerate(groups):
            if n == 0:
                b = Boundary(Reason.DOCUMENT_START, "first chunk; no headings, so chunked by paragraphs")
            else:
                prev = groups[n - 1][-1].end - groups[n - 1][0].start
                added = g[0].end - groups[n - 1][-1].end
                b = Boundary(Reason.FALLBACK_PARAGRAPHS,
                             f"no headings: paragraph boundary, {prev} + {added} chars > {self.maximum}")
            self._emit(n, g[0].start, g[-1].end, b, (), None, "text", {})

    def _emit(self, n: int, start: int, end: int, boundary: Boundary, path: tuple[str, ...],
              heading: str | None, ctype: str, extra: dict) -> None:
        base_id = f"chunk_{n}"
        if end - start <= self.maximum:
            self._add(base_id, _Piece(start, end, HEADING), boundary, path, heading, ctype, extra, None)
            return
        first = self.ct.index_at(start)
        last = self.ct.index_at(end, end=True)
        units = []
        for i in range(first, last + 1):
            kind = self.ct.kind(i)
            # a fallback group may start or end inside an element (at a blank line)
            units += [u for u in self.ct.element_units(i, kind) if start <= u.start and u.end <= end]
        pieces = [_Piece(p[0].start, p[-1].end, p[0].kind) for p in self.packer.pack(units)]
        label = " > ".join(path) if path else "(no headings)" if ctype == "text" else "(text before the first heading)"
        for k, piece in enumerate(pieces):
            if k and self.overlap > 0:
                piece.lead = overlap_start(self.ct.text, max(start, piece.start - self.overlap), piece.start)
            ov = piece.start - piece.first
            if k == 0:
                b = boundary
            elif piece.kind == TITLE:
                b = self.ct.lead_in_boundary(piece.start, f"split of '{one_line(label, 80)}' (part {k + 1} of "
                                                          f"{len(pieces)}), {ov}-char overlap")
            else:
                why = {SENTENCE: (Reason.SENTENCE_SPLIT, "at a sentence boundary"),
                       ROW: (Reason.TABLE_ROW_SPLIT, f"at a table row: the table exceeds {self.maximum} chars"),
                       HARD: (Reason.SIZE_LIMIT, "hard cut at a line break or space: one sentence exceeds "
                                                 f"{self.maximum} chars")}.get(piece.kind,
                                                                           (Reason.PARAGRAPH_SPLIT, "at a paragraph boundary"))
                b = Boundary(why[0], f"split of '{one_line(label, 80)}' (part {k + 1} of {len(pieces)}) {why[1]}, "
                                     f"{ov}-char overlap{self.packer.why_moved(piece.start)}")
            sub_extra = {**extra, "parent_chunk_id": base_id, "split_part": k + 1, "split_parts": len(pieces)}
            self._add(f"{base_id}_sub_{k}", piece, b, path, heading, ctype, sub_extra, ov)

    def _add(self, chunk_id: str, piece: _Piece, boundary: Boundary, path: tuple[str, ...],
             heading: str | None, ctype: str, extra: dict, overlap_len: int | None) -> None:
        ct = self.ct
        c_start = piece.first
        prefix = self._prefix(piece) if self.parents else ""
        text = ct.text[c_start : piece.end]
        start_pos = ct.source_offset(c_start) if self.use_src else None
        end_pos = ct.source_offset(piece.end, end=True) if self.use_src else None
        start_char, end_char = ct.canonical(c_start), ct.canonical(piece.end, end=True)
        fields = {
            "header_path": " > ".join(path),
            "chunk_index": len(self.chunks),
            "start_pos": start_char if start_pos is None else start_pos,
            "end_pos": end_char if end_pos is None else end_pos,
            "header_prefix": prefix,
            "overlap_chars": overlap_len or 0,
            "links": list(dict.fromkeys(m.group(1).strip() for m in WIKILINK.finditer(text))),
            **extra,
        }
        self.chunks.append(build_chunk(
            self.doc, index=len(self.chunks), chunk_id=chunk_id, type=ctype, text=text,
            elements=ct.elements_in(c_start, piece.end), boundary=boundary, section_path=path,
            heading=heading, start_char=start_char, end_char=end_char, extra=fields,
        ))

    def _prefix(self, piece: _Piece) -> str:
        """Breadcrumb of the headers above the chunk's first content line, not already in its text."""
        i = self.ct.index_at(piece.first)
        if not self.section_of:
            return ""
        sec = self.section_of[i]
        path = sec.path
        starts_with_heading = sec.heading is not None and i == sec.first and piece.first == self.ct.offsets[i]
        if starts_with_heading:
            path = path[:-1]
        return " > ".join(path) + SEPARATOR if path else ""


STRATEGY = declare(
    chunk_headers,
    "headers",
    small={"max_chunk_chars": 300, "min_chunk_chars": 50, "overlap_chars": 30, "include_parent_headers": False},
    params=[
        SKIP_CONTENTS,
        Param("min_chunk_chars", int, 200, "header chunks below this many characters are merged with the next",
              min=0, max=100_000, ui_step=50),
        Param("max_chunk_chars", int, 2000, "header chunks above this are split into _sub_N sub-chunks",
              min=20, max=100_000, ui_step=100),
        Param("overlap_chars", int, 50, "sub-chunk N+1 starts this many characters inside sibling N (siblings only)",
              min=0, max=10_000, ui_step=10),
        Param("include_parent_headers", bool, True,
              "record the parent header path 'A > B' in header_prefix (never in the text: embed header_prefix + text)"),
    ],
    doc="header-based with min/max chars, overlap only between sibling sub-chunks",
    spec="docs/specs/3-markdown-header-chunking.md",
    ruleset="headers/2026-12-05",
    offsets="slice_without_skipped",
    check=_check,
    boundaries="header sections; merged below `min_chunk_chars` (200), split above `max_chunk_chars` (2000) at paragraphs, then sentences; `overlap_chars` (50) only between sibling `_sub_N` chunks, in place: the text is always a slice of the document (the spec's prepended overlap and header breadcrumb are not; the breadcrumb is the field `header_prefix`)",
    fields='`header_path` "A > B > C", `start_pos`/`end_pos` (offsets in the original Markdown file)',
    target_size=lambda p: (p["max_chunk_chars"], "chars"),
    keeps_lead_ins=always,
)
