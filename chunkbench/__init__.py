"""chunkbench: inspect, tune and review how documents are cut into chunks for retrieval."""

__version__ = "0.1.0"

from .chunks import BBox, Boundary, Chunk, Reason  # noqa: E402
from .chunkset import ChunkSet, chunk  # noqa: E402
from .errors import ChunkbenchError, ExternalToolError, InputError, ParamError, UsageError  # noqa: E402
from .loaders import load  # noqa: E402
from .model import Document, Element, Page, ParserInfo  # noqa: E402
from .strategies import all_strategies, get_strategy  # noqa: E402

#: public names that live in modules with heavier imports (rendering, UI, store): imported on use.
#: name -> (module, attribute); attribute None means the name is the module itself.
_LAZY = {
    "render_page": ("chunkbench.render", "render_page"),
    "PageImage": ("chunkbench.render", "PageImage"),
    "explore": ("chunkbench.explorer", "explore"),
    "diff": ("chunkbench.boundary_diff", "diff"),
    "render_diff": ("chunkbench.render.diffpages", "render_diff"),
    "review": ("chunkbench.reviews", "review"),
    "store": ("chunkbench.store", None),
    "metrics": ("chunkbench.metrics", None),
}


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


__all__ = [
    "BBox", "Boundary", "Chunk", "ChunkSet", "ChunkbenchError", "Document", "Element",
    "ExternalToolError", "InputError", "Page", "ParamError", "ParserInfo", "Reason", "UsageError",
    "__version__", "all_strategies", "chunk", "get_strategy", "load",
]
