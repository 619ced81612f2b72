"""The defaults a person meets, written once: the strategy `chunk` uses, the retrieval default
(`chunkbench chunk --for-retrieval`) and the settings `chunkbench evaluate` compares."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chunkbench.evaluate.retrieval.scoring import INDEX_CONTEXT, INDEX_GROUPS
from chunkbench.evaluate.settings import Setting
from chunkbench.io.return_policy import RETRIEVAL_POLICY
from chunkbench.strategies import DEFAULT_STRATEGY

__all__ = ["DEFAULT_SETTINGS", "DEFAULT_STRATEGY", "RETRIEVAL_DEFAULT", "RETRIEVAL_POLICY", "default_settings"]

#: the setting named the default for retrieval (`chunkbench chunk --for-retrieval`): 150-character
#: chunks, each ranked with its neighbours (on the public-domain corpus more token IoU than the
#: 200-character splitter at no less token recall: docs/evaluation.md) and by the text of its list,
#: table, definition or section up to 1,000 tokens, so questions that need the whole structure rank
#: all of it (docs/context-budget.md); sent with RETRIEVAL_POLICY
RETRIEVAL_DEFAULT = Setting("recursive", {"chunk_size": 150, INDEX_CONTEXT: 1, INDEX_GROUPS: 1000})

#: settings compared when none are given: the retrieval default, then each strategy at a few sizes
#: around the baseline's
DEFAULT_SETTINGS: tuple[tuple[str, Mapping[str, Any]], ...] = (
    (str(RETRIEVAL_DEFAULT.strategy), RETRIEVAL_DEFAULT.params),
    ("recursive", {"chunk_size": 150}),
    ("recursive", {"chunk_size": 200}),
    ("recursive", {"chunk_size": 300}),
    ("recursive", {"chunk_size": 500}),
    ("recursive", {"chunk_size": 1000}),
    ("tokens", {"chunk_size": 50, "overlap": 0}),
    ("tokens", {"chunk_size": 100, "overlap": 0}),
    ("tokens", {"chunk_size": 200, "overlap": 0}),
    ("sentences", {}),
    ("sentences", {"min_chars": 60}),
    ("sentences", {"join_dependent": False}),
    (DEFAULT_STRATEGY, {}),
    ("headers", {}),
    ("sections", {}),
    ("contract", {}),
)


def default_settings() -> list[Setting]:
    """The settings of DEFAULT_SETTINGS, each with its own copy of the parameters."""
    return [Setting(s, dict(p)) for s, p in DEFAULT_SETTINGS]
