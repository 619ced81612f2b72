"""Shared test fixtures: where ../shared lives, and one parse cache for the whole test session."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
SHARED_PDFS = SHARED / "pdfs"
MINERU_FIXTURES = SHARED / "fixtures" / "mineru"
SAMPLE_PDFS = ROOT / "sample_pdfs"

# One parse cache for every test (and xdist worker): real PDFs are parsed once per clone.
os.environ.setdefault("CHUNKBENCH_CACHE_DIR", str(ROOT / ".cache" / "test-parse"))


def shared_pdf(name: str) -> Path:
    """Path of a PDF in ../shared/pdfs, skipping the test when shared/ is not beside the repo."""
    path = SHARED_PDFS / name
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty parse cache private to one test."""
    monkeypatch.setenv("CHUNKBENCH_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"
