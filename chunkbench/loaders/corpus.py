"""Parsing a corpus: many PDFs (a folder, a glob, a list) on this machine's cores or on a Dask
cluster, with progress, a failure recorded per file, and a run that can resume.

Each file is parsed by `load` where the work runs (a worker process of a LocalCluster, or a worker
of a `dask.distributed` scheduler on other machines) and its Document comes back to the client,
which writes what is asked (one elements.json per file) and puts it into this machine's parse
cache when the worker parsed with the same versions and options (then `load` here finds it: a
sweep or an evaluation over the corpus parses nothing again). Workers on this machine share the
parse cache anyway. The manifest (`corpus.jsonl` in the output folder, one line per file finished,
appended as it finishes) makes a run resumable: a file already done, unchanged since, is skipped.
"""

from __future__ import annotations

import glob
import json
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from chunkbench.errors import InputError, UsageError

from .settle import settle
from .split_pdf import SPLIT_PAGES, SplitParse, parse_range_task, plan_split

#: the manifest of a corpus parse in its output folder
MANIFEST = "corpus.jsonl"
#: file types a folder of a corpus is searched for
CORPUS_SUFFIXES = (".pdf",)


@dataclass(frozen=True)
class FileResult:
    """How one file of a corpus went: ok or the error, seconds, pages and elements, its output."""

    file: str
    status: str
    error: str | None = None
    seconds: float = 0.0
    pages: int = 0
    elements: int = 0
    output: str | None = None
    size: int = 0
    mtime_ns: int = 0
    skipped: bool = False


def is_pattern(item: str) -> bool:
    return any(ch in item for ch in "*?[")


def expand_inputs(items: Sequence[str | os.PathLike]) -> list[str]:
    """The files a corpus names: each file as given, each glob pattern's matches (`**` recurses),
    each folder's PDFs (recursively); sorted within each item, duplicates dropped, order kept.
    InputError naming the item when one matches nothing."""
    out: list[str] = []
    for item in items:
        text = os.fspath(item)
        if is_pattern(text):
            found = sorted(p for p in glob.glob(text, recursive=True) if os.path.isfile(p))
        elif os.path.isdir(text):
            found = sorted(str(p) for p in Path(text).rglob("*") if p.is_file() and p.suffix.lower() in CORPUS_SUFFIXES)
        elif os.path.isfile(text):
            found = [text]
        else:
            raise InputError("no such file or folder", text)
        if not found:
            raise InputError("matches no PDF" if not is_pattern(text) else "the pattern matches no file", text)
        out.extend(found)
    return list(dict.fromkeys(os.path.abspath(p) for p in out))


def is_mineru_folder(folder: str | os.PathLike) -> bool:
    """A folder MinerU wrote (any of its output files inside): one document, not a corpus of PDFs."""
    from .mineru.files import MINERU4_FILES, V1_SUFFIX, V2_SUFFIX

    return any(p.name.endswith((V1_SUFFIX, V2_SUFFIX, "_middle.json")) or p.name in MINERU4_FILES
               for p in Path(folder).rglob("*.json"))


def is_corpus_item(item: str | os.PathLike) -> bool:
    """A glob pattern, or a folder that is not MinerU output: names many PDFs."""
    text = os.fspath(item)
    return is_pattern(text) or (os.path.isdir(text) and not is_mineru_folder(text))


def expand_corpus_items(items: Sequence[str | os.PathLike]) -> list[str]:
    """`items` with each glob pattern and each folder of PDFs replaced by the files it names
    (expand_inputs); every other input (a file, MinerU output) kept as given."""
    out: list[str] = []
    for item in items:
        out.extend(expand_inputs([item]) if is_corpus_item(item) else [os.fspath(item)])
    return list(dict.fromkeys(out))


def parse_file(path: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Parse one file where this runs (a Dask task): {"ok", "doc" (Document dict) | "error",
    "seconds"}. A PDF is parsed as the parse cache holds it (PyMuPDF, one process: the cluster
    spreads the files), before it is settled (`loaders.settle`); other inputs as `load` gives them. Never
    raises for a bad file: the error is the result."""
    started = time.monotonic()
    opts = dict(options or {})
    threads = opts.pop("model_threads", None)
    try:
        if path.lower().endswith(".pdf") and opts.get("backend", "pymupdf") == "pymupdf":
            from .pdf import load_pdf

            if threads:  # workers parsing files side by side: one thread each (pdf_layout.limit_model_threads)
                from .pdf_layout import limit_model_threads

                limit_model_threads(threads)

            doc = load_pdf(path, password=opts.get("password"), cache=opts.get("cache", True), progress=False,
                           workers=1, page_timeout=opts.get("page_timeout"))
        else:
            from chunkbench.loaders import load

            doc = load(path, progress=False, **opts)
        return {"ok": True, "doc": doc.to_dict(), "seconds": time.monotonic() - started}
    except Exception as exc:  # noqa: BLE001 - one broken file must not end a corpus run
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "seconds": time.monotonic() - started}


def read_manifest(out_dir: str | os.PathLike) -> dict[str, dict]:
    """file → its last manifest line (later lines win: a file retried)."""
    path = Path(out_dir) / MANIFEST
    if not path.is_file():
        return {}
    done: dict[str, dict] = {}
    for line in path.read_bytes().decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
            done[str(entry["file"])] = entry
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by a killed run (or bytes a crash left): that file is parsed again
    return done


def _end_torn_line(path: Path) -> None:
    """End the manifest's last line when a killed run left it cut short, so the next line appended
    is a line of its own (and not lost with the torn one)."""
    try:
        with open(path, "rb+") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size:
                fh.seek(size - 1)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
    except FileNotFoundError:
        pass


def _unchanged(entry: dict, path: str) -> bool:
    st = os.stat(path)
    return entry.get("status") == "ok" and entry.get("size") == st.st_size and entry.get("mtime_ns") == st.st_mtime_ns \
        and (not entry.get("output") or os.path.isfile(entry["output"]))


def output_names(files: Sequence[str]) -> dict[str, str]:
    """file → `<stem>.elements.json`, numbered when two files share a stem."""
    names: dict[str, str] = {}
    used: set[str] = set()
    for f in files:
        stem = Path(f).stem
        name, n = f"{stem}.elements.json", 2
        while name in used:
            name, n = f"{stem}-{n}.elements.json", n + 1
        used.add(name)
        names[f] = name
    return names


def parse_corpus(inputs: Sequence[str | os.PathLike], out_dir: str | os.PathLike | None = None, *,
                 workers: int | None = None, dask: str | None = None, resume: bool = True,
                 progress: bool = True, options: dict[str, Any] | None = None,
                 on_document: Callable[[str, Any], None] | None = None,
                 split_pages: int | None = None) -> list[FileResult]:
    """Parse every file of `inputs` (see expand_inputs) on `workers` local processes (a Dask
    LocalCluster; 1: in this process) or on the Dask scheduler at `dask`; returns one FileResult
    per file, in input order. With `out_dir`: each Document is written there as
    `<stem>.elements.json` and the manifest records each file as it finishes (see the module
    docstring; `resume=False` parses everything again). `on_document(file, Document)` is called in
    this process for each file parsed. Every parse lands in this machine's cache when its
    versions match. On a scheduler's workers (`dask`), a PDF of more than `split_pages` pages
    (default SPLIT_PAGES) is parsed as page ranges across them (`split_pdf`), not by one alone; local
    workers split only when `split_pages` is given (on two cores it gained nothing: one worker's
    parse already keeps both busy through the model's threads)."""
    from chunkbench.io.atomic import write_json
    from chunkbench.io.progress import progress as progress_bar
    from chunkbench.types.document import Document

    if workers is not None and workers < 1:
        raise UsageError("--workers must be at least 1")
    files = expand_inputs(inputs)
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    names = output_names(files)
    done = read_manifest(out) if (out is not None and resume) else {}
    if out is not None:
        _end_torn_line(out / MANIFEST)
    results: dict[str, FileResult] = {}
    todo = []
    for f in files:
        entry = done.get(f)
        if entry is not None and _unchanged(entry, f):
            results[f] = _from_manifest(entry)
        else:
            todo.append(f)

    def finish(f: str, answer: dict) -> None:
        st = os.stat(f)
        if answer.get("ok"):
            doc = _here(Document.from_dict(answer["doc"]), f)
            if f.lower().endswith(".pdf") and (options or {}).get("backend", "pymupdf") == "pymupdf":
                prime_cache(f, doc)  # the parse as cached; then settled as `load` settles it
                doc = settle(doc, stitch_tables=(options or {}).get("stitch_tables", True))
            target = None
            if out is not None:
                target = str(out / names[f])
                write_json(Path(target), doc.to_dict())
            if on_document is not None:
                on_document(f, doc)
            result = FileResult(f, "ok", None, round(answer["seconds"], 3), len(doc.pages), len(doc.elements), target,
                                st.st_size, st.st_mtime_ns)
        else:
            result = FileResult(f, "failed", answer.get("error"), round(answer.get("seconds", 0.0), 3),
                                size=st.st_size, mtime_ns=st.st_mtime_ns)
        results[f] = result
        if out is not None:
            with open(out / MANIFEST, "a", encoding="utf-8") as fh:  # one line per file, as it finishes
                fh.write(json.dumps({k: v for k, v in asdict(result).items() if k != "skipped"}) + "\n")

    with progress_bar(len(files), "parse", "file", enabled=None if progress else False) as bar:
        bar.update(len(files) - len(todo))
        for f, answer in _run(todo, workers, dask, options, split_pages):
            finish(f, answer)
            bar.update(1)
    return [results[f] for f in files]


def _from_manifest(entry: dict) -> FileResult:
    """The FileResult of a file done in an earlier run (skipped in this one)."""
    fields: dict[str, Any] = {k: entry[k] for k in FileResult.__dataclass_fields__ if k in entry}
    return FileResult(**{**fields, "skipped": True})


def warm_cache(paths: Sequence[str | os.PathLike], *, workers: int | None = None, dask: str | None = None,
               progress: bool = True) -> list[FileResult]:
    """Parse the PDFs among `paths` that this machine's cache lacks, on `workers` local processes
    or the cluster at `dask`, so that `load` here finds every one (a sweep or an evaluation over a
    corpus). A file that fails is left for `load` to report as it always does."""
    from .pdf import is_cached

    todo = []
    for p in paths:
        text = os.fspath(p)
        try:
            if text.lower().endswith(".pdf") and os.path.isfile(text) and not is_cached(text):
                todo.append(text)
        except OSError:
            continue
    if not todo:
        return []
    return parse_corpus(todo, None, workers=min(workers or 1, len(todo)) if dask is None else None, dask=dask,
                        progress=progress)


def _here(doc, path: str):
    """A Document parsed elsewhere, pointed at the file as this machine sees it."""
    import dataclasses

    return dataclasses.replace(doc, source=Path(path).name,
                               pdf_path=path if path.lower().endswith(".pdf") and doc.pdf_path else doc.pdf_path)


def prime_cache(path: str, doc) -> bool:
    """Put a Document parsed elsewhere into this machine's parse cache, when `load(path)` here
    would have made the same parse (same parser, versions and options); True when stored."""
    if not path.lower().endswith(".pdf"):
        return False
    from .pdf import cache_entry_for

    key = cache_entry_for(path, doc)
    if key is None or key.is_cached():
        return False
    from .cache import store

    store(key, doc)
    return True


def _run(files: Sequence[str], workers: int | None, dask: str | None,
         options: dict[str, Any] | None, split_pages: int | None = None) -> Iterable[tuple[str, dict]]:
    """(file, parse_file answer) as each finishes: in this process, or on a Dask cluster, where a
    PDF of more than `split_pages` pages (default: SPLIT_PAGES on a scheduler's workers, none on local
    ones) is parsed as page ranges across the workers (split_pdf)."""
    if not files:
        return
    if dask is None and (workers or 1) == 1:
        for f in files:
            yield f, parse_file(f, options)
        return
    client, cluster = _connect(dask, workers)
    try:
        split_at = split_pages if split_pages is not None else (SPLIT_PAGES if dask is not None else None)
        futures, splits = _submit(client, files, options or {}, split_at)
        yield from _answers(futures, splits)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _connect(dask: str | None, workers: int | None) -> tuple[Any, Any]:
    """A Dask client of the scheduler at `dask`, or of a local cluster of `workers` processes made
    here (returned too, to be closed)."""
    from distributed import Client, LocalCluster

    if dask is not None:
        try:
            return Client(dask, timeout="20s"), None
        except (OSError, TimeoutError) as exc:
            raise UsageError(f"cannot connect to the Dask scheduler at {dask}: {exc}") from None
    # one single-threaded process per worker: the layout model is CPU-bound and holds the GIL
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    try:
        return Client(cluster), cluster
    except BaseException:
        cluster.close()
        raise


def _submit(client: Any, files: Sequence[str], options: dict[str, Any],
            split_at: int | None) -> tuple[dict, dict[str, SplitParse]]:
    """Every file's parse submitted: whole, or (longer than `split_at` pages) as page ranges.
    Returns future -> (file, its range's number when split, else None), and the split files."""
    # every worker parses whole files side by side with the others: one model thread each
    worker_options = {**options, "model_threads": 1}
    futures: dict = {}
    splits: dict[str, SplitParse] = {}
    for i, f in enumerate(files):
        split = plan_split(f, options, split_at) if split_at is not None else None
        if split is None:
            futures[client.submit(parse_file, f, worker_options, pure=False,
                                  key=f"chunkbench-parse-{i}-{time.time_ns()}")] = (f, None)
            continue
        splits[f] = split
        for k, (first, stop) in enumerate(split.ranges):
            futures[client.submit(parse_range_task, split.path, split.password, first, stop, split.ocr_engine is not None,
                                  pure=False, key=f"chunkbench-pages-{i}-{k}-{time.time_ns()}")] = (f, k)
    return futures, splits


def _answers(futures: dict, splits: dict[str, SplitParse]) -> Iterable[tuple[str, dict]]:
    """(file, parse_file answer) as each file is done: a split file once all its ranges are in, or
    at its first range that failed."""
    from distributed import as_completed

    for fut in as_completed(list(futures)):
        f, part = futures.pop(fut)
        try:
            answer = fut.result()
        except Exception as exc:  # noqa: BLE001 - a worker lost mid-task: that file failed
            answer = {"ok": False, "error": f"worker failed: {type(exc).__name__}: {exc}", "seconds": 0.0}
        # the cluster lets the Document go once this process has it (it is written as it arrives):
        # a corpus's finished parses are not held on the workers until the run ends
        fut.release()
        if part is None:
            yield f, answer
            continue
        split = splits.get(f)
        if split is None:
            continue  # another range of this file failed already: the file was reported
        if not answer["ok"]:
            del splits[f]
            yield f, {**answer, "error": f"pages {split.ranges[part][0] + 1}-{split.ranges[part][1]}: {answer['error']}"}
            continue
        split.done[part] = answer
        if split.complete():
            del splits[f]
            yield f, split.answer()
