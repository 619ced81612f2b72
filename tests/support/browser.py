"""Debian's chromium driven by Playwright, as every browser test starts it."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

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
