"""The reader's side, in headless Chromium on a library-sized site (320 records, a few written).

The home page, lists in reading order, readable default titles, search results that are
links, the paste field, the reader's own message, layout with long paths and lines, and
every field of record format 1.1 on a page.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from browser_support import (BACKTICKS, EVERY_FIELD, LIBRARY_RECORDS, LONG_LINES, LONG_PATH, TRACEBACK_OF_A_VARIANT,
                             BuiltSite, Sites, open_tab, require_axe)
from conftest import FIXTURES
from errorsite import recordjson
from test_accessibility import axe, described
from test_layout import measure

PASTED_MESSAGE = "ValueError: chunk_size (8192) must not exceed max_batch_tokens (4096)"
BACKTICKS_TITLE = "… is not a known sampling parameter; expected one of …"


def natural(text: str) -> list[Any]:
    """Order text as people read it: `x 2` before `x 10`, case and a leading `…` aside."""
    return [int(p) if p.isdigit() else p.casefold() for p in re.split(r"(\d+)", text.lstrip("… "))]


@pytest.fixture(scope="module")
def library(sites: Sites) -> BuiltSite:
    """Return the library-sized site, built once."""
    return sites["library"]


def records(site: BuiltSite) -> dict[str, dict[str, Any]]:
    """Return every record as the site's JSON API publishes it, by id."""
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (site.out_path / "api" / "errors").glob("*.json")}


def written(record: dict[str, Any]) -> bool:
    """Return whether a record's JSON has any prose."""
    return any(k in record for k in ("meaning", "solutions", "example_fix", "when"))


# 1. The home page


@pytest.mark.browser
def test_home_has_one_large_search_box_coverage_recent_pages_and_groups(browser: Any, library: BuiltSite, server_url: str) -> None:
    every = records(library)
    assert len(every) >= 300
    done = sum(map(written, every.values()))
    assert 3 <= done < 10
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(library.url("index.html"))
        boxes = tab.page.locator(".searchbox textarea")
        assert boxes.count() == 1 and tab.page.locator("header .searchbox").count() == 0
        box = boxes.bounding_box()
        assert box["width"] > 600 and box["height"] > 70
        # Progress is the maintainers' business: it stands in the footer, with the link to help.
        coverage = tab.page.inner_text("footer .coverage")
        assert f" of {len(every)} pages written or reviewed by a person" in coverage and "Help write them" in coverage
        recent = tab.page.eval_on_selector_all(".recent li a", "as => as.map(a => a.getAttribute('href'))")
        # Newest analysis date first: every-field (2026-11-29), then long-lines (2026-11-28).
        assert recent[:2] == [f"./errors/{EVERY_FIELD}/index.html", f"./errors/{LONG_LINES}/index.html"]
        dates = tab.page.eval_on_selector_all(".recent li .meta", "ms => ms.map(m => m.textContent.slice(0, 10))")
        assert dates == sorted(dates, reverse=True) and len(dates) == done
        # The prose's own commit, not the snippet's pin.
        assert "c3d4e5f6a7" in tab.page.inner_text(".recent li:first-child .meta")
        for heading in ("By exception type", "By source file", "Tags"):
            assert tab.page.locator("main h2", has_text=heading).count() == 1


# 1. Lists: written pages first, then by title in natural order


@pytest.mark.browser
@pytest.mark.parametrize("page", ["errors/index.html", "exceptions/ValueError/index.html", "tags/batching/index.html",
                                  "the biggest file"])
def test_lists_put_written_pages_first_then_titles_in_natural_order(browser: Any, library: BuiltSite, server_url: str, page: str) -> None:
    if page == "the biggest file":
        paths = [r["source"]["path"] for r in records(library).values() if written(r)]
        page = f"files/{max(paths, key=lambda p: (sum(r['source']['path'] == p for r in records(library).values()), p))}/index.html"
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(library.url(page))
        items = tab.page.eval_on_selector_all("main ul.errors > li", """lis => lis.map(li => [
            li.querySelector('a').textContent, li.parentElement.classList.contains('written')])""")
    assert len(items) >= 2
    flags = [done for _, done in items]
    assert flags == sorted(flags, reverse=True), "a written page comes after one not yet written"
    for part in (True, False):
        titles = [title for title, done in items if done is part]
        assert titles == sorted(titles, key=natural)
    if page == "errors/index.html":
        assert any(flags) and not all(flags) and len(items) == LIBRARY_RECORDS + 3


def test_natural_order_reads_numbers_as_numbers() -> None:
    from errorsite.summary import natural_key

    titles = ["Page 10 is missing", "page 2 is missing", "Page 1 is missing", "a page", "… is not known", "`x` is wrong"]
    assert sorted(titles, key=natural_key) == [
        "a page", "… is not known", "Page 1 is missing", "page 2 is missing", "Page 10 is missing", "`x` is wrong"]


# 2. Readable default titles, the same everywhere


@pytest.mark.browser
def test_a_default_title_reads_as_text_everywhere(browser: Any, library: BuiltSite, server_url: str) -> None:
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(library.url(f"errors/{BACKTICKS}/index.html"))
        assert tab.page.inner_text("main h1") == BACKTICKS_TITLE
        assert tab.page.title().startswith(BACKTICKS_TITLE + " · ")
        assert tab.page.get_attribute("meta[property='og:title']", "content") == BACKTICKS_TITLE
        tab.page.goto(library.url("files/tinyserve/sampling/params.py/index.html"))
        assert tab.page.inner_text("main ul.errors a") == BACKTICKS_TITLE
        tab.page.goto(library.url("search/index.html?q=" + quote("not a known sampling parameter")))
        tab.page.wait_for_selector("#results [role=option]")
        assert tab.page.inner_text("#results li:first-child .title") == BACKTICKS_TITLE
        # No title anywhere shows a placeholder or Markdown quoting: lists, related links, search.
        for page in ("errors/index.html", f"errors/{LONG_LINES}/index.html", "index.html"):
            tab.page.goto(library.url(page))
            links = tab.page.eval_on_selector_all("main ul.errors a, main ul.related a", "as => as.map(a => a.textContent)")
            assert links and not [t for t in links if re.search(r"[`{}]|%[sdr]", t)]


# 3. Search results are links, under their own headings


@pytest.mark.browser
def test_results_are_links_and_after_a_full_match_at_most_five_others_follow(browser: Any, library: BuiltSite, server_url: str) -> None:
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(library.url("search/index.html?q=" + quote(PASTED_MESSAGE)))
        tab.page.wait_for_selector("#results a[href]")
        assert tab.page.inner_text("#search-status") == "1 page explains this message."
        assert tab.page.inner_text("#results-head") == "The page for this message"
        first = tab.page.locator("#results a").first
        assert first.get_attribute("href").startswith(f"../errors/{EVERY_FIELD}/index.html?m=")
        assert tab.page.is_visible("#others-head") and tab.page.inner_text("#others-head") == "Other results"
        others = tab.page.locator("#others li > a[href]")
        assert 1 <= others.count() <= 5
        assert tab.page.locator("#results li:not(:has(> a[href])), #others li:not(:has(> a[href]))").count() == 0
        # A link opens in a new tab (here: a middle click opens a page, this one stays).
        with tab.page.context.expect_page() as opened:
            others.first.click(button="middle")
        opened.value.wait_for_load_state()
        assert "/errors/" in opened.value.url and "/search/" in tab.page.url
        # The keyboard: Down selects, Up from the first goes back to the text, Enter follows.
        tab.page.focus("main .searchbox textarea")
        tab.page.keyboard.press("ArrowDown")
        assert first.get_attribute("aria-selected") == "true"
        assert tab.page.get_attribute("main .searchbox textarea", "aria-activedescendant") == f"r-{EVERY_FIELD}"
        tab.page.keyboard.press("ArrowDown")
        assert first.get_attribute("aria-selected") == "false" and others.first.get_attribute("aria-selected") == "true"
        tab.page.keyboard.press("ArrowUp")
        tab.page.keyboard.press("ArrowUp")
        assert tab.page.get_attribute("main .searchbox textarea", "aria-activedescendant") is None
        tab.page.keyboard.press("ArrowDown")
        tab.page.keyboard.press("Enter")
        tab.page.wait_for_url(f"**/errors/{EVERY_FIELD}/index.html?m=*")


@pytest.mark.browser
def test_no_confident_result_says_no_page_explains_it_and_lists_candidates_apart(browser: Any, library: BuiltSite, server_url: str) -> None:
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(library.url("search/index.html?q=" + quote("chunk size of the scheduler is wrong")))
        tab.page.wait_for_selector("#results a[href]")
        assert tab.page.inner_text("#search-status") == "No page explains this message."
        assert tab.page.inner_text("#results-head") == "Closest pages, none explains it"
        assert not tab.page.is_visible("#others-head")


@pytest.mark.browser
def test_results_follow_the_engines_confidence_when_it_gives_one(browser: Any, library: BuiltSite, server_url: str) -> None:
    # The engine may say that even a full match explains nothing (`confident: false`).
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(library.url("search/index.html"))
        tab.page.wait_for_function("window.ErrorsiteMatch && window.ErrorsiteSearch")
        tab.page.evaluate("""() => {
          const search = ErrorsiteMatch.searchLoaded;
          ErrorsiteMatch.searchLoaded = (loaded, text, limit) => search(loaded, text, limit).map(r => ({...r, confident: false}));
        }""")
        tab.page.fill("main .searchbox textarea", PASTED_MESSAGE)
        tab.page.wait_for_selector("#results a[href]")
        assert tab.page.inner_text("#search-status") == "No page explains this message."
        assert not tab.page.is_visible("#others-head")
        # Confident pages without a full match all count; after a full match, the others follow it.
        tab.page.evaluate("""() => {
          const search = ErrorsiteMatch.searchLoaded;
          ErrorsiteMatch.searchLoaded = (loaded, text, limit) => search(loaded, text, limit).map((r, i) => (
            {...r, kind: i < 2 ? "partial" : "words", confident: i < 2}));
        }""")
        tab.page.fill("main .searchbox textarea", PASTED_MESSAGE + " ")
        tab.page.wait_for_function("document.getElementById('search-status').textContent.startsWith('2 pages')")
        assert tab.page.locator("#results li").count() == 2 and tab.page.locator("#others li").count() <= 5
        tab.page.evaluate("""() => {
          const search = ErrorsiteMatch.searchLoaded;
          ErrorsiteMatch.searchLoaded = (loaded, text, limit) => search(loaded, text, limit).map((r, i) => (
            {...r, kind: i ? "partial" : "full", confident: true}));
        }""")
        tab.page.fill("main .searchbox textarea", PASTED_MESSAGE)
        tab.page.wait_for_function("document.getElementById('search-status').textContent.startsWith('1 page ')")
        assert tab.page.locator("#results li").count() == 1 and tab.page.locator("#others li").count() == 5


# 4. The paste field


@pytest.mark.browser
def test_the_paste_field_grows_searches_on_enter_and_keeps_line_breaks(browser: Any, library: BuiltSite, server_url: str) -> None:
    with open_tab(browser, server_url, 390) as tab:
        tab.page.goto(library.url(f"errors/{LONG_LINES}/index.html"))
        box = tab.page.locator(".top .searchbox textarea")
        before = box.bounding_box()["height"]
        box.focus()
        tab.page.keyboard.type("chunk_size")
        tab.page.keyboard.press("Shift+Enter")
        tab.page.keyboard.type("must not exceed")
        assert box.input_value() == "chunk_size\nmust not exceed"
        assert box.bounding_box()["height"] > before
        tab.page.keyboard.press("Enter")
        tab.page.wait_for_url("**/search/index.html?q=*")
        assert tab.page.input_value("main .searchbox textarea") == "chunk_size\nmust not exceed"
        # ?q= keeps the lines, and the search page's address keeps them as the reader edits.
        tab.page.goto(library.url("search/index.html?q=" + quote(TRACEBACK_OF_A_VARIANT)))
        tab.page.wait_for_selector("#results a[href]")
        assert tab.page.input_value("main .searchbox textarea") == TRACEBACK_OF_A_VARIANT
        assert tab.page.get_attribute("#results li:first-child a", "id") == f"r-{EVERY_FIELD}"
        tall = tab.page.locator("main .searchbox textarea").bounding_box()["height"]
        assert tall > 6 * 16
        tab.page.click("#results li:first-child a")
        tab.page.wait_for_selector("#yours", state="visible")
        # The message you saw: the exception's line, not the frames.
        assert tab.page.inner_text("#yours-text") == PASTED_MESSAGE


@pytest.mark.browser
def test_your_values_come_from_the_wording_you_pasted(browser: Any, library: BuiltSite, server_url: str) -> None:
    plural = "chunk_sizes (1024, 8192) must not exceed max_batch_tokens (4096)"
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(library.url(f"errors/{EVERY_FIELD}/index.html?m=" + quote(plural)))
        tab.page.wait_for_selector("#yours", state="visible")
        rows = tab.page.eval_on_selector_all("#yours-values tr", "rows => rows.map(r => r.innerText.split('\\t'))")
        assert rows == [["{sizes}", "1024, 8192"], ["{args.max_batch_tokens}", "4096"]]


# 5. No empty values table; long paths and lines


@pytest.mark.browser
def test_a_message_without_values_shows_no_values_table(browser: Any, library: BuiltSite, server_url: str) -> None:
    message = "speculative decoding cannot be combined with pipeline parallelism; disable one of them"
    with open_tab(browser, server_url, 390) as tab:
        tab.page.goto(library.url(f"errors/{LONG_LINES}/index.html?m=" + quote("ValueError: " + message)))
        tab.page.wait_for_selector("#yours", state="visible")
        assert tab.page.inner_text("#yours-text") == "ValueError: " + message
        assert tab.page.locator("#yours table").count() == 0


# Where a block's text goes past its edge unseen, and where a disclosure triangle is alone on its line.
CUT = """() => {
  const out = [];
  for (const pre of document.querySelectorAll(".before-after pre")) {
    if (pre.scrollWidth > pre.clientWidth + 1) out.push(`before/after: ${pre.scrollWidth} px in ${pre.clientWidth}`);
  }
  for (const pre of document.querySelectorAll("pre")) {
    const style = getComputedStyle(pre);
    if (pre.scrollWidth > pre.clientWidth + 1 && !["auto", "scroll"].includes(style.overflowX)) out.push("a pre cuts its text");
  }
  for (const summary of document.querySelectorAll("summary")) {
    const first = summary.firstElementChild;
    if (first && first.getClientRects()[0].top > summary.getBoundingClientRect().top + 4) out.push(`orphaned triangle: ${summary.textContent.slice(0, 60)}`);
  }
  return out;
}"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [360, 390, 1280])
@pytest.mark.parametrize("page", ["index.html", f"errors/{LONG_LINES}/index.html", f"files/{LONG_PATH}/index.html",
                                  f"errors/{EVERY_FIELD}/index.html"])
def test_long_paths_and_lines_wrap_or_scroll_inside_their_block(browser: Any, library: BuiltSite, server_url: str, page: str, width: int) -> None:
    with open_tab(browser, server_url, width) as tab:
        tab.page.goto(library.url(page))
        tab.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        assert tab.page.evaluate(CUT) == []
        assert measure(tab.page) == []


# Record format 1.1 on the page and in the JSON


@pytest.mark.browser
def test_every_field_of_record_format_1_1_shows_on_the_page(browser: Any, library: BuiltSite, server_url: str) -> None:
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(library.url(f"errors/{EVERY_FIELD}/index.html"))
        notice = tab.page.inner_text("main .notice.review")
        assert notice.startswith("This page may be out of date: the code changed at commit b2c3d4e5f6")
        assert "the code around the raise changed" in notice
        # The notice comes before the prose.
        assert tab.page.evaluate("""document.querySelector('.notice.review').compareDocumentPosition(
            document.getElementById('meaning')) & Node.DOCUMENT_POSITION_FOLLOWING""")
        kinds = tab.page.eval_on_selector_all(".variants li > .meta", "ms => ms.map(m => m.textContent)")
        assert kinds == ["Plural form", "Another branch", "Earlier wording, until a1b2c3d4e5"]
        assert tab.page.inner_text(".variants li:first-child pre") == (
            "chunk_sizes ({sizes}) must not exceed max_batch_tokens ({args.max_batch_tokens})")
        provenance = tab.page.inner_text("footer.provenance p:first-child")
        assert "example/tinyserve@c3d4e5f6a7" in provenance and "4f2a9c1d0b" not in provenance
        # The example was checked at another commit than the pin's: the page says the code changed since.
        assert tab.page.inner_text("#fix ~ .checked") == (
            "Example checked against d4e5f6a7b8 on 2026-11-25; the code has changed since.")
        details = tab.page.locator("details.check")
        assert not details.locator("pre").first.is_visible()
        details.locator("summary").click()
        text = details.inner_text()
        assert "tinyserve serve --config serve.toml --chunk-size 2048" in text and "serve.toml" in text
        tab.page.goto(library.url(f"errors/{LONG_LINES}/index.html"))
        assert tab.page.locator(".checked, details.check").count() == 0
        assert "example/tinyserve@4f2a9c1d0b" in tab.page.inner_text("footer.provenance")


@pytest.mark.browser
@pytest.mark.node
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_page_with_every_1_1_field_open_has_no_accessibility_violation(browser: Any, library: BuiltSite, server_url: str, scheme: str) -> None:
    with open_tab(browser, server_url, 390, scheme, scripts=(require_axe(),)) as tab:
        tab.page.goto(library.url(f"errors/{EVERY_FIELD}/index.html?m=" + quote(TRACEBACK_OF_A_VARIANT)))
        tab.page.wait_for_selector("#yours", state="visible")
        tab.page.click("details.check summary")
        violations = axe(tab)
        assert violations == [], described(violations)
        assert measure(tab.page) == []


def test_the_json_api_carries_the_1_1_fields(library: BuiltSite) -> None:
    data = records(library)[EVERY_FIELD]
    assert [v["kind"] for v in data["variants"]] == ["plural", "alternative", "earlier"]
    assert data["variants"][2]["until"] == "a1b2c3d4e5f6a7b8" and "until" not in data["variants"][0]
    assert data["review"] == {"since": "b2c3d4e5f6a7b8c9", "why": "code changed"}
    assert data["analysis"]["commit"] == "c3d4e5f6a7b8c9d0e1f2"
    assert data["example_fix"]["check"]["files"] == {"serve.toml": "chunk_size = 8192\nmax_batch_tokens = 4096\n"}
    assert data["example_fix"]["verified"] == {"commit": "d4e5f6a7b8c9d0e1f2a3", "date": "2026-11-25", "by": "errorsite verify"}
    assert "verified" not in records(library)[LONG_LINES]["example_fix"]


def test_a_new_analysis_date_reaches_the_home_page_in_the_next_build(tmp_path: Path) -> None:
    # Only the record's prose provenance changes: the build must still render the home page again.
    from errorsite.sitebuild import pipeline

    content = tmp_path / "content"
    shutil.copytree(FIXTURES / "basic", content)
    pipeline.build(content, tmp_path / "site")
    path = content / "errors" / "old-kv-dtype.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["analysis"] = {"by": "human", "date": "2026-11-15", "commit": "abcdef1234567"}
    path.write_text(recordjson.dumps(data), encoding="utf-8")
    pipeline.build(content, tmp_path / "site")
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    recent = home[home.index('id="recent"'):home.index('id="by-exception"')]
    assert recent.index("old-kv-dtype") < recent.index("batch-tokens-below-chunk")
    assert "abcdef1234" in recent
