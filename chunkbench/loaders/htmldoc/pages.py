"""An HTML file parsed into a tree, checked; and a folder of chunked HTML pages in reading order.

Parsing is libxml2's HTML parser through lxml: it repairs markup as browsers do, in linear time,
and refuses nesting deeper than 256 levels (reported here as an input error, never a silently
truncated tree)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lxml import etree

from chunkbench.errors import InputError
from chunkbench.runtime import env_number

#: HTML files larger than this are refused before parsing (the tree takes several times the file):
#: a manual's HTML is 0.1-2 MB, a whole book on one page some tens; CHUNKBENCH_MAX_HTML_BYTES overrides
MAX_HTML_BYTES = 64 * 1024 * 1024
MAX_HTML_ENV = "CHUNKBENCH_MAX_HTML_BYTES"
#: the most pages a folder's `rel=next` chain is followed through
MAX_PAGES = 10_000
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
#: libxml2 errors that repair no markup: an id used twice (Sphinx's one-page build repeats anchors)
_NOT_MARKUP = frozenset({"DTD_ID_REDEFINED"})


@dataclass(frozen=True)
class HtmlPage:
    """One parsed HTML file: its tree, its generator (from `<meta name="generator">`), and the first
    markup error libxml2 repaired (None when it repaired none)."""

    path: Path
    root: etree._Element
    generator: str
    repaired: str | None


def read_page(path: Path) -> tuple[HtmlPage, bytes]:
    """The page at `path` parsed, and its bytes; its size checked before it is read."""
    from chunkbench.loaders.textfile import read_bytes

    limit = env_number(MAX_HTML_ENV, MAX_HTML_BYTES, whole=True, minimum=1, unit=" (bytes)")
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # the read below says what is wrong
    if size > limit:
        raise InputError(f"{size:,} bytes of HTML, above the HTML bound of {limit:,} "
                         f"(set {MAX_HTML_ENV} to read larger files)", path)
    data = read_bytes(path)
    return parse_page(path, data), data


def parse_page(path: Path, data: bytes) -> HtmlPage:
    """`data` (the bytes of `path`) as an HTML tree; an InputError naming the file when it is nested
    too deep or holds no HTML at all."""
    encoding = None
    try:
        data.decode("utf-8")
        encoding = "utf-8"  # valid UTF-8: read as such whatever the page declares (libxml2 guesses Latin-1)
    except UnicodeDecodeError:
        pass  # another encoding: libxml2 reads the BOM or the declared charset
    parser = etree.HTMLParser(encoding=encoding, no_network=True, remove_comments=True, remove_pis=True,
                              default_doctype=False)
    try:
        root = etree.fromstring(data, parser) if data.strip() else None
    except (etree.ParserError, ValueError) as exc:
        raise InputError(f"not HTML: {exc}", path) from None
    if any("depth" in e.message.lower() for e in parser.error_log):
        raise InputError("HTML nested deeper than 256 elements (libxml2's bound); not read", path)
    if root is None:
        raise InputError("not HTML: no markup and no text", path)
    repaired = next((f"line {e.line}: {e.message.strip()}" for e in parser.error_log
                     if e.level_name in ("ERROR", "FATAL") and e.type_name not in _NOT_MARKUP), None)
    meta = root.find(".//meta[@name='generator']")
    if meta is None:
        meta = root.find(".//meta[@name='Generator']")
    generator = (meta.get("content") or "").strip() if meta is not None else ""
    return HtmlPage(path, root, _generator_name(generator, root), repaired)


def _generator_name(meta: str, root: etree._Element) -> str:
    """Which tool wrote the page, for the parser record: texinfo, sphinx, docbook-xsl, pandoc, or the
    generator as it names itself ("" when it does not)."""
    low = meta.lower()
    for key, name in (("texi2any", "texinfo"), ("texinfo", "texinfo"), ("docbook", "docbook-xsl"),
                      ("pandoc", "pandoc"), ("sphinx", "sphinx"), ("docutils", "sphinx")):
        if key in low:
            return name
    if root.find(".//div[@class='sphinxsidebar']") is not None:
        return "sphinx"
    return meta[:80]


def first_page(folder: Path) -> tuple[Path, list[Path]]:
    """Where a folder of HTML pages starts (its `index.html`, else its only HTML file) and all its
    HTML files."""
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in HTML_SUFFIXES and p.is_file())
    if not files:
        raise InputError("no .html file in this folder", folder)
    start = folder / "index.html"
    if start.is_file():
        return start, files
    if len(files) > 1:
        raise InputError("a folder of HTML pages needs an index.html to start its reading order from", folder)
    return files[0], files


def next_page(page: HtmlPage, top: Path) -> Path | None:
    """The page `page` names as the next one (`<link rel="next">`, else `<a rel="next">`), when it
    is an HTML file inside the folder `top` (no scheme, no absolute path, no way out through `..`
    or a symbolic link) other than itself."""
    for tag in ("link", "a"):
        for link in page.root.iter(tag):
            if "next" not in (link.get("rel") or "").lower().split():
                continue
            target = _local_target(link.get("href") or "", page.path.parent, top)
            if target is not None and target.resolve() != page.path.resolve():
                return target
    return None


def _local_target(href: str, base: Path, top: Path) -> Path | None:
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path or parts.path.startswith("/"):
        return None
    target = base / unquote(parts.path)
    try:
        resolved = target.resolve()
    except OSError:
        return None
    if not resolved.is_relative_to(top) or resolved.suffix.lower() not in HTML_SUFFIXES or not resolved.is_file():
        return None
    return target
