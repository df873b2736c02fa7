"""The one reader of message templates: `{name}`, `{}`, `%s`, `%(name)r` and their escapes.

The page (placeholders in `<var>`), related errors (the literal words), the search index
(compiled segments and spans) and matching all read a template through this module
(docs/matching.md, Templates). `link.py` has its own copy of the matching side: it is
vendored into other packages and stays standalone.
"""

from __future__ import annotations

import re
from functools import cache

from .text import WHITESPACE, collapse, tokenize

MAX_EXPR = 300
"""A `{` with no closing brace within this many code points is a literal brace."""
PERCENT = r"%(?:\([^()]*\))?[-#0+]*(?:\*|[0-9]+)?(?:\.(?:\*|[0-9]+))?[hlL]?[diouxXeEfFgGcrsa]"
"""A printf-style placeholder; a space is no flag, so `50% done` stays literal."""
_REPR_FIELD = r"![ra](?::|$)"
_ESCAPES = ("{{", "}}", "%%")
_SPECIAL = r"[{}%]"
"""What may begin an escape or a placeholder."""


# Compiled when first used, not on import: a build where nothing changed reads no template.
_compiled = cache(re.compile)

Segments = list[str | None]
"""A compiled template: normalised literals, None for each placeholder (adjacent ones merged)."""
Piece = tuple[int, int] | None
"""A literal's [start, end) in the message, or None for a placeholder."""


def _close(message: str, i: int) -> int:
    """Return the index of the `}` closing the `{` at `i` (braces nest), or -1 within MAX_EXPR."""
    depth = 0
    for j in range(i, min(len(message), i + MAX_EXPR)):
        if message[j] == "{":
            depth += 1
        elif message[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _placeholder_end(message: str, i: int) -> int:
    """Return where a placeholder starting at `i` ends, or -1 when none starts there."""
    if message[i] == "{":
        return _close(message, i) + 1
    if message[i] == "%":
        m = _compiled(PERCENT).match(message, i)
        return m.end() if m else -1
    return -1


def pieces(message: str) -> list[Piece]:
    """Return the literal pieces of `message` as [start, end), None for each run of placeholders."""
    found: list[Piece] = []
    start = i = 0
    # Only a brace or a percent sign can begin an escape or a placeholder: the search skips
    # every other character at once, where a step per character would take most of the time.
    special_at = _compiled(_SPECIAL).search
    while (special := special_at(message, i)) is not None:
        i = special.start()
        if message[i:i + 2] in _ESCAPES:
            i += 2
            continue
        end = _placeholder_end(message, i)
        if end <= 0:
            i += 1
            continue
        if i > start:
            found.append((start, i))
        if not found or found[-1] is not None:
            found.append(None)
        i = start = end
    if len(message) > start:
        found.append((start, len(message)))
    return found


def unescape(message: str, start: int, end: int) -> str:
    """Return the literal text of message[start:end] with `{{`, `}}`, `%%` unescaped."""
    text = message[start:end]
    if "{{" not in text and "}}" not in text and "%%" not in text:
        return text
    out = []
    i = start
    while i < end:
        out.append(message[i])
        i += 2 if message[i:i + 2] in _ESCAPES and i + 1 < end else 1
    return "".join(out)


def compile_with_spans(message: str) -> tuple[Segments, list[int]]:
    """Return the compiled template and each literal's [start, end) in `message` (flat, whitespace trimmed)."""
    found = pieces(message)
    segs: Segments = []
    spans: list[int] = []
    for k, piece in enumerate(found):
        if piece is None:
            if not segs or segs[-1] is not None:
                segs.append(None)
            continue
        start, end = piece
        if k == 0:
            while start < end and message[start] in WHITESPACE:
                start += 1
        if k == len(found) - 1:
            while end > start and message[end - 1] in WHITESPACE:
                end -= 1
        lit = collapse(unescape(message, start, end))
        if lit:
            segs.append(lit)
            spans += [start, end]
    return segs, spans


def compile_template(message: str) -> Segments:
    """Return the template as normalised literal segments, None for each placeholder."""
    return compile_with_spans(message)[0]


def template_parts(message: str) -> list[tuple[str, bool]]:
    """Return the template as (text, is_placeholder) runs, literal text unescaped, as matching reads it."""
    if _compiled(_SPECIAL).search(message) is None:
        return [(message, False)] if message else []  # no placeholder nor escape: most messages
    parts: list[tuple[str, bool]] = []
    pos = 0
    for piece in pieces(message):
        if piece is None:
            continue
        start, end = piece
        if start > pos:
            parts.append((message[pos:start], True))
        parts.append((unescape(message, start, end), False))
        pos = end
    if pos < len(message):
        parts.append((message[pos:], True))
    return parts


def literal_text(message: str) -> str:
    """Return the template's literal text, unescaped, a space for each placeholder."""
    return "".join(" " if hole else text for text, hole in template_parts(message))


def repr_placeholders(message: str) -> list[int]:
    """Return the positions (among placeholders) of those that show a repr: `{x!r}`, `{x!a}`, `%r`, `%a`.

    A run of adjacent placeholders is one placeholder and shows a repr only if it is a single one.
    """
    out = []
    holes = [text for text, hole in template_parts(message) if hole]
    for n, text in enumerate(holes):
        if text[0] == "{" and _close(text, 0) == len(text) - 1:
            if _compiled(_REPR_FIELD).search(text[1:-1]):
                out.append(n)
        elif text[0] == "%" and _compiled(PERCENT).fullmatch(text) and text[-1] in "ra":
            out.append(n)
    return out


def first_word(segs: Segments) -> str:
    """Return the first whole word (2+ chars, not touching a placeholder) of the literal text, or ""."""
    for k, seg in enumerate(segs):
        if seg is None:
            continue
        for word, start, end in tokenize(seg):
            if start == 0 and k > 0:
                continue
            if end == len(seg) and k < len(segs) - 1:
                continue
            return word
    return ""
