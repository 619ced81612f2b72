"""Benchmark inputs made from what is installed: a ~5 MB English corpus, Documents, element streams.

The corpus is real English prose from documentation shipped with installed software (Python's
own reference topics, package descriptions and READMEs in site-packages, Debian READMEs and
NEWS files), paragraph-deduplicated so nothing repeats, in a fixed order (deterministic).
"""

from __future__ import annotations

import functools
import glob
import gzip
import hashlib
import os
import random
import sysconfig

from chunkbench.types.document import Document, Element, Page, ParserInfo, with_offsets

PAGE_CHARS = 3000  # characters per synthetic page (about one printed page)


def _sources() -> list[str]:
    """Candidate files, in a fixed order: site-packages docs first, then Debian docs."""
    site = sysconfig.get_paths()["purelib"]
    files = sorted(glob.glob(os.path.join(site, "*.dist-info", "METADATA")))
    for pattern in ("**/*.md", "**/*.rst", "**/*.txt"):
        files += sorted(glob.glob(os.path.join(site, pattern), recursive=True))
    for pattern in ("*/README*", "*/NEWS*", "*/*.txt*", "*/changelog.gz"):
        files += sorted(glob.glob(os.path.join("/usr/share/doc", pattern)))
    return files


def _read(path: str) -> str:
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                return fh.read()
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError, EOFError):
        return ""


#: the longest paragraph taken: a parser's paragraph element is at most a few pages, while some
#: installed files are one 228k-character "paragraph" with no blank line. Drawn into a stream at
#: random, one such block is in the 16× stream and not in the 1× one, so the streams would not
#: have the same make-up per element that the scaling benchmark compares
MAX_PARAGRAPH_CHARS = 20_000


def _prose(paragraph: str) -> bool:
    """Mostly letters and spaces, no giant tokens (embedded images, hashes, minified code), no
    giant blocks (MAX_PARAGRAPH_CHARS)."""
    if not 40 <= len(paragraph) <= MAX_PARAGRAPH_CHARS or max(map(len, paragraph.split()), default=0) > 80:
        return False
    letters = sum(c.isascii() and (c.isalpha() or c.isspace()) for c in paragraph)
    return letters / len(paragraph) > 0.75


@functools.lru_cache(maxsize=4)
def english_paragraphs(target_bytes: int = 5_000_000) -> tuple[str, ...]:
    """Distinct English paragraphs totalling at least `target_bytes` UTF-8 bytes (if installed docs allow)."""
    out: list[str] = []
    seen: set[bytes] = set()
    total = 0
    try:
        import pydoc_data.topics as topics  # Python's language reference, as plain text

        texts = [topics.topics[k] for k in sorted(topics.topics)]
    except ImportError:
        texts = []
    for text in _iter_texts(texts):
        for para in text.replace("\r\n", "\n").split("\n\n"):
            para = para.strip()
            if not _prose(para):
                continue
            key = hashlib.sha1(para.encode("utf-8")).digest()
            if key in seen:
                continue
            seen.add(key)
            out.append(para)
            total += len(para.encode("utf-8")) + 2
            if total >= target_bytes:
                return tuple(out)
    return tuple(out)


def _iter_texts(first: list[str]):
    yield from first
    for f in _sources():
        yield _read(f)


def english_text(target_bytes: int = 5_000_000) -> str:
    return "\n\n".join(english_paragraphs(target_bytes))


def corpus_document(paragraphs: tuple[str, ...], name: str = "corpus") -> Document:
    """A Document with one paragraph element per corpus paragraph, pages every ~PAGE_CHARS, bboxes."""
    elements = []
    page = used = 0
    y = 50.0
    for n, para in enumerate(paragraphs):
        if used > PAGE_CHARS:
            page, used, y = page + 1, 0, 50.0
        height = 12.0 * (1 + len(para) // 90)
        elements.append(Element(f"p{page}-e{n}", "paragraph", para, page, (50.0, y, 545.0, y + height)))
        used += len(para)
        y += height + 6
    pages = tuple(Page(i, 595.0, 842.0) for i in range(page + 1))
    doc_id = hashlib.sha256("\n\n".join(paragraphs).encode("utf-8")).hexdigest()
    return Document(doc_id, name, pages, with_offsets(elements), ParserInfo("benchmark"))


def synthetic_document(n_elements: int, seed: int = 7) -> Document:
    """A parser-like element stream: headings with levels, paragraphs, tables, lists, page furniture.

    Text is drawn at random from the English corpus, so streams of any length have the same
    make-up per element (what the scaling benchmark needs); the same arguments give the same Document."""
    rng = random.Random(seed)
    paras = english_paragraphs()
    elements = []
    page, on_page = 0, 0

    def take() -> str:
        return paras[rng.randrange(len(paras))]

    for n in range(n_elements):
        if on_page >= 16:
            page, on_page = page + 1, 0
        y = 40.0 + 48 * on_page
        box = (50.0, y, 545.0, y + 40)
        roll = rng.random()
        eid = f"p{page}-e{n}"
        if on_page == 0:
            el = Element(eid, "header", f"Synthetic report — page {page + 1}", page, box)
        elif roll < 0.08:
            words = take().split()[:6]
            el = Element(eid, "heading", f"{rng.randint(1, 20)}. " + " ".join(words).title(), page, box,
                         text_level=rng.choice((1, 2, 2, 3)))
        elif roll < 0.14:
            words = take().split()
            rows = tuple(tuple(words[i:i + 4]) for i in range(0, min(len(words), 40) - 3, 4))
            text = "\n".join("| " + " | ".join(r) + " |" for r in rows) or "| empty |"
            el = Element(eid, "table", text, page, box, rows=rows)
        elif roll < 0.22:
            items = [f"{i + 1}. {s.strip()}" for i, s in enumerate(take().split(". ")[:8]) if s.strip()]
            el = Element(eid, "list", "\n".join(items), page, box)
        else:
            el = Element(eid, "paragraph", take(), page, box)
        elements.append(el)
        on_page += 1
    pages = tuple(Page(i, 595.0, 842.0) for i in range(page + 1))
    return Document(hashlib.sha256(f"synthetic {n_elements} {seed}".encode()).hexdigest(),
                    f"synthetic-{n_elements}", pages, with_offsets(elements), ParserInfo("benchmark"))


def repeated_document(doc: Document, times: int) -> Document:
    """`doc`'s elements `times` times in a row (ids and pages renumbered): a stream with a real
    parser's make-up at any length, for the scaling benchmark."""
    import dataclasses

    if times == 1:
        return doc
    n_pages = max(1, len(doc.pages))
    elements = [dataclasses.replace(e, id=f"r{k}-{e.id}",
                                    page_idx=None if e.page_idx is None else e.page_idx + k * n_pages,
                                    page_end_idx=None if e.page_end_idx is None else e.page_end_idx + k * n_pages,
                                    attrs={key: v for key, v in e.attrs.items() if key != "segments"})
                for k in range(times) for e in doc.elements]
    pages = tuple(dataclasses.replace(p, index=p.index + k * n_pages) for k in range(times) for p in doc.pages)
    return Document(hashlib.sha256(f"{doc.doc_id} x{times}".encode()).hexdigest(), f"{doc.source} x{times}", pages,
                    with_offsets(elements), doc.parser)
