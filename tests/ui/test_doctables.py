"""Strategies and reason codes are declared once; the guide's tables (docs/guide.md) and the schema's enum
are generated from the declarations and must be current."""

from __future__ import annotations

import json

from chunkbench.strategies import all_strategies
from chunkbench.types.chunk import REASON_DOCS, Reason
from chunkbench.ui import doctables


def test_generated_files_are_current():
    stale = doctables.outdated()
    assert not stale, f"out of date with the declarations: {sorted(map(str, stale))}; run {doctables.COMMAND}"


def test_the_tables_follow_the_declarations():
    readme = doctables.GUIDE.read_text("utf-8")
    for s in all_strategies(peers=False, slow=True):  # peers depend on what is installed: named in prose
        assert f"| `{s.name}` | [" in readme and s.boundaries and s.fields, s.name
    for r in Reason:
        assert f"| `{r.value}` | {r.doc}" in readme
    enum = json.loads(doctables.SCHEMA.read_text("utf-8"))["$defs"]["chunk"]["properties"]["boundary"]["properties"]["reason"]["enum"]
    assert enum == [r.value for r in Reason] == list(REASON_DOCS)


def test_check_mode_names_a_stale_file(tmp_path, monkeypatch, capsys):
    readme = tmp_path / "guide.md"
    readme.write_text(doctables.GUIDE.read_text("utf-8").replace("| `tokens` |", "| `tokenz` |"), "utf-8")
    monkeypatch.setattr(doctables, "GUIDE", readme)
    assert doctables.main(["--check"]) == 1
    assert str(readme) in capsys.readouterr().err
    assert doctables.main([]) == 0 and doctables.main(["--check"]) == 0
