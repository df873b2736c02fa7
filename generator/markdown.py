"""One configured Markdown renderer: CommonMark with tables, no raw HTML, safe links only.

What it makes is kept in the highlighter's store, by the text (see `build.store`): an edit of one
record renders the pages that link it again, whose prose did not change, without importing
markdown-it at all.
"""

from __future__ import annotations

from functools import lru_cache, partial
from html import escape
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .sitebuild.highlight import Highlighter, Store, lexer_exists

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

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


@lru_cache(maxsize=8)
def _renderer(highlighter: Highlighter) -> MarkdownIt:
    from markdown_it import MarkdownIt

    class SafeMarkdownIt(MarkdownIt):
        """A MarkdownIt that links only to safe URLs."""

        def validateLink(self, url: str) -> bool:  # noqa: N802 (markdown-it's name)
            """Return whether the parser may turn `url` into a link."""
            return link_is_safe(url)

    # typographer stays off: readers copy `--flag` and straight quotes from pages.
    md = SafeMarkdownIt("commonmark", {"html": False, "typographer": False, "highlight": partial(_fence, highlighter)})
    md.enable("table")
    # Images would load from other sites; a link to the image is enough.
    md.disable("image")
    return md


_PLAIN = Highlighter()


@lru_cache(maxsize=8192)
def render(text: str, highlighter: Highlighter = _PLAIN) -> str:
    """Return the HTML of a Markdown text, its code blocks highlighted by `highlighter` (from its store when it holds it)."""
    store = highlighter.store
    html = store.get("markdown", text) if store is not None else None
    if html is None:
        html = _renderer(highlighter).render(text)
        if store is not None:
            store.put(html, "markdown", text)
    return html


def plain(text: str, store: Store | None = None) -> str:
    """Return a Markdown text as plain text, for descriptions and the search index (from `store` when it holds it)."""
    found = store.get("plain", text) if store is not None else None
    if found is not None:
        return found
    out = []
    for token in _renderer(_PLAIN).parseInline(text):
        for child in token.children or ():
            if child.type in ("text", "code_inline"):
                out.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                out.append(" ")
    found = " ".join("".join(out).split())
    if store is not None:
        store.put(found, "plain", text)
    return found
