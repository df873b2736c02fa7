"""One configured Markdown renderer: CommonMark with tables, no raw HTML, safe links only."""

from __future__ import annotations

from functools import lru_cache, partial
from html import escape
from urllib.parse import urlsplit

from markdown_it import MarkdownIt

from .build.highlight import Highlighter, lexer_exists

SAFE_SCHEMES = frozenset({"http", "https", "mailto"})


def link_is_safe(url: str) -> bool:
    """Return whether `url` is http, https, mailto or relative."""
    cleaned = "".join(ch for ch in url if ch > " " and ch != "\x7f")
    try:
        scheme = urlsplit(cleaned).scheme
    except ValueError:
        return False
    if scheme:
        return scheme.lower() in SAFE_SCHEMES
    # "javascript&colon;..." and friends were decoded by the parser already; a
    # colon before any slash would still be read as a scheme by a browser.
    head = cleaned.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    return ":" not in head


def _fence(highlighter: Highlighter, code: str, language: str, _attrs: str) -> str:
    name = language.split()[0] if language else ""
    body = highlighter.code_html(code, name) if name and lexer_exists(name) else escape(code, quote=False)
    return f'<pre class="code"><code>{body}</code></pre>\n'


class _SafeMarkdownIt(MarkdownIt):
    """A MarkdownIt that links only to safe URLs."""

    def validateLink(self, url: str) -> bool:  # noqa: N802 (markdown-it's name)
        """Return whether the parser may turn `url` into a link."""
        return link_is_safe(url)


@lru_cache(maxsize=8)
def _renderer(highlighter: Highlighter) -> MarkdownIt:
    # typographer stays off: readers copy `--flag` and straight quotes from pages.
    md = _SafeMarkdownIt("commonmark", {"html": False, "typographer": False, "highlight": partial(_fence, highlighter)})
    md.enable("table")
    # Images would load from other sites; a link to the image is enough.
    md.disable("image")
    return md


_PLAIN = Highlighter()
_MD = _renderer(_PLAIN)


@lru_cache(maxsize=8192)
def render(text: str, highlighter: Highlighter = _PLAIN) -> str:
    """Return the HTML of a Markdown text, its code blocks highlighted by `highlighter`."""
    return _renderer(highlighter).render(text)


def plain(text: str) -> str:
    """Return a Markdown text as plain text, for descriptions and the search index."""
    tokens = _MD.parseInline(text)
    out = []
    for token in tokens:
        for child in token.children or ():
            if child.type in ("text", "code_inline"):
                out.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                out.append(" ")
    return " ".join("".join(out).split())
