"""Text as matching reads it: lowercasing, whitespace, word characters, tokens.

Both runtimes must agree on every character (docs/matching.md, Characters).
"""

from __future__ import annotations

import re
from functools import cache

WHITESPACE = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
"""The characters a whitespace run is made of (docs/matching.md, Characters)."""
NON_WORD_RANGES = ((0x80, 0xBF), (0xD7, 0xD7), (0xF7, 0xF7), (0x2000, 0x2BFF),
                   (0x3000, 0x303F), (0xFF00, 0xFF0F), (0x1F000, 0x1FAFF))
"""Code point ranges outside ASCII that are not word characters: symbols, punctuation, emoji."""


def _lower_char(ch: str) -> str:
    low = ch.lower()
    if len(low) == 1 and (ord(low) > 0xFFFF) == (ord(ch) > 0xFFFF):
        return low
    return ch


def lower(text: str) -> str:
    """Return `text` lowercased code point by code point, keeping its length."""
    if text.isascii():
        return text.lower()
    return "".join(_lower_char(ch) for ch in text)


def normalize(text: str) -> tuple[str, list[int]]:
    """Return `text` lowercased, whitespace runs as one space, trimmed; and each char's source index."""
    low = lower(text)
    out: list[str] = []
    where: list[int] = []
    space = False
    for i, ch in enumerate(low):
        if ch in WHITESPACE:
            space = True
            continue
        if space and out:
            out.append(" ")
            where.append(i - 1)
        space = False
        out.append(ch)
        where.append(i)
    return "".join(out), where


# The regular expressions of this module are compiled when first used, not on import: a build
# where nothing changed imports the module and reads no text.
@cache
def _whitespace_run() -> re.Pattern[str]:
    """Return the regular expression of a run of whitespace characters."""
    return re.compile("[" + "".join(re.escape(ch) for ch in sorted(WHITESPACE)) + "]+")


def collapse(text: str) -> str:
    """Return `text` lowercased with whitespace runs as one space (not trimmed)."""
    return _whitespace_run().sub(" ", lower(text))


def is_word(ch: str) -> bool:
    """Return whether `ch` is part of a word (for tokens and literal boundaries)."""
    c = ord(ch)
    if c < 0x80:
        return ch.isalnum()
    if ch in WHITESPACE:
        return False
    return not any(lo <= c <= hi for lo, hi in NON_WORD_RANGES)


@cache
def _word_run() -> re.Pattern[str]:
    """Return the regular expression of a run of two or more characters that `is_word` accepts,
    found by the regex engine rather than a step per character."""
    not_word = ("".join(re.escape(chr(c)) for c in range(0x80) if not chr(c).isalnum())
                + "".join(re.escape(ch) for ch in sorted(WHITESPACE) if ord(ch) >= 0x80)
                + "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in NON_WORD_RANGES))
    return re.compile(f"[^{not_word}]{{2,}}")


def tokenize(text: str) -> list[tuple[str, int, int]]:
    """Return the words of `text` (lowercased, 2+ code points) with their code point ranges."""
    return [(found.group(), found.start(), found.end()) for found in _word_run().finditer(lower(text))]

