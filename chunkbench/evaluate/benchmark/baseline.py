"""The baseline every setting is compared with (the 200-character splitter of the Chroma study), and the settings of a grid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chunkbench.errors import UsageError
from chunkbench.strategies.peers import BASELINE_UNITS

from ..retrieval.scoring import (
    DEFAULT_SEPARATORS,
    INDEX_ALONE,
    INDEX_CONTEXT,
    INDEX_GROUPS,
    INDEX_HEADINGS,
    INDEX_WINDOWS,
)
from ..settings import Setting

#: the baseline's chunk size in characters (the 200-character splitter of the Chroma study)
BASELINE_SIZE = 200


def baseline(size: int = BASELINE_SIZE, overlap: int = 0, separators: str = DEFAULT_SEPARATORS,
             unit: str = "chars", index_context: int = 0, index_alone: bool = False,
             index_windows: int = 0, index_headings: bool = False, index_groups: int = 0) -> Setting:
    """The LangChain RecursiveCharacterTextSplitter at `size` characters (or cl100k tokens: `unit`),
    cutting at `separators` (a key of strategies.peers.SEPARATORS: with sentence ends by default, the
    strongest common splitter), each piece indexed as a setting's INDEX_PARAMS say (with
    `index_context` neighbours each side, also alone, also by windows of its sentences, after the
    headings above it, also by its block's and section's texts)."""
    if unit not in BASELINE_UNITS:
        raise UsageError(f"the baseline's unit must be one of {', '.join(BASELINE_UNITS)}, got {unit!r}")
    params: dict[str, Any] = {"chunk_size": size, "chunk_overlap": overlap, "separators": separators}
    if unit != "chars":
        params["unit"] = unit
    indexing = {INDEX_CONTEXT: index_context, INDEX_ALONE: index_alone, INDEX_WINDOWS: index_windows,
                INDEX_HEADINGS: index_headings, INDEX_GROUPS: index_groups}
    params.update({k: v for k, v in indexing.items() if v})
    return Setting(None, params)


def equally_indexed(settings: Sequence[Setting], base: Setting) -> list[Setting]:
    """`settings` with, after each one that uses index parameters, the baseline splitter (at its
    size) given the same index parameters, once: a gain that comes from the index recipe, not the
    cut, shows beside it (the splitter's pieces indexed alike do about as well: docs/evaluation.md)."""
    out: list[Setting] = []
    seen = {s.name for s in settings} | {base.name}
    for s in settings:
        out.append(s)
        if s.strategy is None or s.indexing.own_text_only:
            continue
        p = base.strategy_params
        alike = baseline(int(p.get("chunk_size", BASELINE_SIZE)), int(p.get("chunk_overlap", 0)),
                         str(p.get("separators", DEFAULT_SEPARATORS)), str(p.get("unit", "chars")),
                         s.indexing.context, s.indexing.alone, s.indexing.windows, s.indexing.headings,
                         s.indexing.groups)
        if alike.name not in seen:
            seen.add(alike.name)
            out.append(alike)
    return out


def grid_settings(strategy: str, fixed: Mapping[str, Any], grid: Mapping[str, Sequence[Any]]) -> list[Setting]:
    """Every combination of the grid's values (a `strategy` key overrides `strategy`), in grid order."""
    combos: list[dict[str, Any]] = [dict(fixed)]
    for key, values in grid.items():
        combos = [{**c, key: v} for c in combos for v in values]
    return [Setting(str(c.pop("strategy", strategy)), c) for c in combos]
