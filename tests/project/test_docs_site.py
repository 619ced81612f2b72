"""The documentation site opened from the file, as a user opens site/index.html without a server:
links lead to pages (not to directory listings) and search finds words, in Debian's chromium."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.browser import CHROMIUM, chromium
from tests.support.paths import ROOT

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed (make browser)"),
]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site as `make docs` builds it (strict), into a folder of its own."""
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "jieba" not in done.stderr and "Prefix dict" not in done.stderr  # the build says only what concerns the docs
    return out


def test_the_site_from_the_file_follows_links_and_finds_words(site):
    with chromium() as browser:
        page = browser.new_page()
        page.goto((site / "index.html").as_uri())
        page.click("a[href='guide.html'] >> nth=0")
        page.wait_for_load_state()
        assert page.url.endswith("/guide.html") and page.locator("article h1").first.inner_text().strip()
        assert "Index of" not in page.title()
        page.fill("input.md-search__input", "chunk_debug")
        results = page.locator(".md-search-result__item")
        results.first.wait_for(timeout=20_000)
        assert results.count() >= 1
        results.first.locator("a").first.click()
        page.wait_for_load_state()
        assert page.url.startswith("file://") and ".html" in page.url and "chunk_debug" in page.content()
