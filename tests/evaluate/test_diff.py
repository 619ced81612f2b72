"""Boundary diff: stayed/moved/appeared/vanished bookkeeping, spec strings, drawing and the CLI."""

from __future__ import annotations

import numpy as np
import pytest

import chunkbench as cb
from chunkbench.errors import ParamError, UsageError
from chunkbench.evaluate.diff import BoundaryDiff, diff, parse_spec
from chunkbench.ui.cli import main
from chunkbench.ui.render import render_page
from chunkbench.ui.render.diffpages import render_diff
from tests.support.builders import hand_chunks
from tests.support.paths import SAMPLE_PDFS

MANUAL = SAMPLE_PDFS / "technical_manual.pdf"


@pytest.fixture(scope="module")
def manual():
    return cb.load(MANUAL)


def check_counts(d: BoundaryDiff) -> None:
    c = d.counts
    assert c["stayed"] + c["moved"] + c["vanished"] == len(d.a)
    assert c["stayed"] + c["moved"] + c["appeared"] == len(d.b)
    per_page = d.counts_per_page
    assert per_page["a"].sum() == len(d.a) and per_page["b"].sum() == len(d.b)
    for status in ("stayed", "moved", "appeared", "vanished"):
        assert per_page[status].sum() == c[status]


def test_two_token_sizes(manual):
    d = cb.diff(manual, "strategy=tokens,chunk_size=256", "strategy=tokens,chunk_size=200,overlap=20")
    check_counts(d)
    t = d.table
    assert list(t["position"]) == sorted(t["position"])
    stayed = t[t.status == "stayed"]
    assert (stayed.position == stayed.position_b).all() and 0 in set(stayed.position)  # document start
    moved = t[t.status == "moved"]
    assert len(moved) >= 3
    for r in moved.itertuples():
        assert abs(r.shift) <= d.window or r.key_a.split("@")[0] == r.key_b.split("@")[0]
    # moved pairs never cross: their b positions increase with their a positions
    assert list(moved.position_b) == sorted(moved.position_b)
    assert set(t.reason_a.dropna()) <= {"document_start", "token_window", "heading"}  # runs restart at headings


def test_identical_configurations_only_stay(manual):
    a = cb.chunk(manual, "elements")
    d = diff(manual, a, "strategy=elements")
    check_counts(d)
    assert d.counts == {"stayed": len(a), "moved": 0, "appeared": 0, "vanished": 0}
    assert d.changed_pages() == []


def test_matching_rules_on_hand_built_chunks(manual):
    text_len = len(manual.text)
    a = hand_chunks(manual, [(0, 1000), (1000, 2000), (2000, 3000), (3000, text_len)])
    b = hand_chunks(manual, [(0, 1050), (1050, 2000), (2000, 2600), (2600, text_len)])
    d = diff(manual, a, b, window=100)
    check_counts(d)
    status = {r["position"]: r["status"] for r in d.rows}
    assert status[0] == "stayed" and status[2000] == "stayed"
    assert status[1000] == "moved" and d.table.set_index("position").loc[1000, "shift"] == 50
    # 3000 vs 2600: 400 chars apart, different elements -> vanished + appeared
    assert status[3000] == "vanished" and status[2600] == "appeared"
    wide = diff(manual, a, b, window=500)
    assert {r["position"]: r["status"] for r in wide.rows}[3000] == "moved"


def test_render_draws_both_configurations_in_two_colours(manual):
    from chunkbench.ui.render.palette import DIFF_A, DIFF_B

    d = cb.diff(manual, "strategy=tokens,chunk_size=256", "strategy=tokens,chunk_size=200,overlap=20")
    page = d.changed_pages()[0]
    img = render_diff(d, page, dpi=100)
    arr = img.to_array().reshape(-1, 3)
    for color in (DIFF_A, DIFF_B):
        assert (np.abs(arr.astype(int) - np.array(color)).sum(axis=1) == 0).sum() > 50
    assert any(r.kind == "boundary" for r in img.regions)


def test_tags_never_touch_bars_keep_off_the_text_and_the_table_links_each_page(tmp_path):
    """Two boundaries on neighbouring lines got tags that touched ("b10 appeared" over "b11"); the
    bar of a boundary ran through the first line of its text; the 41-row table linked to no page."""
    report = cb.load(SAMPLE_PDFS / "financial_annual_report.pdf")
    d = cb.diff(report, "strategy=elements", "strategy=recursive,chunk_size=300")
    for page in d.changed_pages():
        tags = [r for r in render_diff(d, page, dpi=100).regions if r.kind == "boundary"]
        for a, b in ((a, b) for i, a in enumerate(tags) for b in tags[i + 1:]):
            assert a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0, (page, a, b)
    page = d.changed_pages()[0]
    plain = render_page(report, None, page=page, dpi=100).to_array().astype(int)
    drawn = render_diff(d, page, dpi=100).to_array().astype(int)
    from chunkbench.loaders.regions import position_box

    struck = 0
    for row in d.rows:  # the text of each boundary's line keeps its ink (a bar through it did not)
        box = position_box(report, row["position_b"]) if row["position_b"] is not None else None
        if box is None or box.page != page:
            continue
        x0, y0, x1, y1 = (round(v * 100 / 72) for v in (box.x0 + 3, box.y0 + 2, box.x1, box.y1 - 2))
        ink = plain[y0:y1, x0:x1].sum(axis=2) < 200
        struck += int((np.abs(drawn[y0:y1, x0:x1] - plain[y0:y1, x0:x1]).sum(axis=2)[ink] > 120).sum())
    assert struck == 0
    from chunkbench.ui.report import write_diff_report

    page_html = write_diff_report(d, tmp_path / "d").read_text("utf-8")
    for page in d.changed_pages():
        assert f'<a href="#page-{page}">{page}</a>' in page_html and f'id="page-{page}"' in page_html


def test_spec_strings():
    assert parse_spec("strategy=tokens,chunk_size=512") == ("tokens", {"chunk_size": "512"})
    assert parse_spec("max_chunk_size=900") == ("elements", {"max_chunk_size": "900"})
    assert parse_spec("strategy=x,types=a,b,c") == ("x", {"types": "a,b,c"})
    with pytest.raises(UsageError):
        parse_spec("tokens")


def test_bad_configuration_is_a_param_error(manual):
    with pytest.raises(ParamError):
        diff(manual, "strategy=tokens,chunk_size=abc", "strategy=tokens")
    with pytest.raises(ParamError):
        diff(manual, "strategy=nope", "strategy=tokens")


def test_cli_diff(tmp_path, capsys):
    out = tmp_path / "d"
    code = main(["diff", str(MANUAL), "--a", "strategy=tokens,chunk_size=256",
                 "--b", "strategy=tokens,chunk_size=200,overlap=20", "--dpi", "50", "-o", str(out)])
    assert code == 0
    names = sorted(p.name for p in out.iterdir())
    assert "diff.csv" in names and "index.html" in names and any(n.startswith("diff-page-") for n in names)
    import pandas as pd

    table = pd.read_csv(out / "diff.csv")
    assert set(table.status) <= {"stayed", "moved", "appeared", "vanished"} and len(table) > 5
    html = (out / "index.html").read_text()
    assert "strategy=" not in html or "tokens" in html
    assert "moved" in html and "diff.csv" in html
    assert main(["diff", str(MANUAL), "--a", "strategy=tokens,chunk_size=oops", "--b", "strategy=tokens",
                 "-o", str(tmp_path / "e")]) == 2


def test_markdown_diff_report_without_pdf(tmp_path):
    md = tmp_path / "guide.md"
    md.write_text("# Guide <x>\n\n" + "\n\n".join(f"## Part {i}\n\n" + "word " * 120 for i in range(6)))
    out = tmp_path / "d"
    assert main(["diff", str(md), "--no-cache", "--a", "strategy=tokens,chunk_size=100",
                 "--b", "strategy=tokens,chunk_size=60", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["diff.csv", "index.html"]
    html = (out / "index.html").read_text()
    assert "Changed boundaries" in html and "‖" in html and "<x>" not in html


def test_cb_diff_is_a_plain_function_whatever_was_imported_first():
    """No callable-module trick: the module is chunkbench.evaluate.diff."""
    import types

    import chunkbench as cb
    import chunkbench.evaluate.diff
    import chunkbench.ui.render.diffpages

    assert cb.diff is chunkbench.evaluate.diff.diff and isinstance(cb.diff, types.FunctionType)
    assert cb.render_diff is chunkbench.ui.render.diffpages.render_diff
