"""The authored content of the sample PDFs: one module per document, HTML + CSS + questions.

Every text here is original, written for this project (see sample_pdfs/README.md). The
documents are rendered by `chunkbench.samples.build`; this package only holds what they say.
"""

from __future__ import annotations

from .kinds import Question, Sample

__all__ = ["Question", "Sample", "all_samples"]


def all_samples() -> tuple[Sample, ...]:
    """The four sample documents, in a fixed order."""
    from . import annual_report, contract, manual, rfp

    return (contract.SAMPLE, annual_report.SAMPLE, rfp.SAMPLE, manual.SAMPLE)
