"""The linked notebook explorer (`cb.explore`): `state` (what is shown: strategy, parameters,
chunks, page, selection; no widgets), `cards` (its HTML pieces and stylesheet), `widget` (the
ipywidgets view that drives the state and redraws). The view's names are imported on first use,
so `ExplorerState` works where no widget library is installed."""

from chunkbench.app.explore import CACHE_SIZE, ExplorerState

_VIEW = ("SLIDER_SPAN", "Explorer", "chunk_at", "explore", "param_control")
__all__ = ["CACHE_SIZE", "ExplorerState", *_VIEW]


def __getattr__(name: str):
    if name not in _VIEW:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import widget

    return getattr(widget, name)


def __dir__() -> list[str]:
    return sorted(__all__)
