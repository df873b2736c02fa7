"""Highlighting: file line numbers, the marked raise line, verbatim lines, before/after diffs."""

from __future__ import annotations

import re

from errorsite.sitebuild import highlight
from errorsite.model import Snippet


def rows(html: str, start: int = 1) -> list[tuple[int, str]]:
    """Return each line's number (the stylesheet counts them from the snippet's start) and text."""
    return [(n, re.sub(r"<[^>]+>", "", rest)) for n, rest in enumerate(re.findall(r'class="ln"></span>(.*)', html), start)]


def test_blank_lines_at_both_ends_keep_their_numbers() -> None:
    html = highlight.Highlighter().snippet_html(Snippet(40, "\n\nraise ValueError('x')\n\n"), 42, "python")
    assert [n for n, _ in rows(html, 40)] == [40, 41, 42, 43]
    assert html.split("\n")[2].startswith('<mark class="hl" id="raise-line"><span class="ln"></span>')


def test_tabs_crlf_and_markup_characters_are_kept_verbatim_and_escaped() -> None:
    html = highlight.Highlighter().snippet_html(Snippet(1, "if a < b:\r\n\traise E('<&>')\r\n"), 2, "python")
    assert [text for _, text in rows(html)] == ["if a &lt; b:", "\traise E('&lt;&amp;&gt;')"]
    assert "\r" not in html


def test_multi_line_tokens_never_span_a_line_break() -> None:
    html = highlight.Highlighter().snippet_html(Snippet(1, 'x = """one\ntwo\nthree"""\n'), 2, "python")
    for line in html.split("\n"):
        assert line.count("<span") == line.count("</span>")


def test_same_code_is_highlighted_once() -> None:
    highlighter = highlight.Highlighter()
    for mark in (1, 2):
        highlighter.snippet_html(Snippet(1, "a = 1\nraise X\n"), mark, "python")
    assert highlighter.made == 1


class DictStore(dict):  # type: ignore[type-arg]
    def get(self, *parts: str) -> str | None:  # type: ignore[override]
        return super().get(parts)

    def put(self, html: str, *parts: str) -> None:
        self[parts] = html


def test_a_store_answers_before_pygments() -> None:
    store = DictStore()
    first = highlight.Highlighter(store)
    snippet = first.snippet_html(Snippet(1, "a = 1\n"), 1, "python"), first.diff_html("a b", "a c", "shell")
    again = highlight.Highlighter(store)
    assert (again.snippet_html(Snippet(1, "a = 1\n"), 1, "python"), again.diff_html("a b", "a c", "shell")) == snippet
    assert first.made == 2 and again.made == 0


def test_diff_marks_only_what_changed() -> None:
    before, after = highlight.Highlighter().diff_html("serve --size 64 --fast", "serve --size 1 --fast", "shell")
    assert re.sub(r"<[^>]+>", "", before) == "serve --size 64 --fast"
    assert re.findall(r"<del>(.*?)</del>", before) and "64" in "".join(re.findall(r"<del>(.*?)</del>", before))
    assert "1" in "".join(re.findall(r"<ins>(.*?)</ins>", after))
    assert "serve" not in "".join(re.findall(r"<ins>(.*?)</ins>", after))


def test_lexers() -> None:
    assert highlight.lexer_exists("shell") and not highlight.lexer_exists("no-such-lexer")
    assert highlight.lexer_for_path("a/b.py") == "python"
    assert highlight.lexer_for_path("a/b.unknownext") == "text"


def test_token_colours_for_both_schemes() -> None:
    css = highlight.pygments_css()
    assert css.startswith(".code .") and "@media (prefers-color-scheme:dark)" in css and "/*" not in css
