"""`chunkbench edit INPUT --strategy S (--merge N | --split N:WORD | --move N:WORDS | --list | --remove ID)`:
reviewers' boundary edits, stored in the workspace and applied by `chunkbench chunk --apply-edits`."""

from __future__ import annotations

import argparse
import sys

from . import add_input_options, add_set_option, load_input, strategy_chunks


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "edit", help="merge, split or move chunk boundaries as a reviewer; list or remove edits",
        description=(
            "Records a boundary edit of the chunks INPUT gets with the strategy and parameters given: "
            "--merge N joins chunk N to the chunk before it, --split N:W cuts chunk N before its W-th word, "
            "--move N:K moves the boundary where chunk N starts by K words (negative: earlier). Edits are "
            "anchored to the text (element, offset, the words around), so they apply under other parameters "
            "and after a re-parse; `chunkbench chunk --apply-edits` applies them."),
    )
    add_input_options(p)
    add_set_option(p)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--merge", type=int, metavar="N", help="merge chunk N into the chunk before it")
    what.add_argument("--split", metavar="N:W", help="split chunk N before its W-th word (W >= 2)")
    what.add_argument("--move", metavar="N:K", help="move the boundary where chunk N starts by K words (K < 0: earlier)")
    what.add_argument("--list", action="store_true", help="list the stored edits of this document and strategy")
    what.add_argument("--remove", type=int, metavar="ID", help="withdraw the edit with this id (see --list)")
    p.add_argument("--reviewer", default="", help="who makes the edit (and with --list: only theirs)")
    p.add_argument("--comment", default="", help="why, saved with the edit")
    p.add_argument("--workspace", default=None,
                   help="workspace database (default $CHUNKBENCH_WORKSPACE or ./.chunkbench/workspace.db)")
    p.set_defaults(func=run)


def _pair(value: str, option: str) -> tuple[int, int]:
    from chunkbench.errors import UsageError

    left, sep, right = value.partition(":")
    try:
        return int(left), int(right)
    except ValueError:
        raise UsageError(f"{option} expects N:K with two whole numbers, got {value!r}") from None


def run(args: argparse.Namespace) -> int:
    from chunkbench.app.chunking import add_edit, remove_edit, stored_edits
    from chunkbench.text.terminal import terminal_safe

    doc = load_input(args)
    if args.remove is not None:
        remove_edit(args.remove, args.workspace)
        print(f"removed edit {args.remove}")
        return 0
    if args.list:
        for e in stored_edits(doc, args.strategy, args.workspace, args.reviewer or None):
            where = terminal_safe((e.at.before[-20:] + "|" + e.at.after[:20]).replace("\n", " "))
            to = f" -> {terminal_safe(e.to.after[:20])!r}" if e.to else ""
            print(f"{e.id}\t{e.kind}\t{terminal_safe(e.reviewer or '(anonymous)')}\t{e.created_at[:19]}\t"
                  f"at {where!r}{to}")
        return 0
    chunkset = strategy_chunks(doc, args)  # the strategy's own chunks: edits are made on them
    if args.merge is not None:
        kind, index, word = "merge", args.merge, 0
    elif args.split is not None:
        kind, (index, word) = "split", _pair(args.split, "--split")
    else:
        kind, (index, word) = "move", _pair(args.move, "--move")
    edit = add_edit(chunkset, kind, index, word=word, reviewer=args.reviewer, comment=args.comment,
                    workspace=args.workspace)
    print(f"edit {edit.id}: {kind} of chunk {index} by {terminal_safe(edit.reviewer or '(anonymous)')} "
          f"({len(chunkset)} chunks with {chunkset.strategy}); `chunkbench chunk --apply-edits` applies it",
          file=sys.stdout)
    return 0
