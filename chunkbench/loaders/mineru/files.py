"""Where MinerU output is: the content_list (2.x-4.x) or MinerU 4 middle JSON / structured_content
of a folder (MinerU's parse sub-folders, one level down) or zip, the document name, and files
beside it (the PDF, `_middle.json`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from chunkbench.errors import InputError

V1_SUFFIX = "_content_list.json"


V2_SUFFIX = "_content_list_v2.json"


#: MinerU 4's file names inside its zip (and the folder it is extracted to), in order of preference
MINERU4_FILES = ("middle_json.json", "structured_content.json")


#: largest JSON member read from a MinerU zip (uncompressed): far above any real parse (~150 kB/page)
MAX_ZIP_MEMBER_BYTES = 1 << 30


#: sub-folders MinerU writes a document's output to: pipeline `{method}`, `vlm`, `hybrid_{method}`
PARSE_DIRS = ("auto", "vlm", "hybrid_auto", "txt", "ocr", "hybrid_txt", "hybrid_ocr", "office")


def document_name(file: Path) -> str:
    """MinerU's document name: the content_list file name without its suffix; for MinerU 4's fixed
    names, the folder (or zip) they are in."""
    for suffix in (V2_SUFFIX, V1_SUFFIX):
        if file.name.endswith(suffix) and len(file.name) > len(suffix):
            return file.name[: -len(suffix)]
    if file.name in MINERU4_FILES:
        return file.parent.name
    return file.stem


def find_content_list(folder: str | os.PathLike) -> Path:
    """The one MinerU output file of a folder: a content_list (v1 preferred over v2), else MinerU 4's
    middle_json.json, else its structured_content.json; InputError when none or several documents."""
    root = Path(folder)
    found: dict[tuple[Path, str], Path] = {}
    for d in _candidate_dirs(root):
        lists: dict[tuple[Path, str], Path] = {}
        for suffix in (V2_SUFFIX, V1_SUFFIX):  # v1 second, so it replaces v2 of the same document
            for f in sorted(d.glob(f"*{suffix}")):
                if f.is_file():
                    lists[(d, document_name(f))] = f
        # a content_list beside MinerU 4's files was rendered from them: one document, read the list
        mineru4 = next((d / name for name in MINERU4_FILES if (d / name).is_file()), None)
        found.update(lists or ({(d, d.name): mineru4} if mineru4 else {}))
    if not found:
        _not_a_mineru_folder(root)
        looked = ", ".join(["."] + [f"{d}/" for d in PARSE_DIRS[:3]] + ["*/…"])
        raise InputError(
            f"no MinerU *{V1_SUFFIX}, *{V2_SUFFIX}, {' or '.join(MINERU4_FILES)} found (looked in {looked})", root
        )
    if len(found) > 1:
        names = ", ".join(sorted(os.fspath(f.relative_to(root)) for f in found.values()))
        raise InputError(f"several MinerU outputs found ({names}); pass one file", root)
    return next(iter(found.values()))


def _not_a_mineru_folder(root: Path) -> None:
    """A folder of documents given where one input belongs: say so, and what takes folders."""
    kinds = (".pdf", ".md", ".markdown", ".txt", ".json", ".zip")
    try:
        documents = sorted(p.name for p in root.iterdir() if p.is_file() and p.suffix.lower() in kinds)
    except OSError:
        return
    if documents:
        shown = ", ".join(documents[:3]) + (" …" if len(documents) > 3 else "")
        raise InputError(
            f"a folder of {len(documents)} document(s) ({shown}), not MinerU output: pass one file "
            "(e.g. FOLDER/x.pdf), or several to `chunkbench sweep`; `chunkbench evaluate` takes a folder",
            root,
        )


def read_zip_member(zip_path: Path) -> tuple[bytes, str]:
    """(bytes, member name) of the MinerU 4 JSON inside a `mineru-kit -f zip` archive.

    The member is found at the top or one folder down; its declared and actual sizes are bounded,
    so a zip bomb is refused instead of filling memory.
    """
    import zipfile

    try:
        with zipfile.ZipFile(zip_path) as archive:
            members = {info.filename: info for info in archive.infolist() if not info.is_dir()}
            for wanted in MINERU4_FILES:
                candidates = sorted(
                    n for n in members if n == wanted or (n.endswith("/" + wanted) and n.count("/") == 1)
                )
                if not candidates:
                    continue
                if len(candidates) > 1:
                    raise InputError(f"several {wanted} in the zip ({', '.join(candidates)})", zip_path)
                info = members[candidates[0]]
                if info.file_size > MAX_ZIP_MEMBER_BYTES:
                    raise InputError(f"{info.filename} is {info.file_size:,} bytes uncompressed: too large", zip_path)
                with archive.open(info) as fh:
                    data = fh.read(MAX_ZIP_MEMBER_BYTES + 1)
                if len(data) > MAX_ZIP_MEMBER_BYTES:
                    raise InputError(f"{info.filename} is larger than it declares: refused", zip_path)
                return data, info.filename
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as exc:
        raise InputError(f"not a readable zip: {exc}", zip_path) from None
    except OSError as exc:
        raise InputError(f"cannot read zip: {exc.strerror or exc}", zip_path) from None
    raise InputError(f"not a MinerU 4 zip: no {' or '.join(MINERU4_FILES)} inside", zip_path)


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
