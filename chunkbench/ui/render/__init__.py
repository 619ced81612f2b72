"""Page overlays: `render_page` draws chunks, reasons, overlaps and noise on a PDF page; `PageImage`
is the drawable result; `render_text_view` is the HTML view for inputs without a PDF."""

from chunkbench.loaders.regions import chunk_regions, element_at, position_box, span_regions

from .image import PageImage, Region
from .overlay import DEFAULT_SHOW, LAYERS, check_show, chunks_on_page, render_page
from .palette import CHUNK_PALETTE, chunk_color
from .textview import page_or_text_view, render_text_view

__all__ = [
    "CHUNK_PALETTE", "DEFAULT_SHOW", "LAYERS", "PageImage", "Region", "check_show", "chunk_color", "chunk_regions",
    "chunks_on_page", "element_at", "page_or_text_view", "position_box", "render_page", "render_text_view", "span_regions",
]
