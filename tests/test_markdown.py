"""Markdown: CommonMark with tables, no raw HTML, only safe links, no typography."""

from __future__ import annotations

import pytest

from errorsite import markdown


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JaVaScRiPt:alert(1)", "vbscript:x", "data:text/html,x", "file:///etc/passwd",
    " javascript:alert(1)", "java\tscript:alert(1)", "javascript&#58;alert(1)", "jav&#x09;ascript:alert(1)",
])
def test_unsafe_links_are_text(url: str) -> None:
    html = markdown.render(f"[click]({url}) and <{url}>")
    assert "<a " not in html


@pytest.mark.parametrize("url", ["https://a.example/x?y=1", "http://a.example", "mailto:me@a.example",
                                 "../other-id/", "page.html#part", "#section"])
def test_safe_links_survive(url: str) -> None:
    assert '<a href="' in markdown.render(f"[ok]({url})")


def test_raw_html_is_shown_as_text() -> None:
    html = markdown.render('<script>alert(1)</script>\n\n<b onclick="x">bold</b> <img src=x onerror=y>')
    assert "<script" not in html and "<b " not in html and "<img" not in html
    assert "&lt;script&gt;" in html


def test_no_typographic_replacement() -> None:
    html = markdown.render('Use --page-size 1 and "quotes" -- not (c) or ...')
    assert '--page-size 1' in html and "&quot;quotes&quot;" in html and "(c)" in html and "..." in html


def test_tables_and_highlighted_fences() -> None:
    html = markdown.render("| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nx = 1\n```\n")
    assert "<table>" in html and '<pre class="code"><code>x <span class="o">=</span> <span class="mi">1</span>' in html


def test_images_become_plain_links() -> None:
    assert "<img" not in markdown.render("![diagram](https://a.example/d.png)")


def test_plain_text_for_descriptions() -> None:
    assert markdown.plain("Use `--x` or *y*,\nthen [z](https://a.example).") == "Use --x or y, then z."
