"""`pymupdf`, imported with its layout model deferred until a parse needs it.

PyMuPDF 2 imports `pymupdf.layout` (ONNX Runtime and the layout model, ~0.7 s of CPU) and
`pymupdf4llm` as part of `import pymupdf`. Opening a PDF, rendering a page or loading a parse from
the cache needs neither, so chunkbench imports pymupdf through this module: both start as
placeholder modules that run their real import, into the same module object, on the first access
to a name they do not have yet (`pdf_layout.layout_engine()` before a parse, or any use of
`pymupdf4llm` by the caller). After that the state is the one a plain `import pymupdf` gives;
the global settings pymupdf4llm's import makes (`TOOLS.unset_quad_corrections`, no MuPDF
messages) are made here at once.
If pymupdf was imported before chunkbench, nothing changes.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import threading
import types
from typing import Any

_LOCK = threading.RLock()


class _Deferred(types.ModuleType):
    """A module whose code runs on the first lookup of a missing attribute. Unlike
    `importlib.util.LazyLoader`, `__spec__` & co. are plain attributes, so the import system's own
    look at `__spec__` (when another `import` statement finds the module) does not load it."""

    def __getattr__(self, attr: str):
        with _LOCK:
            if type(self) is _Deferred:
                self.__class__ = types.ModuleType  # type: ignore[assignment]  # the point: become a plain module
                spec = self.__spec__
                assert spec is not None and spec.loader is not None, "a deferred module keeps its spec"
                spec.loader.exec_module(self)
        return getattr(self, attr)


def _defer(name: str, path: list[str] | None) -> None:
    """Register a placeholder for `name` (found on `path`, or top-level) in sys.modules."""
    if name in sys.modules:
        return
    if path is None:
        spec = importlib.util.find_spec(name)
    else:
        spec = importlib.machinery.PathFinder.find_spec(name, path)  # the parent is not imported yet
    if spec is None or spec.loader is None:
        return  # not installed: pymupdf's own `import` fails and handles it as usual
    module = importlib.util.module_from_spec(spec)
    module.__class__ = _Deferred
    sys.modules[name] = module


def _import_pymupdf():
    if "pymupdf" not in sys.modules:
        root = importlib.util.find_spec("pymupdf")
        if root is not None and root.submodule_search_locations:
            _defer("pymupdf4llm", None)
            _defer("pymupdf.layout", list(root.submodule_search_locations))
    import pymupdf

    layout = sys.modules.get("pymupdf.layout")
    if layout is not None and "layout" not in vars(pymupdf):
        pymupdf.layout = layout  # an import that finds the module in sys.modules sets no attribute
    # the global settings importing pymupdf4llm makes (word boxes without quad corrections, MuPDF
    # errors and warnings not printed), made at once: page words (render regions) and stderr must
    # not depend on whether a parse ran in this process
    pymupdf.TOOLS.unset_quad_corrections(True)
    pymupdf.TOOLS.mupdf_display_errors(False)
    pymupdf.TOOLS.mupdf_display_warnings(False)
    return pymupdf


pymupdf = _import_pymupdf()


def pymupdf_open(path: str | os.PathLike, **options: Any) -> Any:
    """`pymupdf.open(path)` for any file name: MuPDF takes UTF-8 names only, so one that is not
    (its bytes held as lone surrogates) is opened through the process's own descriptor of it."""
    name = os.fspath(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        fd = os.open(name, os.O_RDONLY)
        try:
            return pymupdf.open(f"/proc/self/fd/{fd}", **options)
        finally:
            os.close(fd)
    return pymupdf.open(name, **options)


__all__ = ["pymupdf", "pymupdf_open"]
