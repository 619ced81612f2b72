"""Every contract or spec the code, tests, notebooks and docs cite resolves in a
fresh clone (the contracts are docs/contracts.md, the specs docs/specs/N-*.md)."""

from __future__ import annotations

import re
import subprocess

from tests.support.paths import ROOT

DOCS_PATH = re.compile(r"(?<![\w/.])docs/[\w./-]+?\.(?:md|png)")
SPEC = re.compile(r"(?<![\w/.-])specs/(\d)(?!\d)")


def _tracked_texts() -> dict[str, str]:
    names = subprocess.run(["git", "ls-files", "chunkbench", "tests", "notebooks", "docs", "benchmarks", "README.md"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return {n: (ROOT / n).read_text("utf-8") for n in names
            if n.endswith((".py", ".md", ".ipynb", ".json")) and (ROOT / n).exists()}


def test_every_cited_docs_path_exists():
    # the specs are verbatim copies of the source specs: their own links point into their origin
    missing = {(name, path) for name, text in _tracked_texts().items() for path in DOCS_PATH.findall(text)
               if not name.startswith("docs/specs/") and not (ROOT / path).exists()}
    assert missing == set()


def test_every_cited_spec_is_one_file_in_docs_specs():
    cited = {n for text in _tracked_texts().values() for n in SPEC.findall(text)}
    assert cited >= {"1", "2", "3", "4", "5"}
    for n in cited:
        assert len(list((ROOT / "docs" / "specs").glob(f"{n}-*.md"))) == 1, n


def test_nothing_cites_the_shared_folder_for_contracts():
    for name, text in _tracked_texts().items():
        if name in ("docs/contracts.md", "tests/project/test_citations.py"):
            continue
        assert not re.search(r"(?<![\w/.])DESIGN\.md|shared/DESIGN|shared/specs", text), name
