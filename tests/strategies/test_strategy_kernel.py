"""The strategy kernel. The registry is an explicit list of declarations, importing a
strategy module registers nothing, and each parameter's default is written once (in its Param)."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import pytest
from hypothesis import given, settings

import chunkbench
from chunkbench.strategies import REGISTRY, all_strategies, chunk, get_strategy
from chunkbench.strategies.base import Strategy
from tests.element_streams import check_common_invariants, element_documents
from tests.support.extras import examples
from tests.support.paths import ROOT


def test_the_registry_is_the_explicit_list_of_declarations():
    names = [s.name for s in all_strategies(peers=False, slow=True)]
    assert names == sorted(REGISTRY) and set(names) >= {"elements", "contract", "headers", "sections", "tokens"}
    peers = [s.name for s in all_strategies(slow=True)][len(names):]
    assert all(":" in n for n in peers) and peers == sorted(peers)  # installed peers follow, library:Class
    # slow ones (an embedder on every sentence) only when asked for: the loops over every strategy skip them
    assert {s.name for s in all_strategies(slow=True)} - {s.name for s in all_strategies()} == {
        s.name for s in all_strategies(slow=True) if s.slow}
    for s in all_strategies(slow=True):
        module = importlib.import_module(s.func.__module__)
        declared = module.STRATEGY if ":" not in s.name else s  # a peer is declared by peers.declare_peer
        assert declared is s and get_strategy(s.name) is s and isinstance(s, Strategy)


def test_importing_a_strategy_module_registers_nothing():
    """In a fresh interpreter, importing one strategy module (or a helper of one) defines its
    declaration without touching any registry; only chunkbench.strategies lists them."""
    code = (
        "import sys\n"
        "import chunkbench.strategies.contract_rules, chunkbench.strategies.tokens as t\n"
        "from chunkbench.strategies.base import Strategy\n"
        "assert isinstance(t.STRATEGY, Strategy)\n"
        "import chunkbench.strategies.base as b\n"
        "assert not any(isinstance(v, dict) and v and all(isinstance(x, Strategy) for x in v.values())"
        " for v in vars(b).values())\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_each_default_is_written_once_in_its_param():
    """A strategy function states no default of its own: every declared parameter is a keyword
    without a default, and there is no keyword that is not declared (but `kept`, the re-chunking
    owner's state, for a strategy that declares it uses one)."""
    for s in all_strategies():
        sig = inspect.signature(s.func)
        declared = {p.name for p in s.params} | ({"kept"} if s.uses_kept else set())
        keywords = {n: p for n, p in sig.parameters.items() if p.kind is p.KEYWORD_ONLY}
        var_kw = any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
        assert var_kw or set(keywords) == declared, s.name
        assert all(p.default is inspect.Parameter.empty for p in keywords.values()), s.name


def test_chunk_passes_every_resolved_parameter():
    doc = chunkbench.load(ROOT / "tests" / "data" / "markdown" / "deployment_guide.md")
    for s in all_strategies():
        assert len(chunkbench.chunk(doc, s.name)) > 0, s.name


@pytest.mark.parametrize("name", [s.name for s in all_strategies()])
@given(doc=element_documents(max_elements=25))
@settings(max_examples=examples(25, share=0.25), deadline=None)
def test_every_registered_strategy_keeps_the_common_invariants(name, doc):
    """The registry drives the property tests too, so a new strategy is covered by
    hypothesis before it has tests of its own (docs/adding-a-strategy.md)."""
    cs = chunk(doc, name)
    check_common_invariants(doc, cs, dict(cs.params))
    assert chunk(doc, name).to_dict(chunked_at="-") == cs.to_dict(chunked_at="-"), "deterministic"
