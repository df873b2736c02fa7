"""Matching one compiled template against one normalised text, left to right, without backtracking.

Literals are found with `str.find` between placeholders that match anything (docs/matching.md,
Matching one template); `match.py` tries a record's templates over the paste forms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .paste import read_paste
from .template import Segments, compile_template
from .text import is_word, normalize

End = Literal["full", "cut", "noise"]
MISSING = -2
"""Where a literal that is not there starts (-1 is taken: the virtual space before position 0)."""


@dataclass(frozen=True, slots=True)
class Walk:
    """How a template matched a text."""

    end: End
    """"full": every literal found, nothing before the template; "cut": the text stops inside the
    template and nothing came before it; "noise": text the template cannot produce around it."""
    covered: list[int]
    """Characters matched of each literal, up to where the match stopped (a shorter list then)."""
    values: list[int]
    """For a full match, each placeholder's value as [start, end) in the text, flat; else empty."""


def _boundary(text: str, q: int, lit: str) -> bool:
    return q == 0 or not is_word(lit[0]) or not is_word(text[q - 1])


def _find_first(text: str, lit: str) -> int:
    """Return the leftmost occurrence of the template's opening literal at a word boundary."""
    q = text.find(lit)
    while q >= 0 and not _boundary(text, q, lit):
        q = text.find(lit, q + 1)
    return q if q >= 0 else MISSING


def _find_after(text: str, lit: str, p: int) -> int:
    """Return the leftmost occurrence of `lit` after a placeholder starting at `p` (-1: virtual space).

    A literal that starts with a space may start one character earlier (the placeholder was empty
    and collapsing ate the space); a literal that is only a space, only when it is not found at or
    after `p`: values are rarely empty, and `{name} {path!r}` splits `Path 'x'` at its own space.
    """
    q = text.find(lit, p)
    if lit[0] == " " and (lit != " " or q < 0):
        if p == 0 and text.startswith(lit[1:]):
            return -1
        if p > 0 and text[p - 1] == " ":
            q = text.find(lit, p - 1)
    return q if q >= 0 else MISSING


def _ends_at(text: str, lit: str, p: int, first: bool) -> int:
    """Return where `lit` starts if the text ends with it and it may start there, else MISSING."""
    q = len(text) - len(lit)
    if first:
        return q if q >= 0 and text.endswith(lit) and _boundary(text, q, lit) else MISSING
    if q >= p and text.endswith(lit):
        return q
    if lit[0] == " " and q == p - 1 and (p == 0 or text[p - 1] == " ") and text.endswith(lit[1:]):
        return q
    return MISSING


def _tail(text: str, lit: str, p: int, first: bool) -> int:
    """Return how many chars of `lit` the text's end covers from the leftmost start >= p, or 0."""
    n = len(text)
    if not first and lit[0] == " " and (p == 0 or text[p - 1] == " "):
        if p == 0 and n > 0 and lit[1:].startswith(text):
            return n + 1
        p = max(p - 1, 0)
    q = max(p, n - len(lit) + 1)
    while q < n:
        q = text.find(lit[0], q)
        if q < 0:
            return 0
        if lit.startswith(text[q:]) and (not first or _boundary(text, q, lit)):
            return n - q
        q += 1
    return 0


def _find(text: str, lit: str, p: int, first: bool, closing: bool) -> int:
    """Return where the literal `lit` is found from `p`: as the opening, a middle or the closing literal."""
    if closing:
        return _ends_at(text, lit, p, first)
    return _find_first(text, lit) if first else _find_after(text, lit, p)


def _stop(text: str, lit: str, p: int, first: bool, closing: bool, covered: list[int], opening: int) -> Walk:
    """Return how a walk ends at a literal that is not where it must be: text after it, or the text cut inside it."""
    if closing and _find(text, lit, p, first, False) != MISSING:
        return Walk("noise", covered + [len(lit)], [])
    got = _tail(text, lit, p, first)
    if first:
        opening = len(text) - got
    return Walk("cut" if opening == 0 else "noise", covered + [got], [])


def walk(segs: Segments, text: str) -> Walk:
    """Return how the compiled template `segs` matches normalised `text` (docs/matching.md, Matching one template)."""
    covered: list[int] = []
    ranges: list[int] = []
    if not segs:
        return Walk("cut", covered, ranges)
    p = 0
    open_at = -1
    opening = 0
    last = len(segs) - 1
    for k, seg in enumerate(segs):
        if seg is None:
            open_at = p
            continue
        first = k == 0
        q = _find(text, seg, p, first, k == last)
        if q == MISSING and k == last - 1 and len(seg) > 1 and seg[-1] == " ":
            # The last placeholder was empty, and trimming took the space before it.
            q = _ends_at(text, seg[:-1], p, first)
            if q != MISSING:
                if first:
                    opening = q
                if open_at >= 0:
                    ranges += [open_at, max(q, open_at)]
                return Walk(_explained(opening), covered + [len(seg)], ranges + [len(text), len(text)])
        if q == MISSING:
            return _stop(text, seg, p, first, k == last, covered, opening)
        if first:
            opening = q
        if open_at >= 0:
            ranges += [open_at, max(q, open_at)]
            open_at = -1
        covered.append(len(seg))
        p = q + len(seg)
    if open_at >= 0:
        ranges += [open_at, len(text)]
    return Walk(_explained(opening), covered, ranges)


def _explained(opening: int) -> End:
    """Return how a walk through every literal ended: a full match explains the text from its start.

    A template found further in (`Expected {x}` inside `too many values to unpack (expected 2)`)
    does not explain the message: it is noise.
    """
    return "full" if opening == 0 else "noise"


def quality(segs: Segments, norm: str, covered: list[int]) -> int:
    """Return the literal chars of the paste a match explains.

    A space that an empty placeholder implies is covered for the spans, but
    it is not in the paste: not before a first empty value, and never more
    than the paste's length.
    """
    total = sum(covered)
    second = segs[1] if len(segs) > 1 and segs[0] is None else None
    if second is not None and second[0] == " " and covered:
        lit = second[1:]
        if norm.startswith(lit) or lit.startswith(norm):
            total -= 1
    return min(total, len(norm))


def values(raw: str, where: list[int], spans: list[int]) -> list[str]:
    """Return the text of each [start, end) of normalised text in `spans`, cut from `raw` as pasted."""
    out = []
    for i in range(0, len(spans), 2):
        start, end = spans[i], spans[i + 1]
        out.append(raw[where[start]:where[end - 1] + 1] if end > start else "")
    return out


def fill(message: str, text: str) -> list[str] | None:
    """Return the values of `message`'s placeholders in the concrete `text`, or None if it does not match."""
    segs = compile_template(message)
    for raw in read_paste(text).forms:
        norm, where = normalize(raw)
        found = walk(segs, norm)
        if found.end == "full":
            return values(raw, where, found.values)
    return None

