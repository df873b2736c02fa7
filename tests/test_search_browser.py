"""Search in a real browser: typing, pasting, ?q=, the keyboard, ?m= values, hostile text."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from browser_support import Sites, open_tab
from errorsite.search.index import field_positions, read_index_script
from errorsite.search.rank import search
from errorsite.search.text import lower

pytestmark = pytest.mark.browser

TRACEBACK = """Traceback (most recent call last):
  File "/srv/app/launch.py", line 12, in <module>
    main()
  File "/usr/lib/python3/site-packages/tinyserve/config/batching.py", line 10, in check_batching
    raise ValueError("max_batch_tokens must be a multiple of 8, got %d" % args.max_batch_tokens)
ValueError: max_batch_tokens must be a multiple of 8, got 1001"""
FILLED = ("max_batch_tokens (2048) must be at least chunk_size (4096); "
          "raise --max-batch-tokens or lower --chunk-size.")


def first_result(page: Any) -> str:
    page.wait_for_selector("#results li")
    return page.get_attribute("#results [role=option]", "id").removeprefix("r-")


def test_typing_a_query_lists_the_best_match_first_with_the_matched_text_marked(browser: Any, sites: Sites, server_url: str) -> None:
    with open_tab(browser, server_url) as tab:
        tab.page.goto(sites["basic"].url("search/index.html"))
        tab.page.type("main .searchbox textarea", "ValueError: " + FILLED, delay=0)
        assert first_result(tab.page) == "batch-tokens-below-chunk"
        marked = tab.page.eval_on_selector_all("#results li:first-child mark", "ms => ms.map(m => m.textContent)")
        assert marked[:2] == ["max_batch_tokens (", ") must be at least chunk_size ("]
        assert "ValueError" in tab.page.inner_text("#results li:first-child")
        assert "tinyserve/config/batching.py:5" in tab.page.inner_text("#results li:first-child")


def test_pasting_a_traceback(browser: Any, sites: Sites, server_url: str) -> None:
    with open_tab(browser, server_url) as tab:
        tab.page.goto(sites["basic"].url("search/index.html"))
        tab.page.fill("main .searchbox textarea", TRACEBACK)
        assert first_result(tab.page) == "batch-tokens-multiple"


def test_a_full_match_is_said_to_match_only_when_it_is_confident(browser: Any, sites: Sites, server_url: str) -> None:
    with open_tab(browser, server_url) as tab:
        tab.page.goto(sites["basic"].url("search/index.html"))
        tab.page.fill("main .searchbox textarea", "ValueError: max_batch_tokens must be a multiple of 8, got 1001")
        assert first_result(tab.page) == "batch-tokens-multiple"
        assert "matches your message" in tab.page.inner_text("#results li:first-child")
        # Another class printed in front of the whole message (a base class, a wrapper): still the answer, noted.
        tab.page.fill("main .searchbox textarea", "TypeError: max_batch_tokens must be a multiple of 8, got 1001")
        tab.page.wait_for_function("document.querySelector('#results li') && "
                                   "document.querySelector('#results li').textContent.includes('printed as TypeError')")
        assert "matches your message" in tab.page.inner_text("#results li:first-child")
        # A traceback that never passes the raise's file says this raise did not print it: the match only resembles it.
        tab.page.fill("main .searchbox textarea", 'Traceback (most recent call last):\n  File "/srv/app/other.py", line 3, '
                      "in run\nValueError: max_batch_tokens must be a multiple of 8, got 1001")
        tab.page.wait_for_function("document.querySelector('#results li') && "
                                   "document.querySelector('#results li').textContent.includes('resembles')")
        assert first_result(tab.page) == "batch-tokens-multiple"
        assert "matches your message" not in tab.page.inner_text("#results")


def test_q_parameter_opens_a_search_and_enter_follows_the_selected_result(browser: Any, sites: Sites, server_url: str) -> None:
    with open_tab(browser, server_url) as tab:
        tab.page.goto(sites["basic"].url("search/index.html?q=" + quote(FILLED)))
        assert first_result(tab.page) == "batch-tokens-below-chunk"
        assert tab.page.input_value("main .searchbox textarea") == FILLED
        tab.page.focus("main .searchbox textarea")
        tab.page.keyboard.press("ArrowDown")
        assert tab.page.get_attribute("#results li:first-child a", "aria-selected") == "true"
        tab.page.keyboard.press("Enter")
        tab.page.wait_for_url("**/errors/batch-tokens-below-chunk/index.html?m=*")
        assert tab.page.is_visible("#yours")


def test_slash_focuses_the_search_box_and_suggestions_open_by_keyboard(browser: Any, sites: Sites, server_url: str) -> None:
    with open_tab(browser, server_url) as tab:
        tab.page.goto(sites["basic"].url("errors/old-kv-dtype/index.html"))
        tab.page.keyboard.press("/")
        assert tab.page.evaluate("document.activeElement.tagName") == "TEXTAREA"
        tab.page.keyboard.type("multiple of 8")
        tab.page.wait_for_selector(".suggest li")
        tab.page.keyboard.press("ArrowDown")
        tab.page.keyboard.press("Enter")
        tab.page.wait_for_url("**/errors/batch-tokens-multiple/index.html*")


def test_error_page_shows_the_readers_values_beside_the_placeholders(browser: Any, sites: Sites, server_url: str) -> None:
    with open_tab(browser, server_url) as tab:
        tab.page.goto(sites["basic"].url("errors/batch-tokens-below-chunk/index.html?m=" + quote(FILLED)))
        tab.page.wait_for_selector("#yours", state="visible")
        rows = tab.page.eval_on_selector_all("#yours-values tr", "rows => rows.map(r => r.innerText.split('\\t'))")
        assert rows == [["{args.max_batch_tokens}", "2048"], ["{args.chunk_size!r}", "4096"]]
        assert tab.page.inner_text("#yours-text") == FILLED


def test_the_message_you_saw_is_read_from_the_paste_as_the_search_reads_it(browser: Any, sites: Sites, server_url: str) -> None:
    # logging.error(traceback.format_exc()) puts the log prefix in front of the traceback's header.
    logged = ("ERROR:root:Traceback (most recent call last):\n"
              '  File "/srv/app/launch.py", line 12, in <module>\n'
              "    main()\n"
              "ValueError: " + FILLED + "\n\n")
    with open_tab(browser, server_url) as tab:
        tab.page.goto(sites["basic"].url("search/index.html?q=" + quote(logged)))
        assert first_result(tab.page) == "batch-tokens-below-chunk"
        tab.page.goto(sites["basic"].url("errors/batch-tokens-below-chunk/index.html?m=" + quote(logged)))
        tab.page.wait_for_selector("#yours", state="visible")
        assert tab.page.inner_text("#yours-text") == "ValueError: " + FILLED


def test_hostile_values_and_records_stay_text(browser: Any, sites: Sites, server_url: str) -> None:
    hostile = "max_batch_tokens (<img src=x onerror=alert(1)>) must be at least chunk_size (<script>alert(2)</script>); raise --max-batch-tokens or lower --chunk-size."
    with open_tab(browser, server_url) as tab:
        dialogs: list[str] = []
        tab.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        tab.page.goto(sites["basic"].url("errors/batch-tokens-below-chunk/index.html?m=" + quote(hostile)))
        tab.page.wait_for_selector("#yours", state="visible")
        assert tab.page.locator("#yours img, #yours script").count() == 0
        assert "<img src=x onerror=alert(1)>" in tab.page.inner_text("#yours-values")
        tab.page.goto(sites["hostile"].url("search/index.html?q=" + quote("<script>")))
        tab.page.wait_for_selector("#results li")
        assert tab.page.locator("#results img, #results script, #results b").count() == 0
        tab.page.wait_for_timeout(200)
        assert dialogs == []


QUERIES = [
    FILLED, TRACEBACK, "max_batch_tokens must be a multiple of 8, got 3", "batch tokens", "kv cache dtype",
    "2026-11-30 10:01:02,003 ERROR tinyserve.config: max_batch_tokens must be a multiple of 8, got 7",
    "MAX_BATCH_TOKENS (1) MUST BE AT LEAST", "chunk sise", "no such words qqzz",
]


@pytest.mark.parametrize("site", ["basic", "embedded"])
def test_browser_and_python_rank_alike(browser: Any, sites: Sites, server_url: str, site: str) -> None:
    built = sites[site]
    index = read_index_script((built.out_path / "search-index.js").read_bytes())
    assert index is not None
    message = field_positions(index)["message"]
    queries = QUERIES + [r[message] for r in index["records"][:20]]
    with open_tab(browser, server_url) as tab:
        tab.page.goto(built.url("search/index.html"))
        tab.page.wait_for_function("window.ErrorsiteSearch && window.ErrorsiteMatch")
        in_browser = tab.page.evaluate(
            "qs => Promise.all(qs.map(q => ErrorsiteSearch.run(q, 5).then(rs => rs.map(r => [r.id, r.kind]))))", queries)
    in_python = [[[r["id"], r["kind"]] for r in search(index, q, 5)] for q in queries]
    assert in_browser == in_python


def test_the_browser_lowercases_every_code_point_as_python_does(browser: Any, sites: Sites, server_url: str) -> None:
    """Chromium's own Unicode tables are newer than Python's: the search box uses the one table that lookup does."""
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    with open_tab(browser, server_url) as tab:
        tab.page.goto(sites["basic"].url("search/index.html"))
        tab.page.wait_for_function("window.ErrorsiteMatch")
        lowered = tab.page.evaluate("text => ErrorsiteMatch.lower(text)", every)
    ours = lower(every)
    assert len(lowered) == len(ours)
    assert [f"U+{ord(c):04X}" for c, b, p in zip(every, lowered, ours) if b != p] == []
