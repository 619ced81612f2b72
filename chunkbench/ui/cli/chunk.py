"""`chunkbench chunk` (chunks.json, chunk_debug.md or a table), `chunkbench strategies`, `chunkbench stats`."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chunkbench.errors import UsageError
from chunkbench.text.context import Indexing
from chunkbench.text.segment import one_line

from . import (
    add_chunks_option,
    add_edits_option,
    add_fail_on_empty,
    add_input_options,
    add_set_option,
    check_not_empty,
    load_input,
    located_chunks,
    parse_sets,
    strategy_chunks,
)


def register(sub) -> None:
    p = sub.add_parser("chunk", help="chunk INPUT with a strategy; write chunks.json and chunk_debug.md")
    add_input_options(p)
    add_set_option(p)
    p.set_defaults(strategy=None)  # DEFAULT_STRATEGY, unless --for-retrieval picks the retrieval default
    p.add_argument("--index-context", type=int, default=None, metavar="N",
                   help="give every chunk an index_text: its text (twice) with the N chunks before and after it, "
                        "what to index it by when the index returns the chunk alone (see docs/evaluation.md)")
    p.add_argument("--index-alone", action="store_true",
                   help="with --index-context: index each chunk by its own text as well; every chunk then has "
                        "index_texts, the texts to index it by (rank a chunk by the best of their scores)")
    p.add_argument("--index-windows", type=int, default=None, metavar="N",
                   help="also index each chunk by pieces of its own sentences of at most N characters "
                        "(in index_texts, with the texts above; its own text when there is no --index-context)")
    p.add_argument("--index-groups", type=int, default=None, metavar="TOKENS",
                   help="also index each chunk by the text of its structural block (a list with its lead-in, a "
                        "table, a term with its description) and of its section, each when it holds more than the "
                        "chunk and at most TOKENS cl100k tokens: the ranking chooses the size of the answer "
                        "(in index_texts; docs/context-budget.md)")
    p.add_argument("--index-headings", action="store_true",
                   help="every text a chunk is indexed by opens with the headings above it (its section path; "
                        "index_text alone, or in index_texts with the options above)")
    p.add_argument("--for-retrieval", action="store_true",
                   help="chunk with the retrieval default (the strategy, parameters and index context that won "
                        "the public-domain retrieval benchmark: docs/evaluation.md); no --strategy or --set")
    p.add_argument(
        "--meta", action="append", default=[], metavar="KEY=VALUE",
        help="pass-through document metadata copied into every chunk, repeatable; "
             "KEY:=JSON for numbers and booleans (fiscal_year:=2023)",
    )
    p.add_argument("-o", "--output", default=None, help="chunks.json path (default: print a table of chunks)")
    p.add_argument("--debug-md", default=None, metavar="PATH", help="also write chunk_debug.md here")
    p.add_argument("--jsonl", default=None, metavar="PATH", help="also write one chunk per line here")
    p.add_argument("--citations", action="store_true",
                   help="give each chunk a `citation`: its first page, the boxes of its first and last words, and "
                        "for a MinerU parse its page:N/block:M/char:K locator (docs/citations.md)")
    add_chunks_option(p, "write")
    add_edits_option(p)
    add_fail_on_empty(p)
    p.set_defaults(func=run_chunk)

    p = sub.add_parser("strategies", help="list the chunking strategies and their parameters")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="only these strategies, with their parameters (a peer's library is imported to read them)")
    p.add_argument("--json", action="store_true", help="print the registry as JSON (every peer imported)")
    p.set_defaults(func=run_strategies)

    p = sub.add_parser("stats", help="sizes, the size and evidence targets, clause_ref rate, chunks by type and reason, "
                                      "defects per 100 chunks")
    p.add_argument("chunks_json", help="a chunks.json written by `chunkbench chunk`")
    p.add_argument("--doc", default=None, metavar="INPUT",
                   help="the document the chunks are of, for the defects (default: its source file beside the "
                        "chunks.json, when its bytes are the ones chunked)")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    p.set_defaults(func=run_stats)


def parse_meta(items: list[str]) -> dict[str, Any]:
    """`["company=ACME", "fiscal_year:=2023"]` → dict; `:=` values are JSON, the others text."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip(":").strip():
            raise UsageError(f"--meta expects KEY=VALUE or KEY:=JSON, got {item!r}")
        if key.endswith(":"):
            key = key[:-1]
            out[key.strip()] = _meta_json(key.strip(), value)
        else:
            out[key.strip()] = value
    return out


#: deepest list/object nesting a --meta JSON value may have (metadata is flat in practice)
MAX_META_DEPTH = 16


def _meta_json(key: str, value: str) -> Any:
    """A `KEY:=JSON` value: finite numbers only, nesting bounded; anything else is a UsageError."""
    def refuse(problem: str) -> UsageError:
        return UsageError(f"--meta {key}:= {problem}, got {one_line(value, 40)!r}")

    from chunkbench.errors import InputError
    from chunkbench.io.jsonin import loads_checked

    try:
        parsed = loads_checked(value, None)
    except InputError as exc:
        raise refuse(f"expects finite numbers in a value nested at most {MAX_META_DEPTH} deep ({exc.message})") from None
    except json.JSONDecodeError:
        raise refuse("expects a JSON value") from None
    stack = [(parsed, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_META_DEPTH:
            raise refuse(f"expects a JSON value nested at most {MAX_META_DEPTH} deep")
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return parsed


def run_chunk(args) -> int:
    from chunkbench.io.outputs import check_outputs, write_output

    outputs = check_outputs({"--output": args.output, "--debug-md": args.debug_md, "--jsonl": args.jsonl},
                            inputs=[args.input, args.pdf, args.chunks])
    params = parse_sets(args.params)
    indexing = _choose_setting(args, params)
    meta = parse_meta(args.meta)
    doc = load_input(args)
    if meta:
        doc = doc.with_metadata(**meta)
    chunkset = located_chunks(doc, args.chunks, args.chunker) if args.chunks else strategy_chunks(doc, args, params=params)
    check_not_empty(chunkset, args)
    chunkset = chunkset.with_index_texts(indexing)
    if args.citations:
        from chunkbench.foreign.cite import with_citations

        chunkset = with_citations(chunkset)
    if not outputs:
        print(format_chunk_table(chunkset))
        return 0
    from chunkbench.evaluate.stats import fmt_num
    from chunkbench.evaluate.verdict import assess

    seen = assess(chunkset)
    writers = {"--output": chunkset.to_json, "--debug-md": lambda path: chunkset.to_debug_markdown(
        path, [f.to_dict() for f in seen.findings]), "--jsonl": chunkset.to_jsonl}
    for option, path in outputs.items():
        write_output(path, writers[option])
    size = seen.size
    print(
        f"{doc.source}: {size.count} chunks ({chunkset.strategy}), median {fmt_num(size.chars.median)} chars, "
        f"p95 {fmt_num(size.chars.p95)}; {seen.verdict.line()} (`chunkbench stats` lists them)"
        + (" (see the warnings on stderr)" if doc.warnings else "")
    )
    for path in outputs.values():
        print(f"  wrote {path}")
    if chunkset.retrieval_recipe:
        print(f"  retrieval: {chunkset.retrieval_recipe}")
    return 0


def _choose_setting(args, params: dict[str, Any]) -> Indexing:
    """Resolve --strategy (default DEFAULT_STRATEGY) and --for-retrieval into args.strategy and `params`
    (in place); how the chunks are to be indexed (--index-context, --index-alone, --index-windows,
    --index-headings, --index-groups, over the retrieval default's)."""
    from chunkbench.app.defaults import DEFAULT_STRATEGY, RETRIEVAL_DEFAULT
    from chunkbench.evaluate.retrieval.scoring import (
        INDEX_CONTEXT_PARAM,
        INDEX_GROUPS_PARAM,
        INDEX_PARAMS,
        INDEX_WINDOWS_PARAM,
        split_indexing,
    )

    for flag, value, param in (("--index-context", args.index_context, INDEX_CONTEXT_PARAM),
                               ("--index-windows", args.index_windows, INDEX_WINDOWS_PARAM),
                               ("--index-groups", args.index_groups, INDEX_GROUPS_PARAM)):
        if value is not None:  # the bounds every setting's index parameters have
            try:
                param.coerce(value, "indexing")
            except ValueError as exc:
                said = str(exc)
                raise UsageError(f"{flag} {said[said.find('must'):] if 'must' in said else said}") from None
    if not args.for_retrieval:
        args.strategy = args.strategy or DEFAULT_STRATEGY
        default = Indexing()
    elif args.strategy is not None or params or args.chunks:
        raise UsageError("--for-retrieval chooses the strategy and its parameters: give it without --strategy, "
                         "--set or --chunks")
    else:
        args.strategy = RETRIEVAL_DEFAULT.strategy
        params.update(RETRIEVAL_DEFAULT.strategy_params)
        default = RETRIEVAL_DEFAULT.indexing
    # index parameters given with --set, as evaluate and sweep print a setting (`recursive chunk_size=150
    # index_context=1 index_groups=1000`), say the same as the --index-* flags; the flags win
    if any(p.name in params for p in INDEX_PARAMS):
        given, rest = split_indexing(params, args.strategy)
        params.clear()
        params.update(rest)
        default = Indexing(given.context or default.context, given.alone or default.alone,
                           given.windows or default.windows, given.headings or default.headings,
                           given.groups or default.groups)
    indexing = Indexing(default.context if args.index_context is None else args.index_context,
                        args.index_alone or default.alone,
                        default.windows if args.index_windows is None else args.index_windows,
                        args.index_headings or default.headings,
                        default.groups if args.index_groups is None else args.index_groups)
    if indexing.alone and not indexing.context:
        raise UsageError("--index-alone indexes each chunk by its own text beside its text with its neighbours: "
                         "give --index-context N too")
    return indexing


def format_chunk_table(chunkset) -> str:
    """One line per chunk: index, type, boundary reason, pages, chars, tokens, start of the text."""
    lines = [f"{chunkset.doc.source}: {len(chunkset)} chunks, strategy {chunkset.strategy}",
             f"{'#':>4}  {'type':<12} {'reason':<18} {'pages':<7} {'chars':>6} {'tokens':>6}  text"]
    for c in chunkset.chunks:
        pages = "-" if c.page_start is None else (
            str(c.page_start) if c.page_end == c.page_start else f"{c.page_start}-{c.page_end}")
        lines.append(
            f"{c.index:>4}  {c.type[:12]:<12} {c.boundary.reason.value:<18} {pages:<7} "
            f"{c.char_len:>6} {c.tokens_est:>6}  {one_line(c.text, 50)}"
        )
    return "\n".join(lines)


def strategies_registry(names: Sequence[str] = ()) -> list[dict]:
    """The registry as plain data: name, spec, ruleset, one-line doc, offsets rule, parameters (of
    `names` only, when given; an unknown name is a ParamError that lists the known ones)."""
    from chunkbench.strategies import all_strategies, get_strategy

    chosen = [get_strategy(n) for n in names] if names else all_strategies(slow=True)
    return [_entry(s.name, s.spec, s.ruleset, s.doc, s.offsets, s.slow, [p.describe() for p in s.params])
            for s in chosen]


def _entry(name: str, spec: str, ruleset: str, doc: str, offsets: str, slow: str, params: list | None) -> dict:
    """One strategy as `chunkbench strategies` lists it (params None: not read, see _quick_registry)."""
    return {"name": name, "spec": spec, "ruleset": ruleset, "doc": doc, "offsets": offsets, "slow": slow,
            "params": params}


def _quick_registry() -> list[dict]:
    """The built-ins with their parameters, then each installed peer from its distribution's metadata
    (no parameters: reading them imports the library, seconds for LlamaIndex or Docling)."""
    from chunkbench.strategies import REGISTRY
    from chunkbench.strategies.peers import SPEC, listed_peers, peer_ruleset

    builtin = strategies_registry(sorted(REGISTRY))
    peers = [_entry(p.name, SPEC, peer_ruleset(p), p.doc, "rewritten", p.slow, None)
             for p in sorted(listed_peers(), key=lambda p: p.name)]
    return builtin + peers


def _range(p: dict) -> str:
    if "choices" in p:
        return "{" + ",".join(map(str, p["choices"])) + "}"
    if "min" in p or "max" in p:
        return f"[{p.get('min', '')}..{p.get('max', '')}]"
    return ""


def _param_line(p: dict) -> str:
    """One parameter as `chunkbench strategies` lists it: name, type, default, range, what it does."""
    return f"    {p['name']:<24} {p['type']:<6} {json.dumps(p['default']):<8} {_range(p):<14} {p['doc']}"


def run_strategies(args) -> int:
    if args.json:
        json.dump(strategies_registry(args.names), sys.stdout, ensure_ascii=False, indent=2)
        print()
        return 0
    reg = strategies_registry(args.names) if args.names else _quick_registry()
    for s in reg:
        print(f"{s['name']}  ({s['spec']}, ruleset {s['ruleset']})")
        print(f"  {s['doc']}")
        print(f"  offsets: {s['offsets']}")
        if s["slow"]:
            print(f"  slow: {s['slow']}")
        if s["params"] is None:
            print(f"    parameters: chunkbench strategies {s['name']}")
        for p in s["params"] or ():
            print(_param_line(p))
    if args.names:
        return 0
    from chunkbench.app.defaults import RETRIEVAL_DEFAULT
    from chunkbench.evaluate.retrieval.scoring import INDEX_PARAMS

    print("\nevery strategy, in `chunkbench evaluate` and `chunkbench sweep`, also takes how its chunks are indexed "
          "(only what is ranked changes; the chunk alone is returned):")
    for p in INDEX_PARAMS:
        print(_param_line(p.describe()))
    print(f"\nretrieval default (`chunkbench chunk --for-retrieval`): {RETRIEVAL_DEFAULT.name}; "
          "index each chunk's index_text, return its text (docs/evaluation.md)")
    return 0


def _defects_of(data: dict, chunks_json: Path, doc_path: str | None) -> dict:
    """The defects of a chunks.json's chunks per 100 (`evaluate.defects`), read against its document:
    `--doc`, else its source file beside the chunks.json (that folder only) when its sha256 is the
    doc_id; else a note saying how to give it."""
    from chunkbench.app.opening import load, source_beside
    from chunkbench.evaluate.defects import DEFECT_DOCS, defect_counts, find_defects
    from chunkbench.types.chunkset import ChunkSet

    if doc_path is None:
        beside = source_beside(data, chunks_json)
        if beside is None:
            return {"note": f"defects need the document: pass --doc INPUT ({data.get('source')} is not beside "
                            f"{chunks_json.name})"}
        doc_path = str(beside)
    doc = load(doc_path)
    findings = find_defects(ChunkSet.from_dict(data, doc))
    counts = defect_counts(findings, len(data["chunks"]))
    return {"count": len(findings), "per_100": counts["defects_per_100"],
            "by_code": {code: counts[f"defect_{code}"] for code in DEFECT_DOCS if counts[f"defect_{code}"]},
            "document": Path(doc_path).name}


def _verdict_of(stats: dict) -> dict:
    """The first-screen verdict (evaluate.verdict) of `chunk_stats` with its defects, as JSON."""
    from chunkbench.evaluate.verdict import verdict_of

    defects = stats["defects"]
    counts = None if "note" in defects else {"defects_per_100": defects["per_100"],
                                             **{f"defect_{k}": v for k, v in defects["by_code"].items()}}
    verdict = verdict_of(stats["targets_passed"], stats["targets_total"], counts)
    return {"word": verdict.word, "line": verdict.line()}


def run_stats(args) -> int:
    from chunkbench.evaluate.stats import chunk_stats, format_stats
    from chunkbench.io.export import load_chunks_json

    data = load_chunks_json(Path(args.chunks_json))
    stats = chunk_stats(data)
    stats["defects"] = _defects_of(data, Path(args.chunks_json), args.doc)
    stats["verdict"] = _verdict_of(stats)
    if args.json:
        out = {"source": data["source"], "doc_id": data["doc_id"], "chunking": data["chunking"], **stats}
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        print()
    else:
        c = data["chunking"]
        title = f"{data['source']}: strategy {c['strategy']} {json.dumps(c['params'], sort_keys=True)}"
        print(format_stats(stats, title=title))
    for warning in data.get("warnings", ()):
        print(f"chunkbench: warning: {data['source']}: {warning}", file=sys.stderr)
    return 0
