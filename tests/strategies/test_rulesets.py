"""A strategy's ruleset names its rules: one ruleset, one output. The workspace store reuses a stored
run whose manifest (ruleset included) matches, so a change of output under an old ruleset would
serve stale chunks. Each ruleset's chunks of fixed inputs (the sample PDFs' elements, saved once,
and a document.json) are fingerprinted in tests/data/rulesets/fingerprints.json, and their boundaries
(span and reason of every chunk, the skipped elements) kept as golden JSON in
tests/data/rulesets/golden/: this test fails when a strategy's output changes and its ruleset does
not, showing which boundaries moved (the fingerprint catches the rest: text, ids, fields).

After bumping a ruleset, record its fingerprint:
`CHUNKBENCH_RECORD_RULESETS=1 .venv/bin/python -m pytest tests/strategies/test_rulesets.py`.
`semantic` is left out: its cuts come from MiniLM's floats, which may differ in the last bits
between CPUs. The peers' rulesets name their library's version."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

import chunkbench
from chunkbench.strategies import all_strategies, chunk
from tests.support.paths import TEST_DATA
from tests.support.strategy_checks import VARIANTS, variant_params

DATA = TEST_DATA
FINGERPRINTS = DATA / "rulesets" / "fingerprints.json"
INPUTS = sorted((DATA / "rulesets").glob("*.elements.json")) + [DATA / "docjson" / "document.json"]

STRATEGIES = [s for s in all_strategies() if ":" not in s.name and s.name != "semantic"]


def fingerprint(name: str) -> str:
    """sha256 of the strategy's chunks and skipped elements on every input, at its defaults and at the
    small sizes of the all-inputs matrix (which split elements and pack pieces)."""
    h = hashlib.sha256()
    for path in INPUTS:
        doc = chunkbench.load(path)
        for params in (variant_params(name, v) for v in VARIANTS):
            cs = chunk(doc, name, **params)
            payload = {"input": path.name, "params": params, "skipped": cs.skipped,
                       "chunks": [c.to_dict() for c in cs]}
            h.update(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()


GOLDEN = DATA / "rulesets" / "golden"


def boundaries(name: str) -> dict[str, list[str]]:
    """Every chunk's span and reason (and the skipped elements) on every input at both settings of
    `fingerprint`: what a reader compares when a ruleset's output moves."""
    out = {}
    for path in INPUTS:
        doc = chunkbench.load(path)
        for params in (variant_params(name, v) for v in VARIANTS):
            cs = chunk(doc, name, **params)
            key = f"{path.name} {json.dumps(params, sort_keys=True)}"
            out[key] = [f"{c.start_char}-{c.end_char} {c.boundary.reason.value}" for c in cs] + [
                f"skipped {e}: {why}" for e, why in sorted(cs.skipped.items())]
    return out


def golden_path(ruleset: str) -> Path:
    return GOLDEN / (ruleset.replace("/", "@") + ".json")


def moved(old: dict[str, list[str]], new: dict[str, list[str]]) -> str:
    """The boundaries that moved, input by input, as a unified diff."""
    import difflib

    out = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            out += [f"{key}:", *list(difflib.unified_diff(old.get(key, []), new.get(key, []), lineterm="", n=1))[2:12]]
    return "\n".join(out)


def recorded() -> dict[str, str]:
    return json.loads(FINGERPRINTS.read_text("utf-8")) if FINGERPRINTS.exists() else {}


def test_every_own_strategy_has_a_small_setting():
    missing = [s.name for s in STRATEGIES if not s.small]
    assert missing == [], (f"declare {', '.join(missing)} with small={{...}}: parameters that make it split, overlap "
                           "and merge often (docs/adding-a-strategy.md)")


RECORD = "`CHUNKBENCH_RECORD_RULESETS=1 .venv/bin/python -m pytest tests/strategies/test_rulesets.py`"


@pytest.mark.skipif(bool(os.environ.get("CHUNKBENCH_RECORD_RULESETS")), reason="recording")
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
def test_same_ruleset_same_chunks(strategy):
    known = recorded()
    assert strategy.ruleset in known, f"ruleset {strategy.ruleset!r} has no fingerprint: record it with {RECORD}"
    golden = golden_path(strategy.ruleset)
    assert golden.exists(), f"ruleset {strategy.ruleset!r} has no golden boundaries: record them with {RECORD}"
    old, new = json.loads(golden.read_text("utf-8")), boundaries(strategy.name)
    assert new == old, (f"strategy {strategy.name!r} cuts elsewhere than ruleset {strategy.ruleset!r} did: bump its "
                        f"ruleset, then record it with {RECORD}. Moved:\n{moved(old, new)}")
    assert fingerprint(strategy.name) == known[strategy.ruleset], (
        f"strategy {strategy.name!r} makes other chunks than ruleset {strategy.ruleset!r} made when it was "
        f"recorded: bump its ruleset (stored runs of the old one would be reused), then record it with {RECORD}. "
        "(If the inputs or a strategy's `small` parameters changed instead, delete fingerprints.json and record them all.)")


@pytest.mark.skipif(not os.environ.get("CHUNKBENCH_RECORD_RULESETS"), reason="records only when asked")
def test_record_fingerprints():
    """Add the fingerprint and the golden boundaries of every current ruleset; a recorded one is
    never overwritten."""
    known = recorded()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for s in STRATEGIES:
        got = fingerprint(s.name)
        assert known.get(s.ruleset, got) == got, f"{s.name}: output changed under ruleset {s.ruleset}: bump it first"
        known[s.ruleset] = got
        golden, cuts = golden_path(s.ruleset), boundaries(s.name)
        if golden.exists():
            assert json.loads(golden.read_text("utf-8")) == cuts, f"{s.name}: boundaries moved under {s.ruleset}"
        else:
            golden.write_text(json.dumps(cuts, indent=0, ensure_ascii=False) + "\n", "utf-8")
    FINGERPRINTS.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n", "utf-8")
