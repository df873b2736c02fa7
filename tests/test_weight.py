"""An error page asks nothing of any other site, and stays within the page-weight budget in docs/performance.md.

Sizes are uncompressed bytes, as the browser decoded them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from browser_support import ROOT, VIEWS, Sites, View, open_tab

KB = 1024
HTML_BUDGET = 30 * KB
CSS_BUDGET = 12 * KB
JS_ON_LOAD_BUDGET = 12 * KB
SEARCH_JS_BUDGET = 72 * KB  # the matcher of twins, composed and aggregated messages: 65 KB
INDEX_PER_RECORD_BUDGET = 1 * KB

# What the browser fetched, by kind, from the Resource Timing entries of the page.
FETCHED = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const out = {html: nav.decodedBodySize, css: 0, js: 0, urls: []};
  for (const r of performance.getEntriesByType("resource")) {
    out.urls.push(r.name);
    if (/\\.css(\\?|$)/.test(r.name)) out.css += r.decodedBodySize;
    if (/\\.js(\\?|$)/.test(r.name)) out.js += r.decodedBodySize;
  }
  return out;
}"""


def fetched(page: Any) -> dict[str, Any]:
    """Return the bytes of HTML, CSS and JS the page fetched, and every URL."""
    page.wait_for_load_state("networkidle")
    return page.evaluate(FETCHED)


@pytest.mark.browser
@pytest.mark.parametrize("view", VIEWS, ids=[v.name for v in VIEWS])
def test_no_request_leaves_the_site(browser: Any, sites: Sites, server_url: str, view: View) -> None:
    with open_tab(browser, server_url, 360) as tab:
        view.show(tab, sites)
        # Using the search box loads the index, the engine and the UI: those count too.
        tab.page.focus(".searchbox textarea")
        tab.page.keyboard.type("max")
        tab.page.wait_for_load_state("networkidle")
        # The browser's own fetches (a favicon) bypass routing but show in Resource Timing.
        timed = tab.page.evaluate("performance.getEntriesByType('resource').map(r => r.name)")
        outside = [url for url in tab.requests + timed if not url.startswith(sites[view.site].url())]
    assert outside == []
    # The 404 page loads nothing beyond itself (its style is inline and its search box a plain
    # form), so that it keeps its look at any depth; every other page loads its style and script.
    if view.name.startswith("404"):
        assert len(tab.requests) == 1
    else:
        assert len(tab.requests) >= 2


def test_readme_states_the_budget_the_tests_hold() -> None:
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8") + "\n## "
    section = re.search(r"^## Page weight\n(.*?)^## ", text, re.M | re.S)
    assert section, "docs/performance.md has no 'Page weight' section"
    text = section.group(1)
    for figure in ("30 KB", "12 KB", "72 KB", "1 KB", "150 KB"):
        assert figure in text, figure


def test_every_typical_error_page_is_within_the_html_budget(sites: Sites) -> None:
    site = sites["synthetic"]
    sizes = {p.parent.name: p.stat().st_size for p in (site.out_path / "errors").glob("*/index.html")}
    assert len(sizes) == 1000
    over = {name: size for name, size in sizes.items() if size >= HTML_BUDGET}
    assert over == {}, f"{len(over)} pages over {HTML_BUDGET} bytes"


@pytest.mark.browser
@pytest.mark.parametrize("site_name", ["synthetic", "basic", "embedded"])
def test_an_error_page_in_the_browser_is_within_budget(browser: Any, sites: Sites, server_url: str, site_name: str) -> None:
    site = sites[site_name]
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(site.url(f"errors/{site.fullest_error()}/index.html"))
        got = fetched(tab.page)
    assert got["html"] < HTML_BUDGET
    assert 0 < got["css"] < CSS_BUDGET
    assert 0 < got["js"] < JS_ON_LOAD_BUDGET
    assert not any("search-index.js" in url or "match.js" in url for url in got["urls"]), "search loads on first use"


@pytest.mark.browser
def test_search_costs_only_when_used(browser: Any, sites: Sites, server_url: str) -> None:
    site = sites["synthetic"]
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(site.url("search/index.html?q=chunk_size"))
        tab.page.wait_for_selector("#results li")
        got = fetched(tab.page)
    engine = sum(Path(site.out_path, "static", name).stat().st_size for name in ("match.js", "search.js"))
    index = (site.out_path / "search-index.js").stat().st_size
    assert engine < SEARCH_JS_BUDGET
    assert index / 1000 < INDEX_PER_RECORD_BUDGET
    # The search loads fragments of the index, not the whole of it.
    assert not any(url.endswith("/search-index.js") for url in got["urls"])
    assert got["js"] < JS_ON_LOAD_BUDGET + SEARCH_JS_BUDGET + index / 4
