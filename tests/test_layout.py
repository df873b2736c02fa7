"""Layout, reading without JavaScript, and the keyboard, measured in headless Chromium.

At 360 and 1280 px wide no page scrolls sideways (only code blocks scroll, inside
themselves), no two things overlap, and the raise line of a snippet is on screen.
"""

from __future__ import annotations

from typing import Any

import pytest

from browser_support import VIEWS, WIDTHS, Sites, View, open_tab

pytestmark = pytest.mark.browser

EVERY_PAGE_OF = ["basic", "hostile", "embedded"]

# Returns what is wrong with the page's layout, one sentence each.
MEASURE = """() => {
  const problems = [];
  const width = document.documentElement.clientWidth;
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  // checkVisibility is false inside a closed <details>, which still has boxes.
  const shown = el => el.getClientRects().length > 0 && el.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true});
  // Hidden on purpose: visually hidden labels, the skip link until focused, a closed popup.
  const offByDesign = el => el.closest(".vh, .skip, [hidden]");

  if (document.documentElement.scrollWidth > width) {
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in a ${width} px window`);
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (offByDesign(el) || !shown(el) || el.parentElement.closest("pre")) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > width + 0.5 || r.left < -0.5)) {
      problems.push(`${name(el)} sticks out: ${Math.round(r.left)}..${Math.round(r.right)} in ${width} px`);
    }
  }

  // Pairs of boxes that must not overlap; a popup (.suggest) lies over the page by design.
  const boxes = [];
  const candidates = "a, button, input, summary, h1, h2, h3, p, li, dt, dd, pre, figcaption, th, td, .badge, var, label";
  for (const el of document.body.querySelectorAll(candidates)) {
    if (offByDesign(el) || !shown(el) || el.closest(".suggest") || el.parentElement.closest("pre")) continue;
    const display = getComputedStyle(el).display;
    const rects = display.startsWith("inline") && display !== "inline-block" ? [...el.getClientRects()] : [el.getBoundingClientRect()];
    rects.filter(r => r.width > 0 && r.height > 0).forEach(r => boxes.push([el, r]));
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, ra] = boxes[i], [b, rb] = boxes[j];
      if (a === b || a.contains(b) || b.contains(a)) continue;
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 1 && y > 1) problems.push(`${name(a)} and ${name(b)} overlap by ${Math.round(x)}x${Math.round(y)} px`);
    }
  }

  const mark = document.getElementById("raise-line");
  if (mark) {
    const pre = mark.closest("pre");
    // Scroll the window only: the line must show where the snippet starts, unscrolled.
    window.scrollTo(0, window.scrollY + mark.getBoundingClientRect().top - innerHeight / 2);
    const m = mark.getBoundingClientRect(), p = pre.getBoundingClientRect();
    const left = p.left + pre.clientLeft, top = p.top + pre.clientTop;
    const seenX = Math.min(m.right, left + pre.clientWidth) - Math.max(m.left, left);
    const seenY = Math.min(m.bottom, top + pre.clientHeight) - Math.max(m.top, top);
    if (!(m.height > 0 && seenX >= Math.min(m.width, 40) && seenY >= m.height - 1)) {
      problems.push(`the raise line is not visible in its snippet (${Math.round(seenX)}x${Math.round(seenY)} px seen)`);
    } else {
      const hit = document.elementFromPoint(Math.max(m.left, left) + 8, m.top + m.height / 2);
      if (!hit || !mark.contains(hit)) problems.push(`the raise line is covered by ${hit ? name(hit) : "nothing on screen"}`);
    }
  }
  return problems.slice(0, 30);
}"""


def measure(page: Any) -> list[str]:
    """Return what is wrong with the layout of the page as it is now."""
    return page.evaluate(MEASURE)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("view", VIEWS, ids=[v.name for v in VIEWS])
def test_views_fit_without_overlap(browser: Any, sites: Sites, server_url: str, view: View, width: int) -> None:
    with open_tab(browser, server_url, width) as tab:
        view.show(tab, sites)
        assert measure(tab.page) == []


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", EVERY_PAGE_OF)
def test_every_page_fits_without_overlap(browser: Any, sites: Sites, server_url: str, name: str, width: int) -> None:
    site = sites[name]
    found = {}
    with open_tab(browser, server_url, width) as tab:
        for page in site.pages():
            tab.page.goto(site.url(page), wait_until="load")
            problems = measure(tab.page)
            if problems:
                found[page] = problems
    assert found == {}


def test_marked_line_of_a_very_long_raise_is_visible(browser: Any, sites: Sites, server_url: str) -> None:
    # The hostile record raises on a line of more than 2,000 characters.
    with open_tab(browser, server_url, 360) as tab:
        tab.page.goto(sites["hostile"].url("errors/hostile-everything/index.html"))
        assert tab.page.evaluate("document.getElementById('raise-line').getBoundingClientRect().width") > 2000
        assert measure(tab.page) == []


# Reading without JavaScript


@pytest.mark.parametrize("name", EVERY_PAGE_OF)
def test_every_page_reads_without_javascript(browser: Any, sites: Sites, server_url: str, name: str) -> None:
    site = sites[name]
    unreadable = []
    with open_tab(browser, server_url, 360, javascript=False) as tab:
        for page in site.pages():
            tab.page.goto(site.url(page), wait_until="load")
            main = tab.page.locator("main")
            heading = tab.page.locator("main h1")
            # Without JavaScript the page cannot change: its main text is read once.
            shown = heading.is_visible()
            text = main.inner_text() if shown else ""
            if not (shown and len(text.strip()) > len(heading.inner_text().strip()) + 5):
                unreadable.append(page)
            elif page.startswith("errors/") and page != "errors/index.html" and "moved" not in text:
                for part in ("pre.message", "pre.code"):
                    if not tab.page.is_visible(f"main {part}"):
                        unreadable.append(f"{page}: {part}")
    assert unreadable == []


def test_search_page_without_javascript_says_so_and_links_the_full_list(browser: Any, sites: Sites, server_url: str) -> None:
    with open_tab(browser, server_url, 360, javascript=False) as tab:
        tab.page.goto(sites["basic"].url("search/index.html?q=max_batch_tokens"))
        notice = tab.page.locator("main .notice")
        assert notice.is_visible() and "JavaScript" in notice.inner_text()
        link = notice.locator("a[href$='errors/index.html']")
        assert link.is_visible()
        link.click()
        tab.page.wait_for_url("**/errors/index.html")
        assert tab.page.locator("main .errors li").count() == 3


# The keyboard alone


def tab_to(page: Any, selector: str, limit: int = 80) -> list[str]:
    """Press Tab until the focus is on an element matching `selector`; return what was focused on the way."""
    seen = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate("""sel => {
          const el = document.activeElement, style = getComputedStyle(el);
          const ring = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
          return [el.matches(sel), el.tagName.toLowerCase() + "." + el.className, ring];
        }""", selector)
        assert focused[2], f"{focused[1]} has no visible focus ring"
        seen.append(focused[1])
        if focused[0]:
            return seen
    raise AssertionError(f"Tab never reached {selector}; it went through {seen}")


def test_copy_buttons_work_by_keyboard(browser: Any, sites: Sites, server_url: str) -> None:
    with open_tab(browser, server_url, 360) as tab:
        tab.page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server_url)
        tab.page.goto(sites["basic"].url("errors/batch-tokens-below-chunk/index.html"))
        tab.page.wait_for_selector("button.copy")
        assert tab.page.locator("button.copy").count() == 5  # the snippet, when (from the code), before, after, in code
        tab_to(tab.page, "button.copy")
        tab.page.keyboard.press("Enter")
        tab.page.wait_for_function("document.activeElement.textContent === 'Copied'")
        copied = tab.page.evaluate("navigator.clipboard.readText()")
        assert copied.splitlines()[4].strip() == "raise ValueError("
        tab_to(tab.page, "button.copy")
        tab.page.keyboard.press("Space")
        tab.page.wait_for_function("document.activeElement.textContent === 'Copied'")
        assert tab.page.evaluate("navigator.clipboard.readText()").strip() == "tinyserve --max-batch-tokens 2048 --chunk-size 4096"


def test_slash_focuses_the_search_box_but_types_a_slash_in_a_field(browser: Any, sites: Sites, server_url: str) -> None:
    with open_tab(browser, server_url, 1280) as tab:
        tab.page.goto(sites["basic"].url("index.html"))
        tab.page.keyboard.press("/")
        assert tab.page.evaluate("document.activeElement.id") == "q-home"
        tab.page.keyboard.type("a/b")
        assert tab.page.input_value("#q-home") == "a/b"
        tab.page.goto(sites["basic"].url("errors/old-kv-dtype/index.html"))
        tab.page.keyboard.press("/")
        assert tab.page.evaluate("document.activeElement.closest('.top') !== null && document.activeElement.tagName") == "TEXTAREA"


def test_search_by_keyboard_alone(browser: Any, sites: Sites, server_url: str) -> None:
    message = "max_batch_tokens must be a multiple of 8, got 12"
    with open_tab(browser, server_url, 360) as tab:
        # From the home page: "/", type, Enter opens the search page with the results.
        tab.page.goto(sites["basic"].url("index.html"))
        tab.page.keyboard.press("/")
        tab.page.keyboard.type(message)
        tab.page.keyboard.press("Enter")
        tab.page.wait_for_url("**/search/index.html?q=*")
        tab.page.wait_for_selector("#results li")
        assert tab.page.evaluate("document.activeElement.id") == "q-page" or tab_to(tab.page, "#q-page")
        tab.page.keyboard.press("ArrowDown")
        tab.page.keyboard.press("Enter")
        tab.page.wait_for_url("**/errors/batch-tokens-multiple/index.html?m=*")
        tab.page.wait_for_selector("#yours", state="visible")
        assert "12" in tab.page.inner_text("#yours-values")
        # From an error page: the header's box suggests as you type; arrows and Enter open one.
        tab.page.keyboard.press("/")
        tab.page.keyboard.type("kv cache dtype")
        tab.page.wait_for_selector(".suggest li")
        tab.page.keyboard.press("ArrowDown")
        tab.page.keyboard.press("Enter")
        tab.page.wait_for_url("**/errors/old-kv-dtype/index.html*")


def test_the_measurements_catch_what_they_look_for(browser: Any, server_url: str) -> None:
    # Guards the tests above: measurements that found nothing anywhere would pass them.
    with open_tab(browser, server_url, 360) as tab:
        tab.page.set_content(
            '<main><h1>x</h1><p style="width:600px">wide</p>'
            '<button style="position:absolute;top:0;left:0">a</button><button style="position:absolute;top:0;left:5px">b</button>'
            '<pre style="height:20px;overflow:hidden"><code>\n\n\n<mark id="raise-line">raise</mark></code></pre></main>'
        )
        problems = "\n".join(measure(tab.page))
    assert "the page scrolls sideways" in problems
    assert "p sticks out" in problems
    assert "button and button overlap" in problems
    assert "the raise line is not visible" in problems
