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


LOWER_LINE = r"^  var LOWER_RUNS = (\[[-0-9,]*\]);$"
"""The line of the engine script (static/match.js) that holds the lowercasing table of both runtimes."""


@cache
def lower_table() -> dict[int, int]:
    """Return each code point that matching lowercases and its lowercase form, from the engine script's table.

    Python's `str.lower` and each browser's `toLowerCase` follow the Unicode tables of their own
    release; this one table, which scripts/lower_table.py writes into match.js, is what both use.
    """
    import json

    from ..assets import templates_dir

    script = (templates_dir() / "static" / "match.js").read_text(encoding="utf-8")
    found = re.search(LOWER_LINE, script, re.MULTILINE)
    assert found is not None, "static/match.js holds the lowercasing table (scripts/lower_table.py)"
    runs = json.loads(found.group(1))
    table: dict[int, int] = {}
    end = 0
    for gap, signed, offset in zip(runs[::3], runs[1::3], runs[2::3]):
        step, at = (2 if signed < 0 else 1), end + gap
        table.update((at + k * step, at + k * step + offset) for k in range(abs(signed)))
        end = at + (abs(signed) - 1) * step + 1
    return table


def lower(text: str) -> str:
    """Return `text` lowercased code point by code point by the table both runtimes share, keeping its length."""
    if text.isascii():
        return text.lower()
    return text.translate(lower_table())


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

