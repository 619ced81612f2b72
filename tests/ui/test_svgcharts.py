"""The SVG charts of summary.html and the sweep notebook (ui/svgcharts.py): well-formed, every text
escaped, marks where the values say, round ticks that cover the values."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from chunkbench.ui import plots
from chunkbench.ui.svgcharts import HEIGHT, Panel, Series, nice_ticks, panel_svg, panels_html

SVG = "{http://www.w3.org/2000/svg}"


def _svgs(page: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg .*?</svg>", page, flags=re.S)]


def test_a_line_panel_puts_each_point_where_its_value_is():
    p = Panel("chars", [Series("tokens", [100, 200, 400], [10.0, 20.0, 40.0]),
                        Series("elements", [100, 200, 400], [5.0, None, 35.0])], x_label="chunk_size")
    svg = ET.fromstring(panel_svg(p))
    circles = svg.findall(f"{SVG}circle")
    assert len(circles) == 5  # the missing value has no mark
    by_title = {c.find(f"{SVG}title").text: (float(c.get("cx")), float(c.get("cy"))) for c in circles}
    assert by_title["tokens: 100 → 10"][0] < by_title["tokens: 200 → 20"][0] < by_title["tokens: 400 → 40"][0]
    assert by_title["tokens: 100 → 10"][1] > by_title["tokens: 200 → 20"][1] > by_title["tokens: 400 → 40"][1]
    # linear in x: 200 sits a third of the way from 100 to 400
    a, b, c = (by_title[f"tokens: {x} → {y}"][0] for x, y in ((100, 10), (200, 20), (400, 40)))
    assert abs((b - a) / (c - a) - 1 / 3) < 0.01
    assert all(0 <= y <= HEIGHT for _, y in by_title.values())


def test_bars_grow_from_zero_and_every_text_is_escaped():
    evil = "<script>alert(1)</script>"
    page = panels_html([Panel(evil, [Series(evil, ["a&b", evil], [3.0, 6.0], kind="bar")]),
                        Panel("empty", note=evil)], caption=evil)
    assert "<script" not in page and "&lt;script&gt;" in page
    svgs = _svgs(page)
    rects = svgs[0].findall(f"{SVG}rect")
    heights = sorted(float(r.get("height")) for r in rects)
    assert len(rects) == 2 and abs(heights[1] / heights[0] - 2.0) < 0.02  # 6 is twice 3: bars start at 0
    assert svgs[1].findall(f"{SVG}text")[-1].text == evil  # the note, as text


@given(st.floats(-1e6, 1e6), st.floats(0, 1e6))
def test_ticks_are_round_sorted_and_cover_the_values(lo, span):
    hi = lo + span
    ticks = nice_ticks(lo, hi)
    assert ticks == sorted(ticks) and 2 <= len(ticks) <= 12
    assert ticks[0] <= lo + 1e-9 * max(1, abs(lo)) and ticks[-1] >= hi - 1e-9 * max(1, abs(hi))


def test_a_span_that_underflows_is_one_value():
    """A quarter of 5e-324 is 0, whose logarithm failed (found by `make fuzz`): a band around the value."""
    assert nice_ticks(0.0, 5e-324)[0] < 0 < nice_ticks(0.0, 5e-324)[-1]


def test_the_sweep_charts_are_well_formed_svg():
    df = pd.DataFrame({
        "status": ["ok"] * 4, "document": ["a.pdf", "a.pdf", "b & <c>.pdf", "b & <c>.pdf"],
        "strategy": ["tokens", "elements", "tokens", "elements"], "chunk_size": [100, 200, 100, 200],
        "chunks": [10, 5, 8, 4], "ret_chunks_token_iou": [0.1, 0.2, 0.15, 0.05],
        **{f"ret_{s}_{m}": [0.5, 0.6, 0.7, 0.8] for s in ("elements", "baseline") for m in ("mrr", "token_iou")},
        "ret_chunks_mrr": [0.5, 0.6, 0.7, 0.8],
    })
    for page in (plots.metric_vs_param_html(df, "chunk_size"), plots.metric_by_strategy_html(df),
                 plots.retrieval_systems_html(df), plots.pareto_html(df)):
        assert _svgs(page)  # parses as XML
    pareto = plots.pareto_html(df)
    assert "b &amp; &lt;c&gt;.pdf" in pareto and "Pareto front" in pareto
