"""The tables generated from the declarations: the guide's (docs/guide.md) strategy and reason-code tables, the
reason enum of the chunks.json schema, docs/defects.md's defect codes and docs/gold.md's scores. Strategies, reason codes
and defect codes are declared once (the registry in `chunkbench.strategies`, the `Reason` and
`Defect` enums); this writes everything that lists them.

    python -m chunkbench.ui.doctables          rewrite docs/guide.md, the schema and docs/defects.md
    python -m chunkbench.ui.doctables --check  exit 1, naming the files, when either is out of date
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from chunkbench.strategies import all_strategies
from chunkbench.types.chunk import Reason

PACKAGE = Path(__file__).resolve().parents[1]
#: the page with the strategy, reason-code and metric tables (the README links to it)
GUIDE = PACKAGE.parent / "docs" / "guide.md"
DEFECTS = PACKAGE.parent / "docs" / "defects.md"
GOLD = PACKAGE.parent / "docs" / "gold.md"
SCHEMA = PACKAGE / "schema" / "chunks.schema.json"
COMMAND = "python -m chunkbench.ui.doctables"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def strategy_table() -> str:
    """name | spec | what decides a boundary | fields it adds | offsets rule, one row per strategy."""
    rows = ["| name | spec | what decides a boundary | fields it adds | offsets |", "|---|---|---|---|---|"]
    for s in all_strategies(peers=False, slow=True):
        spec = f"[{s.spec.removeprefix('docs/')}]({s.spec.removeprefix('docs/')})"  # linked from docs/guide.md
        rows.append(f"| `{s.name}` | {spec} | {_cell(s.boundaries or s.doc)} | {_cell(s.fields) or '–'} | `{s.offsets}` |")
    return "\n".join(rows)


def reason_table() -> str:
    """code | meaning, one row per Reason, in the enum's order."""
    return "\n".join(["| code | meaning |", "|---|---|", *(f"| `{r.value}` | {_cell(r.doc)} |" for r in Reason)])


def defect_table() -> str:
    """code | meaning, one row per defect code (`evaluate.defects.Defect`), in its order."""
    from chunkbench.evaluate.defects import Defect

    return "\n".join(["| code | what a reviewer sees |", "|---|---|", *(f"| `{d.value}` | {_cell(d.doc)} |" for d in Defect)])


def defects_text(current: str) -> str:
    return _between(current, "defects", defect_table())


def gold_text(current: str) -> str:
    """docs/gold.md's tables of the parse scores, cut scores, question kinds and disagreement codes."""
    from chunkbench.evaluate.gold.cuts import CUT_SCORES
    from chunkbench.evaluate.gold.disagree import DISAGREEMENTS
    from chunkbench.evaluate.gold.parse import PARSE_SCORES
    from chunkbench.evaluate.gold.questions import QUESTION_KINDS
    from chunkbench.evaluate.gold.report import CUT_COLUMNS, PARSE_COLUMNS

    def table(head: str, items, columns=None) -> str:
        rows = [f"| `{k}` |{f' {columns[k]} |' if columns else ''} {_cell(v)} |" for k, v in items.items()]
        heads = f"| {head} |{' column |' if columns else ''} meaning |"
        return "\n".join([heads, "|---|---|" + ("---|" if columns else ""), *rows])

    text = _between(current, "gold-parse", table("score", PARSE_SCORES, PARSE_COLUMNS))
    text = _between(text, "gold-cuts", table("score", CUT_SCORES, CUT_COLUMNS))
    text = _between(text, "gold-questions", table("kind", QUESTION_KINDS))
    return _between(text, "gold-disagreements", table("code", DISAGREEMENTS))


def _between(text: str, name: str, body: str) -> str:
    """`text` with the block between the `name` markers replaced by `body`."""
    start, end = f"<!-- generated: {name} ({COMMAND}) -->", f"<!-- end generated: {name} -->"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise ValueError(f"no '{start}' ... '{end}' block")
    return pattern.sub(lambda _m: f"{start}\n{body}\n{end}", text)


def metric_table() -> str:
    """metric | meaning, for the main metrics (chunkbench.evaluate.glossary)."""
    from chunkbench.evaluate.glossary import METRICS

    return "\n".join(["| metric | meaning |", "|---|---|", *(f"| `{m}` | {_cell(d)} |" for m, d in METRICS.items())])


def guide_text(current: str) -> str:
    text = _between(_between(current, "strategies", strategy_table()), "reasons", reason_table())
    return _between(text, "metrics", metric_table())


def schema_text(current: str) -> str:
    """The schema with its boundary reason enum set to the Reason codes, in order."""
    schema = json.loads(current)
    schema["$defs"]["chunk"]["properties"]["boundary"]["properties"]["reason"]["enum"] = [r.value for r in Reason]
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def outdated() -> dict[Path, str]:
    """Each generated file whose text differs from what the declarations give, with that text."""
    out = {}
    for path, make in ((GUIDE, guide_text), (SCHEMA, schema_text), (DEFECTS, defects_text), (GOLD, gold_text)):
        if path.exists():
            current = path.read_text("utf-8")
            wanted = make(current)
            if wanted != current:
                out[path] = wanted
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="only report out-of-date files (exit 1)")
    args = ap.parse_args(argv)
    stale = outdated()
    if args.check:
        for path in stale:
            print(f"{path}: out of date with the declarations; run {COMMAND}", file=sys.stderr)
        return 1 if stale else 0
    from chunkbench.io.atomic import write_text

    for path, text in stale.items():
        write_text(path, text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
