"""Issue 13.3: the package's layers and the import rule between them, checked on every import
statement (module level and inside functions) of every module. The map and the rule are
explained in docs/architecture.md; a new module must be placed in a layer here."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "chunkbench"

#: first part of the module name under chunkbench -> layer
LAYERS = {
    "core": {"model", "chunks", "chunkset", "strategies", "loaders", "text", "tokens", "errors",
             "atomic", "cache", "pdflib", "mineru_runner", "export", "handoff", "ranges", "clauses"},
    "evaluate": {"metrics", "retrieval", "stats", "summary", "sweep", "boundary_diff", "evaluate", "evaluation"},
    "persist": {"store", "workspace"},
    "ui": {"render", "report", "explorer", "reviews", "cli", "demo", "__main__", "samples", "sample_content"},
}
#: a layer may import itself and the layers before it, never one after it
ORDER = ("core", "evaluate", "persist", "ui")
#: known edges against the rule, each the debt of an open issue; nothing may be added here lightly
EXCEPTIONS: set[tuple[str, str]] = set()


def layer_of(module: str) -> str | None:
    """The layer of `chunkbench.x.y`, or None for the package root (the public facade)."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    for layer, names in LAYERS.items():
        if parts[1] in names:
            return layer
    raise AssertionError(f"{module} is in no layer: place it in tests/test_layers.py LAYERS and docs/architecture.md")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every chunkbench module `path` imports, relative imports resolved, `from x import y` giving
    x.y when y is a submodule."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "chunkbench"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "chunkbench":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                is_module = (ROOT / sub.replace(".", "/")).with_suffix(".py").exists() or (ROOT / sub.replace(".", "/")).is_dir()
                found.add(sub if is_module else target)
    return found


def forbidden_edges() -> set[tuple[str, str]]:
    bad = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        source = module_name(path)
        here = layer_of(source)
        for target in imports_of(path):
            there = layer_of(target)
            if here is None or there is None:  # the facade imports everything; anyone may read __version__
                continue
            if ORDER.index(there) > ORDER.index(here):
                bad.add((source, target))
    return bad


def test_no_module_imports_a_layer_above_its_own():
    assert forbidden_edges() - EXCEPTIONS == set()


def test_the_listed_exceptions_still_exist():
    """An exception that was fixed must leave the list, so the list only ever shrinks."""
    assert forbidden_edges() >= EXCEPTIONS


def test_algorithms_never_import_ui_libraries():
    """Core and evaluate modules import no widget, app or plotting library at module level."""
    ui_libraries = {"ipywidgets", "ipyevents", "panel", "bokeh", "IPython"}
    for path in sorted(PACKAGE.rglob("*.py")):
        if layer_of(module_name(path)) not in ("core", "evaluate"):
            continue
        tree = ast.parse(path.read_text("utf-8"))
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        names = {a.name.split(".")[0] for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {(n.module or "").split(".")[0] for n in top if isinstance(n, ast.ImportFrom) and not n.level}
        assert not names & ui_libraries, (path, names & ui_libraries)
