"""chunkbench: inspect, tune and review how documents are cut into chunks for retrieval.

The public face, 23 names (`dir(cb)` and tab completion list exactly these): parse, chunk and read
back (`cb.load`, `cb.chunk`, `cb.load_chunks`, `cb.inspect` for another chunker's chunks,
`cb.all_strategies`); see, compare and review (`cb.render_page`, `cb.render_diff`, `cb.explore`,
`cb.review`, `cb.diff`, `cb.defects`, `cb.lineage` between two versions, `cb.cite` for a quote's words on the page,
`cb.gold` for a PDF's structured twin placed in its parse, `cb.pick` for the best setting of a document
chunked for retrieval); three namespaces of functions, not modules (`cb.store` saved
runs, `cb.metrics`, `cb.sweep`); the core types (`cb.Document`, `cb.Chunk`, `cb.ChunkSet`) and the base
error (`cb.ChunkbenchError`). The rest of the data model is imported from `chunkbench.types`, the
errors and `EditWarning` from `chunkbench.errors`. The subpackages are the implementation's rooms
(docs/architecture.md); what a notebook needs is here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import ChunkbenchError
from .version import __version__

if TYPE_CHECKING:  # what the names below are, for type checkers; at run time each is imported on first use
    from .app.chunking import chunk
    from .app.opening import load, load_chunks
    from .foreign import inspect
    from .strategies import all_strategies
    from .types.chunk import Chunk
    from .types.chunkset import ChunkSet
    from .types.document import Document


class Namespace:
    """A group of public functions under one name (`cb.store`, `cb.metrics`, `cb.sweep`), each imported
    on first use; `dir()` lists exactly them. Not a module, so no implementation detail leaks through."""

    def __init__(self, name: str, doc: str, members: dict[str, tuple[str, str]]):
        self._name = name
        self._members = members
        self.__doc__ = doc

    def __getattr__(self, attr: str) -> Any:
        members = self.__dict__.get("_members", {})
        if attr not in members:
            raise AttributeError(f"cb.{self.__dict__.get('_name', '?')} has no {attr!r}; "
                                 f"it has {', '.join(sorted(members))}")
        module, attribute = members[attr]
        value = getattr(importlib.import_module(module), attribute)
        self.__dict__[attr] = value  # found by plain lookup from now on
        return value

    def __dir__(self) -> list[str]:
        return sorted(self._members)

    def __repr__(self) -> str:
        return f"<cb.{self._name}: {', '.join(sorted(self._members))}>"


store = Namespace("store", "Saved chunkings in the workspace (docs/store.md): save, load, search, compare.", {
    name: ("chunkbench.app.runs", name)
    for name in ("save", "load", "runs", "search", "find_chunks", "get_chunk", "ensure", "compare", "changes",
                 "lineage_of")
})
metrics = Namespace("metrics", "Measure a chunking (docs/evaluation.md), and compare parses.", {
    "measure": ("chunkbench.evaluate.metrics", "measure"),
    "all_metrics": ("chunkbench.evaluate.metrics", "all_metrics"),
    "structure_table": ("chunkbench.evaluate.metrics", "structure_table"),
    "retrieval_table": ("chunkbench.evaluate.metrics", "retrieval_table"),
    "parse_table": ("chunkbench.loaders.summary", "parse_table"),
})
sweep = Namespace("sweep", "Parameter sweeps (docs/experiments.md): run one, or measure and show one point.", {
    "run": ("chunkbench.app.sweep", "run_sweep"),
    "format_results": ("chunkbench.app.sweep", "format_results"),
    "best_settings": ("chunkbench.app.sweep", "best_settings"),
    "measure_point": ("chunkbench.app.sweep", "measure_point"),
    "collect_params": ("chunkbench.app.sweep", "collect_params"),
    "questions_for": ("chunkbench.app.sweep", "questions_for"),
    "show_grid": ("chunkbench.ui.plots", "show_grid"),
    "size_histogram": ("chunkbench.ui.plots", "plot_size_histogram"),
    "misses": ("chunkbench.ui.misses", "MissesView"),
    "page_view": ("chunkbench.ui.render", "page_or_text_view"),
})

#: every public function and type, imported on first use: `import chunkbench` loads a handful of
#: modules, and no strategy, loader or renderer until one is asked for (the CLI starts through it too)
_LAZY = {
    "load": ("chunkbench.app.opening", "load"),
    "chunk": ("chunkbench.app.chunking", "chunk"),
    "load_chunks": ("chunkbench.app.opening", "load_chunks"),
    "inspect": ("chunkbench.foreign", "inspect"),
    "all_strategies": ("chunkbench.strategies", "all_strategies"),
    "Document": ("chunkbench.types.document", "Document"),
    "Chunk": ("chunkbench.types.chunk", "Chunk"),
    "ChunkSet": ("chunkbench.types.chunkset", "ChunkSet"),
    "render_page": ("chunkbench.ui.render", "render_page"),
    "render_diff": ("chunkbench.ui.render.diffpages", "render_diff"),
    "explore": ("chunkbench.ui.explorer", "explore"),
    "review": ("chunkbench.ui.reviews", "review"),
    "diff": ("chunkbench.evaluate.diff", "diff"),
    "defects": ("chunkbench.evaluate.defects", "find_defects"),
    "lineage": ("chunkbench.evaluate.lineage", "lineage"),
    "cite": ("chunkbench.foreign.cite", "cite"),
    "gold": ("chunkbench.app.gold", "gold"),
    "pick": ("chunkbench.app.pick", "pick"),
}
#: names the public face had before it was cut to what a notebook needs: where they live now
_MOVED = {
    **{n: "chunkbench.types" for n in ("Element", "Page", "ParserInfo", "BBox", "Boundary", "Reason")},
    **{n: "chunkbench.errors" for n in ("InputError", "ParamError", "UsageError", "ExternalToolError", "EditWarning")},
    "PageImage": "chunkbench.ui.render", "get_strategy": "chunkbench.strategies",
}

__all__ = [
    "load", "chunk", "load_chunks", "inspect", "all_strategies",
    "render_page", "render_diff", "explore", "review", "diff", "defects", "lineage", "cite", "gold", "pick",
    "store", "metrics", "sweep",
    "Document", "Chunk", "ChunkSet", "ChunkbenchError", "__version__",
]


def __getattr__(name: str) -> Any:
    """Import `cb.render_page`, `cb.explore`, ... only when first used; say where a moved name lives."""
    if name in _MOVED:
        raise AttributeError(f"chunkbench.{name} is not in the public face; import it: "
                             f"from {_MOVED[name]} import {name}")
    if name not in _LAZY:
        raise AttributeError(f"module 'chunkbench' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module_name), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, lazy ones included (tab completion offers `cb.explore` before its import)."""
    return sorted(__all__)
