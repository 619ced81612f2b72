"""chunkbench: inspect, tune and review how documents are cut into chunks for retrieval."""

__version__ = "0.1.0"

from .chunks import BBox, Boundary, Chunk, Reason  # noqa: E402
from .chunkset import ChunkSet, chunk  # noqa: E402
from .errors import ChunkbenchError, ExternalToolError, InputError, ParamError, UsageError  # noqa: E402
from .loaders import load  # noqa: E402
from .model import Document, Element, Page, ParserInfo  # noqa: E402
from .registry import all_strategies, get_strategy  # noqa: E402

#: public names that live in modules with heavier imports (rendering, UI, store): imported on use
_LAZY = {
    "render_page": "chunkbench.render",
    "PageImage": "chunkbench.render",
    "explore": "chunkbench.explore",
    "diff": "chunkbench.diff",
    "review": "chunkbench.review",
    "store": "chunkbench.store",
    "metrics": "chunkbench.metrics",
}


def __getattr__(name: str):
    """Import `cb.render_page`, `cb.explore`, `cb.store`, ... only when first used."""
    import importlib

    target = _LAZY.get(name)
    if target is None:
        raise AttributeError(f"module 'chunkbench' has no attribute {name!r}")
    module = importlib.import_module(target)
    value = module if target.rsplit(".", 1)[-1] == name else getattr(module, name)
    globals()[name] = value
    return value


__all__ = [
    "BBox", "Boundary", "Chunk", "ChunkSet", "ChunkbenchError", "Document", "Element",
    "ExternalToolError", "InputError", "Page", "ParamError", "ParserInfo", "Reason", "UsageError",
    "__version__", "all_strategies", "chunk", "get_strategy", "load",
]
