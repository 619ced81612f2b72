"""The package's rooms (folders) and floors (layers), checked on every import statement, module level
and inside functions, of every module. The picture and the rule are in docs/architecture.md; a new
folder or root module fails these tests until it is placed in FLOORS here and there."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PACKAGE = ROOT / "chunkbench"

#: bottom to top: a module may import its own floor and the floors below it, never one above.
#: A room is a folder of chunkbench/ (or one of the two root modules every floor may read).
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "version", "runtime", "text"}),  # vocabulary: exceptions, the version, the gc pause, string and span helpers
    frozenset({"types", "io"}),                # the data model (the reviewer's record too) and its serialised forms
    frozenset({"db"}),                         # the workspace database: persistence only (runs, edits, verdicts)
    frozenset({"loaders"}),                    # inputs into Documents (with the parse cache, MinerU runner)
    frozenset({"strategies", "foreign"}),      # the strategies, their registry and chunk(); other chunkers' chunks located
    frozenset({"evaluate"}),                   # measures only: metrics, stats, defects, diff, retrieval, benchmark
    frozenset({"app"}),                        # what a person does: chunk with edits, defaults, runs, labels, sweeps
    frozenset({"ui", "samples", "__main__"}),  # render, plots, report, explorer, review app, CLI, demo
)
#: libraries that draw or show: only the ui floor imports them, at any level
DRAWING = {"matplotlib", "ipywidgets", "ipyevents", "panel", "bokeh", "IPython"}


def room_of(module: str) -> str | None:
    """The room of `chunkbench.x.y` (its first part under chunkbench), None for the facade."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def floor_of(module: str) -> int | None:
    room = room_of(module)
    if room is None:
        return None
    for level, rooms in enumerate(FLOORS):
        if room in rooms:
            return level
    raise AssertionError(f"{module}: room {room!r} is on no floor: place it in tests/project/test_layers.py FLOORS "
                         "and docs/architecture.md")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    base = ROOT / name.replace(".", "/")
    return base.with_suffix(".py").exists() or base.is_dir()


def imports_of(path: Path, *, top_level_only: bool = False, run_time_only: bool = False) -> set[str]:
    """Every chunkbench module `path` imports, relative imports resolved, `from x import y` giving
    x.y when y is a submodule (`run_time_only`: not those under `if TYPE_CHECKING:`, never run)."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text("utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    if run_time_only:
        typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                       and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
                       for stmt in block.body for n in ast.walk(stmt)}
        nodes = [n for n in nodes if id(n) not in typing_only]
    found = set()
    for node in nodes:
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
                found.add(sub if _is_module(sub) else target)
    return found


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_is_in_a_room_on_a_floor():
    for path in _modules():
        floor_of(module_name(path))  # raises for a room on no floor


def test_no_module_imports_a_floor_above_its_own():
    upward = set()
    for path in _modules():
        source = module_name(path)
        here = floor_of(source)
        for target in imports_of(path):
            there = floor_of(target)
            if here is not None and there is not None and there > here:
                upward.add((source, target))
    assert upward == set()


def test_no_import_cycle_between_modules():
    """Rooms of one floor may import each other (ChunkSet writes itself through io.export, which reads
    Chunk from types.chunk), but modules never form a cycle, counting the imports inside functions
    (an import moved into a function hides a cycle, it does not end it) and the packages an import
    runs first; imports under TYPE_CHECKING, never run, do not count."""
    def with_packages(module: str, targets: set[str]) -> set[str]:
        """`targets` and the packages they sit in: importing a.b.c runs a/b/__init__ first (io.export
        reading types.chunk ran types/__init__, which imported types.chunkset, which imports io.export),
        except the importer's own packages, which are already running when it runs."""
        own = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 1)}
        parents = {".".join(t.split(".")[:n]) for t in targets for n in range(2, t.count(".") + 1)}
        return (targets | parents) - own - {module}

    graph = {module_name(p): with_packages(module_name(p), imports_of(p, run_time_only=True)) - {"chunkbench"}
             for p in _modules()}
    graph.pop("chunkbench")  # the facade imports every floor and nothing imports it
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*trail[trail.index(nxt):], nxt]))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])


def test_the_front_ends_chunk_only_through_the_application_floor():
    """The CLI, the review app, the explorer and the demo chunk through app.chunking (where the
    reviewers' edits are applied, `--apply-edits` on every command), never with the strategies'
    own `chunk`: one document, setting and workspace show the same chunks in every command."""
    direct = []
    for path in _modules():
        if room_of(module_name(path)) != "ui":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("chunkbench.strategies"):
                direct += [f"{module_name(path)}: {a.name}" for a in node.names if a.name == "chunk"]
    assert direct == []


def test_no_module_keeps_values_per_document_of_its_own():
    """What is derived from a Document alone is kept with it (`Document.derived`), what depends on
    settings too by whoever re-chunks (`strategies.kept.KeptState`): no module keeps per-document
    values at module level, where they would outlive the session that made them."""
    kept_at_module_level = []
    for path in _modules():
        for node in ast.parse(path.read_text("utf-8")).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            if isinstance(value, ast.Call) and getattr(value.func, "id", "") == "KeptWhileAlive":
                kept_at_module_level.append(module_name(path))
    assert kept_at_module_level == []


def test_the_front_ends_reach_the_workspace_only_through_the_application_floor():
    """The CLI, the review app and the explorer store and read edits, verdicts and runs through app/
    (app.chunking, app.review, app.runs), never the database modules: one place says what a
    listing, a removal or an export does to the workspace."""
    direct = sorted(f"{module_name(path)} imports {target}" for path in _modules()
                    if room_of(module_name(path)) == "ui"
                    for target in imports_of(path) if room_of(target) == "db")
    assert direct == []


#: what the front-ends read from the loaders: where a chunk lies on the page, a page's words, the
#: PDF library they are drawn with, a parse's summary; opening an input is app.opening's
READ_FROM_LOADERS = {"chunkbench.loaders.regions", "chunkbench.loaders.pagewords", "chunkbench.loaders.pdflib",
                     "chunkbench.loaders.summary"}


def test_the_front_ends_open_inputs_only_through_the_application_floor():
    """The CLI, the explorer, the review app, the demo and the facade open a document, a chunks file
    or a corpus through app.opening, never the loaders' own openers: an uncached PDF is shown from
    its first page in the explorer and in `chunkbench review` by one rule, and every command opens
    one input with the same options the same way."""
    front_ends = [p for p in _modules() if room_of(module_name(p)) in ("ui", "samples", "__main__", None)]
    direct = sorted(f"{module_name(path)} imports {target}" for path in front_ends for target in imports_of(path)
                    if room_of(target) == "loaders" and target not in READ_FROM_LOADERS)
    assert direct == []


#: complexity findings the package may have at ruff's default thresholds (branches, statements,
#: McCabe complexity, arguments): a ceiling that only comes down
COMPLEXITY_CEILING = 116


def test_the_package_grows_no_more_complex():
    """Complexity findings (ruff's C901, PLR0912, PLR0913, PLR0915 at their default thresholds)
    stay at or under the ceiling: a function that grows past them is cut into named steps."""
    import json
    import subprocess
    import sys

    found = subprocess.run([sys.executable, "-m", "ruff", "check", str(PACKAGE), "--select",
                            "C901,PLR0912,PLR0913,PLR0915", "--output-format", "json", "--no-cache", "--exit-zero"],
                           capture_output=True, text=True, check=True)
    findings = json.loads(found.stdout)
    assert len(findings) <= COMPLEXITY_CEILING, "\n".join(
        f"{f['filename'].split('chunkbench/', 1)[-1]}:{f['location']['row']} {f['code']} {f['message']}"
        for f in findings[-10:])


def test_only_the_ui_floor_draws():
    """No module below ui imports a plotting, widget or app library, not even inside a function."""
    ui = len(FLOORS) - 1
    for path in _modules():
        if floor_of(module_name(path)) in (None, ui):
            continue
        tree = ast.parse(path.read_text("utf-8"))
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {(n.module or "").split(".")[0] for n in ast.walk(tree)
                  if isinstance(n, ast.ImportFrom) and not n.level}
        assert not names & DRAWING, (path, names & DRAWING)


def test_the_public_api_lists_itself():
    """`dir(cb)` is `__all__`, at most 23 names, every one resolves (lazy ones on first use), none is
    a module or a subpackage's name, and the namespaces list exactly what resolves in them."""
    import types

    import chunkbench as cb

    assert dir(cb) == sorted(cb.__all__) and len(cb.__all__) <= 23
    rooms = {room for floor in FLOORS for room in floor}
    assert not rooms & set(cb.__all__)
    for name in cb.__all__:
        value = getattr(cb, name)
        assert value is not None and not isinstance(value, types.ModuleType), name
    for space in (cb.store, cb.metrics, cb.sweep):
        assert isinstance(space, cb.Namespace) and dir(space)
        for member in dir(space):
            assert callable(getattr(space, member)), (space, member)
        with pytest.raises(AttributeError, match="it has"):
            space.no_such_function  # noqa: B018
    with pytest.raises(AttributeError, match="from chunkbench.types import Element"):
        cb.Element  # noqa: B018


def test_notebooks_and_docs_use_only_the_public_face():
    """The notebooks import nothing from inside chunkbench, and every `cb.<name>` and
    `cb.<namespace>.<member>` the notebooks, README and docs write exists."""
    import json
    import re

    import chunkbench as cb

    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    code = {path.name: "\n".join("".join(c["source"]) for c in json.loads(path.read_text("utf-8"))["cells"]
                                 if c["cell_type"] == "code") for path in notebooks}
    inside = {name: re.findall(r"(?:from|import) chunkbench\.\w+", text) for name, text in code.items()}
    assert {name: found for name, found in inside.items() if found} == {}
    texts = [*code.values(), (ROOT / "README.md").read_text("utf-8"),
             *(p.read_text("utf-8") for p in sorted((ROOT / "docs").glob("*.md")))]
    written = {m for text in texts for m in re.findall(r"\bcb\.(\w+(?:\.\w+)?)", text)}
    missing = []
    for ref in sorted(written):
        name, _, member = ref.partition(".")
        value = getattr(cb, name, None) if name in cb.__all__ else None
        if value is None or (member and isinstance(value, cb.Namespace) and member not in dir(value)):
            missing.append(ref)
    assert missing == []


def test_no_test_module_imports_another():
    """Tests share through tests/support/ and tests/element_streams.py, never by one test module
    importing another (which runs the other's module code and ties their fates), nor conftest.py
    (pytest's hooks and fixtures, which pytest loads under a name of its own)."""
    tests = ROOT / "tests"
    found = []
    for path in sorted([*tests.rglob("test_*.py"), *tests.glob("support/*.py"), tests / "element_streams.py"]):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.name} imports {n}" for n in names
                      if n.split(".")[-1].startswith("test_") or n.split(".")[-1] == "conftest"]
    assert found == []


def test_no_issue_numbers_in_the_code():
    """Comments and docstrings say what and why; which issue asked for it lives in the commits."""
    import re

    found = [f"{path.relative_to(ROOT)}:{n}" for path in _modules()
             for n, text in enumerate(path.read_text("utf-8").splitlines(), 1) if re.search(r"\b[Ii]ssue \d", text)]
    assert found == []


def test_importing_the_package_loads_little_and_no_strategy():
    """`import chunkbench` (which every CLI run does first) loads at most 25 of the package's modules
    and no strategy, loader or renderer: each public name is imported on first use."""
    import subprocess
    import sys

    code = "import sys, chunkbench; print('\\n'.join(m for m in sys.modules if m.startswith('chunkbench')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert len(loaded) <= 25, loaded
    assert not [m for m in loaded if m.split(".")[1:2] in (["strategies"], ["loaders"], ["ui"])], loaded


def test_every_test_left_to_make_extended_exists():
    """Each EXTENDED entry of tests/support/suites.py names a test file, or a test function in one (or one
    of its parameters), that exists: a renamed test would otherwise fall back into `make test` unnoticed."""
    from tests.support.suites import EXTENDED, KEPT_BROWSER

    for entry in EXTENDED:
        path, _, name = entry.split("[")[0].partition("::")
        source = ROOT / path
        assert source.is_file(), entry
        functions = {n.name for n in ast.walk(ast.parse(source.read_text("utf-8"))) if isinstance(n, ast.FunctionDef)}
        assert not name or name in functions, entry
    browser = ast.parse((ROOT / "tests/ui/test_review_browser.py").read_text("utf-8"))
    assert set(KEPT_BROWSER) <= {n.name for n in ast.walk(browser) if isinstance(n, ast.FunctionDef)}


def test_test_docstrings_state_their_rule_without_an_issue_number():
    """A test says what it holds; the ticket that asked for it is in the history, not in the docstring
    (a newcomer reading a ticket number learns nothing)."""
    import re

    numbered = re.compile(r"\b[Ii]ssues? \d+")
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)):
                doc = ast.get_docstring(node) or ""
                if numbered.search(doc.replace("issue 3 of LaTeX3 News", "")):
                    found.append(f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 1)}")
    assert found == []
