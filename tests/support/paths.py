"""Where the test inputs live: the clone, ../shared beside it, and the folders `make` fills;
each lookup skips its test, naming the path, when the input is not there."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


SHARED = ROOT.parent / "shared"


SHARED_PDFS = SHARED / "pdfs"


MINERU_FIXTURES = SHARED / "fixtures" / "mineru"


SAMPLE_PDFS = ROOT / "sample_pdfs"
#: the tests' own inputs (tests/data) and stand-ins (tests/fake_mineru), wherever a test file lies
TEST_DATA = ROOT / "tests" / "data"
FAKE_MINERU = ROOT / "tests" / "fake_mineru"


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


def without_page(pdf: Path, page: int, folder: Path) -> Path:
    """A second version of `pdf` under the same name in `folder`, its 1-based page `page` removed."""
    import pymupdf

    out = folder / pdf.name
    folder.mkdir(parents=True, exist_ok=True)
    with pymupdf.open(pdf) as doc:
        doc.delete_page(page - 1)
        doc.save(out)
    return out
