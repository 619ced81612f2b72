"""Gold from a document's structured twin: the HTML or Markdown a PDF was made from, block by
block, placed in a parse of the PDF (`align`), and what it scores: the parse (`parse_scores`), the
cuts of a chunking (`cut_scores`) and retrieval of structured answers (`questions`, `answers`).

A `Gold` is parse-independent in its blocks and tied to one parse by their places: read against
another parse of the same PDF (MinerU's, Docling's), it is placed again (`Gold.for_document`).
`gold.json` (format `chunkbench.gold/1`) holds both; docs/gold.md says what every field means."""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError
from chunkbench.types.document import Document

from .align import align
from .blocks import CONTAINERS, LOCATED, GoldBlock, twin_blocks

FORMAT = "chunkbench.gold/1"
#: under this share of its blocks located, a twin is not the same document as the parse
SAME_DOCUMENT = 0.5


@dataclass(frozen=True)
class Gold:
    """Gold blocks placed in one parse: which document (`source`, `doc_id`, the parser's label and
    the sha256 of the canonical text the places index), which twins, and the blocks in order."""

    source: str
    doc_id: str
    parser: str
    text_sha256: str
    twins: tuple[dict[str, str], ...]
    blocks: tuple[GoldBlock, ...]
    _position: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    _children: dict[str, list[GoldBlock]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for n, b in enumerate(self.blocks):
            self._position[b.id] = n
            if b.parent is not None:
                self._children.setdefault(b.parent, []).append(b)

    def block(self, block_id: str) -> GoldBlock:
        return self.blocks[self._position[block_id]]

    def position(self, block_id: str) -> int:
        """The block's place in the twin's order (its index in `blocks`)."""
        return self._position[block_id]

    @property
    def leaves(self) -> list[GoldBlock]:
        """The blocks that are placed themselves (not lists and tables), less those without letters."""
        return [b for b in self.blocks if b.kind not in CONTAINERS and b.status != "empty"]

    def children(self, block_id: str) -> list[GoldBlock]:
        """The items of a list or the rows of a table, in order."""
        return list(self._children.get(block_id, ()))

    def summary(self) -> dict[str, Any]:
        """Blocks by status, the located share by count and by characters, and per kind."""
        leaves = self.leaves
        statuses = Counter(b.status for b in leaves)
        located = [b for b in leaves if b.located]
        chars = sum(len(b.text) for b in leaves)
        kinds: dict[str, dict[str, int]] = {}
        for b in leaves:
            row = kinds.setdefault(b.kind, {"blocks": 0, "located": 0})
            row["blocks"] += 1
            row["located"] += b.located
        return {
            "blocks": len(leaves), **{s: statuses.get(s, 0) for s in ("exact", "anchored", "missing")},
            "located": round(len(located) / len(leaves), 4) if leaves else 0.0,
            "located_chars": round(sum(len(b.text) for b in located) / chars, 4) if chars else 0.0,
            "kinds": kinds,
        }

    def fits(self, doc: Document) -> bool:
        """Whether the places index this very text (else `for_document` places the blocks again)."""
        return self.text_sha256 == text_sha256(doc)

    def for_document(self, doc: Document, *, where: str | None = None) -> Gold:
        """This gold for `doc`: itself when its places index `doc.text`, else the blocks placed in
        it anew (another parse of the same PDF); an InputError when under half are found there."""
        if self.fits(doc):
            if any(b.located and b.span[1] > len(doc.text) for b in self.blocks):
                raise InputError("malformed gold file: a block's place lies past the end of the text", where)
            return self
        unplaced = [replace(b, status="missing", start=None, end=None, similarity=None) for b in self.blocks]
        return _checked(_gold(doc, align(doc, unplaced), self.twins), where or self.source,
                        ", ".join(t["source"] for t in self.twins))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "document": {"source": self.source, "doc_id": self.doc_id, "parser": self.parser,
                         "text_sha256": self.text_sha256},
            "twins": [dict(t) for t in self.twins],
            "summary": self.summary(),
            "blocks": [b.to_dict() for b in self.blocks],
        }

    def write(self, path: str | Path) -> Path:
        """gold.json, written atomically (a temporary file renamed: never a half-written file)."""
        from chunkbench.io.atomic import write_json

        return write_json(path, self.to_dict())

    @classmethod
    def read(cls, path: str | os.PathLike) -> Gold:
        """A gold.json as `write` wrote it; an InputError naming the file when it is not one."""
        from chunkbench.loaders.jsonread import read_json

        return cls.from_dict(read_json(Path(path)), os.fspath(path))

    @classmethod
    def from_dict(cls, data: Any, path: str | Path | None = None) -> Gold:
        """A Gold from a gold.json's content; an InputError naming `path` when it is not one."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError(f"not a gold file (expected \"format\": \"{FORMAT}\", as `chunkbench gold` writes)", path)
        try:
            document = data["document"]
            blocks = tuple(GoldBlock.from_dict(b) for b in data["blocks"])
            twins = tuple({str(k): str(v) for k, v in t.items()} for t in data.get("twins", ()))
            gold = cls(str(document["source"]), str(document["doc_id"]), str(document.get("parser", "")),
                       str(document["text_sha256"]), twins, blocks)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(f"malformed gold file ({type(exc).__name__}: {exc})", path) from None
        _check_blocks(gold, path)
        return gold


def make_gold(doc: Document, twins: Sequence[Document]) -> Gold:
    """The twins' blocks placed in `doc`; an InputError naming both when under half are found (the
    twin is not the same document)."""
    info = tuple({"source": t.source, "doc_id": t.doc_id, "generator": str(t.parser.options.get("generator", ""))}
                 for t in twins)
    gold = _gold(doc, align(doc, twin_blocks(twins)), info)
    return _checked(gold, doc.source, ", ".join(t.source for t in twins))


def share(values) -> float | None:
    """The share of true values, to 4 places; None when there are none (nothing of that kind to score)."""
    values = list(values)
    return round(sum(values) / len(values), 4) if values else None


def text_sha256(doc: Document) -> str:
    return hashlib.sha256(doc.text.encode("utf-8", "surrogatepass")).hexdigest()


def _gold(doc: Document, blocks: Sequence[GoldBlock], twins: tuple[dict[str, str], ...]) -> Gold:
    return Gold(doc.source, doc.doc_id, doc.parser.label, text_sha256(doc), twins, tuple(blocks))


def _checked(gold: Gold, document: str, twins: str) -> Gold:
    share = gold.summary()["located"]
    if share < SAME_DOCUMENT:
        raise InputError(f"{twins} is not a twin of {document}: only {share:.0%} of its blocks were found in "
                         f"the parse (at least {SAME_DOCUMENT:.0%} are when it is the same document)", document)
    return gold


def _check_blocks(gold: Gold, path: str | Path | None) -> None:
    """A gold file's blocks checked as read: known kinds and statuses, unique ids, a located block's
    place a forward span, and every block it names (parent, term, section) one that comes before it."""
    from .blocks import KINDS, STATUSES

    seen: set[str] = set()
    for b in gold.blocks:
        problem = None
        if b.kind not in KINDS:
            problem = f"unknown kind {b.kind!r}"
        elif b.status not in STATUSES:
            problem = f"unknown status {b.status!r}"
        elif b.status in LOCATED and (b.start is None or b.end is None or not 0 <= b.start <= b.end):
            problem = "a located block needs 0 <= start <= end"
        elif b.id in seen:
            problem = "its id is used twice"
        elif any(ref is not None and ref not in seen for ref in (b.parent, b.term, *b.section)):
            problem = "it names a block that does not come before it"
        if problem:
            raise InputError(f"malformed gold file: block {b.id!r}: {problem}", path)
        seen.add(b.id)
