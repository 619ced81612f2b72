"""Where MinerU output is: the content_list of a folder (MinerU's parse sub-folders, one level
down), the document name, and files beside it (the PDF, `_middle.json`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from chunkbench.errors import InputError

V1_SUFFIX = "_content_list.json"


V2_SUFFIX = "_content_list_v2.json"


#: sub-folders MinerU writes a document's output to: pipeline `{method}`, `vlm`, `hybrid_{method}`
PARSE_DIRS = ("auto", "vlm", "hybrid_auto", "txt", "ocr", "hybrid_txt", "hybrid_ocr", "office")


def document_name(file: Path) -> str:
    """MinerU's document name: the content_list file name without its suffix."""
    for suffix in (V2_SUFFIX, V1_SUFFIX):
        if file.name.endswith(suffix) and len(file.name) > len(suffix):
            return file.name[: -len(suffix)]
    return file.stem


def find_content_list(folder: str | os.PathLike) -> Path:
    """The one content_list in a MinerU output folder (v1 preferred over v2); InputError otherwise."""
    root = Path(folder)
    found: dict[tuple[Path, str], Path] = {}
    for d in _candidate_dirs(root):
        for suffix in (V2_SUFFIX, V1_SUFFIX):  # v1 second, so it replaces v2 of the same document
            for f in sorted(d.glob(f"*{suffix}")):
                if f.is_file():
                    found[(d, document_name(f))] = f
    if not found:
        looked = ", ".join(["."] + [f"{d}/" for d in PARSE_DIRS[:3]] + ["*/…"])
        raise InputError(f"no MinerU *{V1_SUFFIX} or *{V2_SUFFIX} found (looked in {looked})", root)
    if len(found) > 1:
        names = ", ".join(sorted(os.fspath(f.relative_to(root)) for f in found.values()))
        raise InputError(f"several MinerU outputs found ({names}); pass one content_list file", root)
    return next(iter(found.values()))


def _candidate_dirs(root: Path) -> Iterator[Path]:
    """`root`, its parse folders, and the same one level down (`{out}/{name}/auto/`)."""
    yield root
    yield from (root / d for d in PARSE_DIRS if (root / d).is_dir())
    for child in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in PARSE_DIRS):
        yield child
        yield from (child / d for d in PARSE_DIRS if (child / d).is_dir())


def find_beside(file: Path, names: tuple[str, ...]) -> Path | None:
    """First of `names` found in the file's folder, then in its parent (`{name}/` above `auto/`)."""
    for folder in (file.parent, file.parent.parent):
        for name in names:
            if (folder / name).is_file():
                return folder / name
    return None
