"""The texts an index sees for a chunk: its text with its neighbours' (the `index_context` of a
setting), its own text alone too (`index_alone`), or pieces of its own sentences (`index_windows`),
the text of its structural block and of its section (`index_groups`), each after the headings
above the chunk (`index_headings`). A chunk indexed by several texts ranks by the best of their
scores.

Group texts let the ranking choose the size of the answer: a question whose words are spread over
a list or a section matches the group's text better than any one piece of it, and every chunk of
the group then ranks at that score, one after another, so what is sent is the group; a question
about one term matches its small chunk best. A group is indexed only when it holds more than the
chunk and at most `index_groups` tokens (the budget it will be sent in): a group that cannot be
sent whole would only rank its first pieces above the right one.

A small chunk ranked by its own words and those of the chunks around it, while the chunk alone is
returned, keeps what a reader is given short and still lets the ranking see the words that say what
the chunk is about (often in the sentence before it). The chunk's own text comes first and twice:
twice so that it outranks the neighbours that share its context, first so that a model that reads
only the start of a text (MiniLM: 256 word pieces) still reads it. docs/evaluation.md measures
what this buys.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Indexing:
    """How chunks are indexed: each by its text with `context` neighbours each side
    (with_neighbours), or by its own text alone; with context and `alone`, by both; with `windows`,
    also by the pieces of its own sentences up to that many characters (sentence_windows); with
    `headings`, every one of these texts opens with the chunk's section path (with_headings); with
    `groups`, also by the text of its structural block and of its section when either holds more
    than the chunk and at most that many cl100k tokens (group_texts). Only what is ranked changes:
    the chunk alone is returned."""

    context: int = 0
    alone: bool = False
    windows: int = 0
    headings: bool = False
    groups: int = 0

    def __post_init__(self) -> None:
        if self.context < 0:
            raise ValueError(f"index context must be 0 or more chunks, got {self.context}")
        if self.windows < 0:
            raise ValueError(f"index windows must be 0 or more characters, got {self.windows}")
        if self.groups < 0:
            raise ValueError(f"index groups must be 0 or more tokens, got {self.groups}")

    @property
    def own_text_only(self) -> bool:
        """Whether each chunk is indexed by its own text and nothing else."""
        return not self.context and not self.windows and not self.headings and not self.groups

    @property
    def one_text(self) -> bool:
        """Whether each chunk is indexed by one text (not by its own beside others)."""
        return not self.alone and not self.windows and not self.groups

    def texts(self, texts: Sequence[str], paths: Sequence[Sequence[str]] | None = None,
              groups: Sequence[Sequence[Hashable]] | None = None) -> list[tuple[str, ...]]:
        """For each of `texts` (the chunks in order), the texts to index it by; `paths`, each
        chunk's section path (Document.section_paths), is needed with `headings`; `groups`, each
        chunk's group keys (its block id, its section path: group_texts), with `groups`."""
        if self.headings and (paths is None or len(paths) != len(texts)):
            raise ValueError("indexing with headings needs each chunk's section path")
        if self.groups and (groups is None or len(groups) != len(texts)):
            raise ValueError("indexing with groups needs each chunk's block and section")
        joined: Sequence[str | None] = with_neighbours(texts, self.context) if self.context else [None] * len(texts)
        grouped = group_texts(texts, groups, self.groups) if self.groups and groups is not None else None
        out = []
        for n, (text, with_context) in enumerate(zip(texts, joined)):
            own = (text,) if with_context is None or self.alone else ()
            around = (with_context,) if with_context is not None else ()
            pieces = [w for w in sentence_windows(text, self.windows) if w != text] if self.windows else []
            indexed = (*own, *around, *pieces, *(grouped[n] if grouped is not None else ()))
            out.append(with_headings(indexed, paths[n]) if self.headings and paths is not None else indexed)
        return out


#: each chunk indexed by its own text and nothing else: the default
OWN_TEXT = Indexing()


def with_neighbours(texts: Sequence[str], context: int) -> list[str]:
    """Each text twice, then the `context` texts before it and after it in order, joined by line
    breaks; `context` 0 gives the texts unchanged."""
    if context < 0:
        raise ValueError(f"index context must be 0 or more chunks, got {context}")
    if not context:
        return list(texts)
    return ["\n".join([text, text, *texts[max(0, i - context):i], *texts[i + 1:i + context + 1]])
            for i, text in enumerate(texts)]


def group_keys(block: str | None, section: Sequence[str]) -> tuple[str | None, tuple[str, ...] | None]:
    """A chunk's keys for `index_groups` (group_texts): its structural block (types.blocks.blocks_at)
    and its section path (None outside any section). The measure and the hand-off
    (ChunkSet.with_index_texts) both key chunks by this."""
    return block, tuple(section) or None


def group_texts(texts: Sequence[str], keys: Sequence[Sequence[Hashable]], limit: int) -> list[tuple[str, ...]]:
    """For each of `texts` (chunks in order), the text of each run of consecutive chunks that share
    a key with it (`keys[n]`: one key per kind of group, e.g. its block and its section; None: in no
    group of that kind), the run's texts joined by line breaks, when the run holds more than the
    chunk and at most `limit` cl100k tokens; a run's text once even when two kinds give the same run.
    Linear: each run is joined and counted once."""
    from chunkbench.text.tokenizer import count_tokens

    out: list[list[str]] = [[] for _ in texts]
    kinds = max((len(k) for k in keys), default=0)
    for kind in range(kinds):
        start = 0
        while start < len(texts):
            key = keys[start][kind] if kind < len(keys[start]) else None
            end = start + 1
            while key is not None and end < len(texts) and kind < len(keys[end]) and keys[end][kind] == key:
                end += 1
            if end - start > 1:
                run = "\n".join(texts[start:end])
                if count_tokens(run) <= limit:
                    for n in range(start, end):
                        if run not in out[n]:
                            out[n].append(run)
            start = end
    return [tuple(t) for t in out]


def with_headings(texts: Sequence[str], path: Sequence[str]) -> tuple[str, ...]:
    """Each of `texts` after the headings of `path` (outermost first, joined by " > ") on a line of
    their own: a chunk that does not name its subject is found by the titles of the sections it
    sits in, as a reader sees it under its headings. Unchanged for an empty path."""
    if not path:
        return tuple(texts)
    head = " > ".join(path)
    return tuple(f"{head}\n{text}" for text in texts)


def sentence_windows(text: str, limit: int) -> list[str]:
    """`text` cut at its sentence ends (text.sentences) into consecutive pieces of whole sentences,
    each packed up to `limit` characters (a longer sentence is a piece alone): small texts to index
    a long chunk by, so that one sentence of it can match a question as well as the whole chunk.
    Only the text itself when it is one piece."""
    from chunkbench.text.sentences import sentence_spans

    if limit < 1:
        raise ValueError(f"a sentence window must be 1 or more characters, got {limit}")
    pieces: list[tuple[int, int]] = []
    for a, b in sentence_spans(text):
        if pieces and b - pieces[-1][0] <= limit:
            pieces[-1] = (pieces[-1][0], b)
        else:
            pieces.append((a, b))
    return [text[a:b] for a, b in pieces] if len(pieces) > 1 else [text]
