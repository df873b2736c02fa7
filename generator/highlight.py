"""Code to HTML with Pygments: snippets with file line numbers, and before/after diffs."""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from html import escape

from pygments import lex
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import STANDARD_TYPES, Token, _TokenType
from pygments.util import ClassNotFound

from . import model

WORD = re.compile(r"\s+|\w+|[^\w\s]")


def lexer_exists(name: str) -> bool:
    """Return whether Pygments knows a lexer called `name`."""
    try:
        get_lexer_by_name(name)
    except ClassNotFound:
        return False
    return True


@lru_cache(maxsize=64)
def _lexer(name: str) -> Lexer:
    # Without stripnl=False, leading and trailing blank lines vanish and line numbers lie.
    return get_lexer_by_name(name, stripnl=False, ensurenl=False, tabsize=0)


@lru_cache(maxsize=256)
def lexer_for_path(path: str) -> str:
    """Return the name of the lexer for a source file, plain text when unknown."""
    try:
        return get_lexer_for_filename(path).aliases[0]
    except (ClassNotFound, IndexError):
        return "text"


_FORMATTER = HtmlFormatter(nowrap=True)


@lru_cache(maxsize=4096)
def highlighted_lines(code: str, language: str) -> tuple[str, ...]:
    """Return each line of `code` as HTML, highlighted once per distinct code."""
    lines = model.snippet_lines(code)
    tokens = lex("\n".join(lines), _lexer(language))
    html = _format(tokens)
    out = html.split("\n")
    # Pygments may add or drop a final empty line; the file's lines are the truth.
    return tuple((out + [""] * len(lines))[: len(lines)])


def _format(tokens: object) -> str:
    parts = []
    for ttype, value in tokens:  # type: ignore[attr-defined]
        parts.append(_span(ttype, escape(value, quote=False)))
    return "".join(parts)


def _css_class(ttype: _TokenType) -> str:
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]


def _span(ttype: _TokenType, html: str) -> str:
    cls = _css_class(ttype)
    if not cls or not html:
        return html
    # A span must not cross a line break, or splitting into lines breaks the markup.
    return "\n".join(f'<span class="{cls}">{part}</span>' if part else "" for part in html.split("\n"))


def snippet_html(snippet: model.Snippet, mark: int, language: str) -> str:
    """Return the snippet's lines numbered as in the file, the line `mark` marked."""
    rows = []
    for number, html in enumerate(highlighted_lines(snippet.code, language), snippet.start):
        line = f'<span class="ln" data-n="{number}"></span>{html}'
        if number == mark:
            line = f'<mark class="hl" id="raise-line">{line}</mark>'
        rows.append(line)
    return "\n".join(rows)


def code_html(code: str, language: str) -> str:
    """Return `code` highlighted, without line numbers."""
    return "\n".join(highlighted_lines(code, language))


def diff_html(before: str, after: str, language: str) -> tuple[str, str]:
    """Return before and after highlighted, with removed text in <del> and added text in <ins>."""
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
    # Only token colours: the page's own CSS sets backgrounds, and comments cost bytes.
    rules = HtmlFormatter(style=style).get_token_style_defs(".code")
    rules = [re.sub(r"\s*/\*.*?\*/", "", rule) for rule in rules]
    rules = [re.sub(r"\s*([{};:])\s*", r"\1", rule) for rule in rules]
    return "".join(rule for rule in rules if not rule.endswith("{}"))
