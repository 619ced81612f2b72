"""The bundled sample PDFs: rebuilt byte-identically by their generator, and covering the seed domains."""

from __future__ import annotations

import json

import pytest

import chunkbench
from chunkbench.samples.build import main as build_samples
from tests.support.paths import SAMPLE_PDFS

NAMES = ("contract_services_agreement", "financial_annual_report", "rfp_it_services", "technical_manual")


def test_every_sample_is_committed_with_its_questions():
    for name in NAMES:
        assert (SAMPLE_PDFS / f"{name}.pdf").is_file(), name
        questions = json.loads((SAMPLE_PDFS / f"{name}.questions.json").read_text("utf-8"))
        assert len(questions) >= 8
        assert all({"id", "question", "evidence_page", "evidence_text"} <= set(q) for q in questions)


def test_generator_rebuilds_the_committed_files_byte_for_byte(tmp_path):
    assert build_samples([str(tmp_path)]) in (0, None)
    for name in NAMES:
        for suffix in (".pdf", ".questions.json"):
            rebuilt = (tmp_path / f"{name}{suffix}").read_bytes()
            assert rebuilt == (SAMPLE_PDFS / f"{name}{suffix}").read_bytes(), f"{name}{suffix} differs"


def _texts(doc, kind):
    return [e.text for e in doc.elements if e.type == kind]


def test_contract_has_numbered_clauses_definitions_schedule_and_table():
    doc = chunkbench.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    headings = " | ".join(_texts(doc, "heading"))
    assert "definitions" in headings.lower() and "schedule" in headings.lower()
    assert _texts(doc, "table")
    assert any(t.lstrip().startswith(("1.1", "2.1")) for t in _texts(doc, "paragraph") + _texts(doc, "list"))


def test_financial_report_has_a_table_on_both_sides_of_a_page_break():
    doc = chunkbench.load(SAMPLE_PDFS / "financial_annual_report.pdf")
    table_pages = sorted({e.page_idx for e in doc.elements if e.type == "table"})
    assert any(b == a + 1 for a, b in zip(table_pages, table_pages[1:]))
    assert _texts(doc, "list") and len({e.text_level for e in doc.elements if e.type == "heading"}) >= 2


def test_rfp_has_requirements_a_clin_pricing_table_and_evaluation_criteria():
    doc = chunkbench.load(SAMPLE_PDFS / "rfp_it_services.pdf")
    text = doc.text
    assert "shall" in text and "must" in text
    assert any("CLIN" in t for t in _texts(doc, "table"))
    assert "evaluation" in " ".join(_texts(doc, "heading")).lower()


def test_manual_has_code_blocks_nested_lists_and_two_heading_levels():
    doc = chunkbench.load(SAMPLE_PDFS / "technical_manual.pdf")
    assert len(_texts(doc, "code")) >= 2
    assert {1, 2} <= {e.text_level for e in doc.elements if e.type == "heading"}
    assert _texts(doc, "list")


@pytest.mark.parametrize("name", NAMES)
def test_question_evidence_is_on_its_page(name):
    doc = chunkbench.load(SAMPLE_PDFS / f"{name}.pdf")
    questions = json.loads((SAMPLE_PDFS / f"{name}.questions.json").read_text("utf-8"))
    for q in questions:
        page_text = " ".join(" ".join(e.text.split()) for e in doc.elements if e.page_idx == q["evidence_page"] - 1)
        assert " ".join(q["evidence_text"].split()) in page_text, q["id"]
