"""Verdict storage (upsert, reload, export, carry-over, concurrent writers) and the review app's logic.

The app is driven through its Python methods here (the buttons and keys call the same ones); the
browser behaviour is in test_review_browser.py.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import threading

import pytest

import chunkbench as cb
from chunkbench.db import verdicts as vs
from chunkbench.db.workspace import connect
from chunkbench.errors import UsageError
from chunkbench.io import verdicts as exports
from chunkbench.types.chunk import boundary_key
from tests.support.documents import make_doc
from tests.support.paths import ROOT
from tests.support.processes import free_port

pytest.importorskip("panel")


def _doc(extra_text: str = ""):
    """Two sections of paragraphs: heading boundaries stay when max_chunk_size changes, size cuts move."""
    els = [{"type": "heading", "text": "1. Scope", "text_level": 1}]
    for n in range(6):
        els.append({"type": "paragraph", "text": f"Scope paragraph {n}. " + "The supplier shall deliver. " * 10})
    els.append({"type": "heading", "text": "2. Fees", "text_level": 1})
    for n in range(4):
        els.append({"type": "paragraph", "text": f"Fees paragraph {n}. " + "Invoices are due in 30 days. " * 9})
    if extra_text:
        els.append({"type": "paragraph", "text": extra_text})
    return make_doc(els, source="review-test.json")


@pytest.fixture
def ws(tmp_path):
    return tmp_path / "ws.db"


def _record(conn, key, verdict="ok", reviewer="", params="p1", **kw):
    return vs.record(conn, doc_id="d", strategy="elements", params_hash=params, boundary_key=key,
                     verdict=verdict, reviewer=reviewer, **kw)


def test_upsert_replaces_and_survives_reconnect(ws):
    conn = connect(ws)
    _record(conn, "e1@0", "ok", comment="first")
    _record(conn, "e1@0", "should_merge", comment="changed my mind")
    _record(conn, "e1@0", "wrong_type", reviewer="bob")
    conn.close()
    conn = connect(ws)  # a restart: a new connection to the same file
    rows = vs.query(conn, doc_id="d")
    assert [(v.reviewer, v.verdict, v.comment) for v in rows] == [
        ("", "should_merge", "changed my mind"), ("bob", "wrong_type", "")]
    assert vs.remove(conn, doc_id="d", strategy="elements", params_hash="p1", boundary_key="e1@0", reviewer="bob")
    assert not vs.remove(conn, doc_id="d", strategy="elements", params_hash="p1", boundary_key="e1@0", reviewer="bob")
    assert len(vs.query(conn)) == 1


def test_unknown_verdict_is_refused(ws):
    conn = connect(ws)
    with pytest.raises(UsageError, match="unknown verdict"):
        _record(conn, "e1@0", "maybe")
    assert vs.query(conn) == []


def test_export_csv_json_dataframe_round_trip(ws, tmp_path):
    conn = connect(ws)
    tricky = 'says "no", then\nleaves; <b>bold</b> ünïcode'
    _record(conn, "e1@0", "should_split_elsewhere", reviewer="ann", comment=tricky, chunk_index=3, reason="size_limit")
    _record(conn, "e7@120", "ok", reviewer="ann")
    rows = vs.query(conn, reviewer="ann")

    exports.to_csv(rows, tmp_path / "v.csv")
    parsed = list(csv.DictReader(io.StringIO((tmp_path / "v.csv").read_text(encoding="utf-8"))))
    assert [r["boundary_key"] for r in parsed] == ["e7@120", "e1@0"]  # by chunk index, unknown first
    by_key = {r["boundary_key"]: r for r in parsed}
    assert by_key["e1@0"]["comment"] == tricky
    assert by_key["e1@0"]["chunk_index"] == "3" and by_key["e7@120"]["chunk_index"] == ""

    exports.to_json(rows, tmp_path / "v.json")
    data = json.loads((tmp_path / "v.json").read_text(encoding="utf-8"))
    assert {d["boundary_key"]: d["verdict"] for d in data} == {"e1@0": "should_split_elsewhere", "e7@120": "ok"}
    assert next(d for d in data if d["boundary_key"] == "e1@0")["comment"] == tricky

    df = exports.to_dataframe(rows)
    assert list(df.columns) == list(exports.COLUMNS)
    assert sorted(df["verdict"]) == ["ok", "should_split_elsewhere"]
    assert exports.summary(rows) == {"ok": 1, "should_merge": 0, "should_split_elsewhere": 1, "wrong_type": 0}


def test_carry_over_to_other_params_only_for_unchanged_boundaries(ws):
    doc = _doc()
    a = cb.chunk(doc, "elements", max_chunk_size=2000)
    b = cb.chunk(doc, "elements", max_chunk_size=700)
    keys_a = {boundary_key(c) for c in a}
    keys_b = {boundary_key(c) for c in b}
    assert keys_a & keys_b and keys_a ^ keys_b, "the fixture must keep some cuts and move others"
    conn = connect(ws)
    for c in a:
        vs.record_for_chunk(conn, a, c.index, "should_merge" if c.index % 2 else "ok", reviewer="ann")
    carried = vs.carried_over(conn, b)
    assert set(carried) == keys_a & keys_b
    for key, verdicts in carried.items():
        assert all(v.params_hash == a.params_hash for v in verdicts)
        original = next(c for c in a if boundary_key(c) == key)
        assert verdicts[0].verdict == ("should_merge" if original.index % 2 else "ok")
    # the run's own verdicts are not "carried over"; nothing stored for b yet
    assert vs.carried_over(conn, a) == {}
    assert vs.for_chunkset(conn, b) == {}


def _write_many(path, reviewer, n, start):
    conn = connect(path)
    try:
        for i in range(n):
            vs.record(conn, doc_id="d", strategy="elements", params_hash="p", boundary_key=f"k{start + i}",
                      verdict=vs.VERDICTS[i % 4], reviewer=reviewer)
            # both writers also keep overwriting one shared boundary
            vs.record(conn, doc_id="d", strategy="elements", params_hash="p", boundary_key="shared",
                      verdict="ok", reviewer=reviewer, comment=str(i))
    finally:
        conn.close()


def test_two_threads_writing_at_once_lose_nothing(ws):
    connect(ws).close()
    barrier = threading.Barrier(2)
    errors = []

    def run(name, start):
        try:
            barrier.wait()
            _write_many(ws, name, 150, start)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=("ann", 0)), threading.Thread(target=run, args=("bob", 1000))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    rows = vs.query(connect(ws))
    assert len(rows) == 2 * 150 + 2
    assert {v.reviewer for v in rows if v.boundary_key == "shared"} == {"ann", "bob"}
    assert all(v.comment == "149" for v in rows if v.boundary_key == "shared")


_WRITER = """
import sys
from chunkbench.db import verdicts as vs
from chunkbench.db.workspace import connect
path, reviewer, n, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
conn = connect(path)
sys.stdout.write("ready\\n"); sys.stdout.flush(); sys.stdin.readline()   # start together
for i in range(n):
    vs.record(conn, doc_id="d", strategy="elements", params_hash="p", boundary_key=f"k{start + i}",
              verdict=vs.VERDICTS[i % 4], reviewer=reviewer)
    vs.record(conn, doc_id="d", strategy="elements", params_hash="p", boundary_key="shared",
              verdict="ok", reviewer=reviewer, comment=str(i))
"""


def test_two_processes_writing_at_once_lose_nothing(ws):
    connect(ws).close()
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(ws), name, "120", str(start)], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for name, start in (("ann", 0), ("bob", 5000))]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:  # both are connected and waiting: let them write at the same time
        p.stdin.write("go\n")
        p.stdin.flush()
    assert [p.wait(120) for p in procs] == [0, 0]
    rows = vs.query(connect(ws))
    assert len(rows) == 2 * 120 + 2
    assert len({(v.boundary_key, v.reviewer) for v in rows}) == len(rows)
    assert {v.reviewer: v.comment for v in rows if v.boundary_key == "shared"} == {"ann": "119", "bob": "119"}


# ------------------------------------------------------------------ the app, driven from Python

def test_app_saves_at_once_and_a_restart_resumes(ws):
    from chunkbench.ui.reviews.app import ReviewApp

    cs = cb.chunk(_doc(), "elements", max_chunk_size=700)
    app = ReviewApp(cs, reviewer="ann", workspace=ws)
    assert app.session.current == 0 and app.session.progress_text == f"0 of {len(cs)} reviewed"
    app.session.give("ok")  # advances
    assert app.session.current == 1
    app._on_key("2")  # keyboard shortcut path: should_merge on chunk 1
    app.comment.value = "typo in heading"
    app._on_key("t")  # wrong_type on chunk 2, with the comment
    assert app.session.current == 3
    # saved the moment it was given: another connection sees it before the app does anything else
    stored = {v.chunk_index: (v.verdict, v.comment) for v in vs.query(connect(ws), reviewer="ann")}
    assert stored == {0: ("ok", ""), 1: ("should_merge", ""), 2: ("wrong_type", "typo in heading")}
    assert app.session.progress_text == f"3 of {len(cs)} reviewed · 2 flagged"

    again = ReviewApp(cs, reviewer="ann", workspace=ws)  # a restart
    assert again.session.current == 3  # first unreviewed
    again.session.step(-1)
    assert again.session.current == 2 and "wrong type" in again.info.object and "typo in heading" in again.info.object
    assert again.buttons["wrong_type"].color == "primary" and again.buttons["ok"].color == "default"

    other = ReviewApp(cs, reviewer="bob", workspace=ws)
    assert other.session.current == 0 and other.session.reviewed == 0
    other.session.go_to(1)
    assert "ann: should merge" in other.info.object


def test_go_to_a_boundary_by_its_number(ws):
    """The "go to boundary #" box takes the number the position line shows, and the line numbers the
    boundary and the chunk it starts as the page labels and chunks.json number chunks (from 0)."""
    from chunkbench.ui.reviews.app import ReviewApp

    cs = cb.chunk(_doc(), "elements", max_chunk_size=300)
    app = ReviewApp(cs, reviewer="ann", workspace=ws)
    n = len(cs)
    assert n >= 4
    app.goto_w.value = n - 2
    assert app.session.current == n - 2
    assert f"Boundary <b>#{n - 2}</b> (#0–#{n - 1}" in app.position.object
    assert f"where chunk #{n - 2} starts, labelled {n - 2} on the page" in app.position.object
    app.session.step(+1)  # the box follows the session
    assert app.goto_w.value == n - 1
    app.goto_w.value = n + 5  # past the end: nothing moves
    assert app.session.current == n - 1


def test_the_session_runs_without_panel(ws):
    """State apart from view. The review session imports no app library and keeps the
    reviewer's place, filters and verdicts alone; a second session sees the first one's verdicts."""
    import subprocess
    import sys

    probe = ("import sys, chunkbench.app.review; "
             "print(sorted(m for m in ('panel', 'bokeh', 'ipywidgets') if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip() == "[]"

    from chunkbench.app.review import ReviewSession

    cs = cb.chunk(_doc(), "elements", max_chunk_size=700)
    ann = ReviewSession(cs, reviewer="ann", workspace=ws)
    ann.give("ok")
    ann.give("should_merge", "two halves of one clause")
    assert ann.current == 2 and ann.progress_text == f"2 of {len(cs)} reviewed · 1 flagged"
    ann.set_filter("flagged")
    assert ann.visible() == [1] and ann.current == 1 and ann.neighbour(+1) is None
    bob = ReviewSession(cs, reviewer="bob", workspace=ws)
    assert bob.current == 0 and [v.verdict for v in bob.others(bob.keys[1])] == ["should_merge"]
    assert len(bob.verdicts()) == 2 and bob.verdicts(all_reviewers=False) == []


def test_app_filters(ws):
    from chunkbench.ui.reviews.app import ReviewApp

    cs = cb.chunk(_doc(), "elements", max_chunk_size=700)
    app = ReviewApp(cs, reviewer="ann", workspace=ws)
    app.session.give("ok")
    app.session.give("should_merge")
    app.session.set_filter("unreviewed")
    assert app.session.visible() == list(range(2, len(cs)))
    app.session.set_filter("flagged")
    assert app.session.visible() == [1] and app.session.current == 1
    heading_starts = [c.index for c in cs if c.boundary.reason.value == "heading"]
    app.session.set_filter("all", "heading")
    assert app.session.visible() == heading_starts and app.session.current in heading_starts
    app.session.step(+1)
    assert app.session.current in heading_starts


def test_app_shows_earlier_verdicts_for_unchanged_boundaries(ws):
    from chunkbench.ui.reviews.app import ReviewApp

    doc = _doc()
    a = cb.chunk(doc, "elements", max_chunk_size=2000)
    b = cb.chunk(doc, "elements", max_chunk_size=700)
    first = ReviewApp(a, reviewer="ann", workspace=ws)
    for _ in range(len(a)):
        first.session.give("should_merge")
    kept = [c.index for c in b if boundary_key(c) in {boundary_key(x) for x in a}]
    moved = [c.index for c in b if c.index not in kept]
    assert kept and moved
    second = ReviewApp(b, reviewer="ann", workspace=ws)
    assert f"{len(kept)} with an earlier verdict" in second.session.progress_text
    second.session.go_to(kept[-1])
    assert "still apply" in second.info.object and second.earlier_b.visible
    second.session.apply_earlier()
    assert vs.for_chunkset(connect(ws), b)[boundary_key(b[kept[-1]])][0].verdict == "should_merge"
    second.session.go_to(moved[0])
    assert "still apply" not in second.info.object and not second.earlier_b.visible


def test_app_escapes_document_text(ws):
    from chunkbench.ui.reviews.app import ReviewApp

    evil = "<script>alert('x')</script> and <img src=x onerror=alert(1)>"
    cs = cb.chunk(_doc(evil), "elements", max_chunk_size=700)
    app = ReviewApp(cs, reviewer="<b>mallory</b>", workspace=ws)
    app.session.go_to(len(cs) - 1)
    shown = app.after.html + app.before.html
    assert "&lt;script&gt;" in shown and "&lt;img" in shown and "onerror=alert(1)&gt;" in shown
    assert "<script" not in shown and "<img" not in shown
    assert "&lt;b&gt;mallory&lt;/b&gt;" in app.title.object


def test_cli_review_export_and_errors(ws, tmp_path, capsys):
    from chunkbench.ui.cli import main

    pdf = ROOT / "sample_pdfs" / "contract_services_agreement.pdf"
    cs = cb.chunk(cb.load(pdf), "elements")
    vs.record_for_chunk(connect(ws), cs, 1, "should_merge", reviewer="ann", comment="x")
    args = ["review", str(pdf), "--workspace", str(ws)]
    out = tmp_path / "v.csv"
    # the installed entry point, once, end to end
    r = subprocess.run([sys.executable, "-m", "chunkbench", *args, "--export", str(out)],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [(x["chunk_index"], x["verdict"], x["reviewer"]) for x in rows] == [("1", "should_merge", "ann")]
    # another parameter set has its own (empty) verdict list
    assert main([*args, "--set", "max_chunk_size=900", "--export", str(tmp_path / "v.json")]) == 0
    assert json.loads((tmp_path / "v.json").read_text()) == []
    capsys.readouterr()
    assert main([*args, "--export", str(tmp_path / "v.txt")]) == 2
    assert main([*args, "--set", "nope=1"]) == 2
    assert main([*args, "--port", "70000"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and "--export" in err[0] and "nope" in err[1] and "--port" in err[2]


def test_boundary_image_is_cut_around_the_boundary():
    from PIL import Image

    from chunkbench.ui.render.crops import boundary_crop

    cs = cb.chunk(cb.load(ROOT / "sample_pdfs" / "contract_services_agreement.pdf"), "elements")
    page_h = round(cs.doc.pages[0].height * 110 / 72)
    same = next(c.index for c in cs if c.index and cs[c.index - 1].page_end == c.page_start)
    crossing = next(c.index for c in cs if c.index and cs[c.index - 1].page_end < c.page_start)
    # as wide as the page with its label gutters
    page_w = cb.render_page(cs.doc, cs, page=cs[same].page_start, dpi=110, selected=same).width
    one = Image.open(io.BytesIO(boundary_crop(cs, same, 110).png)).convert("RGB")
    two = Image.open(io.BytesIO(boundary_crop(cs, crossing, 110).png)).convert("RGB")
    assert abs(one.width - page_w) <= 1 and one.height < page_h * 0.6  # a band, not the whole page
    # across a page break: the bottom of the previous page, a grey strip, the top of the next
    half = (two.height - 18) // 2
    assert abs(two.width - cb.render_page(cs.doc, cs, page=cs[crossing].page_start, dpi=110,
                                          selected=crossing).width) <= 1
    assert two.getpixel((2, half + 9)) == (235, 235, 235)
    assert boundary_crop(cb.chunk(_doc(), "elements"), 1) is None  # no PDF, no picture


def test_app_on_a_chunking_without_chunks(ws):
    from chunkbench.ui.reviews.app import ReviewApp

    cs = cb.chunk(make_doc([{"type": "footer", "text": "page furniture only"}]), "elements")
    assert len(cs) == 0
    app = ReviewApp(cs, reviewer="ann", workspace=ws)
    assert app.session.progress_text == "0 of 0 reviewed" and "no chunks" in app.position.object
    with pytest.raises(UsageError, match="no chunks"):
        app.session.give("ok")
    app.session.step(+1)
    app.session.set_filter("flagged")
    assert app.session.visible() == []


def test_cli_serves_the_app_on_loopback(tmp_path):
    """`chunkbench review INPUT --port N` serves the app; the page loads over HTTP."""
    import time
    import urllib.request

    port = free_port()
    md = ROOT / "tests" / "data" / "markdown" / "deployment_guide.md"
    proc = subprocess.Popen(
        [sys.executable, "-m", "chunkbench", "review", str(md), "--port", str(port), "--reviewer", "cli",
         "--workspace", str(tmp_path / "ws.db")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        body = ""
        for _ in range(240):  # up to ~60 s on a loaded machine; normally a few seconds
            if proc.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    body = r.read().decode("utf-8", "replace")
                break
            except OSError:
                time.sleep(0.25)
        assert proc.poll() is None, proc.stderr.read()
        assert "chunkbench review" in body and "deployment_guide.md" in body  # the page title
    finally:
        proc.terminate()
        proc.wait(30)


def test_app_without_the_pdf_file_still_reviews_the_text(ws, tmp_path):
    import dataclasses
    import shutil

    from chunkbench.ui.reviews.app import ReviewApp

    pdf = shutil.copy(ROOT / "sample_pdfs" / "contract_services_agreement.pdf", tmp_path / "moved.pdf")
    doc = cb.load(pdf)
    cs = cb.chunk(dataclasses.replace(doc, pdf_path=str(tmp_path / "gone.pdf")), "elements")
    app = ReviewApp(cs, reviewer="ann", workspace=ws)
    assert "No page image" in app.image.object and "gone.pdf" in app.image.object
    app.session.give("ok")
    assert app.session.reviewed == 1


def test_the_inline_app_inlines_panel_stylesheets_instead_of_linking_a_cdn(ws):
    """Shown in a notebook after a plain `pn.extension()`, the app's Panel
    stylesheets were links to cdn.holoviz.org (unreachable offline); now they are inline."""
    import json
    import re

    import panel as pn

    from chunkbench.ui.reviews.app import ReviewApp

    cs = cb.chunk(cb.load(ROOT / "sample_pdfs" / "contract_services_agreement.pdf"), "elements")
    before = pn.config.inline
    pn.extension()  # what a notebook cell runs first: Panel's default resources, from the CDN
    pn.config.inline = False
    try:
        bundle = ReviewApp(cs, workspace=ws, inline=True)._repr_mimebundle_()
        assert pn.config.inline  # later updates of the shown app stay inline too
    finally:
        pn.config.inline = before
    text = json.dumps(bundle)
    assert re.findall(r"https?://[^\"\\]+\.css", text) == []
    assert "cb-review" in text  # the app itself is in the bundle


def test_cb_review_and_cb_explore_are_plain_functions_whatever_was_imported_first():
    """No callable-module trick; the modules are named apart from the functions, so
    importing them (as the CLI and the tests do) cannot shadow `cb.review` / `cb.explore`."""
    import types

    import chunkbench.ui.explorer
    import chunkbench.ui.reviews
    import chunkbench.ui.reviews.app  # noqa: F401

    assert cb.review is chunkbench.ui.reviews.review and cb.explore is chunkbench.ui.explorer.explore
    assert isinstance(cb.review, types.FunctionType) and isinstance(cb.explore, types.FunctionType)
    assert type(chunkbench.ui.reviews) is types.ModuleType and type(chunkbench.ui.explorer) is types.ModuleType


def test_the_inline_app_keeps_stylesheets_inline_when_its_panes_change(ws):
    """Panel re-sends an HTML pane's stylesheets as cdn.holoviz.org links whenever
    its content changes; after the first verdict every pane linked the CDN again. The app's panes
    now keep them inline, one shared stylesheet per document and URL."""
    import panel as pn
    from bokeh.models import ImportedStyleSheet, InlineStyleSheet, UIElement

    from chunkbench.ui.reviews.app import ReviewApp

    cs = cb.chunk(cb.load(ROOT / "sample_pdfs" / "contract_services_agreement.pdf"), "elements")
    before = pn.config.inline
    # what a notebook cell runs first; without it Panel renders no models (it only warns), and the
    # test passed only after another test of this file had loaded the extension in its worker
    pn.extension()
    try:
        app = ReviewApp(cs, workspace=ws, inline=True)
        app._repr_mimebundle_()
        app.session.give("ok")
        app.session.step(+1)
        models = [m for root, _ in app.layout._models.values() for m in root.select({"type": UIElement})]
        sheets = [s for m in models for s in m.stylesheets]
    finally:
        pn.config.inline = before
    linked = [s.url for s in sheets if isinstance(s, ImportedStyleSheet) and s.url.startswith("http")]
    assert linked == []
    inline = [s for s in sheets if isinstance(s, InlineStyleSheet)]
    assert len({id(s) for s in inline}) < len(inline)  # shared, not a fresh copy per pane and update
    assert any("loading" in s.css or ".pn-loading" in s.css for s in inline)

