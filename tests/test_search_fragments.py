"""The search index in fragments, in Chromium: a search from file://, and what a search downloads on a large site."""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from browser_support import ROOT, Sites, open_tab
from errorsite.search import shards
from errorsite.search.index import build_index
from errorsite.search.rank import search

pytestmark = pytest.mark.browser

KB = 1024
SEARCH_BUDGET = 150 * KB
"""What one search may download of the index on a site of 12,000 records (README, Page weight)."""
LARGE = 12_000

# The bytes of every fragment of the index the page loaded, from the Resource Timing entries.
FRAGMENT_BYTES = """() => performance.getEntriesByType("resource")
  .filter(r => /\\/search\\/.+\\.js$/.test(r.name)).map(r => [r.name, r.decodedBodySize])"""


def first_result(page: Any) -> str:
    page.wait_for_selector("#results li")
    return page.get_attribute("#results [role=option]", "id").removeprefix("r-")


def test_a_search_works_from_file_urls(browser: Any, sites: Sites, server_url: str) -> None:
    site = sites["basic"]
    text = "ValueError: max_batch_tokens must be a multiple of 8, got 1001"
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto((site.out_path / "search" / "index.html").as_uri() + "?q=" + quote(text))
        assert first_result(tab.page) == "batch-tokens-multiple"
        tab.page.fill("main .searchbox textarea", "kv cache dtype")
        tab.page.wait_for_function("document.querySelector('#search-status').textContent.includes('page')")


def _entry(draft: dict[str, Any]) -> dict[str, Any]:
    """Return the search entry of a synthetic record (its prose as it is: the index reads its first 300 characters)."""
    source = draft["source"]
    return {"id": draft["id"], "title": None, "exception": draft["exception"], "message": draft["message"],
            "path": source["path"], "line": source["line"], "function": source["function"], "tags": draft["tags"],
            "meaning": draft["meaning"], "status": "active", "url": f"errors/{draft['id']}/", "written": True,
            "variants": [], "yielded": False}


@pytest.fixture(scope="module")
def large(sites: Sites) -> tuple[Path, dict[str, Any]]:
    """Return a served site whose search index has 12,000 synthetic records, and that index.

    Only the search page is needed, so the basic site's pages carry the large index's fragments:
    rendering 12,000 pages would take minutes and change nothing a search loads.
    """
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.synth import _draft
    finally:
        sys.path.remove(str(ROOT))
    rng = random.Random(3)
    drafts = [_draft(rng, i, f"tinyserve/part_{i % 60}.py", 10 + i, "0" * 40) for i in range(LARGE)]
    # The synthetic messages draw on 446 words and start with 17: a library of 12,000 errors says more
    # (sglang's: 7,309 words, 1,622 first words). Each message here starts with one of 2,000 made-up words.
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "te", "vi", "zo", "pa", "qu", "bre", "dro", "fle", "gri"]
    words = sorted({"".join(rng.choice(syllables) for _ in range(3)) for _ in range(4000)})[:2000]
    for i, draft in enumerate(drafts):
        draft["message"] = f"{words[i % len(words)]} {draft['message']}"
    index = build_index([_entry(d) for d in drafts], base_url="https://example.github.io/tinyserve/")
    out = sites.folder / "served" / "large"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(sites["basic"].out_path, out)
    shutil.rmtree(out / "search")
    shutil.copytree(sites["basic"].out_path / "search", out / "search", ignore=shutil.ignore_patterns("*.js"))
    for path, body in shards.fragments(index).items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(body)
    return out, index


def _pastes(index: dict[str, Any]) -> list[str]:
    """Return real-looking pastes of the large site's messages: filled, with an exception name, in a traceback, typed."""
    rows = index["records"][::997][:10]
    message = index["fields"].index("message")
    filled = [r[message].replace("{", "").replace("}", "").replace("%d", "4096").replace("%s", "'auto'") for r in rows]
    traceback = ("Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 3, in <module>\n    main()\n"
                 f"  File \"/usr/lib/python3/site-packages/tinyserve/part_7.py\", line 40, in check\nValueError: {filled[0]}")
    chained = ("Traceback (most recent call last):\n  File \"/srv/app/store.py\", line 40, in get\n"
               "    return self._data[key]\nKeyError: 'missing'\n\n"
               "The above exception was the direct cause of the following exception:\n\n" + traceback)
    return filled[:6] + ["ValueError: " + filled[6], traceback, chained, "chunk size must be at le", "kv cache"]


def test_a_search_downloads_a_small_part_of_a_large_index(browser: Any, server_url: str,
                                                         large: tuple[Path, dict[str, Any]]) -> None:
    out, index = large
    whole = sum(len(b) for b in shards.fragments(index).values())
    for text in _pastes(index):
        with open_tab(browser, server_url, 1280) as tab:
            tab.page.goto(f"{server_url}/large/search/index.html?q={quote(text)}", wait_until="domcontentloaded")
            first_result(tab.page)
            fragments = tab.page.evaluate(FRAGMENT_BYTES)
            # Searched again, the fragments are those the page has: the answer is the whole index's.
            got = tab.page.evaluate("q => ErrorsiteSearch.run(q, 20).then(rs => rs.map(r => r.id))", text)
        assert got == [r["id"] for r in search(index, text, 20)], text
        loaded = sum(size for _, size in fragments)
        assert 0 < loaded < SEARCH_BUDGET, (text, loaded, sorted(fragments, key=lambda f: -f[1])[:5])
        assert loaded < whole / 20
