"""`chunkbench store …`: save chunking runs to the workspace database, list them, search them."""

from __future__ import annotations

import json

from . import add_edits_option, add_input_options, add_set_option, load_input, strategy_chunks


def register(sub) -> None:
    store = sub.add_parser("store", help="workspace database of chunking runs (save, runs, search, show, chunk)")
    ssub = store.add_subparsers(dest="store_command", metavar="SUBCOMMAND")
    ssub.required = True

    p = ssub.add_parser("save", help="chunk INPUT and save the run to the workspace")
    add_input_options(p)
    add_set_option(p)
    p.add_argument("--notice-id", default=None, help="notice/document key grouping amendments")
    p.add_argument("--amendment", type=int, default=None,
                   help="amendment number (0 = original; default: one more than the highest saved)")
    _workspace_option(p)
    add_edits_option(p, workspace=False)
    p.set_defaults(func=run_save)

    p = ssub.add_parser("runs", help="list saved runs")
    p.add_argument("--notice-id", default=None, help="only the runs of this notice key")
    p.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    _workspace_option(p)
    p.set_defaults(func=run_runs)

    p = ssub.add_parser("search", help="BM25 search over stored chunk text (latest versions only)")
    p.add_argument("text", help="words to look for (any may match)")
    p.add_argument("-k", type=int, default=10, help="how many chunks (default 10)")
    p.add_argument("--all-versions", action="store_true", help="include chunks of superseded amendments")
    p.add_argument("--notice-id", default=None, help="only chunks of this notice key")
    p.add_argument("--strategy", default=None, help="only chunks of runs of this strategy")
    p.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    _workspace_option(p)
    p.set_defaults(func=run_search)

    p = ssub.add_parser("changes", help="what changed between the saved amendments of a notice, what to re-embed")
    p.add_argument("notice_id")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="lineage.jsonl of one amendment to the one before it (the latest unless --amendment)")
    p.add_argument("--amendment", type=int, default=None, help="the amendment -o writes (default: the latest)")
    p.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    _workspace_option(p)
    p.set_defaults(func=run_changes)

    p = ssub.add_parser("show", help="the chunks of a saved run, one line each")
    p.add_argument("run_id")
    _workspace_option(p)
    p.set_defaults(func=run_show)

    p = ssub.add_parser("chunk", help="the full stored text and fields of one chunk")
    p.add_argument("chunk_id")
    p.add_argument("--run", default=None, help="run id, when the chunk id appears in several runs")
    p.add_argument("--all-versions", action="store_true", help="allow chunks of superseded amendments")
    _workspace_option(p)
    p.set_defaults(func=run_chunk)


def _workspace_option(p) -> None:
    p.add_argument("--workspace", default=None,
                   help="database path or sqlite:/// URL (default $CHUNKBENCH_WORKSPACE or .chunkbench/workspace.db)")


def run_save(args) -> int:
    from chunkbench import store
    from chunkbench.errors import UsageError

    if args.amendment is not None and args.notice_id is None:
        raise UsageError("--amendment needs --notice-id")
    doc = load_input(args)
    chunks = strategy_chunks(doc, args)
    run_id = store.save(chunks, notice_id=args.notice_id, amendment=args.amendment, workspace=args.workspace)
    print(run_id)
    if args.notice_id is not None or chunks.params.get("notice_id"):
        changed = store.changes(args.notice_id or chunks.params["notice_id"], args.workspace)
        mine = changed[changed["run_id"] == run_id]
        if not mine.empty:
            row = mine.iloc[0]
            print(f"changes from amendment {row['previous_amendment']}: {row['summary']}")
    return 0


def _print_table(df, columns, workspace=None) -> None:
    """`df`'s `columns` as a text table, or "(none)" (saying so when the workspace was never made)."""
    if df.empty:
        from chunkbench.app.runs import workspace_exists, workspace_path
        from chunkbench.text.terminal import terminal_safe

        made = workspace_exists(workspace)
        print("(none)" if made else f"(none: no workspace database at {terminal_safe(str(workspace_path(workspace)))} yet)")
        return
    shown = df[columns].astype(object)
    print(shown.where(shown.notna(), "-").to_string(index=False, max_colwidth=60))


def _print_json_lines(df) -> None:
    """One JSON object per row; missing values are null."""
    import pandas as pd

    for row in df.to_dict(orient="records"):
        clean = {k: None if not isinstance(v, (list, dict)) and pd.isna(v) else v for k, v in row.items()}
        print(json.dumps(clean, ensure_ascii=False, default=str))


def run_changes(args) -> int:
    from chunkbench import store
    from chunkbench.errors import UsageError
    from chunkbench.io.atomic import write_text
    from chunkbench.io.outputs import check_outputs, write_output

    target = check_outputs({"--output": args.output})["--output"] if args.output else None
    df = store.changes(args.notice_id, args.workspace)
    if args.json:
        _print_json_lines(df)
    else:
        _print_table(df, ["amendment_number", "previous_amendment", "run_id", "to_embed", "to_delete", "summary"])
    if target is not None:
        chosen = df if args.amendment is None else df[df["amendment_number"] == args.amendment]
        if chosen.empty:
            raise UsageError(f"notice {args.notice_id!r} has no amendment {args.amendment} with one before it"
                             if args.amendment is not None else f"notice {args.notice_id!r} has one version only")
        result = store.lineage_of(chosen.iloc[-1]["run_id"], args.workspace)
        write_output(target, lambda p: write_text(p, result.to_jsonl()))
        print(f"wrote {target} ({len(result.links)} lines)")
    return 0


def run_runs(args) -> int:
    from chunkbench import store

    df = store.runs(args.workspace, notice_id=args.notice_id)
    if args.json:
        _print_json_lines(df)
        return 0
    df = df.assign(params=df["params"].map(lambda p: ",".join(f"{k}={v}" for k, v in sorted(p.items()))))
    _print_table(df, ["run_id", "created_at", "source", "strategy", "n_chunks", "notice_key",
                      "amendment_number", "latest", "params"], args.workspace)
    return 0


def run_search(args) -> int:
    from chunkbench import store

    df = store.search(args.text, args.k, all_versions=args.all_versions, notice_id=args.notice_id,
                      strategy=args.strategy, workspace=args.workspace)
    if args.json:
        _print_json_lines(df)
        return 0
    df = df.assign(snippet=df["snippet"].map(lambda s: " ".join(s.split())), score=df["score"].round(3))
    _print_table(df, ["rank", "score", "chunk_id", "run_id", "page_start", "amendment_number", "snippet"], args.workspace)
    return 0


def run_show(args) -> int:
    from chunkbench import store
    from chunkbench.text.segment import one_line

    chunks = store.load(args.run_id, args.workspace)
    print(f"{args.run_id}: {chunks.doc.source}, strategy {chunks.strategy}, {len(chunks)} chunks")
    for c in chunks:
        pages = f"p{c.page_start}" + (f"-{c.page_end}" if c.page_end != c.page_start else "")
        print(f"{c.index:4d}  {c.chunk_id}  {pages}  {c.boundary.reason.value}: {one_line(c.text, 70)}")
    return 0


def run_chunk(args) -> int:
    from chunkbench import store

    d = store.get_chunk(args.chunk_id, run_id=args.run, all_versions=args.all_versions, workspace=args.workspace)
    print(json.dumps(d, ensure_ascii=False, indent=2))
    return 0
