"""chunkbench: inspect, tune and review how documents are cut into chunks for retrieval."""

__version__ = "0.1.0"

from .chunks import BBox, Boundary, Chunk, Reason  # noqa: E402
from .chunkset import ChunkSet, chunk  # noqa: E402
from .errors import ChunkbenchError, ExternalToolError, InputError, ParamError, UsageError  # noqa: E402
from .loaders import load  # noqa: E402
from .model import Document, Element, Page, ParserInfo  # noqa: E402
from .registry import all_strategies, get_strategy  # noqa: E402

__all__ = [
    "BBox", "Boundary", "Chunk", "ChunkSet", "ChunkbenchError", "Document", "Element",
    "ExternalToolError", "InputError", "Page", "ParamError", "ParserInfo", "Reason", "UsageError",
    "__version__", "all_strategies", "chunk", "get_strategy", "load",
]
