"""Code to HTML with Pygments: snippets with file line numbers, and before/after diffs."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from .. import model

if TYPE_CHECKING:
    from pygments.lexer import Lexer
    from pygments.token import _TokenType

WORD = re.compile(r"\s+|\w+|[^\w\s]")
REMEMBERED = 4096
"""Highlighted codes a Highlighter keeps in memory; beyond, it starts again (the store keeps them all)."""
TOKENS_REMEMBERED = 65536
"""Distinct tokens whose HTML is kept in memory; beyond, it starts again."""


class Store(Protocol):
    """Highlighted HTML kept by what it was made from (see store.HighlightStore)."""

    def get(self, *parts: str) -> str | None:
        """Return the HTML made from `parts`, or None."""

    def put(self, html: str, *parts: str) -> None:
        """Keep the HTML made from `parts`."""


@lru_cache(maxsize=256)
def lexer_exists(name: str) -> bool:
    """Return whether Pygments knows a lexer called `name`."""
    from pygments.lexers import find_lexer_class_by_name, get_all_lexers
    from pygments.util import ClassNotFound

    # A built-in lexer is known by its names without importing its module, which is most of the
    # time of this test; only a plugin's lexer needs its class.
    if any(name.lower() in aliases for _, aliases, _, _ in get_all_lexers(plugins=False)):
        return True
    try:
        find_lexer_class_by_name(name)  # the class only: making a lexer compiles its rules
    except ClassNotFound:
        return False
    return True


@lru_cache(maxsize=256)
def lexer_for_path(path: str) -> str:
    """Return the name of the lexer for a source file, plain text when unknown."""
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_for_filename(path).aliases[0]
    except (ClassNotFound, IndexError):
        return "text"


class Highlighter:
    """Code to highlighted HTML, each distinct code once, answering from a store first when given one.

    Pygments is imported on the first code the store does not hold: a build that renders one
    page whose code was highlighted before does not pay for it.
    """

    def __init__(self, store: Store | None = None, lexer_names: dict[str, str] | None = None) -> None:
        self.store = store
        self.lexer_names = {} if lexer_names is None else lexer_names
        """Source path -> lexer name, known already (finding it by file name is slow)."""
        self.made = 0
        """How many highlightings ran Pygments (the rest came from memory or the store)."""
        self._lines: dict[tuple[str, str], tuple[str, ...]] = {}

    def lexer_for_path(self, path: str) -> str:
        """Return the name of the lexer for a source file, plain text when unknown."""
        name = self.lexer_names.get(path)
        if name is None:
            name = self.lexer_names[path] = lexer_for_path(path)
        return name

    def lines(self, code: str, language: str) -> tuple[str, ...]:
        """Return each line of `code` as HTML."""
        found = self._lines.get((code, language))
        if found is not None:
            return found
        html = self.store.get("lines", language, code) if self.store is not None else None
        if html is None:
            html = "\n".join(_highlighted_lines(code, language))
            self.made += 1
            if self.store is not None:
                self.store.put(html, "lines", language, code)
        if len(self._lines) >= REMEMBERED:
            self._lines.clear()
        found = self._lines[code, language] = tuple(html.split("\n"))
        return found

    def snippet_html(self, snippet: model.Snippet, mark: int, language: str) -> str:
        """Return the snippet's lines, each after a place for its number, the line `mark` marked.

        The stylesheet numbers them (a CSS counter of the `pre` that holds them, which starts at the
        line before `snippet.start`): the numbers would be a fifth of a snippet's bytes.
        """
        rows = []
        for number, html in enumerate(self.lines(snippet.code, language), snippet.start):
            line = f'<span class="ln"></span>{html}'
            if number == mark:
                line = f'<mark class="hl" id="raise-line">{line}</mark>'
            rows.append(line)
        return "\n".join(rows)

    def code_html(self, code: str, language: str) -> str:
        """Return `code` highlighted, without line numbers."""
        return "\n".join(self.lines(code, language))

    def diff_html(self, before: str, after: str, language: str) -> tuple[str, str]:
        """Return before and after highlighted, with removed text in <del> and added text in <ins>."""
        if self.store is not None:
            old, new = self.store.get("del", language, before, after), self.store.get("ins", language, before, after)
            if old is not None and new is not None:
                return old, new
        old, new = _diff_html(before, after, language)
        self.made += 1
        if self.store is not None:
            self.store.put(old, "del", language, before, after)
            self.store.put(new, "ins", language, before, after)
        return old, new


@lru_cache(maxsize=64)
def _lexer(name: str) -> Lexer:
    from pygments.lexers import get_lexer_by_name

    from . import fastlex

    # Without stripnl=False, leading and trailing blank lines vanish and line numbers lie.
    return fastlex.accelerate(get_lexer_by_name(name, stripnl=False, ensurenl=False, tabsize=0))


def _highlighted_lines(code: str, language: str) -> list[str]:
    from pygments import lex

    lines = model.snippet_lines(code)
    html = _format(lex("\n".join(lines), _lexer(language)))
    out = html.split("\n")
    # Pygments may add or drop a final empty line; the file's lines are the truth.
    return (out + [""] * len(lines))[: len(lines)]


_TOKENS: dict[tuple[_TokenType, str], tuple[str | None, str]] = {}
"""(token type, text) -> its CSS class (see `_shown_class`) and its HTML: keywords, names and punctuation
come back again and again."""


def _format(tokens: object) -> str:
    """Return tokens as HTML: a span around each run of tokens of one class, none around text that looks
    as plain code does, and blank space between two tokens of one class inside their run."""
    from html import escape

    if len(_TOKENS) >= TOKENS_REMEMBERED:
        _TOKENS.clear()
    parts: list[str] = []
    run_class, run, blank = "", [], ""
    for token in tokens:  # type: ignore[attr-defined]
        found = _TOKENS.get(token)
        if found is None:
            found = _TOKENS[token] = (_shown_class(token[0], token[1]), escape(token[1], quote=False))
        cls, html = found
        if cls is None:
            blank += html
        elif cls and cls == run_class:
            run += [blank, html]
            blank = ""
        else:
            if run:
                parts.append(_wrapped(run_class, "".join(run)))
            parts.append(blank)
            run_class, run, blank = cls, [html] if cls else [], ""
            if not cls:
                parts.append(html)
    if run:
        parts.append(_wrapped(run_class, "".join(run)))
    parts.append(blank)
    return "".join(parts)


_CLASSES: dict[_TokenType, tuple[str, bool]] = {}
"""Token type -> its CSS class, empty when its tokens look as plain code does, and whether blank space
of it looks so too; found once per type."""


def _shown_class(ttype: _TokenType, text: str) -> str | None:
    """Return the CSS class a token is shown with: empty when it needs none, None when it is blank space
    that looks the same in any span."""
    found = _CLASSES.get(ttype)
    if found is None:
        from pygments.token import STANDARD_TYPES

        standard: _TokenType | None = ttype
        while standard is not None and standard not in STANDARD_TYPES:
            standard = standard.parent
        cls = STANDARD_TYPES[standard] if standard is not None else ""
        plain, blank = _looks()
        found = _CLASSES[ttype] = ("" if cls in plain else cls, cls in blank)
    cls, blank_space = found
    return None if (blank_space or not cls) and text and not text.strip(" \t\n") else cls


@lru_cache(maxsize=1)
def _looks() -> tuple[frozenset[str], frozenset[str]]:
    """Return the CSS classes whose tokens look as plain code does in both styles, and those whose blank
    space does (they change only its colour, which blank space does not show)."""
    from pygments.styles import get_style_by_name
    from pygments.token import STANDARD_TYPES, Token

    plain, blank = set(STANDARD_TYPES.values()), set(STANDARD_TYPES.values())
    # The page's text colour is each style's own (style.css: --fg), so a token styled as the root is plain.
    for style in (get_style_by_name(LIGHT_STYLE), get_style_by_name(DARK_STYLE)):
        root = style.style_for_token(Token)
        for ttype, cls in STANDARD_TYPES.items():
            looks = style.style_for_token(ttype)
            if looks != root:
                plain.discard(cls)
            if {**looks, "color": root["color"]} != root:
                blank.discard(cls)
    return frozenset(plain), frozenset(blank)


def _span(ttype: _TokenType, html: str) -> str:
    cls = _shown_class(ttype, html)
    return _wrapped(cls, html) if cls and html else html


def _wrapped(cls: str, html: str) -> str:
    """Return HTML in a span of class `cls`."""
    if "\n" not in html:
        return f'<span class="{cls}">{html}</span>'
    # A span must not cross a line break, or splitting into lines breaks the markup.
    return "\n".join(f'<span class="{cls}">{part}</span>' if part else "" for part in html.split("\n"))


def _diff_html(before: str, after: str, language: str) -> tuple[str, str]:
    import difflib

    old, new = WORD.findall(before), WORD.findall(after)
    removed, added = [False] * len(before), [False] * len(after)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            _flag(removed, old, i1, i2)
            _flag(added, new, j1, j2)
    return _marked(before, removed, language, "del"), _marked(after, added, language, "ins")


def _flag(flags: list[bool], words: list[str], start: int, end: int) -> None:
    offset = sum(map(len, words[:start]))
    for word in words[start:end]:
        if not word.isspace():
            flags[offset : offset + len(word)] = [True] * len(word)
        offset += len(word)


def _marked(text: str, changed: list[bool], language: str, tag: str) -> str:
    from html import escape

    from pygments import lex

    parts, pos = [], 0
    for ttype, value in lex(text, _lexer(language)):
        value = value[: len(text) - pos]
        for run_start, run_end in _runs(changed, pos, pos + len(value)):
            html = _span(ttype, escape(text[run_start:run_end], quote=False))
            parts.append(f"<{tag}>{html}</{tag}>" if changed[run_start] else html)
        pos += len(value)
    return "".join(parts)


def _runs(flags: list[bool], start: int, end: int) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for index in range(start, end):
        if runs and flags[index] == flags[runs[-1][0]]:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs


LIGHT_STYLE = "default"
DARK_STYLE = "github-dark"


@lru_cache(maxsize=1)
def pygments_css() -> str:
    """Return the token colours: a light style, and a dark one under prefers-color-scheme."""
    light = _token_rules(LIGHT_STYLE)
    dark = _token_rules(DARK_STYLE)
    return f"{light}\n@media (prefers-color-scheme:dark){{{dark}}}\n"


def _token_rules(style: str) -> str:
    from pygments.formatters import HtmlFormatter

    # Only token colours: the page's own CSS sets backgrounds, and comments cost bytes.
    rules = HtmlFormatter(style=style).get_token_style_defs(".code")
    rules = [re.sub(r"\s*/\*.*?\*/", "", rule) for rule in rules]
    rules = [re.sub(r"\s*([{};:])\s*", r"\1", rule) for rule in rules]
    plain = _looks()[0]
    # Tokens that look as plain code does have no span (`_format`), so no rule.
    return "".join(rule for rule in rules if not rule.endswith("{}") and rule.split("{")[0].split(".")[-1] not in plain)
