"""out/index.html explains itself (what each strategy is, its counts, the targets it met
and what they are, a thumbnail of its report), and every metric shown has a sentence saying what it is."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import chunkbench as cb
from chunkbench.evaluate.glossary import METRICS, explain, legend
from chunkbench.strategies import get_strategy
from chunkbench.ui.demo import TARGETS_LEGEND, run_demo
from tests.support.browser import CHROMIUM, chromium
from tests.support.paths import SAMPLE_PDFS


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("demo")
    (root / "in").mkdir()
    shutil.copyfile(SAMPLE_PDFS / "technical_manual.pdf", root / "in" / "technical_manual.pdf")
    assert run_demo(root / "in", root / "out", strategies=["elements", "tokens"], sweep=False) == 0
    return root / "out"


def test_index_says_what_each_strategy_is_and_which_met_the_targets(demo_out):
    page = (demo_out / "index.html").read_text(encoding="utf-8")
    assert get_strategy("elements").doc in page and get_strategy("tokens").doc in page
    assert "Targets met" in page and "700–1500 characters" in page and "✓ cleanest" in page
    assert "✓ best" not in page  # one verdict of "best" per page: the sweep's
    # the verdict of each row: the worse of its targets and its defects (tokens keeps the running headers)
    rows = {name: page.split(f"<b>{name}</b></a>")[1].split("</tr>")[0] for name in ("elements", "tokens")}
    assert "<td><b>good</b> ✓ cleanest</td><td class=n>4/4</td>" in rows["elements"]
    assert "<td><b>poor</b></td><td class=n>3/4</td>" in rows["tokens"]
    assert 'src="technical_manual/elements/report/page-001.png"' in page
    assert (demo_out / "technical_manual" / "elements" / "report" / "page-001.png").exists()
    summary = (demo_out / "summary.txt").read_text(encoding="utf-8")
    assert summary.rstrip().endswith(TARGETS_LEGEND)


@pytest.mark.browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed (make browser)")
def test_index_in_a_browser(demo_out):
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((demo_out / "index.html").as_uri())
        page.wait_for_load_state("load")
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        # the thumbnails load lazily, so after the page's load event: wait until each has loaded
        # or failed (a broken image is `complete` too, with no natural width)
        page.wait_for_function("[...document.images].every(i => i.complete)")
        loaded = page.evaluate("[...document.images].map(i => i.complete && i.naturalWidth > 0)")
        assert loaded == [True, True]  # a thumbnail per strategy, each a real image
        page.locator("a", has_text="tokens").first.click()
        page.wait_for_load_state("load")
        assert page.url.endswith("technical_manual/tokens/report/index.html")


def test_every_listed_metric_is_one_the_package_measures(tmp_path):
    from chunkbench.app.labels import load_labels
    from chunkbench.db.verdicts import record_for_chunk
    from chunkbench.db.workspace import open_workspace

    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    chunks = cb.chunk(doc, "elements")
    with open_workspace(tmp_path / "ws.db") as conn:  # a reviewer's verdicts: the rev_* metrics
        record_for_chunk(conn, chunks, 1, "ok", reviewer="ana")
        record_for_chunk(conn, chunks, 2, "should_merge", reviewer="ana")
    values, _ = cb.metrics.measure(doc, chunks, questions=SAMPLE_PDFS / "contract_services_agreement.questions.json",
                                   labels=load_labels(doc, tmp_path / "ws.db"))
    assert {m for m in METRICS if not m.startswith("proxy_")} <= set(values)
    unlabelled, _ = cb.metrics.measure(doc, chunks)  # without questions: the document's own queries
    assert {m for m in METRICS if m.startswith("proxy_")} <= set(unlabelled)
    assert [m for m in unlabelled if m.startswith("proxy_") and not explain(m)] == ["proxy_method"]  # a name
    unexplained = [m for m in values if m.startswith("ret_") and not explain(m)]
    assert unexplained == ["ret_questions"]  # a count, self-explanatory


def test_composed_retrieval_names_are_explained():
    assert explain("ret_baseline_recall_at_3").startswith("share of questions whose evidence is in one of the 3")
    assert "LangChain" in explain("ret_baseline_mrr") and "raw parser elements" in explain("ret_elements_token_iou")
    assert "small by design" in explain("ret_chunks_token_iou").lower()
    assert explain("no_such_metric") == "" and legend(["chunks", "x", "chunks"]) == [("chunks", "number of chunks")]
