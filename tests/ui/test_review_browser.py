"""The review app in a real browser: Debian's chromium driven by Playwright (never a downloaded browser).

Skipped when /usr/bin/chromium is missing (`make browser` installs it). Each test serves the app
in-process on a free loopback port with a workspace of its own.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

import chunkbench as cb
from chunkbench.db import verdicts as vs
from chunkbench.db.workspace import connect
from chunkbench.errors import UsageError
from tests.support.browser import CHROMIUM, chromium
from tests.support.paths import SAMPLE_PDFS
from tests.support.processes import free_port

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed (make browser)"),
]
sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("panel")

TIMEOUT = 20_000  # ms for one UI update to arrive (generous: two shared cores)


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def serve(tmp_path):
    """serve(chunkset) → base URL of a review app over a fresh workspace (stopped after the test)."""
    from chunkbench.ui.reviews.serve import serve_app

    servers = []

    def start(cs):
        port = free_port()
        servers.append(serve_app(cs, workspace=tmp_path / "ws.db", port=port, threaded=True))
        return f"http://127.0.0.1:{port}/"

    start.workspace = tmp_path / "ws.db"
    yield start
    for s in servers:
        s.stop()


def _open(browser, url: str, reviewer: str):
    ctx = browser.new_context(viewport={"width": 1400, "height": 950})
    page = ctx.new_page()
    page.goto(f"{url}?reviewer={reviewer}")
    page.wait_for_selector("text=/\\d+ of \\d+ reviewed/", timeout=TIMEOUT)
    return ctx, page


def _at_boundary(page, n: int, total: int):
    """Step with the keyboard from the first boundary to boundary `n` (1-based) of `total`; the
    position line, once it says so."""
    position = page.locator(".cb-pos").first
    for _ in range(n - 1):
        page.keyboard.press("n")
    sync_api.expect(position).to_contain_text(f"Boundary #{n - 1} (#0–#{total - 1}", timeout=TIMEOUT)
    return position


def _progress(page, n: int, total: int) -> None:
    page.wait_for_selector(f"text=/^{n} of {total} reviewed/", timeout=TIMEOUT)


@pytest.fixture(scope="module")
def contract():
    return cb.chunk(cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf"), "elements")


def test_keyboard_verdict_survives_reload(browser, serve, contract):
    url = serve(contract)
    ctx, page = _open(browser, url, "alice")
    m = len(contract)
    _progress(page, 0, m)
    img = page.locator("img.cb-page-img")
    img.wait_for(timeout=TIMEOUT)
    assert page.evaluate("e => e.naturalWidth", img.element_handle()) > 300  # the page overlay is shown
    page.keyboard.press("2")  # should merge, then the app moves on
    _progress(page, 1, m)
    # typing into the comment box is text, not shortcuts
    page.locator("input[placeholder^='optional comment']").click()
    page.keyboard.type("too short, merge 2")
    page.locator(".cb-title").click()  # focus leaves the box
    _progress(page, 1, m)
    page.keyboard.press("o")  # ok, with the typed comment
    _progress(page, 2, m)
    stored = {v.chunk_index: (v.verdict, v.comment) for v in vs.query(connect(serve.workspace), reviewer="alice")}
    assert stored == {0: ("should_merge", ""), 1: ("ok", "too short, merge 2")}

    page.reload()
    _progress(page, 2, m)
    page.keyboard.press("p")
    page.wait_for_selector("text=Your verdict: ok", timeout=TIMEOUT)
    page.keyboard.press("p")
    page.wait_for_selector("text=Your verdict: should merge", timeout=TIMEOUT)
    ctx.close()


def test_two_reviewers_at_once_lose_nothing(browser, serve, contract):
    url = serve(contract)
    (ca, a), (cb_, b) = _open(browser, url, "ann"), _open(browser, url, "bob")
    m = len(contract)
    n = 6
    for _ in range(n):  # interleaved, without waiting for the server in between
        a.keyboard.press("1")
        b.keyboard.press("3")
    _progress(a, n, m)
    _progress(b, n, m)
    rows = vs.query(connect(serve.workspace))
    assert sorted((v.reviewer, v.chunk_index, v.verdict) for v in rows) == sorted(
        [("ann", i, "ok") for i in range(n)] + [("bob", i, "should_split_elsewhere") for i in range(n)])
    # each sees the other's verdicts on a boundary
    b.keyboard.press("p")
    b.wait_for_selector("text=ann: ok", timeout=TIMEOUT)
    ca.close()
    cb_.close()


def test_filters_in_the_browser(browser, serve, contract):
    url = serve(contract)
    ctx, page = _open(browser, url, "fay")
    page.keyboard.press("1")
    page.keyboard.press("4")
    _progress(page, 2, len(contract))
    page.get_by_role("button", name="flagged", exact=True).click()
    page.wait_for_selector("text=/1 of 1 shown/", timeout=TIMEOUT)
    page.wait_for_selector("text=Your verdict: wrong type", timeout=TIMEOUT)
    ctx.close()


def _evil_pdf(path: Path) -> Path:
    import pymupdf

    pdf = pymupdf.open()
    page = pdf.new_page()
    y = 72
    for line in ["1. Payload <script>alert('xss')</script>", "",
                 "The image <img src=x onerror=alert(1)> must show as text.",
                 "Terms & conditions \"quoted\" apply.", "",
                 "2. Second <b>section</b>", "", "Closing paragraph with <iframe src=x></iframe> in it."]:
        page.insert_text((72, y), line, fontsize=11)
        y += 18
    pdf.save(path)
    return path


#: script elements anywhere in the page (shadow roots included) whose text mentions xss
_SCRIPTS_MENTIONING_XSS = """() => {
  let n = 0;
  const walk = (root) => root.querySelectorAll('*').forEach(el => {
    if (el.tagName === 'SCRIPT' && el.textContent.includes('xss')) n += 1;
    if (el.shadowRoot) walk(el.shadowRoot);
  });
  walk(document);
  return n;
}"""


def test_document_text_is_shown_literally_and_never_runs(browser, serve, tmp_path):
    doc = cb.load(_evil_pdf(tmp_path / "evil.pdf"), cache=False)
    assert all(t in doc.text for t in ("<script>", "<img src=x onerror", "<iframe src=x>"))
    cs = cb.chunk(doc, "elements", max_chunk_size=60)
    url = serve(cs)
    dialogs, errors = [], []
    ctx = browser.new_context()
    page = ctx.new_page()
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}?reviewer=<img src=x onerror=alert(7)>")
    page.wait_for_selector("text=/\\d+ of \\d+ reviewed/", timeout=TIMEOUT)
    after = page.locator(".cb-after pre")
    for c in cs:  # step through every boundary with the keyboard: each chunk's text, literally
        sync_api.expect(after).to_have_text(c.text, timeout=TIMEOUT)
        page.keyboard.press("n")
    assert page.locator("img[src='x'], iframe[src='x']").count() == 0
    assert page.evaluate(_SCRIPTS_MENTIONING_XSS) == 0
    assert page.get_by_text("<img src=x onerror=alert(7)>").count() == 1  # the reviewer name, as text
    assert dialogs == [] and errors == []
    ctx.close()


def test_verdict_keys_work_while_the_reason_dropdown_has_focus(browser, serve, contract):
    """After picking a reason in the dropdown, the focus is still on it; a verdict key
    pressed there is a verdict (it did nothing before), and the dropdown lets go of the focus."""
    url = serve(contract)
    ctx, page = _open(browser, url, "gil")
    m = len(contract)
    select = page.locator("select").first
    select.focus()
    assert page.evaluate("() => { let a = document.activeElement; while (a && a.shadowRoot && "
                         "a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a.tagName; }") == "SELECT"
    page.keyboard.press("1")
    _progress(page, 1, m)
    page.keyboard.press("m")  # the focus has left the dropdown: plain shortcuts again
    _progress(page, 2, m)
    stored = {v.chunk_index: v.verdict for v in vs.query(connect(serve.workspace), reviewer="gil")}
    assert stored == {0: "ok", 1: "should_merge"}
    ctx.close()


def test_the_served_app_fetches_nothing_from_outside_this_machine(browser, serve, contract):
    """Every request of the review app goes to 127.0.0.1 (no CDN: it works offline)."""
    url = serve(contract)
    ctx = browser.new_context(viewport={"width": 1400, "height": 950})
    page = ctx.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{url}?reviewer=hal")
    page.wait_for_selector("text=/\\d+ of \\d+ reviewed/", timeout=TIMEOUT)
    page.keyboard.press("1")
    _progress(page, 1, len(contract))
    outside = [u for u in requests if not u.startswith((url.rstrip("/"), "data:", "blob:" + url.rstrip("/")))]
    assert requests and outside == []
    ctx.close()


@pytest.mark.parametrize("path, allowed", [
    ("/components/../../../etc/passwd", (400, 404)),
    ("/components/..%2F..%2Fetc%2Fpasswd", (400, 404)),
    ("/components/antigravity/x/__css__/y.css", (404,)),  # a module nobody imported: not imported by a URL
    ("/components/os/path/__css__/x", (403, 404)),
])
def test_component_route_answers_hostile_paths_without_a_server_error(serve, contract, path, allowed):
    import http.client
    from urllib.parse import urlparse

    url = urlparse(serve(contract))
    deadline = time.monotonic() + 30
    while True:  # the threaded server may still be starting
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        try:
            conn.request("GET", path)
            break
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    response = conn.getresponse()
    body = response.read()
    assert response.status in allowed and b"root:" not in body
    assert "antigravity" not in sys.modules


def test_the_page_has_the_room_labels_read_at_11_px_in_a_1280_px_window(browser, serve, contract, tmp_path):
    """The page crop was 640 px wide (labels at 8 CSS px); it now takes the app's width
    up to its own pixels, with the verdict buttons above it and the text on each side below."""
    from chunkbench.ui.render.overlay import LABEL_SIZE

    url = serve(contract)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(f"{url}?reviewer=wide")
    img = page.locator("img.cb-page-img")
    img.wait_for(timeout=TIMEOUT)
    page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle(), timeout=TIMEOUT)
    shown, natural = img.evaluate("i => [i.clientWidth, i.naturalWidth]")
    label_px = LABEL_SIZE * 110 / 72 * shown / natural  # the app's dpi
    assert label_px >= 11, (shown, natural, label_px)
    button = page.get_by_role("button", name="1 · ok").first.bounding_box()
    assert button is not None and button["y"] + button["height"] < img.bounding_box()["y"]  # acted on above it
    page.screenshot(path=str(tmp_path / "review-1280.png"))
    ctx.close()


def test_a_reviewer_merges_moves_and_splits_in_the_browser(browser, serve, contract):
    """The edit buttons store an edit, the chunks shown change at once with reason
    reviewer_edit, and a second reviewer's app opens on the edited chunks."""
    from chunkbench.db.edits import edits_of

    url = serve(contract)
    m = len(contract)
    ctx, page = _open(browser, url, "eve")
    position = _at_boundary(page, 4, m)
    expect = sync_api.expect
    page.get_by_role("button", name="merge into previous").click()
    expect(position).to_contain_text(f"of {m - 1}", timeout=TIMEOUT)
    page.wait_for_selector("text=/merged into the chunk before by eve/", timeout=TIMEOUT)
    page.keyboard.press("n")
    page.get_by_role("button", name="start a word later →").click()
    page.wait_for_selector("text=/boundary moved here by eve/", timeout=TIMEOUT)
    split_input = page.locator(".cb-split-word input").first
    split_input.fill("5")
    split_input.press("Enter")
    page.get_by_role("button", name="split before word").click()
    expect(position).to_contain_text(f"of {m}", timeout=TIMEOUT)  # one merged away, one split off
    page.wait_for_selector("text=/split here by eve/", timeout=TIMEOUT)
    kinds = [e.kind for e in edits_of(contract.doc, contract.strategy, serve.workspace)]
    assert kinds == ["merge", "move", "split"] and all(e.reviewer == "eve" for e in
                                                        edits_of(contract.doc, contract.strategy, serve.workspace))
    ctx.close()
    ctx2, other = _open(browser, url, "finn")  # another reviewer opens on the edited chunks
    for _ in range(2):  # to boundary 3: the chunk boundary 4 was merged into
        other.keyboard.press("n")
    other.wait_for_selector("text=/merged into the chunk before by eve/", timeout=TIMEOUT)
    ctx2.close()


def test_a_reviewer_splits_by_clicking_a_word_on_the_page_and_in_the_text(browser, serve, contract):
    """A click on a word of the page crop picks it (nothing stored yet), "split before
    the picked word" splits there; a shift-click on a word of the text below splits at once."""
    import re

    from chunkbench.db.edits import edits_of
    from chunkbench.loaders.regions import position_box
    from chunkbench.strategies.edits import resolve
    from chunkbench.ui.render.crops import boundary_crop

    doc = contract.doc
    url = serve(contract)
    ctx, page = _open(browser, url, "gus")
    position = _at_boundary(page, 6, len(contract))
    expect = sync_api.expect
    c = contract.chunks[5]
    target = c.start_char + [m.start() for m in re.finditer(r"\S+", doc.text[c.start_char:c.end_char])][3]
    crop = boundary_crop(contract, 5, 110)  # what the app shows at this boundary
    box = position_box(doc, target)
    px, py = crop.to_pixel(box.page, (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
    img = page.locator("img.cb-page-img")
    img.wait_for(timeout=TIMEOUT)
    page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle(), timeout=TIMEOUT)
    shown, natural = img.evaluate("i => [i.clientWidth, i.naturalWidth]")
    img.click(position={"x": px * shown / natural, "y": py * shown / natural})
    word = doc.text[target:].split()[0]
    page.wait_for_selector(f"text=/Picked «{re.escape(word)}» \\(in this chunk\\)/", timeout=TIMEOUT)
    assert edits_of(doc, contract.strategy, serve.workspace) == []
    page.get_by_role("button", name="split before the picked word").click()
    page.wait_for_selector("text=/split here by gus/", timeout=TIMEOUT)
    expect(position).to_contain_text(f"Boundary #6 (#0–#{len(contract)}", timeout=TIMEOUT)
    # the text below the page: the new chunk's words (wait for them: it is redrawn after the
    # position line, and a stale word was read once); shift-click its third
    words = page.locator(".cb-after [data-pos]")
    expect(words.first).to_have_attribute("data-pos", str(target), timeout=TIMEOUT)
    third = words.nth(2)
    second_at = int(third.get_attribute("data-pos"))
    third.click(modifiers=["Shift"])
    expect(position).to_contain_text(f"of {len(contract) + 2}", timeout=TIMEOUT)
    stored = edits_of(doc, contract.strategy, serve.workspace)
    assert [e.kind for e in stored] == ["split", "split"]
    assert [resolve(doc, e.at) for e in stored] == [target, second_at]
    ctx.close()


def test_a_provisional_chunking_is_shown_at_once_and_the_final_one_swaps_in(browser, tmp_path):
    """`chunkbench review` on an uncached PDF serves the first pages' chunks at once,
    verdicts closed and a banner saying why; each open page swaps in the final chunks by itself."""
    from chunkbench.ui.reviews.app import ReviewApp
    from chunkbench.ui.reviews.serve import LiveChunking, serve_app

    doc = cb.load(SAMPLE_PDFS / "contract_services_agreement.pdf")
    first_pages = cb.load(SAMPLE_PDFS / "technical_manual.pdf")  # stands in for the first pages' parse
    provisional = cb.chunk(first_pages, "elements")
    final = cb.chunk(doc, "elements")
    with pytest.raises(UsageError, match="provisional"):
        ReviewApp(provisional, reviewer="x", workspace=tmp_path / "p.db", provisional="provisional: 2 of 6").session.give("ok")
    live = LiveChunking(provisional, "provisional: 2 of 6 pages parsed")
    port = free_port()
    server = serve_app(live, workspace=tmp_path / "ws.db", port=port, threaded=True)
    try:
        ctx, page = _open(browser, f"http://127.0.0.1:{port}/", "hana")
        page.wait_for_selector("text=/provisional: 2 of 6 pages parsed; verdicts and edits open/", timeout=TIMEOUT)
        assert page.get_by_role("button", name="1 · ok").first.is_disabled()
        page.keyboard.press("1")  # refused: nothing stored, still at the first boundary
        time.sleep(1)
        assert vs.query(connect(tmp_path / "ws.db"), reviewer="hana") == [] if (tmp_path / "ws.db").exists() else True
        live.update(final)
        _progress(page, 0, len(final))  # the final app, swapped in without a reload
        assert page.get_by_text("provisional:").count() == 0
        page.keyboard.press("1")
        _progress(page, 1, len(final))
        assert [v.verdict for v in vs.query(connect(tmp_path / "ws.db"), reviewer="hana")] == ["ok"]
        ctx.close()
    finally:
        server.stop()


def test_sessions_beyond_the_limit_get_a_busy_page_until_one_closes(browser, contract, tmp_path):
    """More browsers than `max_sessions` get a page saying the server is busy at once (100 sessions
    on two cores left a quarter without a page after 30 s); a tab closed frees its place."""
    from chunkbench.ui.reviews.serve import serve_app

    port = free_port()
    server = serve_app(contract, workspace=tmp_path / "ws.db", port=port, threaded=True, max_sessions=1,
                       unused_session_lifetime_milliseconds=300, check_unused_sessions_milliseconds=200)
    url = f"http://127.0.0.1:{port}/"
    try:
        first, _ = _open(browser, url, "ann")
        late = browser.new_context()
        page = late.new_page()
        page.goto(url)
        page.wait_for_selector("text=This review server is busy", timeout=TIMEOUT)
        assert page.locator("text=--max-sessions").count() == 1 and page.locator("text=/\\d+ of \\d+ reviewed/").count() == 0
        first.close()  # its websocket closes: Bokeh discards the session, and its place is free
        for _ in range(40):
            time.sleep(0.5)
            page.reload()
            try:
                page.wait_for_selector("text=/\\d+ of \\d+ reviewed|This review server is busy/", timeout=TIMEOUT)
            except sync_api.TimeoutError:
                continue
            if page.locator("text=/\\d+ of \\d+ reviewed/").count():
                break
        assert page.locator("text=/\\d+ of \\d+ reviewed/").count() == 1
        late.close()
    finally:
        server.stop()
