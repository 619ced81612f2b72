"""chunkbench: inspect, tune and review how documents are cut into chunks for retrieval.

The public API, in one place: `cb.load`, `cb.chunk`, `cb.load_chunks` (a chunks.json back), `cb.inspect` (another chunker's chunks), the data model (`Document`, `Chunk`, `ChunkSet`,
...), the errors, and, imported on first use, the heavier pieces (`cb.render_page`, `cb.explore`,
`cb.review`, `cb.diff`, `cb.store`, `cb.metrics`, `cb.sweep`, `cb.defects`). `dir(cb)` and tab completion list
exactly `__all__`; the subpackages (`types`, `loaders`, `strategies`, `evaluate`, `ui`, ...) are the
implementation's rooms, described in docs/architecture.md; `cb.chunk` is chunkbench.app.chunking's.
"""

from .app.chunking import EditWarning, chunk
from .errors import ChunkbenchError, ExternalToolError, InputError, ParamError, UsageError
from .foreign import inspect
from .loaders import load
from .loaders.chunks_file import load_chunks
from .strategies import all_strategies, get_strategy
from .types.chunk import BBox, Boundary, Chunk, Reason
from .types.chunkset import ChunkSet
from .types.document import Document, Element, Page, ParserInfo
from .version import __version__

#: public names that live in modules with heavier imports (rendering, UI, store): imported on use.
#: name -> (module, attribute); attribute None means the name is the module itself.
_LAZY = {
    "render_page": ("chunkbench.ui.render", "render_page"),
    "PageImage": ("chunkbench.ui.render", "PageImage"),
    "explore": ("chunkbench.ui.explorer", "explore"),
    "diff": ("chunkbench.evaluate.diff", "diff"),
    "render_diff": ("chunkbench.ui.render.diffpages", "render_diff"),
    "review": ("chunkbench.ui.reviews", "review"),
    "store": ("chunkbench.app.runs", None),
    "metrics": ("chunkbench.evaluate.metrics", None),
    "sweep": ("chunkbench.app.sweep", None),
    "defects": ("chunkbench.evaluate.defects", "find_defects"),
}

__all__ = [
    # loading, chunking, the registry, other chunkers' chunks
    "load", "chunk", "load_chunks", "all_strategies", "get_strategy", "inspect",
    # the data model
    "Document", "Element", "Page", "ParserInfo", "Chunk", "BBox", "Boundary", "Reason", "ChunkSet",
    # errors (each carries its exit code), and the warning of an edit not applied
    "ChunkbenchError", "InputError", "ParamError", "UsageError", "ExternalToolError", "EditWarning",
    # imported on first use
    "render_page", "PageImage", "explore", "diff", "render_diff", "review", "store", "metrics", "sweep",
    "defects", "__version__",
]


def __getattr__(name: str):
    """Import `cb.render_page`, `cb.explore`, `cb.store`, ... only when first used."""
    import importlib

    if name not in _LAZY:
        raise AttributeError(f"module 'chunkbench' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, lazy ones included (tab completion offers `cb.explore` before its import)."""
    return sorted(__all__)
