"""Questions made from gold: the kinds people ask of a PDF, each with its evidence, the whole
structure the answer needs (a table's header row and one of its rows, every item of a list, a
section's paragraphs, a term and its description, a footnote, a passage of two paragraphs).

A question is made of the evidence's own words, never of the heading or lead-in above it, in one of
two phrasings (PHRASINGS): `keywords`, its most distinctive words (rarest in the document) spread
over its parts, none of them a word of the headings above the evidence or of its lead-in; or
`sentence`, a run of consecutive words of one of its sentences, as a person who half remembers the
passage asks (common words and all, the fewest heading words). Table cells ("In the row for K, what
is the C?") and definitions ("What does T mean?") are asked alike in both. `giveaway` measures how
many questions the heading words alone still find. Up to MAX_PER_KIND questions of each kind per
document, picked by a hash of their evidence's ids: the same questions every run."""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from chunkbench.evaluate.retrieval.ranking import tokenize
from chunkbench.text.leadins import introduces
from chunkbench.text.sentences import sentence_spans
from chunkbench.text.tokenizer import count_tokens

from . import Gold
from .blocks import GoldBlock

#: questions of each kind made per document, at most
MAX_PER_KIND = 40
#: a section question's evidence holds at most this many cl100k tokens (a 2,000-token budget can hold it)
SECTION_TOKENS = 1500
#: the question kinds, in table order, each with what its evidence is
QUESTION_KINDS = {
    "table_cell": "a table's header row and one body row: the cell a row's key and a column name ask for",
    "list_all": "every item of a list of three or more",
    "section": f"the blocks directly under a heading (two or more, at most {SECTION_TOKENS:,} tokens in all)",
    "definition": "a definition list's term and its description",
    "footnote": "one footnote",
    "passage": "two consecutive paragraphs of one section",
}
#: distinctive words a question takes from its evidence, per kind
WORDS = {"list_all": 3, "section": 4, "footnote": 3, "passage": 4}
_TEMPLATES = {
    "list_all": "Which are all the items that mention {words}?",
    "section": "What is said about {words}?",
    "footnote": "Which note says {words}?",
    "passage": "What is explained about {words}?",
}
_PARAGRAPHS = frozenset({"paragraph", "description"})
#: how a question's words are chosen: the evidence's rarest words, or a run of one of its sentences
PHRASINGS = ("keywords", "sentence")
#: the `sentence` phrasing's templates (its run of words in place of {words})
_SENTENCE_TEMPLATES = {
    "list_all": "What are all the items of the list that says {words}?",
    "section": "What does the document say about {words}?",
    "footnote": "Which note says {words}?",
    "passage": "What is explained about {words}?",
}
#: the `sentence` phrasing's run: at most this many words, at least RUN_MIN with two distinctive ones
RUN_WORDS = 12
RUN_MIN = 5


@dataclass(frozen=True)
class GoldQuestion:
    """A question of one kind and its evidence (gold block ids, in the twin's order)."""

    kind: str
    question: str
    evidence: tuple[str, ...]

    @property
    def id(self) -> str:
        """`kind/last evidence id`: unique per document (a table's rows share its header, never their
        own row; a section's, a list's, a passage's last block is no other's of that kind), and says
        the kind (per-kind tables read it)."""
        return f"{self.kind}/{self.evidence[-1]}"


def make_questions(gold: Gold, per_kind: int = MAX_PER_KIND, phrasing: str = "keywords") -> list[GoldQuestion]:
    """The questions of every kind `gold` has evidence for, at most `per_kind` each, in `phrasing`
    (PHRASINGS): the same evidence in both, only the words differ."""
    if phrasing not in PHRASINGS:
        raise ValueError(f"phrasing must be one of {', '.join(PHRASINGS)}, got {phrasing!r}")
    maker = _Maker(gold, phrasing)
    out: list[GoldQuestion] = []
    for kind in QUESTION_KINDS:
        made = [q for q in getattr(maker, kind)() if q is not None]
        made.sort(key=lambda q: hashlib.sha1("|".join(q.evidence).encode()).hexdigest())
        out.extend(sorted(made[:per_kind], key=lambda q: [gold.position(i) for i in q.evidence]))
    return out


class _Maker:
    def __init__(self, gold: Gold, phrasing: str = "keywords"):
        self.gold = gold
        self.phrasing = phrasing
        leaves = [b for b in gold.leaves if b.located]
        self.df = Counter(t for b in leaves for t in set(tokenize(b.text)))
        self.n = max(1, len(leaves))
        self.descriptions: dict[str, list[GoldBlock]] = {}
        for b in gold.blocks:
            if b.kind == "description" and b.term is not None:
                self.descriptions.setdefault(b.term, []).append(b)

    # -- the kinds --------------------------------------------------------------------------------

    def table_cell(self) -> list[GoldQuestion | None]:
        out: list[GoldQuestion | None] = []
        for table in (b for b in self.gold.blocks if b.kind == "table"):
            rows = self.gold.children(table.id)
            header = next((r for r in rows if r.header), None)
            if header is None or not header.located:
                continue
            for row in (r for r in rows if not r.header and r.located):
                out.append(self._cell_question(header, row))
        return out

    def _cell_question(self, header: GoldBlock, row: GoldBlock) -> GoldQuestion | None:
        key = next(((n, c) for n, c in enumerate(row.cells) if c.strip()), None)
        if key is None:
            return None
        column = next((n for n in range(key[0] + 1, len(row.cells))
                       if row.cells[n].strip() and n < len(header.cells) and header.cells[n].strip()), None)
        if column is None:
            return None
        ask = f"In the row for {_clip(key[1])}, what is the {_clip(header.cells[column])}?"
        return GoldQuestion("table_cell", ask, (header.id, row.id))

    def list_all(self) -> list[GoldQuestion | None]:
        out: list[GoldQuestion | None] = []
        for lst in (b for b in self.gold.blocks if b.kind == "list"):
            items = self.gold.children(lst.id)
            if len(items) >= 3 and all(i.located for i in items):
                out.append(self._worded("list_all", items))
        return out

    def section(self) -> list[GoldQuestion | None]:
        out: list[GoldQuestion | None] = []
        blocks = self.gold.blocks
        for n, heading in enumerate(blocks):
            if heading.kind != "heading":
                continue
            own = []
            for b in blocks[n + 1:]:
                if b.kind == "heading":
                    break
                if b.kind not in ("list", "table", "note_title"):
                    own.append(b)
            if len(own) < 2 or not all(b.located for b in own):
                continue
            if sum(count_tokens(b.text) for b in own) > SECTION_TOKENS:
                continue
            out.append(self._worded("section", own))
        return out

    def definition(self) -> list[GoldQuestion | None]:
        out: list[GoldQuestion | None] = []
        for term in (b for b in self.gold.blocks if b.kind == "term" and b.located):
            described = self.descriptions.get(term.id, [])
            name = term.text.strip().rstrip(":").strip()
            if not described or not all(b.located for b in described):
                continue
            if not any(len(t) >= 3 and t.isalpha() for t in tokenize(name)):
                continue
            out.append(GoldQuestion("definition", f"What does {_clip(name)} mean?",
                                    (term.id, *(b.id for b in described))))
        return out

    def footnote(self) -> list[GoldQuestion | None]:
        return [self._worded("footnote", [b]) for b in self.gold.blocks
                if b.kind == "footnote" and b.located and len(tokenize(b.text)) >= 5]

    def passage(self) -> list[GoldQuestion | None]:
        out: list[GoldQuestion | None] = []
        blocks = self.gold.blocks
        for a, b in zip(blocks, blocks[1:]):
            if a.kind in _PARAGRAPHS and b.kind in _PARAGRAPHS and a.located and b.located \
                    and a.section == b.section and not introduces(a.text) \
                    and min(len(tokenize(a.text)), len(tokenize(b.text))) >= 8:
                out.append(self._worded("passage", [a, b]))
        return out

    # -- words ------------------------------------------------------------------------------------

    def _worded(self, kind: str, parts: Sequence[GoldBlock]) -> GoldQuestion | None:
        """A question of `kind` from the most distinctive words of `parts`, taken in turn from each part
        (`sentence` phrasing: from a run of one sentence's words, _run)."""
        banned = self._heading_words(parts[0])
        if self.phrasing == "sentence":
            run = self._run(parts, banned)
            if run is None:
                return None
            return GoldQuestion(kind, _SENTENCE_TEMPLATES[kind].format(words=run), tuple(p.id for p in parts))
        ranked = [self._distinctive(p, banned) for p in parts]
        words: list[str] = []
        while len(words) < WORDS[kind] and any(ranked):
            for candidates in ranked:
                while candidates and candidates[0] in words:
                    candidates.pop(0)
                if candidates and len(words) < WORDS[kind]:
                    words.append(candidates.pop(0))
        if len(words) < min(2, WORDS[kind]):
            return None
        listed = ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else words[0]
        return GoldQuestion(kind, _TEMPLATES[kind].format(words=listed), tuple(p.id for p in parts))

    def _run(self, parts: Sequence[GoldBlock], banned: set[str]) -> str | None:
        """The run of at most RUN_WORDS consecutive words, within one sentence of `parts`, with the
        fewest `banned` (heading and lead-in) words and then the most distinctive ones (the sum of
        their idf); None when no sentence has RUN_MIN words with two distinctive ones. Linear in
        the parts' words."""
        best: tuple[float, float, int] | None = None
        found: str | None = None
        order = 0
        for part in parts:
            for a, b in sentence_spans(part.text):
                words = part.text[a:b].split()
                if len(words) < RUN_MIN or sum(map(_is_prose_word, words)) * 3 < len(words) * 2:
                    continue  # too short, or code and symbols rather than prose
                for start in range(max(1, len(words) - RUN_WORDS + 1)):
                    run = words[start:start + RUN_WORDS]
                    tokens = tokenize(" ".join(run))
                    rare = [t for t in tokens if len(t) >= 4 and t not in banned and any(c.isalpha() for c in t)]
                    if len(set(rare)) < 2:
                        continue
                    score = (-sum(t in banned for t in tokens), sum(self.idf(t) for t in set(rare)), -order)
                    order += 1
                    if best is None or score > best:
                        best, found = score, " ".join(run).strip(".,;:!?\"'“”‘’()[]")
        return found or None

    def _distinctive(self, block: GoldBlock, banned: set[str]) -> list[str]:
        """The block's words of four letters or more, rarest in the document first, none of `banned`."""
        seen: dict[str, int] = {}
        for n, t in enumerate(tokenize(block.text)):
            if len(t) >= 4 and any(ch.isalpha() for ch in t) and t not in banned and t not in seen:
                seen[t] = n
        return sorted(seen, key=lambda t: (-self.idf(t), seen[t]))

    def idf(self, token: str) -> float:
        return math.log(self.n / (1 + self.df.get(token, 0)))

    def _heading_words(self, block: GoldBlock) -> set[str]:
        """Words of the headings above the block and of its lead-in: a question may not use them."""
        words = {t for h in block.section for t in tokenize(self.gold.block(h).text)}
        lead = leadin_of(self.gold, block)
        if lead is not None:
            words.update(tokenize(lead.text))
        return words


_PROSE_WORD = re.compile(r"[(“\"'‘]?[A-Za-z][a-z'’-]*[)”\"'’]?[,.;:!?]?")


def _is_prose_word(word: str) -> bool:
    """Whether a whitespace-split word is a plain word (what a person types), not code or a symbol."""
    return _PROSE_WORD.fullmatch(word) is not None


def leadin_of(gold: Gold, block: GoldBlock) -> GoldBlock | None:
    """The paragraph introducing the list or table `block` belongs to (or `block` itself follows)."""
    anchor = gold.block(block.parent) if block.parent else block
    n = gold.position(anchor.id)
    if n == 0:
        return None
    before = gold.blocks[n - 1]
    return before if before.kind in _PARAGRAPHS and introduces(before.text) else None


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


#: a question counts as given away when its heading words alone rank the heading above its evidence
#: (or its lead-in) among this many of the document's blocks
GIVEAWAY_RANK = 3


def giveaway(gold: Gold, questions: Sequence[GoldQuestion]) -> float | None:
    """Share of questions whose words include words of the headings above their evidence (or of its
    lead-in) that, alone as a query, rank that heading or lead-in in the top GIVEAWAY_RANK of the
    document's placed blocks: questions a chunker would answer by keeping headings, not by the evidence."""
    from chunkbench.evaluate.retrieval.ranking import BM25Ranker

    if not questions:
        return None
    blocks = [b for b in gold.leaves if b.located]
    index = {b.id: n for n, b in enumerate(blocks)}
    ranker = BM25Ranker([b.text for b in blocks])
    given = 0
    for q in questions:
        first = gold.block(q.evidence[0])
        above = [gold.block(h) for h in first.section[-1:]]
        lead = leadin_of(gold, first)
        targets = {index[b.id] for b in (*above, *([lead] if lead else [])) if b.id in index}
        shared = set(tokenize(q.question)) & {t for b in (*above, *([lead] if lead else [])) for t in tokenize(b.text)}
        if not shared or not targets:
            continue
        scores = ranker.scores(" ".join(sorted(shared)))
        if scores is None:
            continue
        top = sorted(range(len(scores)), key=lambda i: -scores[i])[:GIVEAWAY_RANK]
        given += bool(targets & set(top))
    return round(given / len(questions), 4)
