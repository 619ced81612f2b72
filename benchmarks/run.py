"""`make bench`: run the benchmarks, print the table, write `benchmarks/results.md`.

    python -m benchmarks.run [--quick] [--only tokens,parse,structure,render,explore,foreign,dense,mineru,corpus,judge,cli,lineage,cite,parse_stages,budgets,gold]
                             [-o benchmarks/results.md]

Each section's rows, notes and the run that measured them are kept in `results.json` beside the
Markdown: `--only X` measures section X again and keeps the other sections of earlier runs, and
results.md says which run wrote each section.

Sections (issue 8): 1. tokens strategy vs raw encode and peer splitters; 2. structure strategies
as a share of parse time and their scaling; 3. parsing vs pymupdf4llm, cores, cache, memory;
4. overlay rendering vs pdfplumber (`bench_render`); 5. explorer and sweep (`bench_explore`);
6. locating another chunker's chunks (`bench_foreign`); 7. the torch-free dense encoder (`bench_dense`);
8. MinerU 4's flash tier against the default parser (`bench_mineru`); 9. a corpus of PDFs
(`bench_corpus`); 10. judging without questions: defects and the proxy score (`bench_judge`);
11. how long the command line takes to answer (`bench_cli`); 12. chunk lineage (`bench_lineage`);
13. citing a quote (`bench_cite`); 14. the default parse by stage on one core (`bench_parse_stages`);
15. recall at a context budget (`bench_budgets`); 16. gold from a structured twin (`bench_gold`).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import json
import os
import sys
import time
from collections.abc import Iterable

from chunkbench.io.atomic import write_text

from .common import HEADER, ROOT, Row, machine, markdown_rows, plain_table

SECTIONS = ("tokens", "parse", "structure", "render", "explore", "foreign", "dense", "mineru", "corpus", "judge", "cli",
            "lineage", "cite", "parse_stages", "budgets", "gold")


#: each section's `run` arguments for a --quick or a full run (default: runs=2 or 3)
RUN_ARGS = {
    "tokens": lambda quick: {"runs": 3 if quick else 5, "peer_runs": 3},
    "parse": lambda quick: {"runs": 2 if quick else 3, "quick": quick},
    "dense": lambda quick: {"runs": 2},
    "corpus": lambda quick: {"runs": 1 if quick else 2},
    "cli": lambda quick: {"runs": 3 if quick else 5},
    "cite": lambda quick: {},
    "budgets": lambda quick: {},
    "gold": lambda quick: {},
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer runs; skip the generated 2,400-page PDF")
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections: " + ", ".join(SECTIONS))
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "benchmarks", "results.md"))
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(only) - set(SECTIONS)
    if unknown:
        ap.error(f"unknown section(s) {', '.join(sorted(unknown))}; choose from {', '.join(SECTIONS)}")
    started = time.perf_counter()
    header = machine()
    print("\n".join(header), flush=True)
    rows: list[Row] = []
    notes: dict[str, list[str]] = {}
    facts: dict = {}
    for name in (n for n in SECTIONS if n in only):
        module = importlib.import_module(f".bench_{name}", __package__)
        kwargs = RUN_ARGS.get(name, lambda quick: {"runs": 2 if quick else 3})(args.quick)
        if name == "structure":
            kwargs["facts"] = facts  # the parse section's figures (the 311-page PDF's parse time)
        r, n, *extra = module.run(**kwargs)
        if name == "parse":
            facts = extra[0]
        _report(rows, notes, module.SECTION, r, n)
    elapsed = time.perf_counter() - started
    run = {"command": command(args.quick, only), "written": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
           "minutes": round(elapsed / 60, 1), "machine": header}
    kept = write_results(args.output, sections_of(rows, notes, run), keep=set(only) != set(SECTIONS))
    missed = [r for r in rows if r.met is False]
    print(f"\n{len(rows)} figures, {sum(r.met is True for r in rows)} targets met, {len(missed)} not met; "
          f"{elapsed / 60:.1f} min; wrote {os.path.relpath(args.output)}"
          + (f" (sections of earlier runs kept: {', '.join(kept)})" if kept else ""))
    return 0


def write_results(output: str, measured: dict[str, dict], keep: bool) -> list[str]:
    """Write results.md and its JSON beside it: the sections measured, and with `keep` (a run of
    some sections) those of earlier runs that were not measured again. Returns the kept titles."""
    earlier = load_sections(sidecar(output)) if keep else {}
    kept = sorted(set(earlier) - set(measured))
    merged = {**{t: earlier[t] for t in kept}, **measured}
    write_text(sidecar(output), json.dumps({"sections": merged}, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    write_text(output, results_markdown(merged))
    return kept


def command(quick: bool, only: list[str]) -> str:
    """The command line of a run, as results.md names it."""
    subset = [s for s in SECTIONS if s in only]
    return ("python -m benchmarks.run" + (" --quick" if quick else "")
            + ("" if len(subset) == len(SECTIONS) else f" --only {','.join(subset)}"))


def sidecar(output: str) -> str:
    """The JSON beside results.md that keeps each section's rows between runs."""
    return os.path.splitext(output)[0] + ".json"


def load_sections(path: str) -> dict[str, dict]:
    """The sections of earlier runs, by title ("6. foreign chunks"); none when there is no file."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)["sections"]
    except FileNotFoundError:
        return {}


def sections_of(rows: list[Row], notes: dict[str, list[str]], run: dict) -> dict[str, dict]:
    """This run's sections: each one's rows as results.md shows them, its notes, and the run."""
    titles = sorted({r.section for r in rows} | set(notes))
    return {t: {"rows": [r.cells() for r in rows if r.section == t], "notes": notes.get(t, []), "run": run}
            for t in titles}


def _report(rows: list[Row], notes: dict, section: str, new_rows: list[Row], new_notes: list[str]) -> None:
    rows.extend(new_rows)
    notes[section] = new_notes
    print(f"\n## {section}\n" + plain_table(new_rows), flush=True)
    for n in new_notes:
        if not n.startswith("profile"):
            print("  " + n)


def in_order(titles: Iterable[str]) -> list[str]:
    """Section titles by their number ("2. …" before "10. …")."""
    def number(title: str) -> int:
        head = title.split(".", 1)[0]
        return int(head) if head.isdigit() else 0
    return sorted(titles, key=lambda t: (number(t), t))


def results_markdown(sections: dict[str, dict]) -> str:
    """results.md: the runs that wrote its sections and their machines, every section's rows in
    one table, the targets not met, and each section's notes."""
    runs: dict[tuple[str, str], list[str]] = {}
    for title in in_order(sections):
        run = sections[title]["run"]
        runs.setdefault((run["written"], run["command"]), []).append(title)
    out = [
        "# chunkbench benchmark results",
        "",
        "Written by `python -m benchmarks.run` (`make bench`); `--only` measures some sections again and keeps "
        "the others, so each section names the run that measured it. Each figure is the median of several runs "
        "unless its note says otherwise; every ratio is against a peer measured in the same run (ratio > 1 means "
        "chunkbench is faster, or for shares/growth: the measured factor).",
        "",
        "## Runs and machines",
        "",
    ]
    for (written, cmd), titles in sorted(runs.items()):
        run = sections[titles[0]]["run"]
        took = "" if run.get("minutes") is None else f", {run['minutes']} minutes"
        out.append(f"- `{cmd}` on {written}{took}: {', '.join(titles)}")
        out += [f"  - {line}" for line in run["machine"]]
    rows = [dict(zip(HEADER, cells)) for title in in_order(sections) for cells in sections[title]["rows"]]
    out += ["", "## Results", "", markdown_rows([list(r.values()) for r in rows]), ""]
    missed = [r for r in rows if r["status"] == "NOT met"]
    out += ["## Targets not met", ""]
    out += [f"- {r['measure']}: {r['ratio']} against target {r['target']} ({r['note']})" for r in missed] or ["- none"]
    out.append("")
    for title in in_order(sections):
        notes = sections[title]["notes"]
        if notes:
            out += [f"## Notes: {title}", ""]
            out += [n if n.startswith("profile") else f"- {n}" for n in notes]
            out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
