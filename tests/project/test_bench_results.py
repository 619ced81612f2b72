"""`python -m benchmarks.run --only X` measures section X again and keeps the others: results.md is
written from the JSON beside it, where each section keeps its rows, notes and the run that measured it."""

from __future__ import annotations

import json

from benchmarks.common import Row
from benchmarks.run import command, load_sections, sections_of, write_results

MACHINE = ["CPU: test, 2 logical cores"]


def run(written: str, cmd: str) -> dict:
    return {"command": cmd, "written": written, "minutes": 0.1, "machine": MACHINE}


def rows(section: str, value: float, met: bool) -> list[Row]:
    return [Row(section, f"{section} speed", value, "MB/s", target="≥ 1 MB/s", met=met, note="a | note")]


def test_a_run_of_one_section_keeps_the_others_and_names_each_sections_run(tmp_path):
    out = tmp_path / "results.md"
    full = run("2026-11-26 23:44 UTC", command(False, ["tokens", "foreign"]))
    first = sections_of(rows("1. tokens", 2.0, True) + rows("6. foreign", 0.5, False),
                        {"6. foreign": ["old note"]}, full)
    assert write_results(str(out), first, keep=False) == []
    later = run("2026-11-29 03:59 UTC", command(False, ["foreign"]))
    assert later["command"] == "python -m benchmarks.run --only foreign"
    assert write_results(str(out), sections_of(rows("6. foreign", 3.0, True), {}, later), keep=True) == ["1. tokens"]
    md = out.read_text(encoding="utf-8")
    assert "| 1. tokens speed | 2.00 MB/s |" in md and "| 6. foreign speed | 3.00 MB/s |" in md
    assert "0.5 MB/s" not in md and "old note" not in md  # the section measured again replaces its rows and notes
    assert "a \\| note" in md  # a cell's pipe escaped in the table
    assert "- `python -m benchmarks.run --only foreign` on 2026-11-29 03:59 UTC, 0.1 minutes: 6. foreign" in md
    assert "on 2026-11-26 23:44 UTC, 0.1 minutes: 1. tokens\n" in md
    assert "## Targets not met\n\n- none" in md
    assert set(load_sections(str(tmp_path / "results.json"))) == {"1. tokens", "6. foreign"}


def test_a_full_run_drops_sections_no_longer_measured(tmp_path):
    out = tmp_path / "results.md"
    write_results(str(out), sections_of(rows("9. gone", 1.0, False), {}, run("2026-11-26 00:00 UTC", "x")), keep=False)
    assert "9. gone speed: " in out.read_text(encoding="utf-8")  # listed under the targets not met
    write_results(str(out), sections_of(rows("1. tokens", 2.0, True), {}, run("2026-11-27 00:00 UTC", "y")), keep=False)
    assert "gone" not in out.read_text(encoding="utf-8")
    assert list(json.loads((tmp_path / "results.json").read_text())["sections"]) == ["1. tokens"]


def test_the_committed_results_are_the_rendering_of_their_json():
    """benchmarks/results.md is what results_markdown makes of benchmarks/results.json (no hand edits
    that the next `--only` run would lose)."""
    from benchmarks.common import ROOT
    from benchmarks.run import SECTIONS, results_markdown

    sections = load_sections(f"{ROOT}/benchmarks/results.json")
    assert len(sections) == len(SECTIONS)  # every section has a measurement on record
    with open(f"{ROOT}/benchmarks/results.md", encoding="utf-8") as f:
        assert f.read() == results_markdown(sections)


def test_sections_are_listed_by_their_number():
    from benchmarks.run import in_order

    assert in_order(["10. later", "2. structure", "1. tokens"]) == ["1. tokens", "2. structure", "10. later"]
